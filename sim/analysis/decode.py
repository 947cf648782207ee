"""Decoder slices: the bit fields of an input word the design compares with constants (pure).

A CPU decodes the instruction word it fetched (`mem_rdata`) by comparing slices of it, or of
registers and wires copied from it, with constants: `mem_rdata_latched[6:0] == 7'b0110111`,
`mem_rdata_q[14:12] == 3'b000`, `case (insn[31:25])`. A memory model that answers fetches
with random words mostly feeds the CPU illegal instructions (it traps and stops); words whose
slices take those constants decode. `input_slices` finds, for every wide input, the
(lsb, width, values) of such slices: on the input itself, and on same-width variables whose
value comes from it within a few register stages (`write_ports.upstream_inputs`).
"""

from __future__ import annotations

from collections.abc import Mapping

from sim.analysis import ast_json as ast
from sim.analysis.ast_json import Node
from sim.analysis.netlist import Netlist

MIN_INPUT_BITS = 8
"""Inputs narrower than this have no interesting slices (their palette covers them)."""

MAX_VALUES = 32
"""Most constants kept per slice."""

MAX_SLICES = 16
"""Most slices kept per input (widest value sets first)."""

Slices = tuple[tuple[int, int, tuple[int, ...]], ...]
"""(lsb, width, values) of the slices of one input."""


def _subject(net: Netlist, expr: Node | None) -> tuple[str, int, int] | None:
    """(var addr, lsb, width) when `expr` is `v[msb:lsb]` with constant bounds, or a whole `v`."""
    expr = ast.strip_transparent(expr)
    if expr is None:
        return None
    if expr.get("type") == "VARREF":
        return str(expr["varp"]), 0, net.type_of(expr).width
    if expr.get("type") != "SEL":
        return None
    low = ast.const_of(ast.first(expr, "lsbp"))
    base = ast.strip_transparent(ast.first(expr, "fromp"))
    if low is None or base is None or base.get("type") != "VARREF":
        return None
    return str(base["varp"]), low.value, net.type_of(expr).width


def compared_slices(net: Netlist) -> dict[str, dict[tuple[int, int], set[int]]]:
    """Var addr -> (lsb, width) -> constants an `==`/`!=` or a case item compares that slice with."""
    out: dict[str, dict[tuple[int, int], set[int]]] = {}

    def note(subject: Node | None, const: ast.ConstValue | None) -> None:
        found = _subject(net, subject)
        if found is None or const is None or found[2] <= 0:
            return
        var, lsb, width = found
        out.setdefault(var, {}).setdefault((lsb, width), set()).add(const.value & ((1 << width) - 1))

    for module in net.module_order:
        for node in ast.walk(module):
            kind = node.get("type")
            if kind in ("EQ", "NEQ", "EQCASE", "NEQCASE"):
                lhs, rhs = ast.first(node, "lhsp"), ast.first(node, "rhsp")
                if ast.const_of(lhs) is not None:
                    note(rhs, ast.const_of(lhs))
                elif ast.const_of(rhs) is not None:
                    note(lhs, ast.const_of(rhs))
            elif kind == "CASE":
                subject = ast.first(node, "exprp")
                for item in ast.kids(node, "itemsp"):
                    for cond in ast.kids(item, "condsp"):
                        note(subject, ast.const_of(cond))
    return out


