"""Design inference on the public suite with every design.toml hidden (issue 12 acceptance).

    nice python benchmarks/infer_public.py [SUITE] [--coverage --sim-calls 60] [--out out/infer]

Each design folder is copied to a temporary folder *without* its design.toml (rtl/,
human_tb/, spec/ and the rest come along, as in a real repository) and inferred the way
`benchwright init DIR` does. Per field it counts how many of the designs match their
design.toml: top, file set, clocks (as a set) and resets (name and polarity, as a set).
With `--coverage` the heuristic engine then runs once on the declared design and once on
the inferred one (same seed, same budget, no early stop) and the overall coverages are
compared (goal: equal within 0.5 points). Writes infer.json and infer.md under --out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SUITE = REPO.parent / "shared" / "benchmarks" / "public"
TOLERANCE = 0.5
"""Coverage points within which inferred and declared count as equal."""


def compare(declared: Any, inferred: Any, copy_root: Path) -> dict[str, Any]:
    """Per-field match of an inferred design (in `copy_root`) against the declared one."""
    decl_files = {str(p.relative_to(declared.root)) for p in declared.rtl}
    inf_files = {str(p.relative_to(copy_root)) for p in inferred.rtl}
    decl_resets = {(r.name, r.active_low) for r in declared.resets}
    inf_resets = {(r.name, r.active_low) for r in inferred.resets}
    return {
        "top": declared.top == inferred.top,
        "files": decl_files == inf_files,
        "clocks": set(declared.clocks) == set(inferred.clocks),
        "resets": decl_resets == inf_resets,
        "declared": {"top": declared.top, "files": sorted(decl_files), "clocks": sorted(declared.clocks),
                     "resets": sorted(decl_resets)},
        "inferred": {"top": inferred.top, "files": sorted(inf_files), "clocks": sorted(inferred.clocks),
                     "resets": sorted(inf_resets)},
    }


def coverage_of(design: Any, sim_calls: int, rounds: int, seed: int) -> float | None:
    """Overall coverage of the heuristic engine's best testbench (None when nothing simulated)."""
    from agent.loop import AgentConfig, run_episode
    from agent.policy import get_policy

    config = AgentConfig(refinements=rounds, target=100.0, max_sim_calls=sim_calls, wall_time_s=1800,
                         early_stop=False)
    episode = run_episode(design, get_policy("heuristic", seed=seed), config)
    best = episode.best_result
    return round(best.overall, 2) if best is not None and best.coverage is not None else None


def main() -> int:
    """Run the measurement; print the table and the per-field counts."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("suite", nargs="?", type=Path, default=DEFAULT_SUITE)
    p.add_argument("--coverage", action="store_true", help="also compare heuristic coverage")
    p.add_argument("--sim-calls", type=int, default=60, help="heuristic budget per episode (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=1, help="refinement rounds (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--only", help="comma-separated design names")
    p.add_argument("--out", type=Path, default=Path("benchwright-out/infer"))
    args = p.parse_args()
    sys.path.insert(0, str(REPO))
    from sim.errors import SimError
    from sim.project.discover import gather_folder, infer
    from sim.suite import load_suite

    designs = load_suite(args.suite)
    if args.only:
        designs = [d for d in designs if d.name in set(args.only.split(","))]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bw-infer-public-") as tmp:
        for declared in designs:
            copy = Path(tmp) / declared.name
            shutil.copytree(declared.root, copy, ignore=shutil.ignore_patterns("design.toml"))
            row: dict[str, Any] = {"name": declared.name}
            start = time.monotonic()
            try:
                inferred = infer(gather_folder(copy)).design
            except SimError as exc:
                row.update(top=False, files=False, clocks=False, resets=False, error=str(exc))
                rows.append(row)
                print(f"{declared.name:40s} ERROR {exc}", flush=True)
                continue
            row.update(compare(declared, inferred, copy))
            row["infer_s"] = round(time.monotonic() - start, 2)
            if args.coverage:
                row["cov_declared"] = coverage_of(declared, args.sim_calls, args.rounds, args.seed)
                # The inferred design lives in the copy; same name so run folders line up.
                row["cov_inferred"] = coverage_of(replace(inferred, name=declared.name), args.sim_calls,
                                                  args.rounds, args.seed)
                a, b = row["cov_declared"], row["cov_inferred"]
                row["cov_equal"] = a is not None and b is not None and abs(a - b) <= TOLERANCE
            rows.append(row)
            flags = " ".join(f"{k}={'ok' if row[k] else 'NO'}" for k in ("top", "files", "clocks", "resets"))
            cov = f" cov {row.get('cov_declared')} vs {row.get('cov_inferred')}" if args.coverage else ""
            print(f"{declared.name:40s} {flags}{cov}", flush=True)
    n = len(rows)
    counts = {k: sum(bool(r.get(k)) for r in rows) for k in ("top", "files", "clocks", "resets", "cov_equal")}
    summary = {"n": n, **{k: v for k, v in counts.items() if k != "cov_equal" or args.coverage},
               "sim_calls": args.sim_calls if args.coverage else None, "rounds": args.rounds}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "infer.json").write_text(json.dumps({"summary": summary, "designs": rows}, indent=1))
    lines = ["| design | top | files | clocks | resets |" + (" cov declared | cov inferred |" if args.coverage else ""),
             "|---|---|---|---|---|" + ("---|---|" if args.coverage else "")]
    for r in rows:
        cells = ["ok" if r.get(k) else "**no**" for k in ("top", "files", "clocks", "resets")]
        if args.coverage:
            cells += [str(r.get("cov_declared")), str(r.get("cov_inferred"))]
        lines.append(f"| {r['name']} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(" ".join(f"{k}: {v}/{n}" for k, v in summary.items() if k in counts))
    (args.out / "infer.md").write_text("\n".join(lines) + "\n")
    print(" ".join(f"{k} {v}/{n}" for k, v in summary.items() if k in counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
