"""Points no stimulus can reach at the design's parameters: proven from Verilator's tree (needs Verilator)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.analysis.dead_points import (
    ElaboratedFacts,
    dead_points,
    elaborated_facts,
    reachable_percents,
    waiver_lines,
    why_dead,
)
from sim.analysis.interface import read_tree
from sim.run.evaluate import SimOptions, evaluate_sv
from sim.suite import design_from_files
from sim.types import UncoveredPoint

pytestmark = pytest.mark.simulator_required

RTL = """\
module opt_unit #(parameter bit OPT_LOWPOWER = 1'b0, parameter int MODE = 1) (
    input  logic clk, input logic rst, input logic v, input logic [3:0] d,
    output logic [3:0] q, output logic w, output logic [7:0] wide, output logic one,
    output logic w2
);
  always_ff @(posedge clk) begin
    if (rst)
      q <= 4'd0;
    else if (OPT_LOWPOWER && !v)
      q <= 4'd0;
    else if (v)
      q <= d;
  end
  assign w = (MODE == 2) | (v & d[0]);
  assign wide = {4'b0, d};
  assign one = 1'b1;
  logic spare;  // a flag nothing drives (a half-finished feature)
  assign w2 = v && spare;
endmodule
"""

TB = """\
module tb;
  logic clk = 0, rst = 1, v = 0; logic [3:0] d = 0; logic [3:0] q; logic w; logic [7:0] wide; logic one; logic w2;
  opt_unit dut (.*);
  always #5 clk = ~clk;
  initial begin
    @(negedge clk) rst = 0;
    repeat (8) begin @(negedge clk) v = ~v; d = d + 5; end
    $finish;
  end
endmodule
"""


def test_parameter_dead_points_are_proven_and_only_they(tmp_path: Path) -> None:
    (tmp_path / "opt_unit.sv").write_text(RTL)
    design = design_from_files([tmp_path / "opt_unit.sv"], "opt_unit")
    result = evaluate_sv(design, TB, tb_name="tb.sv", options=SimOptions())
    assert result.coverage is not None
    facts = elaborated_facts(read_tree(design))
    assert facts.parameters["OPT_LOWPOWER"] == 0
    assert facts.parameters["MODE"] == 1
    dead = dead_points(result.uncovered, facts)
    reasons = {(p.kind, p.line, p.comment): why for p, why in dead.items()}
    # `else if (OPT_LOWPOWER && !v)` can never be true: the term OPT_LOWPOWER==1 is impossible.
    assert any(kind == "expr" and line == 9 and "OPT_LOWPOWER" in why for (kind, line, _), why in reasons.items())
    # `(MODE == 2)` can never be 1 with MODE = 1.
    assert any(kind == "expr" and line == 14 and "MODE" in why for (kind, line, _), why in reasons.items())
    # `spare` is never driven: no `(... spare==1) => 1` outcome can happen.
    assert any(kind == "expr" and line == 18 and "spare[0] is always 0" in why
               for (kind, line, _), why in reasons.items())
    # The zero-extended upper half of `wide` never toggles; `one` rises once at start-up but never falls.
    dead_toggles = {c for (kind, _, c) in reasons if kind == "toggle"}
    assert {f"wide[{b}]:{t}" for b in range(4, 8) for t in ("0->1", "1->0")} <= dead_toggles
    assert "one:1->0" in dead_toggles
    assert "one:0->1" not in dead_toggles
    # Nothing the stimulus can still reach is called dead: the low half of `wide`, q, d.
    assert not {c for c in dead_toggles if c.startswith(("wide[0]", "wide[3]", "q[", "d["))}
    counts = {k: (v.covered, v.total) for k, v in result.coverage.metrics.items()}
    reach = reachable_percents(counts, dead)
    assert reach["overall"] >= result.coverage.overall
    # The waiver lines, fed back, waive exactly those points.
    waivers = tmp_path / "coverage.waivers"
    waivers.write_text(waiver_lines(dead))
    again = evaluate_sv(design, TB, tb_name="tb.sv", options=SimOptions(waivers=waivers))
    assert again.coverage is not None
    remaining = {(p.kind, p.line, p.comment) for p in again.uncovered}
    assert not remaining & set(reasons)
    assert again.coverage.overall == pytest.approx(reach["overall"], abs=0.01)


def test_sim_cli_dead_flag_reports_reachable_coverage(tmp_path: Path) -> None:
    (tmp_path / "opt_unit.sv").write_text(RTL)
    (tmp_path / "tb.sv").write_text(TB)
    out = subprocess.run(
        [sys.executable, "-m", "benchwright.cli", "sim", str(tmp_path / "opt_unit.sv"), "--top", "opt_unit",
         "--tb", str(tmp_path / "tb.sv"), "--dead", "--json"],
        capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert payload["dead"]["points"]
    assert all(p["reason"] for p in payload["dead"]["points"])
    assert payload["dead"]["reachable"]["overall"] >= payload["coverage"]["overall"]
    assert "opt_unit.sv" in payload["dead"]["waivers"]


@pytest.mark.parametrize(("source", "comment", "dead"), [
    ("assign depth = (KEEP_ENABLE && KEEP_WIDTH > 1) ? {a, b} : a;", "cond_then", True),
    ("assign depth = (KEEP_ENABLE && KEEP_WIDTH > 1) ? {a, b} : a;", "cond_else", False),
    ("if (REVERSE) begin", "else", True),
    ("if (!(REVERSE || FRAME_FIFO)) begin", "if", True),
    ("if (REVERSE && valid) begin", "else", False),  # reads a signal: never proven
    ("q <= REVERSE ? a : b;", "cond_else", False),  # a non-blocking assignment is not parsed
    ("else if (OPT_LOWPOWER && i_reset) begin", "if", True),  # 0 whatever i_reset is
    ("else if (!OPT_LOWPOWER || i_valid) begin", "else", True),  # 1 whatever i_valid is
    ("else if (!OPT_LOWPOWER || i_valid) begin", "if", False),
    ("if ((REVERSE || x) && y) begin", "if", False),  # y decides
    ("if (sel ? KEEP_ENABLE && x : y) begin", "if", False),  # a ?: inside: not read
])
def test_parameter_only_branch_conditions(source: str, comment: str, dead: bool) -> None:
    facts = ElaboratedFacts(parameters={"KEEP_ENABLE": 0, "KEEP_WIDTH": 1, "REVERSE": 1, "FRAME_FIFO": 0,
                                        "OPT_LOWPOWER": 0})
    point = UncoveredPoint("branch", "/x/core.v", 10, comment, source)
    assert bool(why_dead(point, facts)) == dead


def test_the_body_of_an_if_the_parameters_keep_false_is_dead() -> None:
    facts = ElaboratedFacts(parameters={"OPT_LOWPOWER": 0})
    body = UncoveredPoint("line", "/x/skid.v", 148, "elsif", "else if (OPT_LOWPOWER && i_reset)")
    assert "is 0" in why_dead(body, facts)
    # The body of an if that may run, and the line point of an `else`, are never claimed.
    assert not why_dead(UncoveredPoint("line", "/x/skid.v", 150, "elsif", "else if (o_valid && i_ready)"), facts)
    assert not why_dead(UncoveredPoint("line", "/x/skid.v", 152, "else", "else if (!OPT_LOWPOWER || v)"), facts)
