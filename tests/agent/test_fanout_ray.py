"""`bench --ray` on a real local Ray cluster (a head and a second worker node, each its own process
group and build cache): the same rows and testbenches as a local run, and a worker killed mid-run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.fanout.rows import comparable

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT.parent / "shared" / "benchmarks" / "public"
DESIGNS = ("cocotb__counter", "cvdp__gray_to_binary", "cvdp__lfsr_8bit")
"""Three of the quickest public designs (a few simulator calls each)."""

pytestmark = [pytest.mark.simulator_required,
              pytest.mark.skipif(not PUBLIC.is_dir(), reason="shared/benchmarks/public not present")]


def bench(suite: Path, out: Path, cache: Path, *extra: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "benchwright.cli", "bench", str(suite), "--sim-calls", "8", "--rounds", "0",
            "--out", str(out), *extra]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "BENCHWRIGHT_CACHE": str(cache)})


def finish(proc: subprocess.Popen[str], out: Path) -> dict[str, Any]:
    _, err = proc.communicate(timeout=400)
    assert proc.returncode == 0, err[-4000:]
    rows: dict[str, Any] = {r["name"]: r for r in json.loads((out / "bench.json").read_text())["designs"]}
    return rows


def written_testbenches(out: Path) -> dict[str, str]:
    return {p.parent.parent.name: p.read_text() for p in sorted(out.glob("designs/*/sample0/tb_*.sv"))}


@pytest.fixture(scope="module")
def work() -> Iterator[Path]:
    # Short: Ray's socket paths under its session folder must fit 107 bytes.
    folder = Path(tempfile.mkdtemp(prefix="bwray", dir="/tmp"))
    suite = folder / "suite"
    suite.mkdir()
    for name in DESIGNS:
        (suite / name).symlink_to(PUBLIC / name)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def started(work: Path) -> Iterator[tuple[Any, subprocess.Popen[str]]]:
    """The cluster, and the plain local `bench` of the three designs (its own cache) started beside it."""
    from agent.fanout.cluster import LocalCluster

    proc = bench(work / "suite", work / "local", work / "local-cache")
    # Each node has its own build cache, as separate machines would: nothing is shared but the RTL.
    nodes = LocalCluster(nodes=2, cpus=1, temp_dir=work / "ray",
                         node_env=[{"BENCHWRIGHT_CACHE": str(work / f"node{k}")} for k in range(2)])
    try:
        nodes.start()
        yield nodes, proc
    finally:
        nodes.stop()
        if proc.poll() is None:
            proc.kill()


@pytest.fixture(scope="module")
def cluster(started: tuple[Any, subprocess.Popen[str]]) -> Any:
    return started[0]


@pytest.fixture(scope="module")
def local(work: Path, started: tuple[Any, subprocess.Popen[str]]) -> tuple[dict[str, Any], dict[str, str]]:
    """The local run's rows and testbenches: what the cluster must reproduce."""
    return finish(started[1], work / "local"), written_testbenches(work / "local")


def test_bench_on_ray_matches_local(work: Path, cluster: Any, local: tuple[dict[str, Any], dict[str, str]]) -> None:
    out = work / "ray"
    # --ship always: the nodes run the designs from the files the driver sent, under paths of their
    # own, as a machine without the repository would; the rows must not change.
    rows = finish(bench(work / "suite", out, work / "driver-cache", "--ray", cluster.address, "--ship", "always",
                        "--only", "cocotb__counter,cvdp__gray_to_binary"), out)
    want, tbs = local
    assert {n: comparable(r) for n, r in rows.items()} == {n: comparable(want[n]) for n in rows}
    assert written_testbenches(out) == {n: tbs[n] for n in rows}
    # Both nodes worked (one CPU each), and neither touched the driver's cache.
    assert len({r["worker"].split()[0] for r in rows.values()}) == 2
    assert not (work / "driver-cache").exists()
    run = json.loads((out / "bench.json").read_text())["run"]
    assert (run["backend"], run["nodes"], run["cpus"]) == ("ray", 2, 2)
    assert sorted(run["staged"]) == sorted(rows)


def _busy_workers(cluster: Any) -> list[int]:
    """Worker processes of this cluster running a design now."""
    return [pid for pid, title in cluster.members().items() if title.startswith("ray::ray_task")]


def test_killed_worker_is_retried(work: Path, cluster: Any, local: tuple[dict[str, Any], dict[str, str]]) -> None:
    out = work / "killed"
    proc = bench(work / "suite", out, work / "driver-cache", "--ray", cluster.address, "--only", "cvdp__lfsr_8bit")
    deadline = time.monotonic() + 120
    while not (busy := _busy_workers(cluster)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert busy, "no worker started the design"
    time.sleep(1.0)  # mid-run: building or simulating
    os.kill(busy[0], signal.SIGKILL)
    rows = finish(proc, out)
    row = rows["cvdp__lfsr_8bit"]
    (retry,) = row["retries"]
    assert retry["attempt"] == 1
    assert "WorkerCrashedError" in retry["reason"]
    assert f"pid {busy[0]}" in retry["worker"]
    assert f"pid {busy[0]}" not in row["worker"]
    assert comparable(row) == comparable(local[0]["cvdp__lfsr_8bit"])
    assert written_testbenches(out) == {"cvdp__lfsr_8bit": local[1]["cvdp__lfsr_8bit"]}
    assert json.loads((out / "bench.json").read_text())["run"]["staged"] == []  # the node has the files
    text = (out / "bench.md").read_text()
    assert "## Retried designs" in text
    assert f"attempt 1 lost on {retry['worker']}" in text
