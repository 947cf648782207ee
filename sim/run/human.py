"""Run a design's human-written test (SV testbench or cocotb suite) through the evaluator."""

from __future__ import annotations

from dataclasses import replace

from sim.run.cocotb import evaluate_cocotb
from sim.run.evaluate import SimOptions, evaluate_files
from sim.sandbox.process import Cancel
from sim.suite import Design
from sim.types import SimResult, Status

VERILOGEVAL_IMPL = "TopModule"
"""Module a VerilogEval testbench compares the reference against."""


def verilogeval_copy(design: Design, tb_text: str) -> dict[str, str]:
    """A renamed copy of the reference module when a VerilogEval TB needs `TopModule`.

    VerilogEval testbenches instantiate both `RefModule` and the candidate `TopModule`;
    with the reference as the candidate, the mismatch count is 0 and coverage is scored
    on the `RefModule` instance only (restriction by module name).
    """
    rtl_text = "\n".join(p.read_text(errors="replace") for p in design.rtl)
    if VERILOGEVAL_IMPL not in tb_text or f"module {VERILOGEVAL_IMPL}" in rtl_text:
        return {}
    if f"module {design.top}" not in rtl_text:
        return {}
    return {f"{VERILOGEVAL_IMPL}.sv": rtl_text.replace(f"module {design.top}", f"module {VERILOGEVAL_IMPL}", 1)}


def evaluate_human(design: Design, options: SimOptions = SimOptions(), cancel: Cancel | None = None) -> SimResult:
    """Simulate the design's human test with coverage (trusted code: no guard, compat aliases on)."""
    test = design.human_test
    if test is None:
        return SimResult(status=Status.COMPILE_ERROR, detail=f"{design.name} has no [human_test] in design.toml")
    if test.kind == "cocotb":
        return evaluate_cocotb(design, test.top, [p for p in test.files if p.suffix == ".py"],
                               options=options, trusted=True, cancel=cancel)
    sv_files = [p for p in test.files if p.suffix in (".sv", ".v", ".svh", ".vh")]
    tb_text = "\n".join(p.read_text(errors="replace") for p in sv_files)
    # Collected testbenches often `include RTL files (or their own helpers) by bare name; let them find them.
    dirs = tuple(dict.fromkeys([*(p.parent for p in design.rtl), *(p.parent for p in sv_files)]))
    design = replace(design, include_dirs=(*design.include_dirs, *(d for d in dirs if d not in design.include_dirs)))
    return evaluate_files(design, sv_files, test.top, options=options,
                          generated=verilogeval_copy(design, tb_text), check=False, cancel=cancel)
