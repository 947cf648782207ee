"""RTL facts over a Netlist (pure; sim.analysis.interface builds on it).

Clock and reset detection, the literals each input is compared with, FSM state values,
and every if/case/?: condition by file and line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from sim.analysis import ast_json as ast
from sim.analysis.ast_json import Node
from sim.analysis.netlist import Netlist, edge_items, simple_ref

_SKIP_CONST_KEYS = frozenset(("lsbp", "bitp", "widthp", "countp", "rangep"))
"""Child keys whose constants are indices or widths, not values worth trying."""


@dataclass(frozen=True)
class Parameter:
    """One parameter (or localparam) of the top module, as elaborated."""

    name: str
    """Parameter name."""
    value: int | str | None
    """Integer value, type/string text, or None when not a constant."""
    width: int
    """Width in bits of the parameter's type (0 for type parameters)."""
    type: str
    """Type name (`int`, `logic`, `bit`, ...), or `type` for type parameters."""
    local: bool = False
    """True for a localparam (not overridable)."""




@dataclass(frozen=True)
class Condition:
    """A decision point of the RTL: the condition of an if, a case (item) or a `?:`."""

    file: str
    """Source file as Verilator was given it (absolute for designs loaded from a suite)."""
    line: int
    """1-based line of the `if`/`case` keyword, case item, or condition of a `?:`."""
    column: int
    """1-based column."""
    kind: str
    """`if`, `case`, `case_item` or `cond` (a `?:`, or an if Verilator folded into one)."""
    signals: tuple[str, ...]
    """Top-level input ports the condition reads, directly or through combinational logic."""
    constants: tuple[int, ...]
    """Literals in the condition (compared values, case item values)."""
    text: str = ""
    """A readable rendering of the condition ('' when not renderable)."""






def _top_statements(stmts: list[Node]) -> list[Node]:
    """The statements of a block body, flattening begin/end."""
    out: list[Node] = []
    for stmt in stmts:
        if stmt.get("type") == "BEGIN":
            out.extend(_top_statements(ast.kids(stmt, "stmtsp")))
        else:
            out.append(stmt)
    return out


_Decision: TypeAlias = tuple[Node, Node, bool]
"""(condition, branch, taken when the condition is false)."""


def _decision(stmt: Node) -> list[_Decision]:
    """Branches of an if (or of the `?:` Verilator folded an if/else into).

    Both branches are returned because Verilator rewrites `if (!r) A else B` as
    `if (r) B else A`.
    """
    if stmt.get("type") == "IF" and not stmt.get("isBoundsCheck"):
        cond = ast.first(stmt, "condp")
        if cond is None:
            return []
        out: list[_Decision] = [(cond, {"type": "BEGIN", "stmtsp": ast.kids(stmt, "thensp")}, False)]
        if ast.kids(stmt, "elsesp"):
            out.append((cond, {"type": "BEGIN", "stmtsp": ast.kids(stmt, "elsesp")}, True))
        return out
    if stmt.get("type") in ("ASSIGN", "ASSIGNDLY"):
        rhs = ast.first(stmt, "rhsp")
        if rhs is not None and rhs.get("type") == "COND":
            cond = ast.first(rhs, "condp")
            if cond is None:
                return []
            return [(cond, {"type": "ASSIGNDLY", "rhsp": [part]}, key == "elsep")
                    for key in ("thenp", "elsep") if (part := ast.first(rhs, key)) is not None]
    return []


def _decisions(always: Node) -> list[_Decision]:
    """Decisions among the top-level statements of a block, first first."""
    return [d for s in _top_statements(ast.kids(always, "stmtsp")) for d in _decision(s)]


def _reset_like(name: str) -> bool:
    """Whether a port name reads as a reset (only used for synchronous resets)."""
    low = name.lower()
    return "rst" in low or "reset" in low


def _reset_test(cond: Node) -> tuple[str, bool] | None:
    """(var addr, active_low) when a condition is `r`, `!r`, `r == 0/1` or `r != 0/1`."""
    simple = simple_ref(cond)
    if simple is not None:
        return simple
    kind = cond.get("type")
    if kind in ("EQ", "NEQ", "EQCASE", "NEQCASE"):
        lhs, rhs = ast.first(cond, "lhsp"), ast.first(cond, "rhsp")
        const, other = ast.const_of(lhs), rhs
        if const is None:
            const, other = ast.const_of(rhs), lhs
        ref = simple_ref(other)
        if const is None or ref is None or const.value not in (0, 1):
            return None
        active_low = (const.value == 0) != kind.startswith("NEQ")
        return ref[0], active_low != ref[1]
    return None


