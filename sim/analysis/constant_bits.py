"""Bits of a design's variables that can never change, from Verilator's elaborated tree (pure).

A 5-input GPIO core zero-extends its inputs into 32-bit words; an AXI-Stream FIFO built
without TID drives `tid` with a constant. Their toggle points can never be covered. A bit is
proven constant when every write to its variable (continuous assigns, procedural
assignments in any block, port connections into a submodule) gives it the same constant —
literals, zero/sign extension, concatenation, selects, `&`/`|` with literals, `?:` with
equal arms, or another variable's proven-constant bits — or when nothing ever writes it.
Anything not understood (a dynamic index, an array, an unknown operator) makes the whole
variable unknown, so every claim stays sound.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from sim.analysis import ast_json as ast
from sim.analysis.ast_json import Node
from sim.analysis.netlist import pin_connections

MAX_ROUNDS = 32
"""Fixpoint rounds (each lets constness flow one more assignment down a chain)."""

MAX_WIDTH = 4096
"""Widest variable analysed."""


@dataclass(frozen=True)
class Known:
    """Which bits of a value are known, and their values."""

    mask: int
    """Known bits."""
    value: int
    """Their values (only bits under `mask` mean anything)."""

    def meet(self, other: Known) -> Known:
        """Bits known, and equal, in both."""
        same = self.mask & other.mask & ~(self.value ^ other.value)
        return Known(same, self.value & same)


UNKNOWN = Known(0, 0)
"""Nothing known."""


def _all(width: int) -> int:
    return (1 << width) - 1


class _Analysis:
    """One fixpoint over a tree's writes."""

    def __init__(self, tree: Node) -> None:
        self.nodes = ast.index(tree)
        """addr -> node."""
        self.widths: dict[str, int] = {}
        """VAR addr -> packed width (plain vectors only)."""
        self.writes: dict[str, list[tuple[int, int, Node | None]]] = {}
        """VAR addr -> (lsb, width, value expression or None when not understood)."""
        self.known: dict[str, Known] = {}
        """VAR addr -> proven-constant bits so far."""
        self.inputs: set[str] = set()
        """Top-level input VARs (driven from outside: never constant)."""
        self.handled: set[int] = set()
        """ids of the VARREF nodes recorded as assignment targets."""
        self._collect(tree)

    def _width(self, node: Node) -> int:
        return max(1, ast.type_info(node.get("dtypep"), self.nodes).width)

    def _collect(self, tree: Node) -> None:
        modules = [m for m in ast.kids(tree, "modulesp") if m.get("type") == "MODULE"]
        ports: set[str] = set()
        for module in modules:
            for node in ast.walk(module):
                if node.get("type") == "VAR" and not node.get("isParam"):
                    info = ast.type_info(node.get("dtypep"), self.nodes)
                    if not info.unpacked and info.width <= MAX_WIDTH:
                        self.widths[str(node["addr"])] = max(1, info.width)
                    if node.get("direction") in ("INPUT", "INOUT"):
                        ports.add(str(node["addr"]))
                    if ast.first(node, "valuep") is not None:  # `reg r = 1;`: an initial write
                        self._write({"type": "VARREF", "varp": node["addr"]}, ast.first(node, "valuep"))
        driven: set[str] = set()
        for module in modules:
            for node in ast.walk(module):
                kind = node.get("type")
                if kind in ("ASSIGNW", "ASSIGN", "ASSIGNDLY"):
                    self._write(ast.first(node, "lhsp"), ast.first(node, "rhsp"))
                elif kind == "CELL":
                    for child, expr in pin_connections(node, self.nodes):
                        if child.get("direction") in ("INPUT", "INOUT"):
                            driven.add(str(child["addr"]))
                            self._write({"type": "VARREF", "varp": child["addr"]}, expr)
                        if child.get("direction") in ("OUTPUT", "INOUT"):
                            self._write(expr, {"type": "VARREF", "varp": child["addr"],
                                               "dtypep": child.get("dtypep")})
        # Inputs no instance drives are the top's: the testbench drives them.
        self.inputs = ports - driven
        # Anything else that writes a variable (a task's output argument, a system task,
        # force/release) makes it unknown.
        for module in modules:
            for node in ast.walk(module):
                if node.get("type") == "VARREF" and node.get("access") in ("WR", "RW") \
                        and id(node) not in self.handled:
                    self.writes.setdefault(str(node["varp"]), []).append((0, 0, None))

    def _write(self, lhs: Node | None, rhs: Node | None) -> None:
        """Record one assignment (a target this does not understand poisons its variables)."""
        target = ast.strip_transparent(lhs)
        if target is None:
            return
        for ref in ast.varrefs(target):
            self.handled.add(id(ref))
        if target.get("type") == "VARREF":
            var = str(target["varp"])
            self.writes.setdefault(var, []).append((0, self.widths.get(var, 0), rhs))
            return
        if target.get("type") == "SEL":
            base = ast.strip_transparent(ast.first(target, "fromp"))
            low = ast.const_of(ast.first(target, "lsbp"))
            width = int(target.get("widthConst") or 0)
            if base is not None and base.get("type") == "VARREF" and low is not None and width:
                self.writes.setdefault(str(base["varp"]), []).append((low.value, width, rhs))
                return
        for ref in ast.varrefs(target):  # a dynamic index, a concatenation target, an array element
            self.writes.setdefault(str(ref["varp"]), []).append((0, 0, None))

    def evaluate(self, node: Node | None, width: int) -> Known:
        """Known bits of an expression, as a `width`-bit value."""
        if node is None:
            return UNKNOWN
        kind = node.get("type", "")
        full = _all(width)
        if kind == "CONST":
            const = ast.parse_const(str(node.get("name", "")))
            if const is None or const.wildcard:
                return UNKNOWN
            return Known(full, const.value & full)
        if kind == "VARREF":
            got = self.known.get(str(node.get("varp", "")), UNKNOWN)
            return Known(got.mask & full, got.value & full)
        inner = ast.first(node, "lhsp")
        if kind in ("EXTEND", "EXTENDS") and inner is not None:
            w = self._width(inner)
            sub = self.evaluate(inner, w)
            upper = full & ~_all(w)
            if kind == "EXTEND":
                return Known(sub.mask | upper, sub.value)
            sign = 1 << (w - 1)
            if sub.mask & sign:
                return Known(sub.mask | upper, sub.value | (upper if sub.value & sign else 0))
            return Known(sub.mask & _all(w), sub.value & _all(w))
        if kind in ("CCAST", "CAST", "SIGNED", "UNSIGNED") and inner is not None:
            return self.evaluate(inner, width)
        if kind == "CONCAT":
            hi, lo = ast.first(node, "lhsp"), ast.first(node, "rhsp")
            if hi is None or lo is None:
                return UNKNOWN
            wl = self._width(lo)
            a, b = self.evaluate(hi, self._width(hi)), self.evaluate(lo, wl)
            return Known(((a.mask << wl) | b.mask) & full, ((a.value << wl) | b.value) & full)
        if kind == "SEL":
            low = ast.const_of(ast.first(node, "lsbp"))
            base = ast.first(node, "fromp")
            if low is None or base is None:
                return UNKNOWN
            sub = self.evaluate(base, self._width(base))
            return Known((sub.mask >> low.value) & full, (sub.value >> low.value) & full)
        if kind in ("AND", "OR"):
            a, b = self.evaluate(inner, width), self.evaluate(ast.first(node, "rhsp"), width)
            if kind == "AND":
                zeros = (a.mask & ~a.value) | (b.mask & ~b.value)
                both = a.mask & b.mask
                return Known((zeros | both) & full, a.value & b.value & both)
            ones = (a.mask & a.value) | (b.mask & b.value)
            both = a.mask & b.mask
            mask = (ones | both) & full
            return Known(mask, (ones | ((a.value | b.value) & both)) & mask)
        if kind == "COND":
            return self.evaluate(ast.first(node, "thenp"), width).meet(self.evaluate(ast.first(node, "elsep"), width))
        return UNKNOWN

    def solve(self) -> dict[str, Known]:
        """Proven-constant bits of every analysed variable."""
        for _ in range(MAX_ROUNDS):
            changed = False
            for var, width in self.widths.items():
                if var in self.inputs:
                    continue
                got = self._var(var, width)
                if got != self.known.get(var, UNKNOWN):
                    self.known[var] = got
                    changed = True
            if not changed:
                break
        return self.known

    def _var(self, var: str, width: int) -> Known:
        """Bits every write of `var` sets to the same constant (unwritten bits keep theirs)."""
        writes = self.writes.get(var, [])
        if any(rhs is None or w == 0 for _, w, rhs in writes):
            return UNKNOWN
        result: Known | None = None
        for lsb, w, rhs in writes:
            part = self.evaluate(rhs, w)
            placed_mask = _all(width) & ~(_all(w) << lsb) | ((part.mask << lsb) & _all(width))
            placed = Known(placed_mask, (part.value << lsb) & _all(width))
            result = placed if result is None else result.meet(placed)
        if result is None:  # never written: it keeps its initial value (0: no +verilator+rand+reset here)
            return Known(_all(width), 0)
        return result


def constant_bits(tree: Node) -> dict[tuple[str, int, str], Known]:
    """(normalised file, declaration line, name) -> bits proven constant in every copy.

    A module elaborated several times (different parameters) has one VAR per copy: a bit
    counts only when it is constant, with the same value, in all of them. Variables with no
    constant bit are listed too (mask 0), so a lookup by name sees every declaration.
    """
    meta = tree.get("meta")
    files = meta.get("files", {}) if isinstance(meta, Mapping) else {}
    names = {k: str(v.get("filename", k)) for k, v in files.items() if isinstance(v, Mapping)}
    analysis = _Analysis(tree)
    known = analysis.solve()
    out: dict[tuple[str, int, str], Known] = {}
    for var in analysis.widths:
        node = analysis.nodes[var]
        file_id, line, _ = ast.parse_loc(str(node.get("loc", "")))
        key = (os.path.normpath(names.get(file_id, file_id)), line, str(node.get("name", "")))
        got = known.get(var, UNKNOWN) if var not in analysis.inputs else UNKNOWN
        out[key] = got if key not in out else out[key].meet(got)
    return out
