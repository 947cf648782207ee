"""Design inference from Verilator's parse: units, instantiation graph, top, files, order.

Pure: `units_from_tree(tree)` reads the `--json-only` tree of *all* candidate files parsed
together (no `--top-module`, so every uninstantiated module is a Verilator top);
`choose_top`, `closure` and `compile_order` decide from those units. The shell that runs
Verilator over a folder or filelist is sim.project.discover.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from sim.analysis import ast_json as ast
from sim.analysis.ast_json import Node
from sim.errors import DesignError

UNIT_KINDS = {"MODULE": "module", "IFACE": "interface", "PACKAGE": "package"}
"""Verilator node types of design units -> ours."""

TESTBENCH_DIRS = frozenset(("tb", "tbs", "test", "tests", "testbench", "testbenches", "bench", "sim", "verif",
                            "dv", "human_tb", "cocotb", "tb_src"))
"""Folder names whose modules are test code, not the design."""

_TB_TOKENS = frozenset(("tb", "tbench", "test", "tests", "testbench", "bench", "tst"))
"""Name parts that mark a testbench (`tb_fifo`, `fifo_tb`, `testbench_for_tx`)."""

_TB_ONLY_NODES = frozenset(("FINISH", "STOP", "DELAY", "TIMINGCONTROL"))
"""Node types only a testbench uses (`$finish`, `$stop`, `#delay`)."""

MAX_REF_STEPS = 20000
"""Bound on the reference walk that finds which packages a module uses."""


@dataclass(frozen=True)
class Unit:
    """One module, interface or package of the parse (clones of a module merged)."""

    name: str
    """Source name (Verilator's `origName`)."""
    kind: str
    """`module`, `interface` or `package`."""
    file: Path
    """File declaring it (absolute, as Verilator resolved it)."""
    line: int
    """1-based line of the declaration."""
    children: tuple[str, ...] = ()
    """Names of the modules and interfaces it instantiates (each once, in order)."""
    packages: tuple[str, ...] = ()
    """Packages it uses (imports, `pkg::` references, types)."""
    ports: int = 0
    """Number of ports."""
    testbench_nodes: bool = False
    """True when it uses `$finish`, `$stop` or `#` delays."""
    tb_folder: str | None = None
    """The testbench folder its file lies in below the project root ('' when none; None when
    not worked out, and then any folder of the absolute path counts)."""


class AmbiguousTopError(DesignError):
    """Several modules could be the top: the message lists them; `candidates` for an editor's picker."""

    def __init__(self, message: str, candidates: Sequence[Unit] = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)
        """The possible tops (name, file, line)."""


@dataclass(frozen=True)
class TopChoice:
    """The chosen top and why."""

    top: str
    """Top module name."""
    candidates: tuple[str, ...]
    """Every uninstantiated non-testbench module."""
    reason: str
    """One line for the user."""


def _tb_name(name: str) -> bool:
    """Whether a module name reads as a testbench."""
    low = name.lower()
    parts = set(low.replace("-", "_").split("_"))
    return bool(parts & _TB_TOKENS) or low.startswith("tb") or low.endswith("tb") or "testbench" in low


def testbench_reason(unit: Unit) -> str | None:
    """Why `unit` is test code rather than design, or None when it is design."""
    if unit.kind != "module":
        return None
    folder = unit.tb_folder if unit.tb_folder is not None else \
        next((p for p in unit.file.parent.parts if p.lower() in TESTBENCH_DIRS), None)
    if folder:
        return f"it lives in a '{folder}/' folder"
    if unit.ports == 0:
        return "it has no ports"
    if _tb_name(unit.name) and unit.testbench_nodes:
        return "its name reads as a testbench and it uses $finish/$stop/# delays"
    return None


def units_from_tree(tree: Mapping[str, object]) -> list[Unit]:
    """The design units of a `--json-only` tree (with its `meta`), parameter clones merged.

    Units from Verilator's own files (`<verilated_std>`) are left out.
    """
    meta = tree.get("meta")
    files = meta.get("files", {}) if isinstance(meta, Mapping) else {}
    paths = {k: str(v.get("realpath") or v.get("filename")) for k, v in files.items() if isinstance(v, Mapping)}
    modules = [m for m in ast.kids(tree, "modulesp") if m.get("type") in UNIT_KINDS]
    owner: dict[str, str] = {}
    nodes: dict[str, Node] = {}
    for module in modules:
        for node in ast.walk(module):
            if isinstance(node.get("addr"), str):
                owner[node["addr"]] = str(module["addr"])
                nodes[node["addr"]] = node
    for key, value in tree.items():
        if key != "modulesp" and isinstance(value, list):
            for top_node in value:
                if isinstance(top_node, dict):
                    nodes.update(ast.index(top_node))
    by_addr = {str(m["addr"]): m for m in modules}
    merged: dict[str, _Acc] = {}
    for module in modules:
        file_id, line, _ = ast.parse_loc(str(module.get("loc", "")))
        path = paths.get(file_id, "")
        if not path or path.startswith("<"):
            continue
        name = str(module.get("origName") or module.get("name"))
        acc = merged.setdefault(name, _Acc(UNIT_KINDS[str(module["type"])], Path(path), line))
        port_vars = [v for v in ast.kids(module, "stmtsp")
                     if v.get("type") == "VAR" and v.get("direction") in ("INPUT", "OUTPUT", "INOUT")]
        acc.ports = max(acc.ports, len(port_vars))
        for node in ast.walk(module):
            kind = node.get("type")
            if kind == "CELL":
                child = by_addr.get(str(node.get("modp", "")))
                child_name = str(child.get("origName") or child.get("name")) if child else str(node.get("modName", ""))
                if child_name and child_name not in acc.children:
                    acc.children.append(child_name)
            elif kind in _TB_ONLY_NODES:
                acc.tb = True
        for pkg in _packages_used(module, owner, nodes, by_addr):
            if pkg != name and pkg not in acc.packages:
                acc.packages.append(pkg)
    return [Unit(name, a.kind, a.file, a.line, tuple(a.children), tuple(a.packages), a.ports, a.tb)
            for name, a in merged.items()]


@dataclass
class _Acc:
    """A unit being accumulated over its parameter clones."""

    kind: str
    """Unit kind."""
    file: Path
    """Declaring file."""
    line: int
    """Declaration line."""
    children: list[str] = field(default_factory=list)
    """Instantiated units."""
    packages: list[str] = field(default_factory=list)
    """Packages used."""
    ports: int = 0
    """Port count."""
    tb: bool = False
    """Uses testbench-only constructs."""


def _packages_used(module: Node, owner: Mapping[str, str], nodes: Mapping[str, Node],
                   units: Mapping[str, Node]) -> list[str]:
    """Packages a module references, following addr links through the global type tables."""
    found: list[str] = []
    own = str(module["addr"])
    seen: set[str] = set()
    stack = [v for n in ast.walk(module) for v in n.values() if isinstance(v, str) and v.startswith("(")]
    steps = 0
    while stack and steps < MAX_REF_STEPS:
        addr = stack.pop()
        steps += 1
        if addr in seen:
            continue
        seen.add(addr)
        holder = owner.get(addr)
        if holder == own:
            continue
        if holder is not None:
            unit = units[holder]
            if unit.get("type") == "PACKAGE":
                name = str(unit.get("origName") or unit.get("name"))
                if name not in found:
                    found.append(name)
            continue
        node = nodes.get(addr)
        if node is not None:
            stack += [v for v in node.values() if isinstance(v, str) and v.startswith("(")]
    return found


def top_candidates(units: Sequence[Unit]) -> list[str]:
    """Modules no design module instantiates, testbenches excluded, in file order."""
    design = [u for u in units if u.kind == "module" and testbench_reason(u) is None]
    used = {c for u in design for c in u.children}
    return [u.name for u in design if u.name not in used]


def closure(units: Sequence[Unit], top: str) -> list[Unit]:
    """`top` and every unit it needs (instances, interfaces, packages), dependencies first."""
    by_name = {u.name: u for u in units}
    order: list[Unit] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        unit = by_name.get(name)
        if unit is None or unit in order or name in visiting:
            return
        visiting.add(name)
        for pkg in unit.packages:
            visit(pkg)
        for child in unit.children:
            visit(child)
        order.append(unit)

    visit(top)
    return order


def choose_top(units: Sequence[Unit], requested: str = "", containing: Iterable[str] = (),
               flag: str = "--top") -> TopChoice:
    """The top module: `requested`, else the only candidate.

    When several candidates remain, the one whose hierarchy contains a module of
    `containing` is taken, if exactly one does.

    Raises:
        DesignError: no candidate, an unknown `requested`, or several candidates; the
            message lists them and names `flag`.
    """
    candidates = top_candidates(units)
    modules = [u.name for u in units if u.kind == "module"]
    if requested:
        if requested not in modules:
            raise DesignError(f"top module '{requested}' is not among the modules found: {', '.join(modules) or 'none'}")
        return TopChoice(requested, tuple(candidates), f"{flag} {requested} was given")
    if not candidates:
        tbs = [f"{u.name} ({testbench_reason(u)})" for u in units if testbench_reason(u)]
        detail = f"; testbenches skipped: {', '.join(tbs)}" if tbs else ""
        raise DesignError(f"no top module found (every module is instantiated or a testbench{detail}); "
                          f"pick one with {flag} NAME")
    if len(candidates) == 1:
        return TopChoice(candidates[0], tuple(candidates), "the only module no other design module instantiates")
    wanted = set(containing)
    if wanted:
        holding = [c for c in candidates if wanted & {u.name for u in closure(units, c)}]
        if len(holding) == 1:
            names = ", ".join(sorted(wanted))
            return TopChoice(holding[0], tuple(candidates),
                             f"the only uninstantiated module whose hierarchy contains {names}")
        candidates = holding or candidates
    by_name = {u.name: u for u in units}
    listed = "\n".join(f"  {c}  ({by_name[c].file.name}:{by_name[c].line})" for c in candidates)
    raise AmbiguousTopError(f"{len(candidates)} top-module candidates (modules nobody instantiates):\n{listed}\n"
                            f"pick one with {flag} NAME", [by_name[c] for c in candidates])


def compile_order(units: Sequence[Unit], top: str) -> list[Path]:
    """Files of `top`'s closure in compile order.

    Package files come first (dependencies before users), then the module files with each
    module's children before it, the top's file last.
    """
    needed = closure(units, top)
    packages = [u for u in needed if u.kind == "package"]
    rest = [u for u in needed if u.kind != "package"]
    files: list[Path] = []
    for unit in [*packages, *rest]:
        if unit.file not in files:
            files.append(unit.file)
    return files


def add_package_refs(units: Sequence[Unit], refs_by_file: Mapping[Path, Iterable[str]]) -> list[Unit]:
    """Units with the packages their file names as `pkg::` added.

    Verilator folds a `pkg::CONST` into a literal, so the tree alone can miss a package
    a module needs; the file's `pkg::` tokens (sim.project.hdl_scan) restore it.
    """
    packages = {u.name for u in units if u.kind == "package"}
    out = []
    for unit in units:
        extra = [p for p in refs_by_file.get(unit.file, ()) if p in packages and p != unit.name
                 and p not in unit.packages]
        out.append(replace(unit, packages=(*unit.packages, *extra)) if extra else unit)
    return out


_CLOCK_TOKENS = frozenset(("clk", "clock", "aclk", "clkin", "sclk", "hclk", "pclk"))
_NOT_CLOCK_TOKENS = frozenset(("en", "enable", "div", "sel", "gate", "cnt", "count", "out", "o", "stop"))
_RESET_TOKENS = frozenset(("rst", "reset", "rstn", "resetn", "arst", "areset", "aresetn", "arstn", "srst",
                           "nrst", "nreset", "rstb"))
_LOW_TOKENS = frozenset(("rstn", "resetn", "aresetn", "arstn", "nrst", "nreset", "rstb"))
_LOW_SUFFIXES = frozenset(("n", "ni", "b", "l", "bar", "nin"))


def clock_reset_by_name(inputs: Sequence[tuple[str, int]], read: Iterable[str], clocks: Sequence[str],
                        resets: Mapping[str, bool]) -> tuple[list[str], dict[str, bool], list[str]]:
    """Clocks and resets with unused 1-bit inputs named like them added (polarity by name).

    The RTL analysis finds clocks and resets by their use; a port the RTL never reads
    (a registered-only-in-formal reset, a clock of a purely combinational block) has no
    use to go by, and an engineer would still drive it as its name says. Ports that some
    condition reads (`read`) are data and are left alone.

    Returns:
        (clocks, resets, notes) with one note per port added by name.
    """
    used = set(read)
    out_clocks, out_resets, notes = list(clocks), dict(resets), []
    for name, width in inputs:
        if width != 1 or name in out_clocks or name in out_resets or name in used:
            continue
        tokens = name.lower().split("_")
        if set(tokens) & _CLOCK_TOKENS and not set(tokens) & _NOT_CLOCK_TOKENS:
            out_clocks.append(name)
            notes.append(f"'{name}' drives no always block; taken as a clock by its name")
        elif set(tokens) & _RESET_TOKENS:
            low = bool(set(tokens) & _LOW_TOKENS) or (len(tokens) > 1 and tokens[-1] in _LOW_SUFFIXES)
            out_resets[name] = low
            notes.append(f"'{name}' resets no always block; taken as an active-{'low' if low else 'high'} "
                         "reset by its name")
    return out_clocks, out_resets, notes