def _assigns_constants(part: Node, nodes: Mapping[str, Node]) -> bool:
    """Whether every non-blocking assignment in `part` stores a constant (a reset branch)."""
    found = False
    for node in ast.walk(part):
        if node.get("type") != "ASSIGNDLY":
            continue
        found = True
        for ref in ast.varrefs(ast.first(node, "rhsp")):
            if not nodes.get(str(ref.get("varp")), {}).get("isParam"):
                return False
    return found


def _consts_in(expr: Node | None) -> list[ast.ConstValue]:
    """Literals of an expression, skipping bit indices and widths."""
    out: list[ast.ConstValue] = []
    if expr is None:
        return out
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.get("type") == "CONST":
            const = ast.parse_const(str(node.get("name", "")))
            if const is not None:
                out.append(const)
            continue
        for key, value in node.items():
            if key not in _SKIP_CONST_KEYS and isinstance(value, list):
                stack.extend(c for c in value if isinstance(c, dict))
    return out


def _fit(const: ast.ConstValue, width: int, shift: int = 0) -> int | None:
    """A literal as a value of a `width`-bit port (shifted into place); None if it can't be."""
    value = const.value
    if const.signed and const.width and value >> (const.width - 1):
        value -= 1 << const.width
    value <<= shift
    mask = (1 << width) - 1 if width > 0 else -1
    if value < 0:
        return value & mask
    return value if value <= mask else None


def _int_value(const: ast.ConstValue) -> int:
    """The integer a literal denotes (negative for signed literals with the top bit set)."""
    if const.signed and const.width and const.value >> (const.width - 1):
        return const.value - (1 << const.width)
    return const.value


