"""The Ray backend: one task per design on a cluster's workers; a lost worker's design runs again.

Each task builds and simulates on its worker as a local run does: in the OS sandbox, with
the node's own build cache (its `BENCHWRIGHT_CACHE`), and with the seeds of the job, so a
row does not depend on the worker that computed it. A worker that lacks the design's
files at the driver's paths (another machine) gets them from the driver (agent.fanout.files),
and the files an episode writes come back to the driver, which alone writes the output
folder. Ray's own task retries are off: the driver runs a lost design again itself, so
that the report can say which design was retried, where, and why.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.bench import BenchJob
from agent.fanout.files import bundle, collect, design_digest, stage, write_back
from agent.fanout.progress import Event, EventKind
from agent.fanout.rows import LOST, Retry, job_failed_row
from agent.fanout.task import Outcome, Report, score_job, worker_label
from sim.errors import SimError

logger = logging.getLogger(__name__)

LOCAL_CLUSTER = "local"
"""`--ray local`: a private Ray instance in this process with `--jobs` CPUs (no `ray start`)."""

POLL_S = 0.5
"""How often the driver collects progress while tasks run."""

SHIP_MODES = ("auto", "always", "never")
"""When a worker is sent the design's files: when its copy differs, always, or never."""


class ClusterError(SimError):
    """Ray is missing, or no cluster answers at the address."""


