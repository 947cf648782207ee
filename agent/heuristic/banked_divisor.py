"""Opening scenarios for a divisor behind a bank bit: a 16550 UART (pure).

Until its divisor latch is written a 16550 does nothing at all, and its line control, error
flags and FIFO slots need passes of their own (`banked_divisor`).
"""

from __future__ import annotations

import random

from agent.heuristic.collisions import FRAME_BITS, sweep_passes
from agent.heuristic.config_words import mode_words
from agent.heuristic.moves import seed
from agent.heuristic.scenario_parts import (
    ERROR_FRAMES,
    background,
    loopback_traffic,
    packed,
)
from agent.program.interfaces import Iface
from agent.program.ops import Op, Program, op
from agent.program.target import Target

BANK_OPEN = 0x83
"""Written to the register whose top bit banks others: a 16550's line control opens its divisor
latch with bit 7 (bits 1:0 set: 8 data bits)."""

BANK_BIT = 0x80
"""The bit that opens the bank."""

BANK_CLOSED = 0x03
"""The same register closed again: 8 data bits, one stop bit, no parity."""

ENABLES_ON = 0x0F
"""Written to the registers beside the bank register once it is closed: the low bits (enables) on."""

DIVISOR_PERIOD = 16
"""Bit period with a divisor of 1: a 16550 samples each bit 16 times."""

PARITY_SHIFT = 3
"""A 16550's line control holds parity enable, even parity and stick parity in bits 3-5: a
three-bit code whose eight values select different rules (1/0/1 sticks the parity bit at 1).
The pairwise mode words reach only some of the eight (uart16550's reference sends all)."""


