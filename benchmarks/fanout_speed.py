"""Speed-up of `bench --ray` on a two-node local Ray cluster against one process, and 1,000 designs on paper.

    python benchmarks/fanout_speed.py [--designs a,b,...] [--sim-calls 150] [--pool]
        [--out benchmarks/results/fanout_speed.md]

Runs `benchwright bench` on the same public designs (default: eight from several families
that use their budget) three ways, each cold (its own fresh build cache and ccache, as a
separate machine would start):

1. one process (`bench`, no `--jobs`);
2. with `--pool`: a local process pool (`bench --jobs 2`), for comparison;
3. a Ray cluster on this machine: a head and a second node (`ray start --block`, one CPU
   each, each node its own caches), `bench --ray ADDRESS`; the cluster starts before the
   clock does.

It checks that every configuration produced the same rows (coverage, calls, curve), prints
the wall times and the ratio, and projects the time of 1,000 designs on N workers from the
measured per-design costs of the one-process run: designs in submission order go to the
first free worker (what Ray's scheduler does with one CPU per task), each costing what it
cost alone, plus the per-design overhead measured on the cluster. On a 2-core machine the
two nodes share the cores, so the measured ratio is a lower bound for two machines.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from agent.fanout.cluster import LocalCluster  # noqa: E402
from agent.fanout.rows import comparable  # noqa: E402

PUBLIC = HERE.parent / "shared" / "benchmarks" / "public"
DEFAULT = (
    "cvdp__sipo_8bit", "cvdp__spi_fsm", "forencich__uart_rx", "nandland__spi_master", "wb2axip__sfifo",
    "verilogeval__review2015_fancytimer", "cvdp__lfsr_8bit", "common_cells__cc_fifo",
)
"""Designs that use their whole budget (never 100 %), from several families (as engine_speed.py)."""

WORKERS = (1, 2, 4, 8, 16, 32, 64, 128)
"""Worker counts of the projection."""


def cold_env(folder: Path) -> dict[str, str]:
    """Environment of a cold start: fresh build cache and compiler cache under `folder`."""
    return {"BENCHWRIGHT_CACHE": str(folder / "cache"), "CCACHE_DIR": str(folder / "ccache")}


def bench(suite: Path, out: Path, env: dict[str, str], calls: int, *extra: str) -> tuple[float, dict[str, Any]]:
    """One `benchwright bench`: its wall seconds and bench.json."""
    argv = [sys.executable, "-m", "benchwright.cli", "bench", str(suite), "--sim-calls", str(calls),
            "--out", str(out), *extra]
    start = time.monotonic()
    proc = subprocess.run(argv, env={**os.environ, **env}, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit(f"bench failed ({' '.join(extra) or 'local'}):\n{proc.stderr[-3000:]}")
    data: dict[str, Any] = json.loads((out / "bench.json").read_text())
    return wall, data


def makespan(costs: list[float], workers: int, overhead: float) -> float:
    """Designs in order, each to the first free worker; seconds until the last finishes."""
    free = [0.0] * workers
    for cost in costs:
        start = heapq.heappop(free)
        heapq.heappush(free, start + cost + overhead)
    return max(free)


def projection(costs: list[float], overhead: float, n: int = 1000) -> list[tuple[int, float, float]]:
    """(workers, hours for n designs cycling through `costs`, efficiency against a perfect split)."""
    many = [costs[k % len(costs)] for k in range(n)]
    one = makespan(many, 1, overhead)
    return [(w, makespan(many, w, overhead) / 3600, one / w / makespan(many, w, overhead)) for w in WORKERS]


def same_rows(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Names of designs whose rows differ beyond timing and placement."""
    rows_b = {r["name"]: comparable(r) for r in b["designs"]}
    return [r["name"] for r in a["designs"] if comparable(r) != rows_b.get(r["name"])]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--designs", default=",".join(DEFAULT), help="comma-separated public design names")
    p.add_argument("--sim-calls", type=int, default=150, help="simulator calls per design (default: %(default)s)")
    p.add_argument("--pool", action="store_true", help="also time a local pool (bench --jobs 2)")
    p.add_argument("--out", type=Path, default=HERE / "benchmarks/results/fanout_speed.md")
    args = p.parse_args()
    names = args.designs.split(",")
    work = Path(tempfile.mkdtemp(prefix="bwfan", dir="/tmp"))  # short: Ray's socket paths
    suite = work / "suite"
    suite.mkdir()
    for name in names:
        (suite / name).symlink_to(PUBLIC / name)
    load = [os.getloadavg()[0]]
    runs: dict[str, tuple[float, dict[str, Any]]] = {}
    try:
        runs["one process"] = bench(suite, work / "local", cold_env(work / "local"), args.sim_calls)
        load.append(os.getloadavg()[0])
        if args.pool:
            runs["process pool, 2"] = bench(suite, work / "pool", cold_env(work / "pool"), args.sim_calls,
                                            "--jobs", "2")
            load.append(os.getloadavg()[0])
        t0 = time.monotonic()
        with LocalCluster(nodes=2, cpus=1, temp_dir=work / "ray",
                          node_env=[cold_env(work / f"node{k}") for k in range(2)]) as cluster:
            startup = time.monotonic() - t0
            runs["Ray, 2 nodes x 1 CPU"] = bench(suite, work / "ray-out", cold_env(work / "driver"), args.sim_calls,
                                                 "--ray", cluster.address)
        load.append(os.getloadavg()[0])
    finally:
        shutil.rmtree(work, ignore_errors=True)

    one_wall, one = runs["one process"]
    ray_wall, ray = runs["Ray, 2 nodes x 1 CPU"]
    costs = [float(r["wall_s"]) for r in one["designs"]]
    # What the cluster spent beyond its busier node's designs: connecting, scheduling, moving files.
    by_node: dict[str, float] = {}
    for r in ray["designs"]:
        node = r.get("worker", "?").split()[0]
        by_node[node] = by_node.get(node, 0.0) + float(r["wall_s"])
    overhead = max(0.0, (ray_wall - max(by_node.values())) / len(costs))
    differ = {label: same_rows(one, data) for label, (_, data) in runs.items() if label != "one process"}
    lines = [
        "# Fan-out speed: one process against a two-node local Ray cluster", "",
        f"*Recorded {date.today().isoformat()} by `python benchmarks/fanout_speed.py --sim-calls {args.sim_calls}"
        f"{' --pool' if args.pool else ''}` on the shared 2-core machine (load average "
        f"{', '.join(f'{x:.1f}' for x in load)} before/between/after the runs); every run cold "
        "(fresh build cache and ccache per process or node).*", "",
        f"{len(names)} public designs, heuristic policy, {args.sim_calls} simulator calls, 3 refinements, early stop.", "",
        "| configuration | wall s | speed-up | rows identical to one process |", "|---|---|---|---|",
    ]
    for label, (wall, _) in runs.items():
        same = "-" if label == "one process" else ("yes" if not differ[label] else f"no: {', '.join(differ[label])}")
        lines.append(f"| {label} | {wall:.1f} | {one_wall / wall:.2f}x | {same} |")
    lines += ["", "Builds compile with `-j 2`, so one process already keeps both cores of this machine busy "
                  "while it builds; the two nodes here share those cores (and the machine's other work), where "
                  "separate machines would each bring their own."]
    lines += ["", f"The cluster took {startup:.1f} s to start (not in its wall time). Per-design overhead on the "
                  f"cluster beyond the designs' own time: {overhead:.2f} s.", "",
              "| design | one process s | on Ray s | node |", "|---|---|---|---|"]
    ray_rows = {r["name"]: r for r in ray["designs"]}
    for r in one["designs"]:
        other = ray_rows[r["name"]]
        lines.append(f"| {r['name']} | {r['wall_s']:.1f} | {other['wall_s']:.1f} | "
                     f"{other.get('worker', '?').split()[0]} |")
    mean = sum(costs) / len(costs)
    lines += ["", "## 1,000 designs on N workers (on paper)", "",
              f"From the one-process costs above (mean {mean:.1f} s per design, largest {max(costs):.1f} s), "
              f"cycled to 1,000 designs, each worker a machine as fast as this one running one design at a time, "
              f"plus {overhead:.2f} s per design of cluster overhead:", "",
              "| workers | hours | efficiency |", "|---|---|---|"]
    lines += [f"| {w} | {h:.2f} | {e:.0%} |" for w, h, e in projection(costs, overhead)]
    lines += ["", "At the default budget (400 calls) the public suite's designs cost about 50 s each on one "
                  "2-core machine (54 designs in about 45 minutes, issue 37); the hours scale with that mean: "
                  f"multiply by {50.0 / mean:.1f}.", ""]
    text = "\n".join(lines)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(
        {"walls": {k: round(v[0], 2) for k, v in runs.items()}, "costs": {r["name"]: r["wall_s"] for r in one["designs"]},
         "overhead_s": round(overhead, 3), "startup_s": round(startup, 2), "differ": differ, "load": load},
        indent=1), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
