"""Heuristic engine vs the random baseline (and the human tests) at equal simulator budget.

Usage:
    .venv/bin/python benchmarks/heuristic_vs_random.py [--calls 200] [--designs a,b] [--human]
        [--suite ../shared/benchmarks/public] [--out /tmp/hvr.json]

Prints one row per design (overall coverage of each policy's final standalone testbench,
wall time, calls) and the averages; `--human` also scores each design's runnable human test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from agent.heuristic.engine import run_engine
from agent.heuristic.search import SearchConfig
from agent.policy import Budget
from sim.human import evaluate_human
from sim.suite import load_suite
from sim.types import Status


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", type=Path, default=Path(__file__).resolve().parents[2] / "shared/benchmarks/public")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--wall", type=float, default=300.0, help="wall-time budget per design and policy (s)")
    ap.add_argument("--designs", default="", help="comma-separated design names (default: all)")
    ap.add_argument("--policies", default="heuristic,random,random+reset")
    ap.add_argument("--human", action="store_true", help="also run the human tests")
    ap.add_argument("--human-json", type=Path, default=None,
                    help="human-test results from an earlier run (list of {name, status, overall})")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("/tmp/heuristic_vs_random.json"))
    args = ap.parse_args()

    designs = load_suite(args.suite)
    if args.designs:
        wanted = set(args.designs.split(","))
        designs = [d for d in designs if d.name in wanted]
    policies = args.policies.split(",")
    known_human: dict[str, float | None] = {}
    if args.human_json is not None:
        for item in json.loads(args.human_json.read_text()):
            known_human[item["name"]] = item["overall"] if item.get("status") == "ok" else None
        args.human = True
    rows = []
    print(f"{'design':38} " + " ".join(f"{p:>10} {'s':>5}" for p in policies) + ("   human" if args.human else ""))
    for d in designs:
        row: dict[str, object] = {"name": d.name, "target": d.target}
        for pol in policies:
            budget = Budget(args.calls, time.monotonic() + args.wall)
            t0 = time.monotonic()
            # `random+reset`: the random baseline with one proper reset first (stronger).
            cfg = SearchConfig(seed=args.seed, strategy=pol.split("+")[0], random_reset=pol.endswith("+reset"))
            _tb, rep = run_engine(d, strategy=cfg.strategy, budget=budget, seed=args.seed, config=cfg)
            wall = time.monotonic() - t0
            final = rep.final
            row[pol] = {
                "overall": round(final.overall, 2) if final is not None and final.status == Status.OK else 0.0,
                "metrics": final.coverage.percents() if final is not None and final.coverage else {},
                "wall_s": round(wall, 2), "sim_calls": rep.sim_calls, "reproduced": rep.reproduced,
                "note": rep.note, "steps": rep.search.steps if rep.search else 0,
            }
        if d.name in known_human:
            row["human"] = known_human[d.name]
        elif args.human and args.human_json is None and d.human_test is not None and d.human_test.runs:
            res = evaluate_human(d)
            row["human"] = round(res.overall, 2) if res.status == Status.OK else None
        rows.append(row)
        cells = " ".join(f"{row[p]['overall']:10.2f} {row[p]['wall_s']:5.1f}" for p in policies)  # type: ignore[index]
        human = row.get("human")
        print(f"{d.name:38} {cells}" + (f" {human:7.2f}" if isinstance(human, float) else ("       -" if args.human else "")),
              flush=True)
    print()
    for pol in policies:
        vals = [r[pol]["overall"] for r in rows]  # type: ignore[index]
        walls = [r[pol]["wall_s"] for r in rows]  # type: ignore[index]
        passed = sum(1 for r in rows if r[pol]["overall"] >= r["target"])  # type: ignore[index,operator]
        print(f"{pol:10} avg {statistics.mean(vals):6.2f}  median wall {statistics.median(walls):5.1f} s  "
              f"cov pass {passed}/{len(rows)}  not reproduced: "
              f"{[r['name'] for r in rows if not r[pol]['reproduced']]}")  # type: ignore[index]
    if args.human:
        paired = [r for r in rows if isinstance(r.get("human"), float)]
        if paired and "heuristic" in policies:
            wins = sum(1 for r in paired if r["heuristic"]["overall"] >= r["human"] - 1e-9)  # type: ignore[index,operator]
            print(f"heuristic >= human on {wins}/{len(paired)} designs with a runnable human test")
    args.out.write_text(json.dumps(rows, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
