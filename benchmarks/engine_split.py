"""The built-in engine on the tune and validation halves of the public suite (issue 14).

    # one bench per policy over the whole public suite, at equal budget
    for p in heuristic random; do
      benchwright bench ../shared/benchmarks/public --policy $p --no-early-stop --out out/$p
    done
    python benchmarks/engine_split.py --after out/heuristic --random out/random \\
        [--before out/heuristic-before] [--reachable ../shared/benchmarks/public] \\
        [--out benchmarks/results/engine_split]

Splits each bench.json by `engine_split.toml` (fixed, by design family) and reports, per
half: Cov Pass, Avg Cov, each metric's mean, the heuristic's margin over random (points,
and the share of what random leaves uncovered that the heuristic covers), and with
`--before` the per-design change. With `--reachable SUITE` each run's best testbench is
simulated again and its uncovered points classified by `sim.analysis.dead_points` (provably
unreachable at the design's parameters); Cov Pass and Avg Cov are then also given over the
reachable points (the raw numbers stay the headline). Writes `<out>.md` and `<out>.json`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

SPLIT_FILE = Path(__file__).with_name("engine_split.toml")
"""The fixed split."""

HALVES: tuple[str, ...] = ("tune", "validation")
"""Split halves, in report order."""


def load_split(path: Path = SPLIT_FILE) -> dict[str, tuple[str, ...]]:
    """Half -> design names; raises ValueError when a design is in both halves."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    split = {half: tuple(data[half]["designs"]) for half in HALVES}
    both = set(split["tune"]) & set(split["validation"])
    if both:
        raise ValueError(f"{path}: in both halves: {', '.join(sorted(both))}")
    return split


def score(row: Mapping[str, Any]) -> float:
    """A design's overall coverage as Avg Cov counts it (a failed run is 0)."""
    return float(row["overall"]) if row.get("sim_pass") else 0.0


def half_summary(rows: Mapping[str, Mapping[str, Any]], names: Sequence[str]) -> dict[str, Any]:
    """Cov Pass, Avg Cov and metric means over the designs of one half present in `rows`.

    Rows carrying `reachable_overall` (see `reachable_row`) also give the reachable figures.
    """
    present = [rows[n] for n in names if n in rows]
    metrics: dict[str, list[float]] = {}
    for row in present:
        for metric, value in row.get("metrics", {}).items():
            metrics.setdefault(metric, []).append(float(value))
    out = {
        "n": len(present),
        "missing": [n for n in names if n not in rows],
        "cov_pass": round(100.0 * sum(bool(r["cov_pass"]) for r in present) / len(present), 1) if present else 0.0,
        "avg_cov": round(statistics.fmean(score(r) for r in present), 2) if present else 0.0,
        "metrics": {m: round(statistics.fmean(v), 2) for m, v in metrics.items()},
    }
    reach = [r for r in present if "reachable_overall" in r]
    if reach and len(reach) == len(present):
        out["reachable_cov_pass"] = round(100.0 * sum(bool(r["reachable_pass"]) for r in reach) / len(reach), 1)
        out["reachable_avg_cov"] = round(statistics.fmean(float(r["reachable_overall"]) for r in reach), 2)
        out["dead_points"] = sum(int(r["dead_points"]) for r in reach)
        by_metric: dict[str, list[float]] = {}
        for r in reach:
            for metric, value in r.get("reachable_metrics", {}).items():
                by_metric.setdefault(metric, []).append(float(value))
        out["reachable_metrics"] = {m: round(statistics.fmean(v), 2) for m, v in by_metric.items()}
    return out


def reachable_row(row: Mapping[str, Any], dead: int, reachable: Mapping[str, float]) -> dict[str, Any]:
    """`row` with its coverage over the points reachable at the design's parameters.

    `reachable` is `sim.analysis.dead_points.reachable_percents` (per metric and `overall`); empty
    when the run could not be re-simulated (the raw numbers then stand).
    """
    overall = float(reachable.get("overall", score(row)))
    metrics = {k: v for k, v in reachable.items() if k != "overall"} or dict(row.get("metrics", {}))
    return {**row, "dead_points": dead, "reachable_overall": overall, "reachable_metrics": metrics,
            "reachable_pass": bool(row.get("sim_pass")) and overall >= float(row["target"])}


