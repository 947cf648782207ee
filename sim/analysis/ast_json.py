"""Helpers over Verilator's `--json-only` AST: node walking, types, constants, rendering.

The tree is the `.tree.json` Verilator 5.05x writes: every node is a dict with `type`,
`name`, `addr` (a short id such as `(E)`), `loc` (`<file-id>,<l>:<c>,<l>:<c>`) and lists of
child nodes under keys ending in `p`/`sp` (`stmtsp`, `lhsp`, ...). Cross references
(`dtypep`, `varp`, `modp`) hold another node's `addr`. All functions here are pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

Node: TypeAlias = Mapping[str, Any]
"""One AST node as loaded from JSON."""

BASIC_WIDTHS: dict[str, int] = {
    "bit": 1, "logic": 1, "reg": 1, "wire": 1, "byte": 8, "shortint": 16, "int": 32,
    "integer": 32, "longint": 64, "time": 64, "real": 64, "shortreal": 32, "realtime": 64,
    "string": 0, "chandle": 64,
}
"""Width of a BASICDTYPE keyword that has no explicit range."""

BINARY_OPS: dict[str, str] = {
    "ADD": "+", "SUB": "-", "MUL": "*", "MULS": "*", "DIV": "/", "DIVS": "/", "MODDIV": "%",
    "MODDIVS": "%", "AND": "&", "OR": "|", "XOR": "^", "LOGAND": "&&", "LOGOR": "||",
    "EQ": "==", "NEQ": "!=", "EQCASE": "===", "NEQCASE": "!==", "EQWILD": "==?",
    "NEQWILD": "!=?", "LT": "<", "LTS": "<", "LTE": "<=", "LTES": "<=", "GT": ">", "GTS": ">",
    "GTE": ">=", "GTES": ">=", "SHIFTL": "<<", "SHIFTR": ">>", "SHIFTRS": ">>>",
    "POW": "**", "POWSS": "**", "POWSU": "**", "POWUS": "**", "LOGIF": "->", "LOGEQ": "<->",
}
"""Binary expression node types and their Verilog operator."""

COMPARE_OPS: frozenset[str] = frozenset(
    ("EQ", "NEQ", "EQCASE", "NEQCASE", "EQWILD", "NEQWILD", "LT", "LTS", "LTE", "LTES",
     "GT", "GTS", "GTE", "GTES")
)
"""Node types that compare two operands."""

UNARY_OPS: dict[str, str] = {
    "NOT": "~", "LOGNOT": "!", "NEGATE": "-", "REDAND": "&", "REDOR": "|", "REDXOR": "^",
}
"""Unary expression node types and their Verilog operator."""

TRANSPARENT_OPS: frozenset[str] = frozenset(("EXTEND", "EXTENDS", "CCAST", "CAST", "SIGNED", "UNSIGNED"))
"""Width/sign conversions that render as their operand."""

_CONST_RE = re.compile(r"^(\d+)'(s?)([hbdo])([0-9a-fA-FxXzZ?_]+)$")
_LOC_RE = re.compile(r"^([^,]*),(\d+):(\d+)")


@dataclass(frozen=True)
class ConstValue:
    """A decoded Verilog literal."""

    width: int
    """Declared width in bits."""
    value: int
    """Unsigned bit pattern, with x/z/? bits read as 0."""
    signed: bool
    """True for `'s` literals."""
    wildcard: bool
    """True when some bits were x, z or ? (casez/casex items)."""


def children(node: Node) -> Iterator[Node]:
    """Direct child nodes, in key order."""
    for value in node.values():
        if isinstance(value, list):
            for child in value:
                if isinstance(child, dict):
                    yield child


def kids(node: Node, key: str) -> list[Node]:
    """Child nodes under one key (empty when absent)."""
    value = node.get(key)
    return [c for c in value if isinstance(c, dict)] if isinstance(value, list) else []


def first(node: Node, key: str) -> Node | None:
    """The first child under `key`, or None."""
    found = kids(node, key)
    return found[0] if found else None


def walk(node: Node) -> Iterator[Node]:
    """Every node of a subtree, depth first, pre-order (iterative: deep trees are fine)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def index(tree: Node) -> dict[str, Node]:
    """`addr` -> node for every node of the tree."""
    return {n["addr"]: n for n in walk(tree) if isinstance(n.get("addr"), str)}


def parse_loc(loc: str) -> tuple[str, int, int]:
    """Split `e,19:22,19:28` into (file id, line, column); ('', 0, 0) if malformed."""
    match = _LOC_RE.match(loc or "")
    if not match:
        return "", 0, 0
    return match.group(1), int(match.group(2)), int(match.group(3))


