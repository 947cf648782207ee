"""Running one stimulus program both ways, the SV testbench and the rendered cocotb test, and
comparing what they cover (the twin tests under tests/program/)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent.heuristic.engine import make_target
from agent.program.cocotb import cocotb_test_name, render_cocotb
from agent.program.ops import check
from agent.program.sv import render_testbench
from agent.program.target import Target
from agent.program.text import parse_program
from sim.analysis.interface import read_interface
from sim.run.cocotb import evaluate_cocotb
from sim.run.evaluate import SimOptions, evaluate_sv
from sim.suite import load_design
from sim.types import SimResult, Status

DATA = Path(__file__).resolve().parent / "data" / "program"
PUBLIC = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "public"


def run_twins(name: str, text: str, options: SimOptions, folder: Path = DATA,
         edit: Callable[[Target], Target] | None = None) -> tuple[SimResult, SimResult]:
    """(SV result, cocotb result) of one program on a design under tests/data/program/ (or `folder`).

    `edit`: a change to the recognised target both renderings use (to pick a driver).
    """
    design = load_design(folder / name)
    t, _hints = make_target(design, read_interface(design), "heuristic")
    t = edit(t) if edit is not None else t
    program = parse_program(text)
    check(program, t.scope)
    module = cocotb_test_name(design.top)
    cocotb = evaluate_cocotb(design, module, {f"{module}.py": render_cocotb(t, program)}, options=options,
                             trusted=False)
    return evaluate_sv(design, render_testbench(t, program), options=options), cocotb


def run_public(name: str, text: str, options: SimOptions) -> tuple[SimResult, SimResult]:
    """`run_twins` on a design of the public benchmark suite (skipped where the suite is not beside the checkout)."""
    if not (PUBLIC / name).is_dir():
        pytest.skip(f"{PUBLIC / name} is not here")
    return run_twins(name, text, options, PUBLIC)


def covered(result: SimResult) -> dict[str, int]:
    assert result.coverage is not None, result.detail + result.log_tail[-2000:]
    return {k: m.covered for k, m in result.coverage.metrics.items()}


def toggle_counts(result: SimResult) -> dict[tuple[str, int, str], int]:
    """Hit count of every toggle point (a toggle counts changes of a signal: same waveform, same counts)."""
    assert result.report is not None
    return {(Path(p.file).name, p.line, p.comment): p.count for p in result.report.points if p.kind == "toggle"}


def matched_toggles(name: str, text: str, options: SimOptions) -> dict[tuple[str, int, str], int]:
    """`run_twins`, both runs passing with the same toggle counts: those counts."""
    sv, cocotb = run_twins(name, text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    counts = toggle_counts(sv)
    assert toggle_counts(cocotb) == counts
    return counts
