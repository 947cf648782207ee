"""Reading Verilator's expression-coverage point comments (pure).

An expression point names one combination of its terms' values and the outcome:
`(enable[0]==1 && (ss[3:0] == 32'sh9)==1) => 1`. The steering in the built-in engine and
the dead-point proofs both take such a comment apart into its terms.
"""

from __future__ import annotations

import re

EXPR_RE = re.compile(r"^\((?P<terms>.*)\)\s*=>\s*[01]$")
"""An expression-coverage point comment."""

LITERAL_RE = re.compile(r"^\d*'s?(?P<base>[hbdo])(?P<digits>[0-9a-fA-F_]+)$")
"""A sized or based Verilog literal as Verilator prints it: `32'sh9`, `4'b1010`."""


def literal(text: str) -> int | None:
    """Value of `9`, `4'h5`, `32'sh9`, `8'b1010` (None when not a plain literal)."""
    m = LITERAL_RE.match(text)
    if m is None:
        return int(text) if text.isdigit() else None
    try:
        return int(m.group("digits").replace("_", ""), {"h": 16, "b": 2, "d": 10, "o": 8}[m.group("base")])
    except ValueError:
        return None


def split_terms(comment: str) -> list[tuple[str, int]]:
    """(operand text, wanted 0/1) of each top-level `&&` term of a comment ([] if it is not one)."""
    m = EXPR_RE.match(comment.strip())
    if m is None:
        return []
    body, parts, depth, start = m.group("terms"), [], 0, 0
    for i, ch in enumerate(body):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and body.startswith(" && ", i):
            parts.append(body[start:i])
            start = i + 4
    parts.append(body[start:])
    out: list[tuple[str, int]] = []
    for part in parts:
        operand, _, want = part.strip().rpartition("==")
        if want.strip() not in ("0", "1") or not operand:
            return []
        out.append((operand.strip(), int(want.strip())))
    return out
