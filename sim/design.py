"""The design interface and RTL facts, read from Verilator's `--json-only` AST (DESIGN.md §3).

`parse_interface(tree, top, hints)` is pure: ports, parameters, clocks and resets (by use in
`posedge`/`negedge` sensitivity and in the first `if` of clocked blocks, traced through the
instance hierarchy to top ports), the literals each input is compared with, FSM state values,
and every `if`/`case`/`?:` condition by file and line. `read_interface(design)` is the thin
shell: it runs `verilator --json-only` in a temporary directory and caches the result.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, TypeAlias

from sim import ast_json as ast
from sim.ast_json import Node
from sim.errors import DesignError
from sim.process import Limits, run_command
from sim.suite import Design
from sim.tools import Verilator, find_verilator, tool_env
from sim.types import Command

ALL_KEY = "*"
"""Key of `DesignInterface.constants` holding every interesting literal of the design."""

MAX_ERROR_LINES = 8
"""How many Verilator error lines a DesignError quotes."""

_DIRECTIONS = {"INPUT": "input", "OUTPUT": "output", "INOUT": "inout"}
_EDGES = {"POS": False, "NEG": True, "BOTH": False}
"""Edge sensitivity types; the value is True for negedge."""
_SKIP_CONST_KEYS = frozenset(("lsbp", "bitp", "widthp", "countp", "rangep"))
"""Child keys whose constants are indices or widths, not values worth trying."""


@dataclass(frozen=True)
class Port:
    """One port of the top module."""

    name: str
    """Port name as declared."""
    direction: str
    """`input`, `output` or `inout`."""
    width: int
    """Total packed bits (of one element, for unpacked-array ports)."""
    msb: int
    """Left bound of the packed range (width-1 when none was declared)."""
    lsb: int
    """Right bound of the packed range (0 when none was declared)."""
    signed: bool
    """True for signed ports."""
    unpacked: tuple[int, ...] = ()
    """Sizes of unpacked dimensions (e.g. `a_i[32]` -> (32,)); empty for scalar/packed ports."""
    is_clock: bool = False
    """True when the port clocks some always block (or design.toml says so)."""
    is_reset: bool = False
    """True when the port resets some always block (or design.toml says so)."""
    reset_active_low: bool | None = None
    """For a reset: True when active low; None for non-resets."""
    type_name: str = ""
    """Declared type name (`logic`, `state_t`, ...), '' when unknown."""


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


@dataclass(frozen=True)
class DesignInterface:
    """The interface and stimulus-relevant facts of an elaborated design."""

    top: str
    """Top module name."""
    ports: tuple[Port, ...]
    """Ports of the top module, in declaration order."""
    parameters: tuple[Parameter, ...] = ()
    """Parameters and localparams of the top module."""
    clocks: tuple[str, ...] = ()
    """Clock input names (design.toml hints first, then those found in the RTL)."""
    resets: tuple[tuple[str, bool], ...] = ()
    """(reset input name, active_low); design.toml hints win on polarity."""
    constants: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Input port -> literals it is compared with or case-matched against (in the port's bit
    space); `ALL_KEY` -> every compared/case literal and integer parameter value."""
    fsm_states: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """State register (hierarchical name below the top, e.g. `state`, `u_ctrl.state`) -> its
    state values (enum items, case items, compared and assigned literals)."""
    conditions: tuple[Condition, ...] = ()
    """Every if/case/case item/?: condition, sorted by file and line."""
    modules: tuple[str, ...] = ()
    """Source names of all modules in the elaborated hierarchy, top first."""
    notes: tuple[str, ...] = ()
    """Where the RTL and the hints disagree, or something could not be traced."""

    def port(self, name: str) -> Port | None:
        """The port called `name`, or None."""
        return next((p for p in self.ports if p.name == name), None)

    @property
    def inputs(self) -> tuple[Port, ...]:
        """Input ports."""
        return tuple(p for p in self.ports if p.direction == "input")

    @property
    def outputs(self) -> tuple[Port, ...]:
        """Output ports."""
        return tuple(p for p in self.ports if p.direction == "output")

    @property
    def data_inputs(self) -> tuple[Port, ...]:
        """Inputs that are neither clocks nor resets (what stimulus drives)."""
        return tuple(p for p in self.inputs if not p.is_clock and not p.is_reset)

    def conditions_at(self, file: str, line: int) -> tuple[Condition, ...]:
        """Conditions at file:line (see `conditions_at`)."""
        return conditions_at(self.conditions, file, line)


