"""The opening scenarios: one program per kind of use the design's interfaces suggest.

Pure like `moves` (a seeded `random.Random` in, programs out); the search plays them first,
then grows and splices what they keep with the generators in `moves`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from agent.heuristic.banked_divisor import banked_divisor
from agent.heuristic.collisions import collision_sweep, control_bits
from agent.heuristic.config_words import MODE_WORDS, mode_words, parity_code_words
from agent.heuristic.device_scenarios import with_devices
from agent.heuristic.long_rest import long_rest, long_run
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
from agent.heuristic.scenario_parts import (
    background,
    error_pass,
    loopback_traffic,
    packed,
    parity_pass,
)
from agent.heuristic.stimulus import Hints
from agent.program.iface import DEVICE_KINDS
from agent.program.interfaces import Iface
from agent.program.ops import IDIOMS, Op, Program, assigns, op
from agent.program.target import ROUGH_LATENCY, Target


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


HELD_GAPS = (4, 300)
"""Idle clocks between the requests of a held run: a few (the next request while the previous
word is still on the wire), and more than a 32-bit word takes on a serial line at a quarter
of the clock (so the controller has finished it and holds its port)."""

HELD_WORDS = (None, 0xFFFF_FFFF_FFFF_FFFF, 0x5555_5555_5555_5555)
"""What the other registers hold during each pass of held runs: as they are, all ones (every
enable and unlock bit), and every other bit (an unlock bit without the mode bits beside it)."""


def _held_runs(bus: Iface, buses: Sequence[Iface], base: list[Op]) -> Program:
    """Runs of reads and writes at consecutive addresses with the strobe resting between requests, cyc held.

    A slow pipelined master leaves idle clocks inside one cycle; a controller that holds its
    port between words (a flash controller's sequential reads and page programs) then takes
    the next request from its holding state. Each pass first writes every register of the
    other buses (of this one where it is alone) with one of `HELD_WORDS`: a data path often
    waits for an unlock or enable bit there (a flash's write protection, a quad mode).
    (Fixed data seeds, as in `_consecutive`.)
    """
    others = [b for b in buses if b is not bus] or [bus]
    ops = list(base)
    for word in HELD_WORDS:
        if word is not None:
            ops += [op("bus_write", b.name, a, word & ((1 << b.data_bits) - 1)) for b in others for a in b.addresses[:8]]
        for step in consecutive_steps(bus):
            for gap in HELD_GAPS:
                ops += [op("bus_burst", bus.name, bus.addresses[0], 3, write=0, step=step, gap=gap), op("hold", 20),
                        op("bus_burst", bus.name, bus.addresses[0], 3, seed=0xC8, bits=bus.register_bits, step=step,
                           gap=gap), op("hold", 20)]
    return Program(tuple(ops))


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


def _setup_writes(t: Target) -> list[Op]:
    """Fill every discovered table, then every register (tables first: an enable often comes last)."""
    ifs = t.interfaces
    tables = [n for n, wp in ifs.ports if wp.kind == "memory"]
    registers = [n for n, wp in ifs.ports if wp.kind != "memory"]
    return [op("fill", n, pattern="ramp") for n in tables + registers]


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
    base = [op("reset"), *background(rng, t)]
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
        if bus.kind == "wishbone" and bus.port("stall"):  # pipelined: requests may rest inside a cycle
            out.append((f"bus {bus.name} held runs", _held_runs(bus, ifs.buses, base)))
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
        passes = [error_pass(rng, t, {b: w[mode] for b, w in words.items()}, period, idle)
                  for mode in range(MODE_WORDS if ifs.buses else 1)]  # every pair of mode bits both ways
        out += packed(t, "serial errors", list(base), passes, 3)
        # Every code of the three mode bits just above the period (a parity field: wbuart32's
        # enable, fixed and value bits), each with one byte sent under both parities: a fixed
        # parity bit is then received both ways under each fixed value.
        for bus in ifs.buses[:1]:
            passes = [parity_pass(t, bus, word, period, idle)
                      for word in parity_code_words(words[bus.name][0], bus.register_bits)]
            if passes:
                out += packed(t, "serial parity codes", list(base), passes, 2)
        looped = [s for s in ifs.serials if s.partner]
        # The design's own output looped back: configure with the period, let the line idle,
        # then fill one data register with a burst (which register takes the bytes is not
        # known: one program per address), wait for the frames and drain every register.
        for bus in ifs.buses[:1] if looped else ():
            if bus.register_bits == 8:
                out += banked_divisor(rng, t, bus, looped)
            for target_addr in bus.addresses[:4]:
                # Loop back first: the configuration writes may already send a byte, and a
                # receiver synchronises only after the line has idled for many bit times.
                ops = [*base, *(op("loopback", s.name) for s in looped)]
                ops += [
                    *(op("bus_write", bus.name, a, period) for a in bus.addresses[:8]),
                    op("hold", 2 * idle),
                ]
                ops += loopback_traffic(rng, bus, target_addr, period)
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
                out += packed(
                    t,
                    f"serial loopback modes @{target_addr:#x}",
                    [*base, *(op("loopback", s.name) for s in looped)],
                    passes,
                    2,
                )
            # A FIFO's two ends in one clock, swept a clock per pass; byte registers on a
            # 16550's bus take their period through a banked divisor, which this does not set.
            if bus.register_bits > 8 and bus.addresses:
                sweep = collision_sweep(bus, looped, base)
                if fits(t, sweep):
                    out.append(("collision sweep", sweep))
                out.append(("serial control bits", control_bits(bus, looped, sides, base)))
    if ifs.responders:
        out.append(("requester", Program((*base, op("hold", 4000)))))
        # The same on a rough bus (waits, error answers, long stalls) while the other inputs
        # keep changing: a request then waits across whole transfers elsewhere (a UART byte
        # arriving while WVALID is held), where the protocol checkers see a payload change.
        rough = on_rough_bus(t, base)
        if rough != base:
            sessions = [o for _ in range(4) for o in (op("random", 300, seed(rng), pal=50, keep=60), op("hold", 2000))]
            out.append(("requester on a rough bus", Program((*rough, *sessions))))
        # A RISC-V core running the idioms (a trap handler, interrupts on, calls and returns)
        # while its other inputs change: an interrupt line raised then is taken.
        cpu = {r.name for r in ifs.responders if r.idioms}
        if cpu:
            idioms = [o.with_arg("fill", IDIOMS) if o.name == "respond" and o.word("iface") in cpu else o
                      for o in base]
            sessions = [o for _ in range(4) for o in (op("hold", 1000), op("random", 300, seed(rng), pal=50, keep=60))]
            out.append(("requester running idioms", Program((*idioms, *sessions, op("hold", 2000)))))
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


def closings(t: Target) -> list[tuple[str, Program]]:
    """The programs played last, once the search is done: past the cycle cap on purpose.

    A CPU's run of a million clocks (`long_run`) and a serial line's slow counters
    (`long_rest`): so long that they are neither grown by the search nor drawn again as a
    fresh start; played last, they leave the search the same course (shorter by their calls
    and the chain's calls for them), and the chain puts them at its end (`chain.assemble`).
    """
    ifs = t.interfaces
    # (a fixed seed for the responders: the closings draw nothing from the search's generator)
    base = [op("reset"), *background(random.Random(0), t)]
    out = long_run(base, {r.name for r in ifs.responders if r.idioms})
    if ifs.serials:
        out += [r for bus in ifs.buses[:1] for r in long_rest(bus, ifs.serials, serial_period(t), base)]
    return out


def opening(rng: random.Random, t: Target, h: Hints) -> Program:
    """The first scenario (kept for callers that want one program)."""
    return scenarios(rng, t, h)[0][1]
