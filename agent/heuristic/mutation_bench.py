"""Mutation-score bench rows: heuristic, heuristic with the mutation objective, random, human.

`score_design` runs every stimulus source of one design against the same mutants (one
batched mutant model: the engine's harness replays the engine stimuli, the human test is
built against the same model) and marks the mutants nobody killed as possibly equivalent.
`summarize` and `markdown_table` are pure.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.heuristic.engine import make_target, run_engine
from agent.heuristic.mutation_objective import build_mutant_harness, score_program
from agent.heuristic.program_search import ProgramSearchConfig
from agent.policy import Budget
from sim.analysis.interface import read_interface
from sim.errors import SimError
from sim.mutation.model import MutationReport, mark_equivalent, prepare
from sim.mutation.testbench import analyse_human
from sim.run.evaluate import SimOptions
from sim.suite import Design

SOURCES: tuple[str, ...] = ("heuristic", "heuristic+mutation", "random", "human")
"""Stimulus sources compared, in column order."""


@dataclass(frozen=True)
class MutationBenchConfig:
    """Budgets of one mutation bench run."""

    cap: int = 40
    """Mutants per design (seeded, kind-balanced sample; the same for every source)."""
    sim_calls: int = 60
    """Simulator calls per engine run."""
    wall_s: float = 90.0
    """Wall budget per engine run."""
    seed: int = 0
    """Engine seed."""
    options: SimOptions = SimOptions(run_timeout_s=30.0)
    """Simulator options."""
    human_kinds: tuple[str, ...] = ("sv", "cocotb")
    """Kinds of human test analysed (cocotb runs cost seconds per mutant)."""
    sources: tuple[str, ...] = SOURCES
    """Sources to (re)compute; the others come from a previous run's row when one is given."""


def _engine(design: Design, strategy: str, objective: str, cfg: MutationBenchConfig) -> tuple[Any, float]:
    """One engine run (the harness's kept stimulus) and its wall time."""
    start = time.monotonic()
    budget = Budget(sim_calls=cfg.sim_calls, deadline=time.monotonic() + cfg.wall_s)
    search_cfg = ProgramSearchConfig(seed=cfg.seed, strategy=strategy, accumulate=strategy != "random")
    _tb, report = run_engine(design, strategy=strategy, budget=budget, seed=cfg.seed, options=cfg.options,
                             config=search_cfg, verify=True, objective=objective, mutation_cap=cfg.cap)
    return report, time.monotonic() - start


def _row(report: MutationReport | None, coverage: float | None, wall_s: float, note: str = "") -> dict[str, Any]:
    """One source's cell of a design row."""
    if report is None:
        return {"score": None, "note": note}
    return {
        "score": None if report.error else round(report.score, 2),
        "ratio": None if report.error else round(report.ratio, 2),
        "killed": len(report.killed), "mutants": len(report.mutants),
        "survived": [m.id for m in report.survived] if not report.error else [],
        "coverage": None if coverage is None else round(coverage, 2),
        "run_s": round(report.run_s, 3), "build_s": round(report.build_s, 2), "engine_s": round(wall_s, 2),
        "note": report.error or note,
    }


def _previous_report(design: Design, mutants: Sequence[Any], cell: dict[str, Any]) -> MutationReport:
    """A previous run's cell as a report over the same mutants (for equivalence marking)."""
    survived = set(cell.get("survived", []))
    return MutationReport(design.name, tuple(mutants), {m.id: "killed in the previous run" for m in mutants
                                                         if m.id not in survived})


