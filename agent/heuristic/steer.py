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

from agent.heuristic.stimulus import Hints, Layout, is_handshake, make_palette
from sim.design import ALL_KEY, Condition, DesignInterface
from sim.types import UncoveredPoint

TOGGLE_RE = re.compile(r"^(?P<name>[A-Za-z_][\w$]*)(?P<idx>(?:\[\d+\])*):[01]->[01]$")
"""A toggle point comment: `sig:0->1`, `sig[3]:1->0`, `arr[2][5]:0->1`."""

SEARCH_LINES = 2
"""An uncovered point also steers by conditions up to this many lines above it."""


def mine_hints(layout: Layout, iface: DesignInterface) -> Hints:
    """Palettes (mined constants, +-1, corners), handshake fields and FSM value sequences."""
    shared = list(iface.constants.get(ALL_KEY, ()))
    palettes = {f.name: make_palette(f, iface.constants.get(f.name, ()), shared) for f in layout.fields}
    sequences = tuple(tuple(v) for v in iface.fsm_states.values() if v)
    return Hints(
        palettes=palettes,
        handshake=tuple(f.name for f in layout.fields if is_handshake(f)),
        sequences=sequences,
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
    focus: dict[str, set[int]] = {}
    toggles: list[tuple[str, int]] = []
    for hole in holes:
        if hole.kind == "toggle":
            parsed = parse_toggle(hole.comment)
            if parsed and parsed[0] in names and (not dut_scope or hole.hier in ("", dut_scope)):
                toggles.append(parsed)
            continue
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
    return replace(hints, focus=merged, toggles=tuple(dict.fromkeys(toggles))[:64])


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