def conditions_at(conditions: Iterable[Condition], file: str, line: int) -> tuple[Condition, ...]:
    """Conditions located at `file:line`.

    `file` matches exactly or after normalisation; when no condition is in that file at all,
    conditions in a file of the same base name match (coverage tools may print relative paths).
    """
    conds = tuple(conditions)
    want = os.path.normpath(file)
    same_file = [c for c in conds if c.file == file or os.path.normpath(c.file) == want]
    if not same_file:
        base = PurePath(want).name
        same_file = [c for c in conds if PurePath(c.file).name == base]
    return tuple(c for c in same_file if c.line == line)


# ---------------------------------------------------------------------------------------
# Analysis (pure)


@dataclass
class _Block:
    """One always block as the clock/reset analysis sees it."""

    module: Node
    """Module holding the block."""
    node: Node
    """The ALWAYS node."""
    edges: list[tuple[str, bool]]
    """(var addr, negedge) of each edge sensitivity item."""


class _Netlist:
    """Indexes over one elaborated tree (built once per parse_interface call)."""

    def __init__(self, tree: Node, top: str) -> None:
        self.nodes = ast.index(tree)
        """addr -> node."""
        meta = tree.get("meta")
        files = meta.get("files", {}) if isinstance(meta, Mapping) else {}
        self.files: dict[str, str] = {
            k: str(v.get("filename", k)) for k, v in files.items() if isinstance(v, Mapping)
        }
        """File id -> file name."""
        self.top = self._find_top(tree, top)
        """The top MODULE node."""
        self.instances: dict[str, list[str]] = {}
        """Module addr -> instance path prefixes below the top ('' for the top itself)."""
        self.module_order: list[Node] = []
        """Modules of the hierarchy, top first (each once)."""
        self._walk_hierarchy(self.top, "")
        packages = [m for m in ast.kids(tree, "modulesp") if m.get("type") == "PACKAGE"]
        self.var_module: dict[str, Node] = {}
        """VAR addr -> module (or package) that declares it."""
        for module in [*self.module_order, *packages]:
            for node in ast.walk(module):
                if node.get("type") == "VAR":
                    self.var_module[node["addr"]] = module
        self.top_ports: list[Node] = [
            v for v in ast.kids(self.top, "stmtsp")
            if v.get("type") == "VAR" and v.get("direction") in _DIRECTIONS
        ]
        """VAR nodes of the top's ports, in declaration order."""
        self.port_names = [str(v["name"]) for v in self.top_ports]
        """Port names in declaration order."""
        self.deps: dict[str, frozenset[str]] = {}
        """VAR addr -> top input ports it depends on combinationally."""
        self.alias: dict[str, tuple[str, bool]] = {}
        """VAR addr -> (top input port, inverted) for pure wire connections."""
        self.slices: dict[str, tuple[str, int]] = {}
        """VAR addr -> (top input port, lsb) for wires connected to `port[msb:lsb]`."""
        self.registers: set[str] = set()
        """VAR addrs written in edge-triggered blocks."""
        self._trace()

    @staticmethod
    def _find_top(tree: Node, top: str) -> Node:
        """The top MODULE node by (original) name, else the level-1 module."""
        modules = [m for m in ast.kids(tree, "modulesp") if m.get("type") == "MODULE"]
        for module in modules:
            if top in (module.get("origName"), module.get("name")):
                return module
        level1 = [m for m in modules if m.get("level") == 1]
        if len(level1) == 1 and not top:
            return level1[0]
        names = ", ".join(str(m.get("origName", m.get("name"))) for m in modules)
        raise DesignError(f"top module '{top}' not in the elaborated design (modules: {names or 'none'})")

    def _walk_hierarchy(self, module: Node, prefix: str) -> None:
        """Record `module` at `prefix` and recurse into its cells."""
        addr = module["addr"]
        if addr not in self.instances:
            self.instances[addr] = []
            self.module_order.append(module)
        if prefix in self.instances[addr] or len(self.instances[addr]) > 64:
            return
        self.instances[addr].append(prefix)
        for cell in self._cells(module, prefix):
            child = self.nodes.get(str(cell[0].get("modp", "")))
            if child is not None and child.get("type") == "MODULE":
                self._walk_hierarchy(child, cell[1])

    @staticmethod
    def _cells(module: Node, prefix: str) -> list[tuple[Node, str]]:
        """(CELL, instance path) pairs inside a module, through generate blocks."""
        found: list[tuple[Node, str]] = []
        stack: list[tuple[Node, str]] = [(c, prefix) for c in ast.kids(module, "stmtsp")]
        while stack:
            node, path = stack.pop()
            if node.get("type") == "CELL":
                found.append((node, f"{path}.{node['name']}" if path else str(node["name"])))
            elif node.get("type") == "GENBLOCK":
                name = str(node.get("name", ""))
                inner = f"{path}.{name}" if name and path else (name or path)
                stack.extend((c, inner) for c in ast.kids(node, "itemsp"))
        return found

    def hier_name(self, var_addr: str) -> str:
        """`u_a.u_b.name` of a variable (first instance), `name` in the top."""
        var = self.nodes[var_addr]
        module = self.var_module.get(var_addr)
        paths = self.instances.get(module["addr"], []) if module is not None else []
        prefix = paths[0] if paths else ""
        return f"{prefix}.{var['name']}" if prefix else str(var["name"])

    def location(self, node: Node) -> tuple[str, int, int]:
        """(file name, line, column) of a node."""
        file_id, line, column = ast.parse_loc(str(node.get("loc", "")))
        return self.files.get(file_id, file_id), line, column

    def type_of(self, node: Node) -> ast.TypeInfo:
        """Resolved type of a VAR or expression node."""
        return ast.type_info(node.get("dtypep"), self.nodes)

    # -- dependence tracing ---------------------------------------------------------------

    def _trace(self) -> None:
        """Compute `deps`, `alias` and `registers` over the hierarchy."""
        edges: list[tuple[str, frozenset[str]]] = []
        alias_src: dict[str, tuple[str, bool]] = {}
        slice_src: dict[str, tuple[str, int]] = {}

        def connect(lhs: Node | None, rhs: Node | None, exact: bool) -> None:
            dst = _lhs_vars(lhs)
            src = frozenset(r["varp"] for r in ast.varrefs(rhs))
            for d in dst:
                edges.append((d, src))
            if exact and lhs is not None and lhs.get("type") == "VARREF":
                simple = _simple_ref(rhs)
                if simple is not None:
                    alias_src.setdefault(lhs["varp"], simple)
                part = _const_slice(rhs)
                if part is not None:
                    slice_src.setdefault(lhs["varp"], part)

        for module in self.module_order:
            for node in ast.walk(module):
                kind = node.get("type")
                if kind == "ASSIGNW":
                    connect(ast.first(node, "lhsp"), ast.first(node, "rhsp"), True)
                elif kind == "CELL":
                    for pin in ast.kids(node, "pinsp"):
                        child = self.nodes.get(str(pin.get("modVarp", "")))
                        expr = ast.first(pin, "exprp")
                        if child is None or expr is None:
                            continue
                        ref = {"type": "VARREF", "varp": child["addr"]}
                        if child.get("direction") in ("INPUT", "INOUT"):
                            connect(ref, expr, True)
                        if child.get("direction") in ("OUTPUT", "INOUT"):
                            connect(expr, ref, True)
                elif kind == "ALWAYS":
                    clocked = bool(_edge_items(node))
                    for stmt in ast.walk(node):
                        if stmt.get("type") not in ("ASSIGN", "ASSIGNDLY"):
                            continue
                        lhs = ast.first(stmt, "lhsp")
                        if clocked:
                            self.registers.update(_lhs_vars(lhs))
                        else:
                            connect(lhs, ast.first(stmt, "rhsp"), False)
        deps: dict[str, set[str]] = {
            v["addr"]: {str(v["name"])} for v in self.top_ports if v.get("direction") in ("INPUT", "INOUT")
        }
        changed = True
        rounds = 0
        while changed and rounds < 200:
            changed, rounds = False, rounds + 1
            for dst, srcs in edges:
                have = deps.setdefault(dst, set())
                before = len(have)
                for src in srcs:
                    have |= deps.get(src, set())
                changed = changed or len(have) != before
        self.deps = {k: frozenset(v) for k, v in deps.items() if v}
        for v in self.top_ports:
            if v.get("direction") in ("INPUT", "INOUT"):
                self.alias[v["addr"]] = (str(v["name"]), False)
        for var in alias_src:
            self._resolve_alias(var, alias_src, set())
        for var, (src, lsb) in slice_src.items():
            port = self.alias.get(src)
            if port is not None and not port[1]:
                self.slices[var] = (port[0], lsb)

    def _resolve_alias(self, var: str, sources: Mapping[str, tuple[str, bool]],
                       seen: set[str]) -> tuple[str, bool] | None:
        """Follow pure wire connections from `var` back to a top input port."""
        if var in self.alias:
            return self.alias[var]
        if var in seen or var not in sources:
            return None
        seen.add(var)
        src, inverted = sources[var]
        found = self._resolve_alias(src, sources, seen)
        if found is None:
            return None
        result = (found[0], found[1] != inverted)
        self.alias[var] = result
        return result

    def signals(self, expr: Node | None) -> frozenset[str]:
        """Top input ports an expression depends on."""
        out: set[str] = set()
        for ref in ast.varrefs(expr):
            out |= self.deps.get(ref["varp"], frozenset())
        return frozenset(out)

    def ordered(self, names: Iterable[str]) -> tuple[str, ...]:
        """Port names in declaration order."""
        wanted = set(names)
        return tuple(n for n in self.port_names if n in wanted)


