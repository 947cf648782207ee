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

from training.refinement import refinement_cell, refinement_summary


def bench_jobs(designs: list[Any], policy: str, options: dict[str, Any], ev: Any, out: Path) -> list[Any]:
    """BenchJobs for one policy over the held-out designs."""
    from agent.bench import BenchJob

    return [BenchJob(d, policy, options, 1, ev.refinements, ev.max_sim_calls, ev.wall_time_s, out / "designs")
            for d in designs]


def usage_totals(trajectories: list[dict[str, Any]]) -> dict[str, Any]:
    """LLM usage summed over trajectory records: replies, parse failures, tokens, tokens/s.

    `decode_tok_s` is llama.cpp's own decode rate (generated tokens / decode time);
    `e2e_tok_s` divides generated tokens by the whole request time (prompt eval included).
    """
    replies = format_errors = completion = decode_tokens = prompt = cached = 0
    decode_ms = seconds = 0.0
    formats: set[str] = set()
    per_reply: list[int] = []
    per_second: list[float] = []
    stops: dict[str, int] = {}
    for traj in trajectories:
        for step in traj.get("steps", []):
            usage = step.get("usage") or {}
            if "completion_tokens" not in usage:
                continue
            replies += 1
            per_reply.append(int(usage.get("completion_tokens", 0)))
            per_second.append(float(usage.get("seconds", 0.0)))
            reason = str(usage.get("finish_reason", ""))
            stops[reason] = stops.get(reason, 0) + 1
            format_errors += 1 if step.get("format_error") else 0
            completion += int(usage.get("completion_tokens", 0))
            prompt += int(usage.get("prompt_tokens", 0))
            cached += int(usage.get("cached_tokens", 0))
            decode_tokens += int(usage.get("decode_tokens", 0))
            decode_ms += float(usage.get("decode_ms", 0.0))
            seconds += float(usage.get("seconds", 0.0))
            if usage.get("chat_format"):
                formats.add(str(usage["chat_format"]))
    return {
        "replies": replies, "format_errors": format_errors, "completion_tokens": completion,
        "prompt_tokens": prompt, "cached_tokens": cached,
        "decode_tok_s": round(decode_tokens / (decode_ms / 1000.0), 1) if decode_ms > 0 else None,
        "e2e_tok_s": round(completion / seconds, 1) if seconds > 0 else None,
        "chat_formats": sorted(formats),
        "tokens_per_reply_median": _median(per_reply), "tokens_per_reply_mean": _mean(per_reply),
        "seconds_per_reply_median": _median(per_second), "seconds_per_reply_mean": _mean(per_second),
        "finish_reasons": stops,
    }


def _median(values: list[int] | list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return round(float(ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2), 2)


def _mean(values: list[int] | list[float]) -> float | None:
    return round(sum(values) / len(values), 2) if values else None


def read_trajectories(folder: Path) -> list[dict[str, Any]]:
    """Every trajectory.json below `folder`."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.rglob("trajectory.json"))]


def compare_markdown(results: dict[str, dict[str, Any]]) -> str:
    """A small student-vs-base-vs-teacher table from bench summaries (+ LLM usage, refinement rounds)."""
    lines = ["| policy | n | Sim Pass % | Cov Pass % | Avg Cov % | sim calls | parsed replies | tokens/reply "
             "(median) | s/reply (median) | decode tok/s | rounds gaining (of those below target) | "
             "rounds repeating | wall s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, bench in results.items():
        s = bench["summary"]
        u = bench.get("usage") or {}
        parsed = f"{u['replies'] - u['format_errors']}/{u['replies']}" if u.get("replies") else "-"
        tps = f"{u['decode_tok_s']:.1f}" if u.get("decode_tok_s") else "-"
        tok = f"{u['tokens_per_reply_median']:g}" if u.get("tokens_per_reply_median") is not None else "-"
        sec = f"{u['seconds_per_reply_median']:.1f}" if u.get("seconds_per_reply_median") is not None else "-"
        calls = sum(int(d.get("sim_calls", 0)) for d in bench.get("designs", []))
        gain, repeat = refinement_cell(bench.get("refinement"))
        lines.append(f"| {name} | {s['n']} | {s['sim_pass']:.1f} | {s['cov_pass']:.1f} | {s['avg_cov']:.2f} | "
                     f"{calls} | {parsed} | {tok} | {sec} | {tps} | {gain} | {repeat} | {s['wall_s']:.0f} |")
    return "\n".join(lines) + "\n"


MODEL_ENTRIES = {"student": ("llama", False), "base": ("llama", True), "hybrid": ("hybrid", False),
                 "hybrid-base": ("hybrid", True)}
"""eval.policies names that run a GGUF: name -> (registry policy, seeded by the base model rather
than the student). `hybrid` is the engine seeded with the student's programs (agent.llm.hybrid)."""


def policy_entry(entry: str, cfg: Any, gguf: Path | None) -> tuple[str, dict[str, Any]]:
    """(registry policy, constructor options) of one eval.policies entry (pure).

    `student`/`base` run the exported / untrained GGUF under the eval settings (`@sv` or
    `@program` overrides the prompt format); `hybrid`/`hybrid-base` seed the engine with
    that model's programs; any other name is a registry policy with seed 0.
    """
    ev = cfg.eval
    name, _, fmt = entry.partition("@")
    if name not in MODEL_ENTRIES:
        return name, {"seed": 0}
    policy, from_base = MODEL_ENTRIES[name]
    model = cfg.model.gguf if from_base else gguf
    if not model:
        raise ValueError(f"eval of `{name}` needs an exported GGUF (run the export stage or pass --model)")
    options: dict[str, Any] = {"model_path": str(model), "n_ctx": ev.n_ctx, "n_threads": 1,
                               "max_tokens": ev.max_tokens, "seed": 0, "temperature": ev.temperature,
                               "limits": cfg.prompt.limits()}
    if policy == "llama":
        options["format"] = fmt or cfg.prompt.format
    return policy, options


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
    for entry in ev.policies:
        policy, options = policy_entry(entry, cfg, gguf)
        folder = out / entry.replace("@", "-")
        results[entry] = _bench(bench_jobs(designs, policy, options, ev, folder), folder, ev.jobs, policy)
        trajectories = read_trajectories(folder / "designs")
        results[entry]["usage"] = usage_totals(trajectories)
        results[entry]["refinement"] = refinement_summary(trajectories)
    table = compare_markdown(results)
    out.mkdir(parents=True, exist_ok=True)
    (out / "comparison.md").write_text(table, encoding="utf-8")
    data: dict[str, Any] = {name: {"summary": b["summary"], "usage": b["usage"], "refinement": b["refinement"],
                   "designs": [{k: d[k] for k in ("name", "sim_pass", "cov_pass", "overall", "status")}
                               for d in b["designs"]]}
            for name, b in results.items()}
    data["seconds"] = round(time.monotonic() - t0, 1)
    (out / "comparison.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    from training.config import to_dict

    write_dir_meta(out, "eval", config=to_dict(cfg), inputs=[gguf] if gguf else [], comparison=data)
    return data
