"""The opening scenarios: one program per kind of use the design's interfaces suggest.

Pure like `moves` (a seeded `random.Random` in, programs out); the search plays them first,
then grows and splices what they keep with the generators in `moves`.
"""

from __future__ import annotations

import random

from agent.heuristic.config_words import MODE_WORDS, mode_words
from agent.heuristic.device_scenarios import with_devices
from agent.heuristic.moves import (
    DIVISOR_MULTIPLES,
    bus_data,
    divisor_inputs,
    fits,
    gen_bus,
    gen_slow,
    only_loud,
    seed,
    seeds,
    serial_period,
    side_inputs,
    stream_context,
    trim,
)
from agent.heuristic.stimulus import Hints
from agent.program.iface import DEVICE_KINDS
from agent.program.interfaces import Iface
from agent.program.ops import Op, Program, assigns, op
from agent.program.target import ROUGH_LATENCY, Target

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


def _banked_divisor(rng: random.Random, t: Target, bus: Iface, looped: list[Iface]) -> list[tuple[str, Program]]:
    """A divisor behind a bank bit (a 16550): open the bank, divisor 1, close it, then traffic.

    Until its divisor latch is written a 16550 does nothing at all (no bit clock, no frames),
    and writing the period to every register leaves the latch closed. It keeps its line
    control (bit 7 opens the latch) in the last register of its first word and the divisor's
    low byte in the first; a 32-bit bus of big-endian byte lanes reverses a word's registers,
    so both orders are tried. Per order: one program of `_loopback_traffic` into the
    divisor's address (which the transmit register shares); shorter traffic under
    line-control words of every pair of mode bits (data bits, stop bits, parity) with the
    latch bit clear; frames the receiver must reject (`ERROR_FRAMES`) sent from outside
    under the first three of those words.
    """
    regs = list(bus.addresses[:8])
    if len(regs) < 4:
        return []
    first = regs[:4]
    # The top byte of 16-bit mode words (a covering array over a byte's bits), latch bit clear.
    modes = [(w >> 8) & ~BANK_BIT for w in mode_words(rng, 16, 0)]
    base = [op("reset"), *_background(rng, t)]
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
        traffic = _loopback_traffic(rng, bus, low, DIVISOR_PERIOD)
        out.append((f"banked divisor, {name}", Program((*base, *loop, *setup, *traffic))))
        passes = [
            [op("bus_write", bus.name, gate, mode), op("bus_burst", bus.name, low, 8, seed=seed(rng)),
             op("hold", 100 * DIVISOR_PERIOD), *drain]
            for mode in modes
        ]
        out += _packed(t, f"banked divisor modes, {name}", [*base, *loop, *setup], passes, 2)
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
        out += _packed(t, f"banked divisor errors, {name}", [*base, *setup], passes, 2)
        passes = [[op("bus_write", bus.name, gate, mode), *ops,
                   *(op("bus_burst", bus.name, a, ERROR_SLOTS, write=0) for a in regs)]
                  for i, mode in enumerate(modes) for ops in _error_slots(rng, t, DIVISOR_PERIOD, breaks=i == 0)]
        out += _packed(t, f"banked divisor error slots, {name}", [*base, *setup], passes, ERROR_SLOT_PROGRAMS)
        out.append((f"banked divisor narrow words, {name}",
                    Program((*base, *setup, *_narrow_words(rng, bus, gate, low), *drain))))
    return out


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