def _lhs_vars(lhs: Node | None) -> list[str]:
    """Variables an assignment target writes (not the indices it reads)."""
    out: list[str] = []
    stack = [lhs]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        kind = node.get("type")
        if kind == "VARREF":
            out.append(str(node["varp"]))
        elif kind in ("SEL", "ARRAYSEL", "STRUCTSEL", "MEMBERSEL"):
            stack.append(ast.first(node, "fromp"))
        else:
            stack.extend(ast.children(node))
    return out


def _const_slice(expr: Node | None) -> tuple[str, int] | None:
    """(var addr, lsb) when `expr` is `v[msb:lsb]` with constant bounds."""
    expr = ast.strip_transparent(expr)
    if expr is None or expr.get("type") != "SEL":
        return None
    low = ast.const_of(ast.first(expr, "lsbp"))
    base = ast.strip_transparent(ast.first(expr, "fromp"))
    if low is None or base is None or base.get("type") != "VARREF":
        return None
    return str(base["varp"]), low.value


def _simple_ref(expr: Node | None) -> tuple[str, bool] | None:
    """(var addr, inverted) when `expr` is `v`, `~v` or `!v`."""
    expr = ast.strip_transparent(expr)
    inverted = False
    while expr is not None and expr.get("type") in ("NOT", "LOGNOT"):
        inverted = not inverted
        expr = ast.strip_transparent(ast.first(expr, "lhsp"))
    if expr is not None and expr.get("type") == "VARREF":
        return str(expr["varp"]), inverted
    return None


