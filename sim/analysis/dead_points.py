"""Coverage points no stimulus can reach at the design's parameter values (pure).

Configurable IP carries code for every option (`if (OPT_LOWPOWER && i_reset)`,
`FRAME_FIFO ? ... : ...`, a TID field tied off). Verilator instruments it all. Three proofs,
from the parameter values and dataflow of Verilator's elaborated `--json-only` tree:

- **parameter term**: an expression point with a term that reads only a parameter
  (`OPT_LOWPOWER==1`, `(SPI_MODE == 32'sh2)==1`) whose elaborated value contradicts it;
- **parameter condition**: a branch point of `if (c)` or `= c ? a : b` whose condition
  reads only parameters and literals (`KEEP_ENABLE && KEEP_WIDTH > 1`), on the arm its
  value never takes;
- **constant bit**: a toggle point on a bit `sim.analysis.constant_bits` proves can never change
  (zero-extended inputs, fields tied off by a parameter, variables nothing writes); a bit
  tied to 1 still rises once from its initial 0, so only its fall is dead.

A folded-away line is *not* a proof: `if (OPT_LOWPOWER && i_reset)` disappears from the
tree, yet its false outcome runs every cycle. `dead_points` only labels points; nothing is
waived here — a report shows them, and a user may copy them into `coverage.waivers`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import PurePath

from sim.analysis import ast_json as ast
from sim.analysis.ast_json import Node
from sim.analysis.constant_bits import Known, constant_bits
from sim.analysis.expr_points import literal, split_terms
from sim.types import UncoveredPoint

_IF_RE = re.compile(r"\bif\s*\(")
"""Start of an `if (` condition on the point's source line."""

_COND_RE = re.compile(r"(?<![=!<>])=(?!=)\s*(?P<cond>[^?;]+)\?")
"""`= cond ? a : b` on the point's source line (the condition before `?`)."""

_OPERAND = r"(?P<{0}neg>!?)\s*(?:(?P<{0}num>\d*'s?[hbdo][0-9a-fA-F_]+|\d+)|(?P<{0}name>[A-Za-z_]\w*))"
_ATOM_RE = re.compile(r"^" + _OPERAND.format("a") + r"(?:\s*(?P<op>==|!=|<=|>=|<|>)\s*" + _OPERAND.format("b") + r")?$")
"""The innermost part of a condition: `P`, `!P`, `8'h3`, `P > 1`, `P == Q`."""

_TAKEN_WHEN_TRUE = {"if": True, "cond_then": True, "else": False, "cond_else": False}
"""Branch point comment -> the condition value that takes it."""

_BODY_LINES = frozenset(("if", "elsif"))
"""Line point comments for the body of the `if (...)` / `else if (...)` on their line."""

_BIT_TERM_RE = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?:\[(?P<bit>\d+)\])?==1$")
"""An expression-coverage term asking one signal bit to be 1: `mark_frame_reg==1`, `en[2]==1`."""

_TOGGLE_RE = re.compile(r"^(?P<name>[A-Za-z_][\w$.]*?)(?P<idx>(?:\[\d+\])*):[01]->[01]$")
"""A toggle point comment: `sig[3]:0->1`, `gen.blk.sig:1->0`."""

CLASSIFIED_KINDS = frozenset(("line", "branch", "expr", "toggle"))
"""Metrics whose points can be proven dead here."""



@dataclass(frozen=True)
class ElaboratedFacts:
    """What the elaborated tree says about parameters and constant bits."""

    parameters: Mapping[str, int]
    """Parameter name -> value, over every module (names with conflicting values are left out)."""
    constants: Mapping[tuple[str, int, str], Known] = dataclass_field(default_factory=dict)
    """(normalised file, declaration line, name) -> bits that can never change."""

    def constant_in_file(self, file: str, name: str) -> Known | None:
        """Constant bits of `name` declared in `file` (every declaration there agreeing), or None."""
        found: Known | None = None
        for (path, _line, var), known in self.constants.items():
            if var == name and path == _norm(file):
                found = known if found is None else found.meet(known)
        return found


