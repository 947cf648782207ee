"""Run bench jobs on a backend, resumably, with progress; write bench.json/.md/.png and junit.xml.

`run_designs` is the thin shell; `report_markdown` (bench.md: agent.bench's table plus what
a fan-out adds: designs with no results and why, retried designs, resumed rows, where it
ran) is pure.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from agent.bench import BenchJob, markdown_table, summarize, write_plot
from agent.fanout.files import design_digest
from agent.fanout.journal import JOURNAL_DIR, Journal
from agent.fanout.junit import junit_xml
from agent.fanout.options import FanoutOptions
from agent.fanout.progress import Board, Event, EventKind, View
from agent.fanout.rows import FAILED_STATUSES, job_key, with_retries
from agent.fanout.task import Outcome


def report_markdown(bench: dict[str, Any], title: str) -> str:
    """bench.md: the bench table, then the designs without results, retries, resumed rows and the backend."""
    policy = str(bench.get("policy", ""))
    text = markdown_table(bench, policy).replace(f"# Bench: policy `{policy}`", f"# {title}: policy `{policy}`", 1)
    rows = bench["designs"]
    failed = [r for r in rows if r.get("status") in FAILED_STATUSES]
    if failed:
        text += "\n## Designs without results\n\n"
        text += "".join(f"- `{r['name']}` ({r['status'].replace('_', ' ')}): {r.get('detail', '')}\n" for r in failed)
    retried = [r for r in rows if r.get("retries")]
    if retried:
        text += "\n## Retried designs\n\n"
        for r in retried:
            lost = "; ".join(f"attempt {t['attempt']} lost on {t['worker'] or 'a worker'} ({t['reason']})"
                             for t in r["retries"])
            end = f"attempt {len(r['retries']) + 1} finished on {r.get('worker', 'a worker')}" \
                if r.get("status") not in FAILED_STATUSES else "given up"
            text += f"- `{r['name']}`: {lost}; {end}\n"
    run = bench.get("run", {})
    if run.get("resumed"):
        text += (f"\n{len(run['resumed'])} of {len(rows)} rows are an earlier run's (`--resume`: same files and "
                 f"settings): {', '.join(f'`{n}`' for n in run['resumed'])}.\n")
    if run.get("backend") == "ray":
        staged = f"; design files sent to the workers for {len(run['staged'])}" if run.get("staged") else ""
        text += f"\nRan on Ray at `{run['address']}`: {run['nodes']} node(s), {run['cpus']} CPUs{staged}.\n"
    elif run.get("backend") == "local":
        text += f"\nRan on this machine, {run['workers']} process(es).\n"
    return text


def write_reports(bench: dict[str, Any], out_dir: Path, title: str) -> None:
    """bench.json, bench.md, bench.png and junit.xml in `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    policy = str(bench.get("policy", ""))
    (out_dir / "bench.json").write_text(json.dumps(bench, indent=1), encoding="utf-8")
    (out_dir / "bench.md").write_text(report_markdown(bench, title), encoding="utf-8")
    (out_dir / "junit.xml").write_text(junit_xml(bench, f"benchwright {title.lower()}"), encoding="utf-8")
    write_plot(bench["designs"], out_dir / "bench.png", policy)


def _backend(jobs: Sequence[BenchJob], options: FanoutOptions, report: Any, info: dict[str, Any]) -> Iterator[Outcome]:
    """The outcomes of the jobs on the backend the options name."""
    if options.ray:
        # Ray is imported only when asked for.
        from agent.fanout.ray_backend import run_ray

        return run_ray(jobs, options.ray, options.workers, options.retries, options.ship, report, info)
    from agent.fanout.local import run_local

    info.update(backend="local", workers=min(options.workers, max(1, len(jobs))))
    return run_local(jobs, options.workers, report)


def run_designs(jobs: Sequence[BenchJob], out_dir: Path, options: FanoutOptions,
                extra_rows: Sequence[dict[str, Any]] = (), order: Sequence[str] | None = None,
                title: str = "Bench", stream: TextIO | None = None, tty: bool | None = None) -> dict[str, Any]:
    """Score every job (reusing journal rows with `options.resume`) and write the reports.

    Args:
        jobs: one per design.
        out_dir: reports, the journal (`rows/`), and each design's files (the jobs' `out_dir`).
        options: backend, resume, retries.
        extra_rows: rows of designs that have no job (could not be opened); they count as failures.
        order: design names in report order (default: the jobs', then the extra rows').
        title: the report's heading and the JUnit suite's name (`Bench`, `Run-all`).
        stream: where progress goes (default: stderr).
        tty: whether progress is redrawn in place (default: when `stream` is a terminal).

    Raises:
        agent.fanout.ray_backend.ClusterError: `--ray` and no cluster.
        KeyboardInterrupt: after noting on `stream` how far the run got (the journal keeps it).
    """
    start = time.monotonic()
    stream = stream or sys.stderr
    journal = Journal(out_dir)
    keys = {job.design.name: job_key(job, design_digest(job.design)) for job in jobs}
    budget = float(max((j.max_sim_calls * j.samples for j in jobs), default=1))
    view = View(Board([j.design.name for j in jobs], budget, title.lower()), stream, tty)
    rows: dict[str, dict[str, Any]] = {}
    resumed: list[str] = []
    todo: list[BenchJob] = []
    for job in jobs:
        name = job.design.name
        kept = journal.load(name, keys[name]) if options.resume else None
        if kept is None:
            todo.append(job)
            continue
        rows[name] = kept
        resumed.append(name)
        view.on_event(Event(name, EventKind.RESUMED, overall=kept.get("overall")))
    info: dict[str, Any] = {}
    try:
        for outcome in _backend(todo, options, view.on_event, info) if todo else ():
            row = with_retries(outcome.row, outcome.retries, outcome.worker)
            rows[outcome.name] = row
            journal.store(outcome.name, keys[outcome.name], row)
            view.on_event(Event(outcome.name, EventKind.DONE, len(outcome.retries) + 1, outcome.worker,
                                overall=row["overall"], detail=str(row.get("status", ""))))
    except KeyboardInterrupt:
        view.close()
        stream.write(f"interrupted: {len(rows)} of {len(jobs)} designs done, kept in {out_dir / JOURNAL_DIR}; "
                     "run the same command with --resume to skip them\n")
        raise
    view.close()
    by_name = {**{r["name"]: r for r in extra_rows}, **rows}
    names = list(order) if order is not None else [*(j.design.name for j in jobs), *(r["name"] for r in extra_rows)]
    ordered = [by_name[n] for n in names if n in by_name]
    policy = jobs[0].policy if jobs else "none"
    info["resumed"] = resumed
    bench = {"summary": summarize(ordered, time.monotonic() - start), "designs": ordered, "policy": policy,
             "run": info}
    write_reports(bench, out_dir, title)
    return bench
