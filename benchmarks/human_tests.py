"""Run `benchwright sim --human --json` on every design of a suite; print a per-design table.

    python benchmarks/human_tests.py [SUITE] [--out results.json]

Each design runs as a separate `benchwright sim` process, exactly as a user would run it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from sim.suite import load_suite

DEFAULT_SUITE = Path(__file__).resolve().parent.parent.parent / "shared" / "benchmarks" / "public"


def main() -> int:
    """Run every runnable human test; exit 0."""
    p = argparse.ArgumentParser()
    p.add_argument("suite", nargs="?", type=Path, default=DEFAULT_SUITE)
    p.add_argument("--out", type=Path)
    p.add_argument("--timeout", type=float, default=120.0)
    args = p.parse_args()
    rows = []
    for design in load_suite(args.suite):
        if design.human_test is None:
            continue
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "benchwright.cli", "sim", str(design.root), "--human", "--json",
             "--timeout", str(args.timeout)], capture_output=True, text=True, check=False)
        wall = time.monotonic() - start
        try:
            res = json.loads(proc.stdout)
        except ValueError:
            res = {"status": "crash", "coverage": {"overall": None, "metrics": {}}, "detail": proc.stderr[-300:]}
        rows.append({"name": design.name, "kind": design.human_test.kind, "runs": design.human_test.runs,
                     "status": res["status"], "overall": res["coverage"]["overall"],
                     "metrics": res["coverage"]["metrics"], "detail": res.get("detail", ""), "wall_s": round(wall, 1)})
        r = rows[-1]
        m = r["metrics"]
        print(f"{r['name']:<36} {r['kind']:<6} {r['status']:<14} overall={r['overall']!s:<6} "
              f"line={m.get('line', '-')!s:<6} branch={m.get('branch', '-')!s:<6} toggle={m.get('toggle', '-')!s:<6} "
              f"expr={m.get('expr', '-')!s:<6} {r['wall_s']:>5}s {r['detail'][:60]}", flush=True)
    with_cov = [r for r in rows if r["overall"] is not None]
    print(f"\n{len(rows)} human tests, {len(with_cov)} produced coverage, "
          f"{sum(r['status'] == 'ok' for r in rows)} ok")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
