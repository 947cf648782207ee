"""The `coverage+mutation` objective: the hunting loop (pure) and the engine with real Verilator."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent.heuristic.engine import make_target, run_engine
from agent.heuristic.mutation_objective import build_mutant_harness, hunt, score_program
from agent.heuristic.program_search import ProgramSearchConfig
from agent.heuristic.stimulus import Clock, Field, Hints, Layout, Signal
from agent.policy import Budget
from agent.program.interfaces import recognise
from agent.program.ops import Program
from agent.program.target import Target
from agent.program.text import parse_program
from sim.analysis.interface import read_interface
from sim.run.evaluate import SimOptions
from sim.suite import Design, load_design

LAYOUT = Layout("m", "dut", (Field("rst", 1, reset=True), Field("a", 4)), (Clock("clk", 5),),
                (Signal("clk", "input", 1), Signal("rst", "input", 1), Signal("a", "input", 4)))
TARGET = Target(LAYOUT, recognise(LAYOUT), {"a": (0, 9, 15)})
"""A two-field design for the pure loop (the judge below never simulates)."""


def _judge_double(program: Program, alive: Sequence[int]) -> tuple[bool, dict[int, str]]:
    """Deterministic stand-in for the simulator: mutant 1 dies when a program sets `a` to 9 or more,
    mutant 2 when a program holds the inputs idle right after its reset; mutant 3 never dies."""
    killed: dict[int, str] = {}
    if 1 in alive and any(o.name == "set" and dict(o.args).get("a", 0) >= 9 for o in program.walk()):
        killed[1] = "a >= 9 seen"
    if 2 in alive and len(program.ops) > 1 and program.ops[0].name == "reset" and program.ops[1].name == "hold":
        killed[2] = "idle after reset"
    return True, killed


def test_hunt_keeps_only_killing_candidates() -> None:
    start = (parse_program("reset\nset a=3\nhold 2\n"),)
    hints = Hints(palettes={"a": (0, 9, 15)}, focus={"a": (9, 15)})
    result = hunt(TARGET, start, _judge_double, [1, 2, 3], hints=hints, seed=3, max_trials=200)
    assert set(result.killed) == {1, 2}
    assert 1 <= len(result.programs) <= 2
    assert all(_judge_double(p, [1, 2])[1] for p in result.programs)
    assert result.trials <= 200


def test_hunt_stops_at_the_budget() -> None:
    calls = 0

    def stop() -> bool:
        return calls >= 3

    def judge(program: Program, alive: Sequence[int]) -> tuple[bool, dict[int, str]]:
        nonlocal calls
        calls += 1
        return True, {}

    result = hunt(TARGET, (parse_program("reset\n"),), judge, [1], hints=Hints(), should_stop=stop)
    assert result.trials == 2  # the first call judges the kept program
    assert not result.programs


def test_unknown_objective_is_refused(tmp_path: Path) -> None:
    design = _design(tmp_path)
    with pytest.raises(ValueError, match="objective"):
        run_engine(design, strategy="heuristic", budget=Budget(1, time.monotonic() + 5), objective="speed")


RTL = """\
module sat (
  input  logic       clk,
  input  logic       rst,
  input  logic [3:0] a,
  output logic [3:0] q,
  output logic       big
);
  logic [3:0] unused_r;
  always_ff @(posedge clk) begin
    if (rst) q <= '0;
    else if (a > 4'd9) q <= a - 4'd9;
    else q <= a;
  end
  assign big = q >= 4'd5;
  always_ff @(posedge clk) unused_r <= a + 4'd1;
endmodule
"""


def _design(tmp_path: Path) -> Design:
    (tmp_path / "rtl").mkdir(exist_ok=True)
    (tmp_path / "rtl" / "sat.sv").write_text(RTL)
    (tmp_path / "design.toml").write_text('name = "sat"\ntop = "sat"\nrtl = ["rtl/sat.sv"]\nclocks = ["clk"]\n'
                                          'resets = [{ name = "rst", active_low = false }]\n')
    return load_design(tmp_path)


@pytest.mark.simulator_required
def test_engine_with_mutation_objective_kills_every_observable_mutant(tmp_path: Path) -> None:
    design = _design(tmp_path)
    options = SimOptions(cache_dir=tmp_path / "cache", run_timeout_s=20)
    budget = Budget(sim_calls=40, deadline=time.monotonic() + 240)
    tb, report = run_engine(design, strategy="heuristic", budget=budget, seed=1, options=options,
                            config=ProgramSearchConfig(seed=1), verify=False, objective="coverage+mutation",
                            mutation_cap=None)
    assert report.search is not None
    assert "mutants killed" in report.mutation
    assert "module tb_sat;" in tb
    target, _ = make_target(design, read_interface(design), "heuristic")
    harness = build_mutant_harness(design, target, cap=None, options=options)
    assert not isinstance(harness, str)
    final = score_program(harness, report.program)
    assert not final.error
    hidden_line = RTL.splitlines().index("  always_ff @(posedge clk) unused_r <= a + 4'd1;") + 1
    observable = [m for m in harness.model.mutants if m.line != hidden_line]
    hidden = [m for m in harness.model.mutants if m.line == hidden_line]
    assert hidden  # the stuck-at and operator mutants of the unobservable register
    assert not any(m.id in final.killed for m in hidden)
    assert all(m.id in final.killed for m in observable), [m.description for m in observable
                                                           if m.id not in final.killed]
