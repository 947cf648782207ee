"""Seeded program moves: the opening program, new operations from what the engine knows, edits.

Pure: every function takes a `random.Random` and returns operations or programs, so the same
seed always gives the same search. The knowledge comes from the design (`Target`: fields,
palettes, recognised interfaces, write ports) and from steering (`Hints`: values uncovered
conditions compare with, operand combinations uncovered expression points ask for, toggle
holes, FSM state values, inputs an assertion blamed).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from agent.heuristic.config_words import structured_word
from agent.heuristic.stimulus import Hints
from agent.program.iface import DEVICE_KINDS
from agent.program.interfaces import Iface
from agent.program.ops import FILLS, IDIOMS, PATTERNS, Op, Program, assigns, op
from agent.program.serial_timing import PERIOD_PARAM
from agent.program.target import Target

MAX_OPS = 48
"""Most operations one program holds (the final testbench calls them one per line)."""

MAX_CYCLES = 200_000
"""Most clock cycles one program may last (bounds every trial's run time)."""

IDIOMS_SHARE = 0.3
"""Of a RISC-V core's restarts that would run decoded words, the share that starts with the
idioms instead (a trap handler, interrupts on, calls and returns: `isa.idioms`)."""

Gen = Callable[[random.Random, Target, Hints], list[Op]]
"""A generator of new operations."""


def seed(rng: random.Random) -> int:
    """A fresh non-zero 32-bit seed."""
    return rng.randrange(1, 1 << 32)


def seeds(rng: random.Random, n: int) -> list[int]:
    """`n` consecutive non-zero 32-bit seeds, one per register of a sweep.

    The final testbench writes such a run as one loop (`seed + i`).
    """
    base = rng.randrange(1, (1 << 32) - n)
    return [base + i for i in range(n)]


# ---------------------------------------------------------------------------- cycle estimates


def op_cycles(t: Target, o: Op) -> int:
    """Rough clock cycles an operation lasts (for the program length cap)."""
    n = o.name
    if n in ("reset",):
        return o.num("cycles") + 1
    if n == "hold":
        return o.num("cycles")
    if n == "random":
        return o.num("cycles") * (1 + o.num("maxhold")) // 2
    if n == "corners":
        return sum(len(t.palettes.get(f.name, ())) for f in t.fields) + 4
    if n == "walk":
        return 128
    if n in ("bus_write", "bus_read"):
        return 8
    if n == "bus_burst":
        return 8 * o.num("count")
    if n == "send":
        return o.num("beats") * 3
    if n == "serial":
        data = o.get("data")
        frames = len(data) if isinstance(data, tuple) else 1
        return o.num("period") * 12 * frames
    if n == "wait":
        return o.num("timeout")
    if n == "fill":
        return 256 * 2
    if n == "repeat":
        times = o.num("times")
        grown = sum(b.num("grow") for b in o.body if b.name == "hold")  # pass k holds k * grow more
        return times * sum(op_cycles(t, b) for b in o.body) + grown * times * (times - 1) // 2
    return 2


def program_cycles(t: Target, p: Program) -> int:
    """Rough clock cycles of a whole program."""
    return sum(op_cycles(t, o) for o in p.ops)


def fits(t: Target, p: Program) -> bool:
    """Whether a program is within the operation and cycle caps."""
    return len(p.ops) <= MAX_OPS and program_cycles(t, p) <= MAX_CYCLES


# ---------------------------------------------------------------------------- operation generators


def loud_inputs(t: Target, h: Hints) -> tuple[str, ...]:
    """The inputs random values may drive: not resets, not held low after a failed check."""
    quiet = set(h.quiet)
    return tuple(f.name for f in t.fields if not f.reset and f.name not in quiet)


def only_loud(t: Target, h: Hints) -> dict[str, tuple[str, ...]]:
    """`only=` arguments that keep a random operation off the quiet inputs (none when none are)."""
    loud = loud_inputs(t, h)
    return {"only": loud} if h.quiet and loud else {}


def gen_random(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """A random burst with drawn parameters (sometimes only the focused or handshake inputs)."""
    named: dict[str, object] = {
        "pal": rng.choice((0, 20, 40, 60, 80)),
        "keep": rng.choice((0, 30, 30, 60)),
        "maxhold": rng.choice((1, 1, 2, 4)),
        "resets": rng.choice((0, 0, 0, 5, 20)),
    }
    fields = [f.name for f in t.fields if not f.reset]
    focus = [n for n in h.focus if n in fields]
    roll = rng.random()
    if focus and roll < 0.3:
        named["only"] = tuple(
            sorted(set(rng.sample(focus, min(len(focus), rng.randint(1, 3)))))
        )
        named["pal"] = 80
    elif h.handshake and roll < 0.45:
        named["only"] = tuple(sorted(set(h.handshake) & set(fields))) or ()
    if h.quiet and "only" not in named and rng.random() < 0.65:
        named["only"] = loud_inputs(t, h)
    if not named.get("only"):
        named.pop("only", None)
    return [op("random", rng.choice((16, 40, 100, 250, 600)), seed(rng), **named)]  # type: ignore[arg-type]


def gen_hold(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """A few random vectors, each held for a long time (counters, timeouts, baud dividers), or a plain wait."""
    if rng.random() < 0.3:
        return [op("hold", rng.choice((10, 50, 200, 1000, 4000)))]
    bits = [f.name for f in t.fields if f.bits == 1 and not f.reset]
    # An input a failed check named stays low while held: held high, the run ends at once.
    quiet = set(h.quiet)
    if bits and rng.random() < 0.2:
        # A long run with most enables high: a clock or timer wraps only after its full period.
        values = {n: int(n not in quiet and rng.random() < 0.8) for n in bits}
        return [assigns("set", values), op("hold", rng.choice((20000, 100000)))]
    only = only_loud(t, h)
    out: list[Op] = []
    for _ in range(rng.randint(1, 3)):
        out += [
            op("random", 1, seed(rng), pal=60, keep=0, **only),
            op("hold", rng.choice((16, 64, 300, 1100, 5000))),
        ]
    return out


def gen_slow(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Multi-bit inputs held at a small or mined value while 1-bit inputs change slowly.

    Serial protocols (UART, SPI, I2C) need a small divider held still and a line held for
    whole bit times: a shape uniform random values almost never produce.
    """
    values: dict[str, int] = {}
    for f in t.fields:
        if f.reset or f.bits == 1:
            continue
        pal = t.palettes.get(f.name, ())
        values[f.name] = (
            rng.randint(0, min(4, f.mask))
            if rng.random() < 0.5 or not pal
            else rng.choice(pal) & f.mask
        )
    bits = tuple(f.name for f in t.fields if f.bits == 1 and not f.reset)
    out: list[Op] = [assigns("set", values)] if values else []
    if bits:
        out.append(
            op(
                "random",
                rng.choice((10, 20, 40)),
                seed(rng),
                pal=0,
                keep=50,
                maxhold=rng.choice((2, 4, 8, 16, 64)),
                only=bits,
            )
        )
    return out or gen_hold(rng, t, h)


def gen_steer(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Values uncovered conditions ask for: focused values, operand combinations, a toggle."""
    names = {f.name for f in t.fields}
    out: list[Op] = []
    if h.combos and rng.random() < 0.5:
        combo = rng.choice(list(h.combos))
        values: dict[str, int] = {}
        for name, mask, value in combo:
            if name in names:
                base = values.get(name, 0)
                values[name] = (base & ~mask) | (value & mask)
        if values:
            out += [assigns("set", values), op("hold", rng.choice((1, 2, 4)))]
    elif h.toggles and rng.random() < 0.5:
        name, bit = rng.choice(list(h.toggles))
        if name in names and bit < t.fields[t.index(name)].bits:
            out.append(op("toggle", name, bit))
    elif h.focus:
        name = rng.choice(sorted(h.focus))
        values_list = h.focus[name] or t.palettes.get(name, ())
        if name in names and values_list:
            f = t.fields[t.index(name)]
            out += [
                assigns("set", {name: rng.choice(values_list) & f.mask}),
                op("hold", rng.choice((1, 3, 8))),
            ]
    return out or gen_random(rng, t, h)


def gen_sequence(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Walk one input through a mined value sequence (FSM states, constants), a few cycles each."""
    data = [f for f in t.fields if not f.reset]
    if not data:
        return []
    f = rng.choice(data)
    values = list(t.palettes.get(f.name, ()))[:8] or [0, 1]
    hold = rng.choice((1, 2, 5))
    out: list[Op] = []
    for v in values:
        out += [assigns("set", {f.name: v & f.mask}), op("hold", hold)]
    return out[:16]


def gen_bus(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Bus transactions: one write or read, a pass over every register, or a burst on one address.

    A burst of writes with varied data fills a FIFO behind a data register (every entry and
    every bit both ways); a burst of reads drains one.
    """
    bus = rng.choice(t.interfaces.buses)
    addresses = bus.addresses or (0,)
    roll = rng.random()
    if roll < 0.2:
        return [
            op("bus_write", bus.name, a, bus_data(rng, t, bus)) for a in addresses[:12]
        ]
    if roll < 0.35:
        return [
            op("bus_read", bus.name, rng.choice(addresses))
            for _ in range(rng.randint(1, 4))
        ]
    if roll < 0.6:
        bits = rng.choice((8, 8, 8, 16, bus.register_bits))
        return [
            op(
                "bus_burst",
                bus.name,
                rng.choice(addresses),
                rng.choice((4, 8, 16, 20, 32)),
                seed=seed(rng),
                bits=min(bits, bus.register_bits),
            )
        ]
    if roll < 0.7:
        return [
            op(
                "bus_burst",
                bus.name,
                rng.choice(addresses),
                rng.choice((4, 8, 16, 20)),
                seed=seed(rng),
                write=0,
            )
        ]
    strb = rng.choice((0xFF, 0xFF, 0xFF, 1, 2, 4, 8, 3, 0xC))
    data = (
        (1 << max(1, bus.data_bits)) - 1
        if strb != 0xFF and rng.random() < 0.5
        else bus_data(rng, t, bus)
    )
    addr = rng.choice(addresses)
    return [
        op("bus_write", bus.name, addr, data, strb=strb),
        *(
            # read back through the same lanes (a byte register picked by its select)
            [op("bus_read", bus.name, addr, strb=strb)]
            if rng.random() < 0.5
            else []
        ),
    ]


def side_inputs(t: Target) -> tuple[str, ...]:
    """Inputs outside every recognised interface and not resets (flow control, enables, strobes).

    A device's lines (`DEVICE_KINDS`) count as side inputs: without the device they are plain inputs.
    """
    owned = {p for i in t.interfaces.all() if i.kind not in DEVICE_KINDS for p in i.roles.values()}
    return tuple(f.name for f in t.fields if not f.reset and f.name not in owned)


def serial_period(t: Target) -> int:
    """The most likely serial bit period (a parameter named like one), else 16."""
    for s in t.interfaces.serials:
        if s.periods:
            return s.periods[0]
    return 16


def bus_data(rng: random.Random, t: Target, bus: Iface, *, safe: bool = False) -> int:
    """Data for a bus write: a mined constant, a small number, all ones, or random bits.

    `safe` (the opening) keeps to mined constants and small numbers: a random word in a
    configuration register (a baud divisor, a prescaler) can stall a design for good.
    """
    bits = bus.register_bits
    mask = (1 << bits) - 1
    pal = t.palettes.get(bus.port("wdata"), ())
    roll = rng.random()
    if roll < 0.2 and not safe:
        return structured_word(
            rng, bits, rng.choice((serial_period(t), rng.randrange(1, 64)))
        )
    if pal and roll < 0.55:
        return rng.choice(pal) & mask
    if roll < 0.6 or safe:
        return (
            rng.choice((0, 1, rng.randrange(2, 64)))
            if safe
            else rng.choice((0, 1, mask, rng.randrange(2, 64)))
        )
    return rng.getrandbits(bits)


def stream_context(
    rng: random.Random, t: Target, s: Iface, *, sides: int | None = None
) -> list[Op]:
    """What a packet on stream `s` may need meanwhile, as one `set` (none when nothing applies).

    The other input streams kept valid (one random word each), 1-bit side inputs at `sides`
    (each drawn when None), a divisor input small.

    A send waits for `s` only: a command stream whose writes take their bytes from a second
    stream (an I2C or SPI master) completes a write only while that stream offers data, and
    open-drain line inputs (`scl_i`, `sda_i`) must read high or the design waits for good.
    """
    widths = {f.name: f.bits for f in t.fields if not f.dims}
    values: dict[str, int] = {}
    for other in t.interfaces.streams:
        if other.name == s.name:
            continue
        for role in ("valid", "data", "last"):
            port = other.port(role)
            if port in widths:
                bits = widths[port]
                values[port] = (1 << bits) - 1 if role == "valid" else rng.getrandbits(bits)
    divisors = set(divisor_inputs(t))
    for name in side_inputs(t):
        if name in divisors:
            values[name] = rng.choice((1, 2, 4))
        elif widths.get(name) == 1:
            values[name] = rng.randint(0, 1) if sides is None else sides
    return [assigns("set", values)] if values else []


def gen_stream(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """A packet into a stream input (sometimes with gaps, on another lane, or in context)."""
    s = rng.choice(t.interfaces.streams)
    context = stream_context(rng, t, s) if rng.random() < 0.3 else []
    return [
        *context,
        op(
            "send",
            s.name,
            rng.choice((1, 2, 3, 4, 8, 16)),
            seed=seed(rng),
            gap=rng.choice((0, 0, 20, 50)),
            lane=rng.randrange(max(1, s.lanes)),
        )
    ]


def gen_sink(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Answer a stream output with a new ready rate."""
    s = rng.choice(t.interfaces.sinks)
    return [
        op("sink", s.name, ready=rng.choice((100, 100, 80, 50, 20)), seed=seed(rng))
    ]


def gen_respond(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Restart a requester (a CPU): reset, a new memory image, time to run."""
    r = rng.choice(t.interfaces.responders)
    fill = "decode" if rng.random() < 0.8 else rng.choice(FILLS)
    if r.idioms and fill == "decode" and rng.random() < IDIOMS_SHARE:
        fill = IDIOMS
    return [
        op("reset"),
        op(
            "respond",
            r.name,
            fill=fill,
            seed=seed(rng),
            latency=rng.choice((0, 0, 1, 3)),
        ),
        op("hold", rng.choice((200, 1000, 3000))),
    ]


def gen_serial(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """UART frames into a serial input at a candidate bit period (or the design's own output looped back)."""
    s = rng.choice(t.interfaces.serials)
    if s.partner and rng.random() < 0.25:
        return [op("loopback", s.name, on=rng.choice((0, 1)))]
    periods = s.periods or (16,)
    period = periods[0] if rng.random() < 0.5 else rng.choice(periods)
    prefix: list[Op] = []
    divisors = divisor_inputs(t)
    if divisors and rng.random() < 0.7:
        # The bit period comes from an input: set it, and send at one of the usual multiples.
        value = rng.choice((2, 4))
        prefix = [assigns("set", dict.fromkeys(divisors, value))]
        period = value * rng.choice(DIVISOR_MULTIPLES)
    count = rng.choice((1, 2, 4, 4, 8, 16))
    frames = tuple(
        rng.choice((0x55, 0xAA, 0x00, 0xFF, rng.randrange(256), rng.randrange(256)))
        for _ in range(count)
    )
    if s.words and rng.random() < 0.5:
        # A parser's own values (command bytes, operand limits) in a random order, with noise.
        frames = tuple(rng.choice((*s.words, *s.words, rng.randrange(256))) for _ in range(count))
    if rng.random() < 0.1:
        frames = (*frames, 0x100)  # a break
    return [
        *prefix,
        op(
            "serial",
            s.name,
            period,
            frames,
            parity=rng.choice(("none", "none", "even", "odd")),
            stop=rng.choice((1, 1, 2, 0)),
        ),
    ]


DIVISOR_MULTIPLES = (1, 8, 16)
"""Bit period over a divisor input's value: clocks per bit, or 8x / 16x oversampling
(verilog-uart's `prescale` is clk / (baud * 8))."""


def divisor_inputs(t: Target) -> tuple[str, ...]:
    """Multi-bit inputs named like a bit-period divisor (`prescale`, `clks_per_bit`, `baud_div`)."""
    bus_ports = {p for b in t.interfaces.buses for p in b.roles.values()}
    return tuple(
        f.name
        for f in t.fields
        if f.bits > 1 and not f.reset and f.name not in bus_ports and PERIOD_PARAM.search(f.name)
    )


def gen_port(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Write a discovered table or register (the whole table with a pattern, or one entry)."""
    name, wp = rng.choice(t.interfaces.ports)
    if wp.kind == "memory" or rng.random() < 0.5:
        return [op("fill", name, pattern=rng.choice(PATTERNS), seed=seed(rng))]
    addr = rng.choice(wp.addresses) if wp.addresses else 0
    return [op("write", name, addr, rng.getrandbits(max(1, min(wp.width, 64))))]


def gen_wait(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Wait for a 1-bit output (done, ready, busy) to reach a value."""
    outs = [name for name, bits in t.outputs() if bits == 1]
    if not outs:
        return gen_hold(rng, t, h)
    return [
        op(
            "wait",
            rng.choice(outs),
            rng.randint(0, 1),
            timeout=rng.choice((100, 1000, 5000)),
        )
    ]


def gen_reset(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """A reset in the middle of activity; with two resets or more, half the time one of them alone.

    A design with an asynchronous and a synchronous reset (`arst_i`, `wb_rst_i`) has branches
    that only the synchronous one reaches: the asynchronous one wins whenever both are asserted.
    """
    resets = [f for f in t.fields if f.reset]
    if not resets:
        return gen_random(rng, t, h)
    if len(resets) > 1 and rng.random() < 0.5:
        f = rng.choice(resets)
        active = 0 if f.active_low else 1
        return [assigns("set", {f.name: active}), op("hold", rng.randint(1, 4)), assigns("set", {f.name: 1 - active})]
    return [op("reset", rng.randint(1, 4))]


def gen_corners(rng: random.Random, t: Target, h: Hints) -> list[Op]:
    """Corner values, or walking bits."""
    return [op("corners")] if rng.random() < 0.5 else [op("walk")]


GENERATORS: dict[str, tuple[Gen, str]] = {
    "random": (gen_random, ""),
    "hold": (gen_hold, ""),
    "slow": (gen_slow, ""),
    "steer": (gen_steer, ""),
    "sequence": (gen_sequence, ""),
    "corners": (gen_corners, ""),
    "reset": (gen_reset, ""),
    "wait": (gen_wait, ""),
    "bus": (gen_bus, "bus"),
    "stream": (gen_stream, "stream"),
    "sink": (gen_sink, "sink"),
    "respond": (gen_respond, "responder"),
    "serial": (gen_serial, "serial"),
    "port": (gen_port, "port"),
}
"""Generator name -> (function, scope kind the design must have, '' for any design)."""


def generators_for(t: Target) -> tuple[str, ...]:
    """The generators this design supports."""
    scope = t.scope
    return tuple(
        n for n, (_, need) in GENERATORS.items() if not need or scope.has(need)
    )



def trim(t: Target, p: Program) -> Program:
    """Drop trailing operations until the program fits the caps."""
    ops = list(p.ops)
    while ops and not fits(t, Program(tuple(ops))):
        ops.pop()
    return Program(tuple(ops))


def extend(
    rng: random.Random, t: Target, h: Hints, parent: Program, gen: str
) -> Program:
    """`parent` with a generator's new operations appended (or inserted, one time in four)."""
    fn, _ = GENERATORS[gen]
    new = fn(rng, t, h)
    ops = list(parent.ops)
    if ops and rng.random() < 0.25:
        at = rng.randrange(1, len(ops) + 1)
        ops[at:at] = new
    else:
        ops += new
    return trim(t, Program(tuple(ops)))