class Collector:
    """Accumulates constants, FSM facts and conditions over the hierarchy."""

    def __init__(self, net: Netlist) -> None:
        self.net = net
        """The indexed design."""
        self.port_values: dict[str, set[int]] = {}
        """Input port -> fitted literals."""
        self.all_values: set[int] = set()
        """Every compared/case literal."""
        self.var_values: dict[str, set[int]] = {}
        """VAR addr -> literals it is compared with, case-matched against or assigned."""
        self.case_subjects: set[str] = set()
        """VARs that are the subject of a case."""
        self.next_of: dict[str, set[str]] = {}
        """VAR addr -> VARs whose value it takes (state <= next_state)."""
        self.conditions: list[Condition] = []
        """Decision points found."""
        self._port_width = {
            str(v["name"]): net.type_of(v).width for v in net.top_ports
        }

    def run(self) -> None:
        """Visit every module of the hierarchy once."""
        for module in self.net.module_order:
            for node in ast.walk(module):
                kind = node.get("type")
                if kind in ast.COMPARE_OPS:
                    self._compare(node)
                elif kind == "CASE":
                    self._case(node)
                elif kind == "IF" and not node.get("isBoundsCheck"):
                    self._condition(node, ast.first(node, "condp"), "if", node)
                elif kind == "COND":
                    cond = ast.first(node, "condp")
                    self._condition(cond or node, cond, "cond", node)
                elif kind in ("ASSIGN", "ASSIGNDLY", "ASSIGNW"):
                    self._assign(node)

    def _record(self, subject: Node | None, const: ast.ConstValue) -> None:
        """Attribute a literal compared with / matched against `subject`."""
        self.all_values.add(const.value)
        base = ast.strip_transparent(subject)
        shift = 0
        if base is not None and base.get("type") == "SEL":
            low = ast.const_of(ast.first(base, "lsbp"))
            inner = ast.strip_transparent(ast.first(base, "fromp"))
            if low is not None and inner is not None and inner.get("type") == "VARREF":
                shift, base = low.value, inner
        if base is not None and base.get("type") == "VARREF":
            var = str(base["varp"])
            self.var_values.setdefault(var, set()).add(const.value)
            alias = self.net.alias.get(var)
            if alias is not None and not alias[1]:
                self._add_port_value(alias[0], const, shift)
                return
            part = self.net.slices.get(var)
            if part is not None:
                self._add_port_value(part[0], const, shift + part[1])
                return
        for port in self.net.signals(subject):
            self._add_port_value(port, const, 0)

    def _add_port_value(self, port: str, const: ast.ConstValue, shift: int) -> None:
        """Store a literal for a port if it fits the port's width."""
        value = _fit(const, self._port_width.get(port, 0), shift)
        if value is not None:
            self.port_values.setdefault(port, set()).add(value)

    def _compare(self, node: Node) -> None:
        """`a == 5`, `cnt < LIMIT`: the literal side is a value worth trying for the other."""
        lhs, rhs = ast.first(node, "lhsp"), ast.first(node, "rhsp")
        left, right = ast.const_of(lhs), ast.const_of(rhs)
        if left is not None and right is None:
            self._record(rhs, left)
        elif right is not None and left is None:
            self._record(lhs, right)

    def _case(self, node: Node) -> None:
        """A case statement: item literals are values of the subject; one condition per item."""
        subject = ast.first(node, "exprp")
        subject_signals = self.net.signals(subject)
        subject_text = ast.render(subject, self.net.nodes)
        simple = ast.strip_transparent(subject)
        if simple is not None and simple.get("type") == "VARREF":
            self.case_subjects.add(str(simple["varp"]))
        all_consts: list[int] = []
        for item in ast.kids(node, "itemsp"):
            conds = ast.kids(item, "condsp")
            consts = []
            for cond in conds:
                const = ast.const_of(cond)
                if const is not None:
                    self._record(subject, const)
                    consts.append(const.value)
                else:
                    consts.extend(c.value for c in _consts_in(cond))
            all_consts.extend(consts)
            signals = subject_signals | frozenset().union(*(self.net.signals(c) for c in conds))
            if conds:
                items = [ast.render(c, self.net.nodes) for c in conds]
                text = f"{subject_text} == {' | '.join(items)}" if subject_text and all(items) else ""
            else:
                text = f"{subject_text} default" if subject_text else "default"
            file, line, column = self.net.location(item)
            self.conditions.append(Condition(file, line, column, "case_item", self.net.ordered(signals),
                                             tuple(sorted(set(consts))), text))
        file, line, column = self.net.location(node)
        self.conditions.append(Condition(file, line, column, "case", self.net.ordered(subject_signals),
                                         tuple(sorted(set(all_consts))), subject_text))

    def _condition(self, at: Node, cond: Node | None, kind: str, node: Node) -> None:
        """An if or ?: condition."""
        if cond is None:
            return
        file, line, column = self.net.location(at)
        consts = tuple(sorted({c.value for c in _consts_in(cond)}))
        self.conditions.append(Condition(file, line, column, kind, self.net.ordered(self.net.signals(cond)),
                                         consts, ast.render(cond, self.net.nodes)))

    def _assign(self, node: Node) -> None:
        """`state <= S1` / `state <= next_state`: remember assigned literals and sources."""
        lhs = ast.strip_transparent(ast.first(node, "lhsp"))
        if lhs is None or lhs.get("type") != "VARREF":
            return
        var = str(lhs["varp"])
        stack = [ast.first(node, "rhsp")]
        while stack:
            rhs = ast.strip_transparent(stack.pop())
            if rhs is None:
                continue
            if rhs.get("type") == "COND":
                stack.extend((ast.first(rhs, "thenp"), ast.first(rhs, "elsep")))
            elif rhs.get("type") == "CONST":
                const = ast.parse_const(str(rhs.get("name", "")))
                if const is not None:
                    self.var_values.setdefault(var, set()).add(const.value)
            elif rhs.get("type") == "VARREF":
                self.next_of.setdefault(var, set()).add(str(rhs["varp"]))

    def fsm_states(self) -> dict[str, tuple[int, ...]]:
        """State registers -> values: enum items, or case/compare/assigned literals."""
        net = self.net
        top_vars = {v["addr"] for v in net.top_ports}
        out: dict[str, tuple[int, ...]] = {}
        candidates = sorted(net.registers | self.case_subjects, key=net.hier_name)
        for var in candidates:
            node = net.nodes.get(var)
            if node is None or var in top_vars or node.get("isParam"):
                continue
            info = net.type_of(node)
            if info.enum_addr is not None and var in net.registers:
                values = set(ast.enum_values(info.enum_addr, net.nodes))
            elif var in self.case_subjects and var in net.registers and not info.unpacked:
                values = set(self.var_values.get(var, set()))
                for src in self.next_of.get(var, set()):
                    values |= self.var_values.get(src, set())
                limit = (1 << info.width) - 1
                values = {v for v in values if v <= limit}
            else:
                continue
            if values:
                out[net.hier_name(var)] = tuple(sorted(values))
        return out


def _first_statement(branch: Node) -> list[Node]:
    """The first statement of a decision's branch (the branch itself when Verilator made it a `?:` arm)."""
    if branch.get("type") == "BEGIN":
        return _top_statements(ast.kids(branch, "stmtsp"))[:1]
    return [branch]


def _sync_resets(net: Netlist, decisions: list[_Decision]) -> list[tuple[str, bool]]:
    """(top input, active_low) of each decision that reads as a synchronous reset.

    An `if (rst)` on a one-bit input named like a reset whose branch only loads constants.
    """
    out = []
    for cond, then, negated in decisions:
        test = _reset_test(cond)
        if test is None or not _assigns_constants(then, net.nodes):
            continue
        target = net.alias.get(test[0])
        if target is None or not _reset_like(target[0]):
            continue
        if net.type_of(net.nodes[test[0]]).width == 1:
            out.append((target[0], (test[1] != target[1]) != negated))
    return out


