"""Pieces several opening scenarios share (pure).

The responders started first, passes packed into programs, bytes through a looped-back line,
and the frames a receiver must reject.
"""

from __future__ import annotations

import random

from agent.heuristic.moves import fits, seed
from agent.program.iface import DEVICE_KINDS
from agent.program.interfaces import Iface
from agent.program.ops import Op, Program, op
from agent.program.target import Target

ERROR_FRAMES: tuple[tuple[str, int], ...] = (
    ("even", 2),
    ("odd", 2),
    ("none", 0),
    ("even", 0),
    ("odd", 1),
)
"""(parity, stop bits) of the frames a receiver must reject: each parity with two stop bits
(whichever parity the receiver expects, one frame is wrong, and a receiver that clears its
error outputs between frames, as wbuart32's does, latches them only in a second stop bit),
a missing stop bit with and without parity, one ordinary frame."""


def background(rng: random.Random, t: Target) -> list[Op]:
    """Start every responder (devices on lines aside) and sink: a design that asks must be answered from the start."""
    ifs = t.interfaces
    return [
        *(op("respond", r.name, seed=seed(rng)) for r in ifs.responders if r.kind not in DEVICE_KINDS),
        # throttled: the design must also hold its output while nobody takes it
        *(op("sink", s.name, ready=80, seed=seed(rng)) for s in ifs.sinks),
    ]


def packed(
    t: Target, name: str, head: list[Op], blocks: list[list[Op]], most: int
) -> list[tuple[str, Program]]:
    """`head`, then as many whole `blocks` as fit the program caps: one program per part, `most` parts.

    A scenario of many passes (one per mode word) is longer than one program may be; trimming
    it would drop the last passes, and with them the reads that show what the passes did.
    `most` keeps a design with many registers from spending the opening on one scenario.
    """
    parts: list[list[Op]] = []
    current = list(head)
    for block in blocks:
        if len(current) > len(head) and not fits(t, Program(tuple(current + block))):
            parts.append(current)
            current = list(head)
        current += block
    parts.append(current)
    parts = parts[:most]
    if len(parts) == 1:
        return [(name, Program(tuple(parts[0])))]
    return [(f"{name} {i + 1}/{len(parts)}", Program(tuple(ops))) for i, ops in enumerate(parts)]


def loopback_traffic(rng: random.Random, bus: Iface, target: int, period: int) -> list[Op]:
    """Bytes through a looped-back line: bursts into `target` (a transmit register), then every register drained.

    Two passes (every FIFO entry and bit goes both ways), then under pressure: writes for
    several frame times into a full FIFO (the transmitter takes one while a write arrives),
    then reads for several frame times while frames come back (the receiver writes while a
    read takes one).
    """
    regs = bus.addresses[:8]
    ops: list[Op] = []
    for _ in range(2):
        ops += [op("bus_burst", bus.name, target, 20, seed=seed(rng)), op("hold", 220 * period)]
        ops += [op("bus_burst", bus.name, a, 20, write=0) for a in regs]
    return [
        *ops,
        op("bus_burst", bus.name, target, 256, seed=seed(rng)),
        *(op("bus_burst", bus.name, a, 64, write=0) for a in regs),
        op("hold", 220 * period),
    ]
