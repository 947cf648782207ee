"""Bench a policy (or the human tests) on a suite: Sim Pass, Cov Pass, Avg Cov, per metric.

Pure aggregation (`summarize`, `markdown_table`) beside thin runners and a plot writer.
"""

from __future__ import annotations

import json
import multiprocessing
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.suite import Design
from sim.types import METRICS


@dataclass(frozen=True)
class BenchJob:
    """One design to score (picklable: it crosses process boundaries)."""

    design: Design
    """The design."""
    policy: str
    """Policy name, or `human`."""
    policy_options: dict[str, Any] = field(default_factory=dict)
    """Constructor options of the policy."""
    samples: int = 1
    """Independent episodes (different seeds); per-design numbers are their mean."""
    refinements: int = 3
    """Refinements per episode."""
    max_sim_calls: int = 400
    """Simulator budget per episode."""
    wall_time_s: float = 600.0
    """Wall budget per episode."""
    out_dir: Path | None = None
    """Where each episode writes its testbench and trajectory."""
    early_stop: bool = True
    """Stop an episode once the design's target is met (False: use the whole budget)."""
    mutants: int | None = None
    """With a cap: also score the best testbench's mutation kill ratio on at most this many mutants."""
    reference: float | None = None
    """Coverage of a reference testbench (a manifest's `reference =`), reported beside ours."""


def _mean(values: Sequence[float]) -> float:
    return float(statistics.fmean(values)) if values else 0.0


def run_job(job: BenchJob, on_step: Callable[[Any, Any], None] | None = None) -> dict[str, Any]:
    """Score one design; returns its row of bench.json (plus a `curve`, and `reference` when known).

    `on_step(record, episode)` hears every step of every episode (agent.fanout's progress).
    """
    row = _score(job, on_step)
    if job.reference is not None:
        row["reference"] = job.reference
    return row


def _score(job: BenchJob, on_step: Callable[[Any, Any], None] | None = None) -> dict[str, Any]:
    """Score one design with the job's policy (or its human test)."""
    start = time.monotonic()
    if job.policy == "human":
        from sim.run.human import evaluate_human

        res = evaluate_human(job.design)
        ok = res.status.value == "ok" and res.coverage is not None
        overall = res.overall if ok else 0.0
        return {
            "name": job.design.name, "sim_pass": ok, "cov_pass": ok and overall >= job.design.target,
            "overall": round(overall, 2), "metrics": res.coverage.percents() if res.coverage and ok else {},
            "target": job.design.target, "rounds": 0, "sim_calls": 1, "wall_s": round(time.monotonic() - start, 2),
            "status": res.status.value, "detail": res.detail, "notes": list(res.notes),
            "curve": [[1, round(overall, 2)]],
            **(_mutation_cell(job, None) if job.mutants is not None else {}),
        }
    from agent.loop import AgentConfig, run_episode
    from agent.policy import get_policy

    rows: list[dict[str, Any]] = []
    for sample in range(job.samples):
        options = dict(job.policy_options)
        if job.policy in ("heuristic", "random", "random-guided"):
            # Independent episodes: sample k runs with the base seed + k (`--seed` sets the base).
            options["seed"] = int(options.get("seed", 0)) + sample
        policy = get_policy(job.policy, **options)
        out = job.out_dir / job.design.name / f"sample{sample}" if job.out_dir else None
        cfg = AgentConfig(refinements=job.refinements, max_sim_calls=job.max_sim_calls,
                          wall_time_s=job.wall_time_s, trajectory_dir=out, early_stop=job.early_stop)
        t0 = time.monotonic()
        try:
            ep = run_episode(job.design, policy, cfg, on_step=on_step)
        finally:
            close = getattr(policy, "close", None)
            if callable(close):
                close()
        best = ep.best_result
        ok = best is not None and best.status.value == "ok" and best.coverage is not None
        if out is not None and ep.best_testbench:
            (out / f"tb_{job.design.top}.sv").write_text(ep.best_testbench)
        rows.append({
            "sim_pass": ok, "cov_pass": ep.passed, "overall": best.overall if ok and best else 0.0,
            "metrics": best.coverage.percents() if ok and best and best.coverage else {},
            "rounds": len(ep.steps), "sim_calls": ep.sim_calls, "wall_s": time.monotonic() - t0,
            "status": best.status.value if best else "none", "curve": ep.curve(),
            **(_mutation_cell(job, ep.best_testbench) if job.mutants is not None and ep.best_testbench else {}),
        })
    metric_names = sorted({m for r in rows for m in r["metrics"]}, key=lambda m: METRICS.index(m) if m in METRICS else 99)
    return {
        "name": job.design.name,
        "sim_pass": _mean([float(r["sim_pass"]) for r in rows]) >= 0.5,
        "cov_pass": _mean([float(r["cov_pass"]) for r in rows]) >= 0.5,
        "overall": round(_mean([r["overall"] for r in rows]), 2),
        "metrics": {m: round(_mean([r["metrics"].get(m, 0.0) for r in rows]), 2) for m in metric_names},
        "target": job.design.target,
        "rounds": round(_mean([r["rounds"] for r in rows]), 2),
        "sim_calls": round(_mean([r["sim_calls"] for r in rows]), 1),
        "wall_s": round(_mean([r["wall_s"] for r in rows]), 2),
        "status": rows[0]["status"] if rows else "none",
        "samples": len(rows),
        "curve": rows[0]["curve"] if rows else [],
        **({k: rows[0][k] for k in ("mutation", "mutation_note", "mutants", "killed", "own_checks") if k in rows[0]}
           if rows else {}),
    }