def margin(ours: Mapping[str, Mapping[str, Any]], base: Mapping[str, Mapping[str, Any]],
           names: Sequence[str]) -> dict[str, float]:
    """Heuristic minus random Avg Cov, and the share of random's uncovered remainder it covers."""
    both = [n for n in names if n in ours and n in base]
    if not both:
        return {"points": 0.0, "share_of_gap": 0.0, "n": 0}
    a = statistics.fmean(score(ours[n]) for n in both)
    b = statistics.fmean(score(base[n]) for n in both)
    gap = 100.0 - b
    return {"points": round(a - b, 2), "share_of_gap": round((a - b) / gap, 3) if gap > 0 else 1.0, "n": len(both)}


def design_changes(before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]],
                   names: Sequence[str]) -> list[dict[str, Any]]:
    """Per design: overall and pass before and after, and the change in points."""
    out = []
    for n in names:
        if n not in before or n not in after:
            continue
        out.append({"name": n, "before": score(before[n]), "after": score(after[n]),
                    "delta": round(score(after[n]) - score(before[n]), 2),
                    "pass_before": bool(before[n]["cov_pass"]), "pass_after": bool(after[n]["cov_pass"]),
                    "expr_before": before[n].get("metrics", {}).get("expr"),
                    "expr_after": after[n].get("metrics", {}).get("expr")})
    return out


