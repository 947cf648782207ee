"""Mutation score on a suite: heuristic, heuristic + mutation objective, random, human tests.

    nice python benchmarks/mutation_score.py [SUITE] [--designs a,b] [--cap 40] [--sim-calls 60]
        [--out benchmarks/results/mutation] [--ratio-designs 3 --ratio-samples 3]

Every source of a design is judged on the same mutants (a seeded sample of at most `--cap`).
A mutant no source kills is "possibly equivalent": the score is killed / (mutants - those).
`--ratio-designs N` also measures batched (one model, `+bw_mut=K`) against one model per
mutant on the first N designs: it builds `--ratio-samples` single-mutant models per design,
checks each gives the same verdict as the batched run, and extrapolates their mean cost to
every mutant. Writes mutation.json and mutation.md under `--out`.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.heuristic.engine import make_target, run_engine
from agent.heuristic.mutation_bench import (
    SOURCES,
    MutationBenchConfig,
    combine,
    markdown_table,
    score_design,
    summarize,
)
from agent.heuristic.program_search import ProgramSearchConfig
from agent.policy import Budget
from agent.program.encode import DATA_FILE, encode
from agent.program.sv import HARNESS_TOP, render_harness
from sim.analysis.interface import read_interface
from sim.mutation.model import kill_reason, prepare, run_one, single_mutant_design
from sim.mutation.testbench import build_sv_model, mutant_options
from sim.run.evaluate import build_sv
from sim.suite import Design, load_suite
from sim.types import SimResult

DEFAULT_SUITE = Path(__file__).resolve().parent.parent.parent / "shared" / "benchmarks" / "public"
"""The public suite beside the checkout."""


# ---------------------------------------------------------------------------------------
# batched vs one model per mutant


def batched_ratio(design: Design, cfg: MutationBenchConfig, samples: int) -> dict[str, Any]:
    """Cost of batched mutant analysis against one build per mutant, on one stimulus."""
    model = prepare(design, cap=cfg.cap, options=cfg.options)
    target, _ = make_target(design, read_interface(design), "heuristic")
    budget = Budget(sim_calls=cfg.sim_calls, deadline=time.monotonic() + cfg.wall_s)
    _tb, report = run_engine(design, strategy="heuristic", budget=budget, seed=cfg.seed, options=cfg.options,
                             config=ProgramSearchConfig(seed=cfg.seed), verify=False)
    if report.search is None:
        return {"name": design.name, "error": report.note}
    files = {DATA_FILE: encode(target, report.program)}
    # A fresh cache directory so neither approach gets a cache hit on its model.
    opts = replace(cfg.options, cache_dir=Path(cfg.options.cache_dir or Path.home() / ".cache" / "benchwright")
                   / f"ratio-{time.time_ns()}")
    t0 = time.monotonic()
    built = build_sv_model(model, render_harness(target), tb_name=f"{HARNESS_TOP}.sv", options=opts)
    if isinstance(built, SimResult):
        return {"name": design.name, "error": built.detail}
    base = run_one(built, 0, files)
    batched_verdicts = {m.id: kill_reason(base, run_one(built, m.id, files)) is not None for m in model.mutants}
    batched_s = time.monotonic() - t0
    single_costs, agree = [], 0
    picks = model.mutants[:: max(1, len(model.mutants) // max(1, samples))][:samples]
    for mutant in picks:
        t1 = time.monotonic()
        single = build_sv(single_mutant_design(model, mutant.id), render_harness(target), tb_name=f"{HARNESS_TOP}.sv",
                          options=mutant_options(opts))
        if isinstance(single, SimResult):
            continue
        verdict = kill_reason(base, run_one(single, 0, files)) is not None
        single_costs.append(time.monotonic() - t1)
        agree += verdict == batched_verdicts[mutant.id]
    per_mutant_s = statistics.fmean(single_costs) if single_costs else None
    return {
        "name": design.name, "mutants": len(model.mutants), "batched_s": round(batched_s, 2),
        "batched_build_s": round(built.build_s, 2), "single_model_s": round(per_mutant_s, 2) if per_mutant_s else None,
        "single_measured": len(single_costs), "single_agree": agree,
        "ratio": round(per_mutant_s * len(model.mutants) / batched_s, 1) if per_mutant_s else None,
    }


# ---------------------------------------------------------------------------------------


def main() -> int:
    """Score every design of the suite; write mutation.json and mutation.md."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("suite", nargs="?", type=Path, default=DEFAULT_SUITE)
    p.add_argument("--designs", help="comma-separated design names (default: all)")
    p.add_argument("--cap", type=int, default=40, help="mutants per design (default: %(default)s)")
    p.add_argument("--sim-calls", type=int, default=60, help="simulator calls per engine run (default: %(default)s)")
    p.add_argument("--wall", type=float, default=90.0, help="wall seconds per engine run (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/mutation"))
    p.add_argument("--ratio-designs", type=int, default=0, help="designs for the batched/per-mutant ratio")
    p.add_argument("--ratio-samples", type=int, default=3, help="single-mutant builds per ratio design")
    p.add_argument("--ratio-only", action="store_true", help="only measure the batched/per-mutant ratio")
    p.add_argument("--human-kinds", default="sv,cocotb", help="human test kinds to analyse (default: %(default)s)")
    p.add_argument("--sources", default=",".join(SOURCES),
                   help="sources to compute (default: all); the others come from --merge")
    p.add_argument("--merge", type=Path, help="an earlier mutation.json (same --cap) to take the other sources from")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--combine", type=Path, nargs="+", help="only combine these mutation.json files (later wins per "
                   "scored cell) into --out")
    args = p.parse_args()
    if args.combine:
        merged = combine([json.loads(path.read_text())["rows"] for path in args.combine])
        totals = summarize(merged)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "mutation.json").write_text(json.dumps({"rows": merged, "summary": totals}, indent=1))
        (args.out / "mutation.md").write_text(markdown_table(merged, totals))
        sys.stdout.write(json.dumps(totals, indent=1) + "\n")
        return 0
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if args.verbose else logging.WARNING)
    cfg = MutationBenchConfig(cap=args.cap, sim_calls=args.sim_calls, wall_s=args.wall, seed=args.seed,
                              human_kinds=tuple(args.human_kinds.split(",")), sources=tuple(args.sources.split(",")))
    previous = {r["name"]: r for r in json.loads(args.merge.read_text())["rows"]} if args.merge else {}
    designs = load_suite(args.suite)
    if args.designs:
        wanted = set(args.designs.split(","))
        designs = [d for d in designs if d.name in wanted]
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for i, design in enumerate([] if args.ratio_only else designs):
        row = score_design(design, cfg, previous.get(design.name))
        rows.append(row)
        cells = " ".join(f"{s}={row['sources'][s].get('score')}" for s in row.get("sources", {}))
        sys.stderr.write(f"[{i + 1}/{len(designs)}] {design.name}: {row.get('error', '')} {cells} "
                         f"({row.get('wall_s', 0)} s)\n")
        (args.out / "mutation.json").write_text(json.dumps({"rows": rows, "summary": summarize(rows)}, indent=1))
    ratios = [batched_ratio(d, cfg, args.ratio_samples) for d in designs[: args.ratio_designs]]
    summary = summarize(rows) if rows else {}
    if ratios:
        good = [r["ratio"] for r in ratios if r.get("ratio")]
        summary["batched_vs_single"] = {"designs": ratios, "median_ratio": statistics.median(good) if good else None}
    (args.out / "mutation.json").write_text(json.dumps({"rows": rows, "summary": summary,
                                                        "config": {"cap": cfg.cap, "sim_calls": cfg.sim_calls,
                                                                   "wall_s": cfg.wall_s, "seed": cfg.seed}},
                                                       indent=1))
    if rows:
        (args.out / "mutation.md").write_text(markdown_table(rows, summary))
    sys.stdout.write(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