def banked_divisor(rng: random.Random, t: Target, bus: Iface, looped: list[Iface]) -> list[tuple[str, Program]]:
    """A divisor behind a bank bit (a 16550): open the bank, divisor 1, close it, then traffic.

    Until its divisor latch is written a 16550 does nothing at all (no bit clock, no frames),
    and writing the period to every register leaves the latch closed. It keeps its line
    control (bit 7 opens the latch) in the last register of its first word and the divisor's
    low byte in the first; a 32-bit bus of big-endian byte lanes reverses a word's registers,
    so both orders are tried. Per order: one program of `loopback_traffic` into the
    divisor's address (which the transmit register shares); shorter traffic under
    line-control words of every pair of mode bits (data bits, stop bits, parity) and of
    every parity code (`PARITY_SHIFT`), with the latch bit clear; frames the receiver must
    reject (`ERROR_FRAMES`) sent from outside under the first three of those words; a write
    swept a clock per pass across the transmitter's taking a byte (`collisions.sweep_passes`);
    two bytes below the FIFO's trigger level and a rest (`_timeout`); a peer a little fast
    (`_fast_peer`).
    """
    regs = list(bus.addresses[:8])
    if len(regs) < 4:
        return []
    first = regs[:4]
    # The top byte of 16-bit mode words (a covering array over a byte's bits), latch bit clear.
    modes = [(w >> 8) & ~BANK_BIT for w in mode_words(rng, 16, 0)]
    base = [op("reset"), *background(rng, t)]
    loop = [op("loopback", s.name) for s in looped]
    drain = [op("bus_burst", bus.name, a, 2, write=0) for a in regs]
    out: list[tuple[str, Program]] = []
    for name, gate, low in (("in order", first[3], first[0]), ("lanes reversed", first[0], first[3])):
        setup = [
            op("bus_write", bus.name, gate, BANK_OPEN),
            # every divisor bit set once (then cleared below): the latch's bits both ways
            *(op("bus_write", bus.name, a, 0xFF) for a in first if a != gate),
            # the divisor's high byte and the rest of the word cleared, its low byte 1
            *(op("bus_write", bus.name, a, 0) for a in first if a not in (gate, low)),
            op("bus_write", bus.name, low, 1),
            op("bus_write", bus.name, gate, BANK_CLOSED),
            # then what shares the cleared addresses, low bits on (a 16550's interrupt enables
            # and FIFO control: interrupts for received data, errors and timeouts)
            *(op("bus_write", bus.name, a, ENABLES_ON) for a in first if a not in (gate, low)),
        ]
        traffic = loopback_traffic(rng, bus, low, DIVISOR_PERIOD)
        out.append((f"banked divisor, {name}", Program((*base, *loop, *setup, *traffic))))
        passes = [
            [op("bus_write", bus.name, gate, mode), op("bus_burst", bus.name, low, 8, seed=seed(rng)),
             op("hold", 100 * DIVISOR_PERIOD), *drain]
            for mode in [*_parity_codes_missing(modes), *modes]
        ]
        out += packed(t, f"banked divisor modes, {name}", [*base, *loop, *setup], passes, 3)
        passes = []
        for mode in modes[:3]:
            ops = [op("bus_write", bus.name, gate, mode)]
            for s in t.interfaces.serials:
                for parity, stop in ERROR_FRAMES:
                    ops += [
                        op("hold", 20 * DIVISOR_PERIOD),
                        op("serial", s.name, DIVISOR_PERIOD, (rng.randrange(256), rng.randrange(256)),
                           parity=parity, stop=stop),
                    ]
            passes.append([*ops, *drain])
        out += packed(t, f"banked divisor errors, {name}", [*base, *setup], passes, 2)
        passes = [[op("bus_write", bus.name, gate, mode), *ops,
                   *(op("bus_burst", bus.name, a, ERROR_SLOTS, write=0) for a in regs)]
                  for i, mode in enumerate(modes) for ops in _error_slots(rng, t, DIVISOR_PERIOD, breaks=i == 0)]
        out += packed(t, f"banked divisor error slots, {name}", [*base, *setup], passes, ERROR_SLOT_PROGRAMS)
        out.append((f"banked divisor narrow words, {name}",
                    Program((*base, *setup, *_narrow_words(rng, bus, gate, low), *drain))))
        out.append((f"banked divisor timeout, {name}", Program((*base, *loop, *setup, *_timeout(bus, first, gate, low)))))
        out.append((f"banked divisor fast peer, {name}", Program((*base, *setup, *_fast_peer(t, bus)))))
        # a write in the clock the transmitter takes a byte (uart16550's push-and-pop line)
        out.append((f"banked divisor collision sweep, {name}",
                    Program((*base, *loop, *setup, op("hold", 20 * DIVISOR_PERIOD),
                             sweep_passes(bus, low, DIVISOR_PERIOD)))))
    return out


TRIGGER_HIGH = 0xCF
"""Written beside the bank register for `_timeout`: the enables on and the top bits too (a 16550's
FIFO control then interrupts for received data only at 14 bytes)."""

TIMEOUT_FRAMES = 25
"""Frame times the line rests with bytes waiting: a 16550 raises its character timeout after four."""


def _timeout(bus: Iface, first: list[int], gate: int, low: int) -> list[Op]:
    """Two bytes under a FIFO trigger level above them, then a rest: the character timeout interrupts.

    With the trigger at one byte (`ENABLES_ON`) received data always interrupts first and the
    timeout, lower in priority, never drives the interrupt line (uart16550's `int_o`).
    """
    frame = FRAME_BITS * DIVISOR_PERIOD
    return [
        *(op("bus_write", bus.name, a, TRIGGER_HIGH) for a in first if a not in (gate, low)),
        op("hold", 2 * frame),
        op("bus_burst", bus.name, low, 2, seed=0x7),
        op("hold", TIMEOUT_FRAMES * frame),
        *(op("bus_burst", bus.name, a, 3, write=0) for a in bus.addresses[:8]),
    ]