def report(split: Mapping[str, Sequence[str]], after: Mapping[str, Mapping[str, Any]],
           random: Mapping[str, Mapping[str, Any]] | None = None,
           before: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Everything the markdown shows, per half and over the whole suite."""
    whole = [n for half in HALVES for n in split[half]]
    out: dict[str, Any] = {}
    for half, names in (*((h, split[h]) for h in HALVES), ("all", whole)):
        entry: dict[str, Any] = {"after": half_summary(after, names)}
        if before is not None:
            entry["before"] = half_summary(before, names)
            entry["changes"] = design_changes(before, after, names)
        if random is not None:
            entry["random"] = half_summary(random, names)
            entry["margin"] = margin(after, random, names)
        entry["below_best"] = below_best(after, [r for r in (before, random) if r is not None], names)
        out[half] = entry
    return out


def below_best(after: Mapping[str, Mapping[str, Any]], others: Sequence[Mapping[str, Mapping[str, Any]]],
               names: Sequence[str]) -> list[dict[str, Any]]:
    """Designs where another run (the previous engine, random) covered more than `after`.

    Where no run does better, the points still uncovered are most likely unreachable (the
    engine and uniform random at 400 calls stop at the same ceiling); the ones listed are
    where the engine itself leaves coverage behind.
    """
    out = []
    for n in names:
        best = max((score(o[n]) for o in others if n in o), default=None)
        if n in after and best is not None and best > score(after[n]) + 0.01:
            out.append({"name": n, "after": score(after[n]), "best_other": best})
    return out


def markdown(rep: Mapping[str, Any]) -> str:
    """The report as markdown: a summary table per half, then per-design changes."""
    lines = ["| half | run | n | Cov Pass | Avg Cov | line | branch | toggle | expr |", "|---|---|---|---|---|---|---|---|---|"]
    for half, entry in rep.items():
        for run in ("before", "after", "random"):
            if run not in entry:
                continue
            s = entry[run]
            m = s["metrics"]
            lines.append(f"| {half} | {run} | {s['n']} | {s['cov_pass']:.1f} % | {s['avg_cov']:.2f} % | "
                         + " | ".join(f"{m[k]:.1f}" if k in m else "-" for k in ("line", "branch", "toggle", "expr"))
                         + " |")
    reach_lines = []
    for half, entry in rep.items():
        for run in ("before", "after", "random"):
            s = entry.get(run, {})
            if "reachable_cov_pass" in s:
                m = s["reachable_metrics"]
                reach_lines.append(f"| {half} | {run} | {s['dead_points']} | {s['reachable_cov_pass']:.1f} % | "
                                   f"{s['reachable_avg_cov']:.2f} % | "
                                   + " | ".join(f"{m[k]:.1f}" if k in m else "-" for k in ("line", "branch", "toggle", "expr"))
                                   + " |")
    if reach_lines:
        lines += ["", "Over the points reachable at each design's parameters (`benchwright sim --dead`):", "",
                  "| half | run | dead points | Cov Pass | Avg Cov | line | branch | toggle | expr |",
                  "|---|---|---|---|---|---|---|---|---|", *reach_lines]
    lines.append("")
    for half, entry in rep.items():
        if "margin" in entry:
            mg = entry["margin"]
            lines.append(f"- {half}: heuristic - random = {mg['points']:+.2f} points over {mg['n']} designs, "
                         f"{100 * mg['share_of_gap']:.0f} % of what random leaves uncovered")
    for half, entry in rep.items():
        if half in HALVES and "below_best" in entry:
            low = entry["below_best"]
            what = ", ".join(f"{b['name']} ({b['after']:.2f} < {b['best_other']:.2f})" for b in low) or "none"
            lines.append(f"- {half}: designs where another run covered more than this engine: {what}")
    for half in HALVES:
        changes = rep.get(half, {}).get("changes")
        if not changes:
            continue
        lines += ["", f"### {half}: per design, before -> after", "",
                  "| design | before | after | change | pass | expr |", "|---|---|---|---|---|---|"]
        for c in changes:
            passed = f"{'yes' if c['pass_before'] else 'no'} -> {'yes' if c['pass_after'] else 'no'}"
            expr = f"{c['expr_before']} -> {c['expr_after']}" if c["expr_after"] is not None else "-"
            lines.append(f"| {c['name']} | {c['before']:.2f} | {c['after']:.2f} | {c['delta']:+.2f} | {passed} | {expr} |")
    return "\n".join(lines) + "\n"


def _rows(folder: Path | None, suite: Path | None = None) -> dict[str, dict[str, Any]] | None:
    if folder is None:
        return None
    path = folder / "bench.json" if folder.is_dir() else folder
    rows = {d["name"]: d for d in json.loads(path.read_text(encoding="utf-8"))["designs"]}
    if suite is None:
        return rows
    return {name: _with_reachable(row, path.parent / "designs" / name, suite / name) for name, row in rows.items()}


def _with_reachable(row: dict[str, Any], run_dir: Path, design_dir: Path) -> dict[str, Any]:
    """Simulate the run's best testbench again and classify its uncovered points."""
    from sim.analysis.dead_points import (
        dead_points,
        elaborated_facts,
        reachable_percents,
    )
    from sim.analysis.interface import read_tree
    from sim.run.evaluate import evaluate_sv
    from sim.suite import load_design

    trajectories = sorted(run_dir.glob("sample*/trajectory.json"))
    tb = json.loads(trajectories[0].read_text(encoding="utf-8")).get("best_testbench") if trajectories else None
    if not tb or not row.get("sim_pass"):
        return reachable_row(row, 0, {})
    design = load_design(design_dir)
    result = evaluate_sv(design, tb, tb_name=f"tb_{design.top}.sv")
    if result.coverage is None:
        return reachable_row(row, 0, {})
    dead = dead_points(result.uncovered, elaborated_facts(read_tree(design)))
    counts = {k: (v.covered, v.total) for k, v in result.coverage.metrics.items()}
    return reachable_row(row, len(dead), reachable_percents(counts, dead))


def main(argv: Sequence[str] | None = None) -> int:
    """Write the split report."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--after", type=Path, required=True, help="heuristic bench folder (or bench.json)")
    p.add_argument("--random", type=Path, help="random-policy bench at the same budget")
    p.add_argument("--before", type=Path, help="heuristic bench of the previous engine")
    p.add_argument("--reachable", type=Path, metavar="SUITE",
                   help="re-simulate each best testbench from SUITE and also score the reachable points")
    p.add_argument("--out", type=Path, help="write OUT.md and OUT.json (default: print markdown)")
    p.add_argument("--note", default="", help="a line saying how the benches were run (heads the markdown)")
    args = p.parse_args(argv)
    after = _rows(args.after, args.reachable)
    assert after is not None
    rep = report(load_split(), after, _rows(args.random, args.reachable), _rows(args.before, args.reachable))
    text = (f"{args.note}\n\n" if args.note else "") + markdown(rep)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".md").write_text(text, encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps(rep, indent=1), encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
