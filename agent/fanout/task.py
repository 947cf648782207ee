"""One design on one worker, whichever backend runs it: its row, with progress on the way.

`score_job` is what a worker process runs: agent.bench.run_job with a step callback that
turns episode steps into progress events. A design whose scoring raises becomes a row
with the reason (never an exception that would stop the other designs).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.bench import BenchJob, run_job
from agent.fanout.progress import Event, EventKind
from agent.fanout.rows import Retry, job_failed_row

logger = logging.getLogger(__name__)

Report = Callable[[Event], object]
"""Where a worker sends its progress events (a queue's put, an actor's method, a view)."""


@dataclass(frozen=True)
class Outcome:
    """A finished design, as a backend hands it to the runner."""

    name: str
    """Design name."""
    row: dict[str, Any]
    """Its bench.json row."""
    worker: str = ""
    """Where the attempt that produced the row ran ('' for this process)."""
    retries: tuple[Retry, ...] = field(default_factory=tuple)
    """Attempts lost before it."""


def worker_label(node: str = "") -> str:
    """`host pid N` (with a node id prefix on Ray): enough to find the process a design runs in."""
    where = f"{node[:8]} " if node else ""
    return f"{where}{socket.gethostname()} pid {os.getpid()}"


def score_job(job: BenchJob, report: Report, attempt: int = 1, worker: str = "") -> dict[str, Any]:
    """Score one design, reporting START and every episode step; errors become the row."""
    name = job.design.name
    worker = worker or worker_label()
    report(Event(name, EventKind.START, attempt, worker))

    def on_step(record: Any, episode: Any) -> None:
        best = episode.best_result
        overall = best.overall if best is not None and best.coverage is not None else None
        report(Event(name, EventKind.STEP, attempt, worker, step=record.step, sim_calls=float(episode.sim_calls),
                     overall=overall))

    try:
        return run_job(job, on_step)
    except Exception as exc:  # a design's boundary: its failure is its row, the others go on
        logger.warning("%s failed: %s", name, exc, exc_info=True)
        first = " ".join(str(exc).split())[:500]
        return job_failed_row(job, f"{type(exc).__name__}: {first}")
