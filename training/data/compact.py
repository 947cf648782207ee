"""Compact SFT targets: the heuristic engine's replay testbench in far fewer tokens.

The engine's replay (agent.heuristic.harness.render_replay) already loops over a table of
stimulus vectors, but it spends one line and fully sized literals per step
(`{32'd1, 1'h0, 8'h0a},`) and repeats identical consecutive steps.  `compact_replay`
rewrites the table with the same semantics:

- identical consecutive rows merge into one whose cycle count is the sum (each row holds
  its values for `cycles` clock cycles, so the applied sequence is unchanged);
- each row becomes an assignment pattern with unsized literals (`'{3, 0, 'ha}`), several
  per line; fields wider than 32 bits keep their sized literal;
- the segment labels stay as one comment each.

Only text that is exactly a replay (its header, its struct, its rows) is rewritten; any
other testbench comes back as None.  tests/training/test_compact.py simulates both forms
of a real replay and checks the coverage is identical.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ROW_RE = re.compile(r"^\s*\{(?P<body>32'd\d+(?:\s*,\s*\d+'h[0-9a-fA-F]+)*)\},?\s*$")
_SEG_RE = re.compile(r"^\s*// steps \d+\.\.\d+: (?P<label>.*)$")
_LIT_RE = re.compile(r"(\d+)'h([0-9a-fA-F]+)")
_NSTEPS_RE = re.compile(r"^\s*localparam int NSTEPS = \d+;\s*$")
_TABLE_START = "step_t STIM [NSTEPS] = '{"

ROWS_PER_LINE = 6
"""Assignment patterns per table line (fewer newline/indent tokens, still readable)."""


@dataclass(frozen=True)
class Row:
    """One step of the table: cycles and (width, value) per field."""

    cycles: int
    """Clock cycles the values are held."""
    values: tuple[tuple[int, int], ...]
    """(bits, value) of every field, in struct order."""


def _parse_row(body: str) -> Row | None:
    """A `{32'dC, W'hV, ...}` row body, or None."""
    first, *rest = [p.strip() for p in body.split(",")]
    values = []
    for part in rest:
        m = _LIT_RE.fullmatch(part)
        if m is None:
            return None
        values.append((int(m.group(1)), int(m.group(2), 16)))
    return Row(int(first.split("'d")[1]), tuple(values))


def merge_rows(rows: list[Row]) -> list[Row]:
    """Merge identical consecutive rows by adding their cycle counts."""
    out: list[Row] = []
    for row in rows:
        if out and out[-1].values == row.values:
            out[-1] = Row(out[-1].cycles + row.cycles, row.values)
        else:
            out.append(row)
    return out


def literal(bits: int, value: int) -> str:
    """The shortest literal that assigns `value` to a `bits`-wide struct member."""
    if bits > 32:
        return f"{bits}'h{value:x}"
    return str(value) if value < 10 else f"'h{value:x}"


def pattern(row: Row) -> str:
    """`'{cycles, v0, v1, ...}`."""
    return "'{" + ", ".join([str(row.cycles), *(literal(b, v) for b, v in row.values)]) + "}"


def compact_replay(text: str) -> str | None:
    """The same testbench with a compact STIM table; None when `text` is not a replay."""
    lines = text.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.strip() == _TABLE_START)
        end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() == "};")
    except StopIteration:
        return None
    segments: list[tuple[str, list[Row]]] = []
    for ln in lines[start + 1:end]:
        seg = _SEG_RE.match(ln)
        if seg:
            segments.append((seg.group("label"), []))
            continue
        m = _ROW_RE.match(ln)
        if m is None or not segments:
            if ln.strip():
                return None
            continue
        row = _parse_row(m.group("body"))
        if row is None:
            return None
        segments[-1][1].append(row)
    merged = [(label, merge_rows(rows)) for label, rows in segments if rows]
    if not merged:
        return None
    body: list[str] = []
    n_rows = sum(len(rows) for _, rows in merged)
    done = 0
    for label, rows in merged:
        body.append(f"    // {label}")
        for i in range(0, len(rows), ROWS_PER_LINE):
            chunk = rows[i:i + ROWS_PER_LINE]
            done += len(chunk)
            sep = "" if done == n_rows else ","
            body.append("    " + ", ".join(pattern(r) for r in chunk) + sep)
    out: list[str] = []
    for i, ln in enumerate(lines[:start]):
        if _NSTEPS_RE.match(ln):
            out.append(f"  localparam int NSTEPS = {n_rows};")
        elif ln.startswith("// Every row of STIM"):
            out.append("// Each STIM row '{cycles, inputs...} holds the inputs for `cycles` clock cycles.")
        elif i and ln.startswith("// coverage when run alone"):
            continue  # a number the model cannot know in advance
        else:
            out.append(ln)
    out += [lines[start], *body, *lines[end:]]
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def compact_or_same(text: str | None) -> str | None:
    """`compact_replay(text)` when it applies, else `text` unchanged."""
    if not text:
        return text
    return compact_replay(text) or text
