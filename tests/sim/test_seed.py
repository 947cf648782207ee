"""Seeded simulator runs: one seed, one coverage value; the seed is in the result (real Verilator)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sim.run.commands import DEFAULT_SEED, check_seed
from sim.run.evaluate import SimOptions, build, evaluate_files
from sim.suite import Design

pytestmark = pytest.mark.simulator_required

RTL = """\
module picky (input logic clk, input logic [7:0] a, output logic [7:0] y);
  always_ff @(posedge clk)
    if (a[7:5] == 3'd5) y <= 8'd1;
    else if (a[1:0] == 2'd3) y <= 8'd2;
    else y <= a;
endmodule
"""

TB = """\
module tb_picky;
  logic clk = 0; logic [7:0] a = 0, y;
  picky dut (.*);
  always #5 clk = ~clk;
  initial begin
    repeat (3) begin a = 8'($urandom); @(negedge clk); end
    $finish;
  end
endmodule
"""
"""Three random values: which branches and toggles are covered depends on the seed."""


@pytest.fixture
def picky(tmp_path: Path) -> tuple[Design, Path]:
    rtl = tmp_path / "rtl" / "picky.sv"
    rtl.parent.mkdir()
    rtl.write_text(RTL)
    tb = tmp_path / "tb_picky.sv"
    tb.write_text(TB)
    return Design(name="picky", root=tmp_path, top="picky", rtl=(rtl,), clocks=("clk",)), tb


def test_a_urandom_testbench_gives_one_value_per_seed(picky: tuple[Design, Path], tmp_path: Path) -> None:
    design, tb = picky
    options = SimOptions(cache_dir=tmp_path / "cache", run_timeout_s=20)
    results = [evaluate_files(design, [tb], None, options=options, check=False) for _ in range(5)]
    assert [r.status.value for r in results] == ["ok"] * 5, results[0].detail
    assert len({r.overall for r in results}) == 1, [r.overall for r in results]
    assert {r.seed for r in results} == {DEFAULT_SEED}
    assert f"+verilator+seed+{DEFAULT_SEED}" in results[0].extra["run_argv"]  # type: ignore[operator]
    # The seed is really used: other seeds reach other values (so the test above is not vacuous).
    built = build(design, [tb], "tb_picky", options=options)
    assert not isinstance(built, type(results[0]))
    by_seed = {seed: built.run(seed=seed).overall for seed in range(1, 9)}
    assert len(set(by_seed.values())) > 1, by_seed
    assert built.run(seed=3).overall == by_seed[3]
    # A kept run (its own sandbox, not the shared session) gives the same value as a session run.
    kept = built.run(seed=3, run_dir=tmp_path / "kept")
    assert (kept.overall, kept.seed) == (by_seed[3], 3)


def test_zero_and_out_of_range_seeds_are_refused() -> None:
    for bad in (0, -1, 1 << 31, True):
        with pytest.raises(ValueError, match="fresh random seed"):
            check_seed(bad)  # type: ignore[arg-type]
    assert check_seed(7) == 7


def test_cli_seed_is_recorded_in_json(picky: tuple[Design, Path], tmp_path: Path) -> None:
    design, tb = picky
    env_cache = {"BENCHWRIGHT_CACHE": str(tmp_path / "cache")}
    import os

    def sim(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "benchwright.cli", "sim", str(design.rtl[0]), "--top", "picky",
                               "--tb", str(tb), "--json", *extra], capture_output=True, text=True, timeout=300,
                              env={**os.environ, **env_cache}, check=False)

    first, again = sim("--seed", "5"), sim("--seed", "5")
    assert first.returncode == 0, first.stderr
    a, b = json.loads(first.stdout), json.loads(again.stdout)
    assert (a["seed"], a["coverage"]["overall"]) == (5, b["coverage"]["overall"])
    assert a["uncovered"] == b["uncovered"]  # the same points, not only as many
    # ...and the seed given on the command line is the one that runs: another one changes what is covered.
    for seed in (1, 2, 3, 4, 6, 7, 8):
        other = json.loads(sim("--seed", str(seed)).stdout)
        assert other["seed"] == seed
        if other["uncovered"] != a["uncovered"]:
            break
    else:
        pytest.fail("seeds 1-8 all covered what seed 5 covered: --seed does not reach the simulator")
    assert json.loads(sim().stdout)["seed"] == DEFAULT_SEED
    refused = sim("--seed", "0")
    assert refused.returncode == 2
    assert "fresh random seed" in refused.stderr
