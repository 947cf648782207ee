"""Stimulus as data, and the pure seeded generators that produce it.

A design's driven inputs form a `Layout` (every non-clock input, resets included). One
`Step` holds a value for every field and a cycle count; a `Segment` is a labelled run of
steps. Generators take a `random.Random` and return segments, so the same seed always
yields the same stimulus. Nothing here simulates: `search.py` runs segments through the
compiled harness and `harness.py` renders them as SystemVerilog.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from sim.write_ports import WritePort

QUIET_IDLE = 0.6
"""Probability that a quiet field (one an assertion complained about) stays idle in a step."""

COMB_STEP_NS = 10
"""Delay per step of a combinational design (ns); the harness uses the same."""

MAX_PALETTE = 48
"""Most interesting values kept per field (corners first, then mined constants)."""

HANDSHAKE_RE = re.compile(
    r"(valid|vld|ready|rdy|en|ena|enable|req|ack|start|stb|cyc|we|wr|rd|push|pop|load|sel|select|dv|strobe|shift)",
    re.IGNORECASE,
)
"""Names of 1-bit control inputs worth holding high or low for stretches."""


@dataclass(frozen=True)
class Field:
    """One driven input of the DUT (a clock is never a field; a reset is)."""

    name: str
    """Port name."""
    width: int
    """Packed bits of one element."""
    dims: tuple[int, ...] = ()
    """Sizes of the unpacked dimensions; () for a plain vector."""
    signed: bool = False
    """True for a signed port."""
    reset: bool = False
    """True for a reset input."""
    active_low: bool = False
    """For a reset: True when the design is in reset while it is 0."""

    @property
    def count(self) -> int:
        """Number of unpacked elements (1 for a plain vector)."""
        return math.prod(self.dims) if self.dims else 1

    @property
    def bits(self) -> int:
        """Total bits of the flattened field (element i at bits [i*width +: width])."""
        return self.width * self.count

    @property
    def mask(self) -> int:
        """All-ones value of the flattened field."""
        return (1 << self.bits) - 1

    @property
    def asserted(self) -> int:
        """The value that holds the design in reset (resets only)."""
        return 0 if self.active_low else 1

    @property
    def idle(self) -> int:
        """The quiet value: reset deasserted, data zero."""
        return (1 if self.active_low else 0) if self.reset else 0


@dataclass(frozen=True)
class Signal:
    """A port of the DUT as the testbench declares it."""

    name: str
    """Port name."""
    direction: str
    """`input`, `output` or `inout`."""
    width: int
    """Packed bits of one element."""
    dims: tuple[int, ...] = ()
    """Sizes of the unpacked dimensions."""
    signed: bool = False
    """True for a signed port."""


@dataclass(frozen=True)
class Clock:
    """A clock the testbench toggles with `always #half_period`."""

    name: str
    """Port name."""
    half_period: int
    """Half period in ns; clocks get distinct periods."""


@dataclass(frozen=True)
class Layout:
    """What a testbench must declare and drive for one design."""

    top: str
    """DUT module name."""
    instance: str
    """DUT instance name (coverage is read from this subtree)."""
    fields: tuple[Field, ...]
    """Driven inputs, in stim-file column order."""
    clocks: tuple[Clock, ...] = ()
    """Clocks; the first one paces the stimulus. Empty for a combinational design."""
    ports: tuple[Signal, ...] = ()
    """Every port, in declaration order (for declarations and the instance)."""

    @property
    def combinational(self) -> bool:
        """True when there is no clock (vectors are applied with a delay)."""
        return not self.clocks

    def index(self, name: str) -> int | None:
        """Column of field `name`, or None."""
        return next((i for i, f in enumerate(self.fields) if f.name == name), None)

    @property
    def idle(self) -> tuple[int, ...]:
        """The quiet vector (resets deasserted, data zero)."""
        return tuple(f.idle for f in self.fields)


@dataclass(frozen=True)
class Step:
    """One input vector held for `cycles` clock cycles."""

    values: tuple[int, ...]
    """One value per layout field (flattened, two's complement for signed fields)."""
    cycles: int = 1
    """How many cycles the vector is held (>= 1)."""


@dataclass(frozen=True)
class Segment:
    """A labelled run of steps (the unit the search keeps or drops)."""

    label: str
    """What produced it (shown as a comment in the final testbench)."""
    steps: tuple[Step, ...]
    """The vectors, in order."""

    @property
    def cycles(self) -> int:
        """Total clock cycles the segment lasts."""
        return sum(s.cycles for s in self.steps)


@dataclass(frozen=True)
class Hints:
    """What the engine knows about interesting inputs (mined from the RTL and steering)."""

    palettes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Field -> interesting element values (corners and mined constants, masked to width)."""
    focus: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Field -> values that uncovered conditions compare it with (steering); may be ()."""
    toggles: tuple[tuple[str, int], ...] = ()
    """(field, bit) pairs an uncovered toggle point asks to drive both ways."""
    handshake: tuple[str, ...] = ()
    """1-bit control fields worth holding high/low for stretches."""
    sequences: tuple[tuple[int, ...], ...] = ()
    """Value sequences (FSM state values, mined constants) to walk a field through."""
    quiet: tuple[str, ...] = ()
    """Fields named by a DUT assertion that fired: drawn mostly idle from then on."""
    writes: tuple[WritePort, ...] = ()
    """Storage the inputs can write (tables, decoded registers): set up before the datapath runs."""
    combos: tuple[tuple[tuple[str, int, int], ...], ...] = ()
    """Partial vectors an uncovered expression point asks for together: (field, bit mask, value)."""


# ----------------------------------------------------------------------------- values


def to_unsigned(value: int, bits: int) -> int:
    """Two's complement bits of `value` in `bits` bits."""
    return value & ((1 << bits) - 1)


def corner_values(width: int, signed: bool = False) -> tuple[int, ...]:
    """0, 1, all ones, one-hot and walking-zero values, and signed extremes, de-duplicated."""
    mask = (1 << width) - 1
    out = [0, 1 & mask, mask]
    if width > 1:
        out += [1 << (width - 1), mask >> 1, (mask >> 1) ^ 1 if width > 2 else 2 & mask]
        out += [0x5555_5555_5555_5555_5555_5555_5555_5555 & mask, 0xAAAA_AAAA_AAAA_AAAA_AAAA_AAAA_AAAA_AAAA & mask]
    step = max(1, width // 16)
    for bit in range(0, width, step):
        out.append(1 << bit)
        out.append(mask ^ (1 << bit))
    if signed and width > 1:
        out += [1 << (width - 1), (1 << (width - 1)) - 1, mask, to_unsigned(-2, width)]
    return tuple(dict.fromkeys(v & mask for v in out))


def neighbours(values: Iterable[int], width: int) -> tuple[int, ...]:
    """Each value and its +-1 neighbours, masked to `width`, de-duplicated, in order."""
    mask = (1 << width) - 1
    out: list[int] = []
    for v in values:
        out += [v & mask, (v + 1) & mask, (v - 1) & mask]
    return tuple(dict.fromkeys(out))


def make_palette(f: Field, mined: Iterable[int] = (), shared: Iterable[int] = ()) -> tuple[int, ...]:
    """Interesting element values of a field: mined constants (+-1) first, then corners, then shared."""
    width = f.width
    mask = (1 << width) - 1
    own = [v for v in mined if 0 <= v <= mask or v < 0]
    common = [v for v in shared if 0 <= v <= mask]
    values = [*neighbours(own, width), *corner_values(width, f.signed), *neighbours(common[:16], width)]
    return tuple(dict.fromkeys(v & mask for v in values))[:MAX_PALETTE]


def pack(f: Field, elements: Sequence[int]) -> int:
    """Flatten element values (element i at bits [i*width +: width])."""
    mask = (1 << f.width) - 1
    out = 0
    for i, v in enumerate(elements):
        out |= (v & mask) << (i * f.width)
    return out


def unpack(f: Field, value: int) -> tuple[int, ...]:
    """Element values of a flattened field value."""
    mask = (1 << f.width) - 1
    return tuple((value >> (i * f.width)) & mask for i in range(f.count))


def draw_element(rng: random.Random, f: Field, palette: Sequence[int], p_palette: float) -> int:
    """One element value: from the palette with probability `p_palette`, else uniform."""
    if palette and rng.random() < p_palette:
        return palette[rng.randrange(len(palette))]
    if f.width > 4 and rng.random() < 0.15:
        # Sparse values: a few set bits reach one-hot/priority logic uniform values miss.
        v = 0
        for _ in range(rng.randint(1, 3)):
            v |= 1 << rng.randrange(f.width)
        return v
    return rng.getrandbits(f.width)


def draw(rng: random.Random, f: Field, palette: Sequence[int], p_palette: float) -> int:
    """A flattened field value (every element drawn with `draw_element`)."""
    if f.count == 1:
        return draw_element(rng, f, palette, p_palette)
    return pack(f, [draw_element(rng, f, palette, p_palette) for _ in range(f.count)])


WRITE_PATTERNS: tuple[str, ...] = ("ramp", "ramp-down", "ones", "checker", "walking", "reciprocal",
                                    "palette", "random")
"""Contents a setup phase writes into a table: structured first, random last."""


def pattern_value(pattern: str, k: int, count: int, bits: int, rng: random.Random,
                  palette: Sequence[int] = ()) -> int:
    """Entry `k` of `count` under a write pattern, as a `bits`-bit value.

    Ramps spread over the whole range (so a datapath comparing the entry sees small and
    large values), `reciprocal` mimics a 1/k table, `checker` alternates 0101/1010 so every
    bit goes both ways, `palette` cycles through the field's mined constants.
    """
    mask = (1 << bits) - 1
    span = max(1, count - 1)
    if count == 1 and pattern in ("ramp", "ramp-down", "reciprocal"):
        # A lone register: an ENABLE bit set; a threshold or limit at mid-range, so the
        # comparisons against it can go either way.
        return 1 if bits == 1 else 1 << (bits - 1)
    if pattern == "ramp":
        return (k * mask // span) & mask
    if pattern == "ramp-down":
        return ((span - k) * mask // span) & mask
    if pattern == "ones":
        return mask
    if pattern == "checker":
        return (0x5555_5555_5555_5555_5555_5555_5555_5555 if k % 2 else 0xAAAA_AAAA_AAAA_AAAA_AAAA_AAAA_AAAA_AAAA) & mask
    if pattern == "walking":
        return (1 << (k % bits)) & mask
    if pattern == "reciprocal":
        return min(mask, (mask + 1) // (k + 1))
    if pattern == "palette" and palette:
        return palette[k % len(palette)] & mask
    return rng.getrandbits(bits)


def _set_slice(value: int, lsb: int, bits: int, part: int) -> int:
    """`value` with bits [lsb +: bits] replaced by `part`."""
    mask = ((1 << bits) - 1) << lsb
    return (value & ~mask) | ((part << lsb) & mask)


def write_steps(layout: Layout, port: WritePort, base: Sequence[int], pattern: str, rng: random.Random,
                palettes: Mapping[str, tuple[int, ...]]) -> list[Step]:
    """One write per listed entry of `port` (enable asserted, address set, data by `pattern`)."""
    steps: list[Step] = []
    cols = {f.name: i for i, f in enumerate(layout.fields)}
    if any(name not in cols for name, _ in port.enable) or (port.address and port.address not in cols):
        return steps
    data = [(cols[name], lsb, bits) for name, lsb, bits in port.data if name in cols]
    if not data:
        return steps
    addresses = port.addresses or (None,)
    bits = min(port.width, max(b for _, _, b in data))
    palette = palettes.get(port.data[0][0], ())
    for k, address in enumerate(addresses):
        values = list(base)
        for name, value in port.enable:
            values[cols[name]] = value & layout.fields[cols[name]].mask
        if address is not None:
            values[cols[port.address]] = address & layout.fields[cols[port.address]].mask
        word = pattern_value(pattern, k, len(addresses), bits, rng, palette)
        for col, lsb, width in data:
            values[col] = _set_slice(values[col], lsb, width, word)
        steps.append(Step(tuple(values), port.hold))
    return steps


def setup_segment(rng: random.Random, layout: Layout, hints: Hints, n_use: int, *,
                  pattern: str | None = None, label: str = "write-then-use") -> Segment:
    """Write every discovered table and register, then drive the datapath with them left alone.

    The write phase fills each table (one `pattern` per table: ramps, corners, all-ones,
    a reciprocal-like table, the data field's mined constants, random) and each decoded
    register, registers last and in a shuffled order now and then (an ENABLE bit often
    has to come after the table). The use phase is `n_use` steps of mixed random stimulus
    with the write enables held idle, so the configuration stays as written.
    """
    base = _with_resets(layout, list(layout.idle), False)
    steps: list[Step] = []
    tables = [p for p in hints.writes if p.kind == "memory"]
    registers = [p for p in hints.writes if p.kind != "memory"]
    if len(registers) > 1 and rng.random() < 0.3:
        rng.shuffle(registers)
    chosen = pattern or rng.choice(WRITE_PATTERNS)
    for port in tables:
        steps += write_steps(layout, port, base, chosen, rng, hints.palettes)
    for port in registers:
        reg_pattern = rng.choice(("ones", "palette", "random", "ramp")) if pattern is None else pattern
        steps += write_steps(layout, port, base, reg_pattern, rng, hints.palettes)
    idle = {name: value for port in hints.writes for name, value in port.idle}
    cols = [(i, idle[f.name]) for i, f in enumerate(layout.fields) if f.name in idle]
    use = random_segment(rng, layout, n_use, hints=hints, p_palette=0.5, p_hold=0.3,
                         max_cycles=rng.choice((1, 1, 2, 3)))
    for step in use.steps:
        values = list(step.values)
        for i, value in cols:
            if rng.random() < 0.9:
                values[i] = value
        steps.append(Step(tuple(values), step.cycles))
    what = ", ".join(dict.fromkeys(p.storage for p in hints.writes))
    return Segment(f"{label}: {what} ({chosen}), then stream", tuple(steps))


def combo_segment(rng: random.Random, layout: Layout, hints: Hints, n: int, *,
                  label: str = "steered to uncovered expression terms") -> Segment:
    """Mixed random steps where most steps also force one wanted operand combination.

    Each combination comes from an uncovered expression-coverage point (`a==1 && b==0`)
    and is held 1-4 cycles, so operands registered a stage or two upstream line up too.
    """
    steps: list[Step] = []
    cols = {f.name: i for i, f in enumerate(layout.fields)}
    background = random_segment(rng, layout, n, hints=hints, p_palette=0.6, p_hold=0.4, max_cycles=1)
    for step in background.steps:
        values = list(step.values)
        cycles = step.cycles
        if hints.combos and rng.random() < 0.7:
            for name, mask, value in rng.choice(hints.combos):
                if name in cols:
                    i = cols[name]
                    values[i] = (values[i] & ~mask) | (value & mask)
            cycles = rng.choice((1, 1, 2, 3, 4))
        steps.append(Step(tuple(values), cycles))
    return Segment(label, tuple(steps))


# ----------------------------------------------------------------------------- segments


def reset_vector(layout: Layout) -> tuple[int, ...]:
    """All resets asserted, data zero."""
    return tuple(f.asserted if f.reset else 0 for f in layout.fields)


def reset_steps(layout: Layout, cycles: int = 3) -> tuple[Step, ...]:
    """Assert every reset (right polarity) for `cycles`, then release for one cycle."""
    if not any(f.reset for f in layout.fields):
        return (Step(layout.idle, 1),)
    return (Step(reset_vector(layout), cycles), Step(layout.idle, 1))


def _with_resets(layout: Layout, values: list[int], asserted: bool) -> list[int]:
    """`values` with every reset field forced asserted or deasserted."""
    for i, f in enumerate(layout.fields):
        if f.reset:
            values[i] = f.asserted if asserted else f.idle
    return values


def random_segment(rng: random.Random, layout: Layout, n: int, *, label: str = "random",
                   hints: Hints | None = None, p_palette: float = 0.0, p_hold: float = 0.0,
                   p_reset: float = 0.0, max_cycles: int = 1, reset_first: bool = False,
                   random_resets: bool = False) -> Segment:
    """`n` steps of random values (uniform, or mixed with palette values and holds).

    Args:
        rng: the seeded source.
        layout: fields to drive.
        n: number of steps.
        label: segment label.
        hints: palettes/focus; None means plain uniform values.
        p_palette: probability that a field takes a palette (or focus) value.
        p_hold: probability that a field keeps its previous value.
        p_reset: per-step probability of asserting the resets (re-reset mid-run).
        max_cycles: each step lasts 1..max_cycles cycles.
        reset_first: start with a reset sequence.
        random_resets: draw the resets uniformly like data (plain random); otherwise they
            stay released except for `p_reset`.
    """
    hints = hints or Hints()
    steps: list[Step] = list(reset_steps(layout, rng.randint(1, 3))) if reset_first else []
    prev = list(layout.idle)
    for _ in range(n):
        values = list(prev)
        for i, f in enumerate(layout.fields):
            if f.reset and not random_resets:
                continue
            if p_hold and rng.random() < p_hold:
                continue
            focus = hints.focus.get(f.name)
            palette = focus if focus and rng.random() < 0.5 else hints.palettes.get(f.name, ())
            values[i] = draw(rng, f, palette, p_palette)
        if not random_resets:
            _with_resets(layout, values, p_reset > 0 and rng.random() < p_reset)
        cycles = 1 if max_cycles <= 1 else rng.randint(1, max_cycles)
        steps.append(Step(tuple(values), cycles))
        prev = values
    return Segment(label, tuple(steps))


def corner_segment(layout: Layout, hints: Hints, *, label: str = "corner values") -> Segment:
    """Sweep each field through its palette while the others stay idle, then all-ones/all-zeros."""
    steps: list[Step] = []
    idle = list(layout.idle)
    for i, f in enumerate(layout.fields):
        if f.reset:
            continue
        for v in hints.palettes.get(f.name, corner_values(f.width, f.signed)):
            values = list(idle)
            values[i] = pack(f, [v] * f.count)
            steps.append(Step(tuple(values), 1))
    ones = _with_resets(layout, [f.mask for f in layout.fields], False)
    steps += [Step(tuple(ones), 2), Step(layout.idle, 2)]
    return Segment(label, tuple(steps))


def walk_segment(layout: Layout, *, label: str = "walking ones/zeros") -> Segment:
    """Walking ones then walking zeros across all data fields at once."""
    data = [i for i, f in enumerate(layout.fields) if not f.reset]
    width = max((layout.fields[i].bits for i in data), default=0)
    steps: list[Step] = []
    for inverted in (False, True):
        for bit in range(min(width, 64)):
            values = list(layout.idle)
            for i in data:
                f = layout.fields[i]
                v = (1 << bit) & f.mask if bit < f.bits else 0
                values[i] = (f.mask ^ v) if inverted else v
            steps.append(Step(tuple(values), 1))
    return Segment(label, tuple(steps))


def hold_segment(rng: random.Random, layout: Layout, hints: Hints, *, label: str = "long hold",
                 n: int = 4) -> Segment:
    """A few vectors each held for a long time (counters, timeouts, baud dividers)."""
    steps = []
    for _ in range(n):
        values = _with_resets(layout, [draw(rng, f, hints.palettes.get(f.name, ()), 0.6)
                                       for f in layout.fields], False)
        steps.append(Step(tuple(values), rng.choice((16, 64, 300, 1100, 5000, 20000))))
    return Segment(label, tuple(steps))


def handshake_segment(rng: random.Random, layout: Layout, hints: Hints, n: int, *,
                      label: str = "handshake stretches") -> Segment:
    """Random data while the handshake fields are held high or low for stretches."""
    names = set(hints.handshake)
    steps: list[Step] = []
    levels = {name: rng.random() < 0.5 for name in names}
    prev = list(layout.idle)
    for _ in range(n):
        values = list(prev)
        for i, f in enumerate(layout.fields):
            if f.reset:
                continue
            if f.name in names:
                if rng.random() < 0.12:
                    levels[f.name] = not levels[f.name]
                values[i] = f.mask if levels[f.name] else 0
            elif rng.random() < 0.7:
                values[i] = draw(rng, f, hints.palettes.get(f.name, ()), 0.4)
        _with_resets(layout, values, False)
        steps.append(Step(tuple(values), 1))
        prev = values
    return Segment(label, tuple(steps))


def sequence_segment(rng: random.Random, layout: Layout, hints: Hints, n: int, *,
                     label: str = "constant sequences") -> Segment:
    """Walk fields through mined constants, each held a few cycles (FSM-aware stimulus)."""
    steps: list[Step] = []
    prev = list(layout.idle)
    data = [i for i, f in enumerate(layout.fields) if not f.reset]
    if not data:
        return Segment(label, (Step(layout.idle, n),))
    for _ in range(n):
        values = list(prev)
        for i in rng.sample(data, k=min(len(data), rng.randint(1, 2))):
            f = layout.fields[i]
            pool = hints.focus.get(f.name) or hints.palettes.get(f.name, ())
            values[i] = draw(rng, f, pool, 0.9)
        _with_resets(layout, values, False)
        steps.append(Step(tuple(values), rng.choice((1, 1, 2, 3, 5, 8))))
        prev = values
    return Segment(label, tuple(steps))


def slow_segment(rng: random.Random, layout: Layout, hints: Hints, n: int, *,
                 label: str = "slow serial") -> Segment:
    """Multi-bit inputs held at one (mostly small) value while 1-bit inputs change slowly.

    Serial protocols (UART, SPI, I2C) need a small divider or prescale held still and the
    line held for whole bit times: a shape uniform random values almost never produce.
    """
    values = list(layout.idle)
    for i, f in enumerate(layout.fields):
        if f.reset or f.width == 1:
            continue
        pick = rng.random()
        if pick < 0.5:
            values[i] = pack(f, [rng.randint(0, min(f.width * 2, (1 << f.width) - 1, 4))] * f.count)
        else:
            values[i] = draw(rng, f, hints.palettes.get(f.name, ()), 0.7)
    bits = [i for i, f in enumerate(layout.fields) if f.width == 1 and f.count == 1 and not f.reset]
    scale = rng.choice((1, 2, 4, 8, 16, 64))
    steps: list[Step] = []
    for _ in range(n):
        for i in bits:
            if rng.random() < 0.5:
                values[i] ^= 1
        steps.append(Step(tuple(values), max(1, int(scale * rng.choice((1, 1, 2, 3, 8, 9, 10))))))
    return Segment(label, tuple(steps))


def toggle_segment(rng: random.Random, layout: Layout, targets: Sequence[tuple[str, int]], *,
                   label: str = "toggle holes") -> Segment:
    """Drive each (field, bit) target 0, 1, 0 on top of a random background."""
    steps: list[Step] = []
    base = _with_resets(layout, [draw(rng, f, (), 0.0) for f in layout.fields], False)
    for name, bit in targets:
        i = layout.index(name)
        if i is None:
            continue
        f = layout.fields[i]
        if f.reset or bit >= f.bits:
            continue
        for level in (0, 1, 0, 1):
            values = list(base)
            values[i] = (values[i] | (1 << bit)) if level else (values[i] & ~(1 << bit))
            steps.append(Step(tuple(values), 2))
    return Segment(label, tuple(steps) or (Step(layout.idle, 1),))


def mutate_segment(rng: random.Random, segment: Segment, layout: Layout, hints: Hints,
                   rate: float = 0.1) -> Segment:
    """A copy of `segment` with some field values re-drawn, bits flipped and holds changed."""
    steps: list[Step] = []
    for step in segment.steps:
        values = list(step.values)
        cycles = step.cycles
        for i, f in enumerate(layout.fields):
            if f.reset or rng.random() >= rate:
                continue
            choice = rng.random()
            if choice < 0.4:
                values[i] ^= 1 << rng.randrange(f.bits)
            else:
                values[i] = draw(rng, f, hints.focus.get(f.name) or hints.palettes.get(f.name, ()), 0.6)
        if rng.random() < rate:
            cycles = max(1, min(1 << 16, cycles * rng.choice((2, 4)) if rng.random() < 0.5 else cycles // 2))
        steps.append(Step(tuple(values), cycles))
    return Segment(f"mutated {segment.label}", tuple(steps))


def splice(rng: random.Random, a: Segment, b: Segment) -> Segment:
    """A prefix of `a` followed by a suffix of `b` (cross-over of two kept segments)."""
    cut_a = rng.randint(1, max(1, len(a.steps)))
    cut_b = rng.randint(0, max(0, len(b.steps) - 1))
    return Segment(f"splice of {a.label} + {b.label}", a.steps[:cut_a] + b.steps[cut_b:])


def with_reset(layout: Layout, segment: Segment, rng: random.Random) -> Segment:
    """`segment` preceded by a reset sequence of 1-3 cycles."""
    return replace(segment, steps=reset_steps(layout, rng.randint(1, 3)) + segment.steps)


def quieten(rng: random.Random, layout: Layout, hints: Hints, segment: Segment) -> Segment:
    """`segment` with the quiet fields mostly idle (keeps a DUT's assertions from firing)."""
    cols = [i for i, f in enumerate(layout.fields) if f.name in hints.quiet]
    if not cols:
        return segment
    steps = []
    for step in segment.steps:
        values = list(step.values)
        for i in cols:
            if rng.random() < QUIET_IDLE:
                values[i] = layout.fields[i].idle
        steps.append(Step(tuple(values), step.cycles))
    return Segment(segment.label, tuple(steps))


def step_period_ps(layout: Layout) -> int:
    """Length of one cycle in ps (the harness runs at 1 ns / 1 ps)."""
    return 1000 * (2 * layout.clocks[0].half_period if layout.clocks else COMB_STEP_NS)


def step_at(layout: Layout, steps: Sequence[Step], time_ps: int) -> int:
    """Index of the step active at simulation time `time_ps` (len(steps) when past the end)."""
    period = step_period_ps(layout)
    t = 0
    for k, step in enumerate(steps):
        t += step.cycles * period
        if time_ps < t:
            return k
    return len(steps)


def flatten(segments: Iterable[Segment]) -> tuple[Step, ...]:
    """All steps of `segments`, in order."""
    return tuple(s for seg in segments for s in seg.steps)


def is_handshake(f: Field) -> bool:
    """True for a 1-bit non-reset field named like valid/ready/enable/request."""
    return f.width == 1 and f.count == 1 and not f.reset and bool(HANDSHAKE_RE.search(f.name))