def connect(address: str, cpus: int) -> bool:
    """Join the cluster at `address` (or start a private `local` one); True when this call started Ray.

    Raises:
        ClusterError: Ray is not installed, or no cluster answers at `address`.
    """
    try:
        import ray
    except ImportError as exc:
        raise ClusterError(f"--ray needs Ray (pip install ray): {exc}") from exc
    # The clusters this talks to are the user's own (`ray start` on their machines); Ray 2.5x
    # refuses an unauthenticated driver unless told that the cluster runs without tokens.
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if ray.is_initialized():
        return False
    quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address == LOCAL_CLUSTER:
            ray.init(num_cpus=max(1, cpus), include_dashboard=False, **quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        hint = "start one with `ray start --head`, or use --ray local" if address == "auto" else "is its head running?"
        raise ClusterError(f"no Ray cluster at {address} ({hint}): {' '.join(str(exc).split())[:300]}") from exc
    return True


class _Board:
    """Progress events from the tasks, held until the driver collects them (a Ray actor)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        """Events not yet collected."""

    def report(self, event: Event) -> None:
        """Keep an event."""
        self.events.append(event)

    def drain(self) -> list[Event]:
        """Every event since the last call."""
        out, self.events = self.events, []
        return out


def ray_task(job: BenchJob, digest: str, box: list[Any], board: Any, attempt: int, ship: str) -> dict[str, Any]:
    """A worker's job: the design (staged from the driver's files when this node's copy differs), scored.

    `box` holds the object ref of the design's files (in a list, so that Ray passes the ref
    and the worker fetches the files only when it needs them).
    """
    import ray

    worker = worker_label(ray.get_runtime_context().get_node_id())
    design = job.design
    staging: Path | None = None
    try:
        if box[0] is not None and (ship == "always" or design_digest(design) != digest):
            staging = Path(tempfile.mkdtemp(prefix="bw-design-"))
            design = stage(design, ray.get(box[0]), staging)
        with tempfile.TemporaryDirectory(prefix="bw-out-") as tmp:
            out = Path(tmp) if job.out_dir is not None else None
            row = score_job(replace(job, design=design, out_dir=out), board.report.remote, attempt, worker)
            files, left = collect(out / design.name) if out is not None else ({}, [])
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return {"row": row, "files": files, "left_out": left, "worker": worker, "staged": staging is not None}


def _lost_errors() -> tuple[type[BaseException], ...]:
    """Ray errors that mean the worker (or its node) went away, not that the design failed."""
    from ray import exceptions as rx

    return (rx.WorkerCrashedError, rx.NodeDiedError, rx.OutOfMemoryError, rx.ObjectLostError,
            rx.LocalRayletDiedError, rx.RaySystemError)


def _first_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:300]


def cluster_info(address: str) -> dict[str, Any]:
    """The cluster as the report shows it: address, live nodes, CPUs."""
    import ray

    api: Any = ray  # nodes() and cluster_resources() are untyped
    nodes = [n for n in api.nodes() if n.get("Alive")]
    return {"backend": "ray", "address": address, "nodes": len(nodes),
            "cpus": int(api.cluster_resources().get("CPU", 0))}


def run_ray(jobs: Sequence[BenchJob], address: str, cpus: int, retries: int, ship: str, report: Report,
            info: dict[str, Any]) -> Iterator[Outcome]:
    """Score every job as a Ray task; outcomes as they finish. `info` receives the cluster's description.

    Raises:
        ClusterError: as `connect`.
    """
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    started = connect(address, cpus)
    pending: dict[Any, tuple[BenchJob, int]] = {}
    try:
        info.update(cluster_info(address), staged=[])
        # The progress board stays beside the driver: a worker node that dies takes no events with it.
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=True)
        board: Any = ray.remote(num_cpus=0)(_Board).options(scheduling_strategy=here).remote()
        task = ray.remote(num_cpus=1, max_retries=0)(ray_task)
        digests = {job.design.name: design_digest(job.design) for job in jobs}
        boxes: dict[str, list[Any]] = {}
        lost: dict[str, list[Retry]] = {}
        workers: dict[tuple[str, int], str] = {}

        def submit(job: BenchJob, attempt: int) -> None:
            name = job.design.name
            if name not in boxes:
                boxes[name] = [ray.put(bundle(job.design)) if ship != "never" else None]
            pending[task.remote(job, digests[name], boxes[name], board, attempt, ship)] = (job, attempt)

        def pump() -> None:
            try:
                events = ray.get(board.drain.remote())
            except ray.exceptions.RayError as exc:  # progress is lost, the run is not
                logger.warning("progress board unavailable: %s", _first_line(exc))
                return
            for event in events:
                if event.kind is EventKind.START:
                    workers[(event.name, event.attempt)] = event.worker
                report(event)

        # A bounded window of tasks in flight: the cluster stays busy while the object store
        # holds the files of a few designs, not of a thousand; a lost design goes first.
        queue: deque[tuple[BenchJob, int]] = deque((job, 1) for job in jobs)
        window = max(4, 2 * info["cpus"])
        while queue or pending:
            while queue and len(pending) < window:
                job, attempt = queue.popleft()
                try:
                    submit(job, attempt)
                except (OSError, ValueError) as exc:  # its files could not be read or are too large to send
                    yield Outcome(job.design.name, job_failed_row(job, f"its files cannot be sent: {exc}"),
                                  retries=tuple(lost.get(job.design.name, ())))
            if not pending:
                continue
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_S)
            pump()
            for ref in ready:
                job, attempt = pending.pop(ref)
                name = job.design.name
                try:
                    result = ray.get(ref)
                except _lost_errors() as exc:
                    retry = Retry(attempt, _first_line(exc), workers.get((name, attempt), ""))
                    lost.setdefault(name, []).append(retry)
                    report(Event(name, EventKind.LOST, attempt, retry.worker, detail=retry.reason))
                    if attempt <= retries:
                        queue.appendleft((job, attempt + 1))
                        continue
                    row = job_failed_row(job, f"worker lost on all {attempt} attempts; last: {retry.reason}", LOST)
                    yield Outcome(name, row, retries=tuple(lost[name]))
                    continue
                except ray.exceptions.RayError as exc:  # the task could not run at all: not a worker's loss
                    yield Outcome(name, job_failed_row(job, _first_line(exc)), retries=tuple(lost.get(name, ())))
                    continue
                if job.out_dir is not None and result["files"]:
                    write_back(job.out_dir / name, result["files"])
                for left in result["left_out"]:
                    logger.warning("%s: output %s not brought back", name, left)
                if result["staged"]:
                    info["staged"].append(name)
                boxes.pop(name, None)
                yield Outcome(name, result["row"], result["worker"], tuple(lost.get(name, ())))
        pump()
    finally:
        for ref in pending:  # an interrupted run leaves no task running on the cluster
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
