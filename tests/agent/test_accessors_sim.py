"""The design's own testbench accessors (`/*verilator public*/` functions): called, covered, checked.

With real Verilator on tests/data/program/peek_regs (Apache-2.0): four accumulators no output
shows, read through `peek(i)`, `total()` and two wider ones; `poke` writes a register and `sum2` takes two
arguments, so neither may be called by a generated testbench.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from agent.heuristic.engine import make_target, run_engine
from agent.policy import Budget
from agent.program import sv_checks as chk
from sim.analysis.accessors import Accessor
from sim.analysis.interface import read_interface
from sim.run.evaluate import evaluate_sv
from sim.suite import load_design
from sim.types import Status

DATA = Path(__file__).resolve().parents[1] / "data" / "program"

pytestmark = pytest.mark.simulator_required


def _covered(result, line: int) -> bool:  # type: ignore[no-untyped-def]
    """Whether every line/branch point of the RTL at `line` was covered."""
    points = [p for p in result.report.points if p.line == line and p.kind != "toggle"]
    assert points, f"no point at line {line}"
    return all(p.count > 0 for p in points)


def test_only_the_read_only_accessors_are_found() -> None:
    design = load_design(DATA / "peek_regs")
    assert read_interface(design).accessors == (Accessor("peek", 8, 2), Accessor("total", 10, 0),
                                                Accessor("both", 40, 0), Accessor("near", 36, 2))
    target, _hints = make_target(design, read_interface(design), "heuristic")
    assert chk.plan(target).outputs == ("busy", "peek(0..3)", "total()", "both()", "near(0..3)")
    assert chk.plan(target, accessors=False).outputs == ("busy",)  # a cocotb test cannot call them


def test_the_kept_testbench_calls_them_and_notices_a_change_only_they_show(tmp_path: Path) -> None:
    root = tmp_path / "peek_regs"
    shutil.copytree(DATA / "peek_regs", root)
    design = load_design(root)
    tb, rep = run_engine(design, strategy="heuristic", budget=Budget(20, time.monotonic() + 300), seed=0)
    assert rep.final is not None
    assert rep.final.status == Status.OK, rep.final.detail
    assert rep.reproduced  # the search harness called them too
    rtl = (root / "rtl" / "peek_regs.sv").read_text().splitlines()
    for needle in ("2'd1: peek = acc[1];", "default: peek = acc[3];", "function [9:0] total;"):
        assert _covered(rep.final, next(k for k, s in enumerate(rtl, 1) if needle in s)), needle
    assert " 0 mismatches" in rep.final.log_tail

    # Accumulating by subtraction changes no output (`busy` only follows `en`): the accessors' digests differ.
    path = root / "rtl" / "peek_regs.sv"
    path.write_text(path.read_text().replace("acc[sel] <= acc[sel] + din", "acc[sel] <= acc[sel] - din"))
    edited = evaluate_sv(load_design(root), tb)
    assert edited.status == Status.OK
    failed = chk.mismatched_outputs(edited.log_tail)
    assert "busy" not in failed
    assert {"peek(0..3)", "total()", "both()", "near(0..3)"} <= set(failed)