def _edge_items(always: Node) -> list[tuple[Node, bool]]:
    """(sensitivity expression, negedge) of the edge items of an always block."""
    items = []
    for tree in ast.kids(always, "sentreep"):
        for item in ast.kids(tree, "sensesp"):
            edge = str(item.get("edgeType", ""))
            expr = ast.first(item, "sensp")
            if edge in _EDGES and expr is not None:
                items.append((expr, _EDGES[edge]))
    return items


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
    simple = _simple_ref(cond)
    if simple is not None:
        return simple
    kind = cond.get("type")
    if kind in ("EQ", "NEQ", "EQCASE", "NEQCASE"):
        lhs, rhs = ast.first(cond, "lhsp"), ast.first(cond, "rhsp")
        const, other = ast.const_of(lhs), rhs
        if const is None:
            const, other = ast.const_of(rhs), lhs
        ref = _simple_ref(other)
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


class _Collector:
    """Accumulates constants, FSM facts and conditions over the hierarchy."""

    def __init__(self, net: _Netlist) -> None:
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


def _clock_reset_facts(net: _Netlist) -> tuple[list[str], dict[str, bool], list[str]]:
    """(clocks, reset -> active_low, notes) found in the RTL, as top input names."""
    clocks: list[str] = []
    resets: dict[str, bool] = {}
    notes: list[str] = []
    sync: dict[str, bool] = {}

    def port_of(expr: Node) -> tuple[str, bool] | None:
        ref = _simple_ref(expr)
        return net.alias.get(ref[0]) if ref is not None else None

    for module in net.module_order:
        for node in ast.walk(module):
            if node.get("type") != "ALWAYS":
                continue
            items = _edge_items(node)
            if not items:
                continue
            decisions = _decisions(node)
            first_cond = decisions[0][0] if decisions else None
            cond_vars = {r["varp"] for r in ast.varrefs(first_cond)}
            edges = []
            for expr, neg in items:
                ref = _simple_ref(expr)
                edges.append((ref, neg, port_of(expr)))
            in_cond = [e for e in edges if e[0] is not None and e[0][0] in cond_vars]
            if len(edges) >= 2:
                if not in_cond or len(in_cond) == len(edges):
                    # No reset named in the first if: take the first item as the clock.
                    in_cond = edges[1:] if not in_cond else in_cond[1:]
                for ref, neg, port in edges:
                    if port is None:
                        continue
                    if any(ref == e[0] for e in in_cond):
                        # `ref` inversion is already inside `port`; the edge gives the polarity.
                        resets.setdefault(port[0], neg != port[1])
                    elif port[0] not in clocks:
                        clocks.append(port[0])
                continue
            ref, _neg, port = edges[0]
            if port is not None and port[0] not in clocks:
                clocks.append(port[0])
            # Synchronous reset: an `if (rst)` among the block's top-level statements whose
            # branch only loads constants (forencich puts it last, most code first).
            for cond, then, negated in decisions:
                test = _reset_test(cond)
                if test is None or not _assigns_constants(then, net.nodes):
                    continue
                target = net.alias.get(test[0])
                if target is None or not _reset_like(target[0]):
                    continue
                if net.type_of(net.nodes[test[0]]).width == 1:
                    sync.setdefault(target[0], (test[1] != target[1]) != negated)
    for name, low in sync.items():
        if name not in clocks:
            resets.setdefault(name, low)
    for name in list(resets):
        if name in clocks:
            notes.append(f"'{name}' is used both as a clock and as a reset")
    return clocks, resets, notes


