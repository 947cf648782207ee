"""The local backend: the designs in this process, or in a pool of processes on this machine."""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from agent.bench import BenchJob
from agent.fanout.progress import Event
from agent.fanout.rows import LOST, job_failed_row
from agent.fanout.task import Outcome, Report, score_job

POLL_S = 0.5
"""How often the driver looks for progress while designs run."""


def _pool_task(job: BenchJob, events: Any) -> dict[str, Any]:
    """A pool process's job: score it, sending progress to the driver's queue."""
    return score_job(job, events.put)


def _drain(events: Any, report: Report) -> None:
    while True:
        try:
            event = events.get_nowait()
        except queue.Empty:
            return
        if isinstance(event, Event):
            report(event)


def run_local(jobs: Sequence[BenchJob], workers: int, report: Report) -> Iterator[Outcome]:
    """Score every job here (workers <= 1) or in a pool of `workers` processes; outcomes as they finish."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield Outcome(job.design.name, score_job(job, report))
        return
    # spawn, not fork: a parent that has loaded torch or llama.cpp deadlocks forked workers.
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager, ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=ctx) as pool:
        events = manager.Queue()
        futures: dict[Future[dict[str, Any]], BenchJob] = {pool.submit(_pool_task, job, events): job for job in jobs}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
                _drain(events, report)
                for fut in done:
                    job = futures[fut]
                    try:
                        row = fut.result()
                    except BrokenProcessPool as exc:
                        # A pool process died (killed, out of memory): the pool cannot go on; every
                        # design it still held is reported lost (run again with --resume).
                        row = job_failed_row(job, f"worker process lost: {exc}", LOST)
                    yield Outcome(job.design.name, row)
            _drain(events, report)
        finally:
            for fut in pending:
                fut.cancel()