def clock_reset_facts(net: Netlist) -> tuple[list[str], dict[str, bool], list[str]]:
    """(clocks, reset -> active_low, notes) found in the RTL, as top input names.

    Clocks come most used first (by the always blocks they clock): the first is the one a
    testbench steps by and answers the design's ports on (a core's `clk`, not the
    `clk_always_on` of its power controller).
    """
    clocks: list[str] = []
    uses: dict[str, int] = {}
    resets: dict[str, bool] = {}
    notes: list[str] = []
    sync: dict[str, bool] = {}

    def port_of(expr: Node) -> tuple[str, bool] | None:
        ref = simple_ref(expr)
        return net.alias.get(ref[0]) if ref is not None else None

    for module in net.module_order:
        for node in ast.walk(module):
            if node.get("type") != "ALWAYS":
                continue
            items = edge_items(node)
            if not items:
                continue
            decisions = _decisions(node)
            first_cond = decisions[0][0] if decisions else None
            cond_vars = {r["varp"] for r in ast.varrefs(first_cond)}
            edges = []
            for expr, neg in items:
                ref = simple_ref(expr)
                edges.append((ref, neg, port_of(expr)))
            in_cond = [e for e in edges if e[0] is not None and e[0][0] in cond_vars]
            if len(edges) >= 2:
                named = [e for e in edges if e[2] is not None and _reset_like(e[2][0])]
                if not in_cond and named and len(named) < len(edges):
                    # No reset named in the first if (Verilator folded `if (!rst) q <= 0;
                    # else q <= d` into `q <= rst & d`): the item named like a reset.
                    in_cond = named
                elif not in_cond or len(in_cond) == len(edges):
                    # Else take the first item as the clock.
                    in_cond = edges[1:] if not in_cond else in_cond[1:]
                for ref, neg, port in edges:
                    if port is None:
                        continue
                    if any(ref == e[0] for e in in_cond):
                        # `ref` inversion is already inside `port`; the edge gives the polarity.
                        resets.setdefault(port[0], neg != port[1])
                    else:
                        uses[port[0]] = uses.get(port[0], 0) + 1
                        if port[0] not in clocks:
                            clocks.append(port[0])
                # A synchronous reset under the asynchronous one (`if (!arst) ... else if
                # (rst) ...`, OpenCores' i2c): the first if inside the first if's branches.
                inner = [d for _, branch, _ in decisions[:2] for s in _first_statement(branch) for d in _decision(s)]
                for name, low in _sync_resets(net, inner):
                    sync.setdefault(name, low)
                continue
            ref, _neg, port = edges[0]
            if port is not None:
                uses[port[0]] = uses.get(port[0], 0) + 1
                if port[0] not in clocks:
                    clocks.append(port[0])
            # Synchronous reset: an `if (rst)` among the block's top-level statements whose
            # branch only loads constants (forencich puts it last, most code first).
            for name, low in _sync_resets(net, decisions):
                sync.setdefault(name, low)
    for name, low in sync.items():
        if name not in clocks:
            resets.setdefault(name, low)
    for name in list(resets):
        if name in clocks:
            notes.append(f"'{name}' is used both as a clock and as a reset")
    clocks.sort(key=lambda c: -uses.get(c, 0))  # stable: ties keep the order they were met in
    return clocks, resets, notes


def top_parameters(net: Netlist) -> tuple[Parameter, ...]:
    """Parameters, localparams and type parameters of the top."""
    params = []
    for node in ast.kids(net.top, "stmtsp"):
        kind = node.get("type")
        if kind == "VAR" and node.get("isParam"):
            info = net.type_of(node)
            value_node = ast.first(node, "valuep")
            const = ast.const_of(value_node)
            value: int | str | None
            if const is not None:
                value = _int_value(const)
            elif value_node is not None and value_node.get("type") == "CONST":
                value = str(value_node.get("name", "")).strip('"')
            else:
                value = None
            params.append(Parameter(str(node["name"]), value, info.width,
                                    str(node.get("dtypeName") or info.name),
                                    node.get("varType") == "LPARAM"))
        elif kind == "PARAMTYPEDTYPE":
            info = ast.type_info(node.get("dtypep"), net.nodes)
            params.append(Parameter(str(node["name"]), info.name or None, 0, "type",
                                    node.get("varType") == "LPARAM"))
    return tuple(params)
