"""Paired comparison of `benchwright bench` results (e.g. heuristic vs random vs human).

    python benchmarks/compare_bench.py OURS.json OTHER.json [MORE.json ...] [--markdown]

Heuristic vs the baselines at equal budget, for example:

    for p in heuristic random random-guided human; do
      benchwright bench ../shared/benchmarks/public --policy $p --sim-calls 200 --no-early-stop --out out/$p
    done
    python benchmarks/compare_bench.py out/{heuristic,random,random-guided,human}/bench.json

Prints per design the overall coverage of each run (failures count 0, as in Avg Cov), the
averages, the average difference OURS - OTHER, and on how many designs OURS >= OTHER.
Designs missing from a run are left out of that pair's counts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any


def overall(row: dict[str, Any]) -> float:
    """A design's score as Avg Cov counts it."""
    return float(row["overall"]) if row["sim_pass"] else 0.0


def main() -> int:
    """Print the paired table."""
    p = argparse.ArgumentParser()
    p.add_argument("runs", nargs="+", type=Path, help="bench.json files; the first is compared with each other")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args()
    runs = [json.loads(path.read_text()) for path in args.runs]
    names = [r.get("policy", path.parent.name) for r, path in zip(runs, args.runs, strict=True)]
    rows = [{d["name"]: d for d in r["designs"]} for r in runs]
    designs = list(rows[0])
    sep = " | " if args.markdown else "  "
    print(sep.join(["design".ljust(36), *[n.rjust(10) for n in names]]))
    for name in designs:
        cells = [f"{overall(r[name]):10.2f}" if name in r else f"{'-':>10}" for r in rows]
        print(sep.join([name.ljust(36), *cells]))
    ours = rows[0]
    for other_name, other in zip(names[1:], rows[1:], strict=True):
        common = [n for n in designs if n in other and (other[n]["sim_pass"] or other_name != "human")]
        diffs = [overall(ours[n]) - overall(other[n]) for n in common]
        wins = sum(d >= -1e-9 for d in diffs)
        print(f"\n{names[0]} vs {other_name}: {len(common)} designs"
              f"{' (human tests that ran)' if other_name == 'human' else ''}; "
              f"mean {statistics.fmean(overall(ours[n]) for n in common):.2f} vs "
              f"{statistics.fmean(overall(other[n]) for n in common):.2f} "
              f"(diff {statistics.fmean(diffs):+.2f}); {names[0]} >= {other_name} on {wins}/{len(common)} "
              f"({100 * wins / len(common):.0f} %)")
        hard = [n for n in common if overall(other[n]) < 95]
        if hard:
            print(f"  where {other_name} < 95 %: {len(hard)} designs, mean diff "
                  f"{statistics.fmean(overall(ours[n]) - overall(other[n]) for n in hard):+.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