def _norm(path: str) -> str:
    return os.path.normpath(path)


def elaborated_facts(tree: Node) -> ElaboratedFacts:
    """Integer parameter values and constant bits of an elaborated `--json-only` tree."""
    values: dict[str, set[int]] = {}
    for node in ast.walk(tree):
        if node.get("type") == "VAR" and node.get("isParam"):
            const = ast.const_of(ast.first(node, "valuep"))
            if const is not None and not const.wildcard:
                values.setdefault(str(node.get("name", "")), set()).add(const.value)
    return ElaboratedFacts(
        parameters={k: next(iter(v)) for k, v in values.items() if len(v) == 1},
        constants=constant_bits(tree),
    )


def _branch_condition(source: str, is_if: bool) -> str:
    """The condition text of the `if (...)` or `= ... ?` on a source line ('' when none)."""
    if not is_if:
        m = _COND_RE.search(source)
        return m.group("cond").strip() if m else ""
    m = _IF_RE.search(source)
    if m is None:
        return ""
    depth = 1
    for i in range(m.end(), len(source)):
        depth += {"(": 1, ")": -1}.get(source[i], 0)
        if depth == 0:
            return source[m.end():i].strip()
    return ""


def _split_top(cond: str, op: str) -> list[str]:
    """`cond` split at `op` (`&&` or `||`) outside parentheses and brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(cond):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(cond[i], 0)
        if depth == 0 and cond.startswith(op, i):
            parts.append(cond[start:i])
            start = i = i + len(op)
            continue
        i += 1
    parts.append(cond[start:])
    return [p.strip() for p in parts]


def _enclosed(text: str) -> bool:
    """Whether one pair of parentheses encloses all of `text`."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def _three_valued(cond: str, parameters: Mapping[str, int], _depth: int = 0) -> int | None:
    """A condition's value when the parameters decide it, whatever the signals are (else None).

    `OPT_LOWPOWER && i_reset` is 0 with OPT_LOWPOWER = 0; `!OPT_LOWPOWER || i_valid` is 1.
    Only top-level `&&`/`||`, parentheses, `!( ... )` and parameter/literal atoms are read.
    """
    text = cond.strip()
    if not text or _depth > 16:
        return None
    if _enclosed(text):
        return _three_valued(text[1:-1], parameters, _depth + 1)
    for op, absorbing in (("||", 1), ("&&", 0)):
        parts = _split_top(text, op)
        if len(parts) > 1:
            values = [_three_valued(part, parameters, _depth + 1) for part in parts]
            if any(v is not None and int(bool(v)) == absorbing for v in values):
                return absorbing
            return None if any(v is None for v in values) else 1 - absorbing
    if text.startswith("!") and _enclosed(text[1:].strip()):
        inner = _three_valued(text[1:], parameters, _depth + 1)
        return None if inner is None else int(not inner)
    return _atom(text, parameters)


def _operand(m: re.Match[str], side: str, parameters: Mapping[str, int]) -> int | None:
    """One operand of an atom: a literal or a parameter, maybe negated (None for a signal)."""
    if m.group(f"{side}num") is not None:
        value = literal(m.group(f"{side}num"))
    else:
        value = parameters.get(m.group(f"{side}name"))
    if value is None or not m.group(f"{side}neg"):
        return value
    return int(not value)


def _atom(text: str, parameters: Mapping[str, int]) -> int | None:
    """Value of a parameter/literal operand or comparison of two (None when it reads a signal)."""
    m = _ATOM_RE.match(text)
    if m is None:
        return None
    a = _operand(m, "a", parameters)
    if m.group("op") is None or a is None:
        return a
    b = _operand(m, "b", parameters)
    if b is None:
        return None
    return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[m.group("op")])