def score_design(design: Design, cfg: MutationBenchConfig = MutationBenchConfig(),
                 previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """Mutation scores of every source on one design (same mutants for all).

    With `previous` (this design's row of an earlier run with the same mutants), only
    `cfg.sources` are recomputed and the others are taken from it.
    """
    start = time.monotonic()
    try:
        model = prepare(design, cap=cfg.cap, options=cfg.options)
        target, _ = make_target(design, read_interface(design), "heuristic")
    except SimError as exc:
        return {"name": design.name, "error": str(exc), "sources": {}}
    harness = build_mutant_harness(design, target, model=model, options=cfg.options)
    reports: dict[str, MutationReport] = {}
    extra: dict[str, tuple[float | None, float, str]] = {}
    if isinstance(harness, str):
        return {"name": design.name, "error": harness, "sources": {}}
    for source, strategy, objective in (("heuristic", "heuristic", "coverage"),
                                        ("heuristic+mutation", "heuristic", "coverage+mutation"),
                                        ("random", "random", "coverage")):
        if source not in cfg.sources:
            continue
        report, wall = _engine(design, strategy, objective, cfg)
        if report.search is None or not report.program.ops:
            extra[source] = (None, wall, report.note or "no stimulus")
            continue
        reports[source] = score_program(harness, report.program)
        coverage = report.final.coverage.overall if report.final is not None and report.final.coverage else None
        extra[source] = (coverage, wall, report.mutation)
    human_note = "no human test"
    if design.human_test is not None and design.human_test.kind not in cfg.human_kinds:
        human_note = f"{design.human_test.kind} human test not analysed in this run"
    elif design.human_test is not None and "human" in cfg.sources:
        try:
            t0 = time.monotonic()
            reports["human"] = analyse_human(design, model=model, options=cfg.options)
            extra["human"] = (None, time.monotonic() - t0, "")
        except SimError as exc:
            human_note = str(exc)
    kept: dict[str, dict[str, Any]] = {}
    if previous is not None:
        same = [(m["id"], m["description"]) for m in previous.get("mutant_list", [])] == \
            [(m.id, m.description) for m in model.mutants]
        if not same:
            return {"name": design.name, "error": "the previous run analysed other mutants", "sources": {}}
        for source in SOURCES:
            cell = previous["sources"].get(source, {})
            if source not in cfg.sources and cell.get("score") is not None:
                reports[source] = _previous_report(design, model.mutants, cell)
                kept[source] = cell
    marked = dict(zip(reports, mark_equivalent(list(reports.values())), strict=True))
    equivalent = next(iter(marked.values())).equivalent if marked else frozenset()
    sources = {}
    for source in SOURCES:
        rep = marked.get(source)
        cov, wall, note = extra.get(source, (None, 0.0, human_note if source == "human" else "not run"))
        sources[source] = _row(rep, cov, wall, note)
        if source in kept and rep is not None:
            sources[source] = {**kept[source], "score": round(rep.score, 2), "ratio": round(rep.ratio, 2)}
        elif previous is not None and source not in cfg.sources:
            sources[source] = previous["sources"].get(source, sources[source])
    return {
        "name": design.name, "found": model.found, "mutants": len(model.mutants), "rejected": len(model.rejected),
        "equivalent": sorted(equivalent), "human_kind": design.human_test.kind if design.human_test else None,
        "prepare_s": round(model.prepare_s, 2), "mutant_build_s": round(harness.built.build_s, 2),
        "wall_s": round(time.monotonic() - start, 1), "sources": sources,
        "mutant_list": [{"id": m.id, "kind": m.kind, "line": m.line, "description": m.description}
                        for m in model.mutants],
    }


def rescore(row: dict[str, Any]) -> dict[str, Any]:
    """A row with its possibly-equivalent set and scores recomputed from the cells' survivors.

    Used when cells of one design come from separate runs over the same mutants.
    """
    if row.get("error"):
        return row
    ids = [m["id"] for m in row["mutant_list"]]
    scored = {s: c for s, c in row["sources"].items() if c.get("score") is not None}
    equivalent = set(ids)
    for cell in scored.values():
        equivalent &= set(cell.get("survived", []))
    live = len(ids) - len(equivalent)
    sources = dict(row["sources"])
    for source, cell in scored.items():
        killed = len(ids) - len(cell.get("survived", []))
        sources[source] = {**cell, "killed": killed, "ratio": round(100.0 * killed / len(ids), 2) if ids else 0.0,
                           "score": round(100.0 * killed / live, 2) if live else 0.0}
    return {**row, "equivalent": sorted(equivalent), "sources": sources}


def combine(runs: Sequence[Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Rows of several runs over the same mutants: a later run's scored cells win; rescored."""
    rows: dict[str, dict[str, Any]] = {}
    for run in runs:
        for row in run:
            old = rows.get(row["name"])
            if old is None or old.get("error"):
                rows[row["name"]] = row
                continue
            if row.get("error") or old["mutant_list"] != row["mutant_list"]:
                continue
            cells = {s: c for s, c in row["sources"].items() if c.get("score") is not None}
            rows[row["name"]] = {**old, "sources": {**old["sources"], **cells}}
    return [rescore(rows[name]) for name in sorted(rows)]


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means per source, head-to-head counts against the human tests and random, costs."""
    ok = [r for r in rows if not r.get("error")]

    def scores(source: str, among: Sequence[dict[str, Any]] = ok) -> list[float]:
        return [r["sources"][source]["score"] for r in among if r["sources"][source].get("score") is not None]

    with_human = [r for r in ok if r["sources"]["human"].get("score") is not None]
    out: dict[str, Any] = {"designs": len(rows), "scored": len(ok), "with_human": len(with_human),
                           "mean": {s: _mean(scores(s)) for s in SOURCES},
                           "mean_on_human_designs": {s: _mean(scores(s, with_human)) for s in SOURCES}}
    for source in ("heuristic", "heuristic+mutation"):
        at_least = [r["name"] for r in with_human
                    if r["sources"][source].get("score") is not None
                    and r["sources"][source]["score"] >= r["sources"]["human"]["score"]]
        out[f"{source}_ge_human"] = len(at_least)
        out[f"{source}_ge_human_pct"] = round(100.0 * len(at_least) / len(with_human), 1) if with_human else None
        both = [r for r in ok if r["sources"][source].get("score") is not None
                and r["sources"]["random"].get("score") is not None]
        out[f"{source}_minus_random"] = _mean([r["sources"][source]["score"] - r["sources"]["random"]["score"]
                                               for r in both])
    analysis = [r["prepare_s"] + r["mutant_build_s"] + sum(r["sources"][s].get("run_s", 0.0) for s in SOURCES)
                for r in ok]
    out["analysis_s"] = {"median": round(statistics.median(analysis), 2) if analysis else None,
                         "max": round(max(analysis), 2) if analysis else None}
    out["mutants"] = {"total": sum(r["mutants"] for r in ok), "equivalent": sum(len(r["equivalent"]) for r in ok),
                      "found": sum(r["found"] for r in ok)}
    return out


def markdown_table(rows: Sequence[dict[str, Any]], summary: dict[str, Any]) -> str:
    """Per-design scores (percent of non-equivalent mutants killed) and the summary line."""
    head = ["design", "mutants", "equiv.", *SOURCES, "analysis s"]
    lines = ["# Mutation score", "",
             "Mean score: " + " · ".join(f"{s} {summary['mean'][s]}" for s in SOURCES)
             + f" · heuristic+mutation >= human on {summary['heuristic+mutation_ge_human']}/{summary['with_human']}"
             f" designs with a scored human test", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r.get("error"):
            lines.append(f"| {r['name']} | error: {r['error'][:80]} |" + " |" * (len(head) - 2))
            continue
        cells = [f"{r['sources'][s]['score']:.1f}" if r["sources"][s].get("score") is not None else "-"
                 for s in SOURCES]
        cost = r["prepare_s"] + r["mutant_build_s"] + sum(r["sources"][s].get("run_s", 0.0) for s in SOURCES)
        lines.append(f"| {r['name']} | {r['mutants']} | {len(r['equivalent'])} | " + " | ".join(cells)
                     + f" | {cost:.1f} |")
    return "\n".join(lines) + "\n"
