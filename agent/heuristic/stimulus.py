"""Stimulus as data: the design's driven inputs (`Layout`), vectors (`Step`), runs of them (`Segment`).

A design's driven inputs form a `Layout` (every non-clock input, resets included). One
`Step` holds a value for every field and a cycle count; a `Segment` is a labelled run of
steps. The value helpers here (palettes, corners, packing) are pure. Programs
(`agent.program`) drive these fields; `make_layout` reads them off a design interface.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sim.analysis.accessors import Accessor
from sim.analysis.interface import DesignInterface
from sim.analysis.write_ports import WritePort
from sim.suite import Design

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
    accessors: tuple[Accessor, ...] = ()
    """Read-only public functions of the design a testbench calls on every clock (sv_accessors)."""

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


# ----------------------------------------------------------------------------- resets and steps


def reset_vector(layout: Layout) -> tuple[int, ...]:
    """All resets asserted, data zero."""
    return tuple(f.asserted if f.reset else 0 for f in layout.fields)


def reset_steps(layout: Layout, cycles: int = 3) -> tuple[Step, ...]:
    """Assert every reset (right polarity) for `cycles`, then release for one cycle."""
    if not any(f.reset for f in layout.fields):
        return (Step(layout.idle, 1),)
    return (Step(reset_vector(layout), cycles), Step(layout.idle, 1))


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


# ----------------------------------------------------------------------------- layout


HALF_PERIODS = (5, 7, 11, 13, 17, 19, 23)
"""Half periods (ns) given to the clocks, in order: distinct so multi-clock designs see drift."""

def make_layout(design: Design, iface: DesignInterface) -> Layout:
    """The harness layout of a design: every non-clock input is a field, in port order."""
    clocks = set(iface.clocks) | {p.name for p in iface.ports if p.is_clock}
    resets = dict(iface.resets)
    fields: list[Field] = []
    ports: list[Signal] = []
    for p in iface.ports:
        width = max(1, p.width)
        ports.append(Signal(p.name, p.direction, width, tuple(p.unpacked), p.signed))
        if p.direction != "input" or p.name in clocks:
            continue
        is_reset = p.name in resets or p.is_reset
        low = resets.get(p.name, bool(p.reset_active_low))
        fields.append(Field(p.name, width, tuple(p.unpacked), p.signed, is_reset, low if is_reset else False))
    ordered = [c for c in iface.clocks if c in clocks] + sorted(clocks - set(iface.clocks))
    clock_list = tuple(Clock(name, HALF_PERIODS[i % len(HALF_PERIODS)]) for i, name in enumerate(ordered))
    return Layout(design.top, design.dut_instance, tuple(fields), clock_list, tuple(ports), iface.accessors)