def parse_const(text: str) -> ConstValue | None:
    """Decode a CONST node name (`32'sh8`, `4'b1zz0`); None for strings and reals."""
    match = _CONST_RE.match(text.strip())
    if not match:
        return None
    width, signed, base, digits = match.groups()
    digits = digits.replace("_", "")
    wildcard = any(ch in "xXzZ?" for ch in digits)
    if base == "d":
        if wildcard:
            return ConstValue(int(width), 0, bool(signed), True)
        return ConstValue(int(width), int(digits), bool(signed), False)
    clean = re.sub(r"[xXzZ?]", "0", digits)
    value = int(clean, {"h": 16, "b": 2, "o": 8}[base])
    return ConstValue(int(width), value, bool(signed), wildcard)


def const_of(node: Node | None) -> ConstValue | None:
    """The literal a CONST node (possibly under width conversions) holds, else None."""
    node = strip_transparent(node)
    if node is None or node.get("type") != "CONST":
        return None
    return parse_const(str(node.get("name", "")))


def strip_transparent(node: Node | None) -> Node | None:
    """Skip EXTEND/CAST wrappers."""
    while node is not None and node.get("type") in TRANSPARENT_OPS:
        node = first(node, "lhsp") or first(node, "exprp") or first(node, "fromp")
    return node


