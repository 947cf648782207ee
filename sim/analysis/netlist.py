"""Indexes over one elaborated Verilator `--json-only` tree: hierarchy, ports, aliases.

`Netlist` traces which top input ports each variable depends on (through port connections,
continuous assigns and combinational blocks), which is what clock/reset detection and
condition mapping in sim.analysis.rtl_facts build on. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from sim.analysis import ast_json as ast
from sim.analysis.ast_json import Node
from sim.errors import DesignError

PORT_DIRECTIONS = {"INPUT": "input", "OUTPUT": "output", "INOUT": "inout"}
"""Verilator port directions -> ours."""
EDGES = {"POS": False, "NEG": True, "BOTH": False}
"""Edge sensitivity types; the value is True for negedge."""


@dataclass
class Block:
    """One always block as the clock/reset analysis sees it."""

    module: Node
    """Module holding the block."""
    node: Node
    """The ALWAYS node."""
    edges: list[tuple[str, bool]]
    """(var addr, negedge) of each edge sensitivity item."""


class Netlist:
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
            if v.get("type") == "VAR" and v.get("direction") in PORT_DIRECTIONS
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
            dst = lhs_vars(lhs)
            src = frozenset(r["varp"] for r in ast.varrefs(rhs))
            for d in dst:
                edges.append((d, src))
            if exact and lhs is not None and lhs.get("type") == "VARREF":
                simple = simple_ref(rhs)
                if simple is not None:
                    alias_src.setdefault(lhs["varp"], simple)
                part = const_slice(rhs)
                if part is not None:
                    slice_src.setdefault(lhs["varp"], part)

        for module in self.module_order:
            for node in ast.walk(module):
                kind = node.get("type")
                if kind == "ASSIGNW":
                    connect(ast.first(node, "lhsp"), ast.first(node, "rhsp"), True)
                elif kind == "CELL":
                    for child, expr in pin_connections(node, self.nodes):
                        ref = {"type": "VARREF", "varp": child["addr"]}
                        if child.get("direction") in ("INPUT", "INOUT"):
                            connect(ref, expr, True)
                        if child.get("direction") in ("OUTPUT", "INOUT"):
                            connect(expr, ref, True)
                elif kind == "ALWAYS":
                    clocked = bool(edge_items(node))
                    for stmt in ast.walk(node):
                        if stmt.get("type") not in ("ASSIGN", "ASSIGNDLY"):
                            continue
                        lhs = ast.first(stmt, "lhsp")
                        if clocked:
                            self.registers.update(lhs_vars(lhs))
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


def pin_connections(cell: Node, nodes: Mapping[str, Node]) -> Iterator[tuple[Node, Node]]:
    """(submodule port VAR, connected expression) of each connected pin of a CELL."""
    for pin in ast.kids(cell, "pinsp"):
        child = nodes.get(str(pin.get("modVarp", "")))
        expr = ast.first(pin, "exprp")
        if child is not None and expr is not None:
            yield child, expr


def lhs_vars(lhs: Node | None) -> list[str]:
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


def const_slice(expr: Node | None) -> tuple[str, int] | None:
    """(var addr, lsb) when `expr` is `v[msb:lsb]` with constant bounds."""
    expr = ast.strip_transparent(expr)
    if expr is None or expr.get("type") != "SEL":
        return None
    low = ast.const_of(ast.first(expr, "lsbp"))
    base = ast.strip_transparent(ast.first(expr, "fromp"))
    if low is None or base is None or base.get("type") != "VARREF":
        return None
    return str(base["varp"]), low.value


def simple_ref(expr: Node | None) -> tuple[str, bool] | None:
    """(var addr, inverted) when `expr` is `v`, `~v` or `!v`."""
    expr = ast.strip_transparent(expr)
    inverted = False
    while expr is not None and expr.get("type") in ("NOT", "LOGNOT"):
        inverted = not inverted
        expr = ast.strip_transparent(ast.first(expr, "lhsp"))
    if expr is not None and expr.get("type") == "VARREF":
        return str(expr["varp"]), inverted
    return None


def edge_items(always: Node) -> list[tuple[Node, bool]]:
    """(sensitivity expression, negedge) of the edge items of an always block."""
    items = []
    for tree in ast.kids(always, "sentreep"):
        for item in ast.kids(tree, "sensesp"):
            edge = str(item.get("edgeType", ""))
            expr = ast.first(item, "sensp")
            if edge in EDGES and expr is not None:
                items.append((expr, EDGES[edge]))
    return items
