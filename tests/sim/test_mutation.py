"""Real-Verilator mutation analysis: a killed mutant, a survivor, a possibly equivalent one."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.mutation.model import (
    MutantModel,
    kill_reason,
    mark_equivalent,
    prepare,
    run_mutants,
    run_one,
    single_mutant_design,
)
from sim.mutation.testbench import analyse_sv, build_sv_model, mutant_options
from sim.run.evaluate import BuiltTestbench, SimOptions, build_sv
from sim.suite import load_design

pytestmark = pytest.mark.simulator_required

RTL = """\
module acc (
  input  logic       clk,
  input  logic       rst,
  input  logic       en,
  input  logic [3:0] a,
  output logic [3:0] q
);
  logic [3:0] shadow;  // never reaches an output: its mutants are equivalent
  always_ff @(posedge clk) begin
    if (rst) q <= '0;
    else if (en) q <= q + a;
  end
  always_ff @(posedge clk) shadow <= q ^ a;
endmodule
"""

TB = """\
`timescale 1ns/1ps
module tb_acc;
  logic clk = 0, rst = 1, en = 0;
  logic [3:0] a = 0, q;
  always #5 clk = ~clk;
  acc dut (.*);
  initial begin
    repeat (2) @(negedge clk);
    rst = 0;
    if ($test$plusargs("strong")) begin
      en = 1; a = 3;
      repeat (4) @(negedge clk);
    end
    if ($test$plusargs("random")) repeat (20) begin
      en = 1'($urandom); a = 4'($urandom);
      @(negedge clk);
    end
    repeat (2) @(negedge clk);
    $finish;
  end
endmodule
"""
"""Weak by default (enable never set); `+strong` accumulates; `+random` drives $urandom values."""


@pytest.fixture(scope="module")
def design(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("acc")
    (root / "rtl").mkdir()
    (root / "rtl" / "acc.sv").write_text(RTL)
    (root / "design.toml").write_text('name = "acc"\ntop = "acc"\nrtl = ["rtl/acc.sv"]\nclocks = ["clk"]\n'
                                      'resets = [{ name = "rst", active_low = false }]\n')
    return load_design(root)


@pytest.fixture(scope="module")
def options(tmp_path_factory: pytest.TempPathFactory) -> SimOptions:
    return SimOptions(cache_dir=tmp_path_factory.mktemp("cache"), run_timeout_s=20)


def _by(model: MutantModel, text: str) -> int:
    return next(m.id for m in model.mutants if text in m.description)


def test_mutants_are_found_from_the_ast(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    model = prepare(design, cap=None, options=options)
    kinds = {m.kind for m in model.mutants}
    assert kinds >= {"operator", "condition", "constant", "stuck-at"}
    descriptions = [m.description for m in model.mutants]
    assert "`q + a` -> `q - a`" in descriptions
    assert "condition `en` inverted" in descriptions
    assert "`shadow` stuck at 1" in descriptions
    assert all(m.file == str(design.rtl[0]) for m in model.mutants)
    plus = next(m for m in model.mutants if m.description == "`q + a` -> `q - a`")
    assert (plus.line, plus.column) == (11, 25)
    assert model.traced == ("q",)
    assert not model.rejected


def test_killed_survivor_and_possibly_equivalent(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    model = prepare(design, cap=None, options=options)
    built = build_sv_model(model, TB, options=options)
    assert isinstance(built, BuiltTestbench)
    weak = run_mutants(built, model)
    strong = run_mutants(built, model, plusargs=["+strong"])
    assert not weak.error
    assert not strong.error
    plus, shadow = _by(model, "`q + a`"), _by(model, "`shadow` stuck at 1")
    # The weak stimulus never enables accumulation: the adder mutant survives it ...
    assert plus not in weak.killed
    # ... the strong one kills it through a differing output.
    assert strong.killed[plus].startswith("outputs differ")
    # Resetting q to 1 instead of 0 shows on the output either way.
    assert _by(model, "constant `'0`") in weak.killed
    # Nothing observable depends on `shadow`: no stimulus kills it, so it is reported
    # as possibly equivalent and left out of the score, never counted as killed.
    weak_m, strong_m = mark_equivalent([weak, strong])
    assert shadow in strong_m.equivalent
    assert shadow not in strong_m.killed
    assert plus not in strong_m.equivalent
    assert strong_m.score == 100.0
    assert weak_m.score < strong_m.score


def test_one_model_per_mutant_agrees_with_the_batched_model(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    model = prepare(design, cap=None, options=options)
    batched = build_sv_model(model, TB, options=options)
    plus = _by(model, "`q + a`")
    single = build_sv(single_mutant_design(model, plus), TB, options=mutant_options(options))
    assert isinstance(batched, BuiltTestbench)
    assert isinstance(single, BuiltTestbench)
    base = run_one(batched, 0, plusargs=["+strong"])
    assert kill_reason(base, run_one(batched, plus, plusargs=["+strong"])) is not None
    # The single-mutant model has the change hard-wired (its selector plusarg is ignored).
    assert kill_reason(base, run_one(single, 0, plusargs=["+strong"])) is not None
    assert kill_reason(base, run_one(batched, _by(model, "`shadow` stuck at 0"), plusargs=["+strong"])) is None


def test_analyse_sv_reports_a_generated_testbench(design, options: SimOptions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = analyse_sv(design, TB, options=options, cap=4)
    assert not report.error
    assert len(report.mutants) == 4
    assert 0 < len(report.killed) <= 4
    assert report.found > 4


def test_a_randomised_testbench_does_not_differ_from_itself(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    model = prepare(design, cap=None, options=options)
    built = build_sv_model(model, TB, options=options)
    assert isinstance(built, BuiltTestbench)
    first = run_one(built, 0, plusargs=["+random"])
    assert len(first.trace) > 3
    assert run_one(built, 0, plusargs=["+random"]).trace == first.trace
    report = run_mutants(built, model, plusargs=["+random"])
    assert _by(model, "`shadow` stuck at 0") not in report.killed
    assert _by(model, "`q + a`") in report.killed
