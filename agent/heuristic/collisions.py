"""A looped UART's exact moments: a FIFO's two ends in one clock, a break that runs out (pure).

A UART's FIFOs have expressions that hold only when both ends move in the same clock: the
transmitter takes the last entry while a write brings the next (a FIFO of one), or the
receiver writes a byte while a read takes the one before. A frame lasts about ten bit times,
so a bus access lands on the one clock that matters about once in a hundred tries at random;
wbuart32's `ufifo` had six such points (0.2-0.5 of the design's score) that no search trial
reached. The careful reference sweeps a write's offset by one clock per pass; so does this
program, with a growing `hold` (`grow=1`): each pass sends bytes into the looped-back
transmitter from an idle line, waits one clock longer than the pass before, then writes and
reads every register once, and drains.

The sweep configures a short bit time (`SWEEP_PERIOD`), so that two frames are few passes:
a design whose period field counts clocks (wbuart32's setup register) takes it; one that
ignores it sweeps the wrong window and gains nothing (one trial lost). At the same short
period `control_bits` sets and clears every control bit, so that a transmitter's break runs out.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.program.interfaces import Iface
from agent.program.ops import Op, Program, assigns, op

SWEEP_PERIOD = 8
"""Clocks per bit the sweep writes into every register (a period field counting clocks)."""

FRAME_BITS = 10
"""Bits of a frame: start, eight data bits, stop."""

MARGIN = 16
"""Clocks the sweep reaches before and after its window (a frame's extra clocks, bus latency)."""

SEED = 0xC011
"""Seed of the two bytes of each pass (plus the register's address: each sweep its own bytes)."""

TARGETS = 4
"""Registers tried as the transmit register, one sweep each (which one it is is not known)."""


def collision_sweep(bus: Iface, looped: Sequence[Iface], base: Sequence[Op]) -> Program:
    """One sweep per candidate transmit register (`sweep_passes`), every register at the short period first.

    Every register is written with the period again before each sweep: the one before may
    have written a byte into the configuration. The data is fixed, not drawn: adding the
    program leaves every other scenario's draws as they were.
    """
    frame = FRAME_BITS * SWEEP_PERIOD
    ops = [*base, *(op("loopback", s.name) for s in looped)]
    for target in bus.addresses[:TARGETS]:
        ops += [
            *(op("bus_write", bus.name, a, SWEEP_PERIOD) for a in bus.addresses[:8]),
            op("hold", 2 * frame),  # a receiver synchronises on an idle line
            sweep_passes(bus, target, SWEEP_PERIOD),
        ]
    return Program(tuple(ops))


def sweep_passes(bus: Iface, target: int, period: int) -> Op:
    """Two bytes into `target`, then a write there and a read of every register a clock later each pass.

    The window runs from one frame to two frames after the two bytes: the transmitter takes
    the second byte (a FIFO of one) near one frame, the receiver writes it back near two,
    while the first waits unread. Each pass ends with the line idle and every register drained.
    """
    frame = FRAME_BITS * period
    regs = bus.addresses[:8]
    return Op("repeat", (("times", frame + 2 * MARGIN),), (
        op("bus_burst", bus.name, target, 2, seed=SEED + target),
        op("hold", frame - MARGIN, grow=1),
        op("bus_write", bus.name, target, 0xA5),
        *(op("bus_read", bus.name, a) for a in regs),
        op("hold", 2 * frame),
        *(op("bus_burst", bus.name, a, 3, write=0) for a in regs),
    ))


BREAK_FRAMES = 20
"""Frames each way of `control_bits` waits: a break holds the line for 16 bit times of the period
(wbuart32 reloads its baud counter with the period shifted left by four), then the counter runs out."""


def control_bits(bus: Iface, looped: Sequence[Iface], sides: Sequence[str], base: Sequence[Op]) -> Program:
    """Every bit of the registers after the first set, then cleared, at the short period; side inputs high, then low.

    A transmitter's break (wbuart32's bit 9 of its transmit register) leaves its break state
    only once the line has been held for the break's count; at the design's own period, or in
    the long rest's 2^23, that count never ran out in a trial, and its exit (two lines, the
    flow-control test beside them) went uncovered whenever the search did not happen on a
    random word with the bit set and then clear. The first register (the configuration, as in
    `long_rest`) is written all ones and straight back to the short period first, while the line
    is idle: a chain's random words leave a transmitter busy for good often enough that its copy
    of the period's upper bits went untoggled. The side inputs (flow control) hold high for the
    first pass and low for the second: the exit asks whether the far end is clear to send.
    """
    frame = FRAME_BITS * SWEEP_PERIOD
    regs = bus.addresses[:8]
    others = bus.addresses[1:4]
    mask = (1 << bus.register_bits) - 1
    ops = [
        *base,
        *(op("loopback", s.name) for s in looped),
        *(op("bus_write", bus.name, a, SWEEP_PERIOD) for a in regs),
        op("hold", 2 * frame),
        # the configuration all ones and straight back, the line idle: a transmitter that copies
        # it only between frames (wbuart32's) takes every bit both ways
        op("bus_write", bus.name, regs[0], mask),
        op("bus_write", bus.name, regs[0], SWEEP_PERIOD),
        op("hold", 2 * frame),
    ]
    for level in (1, 0):
        if sides:
            ops.append(assigns("set", dict.fromkeys(sides, level)))
        for value in (mask, 0):
            ops += [*(op("bus_write", bus.name, a, value) for a in others), op("hold", BREAK_FRAMES * frame)]
    return Program(tuple(ops))
