"""Values a design's specification names: register addresses, opcodes, magic values (pure).

Specs write what the RTL compares against only indirectly ("CONTROL at 0x100", "write
0xA5 to unlock", "opcode 4'b1010 is XOR"). `mine_spec(text, fields)` reads the literals of
each line; a literal on a line that names an input field is that field's, the others are
shared. Hex, binary and sized Verilog literals always count; plain decimals only on a line
that names a field (elsewhere they are mostly prose: "three cycles", "16 entries").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.heuristic.stimulus import Field

MAX_SPEC_VALUES = 24
"""Most values kept per field, and shared."""

SIZED_RE = re.compile(r"\b\d*'[sS]?(?P<base>[hHbBdDoO])(?P<digits>[0-9a-fA-F_]+)\b")
"""A Verilog literal: `8'hA5`, `4'b1010`, `'d12`."""

C_HEX_RE = re.compile(r"\b0[xX](?P<digits>[0-9a-fA-F_]+)\b")
"""A C-style hex literal: `0x100`."""

C_BIN_RE = re.compile(r"\b0[bB](?P<digits>[01_]+)\b")
"""A C-style binary literal: `0b1010`."""

DECIMAL_RE = re.compile(r"(?<![\w.'])(?P<digits>\d+)(?![\w.'])")
"""A plain decimal number (counted only on lines that name a field)."""


@dataclass(frozen=True)
class SpecValues:
    """Literals a specification names, by input field."""

    per_field: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Field -> values named on lines that mention it (fitted to the field's width)."""
    shared: tuple[int, ...] = ()
    """Hex/binary/sized literals on lines that name no field."""


def literals(line: str, *, decimals: bool) -> list[int]:
    """Numbers written on one line, in order (decimals only when asked)."""
    found: list[tuple[int, int]] = []
    taken: list[tuple[int, int]] = []
    for m in SIZED_RE.finditer(line):
        base = {"h": 16, "b": 2, "d": 10, "o": 8}[m.group("base").lower()]
        try:
            found.append((m.start(), int(m.group("digits").replace("_", ""), base)))
            taken.append(m.span())
        except ValueError:
            continue
    for regex, base in ((C_HEX_RE, 16), (C_BIN_RE, 2)):
        for m in regex.finditer(line):
            found.append((m.start(), int(m.group("digits").replace("_", "") or "0", base)))
            taken.append(m.span())
    if decimals:
        for m in DECIMAL_RE.finditer(line):
            if not any(a <= m.start() < b for a, b in taken):
                found.append((m.start(), int(m.group("digits"))))
    return [v for _, v in sorted(found)]


def mine_spec(text: str, fields: Sequence[Field]) -> SpecValues:
    """The literals of a specification, attributed to the input fields named beside them."""
    names = {f.name: f for f in fields if not f.reset}
    per: dict[str, list[int]] = {}
    shared: list[int] = []
    for line in text.splitlines():
        words = set(re.findall(r"[A-Za-z_][\w$]*", line))
        named = [names[w] for w in words if w in names]
        values = literals(line, decimals=bool(named))
        if not values:
            continue
        if not named:
            shared += [v for v in values if v not in shared]
            continue
        for f in named:
            mask = (1 << f.width) - 1
            got = per.setdefault(f.name, [])
            got += [v for v in values if v <= mask and v not in got]
    return SpecValues(
        per_field={k: tuple(v[:MAX_SPEC_VALUES]) for k, v in per.items() if v},
        shared=tuple(shared[:MAX_SPEC_VALUES]),
    )
