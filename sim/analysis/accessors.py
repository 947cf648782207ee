"""The design's own testbench accessors: functions its author marked `/*verilator public*/` (pure).

A core written for Verilator often exposes its state to a C++ or SV testbench through such
functions (biriscv's `get_register(r)`, `complete_pc0()`: the register file and the retiring
instruction). A careful testbench calls them, to check architectural state and to trace what
retired; their bodies are lines and branches of the design like any other. Benchwright's
testbenches call the ones that only read: no argument, or one narrow index it can sweep.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sim.analysis import ast_json as ast
from sim.analysis.ast_json import Node
from sim.analysis.netlist import Netlist

MAX_INDEX_BITS = 6
"""Widest index argument swept (64 values); a function of a wider one is not called."""

MAX_ACCESSORS = 32
"""Most accessors a testbench calls (the first found, top first)."""

MAX_WIDTH = 1024
"""Widest result read (the checks fold at most this many bits)."""


@dataclass(frozen=True)
class Accessor:
    """One public function a testbench may call on the design instance."""

    path: str
    """Instance path below the top and the function's name (`u_issue.u_regfile.REGFILE.get_register`)."""
    width: int
    """Bits it returns."""
    index_bits: int = 0
    """Width of its one input (swept over every value); 0 when it takes none."""


def _functions(module: Node) -> Iterator[tuple[Node, str]]:
    """(FUNC, generate-block path inside the module) of every function a module declares."""
    stack: list[tuple[Node, str]] = [(c, "") for c in reversed(ast.kids(module, "stmtsp"))]
    while stack:  # declaration order
        node, path = stack.pop()
        if node.get("type") == "FUNC":
            yield node, path
        elif node.get("type") == "GENBLOCK":
            name = str(node.get("name", ""))
            inner = f"{path}.{name}" if name and path else (name or path)
            stack.extend((c, inner) for c in reversed(ast.kids(node, "itemsp")))


def _reads_only(func: Node) -> bool:
    """Whether a function writes nothing but its own result and locals (calling it changes no state)."""
    local = {str(n.get("addr")) for n in ast.walk(func) if n.get("type") == "VAR"}
    for node in ast.walk(func):
        if node.get("type") == "VARREF" and node.get("access") != "RD" and str(node.get("varp")) not in local:
            return False
        if node.get("type") in ("TASKREF", "FUNCREF"):  # a call may write what it likes
            return False
    return True


def accessor_of(net: Netlist, func: Node) -> tuple[int, int] | None:
    """(width, index bits) of a public function a testbench may call, or None."""
    if not func.get("taskPublic"):
        return None
    result = ast.kids(func, "fvarp")
    width = net.type_of(result[0]).width if result else 0
    args = [v for v in ast.kids(func, "stmtsp") if v.get("type") == "VAR" and v.get("direction")]
    if not 0 < width <= MAX_WIDTH or len(args) > 1 or any(v.get("direction") != "INPUT" for v in args):
        return None
    index = net.type_of(args[0]).width if args else 0
    if index > MAX_INDEX_BITS or not _reads_only(func):
        return None
    return width, index


def find_accessors(net: Netlist) -> tuple[Accessor, ...]:
    """Every read-only public function of every instance below the top (at most MAX_ACCESSORS)."""
    out: list[Accessor] = []
    for module in net.module_order:
        for func, inner in _functions(module):
            found = accessor_of(net, func)
            if found is None:
                continue
            for prefix in net.instances.get(str(module["addr"]), []):
                path = ".".join(p for p in (prefix, inner, str(func["name"])) if p)
                out.append(Accessor(path, *found))
    return tuple(out[:MAX_ACCESSORS])
