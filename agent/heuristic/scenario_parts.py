"""Pieces several opening scenarios share (pure).

The responders started first, passes packed into programs, bytes through a looped-back line,
and the frames a receiver must reject (`error_pass`).
"""

from __future__ import annotations

import random

from agent.heuristic.moves import fits, seed, seeds
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


def error_pass(rng: random.Random, t: Target, words: dict[str, int], period: int, idle: int) -> list[Op]:
    """Frames the receiver must reject under one configuration word per bus (`words`: bus -> word).

    The word goes into every register; each serial input gets the `ERROR_FRAMES`, the line
    idling before each pair (a receiver resynchronises after an error only once the line has
    been high for many bit times); then every register is read (the error flags, before the
    next configuration write clears them), then written with random half-words (an error flag
    bit written 0 keeps it, 1 clears it), the first register (often the configuration) last.
    """
    ifs = t.interfaces
    ops: list[Op] = []
    for bus in ifs.buses:
        ops += [op("bus_write", bus.name, a, words[bus.name]) for a in bus.addresses[:8]]
    for s in ifs.serials:
        for parity, stop in ERROR_FRAMES:
            ops.append(op("hold", idle))
            ops.append(op("serial", s.name, period, (rng.randrange(256), rng.randrange(256)),
                          parity=parity, stop=stop))
    ops.append(op("hold", 12 * period))
    for bus in ifs.buses:
        regs = bus.addresses[:8]
        ops += [op("bus_burst", bus.name, a, 2, write=0) for a in regs]
        ops += reversed([
            op("bus_burst", bus.name, a, 2, seed=s, bits=min(16, bus.register_bits))
            for a, s in zip(regs, seeds(rng, len(regs)), strict=True)
        ])
    return ops


PARITY_BYTE = 0x5A
"""The byte `parity_pass` sends under both parities (any byte: one of the two parity bits is 1)."""


def parity_pass(t: Target, bus: Iface, word: int, period: int, idle: int) -> list[Op]:
    """`word` into every register of `bus`, then `PARITY_BYTE` twice under even and twice under odd parity, then every register read.

    The two parities of one byte put both values in the parity bit's place: a receiver with a
    fixed (stick) parity bit expects one value and sees both, under each value it may expect.
    """
    ops = [op("bus_write", bus.name, a, word) for a in bus.addresses[:8]]
    for s in t.interfaces.serials:
        for parity in ("even", "odd"):
            ops += [op("hold", idle), op("serial", s.name, period, (PARITY_BYTE,) * 2, parity=parity)]
    ops.append(op("hold", 12 * period))
    return [*ops, *(op("bus_burst", bus.name, a, 2, write=0) for a in bus.addresses[:8])]