def input_slices(net: Netlist, upstream: Mapping[str, tuple[str, ...]]) -> dict[str, Slices]:
    """Wide input -> the compared slices of it and of same-width variables fed from it."""
    inputs = {str(v["name"]): net.type_of(v).width for v in net.top_ports if v.get("direction") == "INPUT"}
    compared = compared_slices(net)
    merged: dict[str, dict[tuple[int, int], set[int]]] = {}
    for var, slices in compared.items():
        node = net.nodes.get(var, {})
        name = str(node.get("name", ""))
        width = net.type_of(node).width if node else 0
        sources = {name} if name in inputs else set(upstream.get(name, ()))
        for port in sources:
            if inputs.get(port, 0) < MIN_INPUT_BITS or inputs[port] != width:
                continue
            for (lsb, bits), values in slices.items():
                if bits < width:  # a whole-word compare is a palette value, not a field
                    merged.setdefault(port, {}).setdefault((lsb, bits), set()).update(values)
    out: dict[str, Slices] = {}
    for port, slices in merged.items():
        ranked = sorted(slices.items(), key=lambda kv: (-len(kv[1]), kv[0]))[:MAX_SLICES]
        out[port] = tuple((lsb, bits, tuple(sorted(values))[:MAX_VALUES]) for (lsb, bits), values in
                          sorted(ranked, key=lambda kv: kv[0]))
    return out


# ---------------------------------------------------------------------------- templates

MAX_TEMPLATES = 96
"""Most instruction templates kept per input."""

Template = tuple[tuple[int, int, int], ...]
"""(lsb, width, value) constraints one decoded instruction puts on the word, sorted by lsb."""

_Constraint = tuple[str, int, int, int]
"""(var addr, lsb, width, value)."""


def _mask_runs(mask: int, width: int) -> list[tuple[int, int]]:
    """(lsb, width) of each run of set bits in `mask` (`0xfe00707f` -> bits 0-6, 12-14, 25-31)."""
    runs, bit = [], 0
    while bit < width:
        if mask >> bit & 1:
            start = bit
            while bit < width and mask >> bit & 1:
                bit += 1
            runs.append((start, bit - start))
        else:
            bit += 1
    return runs


def _masked(net: Netlist, expr: Node | None, value: int) -> list[list[_Constraint]] | None:
    """The constraints of `(v & MASK) == K`: one (lsb, width, value) per run of the mask's bits.

    Decoders written with mask/match pairs (`(opcode & 32'hfe00707f) == 32'h33`) compare a
    masked word, not a slice.
    """
    expr = ast.strip_transparent(expr)
    if expr is None or expr.get("type") != "AND":
        return None
    mask, other = ast.const_of(ast.first(expr, "lhsp")), ast.first(expr, "rhsp")
    if mask is None:
        mask, other = ast.const_of(other), ast.first(expr, "lhsp")
    found = _subject(net, other)
    if mask is None or found is None or found[2] <= 0 or value & ~mask.value:
        return None
    var, base, width = found
    runs = _mask_runs(mask.value, width)
    if not runs:
        return None
    return [[(var, base + lsb, size, value >> lsb & ((1 << size) - 1)) for lsb, size in runs]]


def _leaf(net: Netlist, leaf: Node, flags: Mapping[str, list[list[_Constraint]]]) -> list[list[_Constraint]] | None:
    """Alternatives of constraints a term stands for: `v[a:b] == K`, `(v & M) == K`, `!v[a:b]`, a flag."""
    kind = leaf.get("type")
    if kind in ("EQ", "EQCASE"):
        lhs, rhs = ast.first(leaf, "lhsp"), ast.first(leaf, "rhsp")
        const, other = ast.const_of(lhs), rhs
        if const is None:
            const, other = ast.const_of(rhs), lhs
        if const is not None and (masked := _masked(net, other, const.value)) is not None:
            return masked
        found = _subject(net, other)
        if const is None or found is None or found[2] <= 0:
            return None
        return [[(found[0], found[1], found[2], const.value & ((1 << found[2]) - 1))]]
    if kind == "LOGNOT":
        found = _subject(net, ast.first(leaf, "lhsp"))
        return [[(found[0], found[1], found[2], 0)]] if found is not None and found[2] > 0 else None
    if kind == "VARREF":
        return flags.get(str(leaf["varp"]))
    return None


