"""Compact SFT targets: the rewritten replay is shorter and simulates to the same coverage."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.data.compact import (
    Row,
    compact_or_same,
    compact_replay,
    literal,
    merge_rows,
)

SUITE = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public"
DATA = Path(__file__).resolve().parents[1] / "data" / "training"
"""Replay testbenches the engine wrote before it searched programs (captured as fixtures)."""


def test_merge_rows_adds_cycles_of_identical_neighbours_only() -> None:
    a, b = ((1, 0), (8, 5)), ((1, 0), (8, 6))
    rows = [Row(1, a), Row(2, a), Row(1, b), Row(1, a)]
    assert merge_rows(rows) == [Row(3, a), Row(1, b), Row(1, a)]


def test_literal_keeps_wide_fields_sized() -> None:
    assert literal(1, 1) == "1"
    assert literal(8, 9) == "9"
    assert literal(8, 0xAB) == "'hab"
    assert literal(40, 0xAB) == "40'hab"


def test_compact_replay_rewrites_only_the_table() -> None:
    # Steps: reset (1, 0, 0) x2; random (0, 3, 1<<39) twice, then (0, 200, 7) x4.
    text = (DATA / "replay_small.sv").read_text()
    out = compact_replay(text)
    assert out is not None
    assert len(out) < len(text)
    assert "localparam int NSTEPS = 3;" in out
    assert "'{2, 1, 0, 40'h0}," in out
    assert "'{2, 0, 3, 40'h8000000000}, '{4, 0, 'hc8, 40'h7}" in out
    assert "    // random" in out
    assert "coverage when run alone" not in out
    # Everything outside the table is untouched.
    assert out.split("typedef")[1].split("localparam")[0] == text.split("typedef")[1].split("localparam")[0]
    assert out.split("  };", 1)[1] == text.split("  };", 1)[1]


def test_other_testbenches_are_left_alone() -> None:
    tb = "module tb_top;\n  initial $finish;\nendmodule\n"
    assert compact_replay(tb) is None
    assert compact_or_same(tb) == tb
    assert compact_or_same("") == ""


@pytest.mark.simulator_required
@pytest.mark.skipif(not SUITE.is_dir(), reason="public benchmark suite not present")
def test_compact_replay_simulates_to_identical_coverage() -> None:
    from sim.run.evaluate import evaluate_sv
    from sim.suite import load_design

    design = load_design(SUITE / "cvdp__gf_multiplier")
    tb = (DATA / "replay_gf_multiplier.sv").read_text()
    full = evaluate_sv(design, tb, tb_name=f"tb_{design.top}.sv")
    assert full.status.value == "ok", full.log_tail
    small = compact_replay(tb)
    assert small is not None
    assert len(small) < 0.6 * len(tb)
    res = evaluate_sv(design, small, tb_name=f"tb_{design.top}.sv")
    assert res.status.value == "ok", res.log_tail
    assert res.coverage is not None
    assert full.coverage is not None
    assert res.coverage.percents() == full.coverage.percents()