def consecutive_steps(bus: Iface) -> tuple[int, ...]:
    """Address steps of a bus's consecutive accesses: the next word counted in words, and in bytes.

    Whether a bus counts its address in words (Wishbone cores, mostly) or bytes (AXI, APB, AHB,
    some Wishbone cores) is not in its port names, so both are tried where they differ.
    """
    return tuple(dict.fromkeys((1, max(1, bus.data_bits // 8))))


def _consecutive(bus: Iface, base: list[Op]) -> Program:
    """Runs of reads and then writes at consecutive addresses from the first registers.

    On a pipelined Wishbone a run is one cycle of back-to-back requests: a slave that continues
    an access at the next address without a new command (a flash controller's sequential reads,
    a page program's next word) takes that path only while the previous request is open.
    (Fixed data seeds: the scenarios after this one keep their random draws.)
    """
    ops = list(base)
    for step in consecutive_steps(bus):
        for k, a in enumerate(bus.addresses[:2]):
            ops += [op("bus_burst", bus.name, a, 8, write=0, step=step), op("hold", 20),
                    op("bus_burst", bus.name, a, 4, seed=0xC0 + k, bits=bus.register_bits, step=step),
                    op("hold", 20)]
    ops += [op("bus_read", bus.name, a) for a in bus.addresses[:8]]
    return Program(tuple(ops))


def _loopback_traffic(rng: random.Random, bus: Iface, target: int, period: int) -> list[Op]:
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


COMMAND_OPERANDS = 8
"""Most operand values a command scenario walks below the parser's own limit (addresses 0-7)."""


SLOWEST_LATENCY = 16
"""The largest `respond` latency: long stalls of 4,096 clocks and more (several UART bytes)."""


def _serial_commands(rng: random.Random, t: Target, base: list[Op], period: int) -> list[tuple[str, Program]]:
    """Command sequences for a design that parses bytes from its serial input (`Iface.words`).

    Each value the parser compares with is sent as a command, followed by every operand below
    the largest small limit it compares with (`addr > 8'd7`: 0-7), the first one past it and
    0xff, each with a data byte, its complement and the byte again (every bit of what a write
    command stores goes both ways). A command byte read where an operand is expected walks
    the error path. One program per command; the line idles first, as after power-up. With
    multi-byte values the parser decides on (`Iface.addresses`), one more program sends each
    command with a length, each value in both byte orders and four data bytes (the data, its
    complement and the data again), and one on a rough bus with 16 data bytes per command.
    """
    out: list[tuple[str, Program]] = []
    for s in t.interfaces.serials:
        limits = [w for w in s.words if w < 0x20]
        top = min(max(limits, default=COMMAND_OPERANDS - 1), COMMAND_OPERANDS - 1)
        operands = [*dict.fromkeys([*range(top + 1), *limits, 0xFF])]
        for command in s.words[:8]:
            ops = [*base, op("hold", 20 * period)]
            for operand in operands:
                data = rng.randrange(256)
                frames = (command, operand, data, command, operand, data ^ 0xFF, command, operand, data)
                ops += [op("serial", s.name, period, frames), op("hold", 12 * period)]
            program = trim(t, Program(tuple(ops)))
            if len(program.ops) > len(base) + 1:
                out.append((f"serial command {command:#04x}", program))
        if s.addresses:
            # Command, length, a multi-byte value the parser decides on (both byte orders), data:
            # the frame of a debug bridge's access to one of its special addresses.
            ops = [*base, op("hold", 20 * period)]
            for command in s.words[:4]:
                for value in s.addresses[:4]:
                    size = (value.bit_length() + 7) // 8
                    big = value.to_bytes(size, "big")
                    for order in (big, big[::-1]):
                        # the data, its complement and the data again: every bit a write stores goes both ways
                        stored = [rng.randrange(256) for _ in range(4)]
                        for word in (stored, [b ^ 0xFF for b in stored], stored):
                            frames = (command, 4, *order, *word)
                            ops += [op("serial", s.name, period, frames), op("hold", 12 * period)]
            out.append(("serial command addresses", trim(t, Program(tuple(ops)))))
            # Long writes on the slowest bus: each command with 16 data bytes, so bytes queue while a
            # write response is late, then arrive while the next request waits (WDATA must hold).
            rough = on_rough_bus(t, base, SLOWEST_LATENCY)
            if rough != base:
                ops = [*rough, op("hold", 20 * period)]
                size = max((v.bit_length() + 7) // 8 for v in s.addresses)
                for command in s.words[:4]:
                    for value in (0, s.addresses[0]):  # a plain address, and a special one
                        order = value.to_bytes(size, "big")
                        frames = (command, 16, *order, *(rng.randrange(256) for _ in range(16)))
                        ops += [op("serial", s.name, period, frames), op("hold", 40 * period)]
                out.append(("serial command bursts on a rough bus", trim(t, Program(tuple(ops)))))
    return out


def on_rough_bus(t: Target, ops: list[Op], latency: int = ROUGH_LATENCY + 1) -> list[Op]:
    """`ops` with every memory responder (devices on lines aside) answering rough, at `latency`."""
    devices = {r.name for r in t.interfaces.responders if r.kind in DEVICE_KINDS}
    return [o.with_arg("latency", latency) if o.name == "respond" and o.word("iface") not in devices
            else o for o in ops]


def _background(rng: random.Random, t: Target) -> list[Op]:
    """Start every responder (devices on lines aside) and sink: a design that asks must be answered from the start."""
    ifs = t.interfaces
    return [
        *(op("respond", r.name, seed=seed(rng)) for r in ifs.responders if r.kind not in DEVICE_KINDS),
        # throttled: the design must also hold its output while nobody takes it
        *(op("sink", s.name, ready=80, seed=seed(rng)) for s in ifs.sinks),
    ]


def _setup_writes(t: Target) -> list[Op]:
    """Fill every discovered table, then every register (tables first: an enable often comes last)."""
    ifs = t.interfaces
    tables = [n for n, wp in ifs.ports if wp.kind == "memory"]
    registers = [n for n, wp in ifs.ports if wp.kind != "memory"]
    return [op("fill", n, pattern="ramp") for n in tables + registers]


def _packed(
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


def scenarios(rng: random.Random, t: Target, h: Hints) -> list[tuple[str, Program]]:
    """The first programs: one per kind of use the design's interfaces suggest, most general first.

    - `stimulus`: corner values, walking bits, mixed and slow random (any design); with a bus
      also random bursts with rests between;
    - `setup`: tables and registers written through their write ports, then the datapath;
    - `bus`: every register read, written with mined or small values, read back, then a mix;
    - `serial`: registers written with the bit period (a divisor takes it, a reset bit clears),
      frames sent at that period, frames with errors under six mode words, then the same with
      the design's own output looped back (passes packed whole into a few programs);
    - `requester`: memory answered with decodable words, time to run (a CPU executes); then on
      a rough bus with the other inputs changing;
    - `stream`: packets on every stream with the outputs drained, then long packets with the
      other streams offering data and the side inputs set (`moves.stream_context`).
    """
    ifs = t.interfaces
    out: list[tuple[str, Program]] = []
    base = [op("reset"), *_background(rng, t)]
    stimulus = [*base, *_setup_writes(t)]
    # Inputs a failed check named (pop on an empty FIFO) stay low in a scenario drawn again:
    # corners and walks would drive them, random values leave them out.
    held_low = set(h.quiet)
    only = only_loud(t, h)
    if not ifs.responders and not held_low:
        stimulus += [op("corners"), op("walk")]
    stimulus += [
        op("random", 150, seed(rng), pal=40, keep=30, **only),
        op("random", 40, seed(rng), pal=40, keep=60, maxhold=4, **only),
        *gen_slow(rng, t, h),
    ]
    out.append(("stimulus", Program(tuple(stimulus))))
    if ifs.buses:
        # Random pins with rests between: random bus cycles configure registers now and then
        # (a divisor, an enable), and what they start (a frame, a timer) runs in the rest.
        rests: list[Op] = []
        for _ in range(6):
            rests += [op("random", 600, seed(rng), pal=40, keep=30, **only), op("hold", 2000)]
        out.append(("stimulus with rests", Program((*base, *rests))))
    bits = {f.name: int(f.name not in held_low) for f in t.fields if f.bits == 1 and not f.reset}
    if bits and not ifs.responders and not ifs.buses:
        # Every enable high for a long time: counters, clocks and timers reach their wraps.
        out.append(("long run", Program((*base, assigns("set", bits), op("hold", 100000)))))
    if ifs.ports:
        quiet = tuple(sorted({n for _, wp in ifs.ports for n, _ in wp.enable}))
        others = tuple(f.name for f in t.fields if not f.reset and f.name not in quiet)
        datapath = (
            op("random", 250, seed(rng), pal=50, keep=30, only=others)
            if others
            else op("random", 250, seed(rng), pal=50, keep=30)
        )
        out.append(("setup", Program((*base, *_setup_writes(t), datapath))))
    for bus in ifs.buses:
        addrs = bus.addresses[:8]
        ops = [
            *base,
            *(op("bus_read", bus.name, a) for a in addrs),
            *(
                op("bus_write", bus.name, a, bus_data(rng, t, bus, safe=True))
                for a in addrs
            ),
            op("hold", 50),
            *(op("bus_read", bus.name, a) for a in addrs),
        ]
        for _ in range(3):
            ops += gen_bus(rng, t, h)
        out.append((f"bus {bus.name}", Program(tuple(ops))))
        # Every register bit both ways: bursts of full random words, then safe values again.
        # A serial design first waits out its post-reset idle time (a transmitter's break
        # wait): until then its copy of the configuration register does not follow writes.
        settle = [op("hold", 32 * serial_period(t))] if ifs.serials else []
        ops = [
            *base,
            *settle,
            *(
                op("bus_burst", bus.name, a, 8, seed=s, bits=bus.register_bits)
                for a, s in zip(addrs, seeds(rng, len(addrs)), strict=True)
            ),
        ]
        # The word the design compares its write data with (a key, a magic number), in every
        # register: which register holds the compare is behind the decoder, not in the data.
        magic = [v for v in t.palettes.get(bus.port("wdata"), ())[:1] if v > 1]
        # Each byte lane alone where the bus has narrow writes (strobes, or AHB's hsize).
        lanes = max(1, bus.data_bits // 8) if any(bus.port(r) for r in ("wstrb", "sel", "strb", "hsize")) else 1
        ops += [
            *(op("bus_write", bus.name, a, v) for v in magic for a in addrs),
            # (safe values: a random word in a divisor or prescaler can stall a design for good)
            *(op("bus_write", bus.name, a, bus_data(rng, t, bus, safe=True), strb=1 << k)
              for a in addrs for k in range(lanes if lanes > 1 and not bus.byte_lanes else 0)),
            *(
                op("bus_write", bus.name, a, bus_data(rng, t, bus, safe=True))
                for a in addrs
            ),
            *(op("bus_read", bus.name, a) for a in addrs),
        ]
        out.append((f"bus {bus.name} registers", Program(tuple(ops))))
        out.append((f"bus {bus.name} consecutive", _consecutive(bus, base)))
    if ifs.serials:
        period = serial_period(t)
        ops = list(base)
        for bus in ifs.buses:
            ops += [op("bus_write", bus.name, a, period) for a in bus.addresses[:8]]
        idle = 20 * period
        for s in ifs.serials:
            ops += [
                op("hold", idle),
                op("serial", s.name, period, (0x55, 0xA5, 0x00, 0xFF)),
            ]
        ops.append(op("hold", 12 * period))
        for bus in ifs.buses:
            ops += [op("bus_read", bus.name, a) for _ in range(2) for a in bus.addresses[:8]]
        out.append(("serial", Program(tuple(ops))))
        out += _serial_commands(rng, t, base, period)
        divisors = divisor_inputs(t)
        for multiple in DIVISOR_MULTIPLES if divisors else ():
            # The period set through an input: one program per convention.
            value = 4
            ops = [*base, assigns("set", dict.fromkeys(divisors, value))]
            for s in ifs.serials:
                ops += [op("hold", 20 * value * multiple)]
                ops += [
                    op("serial", s.name, value * multiple, frames, parity=parity, stop=stop)
                    for frames, parity, stop in (
                        ((0x55, 0xA5, 0x00, 0xFF), "none", 1),
                        ((rng.randrange(256),), "none", 0),
                        ((0x100,), "none", 1),
                        ((rng.randrange(256), rng.randrange(256)), "none", 1),
                    )
                ]
            ops.append(op("hold", 12 * value * multiple))
            out.append((f"serial divisor x{multiple}", Program(tuple(ops))))
        # Frames the receiver must reject: one pass per mode word above the period (six, so that
        # every pair of mode bits, say parity on and two stop bits, goes both ways), each with
        # the `ERROR_FRAMES`; after each pass every register is read (the error flags, before
        # the next configuration write clears them), then written with random half-words (an
        # error flag bit written 0 keeps it, 1 clears it), the first register (often the
        # configuration) last.
        words = {b.name: mode_words(rng, max(8, b.register_bits), period) for b in ifs.buses}
        passes: list[list[Op]] = []
        for mode in range(MODE_WORDS if ifs.buses else 1):  # every pair of mode bits both ways
            ops = []
            for bus in ifs.buses:
                ops += [op("bus_write", bus.name, a, words[bus.name][mode]) for a in bus.addresses[:8]]
            for s in ifs.serials:
                for parity, stop in ERROR_FRAMES:
                    # the line idles before each pair: a receiver resynchronises after an
                    # error only once the line has been high for many bit times
                    ops.append(op("hold", idle))
                    ops.append(
                        op(
                            "serial",
                            s.name,
                            period,
                            (rng.randrange(256), rng.randrange(256)),
                            parity=parity,
                            stop=stop,
                        )
                    )
            ops.append(op("hold", 12 * period))
            for bus in ifs.buses:
                regs = bus.addresses[:8]
                ops += [op("bus_burst", bus.name, a, 2, write=0) for a in regs]
                ops += reversed([
                    op("bus_burst", bus.name, a, 2, seed=s, bits=min(16, bus.register_bits))
                    for a, s in zip(regs, seeds(rng, len(regs)), strict=True)
                ])
            passes.append(ops)
        out += _packed(t, "serial errors", list(base), passes, 3)
        looped = [s for s in ifs.serials if s.partner]
        # The design's own output looped back: configure with the period, let the line idle,
        # then fill one data register with a burst (which register takes the bytes is not
        # known: one program per address), wait for the frames and drain every register.
        for bus in ifs.buses[:1] if looped else ():
            if bus.register_bits == 8:
                out += _banked_divisor(rng, t, bus, looped)
            for target_addr in bus.addresses[:4]:
                # Loop back first: the configuration writes may already send a byte, and a
                # receiver synchronises only after the line has idled for many bit times.
                ops = [*base, *(op("loopback", s.name) for s in looped)]
                ops += [
                    *(op("bus_write", bus.name, a, period) for a in bus.addresses[:8]),
                    op("hold", 2 * idle),
                ]
                ops += _loopback_traffic(rng, bus, target_addr, period)
                out.append((f"serial loopback @{target_addr:#x}", Program(tuple(ops))))
            # The same under each of the six mode words (data bits, parity, stop bits of a
            # configuration register), one program per address again.
            # Side inputs (flow control) go high then low in one pass, low then high in the next:
            # the transmitter then waits with data queued, whatever their polarity.
            sides = side_inputs(t)
            for target_addr in bus.addresses[:4]:
                passes = []
                for mode, word in enumerate(mode_words(rng, max(8, bus.register_bits), period)):
                    first, then = (1, 0) if mode % 2 else (0, 1)
                    ops = [
                        *(op("bus_write", bus.name, a, word) for a in bus.addresses[:8]),
                        op("hold", 2 * idle),
                        op("bus_burst", bus.name, target_addr, 20, seed=seed(rng)),
                    ]
                    if sides:
                        ops += [
                            assigns("set", dict.fromkeys(sides, first)),
                            op("hold", 30 * period),
                            assigns("set", dict.fromkeys(sides, then)),
                        ]
                    ops.append(op("hold", 260 * period))
                    ops += [op("bus_burst", bus.name, a, 20, write=0) for a in bus.addresses[:8]]
                    passes.append(ops)
                out += _packed(
                    t,
                    f"serial loopback modes @{target_addr:#x}",
                    [*base, *(op("loopback", s.name) for s in looped)],
                    passes,
                    2,
                )
    if ifs.responders:
        out.append(("requester", Program((*base, op("hold", 4000)))))
        # The same on a rough bus (waits, error answers, long stalls) while the other inputs
        # keep changing: a request then waits across whole transfers elsewhere (a UART byte
        # arriving while WVALID is held), where the protocol checkers see a payload change.
        rough = on_rough_bus(t, base)
        if rough != base:
            sessions = [o for _ in range(4) for o in (op("random", 300, seed(rng), pal=50, keep=60), op("hold", 2000))]
            out.append(("requester on a rough bus", Program((*rough, *sessions))))
    if ifs.streams:
        ops = list(base)
        for s in ifs.streams:
            for lane in range(min(4, max(1, s.lanes))):
                ops += [
                    op("send", s.name, n, seed=seed(rng), lane=lane) for n in (1, 4, 8)
                ]
        ops += [
            op("hold", 20),
            *(op("sink", k.name, ready=50, seed=seed(rng)) for k in ifs.sinks),
        ]
        for s in ifs.streams:
            ops.append(op("send", s.name, 16, seed=seed(rng), gap=30))
        out.append(("stream", Program(tuple(ops))))
        # Long packets while everything around each stream offers data and the side inputs
        # read high: a command stream then runs whole transfers back to back, and commands
        # arrive in the states between transfers.
        ops = list(base)
        for s in ifs.streams:
            context = stream_context(rng, t, s, sides=1)
            if context:
                ops += [
                    *context,
                    op("send", s.name, 16, seed=seed(rng)),
                    op("send", s.name, 16, seed=seed(rng), gap=30),
                    # then the side inputs each way (an I2C line low acknowledges)
                    *stream_context(rng, t, s),
                    op("send", s.name, 16, seed=seed(rng)),
                ]
        if len(ops) > len(base):
            out.append(("stream in context", Program(tuple(ops))))
    out += with_devices(rng, t, out)
    return [(name, trim(t, p)) for name, p in out]


def opening(rng: random.Random, t: Target, h: Hints) -> Program:
    """The first scenario (kept for callers that want one program)."""
    return scenarios(rng, t, h)[0][1]
