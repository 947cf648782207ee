"""Simulator calls per second of the built-in engine against an earlier commit's, in one script.

    git worktree add /tmp/bw-before <commit>          # or: git archive <commit> | tar -x -C /tmp/bw-before
    python benchmarks/engine_speed.py --before /tmp/bw-before [--designs a,b] [--calls 100] [--repeats 2]

Each design's episode (`run_engine`, seed 0, `--calls` simulator calls, heuristic strategy)
runs in a fresh Python process per engine with that checkout first on `sys.path`, the two
engines interleaved (before, after, before, after, ...) so machine load falls on both alike.
The build cache is shared and warmed by a first untimed run of each, so the figures compare
the search and its trials, not Verilator's compile. Prints calls per second per design and
engine, and the after/before ratio (above 1: faster); the summary ratio is total calls over
total seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
PUBLIC = HERE.parent / "shared" / "benchmarks" / "public"
DEFAULT = (
    "cvdp__sipo_8bit", "cvdp__spi_fsm", "forencich__uart_rx", "nandland__spi_master", "wb2axip__sfifo",
    "verilogeval__review2015_fancytimer", "cvdp__lfsr_8bit", "common_cells__cc_fifo",
)
"""Designs that use the whole budget (never 100 %), from several families."""

CHILD = """
import json, sys, time
from pathlib import Path
from agent.heuristic.engine import run_engine
from agent.policy import Budget
from sim.suite import load_design
design = load_design(Path(sys.argv[1]))
start = time.monotonic()
_tb, rep = run_engine(design, strategy="heuristic", budget=Budget(int(sys.argv[2]), start + 3600), seed=0)
cov = rep.final.coverage.overall if rep.final is not None and rep.final.coverage is not None else None
print(json.dumps({"calls": rep.sim_calls, "seconds": time.monotonic() - start, "overall": cov}))
"""


def episode(checkout: Path, design: Path, calls: int) -> dict[str, Any]:
    """One episode in a fresh process with `checkout` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(design), str(calls)], env=env, cwd=checkout,
                         capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", type=Path, required=True, help="a checkout of the earlier commit")
    p.add_argument("--after", type=Path, default=HERE, help="a checkout of the later commit (default: this one)")
    p.add_argument("--suite", type=Path, default=PUBLIC)
    p.add_argument("--designs", default=",".join(DEFAULT))
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--md", type=Path, help="also write the table here")
    args = p.parse_args()
    engines = {"before": args.before.resolve(), "after": args.after.resolve()}
    rows = ["| design | before calls/s | after calls/s | ratio | before cov | after cov |", "|---|---|---|---|---|---|"]
    total = {k: [0.0, 0.0] for k in engines}
    for name in args.designs.split(","):
        design = args.suite / name
        for checkout in engines.values():
            episode(checkout, design, 5)  # warm the build cache: not timed
        per = {k: [0.0, 0.0] for k in engines}
        cov: dict[str, Any] = {}
        for _ in range(args.repeats):
            for key, checkout in engines.items():
                r = episode(checkout, design, args.calls)
                per[key][0] += r["calls"]
                per[key][1] += r["seconds"]
                cov[key] = r["overall"]
        rate = {k: v[0] / v[1] for k, v in per.items()}
        for k, v in per.items():
            total[k][0] += v[0]
            total[k][1] += v[1]
        rows.append(f"| {name} | {rate['before']:.2f} | {rate['after']:.2f} | {rate['after'] / rate['before']:.2f} | "
                    f"{cov['before']} | {cov['after']} |")
        print(rows[-1], flush=True)
    rate = {k: v[0] / v[1] for k, v in total.items()}
    rows.append(f"| **all** | {rate['before']:.2f} | {rate['after']:.2f} | **{rate['after'] / rate['before']:.2f}** | | |")
    text = "\n".join(rows) + "\n"
    print(text)
    if args.md is not None:
        args.md.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
