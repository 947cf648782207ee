"""Registers only an `initial` statement sets: no reset reaches them (pure, no I/O).

FPGA-minded RTL (ZipCPU's cores, for one) gives configuration registers a power-up value with
`initial uart_setup = INITIAL_SETUP;` and no reset branch. A testbench that runs several
programs one after another, each after its own reset, leaves such a register as the previous
program wrote it (a random baud rate), while each program was judged from power-up. Knowing
the power-up value lets the reset write it back (agent.program.restore).
"""

from __future__ import annotations

from collections.abc import Iterable

from sim.analysis import ast_json as ast
from sim.analysis.netlist import Netlist, lhs_vars
from sim.analysis.write_ports import clocked_assigns


def power_up_values(net: Netlist, resets: Iterable[str]) -> dict[str, int]:
    """Hierarchical name -> power-up constant of each register no reset reaches.

    Those are the variables an `initial` statement sets to a constant (the whole variable) that
    no clocked assignment under a reset's guard writes. Parameters are already folded into the constants of the elaborated tree.
    """
    initial: dict[str, int] = {}
    for module in net.module_order:
        for node in ast.walk(module):
            if node.get("type") != "INITIAL":
                continue
            for stmt in ast.walk(node):
                if stmt.get("type") not in ("ASSIGN", "ASSIGNDLY"):
                    continue
                lhs = ast.strip_transparent(ast.first(stmt, "lhsp"))
                value = ast.const_of(ast.first(stmt, "rhsp"))
                if lhs is None or lhs.get("type") != "VARREF" or value is None or value.wildcard:
                    continue
                initial[str(lhs["varp"])] = value.value
    reset_inputs = frozenset(resets)
    for write in clocked_assigns(net):
        if any(net.signals(term.node) & reset_inputs for term in write.path):
            for var in lhs_vars(ast.first(write.stmt, "lhsp")):
                initial.pop(var, None)
    return {net.hier_name(var): value for var, value in sorted(initial.items()) if var in net.nodes}