def parse_range(text: str) -> tuple[int, int] | None:
    """`7:0` or `[0:31]` -> (left, right); None when not numeric."""
    match = re.match(r"^\[?\s*(-?\d+)\s*:\s*(-?\d+)\s*\]?$", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


@dataclass(frozen=True)
class TypeInfo:
    """Shape of a data type, resolved through references."""

    width: int
    """Total packed bits of one element."""
    msb: int
    """Left bound of the outermost packed range (width-1 when there is none)."""
    lsb: int
    """Right bound of the outermost packed range (0 when there is none)."""
    signed: bool
    """True for signed types."""
    unpacked: tuple[int, ...]
    """Sizes of the unpacked dimensions, outermost first."""
    name: str
    """Readable type name (`logic`, `int`, `state_t`, ...)."""
    enum_addr: str | None
    """addr of the ENUMDTYPE when the packed type is an enum."""


def type_info(addr: str | None, nodes: Mapping[str, Node], _depth: int = 0) -> TypeInfo:
    """Resolve a dtype addr (REFDTYPE, typedefs, arrays, structs) into its shape."""
    unknown = TypeInfo(1, 0, 0, False, (), "", None)
    node = nodes.get(addr or "")
    if node is None or _depth > 64:
        return unknown
    kind = node.get("type", "")
    if kind == "BASICDTYPE":
        keyword = str(node.get("keyword", node.get("name", "")))
        rng = parse_range(str(node.get("range", "")))
        if rng is not None:
            width = abs(rng[0] - rng[1]) + 1
            return TypeInfo(width, rng[0], rng[1], bool(node.get("signed")), (), keyword, None)
        width = BASIC_WIDTHS.get(keyword, 1)
        signed = bool(node.get("signed")) or keyword in ("byte", "shortint", "int", "integer", "longint")
        return TypeInfo(width, max(width - 1, 0), 0, signed, (), keyword, None)
    if kind in ("REFDTYPE", "ENUMDTYPE", "MEMBERDTYPE", "PARAMTYPEDTYPE", "TYPEDEF"):
        ref = _ref_addr(node, addr)
        inner = type_info(ref, nodes, _depth + 1)
        name = str(node.get("name", "")) or inner.name
        if kind == "ENUMDTYPE":
            return TypeInfo(inner.width, inner.msb, inner.lsb, inner.signed, inner.unpacked,
                            name.split(".")[-1], str(addr))
        if kind == "REFDTYPE":
            return TypeInfo(inner.width, inner.msb, inner.lsb, inner.signed, inner.unpacked,
                            name, inner.enum_addr)
        return inner
    if kind in ("PACKARRAYDTYPE", "UNPACKARRAYDTYPE"):
        rng = parse_range(str(node.get("declRange", ""))) or (0, 0)
        size = abs(rng[0] - rng[1]) + 1
        inner = type_info(node.get("refDTypep"), nodes, _depth + 1)
        if kind == "UNPACKARRAYDTYPE":
            return TypeInfo(inner.width, inner.msb, inner.lsb, inner.signed,
                            (size, *inner.unpacked), inner.name, inner.enum_addr)
        width = size * inner.width
        return TypeInfo(width, width - 1, 0, inner.signed, inner.unpacked, inner.name, None)
    if kind in ("STRUCTDTYPE", "UNIONDTYPE"):
        widths = [type_info(m.get("dtypep"), nodes, _depth + 1).width for m in kids(node, "membersp")]
        width = (sum(widths) if kind == "STRUCTDTYPE" else max(widths, default=1)) or 1
        return TypeInfo(width, width - 1, 0, False, (), str(node.get("name", "")).split("::")[-1], None)
    return unknown


def _ref_addr(node: Node, addr: str | None) -> str | None:
    """The dtype a reference-like dtype node points at (never itself)."""
    for key in ("refDTypep", "dtypep"):
        value = node.get(key)
        if isinstance(value, str) and value not in ("UNLINKED", addr):
            return value
    child = first(node, "childDTypep")
    return str(child["addr"]) if child and "addr" in child else None


def enum_values(addr: str, nodes: Mapping[str, Node]) -> tuple[int, ...]:
    """Values of an ENUMDTYPE's items, in declaration order."""
    node = nodes.get(addr)
    if node is None:
        return ()
    values = []
    for item in kids(node, "itemsp"):
        const = const_of(first(item, "valuep"))
        if const is not None:
            values.append(const.value)
    return tuple(values)


def varrefs(node: Node | None) -> Iterator[Node]:
    """Every VARREF in a subtree."""
    if node is None:
        return
    for n in walk(node):
        if n.get("type") == "VARREF":
            yield n


def render(node: Node | None, nodes: Mapping[str, Node] | None = None, _depth: int = 0) -> str:
    """Readable Verilog-like text of an expression; '' when some node is not understood.

    `nodes` (the tree's index) lets one-bit `~x` render as `!x`.
    """
    if node is None or _depth > 200:
        return ""
    kind = node.get("type", "")
    lhs, rhs = first(node, "lhsp"), first(node, "rhsp")
    if kind in ("VARREF", "VARXREF"):
        return str(node.get("name", ""))
    if kind == "CONST":
        return _render_const(str(node.get("name", "")))
    if kind in TRANSPARENT_OPS:
        return render(strip_transparent(node), nodes, _depth + 1)
    if kind in BINARY_OPS and lhs is not None and rhs is not None:
        left, right = render(lhs, nodes, _depth + 1), render(rhs, nodes, _depth + 1)
        if not left or not right:
            return ""
        if kind in COMPARE_OPS and lhs.get("type") == "CONST" and rhs.get("type") != "CONST":
            # Verilator puts the constant first; the source almost always had it second.
            flipped = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
            op = BINARY_OPS[kind]
            return f"{right} {flipped.get(op, op)} {left}"
        return f"{_paren(lhs, left)} {BINARY_OPS[kind]} {_paren(rhs, right)}"
    if kind in UNARY_OPS and lhs is not None:
        inner = render(lhs, nodes, _depth + 1)
        if not inner:
            return ""
        one_bit = nodes is not None and type_info(node.get("dtypep"), nodes).width == 1
        op = "!" if kind == "NOT" and one_bit else UNARY_OPS[kind]
        return f"{op}{_paren(lhs, inner)}"
    if kind == "COND":
        parts = [render(first(node, k), nodes, _depth + 1) for k in ("condp", "thenp", "elsep")]
        return f"{parts[0]} ? {parts[1]} : {parts[2]}" if all(parts) else ""
    if kind == "SEL":
        base = render(first(node, "fromp"), nodes, _depth + 1)
        low = const_of(first(node, "lsbp"))
        width = node.get("widthConst")
        if not base:
            return ""
        if low is not None and isinstance(width, int | str) and str(width).isdigit():
            high = low.value + int(width) - 1
            return f"{base}[{high}]" if int(width) == 1 else f"{base}[{high}:{low.value}]"
        index_text = render(first(node, "lsbp"), nodes, _depth + 1)
        return f"{base}[{index_text}]" if index_text else ""
    if kind == "ARRAYSEL":
        base, bit = render(first(node, "fromp"), nodes, _depth + 1), render(first(node, "bitp"), nodes, _depth + 1)
        return f"{base}[{bit}]" if base and bit else ""
    if kind == "CONCAT" and lhs is not None and rhs is not None:
        left, right = render(lhs, nodes, _depth + 1), render(rhs, nodes, _depth + 1)
        return f"{{{left}, {right}}}" if left and right else ""
    if kind == "REPLICATE":
        src, count = render(first(node, "srcp"), nodes, _depth + 1), render(first(node, "countp"), nodes, _depth + 1)
        return f"{{{count}{{{src}}}}}" if src and count else ""
    if kind == "FUNCREF":
        args = [render(first(a, "exprp"), nodes, _depth + 1) for a in kids(node, "argsp")]
        return f"{node.get('name', '')}({', '.join(args)})" if all(args) else ""
    return ""


def _paren(node: Node, text: str) -> str:
    """Parenthesise compound operands."""
    simple = node.get("type") in ("VARREF", "CONST", "SEL", "ARRAYSEL", "CONCAT", "FUNCREF", "REPLICATE")
    return text if simple else f"({text})"


def _render_const(text: str) -> str:
    """A literal as Verilog: decimal for small unsigned values, else the original form."""
    const = parse_const(text)
    if const is None:
        return text
    if const.wildcard:
        return text.replace("'s", "'")
    if const.signed and const.width and const.value >> (const.width - 1):
        negative = const.value - (1 << const.width)
        return str(negative) if const.width == 32 else f"-{const.width}'sd{-negative}"
    if const.signed and const.width == 32:
        return str(const.value)
    return f"{const.width}'d{const.value}" if const.value < 1 << 16 else f"{const.width}'h{const.value:x}"