def _parameters(net: _Netlist) -> tuple[Parameter, ...]:
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


def parse_interface(tree: Mapping[str, Any], top: str, hints: Design | None = None) -> DesignInterface:
    """Interface and RTL facts of `top` from a loaded `--json-only` tree.

    Args:
        tree: the `.tree.json` object; its optional `meta` key holds the `.tree.meta.json`
            object (for file names; without it `Condition.file` is Verilator's file id).
        top: top module name.
        hints: the design.toml facts; its clocks and resets are merged in and win on polarity.

    Raises:
        DesignError: `top` is not a module of the tree.
    """
    net = _Netlist(tree, top)
    collector = _Collector(net)
    collector.run()
    found_clocks, found_resets, notes = _clock_reset_facts(net)
    inputs = {str(v["name"]) for v in net.top_ports if v.get("direction") in ("INPUT", "INOUT")}
    clocks: list[str] = []
    resets: dict[str, bool] = {}
    if hints is not None:
        for name in hints.clocks:
            if name in inputs:
                clocks.append(name)
            else:
                notes.append(f"design.toml clock '{name}' is not an input of {top}")
            if name not in found_clocks and name in inputs:
                notes.append(f"design.toml clock '{name}' clocks no always block")
        for reset in hints.resets:
            if reset.name not in inputs:
                notes.append(f"design.toml reset '{reset.name}' is not an input of {top}")
                continue
            resets[reset.name] = reset.active_low
            found = found_resets.get(reset.name)
            if found is None:
                notes.append(f"design.toml reset '{reset.name}' resets no always block")
            if found is not None and found != reset.active_low:
                notes.append(
                    f"reset '{reset.name}': design.toml says active {'low' if reset.active_low else 'high'}, "
                    f"the RTL uses it active {'low' if found else 'high'}"
                )
    for name in found_clocks:
        if name not in clocks and name not in resets:
            clocks.append(name)
    for name, low in found_resets.items():
        if name not in clocks:
            resets.setdefault(name, low)
    ports = []
    for var in net.top_ports:
        info = net.type_of(var)
        name = str(var["name"])
        ports.append(Port(
            name=name, direction=_DIRECTIONS[str(var["direction"])], width=info.width,
            msb=info.msb, lsb=info.lsb, signed=info.signed, unpacked=info.unpacked,
            is_clock=name in clocks, is_reset=name in resets, reset_active_low=resets.get(name),
            type_name=str(var.get("dtypeName") or info.name),
        ))
    parameters = _parameters(net)
    constants = {p: tuple(sorted(v)) for p, v in collector.port_values.items() if p in inputs}
    constants = {p: constants[p] for p in net.port_names if p in constants}
    everything = set(collector.all_values)
    everything.update(p.value for p in parameters if isinstance(p.value, int) and p.value >= 0)
    constants[ALL_KEY] = tuple(sorted(everything))
    conditions = sorted(set(collector.conditions), key=lambda c: (c.file, c.line, c.column, c.kind))
    modules = tuple(dict.fromkeys(str(m.get("origName") or m.get("name")) for m in net.module_order))
    return DesignInterface(
        top=str(net.top.get("origName") or net.top.get("name")),
        ports=tuple(ports), parameters=parameters, clocks=tuple(clocks),
        resets=tuple((n, resets[n]) for n in net.ordered(resets)),
        constants=constants, fsm_states=collector.fsm_states(), conditions=tuple(conditions),
        modules=modules, notes=tuple(dict.fromkeys(notes)),
    )


