"""A FIFO's two ends in one clock: a bus access in the cycle the line takes or gives a byte (pure).

A UART's FIFOs have expressions that hold only when both ends move in the same clock: the
transmitter takes the last entry while a write brings the next (a FIFO of one), or the
receiver writes a byte while a read takes the one before. A frame lasts about ten bit times,
so a bus access lands on the one clock that matters about once in a hundred tries at random;
wbuart32's `ufifo` had six such points (0.2-0.5 of the design's score) that no search trial
reached. The careful reference sweeps a write's offset by one clock per pass; so do these
programs, with a growing `hold` (`grow=1`): each pass sends bytes into the looped-back
transmitter from an idle line, waits one clock longer than the pass before, then writes and
reads every register once, and drains.

The sweep configures a short bit time (`SWEEP_PERIOD`), so that two frames are few passes:
a design whose period field counts clocks (wbuart32's setup register) takes it; one that
ignores it sweeps the wrong window and gains nothing (one trial lost).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from agent.heuristic.moves import seed
from agent.program.interfaces import Iface
from agent.program.ops import Op, Program, op

SWEEP_PERIOD = 8
"""Clocks per bit the sweep writes into every register (a period field counting clocks)."""

FRAME_BITS = 10
"""Bits of a frame: start, eight data bits, stop."""

MARGIN = 16
"""Clocks the sweep reaches before and after its window (a frame's extra clocks, bus latency)."""

FULL_BURST = 20
"""Bytes written to fill the transmit FIFO (deeper than the usual 16: the rest overflow)."""


def collision_sweeps(rng: random.Random, bus: Iface, looped: Sequence[Iface], target: int,
                     base: Sequence[Op]) -> list[tuple[str, Program]]:
    """Two sweeps with `target` as the transmit register: a FIFO of one entry, then a full one.

    One entry: two bytes written, then the write and reads from one frame to two frames
    later (the transmitter takes the second byte at one frame; the receiver writes the
    second byte near two). Full: a burst fills the FIFO, then the write sweeps one frame,
    where the transmitter takes an entry with the FIFO full.
    """
    frame = FRAME_BITS * SWEEP_PERIOD
    regs = bus.addresses[:8]
    head = [
        *base,
        *(op("loopback", s.name) for s in looped),
        *(op("bus_write", bus.name, a, SWEEP_PERIOD) for a in regs),
        op("hold", 2 * frame),  # a receiver synchronises on an idle line
    ]

    def sweep(count: int, first: int, passes: int, drain: int) -> Op:
        return Op("repeat", (("times", passes),), (
            op("bus_burst", bus.name, target, count, seed=seed(rng)),
            op("hold", first, grow=1),
            op("bus_write", bus.name, target, rng.randrange(256)),
            *(op("bus_read", bus.name, a) for a in regs),
            op("hold", drain),
            *(op("bus_burst", bus.name, a, count + 1, write=0) for a in regs),
        ))

    one = sweep(2, frame - MARGIN, frame + 2 * MARGIN, 3 * frame)
    full = sweep(FULL_BURST, 1, frame, (FULL_BURST - 3) * frame)
    return [
        (f"collision sweep @{target:#x}", Program((*head, one))),
        (f"collision sweep full @{target:#x}", Program((*head, full))),
    ]