def _options(net: Netlist, expr: Node | None, flags: Mapping[str, list[list[_Constraint]]],
             depth: int = 0) -> list[list[_Constraint]]:
    """The constraint sets an `&&`/`||` expression can be satisfied by (unconstrained terms add nothing)."""
    expr = ast.strip_transparent(expr)
    if expr is None or depth > 12:
        return [[]]
    kind = expr.get("type")
    if kind == "LOGOR":
        return (_options(net, ast.first(expr, "lhsp"), flags, depth + 1)
                + _options(net, ast.first(expr, "rhsp"), flags, depth + 1))[:64]
    if kind in ("LOGAND", "AND") and net.type_of(expr).width == 1:
        left = _options(net, ast.first(expr, "lhsp"), flags, depth + 1)
        right = _options(net, ast.first(expr, "rhsp"), flags, depth + 1)
        return [a + b for a in left for b in right][:64]
    return _leaf(net, expr, flags) or [[]]


def _templates_of(net: Netlist, expr: Node | None, flags: Mapping[str, list[list[_Constraint]]]) -> list[list[_Constraint]]:
    """Every non-empty constraint set the expression can be satisfied by."""
    return [o for o in _options(net, expr, flags) if o]


def _assignments(net: Netlist) -> list[tuple[Node, Node | None]]:
    """(left-hand side, right-hand side) of every assignment, and (None-like, condition) of every if."""
    out: list[tuple[Node, Node | None]] = []
    for module in net.module_order:
        for node in ast.walk(module):
            kind = node.get("type")
            if kind in ("ASSIGN", "ASSIGNDLY", "ASSIGNW"):
                out.append((ast.first(node, "lhsp") or {}, ast.first(node, "rhsp")))
            elif kind == "IF":
                out.append(({}, ast.first(node, "condp")))
    return out


def input_templates(net: Netlist, upstream: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[Template, ...]]:
    """Wide input -> the constraint sets its decoder recognises (`opcode == 0x63 && funct3 == 0`).

    Flags the design decodes first (`is_branch <= word[6:0] == 7'b1100011`) are looked
    through, so a later `instr_beq <= is_branch && word[14:12] == 0` yields both fields.
    """
    pairs = _assignments(net)
    flags: dict[str, list[list[_Constraint]]] = {}
    for _ in range(2):  # flags of flags
        for lhs, rhs in pairs:
            target = ast.strip_transparent(lhs)
            if target is None or target.get("type") != "VARREF" or net.type_of(target).width != 1:
                continue
            found = _templates_of(net, rhs, flags)
            if found:
                flags[str(target["varp"])] = found[:8]
    inputs = {str(v["name"]): net.type_of(v).width for v in net.top_ports if v.get("direction") == "INPUT"}

    def port_of(var: str) -> str | None:
        node = net.nodes.get(var, {})
        name, width = str(node.get("name", "")), net.type_of(node).width if node else 0
        for port in ({name} if name in inputs else set(upstream.get(name, ()))):
            if inputs.get(port, 0) >= MIN_INPUT_BITS and inputs[port] == width:
                return port
        return None

    out: dict[str, dict[Template, None]] = {}
    for _, rhs in pairs:
        for option in _templates_of(net, rhs, flags):
            by_port: dict[str, dict[tuple[int, int], int]] = {}
            for var, lsb, width, value in option:
                port = port_of(var)
                if port is not None and width < inputs[port]:
                    by_port.setdefault(port, {})[(lsb, width)] = value
            for port, fields in by_port.items():
                template = tuple(sorted((lsb, width, value) for (lsb, width), value in fields.items()))
                out.setdefault(port, {})[template] = None
    return {port: _most_specific(found) for port, found in out.items()}


def _most_specific(found: Mapping[Template, None]) -> tuple[Template, ...]:
    """Templates no other template refines (`opcode == 0x13` goes when `opcode == 0x13 && funct3 == 0` is there)."""
    sets = [frozenset(t) for t in found]
    kept = [t for t, st in zip(found, sets, strict=True) if not any(st < other for other in sets)]
    return tuple(sorted(kept, key=lambda t: (-len(t), t)))[:MAX_TEMPLATES]
