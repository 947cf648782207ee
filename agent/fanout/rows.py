"""Rows of bench.json that no episode produced, what makes two runs' rows comparable, and job keys (pure)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from agent.bench import BenchJob
from sim.types import DEFAULT_TARGET

NOT_OPENED = "not_opened"
"""Status of a design that could not be opened (its files, its top, its manifest entry)."""

ERRORED = "error"
"""Status of a design whose scoring raised (a build the evaluator could not even start, a policy that failed)."""

LOST = "lost"
"""Status of a design whose worker was lost on every attempt."""

FAILED_STATUSES = (NOT_OPENED, ERRORED, LOST)
"""Statuses of rows that carry a reason instead of results."""

TIMING_KEYS = ("wall_s",)
"""Row keys that differ between two runs with the same seeds (how long, not what)."""

RUN_KEYS = ("retries", "worker")
"""Row keys that say where and how a row was computed, not what it found."""


@dataclass(frozen=True)
class Retry:
    """One attempt at a design that its worker did not finish."""

    attempt: int
    """1 for the first attempt."""
    reason: str
    """What was lost (the Ray error's first line)."""
    worker: str
    """The worker that was running it, as far as it had reported ('' when it had not started)."""


def failed_row(name: str, reason: str, status: str, target: float = DEFAULT_TARGET,
               reference: float | None = None) -> dict[str, Any]:
    """A bench.json row for a design with no results: it counts as a failure (0 in Avg Cov)."""
    row: dict[str, Any] = {
        "name": name, "sim_pass": False, "cov_pass": False, "overall": 0.0, "metrics": {}, "target": target,
        "rounds": 0, "sim_calls": 0, "wall_s": 0.0, "status": status, "detail": reason, "curve": [],
    }
    if reference is not None:
        row["reference"] = reference
    return row


def job_failed_row(job: BenchJob, reason: str, status: str = ERRORED) -> dict[str, Any]:
    """`failed_row` for a job (its design's name, target and reference)."""
    return failed_row(job.design.name, reason, status, job.design.target, job.reference)


def comparable(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row without its timing and run keys: equal for two runs of one job with the same seeds."""
    return {k: v for k, v in row.items() if k not in TIMING_KEYS and k not in RUN_KEYS}


def with_retries(row: dict[str, Any], retries: tuple[Retry, ...], worker: str) -> dict[str, Any]:
    """The row with where it ran and the attempts before it (omitted when there were none)."""
    out = dict(row)
    if worker:
        out["worker"] = worker
    if retries:
        out["retries"] = [asdict(r) for r in retries]
    return out


def job_key(job: BenchJob, digest: str) -> str:
    """What decides a job's row: its design (with `digest`, the content of its files) and settings.

    Two jobs with one key give the same row (same seeds, same files), so a resumed run may
    reuse it. Where its outputs go (`out_dir`) is not part of it.
    """
    design = job.design
    data = {
        "design": {"name": design.name, "top": design.top, "rtl": [str(p) for p in design.rtl],
                   "include_dirs": [str(p) for p in design.include_dirs], "clocks": list(design.clocks),
                   "resets": [(r.name, r.active_low) for r in design.resets], "target": design.target,
                   "dut_instance": design.dut_instance, "defines": list(design.defines),
                   "human_test": repr(design.human_test)},
        "digest": digest, "policy": job.policy, "options": job.policy_options, "samples": job.samples,
        "refinements": job.refinements, "max_sim_calls": job.max_sim_calls, "wall_time_s": job.wall_time_s,
        "early_stop": job.early_stop, "mutants": job.mutants, "reference": job.reference,
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:24]