def _fast_peer(t: Target, bus: Iface) -> list[Op]:
    """Frames from a peer one clock per bit fast, the next start bit swept a clock per pass past the stop bit.

    A receiver samples the stop bit in its middle and stores the byte a little later: a start
    bit that falls between the two (a peer slightly fast, within a UART's tolerance) takes the
    path that waits for no idle line (uart16550's receiver, line 401), which frames at the
    receiver's own period never reach.
    """
    ops: list[Op] = [op("hold", 20 * DIVISOR_PERIOD)]
    for s in t.interfaces.serials:
        ops.append(Op("repeat", (("times", DIVISOR_PERIOD + 1),), (
            op("serial", s.name, DIVISOR_PERIOD - 1, (0x55,)),
            op("hold", 1, grow=1),
            op("serial", s.name, DIVISOR_PERIOD, (0xAA,)),
            op("hold", 25 * DIVISOR_PERIOD),
            *(op("bus_burst", bus.name, a, 2, write=0) for a in bus.addresses[:8]),
        )))
    return ops


def _parity_codes_missing(modes: list[int]) -> list[int]:
    """Line-control words (8 data bits) for the parity codes no mode word holds."""
    held = {(m >> PARITY_SHIFT) & 7 for m in modes}
    return [BANK_CLOSED | code << PARITY_SHIFT for code in range(8) if code not in held]


NARROW_MODE = 0x00
"""A 16550's line control for its narrowest frames: 5 data bits, one stop bit, no parity."""

NARROW_BITS = 5
"""Data bits of those frames."""

NARROW_BURSTS = 8
"""Bursts of a FIFO's depth (16) of random 5-bit words. A transmitter's parity over the word
(`^data[4:0]`) has 32 rows of expression coverage, one per value; the 8 bytes sent under each
mode word reach about half of them, 128 draws 31.4 on average."""


def _narrow_words(rng: random.Random, bus: Iface, gate: int, low: int) -> list[Op]:
    """Every value of the narrowest data word through the transmitter, one FIFO's depth at a time.

    Each burst is followed by the time its frames take to leave (16 frames of at most 8 bit
    times), so no write meets a full FIFO.
    """
    ops = [op("bus_write", bus.name, gate, NARROW_MODE)]
    for _ in range(NARROW_BURSTS):
        ops += [op("bus_burst", bus.name, low, 16, seed=seed(rng), bits=NARROW_BITS),
                op("hold", 16 * 8 * DIVISOR_PERIOD)]
    return ops


ERROR_SLOT_PROGRAMS = 5
"""Programs of error-slot passes (three passes each): every mode word's two parities and one
run of breaks. A parity error in every slot needs a word with parity on and stick parity off,
which the covering array holds somewhere in its six rows, not always in the first two."""


ERROR_SLOTS = 20
"""Frames in a row of one kind of error: more than a 16550's receive FIFO holds (16), so every
slot's error bits are set (and cleared again when the FIFO is drained)."""


def _error_slots(rng: random.Random, t: Target, period: int, breaks: bool) -> list[list[Op]]:
    """Bursts of bad frames into every serial input: missing stop bits, each parity, then breaks.

    Breaks only with `breaks`. A receiver with a FIFO keeps each byte's errors beside it: only a
    run of bad frames longer than the FIFO reaches every slot. Under a mode word with parity on,
    one of the two parities is wrong in every frame (and the other clears the slots' parity bits
    again). Each burst is followed by an idle line, then the caller drains the FIFO.
    """
    passes: list[list[Op]] = []
    for parity in ("even", "odd"):
        passes.append([])
        for s in t.interfaces.serials:
            passes[-1] += [op("serial", s.name, period, tuple(rng.randrange(256) for _ in range(ERROR_SLOTS)),
                              parity=parity, stop=0), op("hold", 20 * period)]
    if breaks:
        passes.append([])
        for s in t.interfaces.serials:
            passes[-1] += [op("serial", s.name, period, (0x100,) * ERROR_SLOTS), op("hold", 20 * period)]
    return passes