def _mutation_cell(job: BenchJob, testbench: str | None) -> dict[str, Any]:
    """Mutation kill ratio of a testbench (None: the human test) on the design's mutant sample."""
    from sim.mutation.report import bench_cell

    return bench_cell(job.design, testbench, job.mutants)


def summarize(designs: Sequence[dict[str, Any]], wall_s: float) -> dict[str, Any]:
    """The bench summary: percentages 0-100, failures count 0 in Avg Cov."""
    n = len(designs)
    metric_names = [m for m in METRICS if any(m in d["metrics"] for d in designs)]
    return {
        "n": n,
        "sim_pass": round(100.0 * sum(d["sim_pass"] for d in designs) / n, 2) if n else 0.0,
        "cov_pass": round(100.0 * sum(d["cov_pass"] for d in designs) / n, 2) if n else 0.0,
        "avg_cov": round(_mean([d["overall"] if d["sim_pass"] else 0.0 for d in designs]), 2),
        # A design without points of a metric has no number for it; it is not counted as 0.
        "metrics": {m: round(_mean([d["metrics"][m] for d in designs if m in d["metrics"]]), 2) for m in metric_names},
        "wall_s": round(wall_s, 2),
        "median_wall_s": round(statistics.median([d["wall_s"] for d in designs]), 2) if n else 0.0,
        "sim_calls": round(sum(d["sim_calls"] for d in designs), 1),
        **({"avg_mutation": round(_mean([d["mutation"] for d in designs if d.get("mutation") is not None]), 2),
            "avg_own_checks": round(_mean([d["own_checks"] for d in designs if d.get("own_checks") is not None]), 2)}
           if any("mutation" in d for d in designs) else {}),
        **(_reference_summary(designs) if any(d.get("reference") is not None for d in designs) else {}),
    }


