"""Calls to the design's own testbench accessors in a testbench (pure).

A design that marks functions `/*verilator public*/` (sim.analysis.accessors) says how its
author tests it: biriscv's retire trace (`complete_pc0()`, ...) and register file
(`get_register(r)`). The harness and the kept testbench both call each such function on every
clock, a function of an index for every index, so the search measures the coverage the kept
testbench has (their bodies are the design's lines and branches). The kept testbench's checks
also fold each one's value into a signature (`sv_checks`): the architectural state is checked
per phase beside the outputs.
"""

from __future__ import annotations

from agent.program.sv_common import clock_of
from agent.program.target import Target
from sim.analysis.accessors import Accessor


def label(a: Accessor) -> str:
    """How checks name an accessor (`u_issue.complete_pc0()`, `u_regfile.get_register(0..31)`)."""
    return f"{a.path}(0..{(1 << a.index_bits) - 1})" if a.index_bits else f"{a.path}()"


def _digest(inst: str, a: Accessor) -> str:
    """The body of a function returning a 32-bit digest of what `a` returns (for every index)."""
    chunks = -(-a.width // 32)
    if a.index_bits:
        call = f"{inst}.{a.path}({a.index_bits}'(bw_i))"
        value = f"{a.width}'({call})"
        fold = (f"bw_s = {{bw_s[30:0], bw_s[31]}} ^ 32'({value});" if chunks == 1 else
                f"begin logic [{a.width - 1}:0] bw_v = {value}; "
                f"for (int bw_c = 0; bw_c < {a.width}; bw_c += 32) bw_s = {{bw_s[30:0], bw_s[31]}} ^ 32'(bw_v >> bw_c); end")
        return f"int unsigned bw_s = 0; for (int bw_i = 0; bw_i < {1 << a.index_bits}; bw_i++) {fold} return bw_s;"
    if chunks == 1:
        return f"return 32'({inst}.{a.path}());"
    return (f"int unsigned bw_s = 0; logic [{a.width - 1}:0] bw_v = {inst}.{a.path}(); "
            f"for (int bw_c = 0; bw_c < {a.width}; bw_c += 32) bw_s ^= 32'(bw_v >> bw_c); return bw_s;")


def expressions(t: Target) -> dict[str, str]:
    """Label -> SV expression of each accessor's digest (`bw_acc3()`), in order."""
    return {label(a): f"bw_acc{k}()" for k, a in enumerate(t.layout.accessors)}


def lines(t: Target) -> list[str]:
    """One digest function per accessor and the process calling them all on every clock ([] for none)."""
    clock = clock_of(t)
    if not t.layout.accessors or not clock:
        return []
    inst = t.layout.instance
    out = ["// The design's own accessors (functions it marks /*verilator public*/), called on every clock."]
    out += [f"function automatic int unsigned bw_acc{k}(); {_digest(inst, a)} endfunction  // {label(a)}"
            for k, a in enumerate(t.layout.accessors)]
    calls = " ^ ".join(f"bw_acc{k}()" for k in range(len(t.layout.accessors)))
    out += ["int unsigned bw_acc_seen = 0;", f"always @(posedge {clock}) bw_acc_seen = {calls};"]
    return out
