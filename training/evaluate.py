"""Student vs teacher on the held-out split, through `agent.bench` (what `benchwright bench` runs).

benchwright train eval --config training/presets/tiny.toml --out runs/tiny
# the same numbers by hand:
benchwright bench runs/tiny/data/heldout --policy llama --model runs/tiny/export2/student-Q8_0.gguf
benchwright bench runs/tiny/data/heldout --policy heuristic
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


def bench_jobs(designs: list[Any], policy: str, options: dict[str, Any], ev: Any, out: Path) -> list[Any]:
    """BenchJobs for one policy over the held-out designs."""
    from agent.bench import BenchJob

    return [BenchJob(d, policy, options, 1, ev.refinements, ev.max_sim_calls, ev.wall_time_s, out / "designs")
            for d in designs]


def compare_markdown(results: dict[str, dict[str, Any]]) -> str:
    """A small student-vs-teacher table from bench summaries."""
    lines = ["| policy | n | Sim Pass % | Cov Pass % | Avg Cov % | wall s |", "|---|---|---|---|---|---|"]
    for name, bench in results.items():
        s = bench["summary"]
        lines.append(f"| {name} | {s['n']} | {s['sim_pass']:.1f} | {s['cov_pass']:.1f} | {s['avg_cov']:.2f} | "
                     f"{s['wall_s']:.0f} |")
    return "\n".join(lines) + "\n"


def _bench(jobs: list[Any], out: Path, workers: int, policy: str) -> dict[str, Any]:
    """agent.bench.run_bench's output, with the jobs fanned out by training.fanout.

    Spawned workers, not forked ones: this process may already hold torch and llama.cpp
    threads, and a fork of it deadlocks.
    """
    from agent.bench import markdown_table, run_job, summarize, write_plot
    from training.fanout import fan_out

    t0 = time.monotonic()
    rows = fan_out(run_job, jobs, workers=workers)
    bench = {"summary": summarize(rows, time.monotonic() - t0), "designs": rows, "policy": policy}
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(bench, indent=1), encoding="utf-8")
    (out / "bench.md").write_text(markdown_table(bench, policy), encoding="utf-8")
    write_plot(rows, out / "bench.png", policy)
    return bench


def run_eval(cfg: Any, run_dir: Path, gguf: Path | None, out_dir: Path | None = None) -> dict[str, Any]:
    """Bench every configured policy on `run_dir/data/heldout`; write comparison.json/.md."""
    from sim.suite import load_suite
    from training.meta import write_dir_meta

    ev = cfg.eval
    out = out_dir or run_dir / "eval"
    designs = load_suite(run_dir / "data" / "heldout")
    results: dict[str, dict[str, Any]] = {}
    t0 = time.monotonic()
    for name in ev.policies:
        if name == "student":
            if gguf is None:
                raise ValueError("eval of `student` needs an exported GGUF (run the export stage or pass --model)")
            options = {"model_path": str(gguf), "n_ctx": ev.n_ctx, "n_threads": 1, "max_tokens": ev.max_tokens,
                       "seed": 0, "temperature": ev.temperature, "limits": cfg.prompt.limits()}
            policy = "llama"
        else:
            options, policy = {"seed": 0}, name
        results[name] = _bench(bench_jobs(designs, policy, options, ev, out / name), out / name, ev.jobs, policy)
    table = compare_markdown(results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "comparison.md").write_text(table, encoding="utf-8")
    data: dict[str, Any] = {name: {"summary": b["summary"],
                   "designs": [{k: d[k] for k in ("name", "sim_pass", "cov_pass", "overall", "status")}
                               for d in b["designs"]]}
            for name, b in results.items()}
    data["seconds"] = round(time.monotonic() - t0, 1)
    (out / "comparison.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    from training.config import to_dict

    write_dir_meta(out, "eval", config=to_dict(cfg), inputs=[gguf] if gguf else [], comparison=data)
    return data
