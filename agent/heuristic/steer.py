"""Pure mining and steering: from the design interface and uncovered points to `Hints`.

Mining reads the literals each input is compared with, case items, parameter values and
FSM state values. Steering maps each uncovered point to the conditions at its line (the
evaluator reports `file:line`; the interface knows which inputs each condition reads and
which constants it compares them with) and toggle holes of inputs to (field, bit) targets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from agent.heuristic.spec_hints import SpecValues
from agent.heuristic.stimulus import Field, Hints, Layout, is_handshake, make_palette
from sim.analysis.expr_points import literal, split_terms
from sim.analysis.interface import ALL_KEY, Condition, DesignInterface
from sim.types import UncoveredPoint

TOGGLE_RE = re.compile(r"^(?P<name>[A-Za-z_][\w$]*)(?P<idx>(?:\[\d+\])*):[01]->[01]$")
"""A toggle point comment: `sig:0->1`, `sig[3]:1->0`, `arr[2][5]:0->1`."""

SEARCH_LINES = 2
"""An uncovered point also steers by conditions up to this many lines above it."""

MAX_COMBOS = 64
"""Most operand combinations (from uncovered expression points) kept in the hints."""

OPERAND_RE = re.compile(r"^(?P<name>[A-Za-z_][\w$]*)(?:\[(?P<bit>\d+)\])?$")
"""An expression term that is a signal or one bit of it: `en`, `en[0]`."""

COMPARE_RE = re.compile(
    r"^\((?P<name>[A-Za-z_][\w$]*)(?:\[(?P<hi>\d+)(?::(?P<lo>\d+))?\])?\s*"
    r"(?P<op>==|!=|<=|>=|<|>)\s*(?P<const>\d+'s?[hbdo][0-9a-fA-F_]+|\d+)\)$")
"""An expression term comparing a signal (or a slice) with a literal: `(ss[3:0] == 32'sh9)`."""

IDENT_RE = re.compile(r"[A-Za-z_][\w$]*")
"""Identifiers inside a term we cannot solve (their upstream inputs get the focus)."""


def mine_hints(layout: Layout, iface: DesignInterface, spec: SpecValues | None = None) -> Hints:
    """Palettes, handshake fields, FSM value sequences and the storage to set up first.

    Palettes hold mined constants (+-1) and corners; values the specification names
    (`spec`) come after the RTL's own literals.
    """
    shared = list(iface.constants.get(ALL_KEY, ()))
    own = {f.name: list(iface.constants.get(f.name, ())) for f in layout.fields}
    if spec is not None:
        # RTL literals first (they are compared for sure), then what the spec text names.
        for name, values in spec.per_field.items():
            if name in own:
                own[name] += [v for v in values if v not in own[name]]
        shared += [v for v in spec.shared if v not in shared]
    palettes = {f.name: make_palette(f, own[f.name], shared) for f in layout.fields}
    sequences = tuple(tuple(v) for v in iface.fsm_states.values() if v)
    names = {f.name for f in layout.fields}
    writes = tuple(p for p in iface.write_ports
                   if p.address in names | {""} and all(n in names for n, _ in p.enable)
                   and any(d[0] in names for d in p.data))
    return Hints(
        palettes=palettes,
        handshake=tuple(f.name for f in layout.fields if is_handshake(f)),
        sequences=sequences,
        writes=writes,
    )


def plain_hints(layout: Layout) -> Hints:
    """No knowledge at all (the random baseline)."""
    return Hints(palettes={f.name: () for f in layout.fields})


def parse_toggle(comment: str) -> tuple[str, int] | None:
    """(signal, bit) of a toggle point comment; bit 0 for a scalar."""
    m = TOGGLE_RE.match(comment.strip())
    if m is None:
        return None
    bits = re.findall(r"\d+", m.group("idx"))
    return m.group("name"), int(bits[-1]) if bits else 0


def steer(hints: Hints, layout: Layout, iface: DesignInterface, holes: Iterable[UncoveredPoint],
          *, dut_scope: str = "") -> Hints:
    """`hints` biased toward the inputs and constants of the conditions behind `holes`.

    Args:
        hints: the mined hints.
        layout: the fields.
        iface: the design interface (conditions by file and line).
        holes: uncovered points of the current best stimulus.
        dut_scope: instance path of the DUT top (toggle holes there may name inputs).
    """
    names = {f.name for f in layout.fields}
    widths = {f.name: f.width for f in layout.fields}
    by_name = {f.name: f for f in layout.fields}
    focus: dict[str, set[int]] = {}
    toggles: list[tuple[str, int]] = []
    combos: list[tuple[tuple[str, int, int], ...]] = []
    for hole in holes:
        if hole.kind == "toggle":
            parsed = parse_toggle(hole.comment)
            if parsed and parsed[0] in names and (not dut_scope or hole.hier in ("", dut_scope)):
                toggles.append(parsed)
            continue
        if hole.kind == "expr":
            at_top = not dut_scope or hole.hier in ("", dut_scope)
            combo, upstream = expr_wants(hole.comment, by_name if at_top else {}, iface.upstream)
            if combo:
                combos.append(combo)
            for name in upstream:
                f = by_name.get(name)
                if f is not None and not f.reset:
                    focus.setdefault(name, set()).update(hints.palettes.get(name, ())[:8])
        conds: tuple[Condition, ...] = ()
        for back in range(SEARCH_LINES + 1):
            conds = iface.conditions_at(hole.file, hole.line - back)
            if conds:
                break
        for cond in conds:
            for sig in cond.signals:
                if sig not in names:
                    continue
                mask = (1 << widths[sig]) - 1
                got = focus.setdefault(sig, set())
                for c in cond.constants:
                    got.update({c & mask, (c + 1) & mask, (c - 1) & mask})
    merged = {k: tuple(sorted(v))[:32] for k, v in focus.items()}
    return replace(hints, focus=merged, toggles=tuple(dict.fromkeys(toggles))[:64],
                   combos=tuple(dict.fromkeys(combos))[:MAX_COMBOS])


def _wanted_value(op: str, const: int, true: bool, mask: int) -> int:
    """A value `v` with `(v op const) == true`, within `mask`."""
    if op in ("==", "!="):
        equal = true == (op == "==")
        return const & mask if equal else (const ^ 1) & mask
    above = {"<": not true, "<=": not true, ">": true, ">=": true}[op]
    strict = (op in ("<", ">")) == true
    if above:
        return min(mask, const + (1 if strict else 0))
    return max(0, const - (1 if strict else 0)) & mask


def expr_wants(comment: str, fields: dict[str, Field], upstream: dict[str, tuple[str, ...]]
               ) -> tuple[tuple[tuple[str, int, int], ...], tuple[str, ...]]:
    """What an uncovered expression point asks of the inputs.

    Returns (combo, upstream): the (field, bit mask, value) settings its terms on input
    fields need together, and the inputs feeding the terms on internal signals (registers
    one or two stages upstream, wires), to aim random values at.
    """
    combo: list[tuple[str, int, int]] = []
    feeders: list[str] = []
    for operand, want in split_terms(comment):
        bit = OPERAND_RE.match(operand)
        cmp = COMPARE_RE.match(operand)
        if bit is not None and bit.group("name") in fields:
            f = fields[bit.group("name")]
            index = int(bit.group("bit") or 0)
            if index < f.bits:
                combo.append((f.name, 1 << index, want << index))
            continue
        if cmp is not None and cmp.group("name") in fields:
            f = fields[cmp.group("name")]
            const = literal(cmp.group("const"))
            hi = int(cmp.group("hi")) if cmp.group("hi") is not None else f.bits - 1
            lo = int(cmp.group("lo")) if cmp.group("lo") is not None else (hi if cmp.group("hi") else 0)
            if const is not None and hi < f.bits and lo <= hi:
                mask = (1 << (hi - lo + 1)) - 1
                value = _wanted_value(cmp.group("op"), const, bool(want), mask)
                combo.append((f.name, mask << lo, value << lo))
                continue
        for name in IDENT_RE.findall(operand):
            if name in fields:
                feeders.append(name)
            feeders += upstream.get(name, ())
    return tuple(combo), tuple(dict.fromkeys(feeders))


ERROR_AT_RE = re.compile(r"%(?:Error|Fatal|Warning)[^:]*: ([^\s:]+):(\d+):")
"""`%Error: file.sv:135: ...` in a simulation log."""


def blamed_fields(layout: Layout, log_tail: str, read_lines: Callable[[str], list[str] | None]) -> tuple[str, ...]:
    """Input fields named on (or just above) the source lines a run's error messages point at."""
    names = {f.name for f in layout.fields if not f.reset}
    found: list[str] = []
    for m in ERROR_AT_RE.finditer(log_tail):
        lines = read_lines(m.group(1))
        if not lines:
            continue
        line = int(m.group(2))
        text = " ".join(lines[max(0, line - 3): line])
        found += [w for w in re.findall(r"[A-Za-z_]\w*", text) if w in names]
    return tuple(dict.fromkeys(found))


