"""`benchwright run-all` on a small repository: every top, a broken file as a row, JUnit, resume after an interrupt."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from agent.fanout.rows import comparable
from sim.project.all_tops import repository_designs

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT.parent / "shared" / "benchmarks" / "public"

pytestmark = [pytest.mark.simulator_required,
              pytest.mark.skipif(not PUBLIC.is_dir(), reason="shared/benchmarks/public not present")]

BROKEN = "module broken (input a, output b);\n  assign b = a +;\nendmodule\n"


def make_repo(root: Path) -> Path:
    """Two tops from public designs (their licence texts beside them) and a file Verilator rejects."""
    (root / "rtl").mkdir(parents=True)
    (root / "LICENSES").mkdir()
    for design, licence in (("cocotb__counter", "cocotb__cocotb_LICENSE.txt"),
                            ("cvdp__gray_to_binary", "cvdp_dataset_LICENSE.txt")):
        for src in (PUBLIC / design / "rtl").iterdir():
            shutil.copy(src, root / "rtl" / src.name)
        shutil.copy(PUBLIC / "LICENSES" / licence, root / "LICENSES" / licence)
    (root / "rtl" / "broken.v").write_text(BROKEN)
    return root


def run_all(repo: Path, out: Path, cache: Path, *extra: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "benchwright.cli", "run-all", str(repo), "--out", str(out), "--sim-calls", "6",
            "--rounds", "0", *extra]
    # SIGINT at its default in the child: a shell's background job (`make test &`) starts with
    # it ignored, Python then installs no KeyboardInterrupt handler, and no interrupt would land.
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "BENCHWRIGHT_CACHE": str(cache)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def interrupt_after_first_design(repo: Path, tmp_path: Path, tries: int = 3) -> tuple[Path, Path, str]:
    """Interrupt a run once its first design (counter) is kept, while the second runs.

    On a loaded machine the second design (a few seconds once its build is cached) can finish
    before the signal lands; that run proves nothing about resuming, so it is tried again with a
    fresh output folder and build cache (a warm cache would only narrow the window), and the outcome
    of every try is kept for the failure message. Returns the output folder, the cache and stderr.
    """
    seen: list[str] = []
    for attempt in range(tries):
        out, cache = tmp_path / f"out{attempt}", tmp_path / f"cache{attempt}"
        proc = run_all(repo, out, cache)
        kept = out / "rows" / "counter.json"
        deadline = time.monotonic() + 240
        while not kept.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert kept.exists(), proc.communicate()[1][-3000:]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 130:
            return out, cache, err
        # The only other acceptable outcome: the run ended on its own (exit 1: the broken file).
        assert proc.returncode == 1, err[-3000:]
        assert (out / "bench.json").exists(), err[-3000:]
        seen.append(f"try {attempt}: rc {proc.returncode}, {err[-600:]}")
    raise AssertionError("the interrupt never landed while the second design ran:\n" + "\n".join(seen))


def test_repository_designs_finds_every_top_and_the_broken_file(tmp_path: Path) -> None:
    opened = {o.name: o for o in repository_designs(make_repo(tmp_path / "repo"))}
    assert sorted(opened) == ["counter", "gray_to_binary", "rtl/broken.v"]
    counter = opened["counter"].design
    assert counter is not None
    assert counter.clocks == ("clk",)
    assert opened["rtl/broken.v"].design is None
    assert "Verilator rejected rtl/broken.v: line 2" in opened["rtl/broken.v"].reason


def test_run_all_interrupted_then_resumed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    out, cache, err = interrupt_after_first_design(repo, tmp_path)
    assert "interrupted: 1 of 2 designs done" in err
    assert "--resume" in err
    assert not (out / "bench.json").exists()

    proc = run_all(repo, out, cache, "--resume")
    stdout, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err[-3000:]  # 1: a design (the broken file) has no results
    assert "resumed counter" in err
    assert "start gray_to_binary" in err
    assert "start counter" not in err
    bench = json.loads((out / "bench.json").read_text())
    rows = {r["name"]: r for r in bench["designs"]}
    assert list(rows) == ["counter", "gray_to_binary", "rtl/broken.v"]
    assert rows["counter"]["sim_pass"]
    assert rows["gray_to_binary"]["overall"] == 100.0
    assert rows["rtl/broken.v"]["status"] == "not_opened"
    assert "syntax error" in rows["rtl/broken.v"]["detail"]
    assert bench["run"]["resumed"] == ["counter"]
    assert bench["summary"]["n"] == 3
    assert "## Designs without results" in stdout
    assert "| counter | ✓ |" in stdout
    assert (out / "bench.png").is_file()
    assert (out / "designs" / "gray_to_binary" / "sample0").is_dir()
    suite = ET.parse(out / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("errors")) == ("3", "1")

    # The resumed row is the row an uninterrupted run computes.
    proc = run_all(repo, tmp_path / "again", cache)
    proc.communicate(timeout=300)
    again = {r["name"]: r for r in json.loads((tmp_path / "again" / "bench.json").read_text())["designs"]}
    assert {n: comparable(r) for n, r in again.items()} == {n: comparable(r) for n, r in rows.items()}