def _constant_toggle(point: UncoveredPoint, facts: ElaboratedFacts) -> str:
    """Why a toggle point is on a bit that never changes ('' when not proven)."""
    m = _TOGGLE_RE.match(point.comment.strip())
    if m is None:
        return ""
    indices = re.findall(r"\d+", m.group("idx"))
    if len(indices) > 1:
        return ""  # an element of a multi-dimensional variable: not analysed
    name = m.group("name").rsplit(".", 1)[-1]
    known = facts.constants.get((_norm(point.file), point.line, name))
    bit = int(indices[0]) if indices else 0
    if known is None or not known.mask >> bit & 1:
        return ""
    value = known.value >> bit & 1
    if value == 1 and point.comment.strip().endswith("0->1"):
        return ""  # a bit tied to 1 still rises once, from its initial 0
    return f"{name}[{bit}] is always {value} at these parameter values"


def why_dead(point: UncoveredPoint, facts: ElaboratedFacts) -> str:
    """Why `point` can never be covered at these parameters ('' when that is not proven)."""
    if point.kind not in CLASSIFIED_KINDS:
        return ""
    if point.kind == "toggle":
        return _constant_toggle(point, facts)
    if point.kind == "branch" and point.comment in _TAKEN_WHEN_TRUE:
        cond = _branch_condition(point.source, point.comment in ("if", "else"))
        value = _three_valued(cond, facts.parameters) if cond else None
        if value is not None and bool(value) != _TAKEN_WHEN_TRUE[point.comment]:
            return f"{' '.join(cond.split())} is {int(bool(value))} at these parameter values"
    if point.kind == "line" and point.comment in _BODY_LINES:
        # The body under `if (c)` runs only when c holds.
        cond = _branch_condition(point.source, True)
        if cond and _three_valued(cond, facts.parameters) == 0:
            return f"{' '.join(cond.split())} is 0 at these parameter values"
    if point.kind == "expr":
        for operand, want in split_terms(point.comment):
            term = f"{operand}=={want}"
            value = _three_valued(operand, facts.parameters)
            if value is not None and int(bool(value)) != want:
                return f"needs {term}, but {operand} is {int(bool(value))} at these parameter values"
            # A bit tied to 0 is 0 from time 0 on, so a term needing it at 1 never holds
            # (a bit tied to 1 may still read 0 before its driver first runs: not claimed).
            m = _BIT_TERM_RE.match(term.strip())
            if m is not None and m.group("name") not in facts.parameters:
                known = facts.constant_in_file(point.file, m.group("name"))
                bit = int(m.group("bit") or 0)
                if known is not None and known.mask >> bit & 1 and not known.value >> bit & 1:
                    return f"needs {term.strip()}, but {m.group('name')}[{bit}] is always 0"
    return ""


def dead_points(points: Iterable[UncoveredPoint], facts: ElaboratedFacts) -> dict[UncoveredPoint, str]:
    """The points proven unreachable, with the reason for each."""
    out: dict[UncoveredPoint, str] = {}
    for point in points:
        reason = why_dead(point, facts)
        if reason:
            out[point] = reason
    return out


def reachable_percents(counts: Mapping[str, tuple[int, int]], dead: Iterable[UncoveredPoint]) -> dict[str, float]:
    """Per metric and `overall`: covered / (total - dead), in percent (dead points are uncovered)."""
    dead_by_kind: dict[str, int] = {}
    for point in dead:
        dead_by_kind[point.kind] = dead_by_kind.get(point.kind, 0) + 1
    out: dict[str, float] = {}
    for metric, (covered, total) in counts.items():
        live = total - dead_by_kind.get(metric, 0)
        if live > 0:
            out[metric] = round(100.0 * covered / live, 2)
    if out:
        out["overall"] = round(sum(out.values()) / len(out), 2)
    return out


def waiver_lines(dead: Mapping[UncoveredPoint, str]) -> str:
    """`coverage.waivers` rules for the dead points, each with its reason as a comment line."""
    lines = ["# Points that cannot be reached at these parameter values (benchwright sim --dead)."]
    for point, reason in sorted(dead.items(), key=lambda kv: (kv[0].file, kv[0].line, kv[0].kind)):
        name = PurePath(point.file).name
        lines.append(f"# {name}:{point.line} {point.kind} {point.comment}: {reason}")
        lines.append(f"{point.kind} {name} {point.line} ^{re.escape(point.comment)}$")
    return "\n".join(lines) + "\n"
