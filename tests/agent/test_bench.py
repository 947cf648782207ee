from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.bench import markdown_table, summarize

ROOT = Path(__file__).resolve().parents[2]


def _row(name: str, sim: bool, cov: bool, overall: float, metrics: dict[str, float]) -> dict[str, object]:
    return {"name": name, "sim_pass": sim, "cov_pass": cov, "overall": overall, "metrics": metrics,
            "target": 90.0, "rounds": 1, "sim_calls": 10, "wall_s": 2.0}


def test_summary_counts_failures_as_zero() -> None:
    rows = [_row("a", True, True, 95.0, {"line": 100.0, "toggle": 90.0}),
            _row("b", False, False, 70.0, {}),  # a failure: its stale number must not count
            _row("c", True, False, 60.0, {"line": 50.0})]
    s = summarize(rows, 12.0)
    assert s["n"] == 3
    assert s["sim_pass"] == pytest.approx(66.67)
    assert s["cov_pass"] == pytest.approx(33.33)
    assert s["avg_cov"] == pytest.approx((95 + 0 + 60) / 3, abs=0.01)
    assert s["metrics"] == {"line": 75.0, "toggle": 90.0}
    assert s["sim_calls"] == 30


def test_markdown_table_has_all_rows() -> None:
    rows = [_row("a", True, True, 95.0, {"line": 100.0}), _row("b", True, False, 50.0, {"line": 50.0})]
    text = markdown_table({"summary": summarize(rows, 1.0), "designs": rows}, "heuristic")
    assert "| a | ✓ | ✓ | 95.00 | 100.0 |" in text
    assert "**all**" in text


@pytest.mark.simulator_required
def test_bench_cli_on_example_suite(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "traffic_light").symlink_to(ROOT / "examples" / "traffic_light")
    out = tmp_path / "out"
    env_cache = {"BENCHWRIGHT_CACHE": str(tmp_path / "cache")}
    import os

    for policy in ("human", "random"):
        proc = subprocess.run([sys.executable, "-m", "benchwright.cli", "bench", str(suite), "--policy", policy,
                               "--sim-calls", "30", "--rounds", "0", "--out", str(out / policy)],
                              capture_output=True, text=True, check=False, timeout=600, env={**os.environ, **env_cache})
        assert proc.returncode == 0, proc.stderr[-2000:]
        bench = json.loads((out / policy / "bench.json").read_text())
        assert set(bench["summary"]) >= {"n", "sim_pass", "cov_pass", "avg_cov", "metrics", "wall_s", "sim_calls"}
        (row,) = bench["designs"]
        assert set(row) >= {"name", "sim_pass", "cov_pass", "overall", "metrics", "target", "rounds", "sim_calls", "wall_s"}
        assert row["sim_pass"]
        assert (out / policy / "bench.md").is_file()
        assert (out / policy / "bench.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.simulator_required
def test_engine_samples_are_independent_seeds(tmp_path: Path) -> None:
    from agent.bench import BenchJob, run_job
    from sim.suite import load_design

    design = load_design(ROOT / "examples" / "traffic_light")
    job = BenchJob(design, "heuristic", {"seed": 5}, samples=2, refinements=0, max_sim_calls=6,
                   out_dir=tmp_path, early_stop=False)
    run_job(job)
    tbs = [(tmp_path / design.name / f"sample{k}" / f"tb_{design.top}.sv").read_text() for k in range(2)]
    # Sample k searches with seed 5 + k: the two episodes' stimulus differs.
    assert tbs[0] != tbs[1]


def test_reference_column_and_summary() -> None:
    rows = [{**_row("a", True, False, 80.0, {"line": 90.0}), "reference": 90.0},
            {**_row("b", True, True, 95.0, {"line": 100.0}), "reference": 94.0},
            _row("c", False, False, 0.0, {})]
    s = summarize(rows, 1.0)
    assert (s["avg_reference"], s["avg_cov_with_reference"], s["at_reference"]) == (92.0, 87.5, 1)
    text = markdown_table({"summary": s, "designs": rows}, "heuristic")
    assert "| reference | vs ref |" in text
    assert "| 90.00 | -10.00 |" in text
    assert "| 94.00 | +1.00 |" in text
    assert text.splitlines()[-3].endswith("| 92.00 | -4.50 |")
    assert "1/2 within 2 points" in text
    assert "reference" not in markdown_table({"summary": summarize(rows[2:], 1.0), "designs": rows[2:]}, "x")


@pytest.mark.simulator_required
def test_bench_cli_on_a_manifest(tmp_path: Path) -> None:
    import os
    import shutil

    shutil.copytree(ROOT / "examples" / "pwm_timer", tmp_path / "pwm")
    (tmp_path / "real.toml").write_text('[[design]]\nrepo = "pwm"\ntop = "pwm_timer"\nreference = 99.5\n')
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "benchwright.cli", "bench", str(tmp_path / "real.toml"),
                           "--policy", "random", "--sim-calls", "3", "--rounds", "0", "--out", str(out)],
                          capture_output=True, text=True, check=False, timeout=600,
                          env={**os.environ, "BENCHWRIGHT_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr[-2000:]
    (row,) = json.loads((out / "bench.json").read_text())["designs"]
    assert (row["name"], row["reference"], row["sim_pass"]) == ("pwm__pwm_timer", 99.5, True)
    assert "| reference | vs ref |" in (out / "bench.md").read_text()