SV_WORDS = frozenset((
    "if", "else", "begin", "end", "assert", "property", "posedge", "negedge", "disable", "iff", "not", "and",
    "or", "case", "default", "always", "always_ff", "always_comb", "initial", "logic", "reg", "wire", "ASSERT",
    "ASSERT_INIT", "fatal", "error", "display", "finish", "stop", "h", "d", "b", "o",
))
"""Keywords, system-task names and literal radix letters on an error's source lines (not signals)."""


SV_LITERAL_RE = re.compile(r"\d*'[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ_?]+|\$\w+")
"""Based literals (`2'd3`: not a signal `d3`) and system tasks (`$fatal`)."""

IF_CONDITION_RE = re.compile(r"\bif\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)")
"""The condition of an `if` (one level of nested parentheses) on a source line."""


def inputs_only(layout: Layout, log_tail: str, read_lines: Callable[[str], list[str] | None]) -> bool:
    """Whether the source lines a run's error points at name only inputs (a stateless check).

    `if (mode == 3) $fatal` under `if (en)` fails on an input combination, so avoiding the
    combination is right; `empty_o |-> ~pop_i` also depends on the design's state, where
    only quieting the inputs helps.
    """
    names = {f.name for f in layout.fields} | {c.name for c in layout.clocks}
    found = False
    for m in ERROR_AT_RE.finditer(log_tail):
        lines = read_lines(m.group(1))
        if not lines:
            continue
        line = int(m.group(2))
        # The failing line itself, plus only the conditions of the lines just above it: an
        # enclosing `if (rst) y <= 0;` names outputs it assigns, not what the check reads.
        above = " ".join(" ".join(IF_CONDITION_RE.findall(t)) for t in lines[max(0, line - 3): line - 1])
        text = above + " " + lines[line - 1] if line - 1 < len(lines) else above
        text = SV_LITERAL_RE.sub(" ", re.sub(r'"[^"]*"', "", text))
        words = {w for w in re.findall(r"[A-Za-z_]\w*", text) if w not in SV_WORDS}
        if words - names:
            return False
        found = found or bool(words)
    return found