def _reference_summary(designs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean reference coverage and ours over the same designs (failures count 0), and how many reach it."""
    with_ref = [d for d in designs if d.get("reference") is not None]
    ours = [d["overall"] if d["sim_pass"] else 0.0 for d in with_ref]
    return {"avg_reference": round(_mean([d["reference"] for d in with_ref]), 2),
            "avg_cov_with_reference": round(_mean(ours), 2),
            "at_reference": sum(o >= d["reference"] - REFERENCE_MARGIN for o, d in zip(ours, with_ref, strict=True))}


REFERENCE_MARGIN = 2.0
"""Points below a reference that still count as reaching it (issue 25's acceptance bar)."""


def markdown_table(bench: dict[str, Any], policy: str) -> str:
    """bench.json as a markdown table (one row per design, then the summary)."""
    s = bench["summary"]
    metric_names = list(s["metrics"])
    mutation = any("mutation" in d for d in bench["designs"])
    reference = "avg_reference" in s
    head = ["design", "sim", "cov", "overall", *metric_names, "target", "rounds", "sim calls", "wall s",
            *(["mutants killed %", "by own checks %"] if mutation else []),
            *(["reference", "vs ref"] if reference else [])]
    lines = [f"# Bench: policy `{policy}`", "",
             f"Sim Pass {s['sim_pass']:.1f} % · Cov Pass {s['cov_pass']:.1f} % · Avg Cov {s['avg_cov']:.2f} % · "
             f"{s['n']} designs · {s['sim_calls']:.0f} sim calls · {s['wall_s']:.0f} s (median {s['median_wall_s']:.1f} s/design)",
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for d in bench["designs"]:
        cells = [d["name"], "✓" if d["sim_pass"] else "✗", "✓" if d["cov_pass"] else "✗", f"{d['overall']:.2f}",
                 *[f"{d['metrics'][m]:.1f}" if m in d["metrics"] else "-" for m in metric_names],
                 f"{d['target']:g}", f"{d['rounds']:g}", f"{d['sim_calls']:g}", f"{d['wall_s']:.1f}",
                 *([f"{d['mutation']:.1f}" if d.get("mutation") is not None else "-",
                    f"{d['own_checks']:.1f}" if d.get("own_checks") is not None else "-"] if mutation else []),
                 *(_reference_cells(d) if reference else [])]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("| **all** | " + f"{s['sim_pass']:.1f}% | {s['cov_pass']:.1f}% | {s['avg_cov']:.2f} | "
                 + " | ".join(f"{s['metrics'][m]:.1f}" for m in metric_names) + " | | | "
                 + f"{s['sim_calls']:.0f} | {s['wall_s']:.0f} |"
                 + (f" {s['avg_mutation']:.1f} | {s['avg_own_checks']:.1f} |" if mutation and "avg_mutation" in s
                    else "")
                 + (f" {s['avg_reference']:.2f} | {s['avg_cov_with_reference'] - s['avg_reference']:+.2f} |"
                    if reference else ""))
    if reference:
        n_ref = sum(1 for d in bench["designs"] if d.get("reference") is not None)
        lines += ["", f"Reference testbenches: mean {s['avg_reference']:.2f} % against ours "
                      f"{s['avg_cov_with_reference']:.2f} % on the same {n_ref} designs; "
                      f"{s['at_reference']}/{n_ref} within {REFERENCE_MARGIN:g} points of their reference or above."]
    return "\n".join(lines) + "\n"


def _reference_cells(row: dict[str, Any]) -> list[str]:
    """The reference coverage and our margin over it (`-` when the row has none)."""
    ref = row.get("reference")
    if ref is None:
        return ["-", "-"]
    ours = row["overall"] if row["sim_pass"] else 0.0
    return [f"{ref:.2f}", f"{ours - ref:+.2f}"]


def write_plot(designs: Sequence[dict[str, Any]], path: Path, policy: str) -> Path | None:
    """PNG of best coverage against simulator calls (one line per design, mean in bold)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    for d in designs:
        curve = d.get("curve") or []
        if curve:
            xs, ys = zip(*curve, strict=True)
            ax.step(xs, ys, where="post", alpha=0.3, linewidth=0.8)
    ax.set_xlabel("simulator calls")
    ax.set_ylabel("best overall coverage (%)")
    ax.set_ylim(0, 101)
    ax.set_title(f"{policy}: coverage vs simulator calls ({len(designs)} designs)")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


class Progress:
    """A one-line progress bar on stderr (a line per item when stderr is not a terminal)."""

    def __init__(self, total: int, label: str) -> None:
        self.total = total
        """Items to do."""
        self.done = 0
        """Items done."""
        self.label = label
        """Prefix."""
        self.start = time.monotonic()
        """Start time."""
        self.tty = sys.stderr.isatty()
        """Whether to redraw in place."""

    def update(self, item: str, extra: str = "") -> None:
        """Mark one item done."""
        self.done += 1
        width = 30
        filled = int(width * self.done / max(1, self.total))
        bar = "#" * filled + "-" * (width - filled)
        text = f"{self.label} [{bar}] {self.done}/{self.total} {time.monotonic() - self.start:5.0f}s {item} {extra}"
        sys.stderr.write(("\r" + text[:150].ljust(150)) if self.tty else text + "\n")
        if self.tty and self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run_bench(jobs: Sequence[BenchJob], out_dir: Path, workers: int = 1,
              on_row: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Run all jobs (in a process pool when workers > 1) and write bench.json/.md/.png."""
    start = time.monotonic()
    rows: dict[str, dict[str, Any]] = {}
    progress = Progress(len(jobs), "bench")
    policy = jobs[0].policy if jobs else "none"

    def record(row: dict[str, Any]) -> None:
        rows[row["name"]] = row
        progress.update(row["name"], f"{row['overall']:.1f}%")
        if on_row is not None:
            on_row(row)

    if workers > 1:
        # spawn, not fork: a parent that has loaded torch or llama.cpp deadlocks forked workers.
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(run_job, job) for job in jobs]
            for fut in as_completed(futures):
                record(fut.result())
    else:
        for job in jobs:
            record(run_job(job))
    ordered = [rows[j.design.name] for j in jobs]
    bench = {"summary": summarize(ordered, time.monotonic() - start), "designs": ordered, "policy": policy}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "bench.json").write_text(json.dumps(bench, indent=1))
    (out_dir / "bench.md").write_text(markdown_table(bench, policy))
    write_plot(ordered, out_dir / "bench.png", policy)
    return bench
