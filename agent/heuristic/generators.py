"""The pure seeded generators that produce stimulus segments.

Generators take a `random.Random` and return segments, so the same seed always yields the
same stimulus: resets, corner values, walking bits, mixed and uniform random, holds,
handshakes, FSM value sequences, slow serial-like runs, toggles, table and register
writes through discovered write ports, expression-operand combinations, and the edits
the search makes to kept segments (mutate, splice, re-reset, quieten).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from agent.heuristic.stimulus import (
    QUIET_IDLE,
    Hints,
    Layout,
    Segment,
    Step,
    corner_values,
    draw,
    pack,
    reset_steps,
)
from sim.analysis.write_ports import WritePort

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