# ---------------------------------------------------------------------------------------
# Running Verilator (thin shell)

_CACHE: dict[tuple[object, ...], DesignInterface] = {}
_CACHE_LOCK = threading.Lock()


def json_command(design: Design, tool: Verilator, out_dir: Path) -> Command:
    """The `verilator --json-only` argv for a design, writing into `out_dir`."""
    cmd = [
        str(tool.verilator), "--json-only", "-Wno-fatal", "-Wno-lint", "-Wno-style",
        "--top-module", design.top,
        "--json-only-output", str(out_dir / "tree.json"),
        "--json-only-meta-output", str(out_dir / "tree.meta.json"),
        "-Mdir", str(out_dir / "obj"),
    ]
    cmd += [f"+incdir+{p}" for p in design.include_dirs]
    cmd += [f"+define+{d}" for d in design.defines]
    cmd += [str(p) for p in design.rtl]
    return cmd


def _error_lines(log_text: str) -> str:
    """The first Verilator error lines of a log (or its last lines when there are none)."""
    lines = log_text.splitlines()
    errors = [ln for ln in lines if ln.startswith("%Error")]
    return "\n".join((errors or lines[-MAX_ERROR_LINES:])[:MAX_ERROR_LINES])


def read_tree(design: Design, *, tool: Verilator | None = None, work_dir: Path | None = None,
              timeout_s: float = 60) -> dict[str, Any]:
    """Run `verilator --json-only` on a design; the tree with the meta file under `meta`.

    Raises:
        DesignError: Verilator rejected the design (the message quotes its first errors).
    """
    tool = tool or find_verilator()
    with tempfile.TemporaryDirectory(prefix="bw-json-", dir=work_dir) as tmp:
        out_dir = Path(tmp)
        log = out_dir / "verilator.log"
        result = run_command(json_command(design, tool, out_dir), cwd=out_dir, log_path=log,
                             env=tool_env(tool), limits=Limits(timeout_s=timeout_s))
        if result.timed_out:
            raise DesignError(f"{design.name}: verilator --json-only timed out after {timeout_s:.0f} s")
        text = log.read_text(encoding="utf-8", errors="replace")
        if not result.ok:
            raise DesignError(f"{design.name}: Verilator could not parse the design:\n{_error_lines(text)}")
        try:
            tree: dict[str, Any] = json.loads((out_dir / "tree.json").read_text(encoding="utf-8"))
            meta = json.loads((out_dir / "tree.meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DesignError(f"{design.name}: unreadable Verilator JSON output: {exc}") from None
    tree["meta"] = {"files": meta.get("files", {})}
    return tree


def _cache_key(design: Design, tool: Verilator) -> tuple[object, ...]:
    """(content hash of RTL and include dirs, top, defines, hints, tool)."""
    digest = hashlib.sha256()
    for path in design.rtl:
        digest.update(str(path).encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<missing>")
    for inc in design.include_dirs:
        try:
            entries = sorted(inc.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.is_file():
                digest.update(str(entry).encode())
                digest.update(entry.read_bytes())
    hints = (design.clocks, tuple((r.name, r.active_low) for r in design.resets))
    return (digest.hexdigest(), design.top, design.defines, hints, str(tool.verilator), tool.version)


def read_interface(design: Design, *, tool: Verilator | None = None, work_dir: Path | None = None,
                   timeout_s: float = 60) -> DesignInterface:
    """The design's interface, from Verilator's parser; cached in-process by content.

    Raises:
        DesignError: Verilator rejected the design, or the top module is missing.
    """
    tool = tool or find_verilator()
    key = _cache_key(design, tool)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
    if cached is not None:
        return cached
    tree = read_tree(design, tool=tool, work_dir=work_dir, timeout_s=timeout_s)
    iface = parse_interface(tree, design.top, design)
    with _CACHE_LOCK:
        _CACHE[key] = iface
    return iface


def clear_cache() -> None:
    """Forget cached interfaces (tests; files changed behind the cache's back)."""
    with _CACHE_LOCK:
        _CACHE.clear()
