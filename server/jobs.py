"""Background jobs: simulations and episodes off the event loop, cancellable, serialised.

Each (design, kind) pair has one slot. Claiming a slot cancels the job holding it (its
`threading.Event` is set, which kills the running build or simulation's process group
through sim.sandbox.process) and the new job starts only once the old one has finished, so two
jobs of one kind never run on one design at the same time and a superseded job never
publishes. The blocking work itself is in the plain functions below.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from agent.policy import Budget, Policy, Proposal, State
from server.project import Project, Testbench
from sim.errors import SimError
from sim.mutation.model import MutationReport
from sim.run.evaluate import SimOptions, evaluate_files
from sim.sandbox.process import Cancel
from sim.types import SimResult

logger = logging.getLogger(__name__)

T = TypeVar("T")

MAX_WORKERS = 4
"""Threads for simulations and episodes (each mostly waits on a child process)."""

CANCEL_POLL_S = 0.05
"""How often a running policy checks for cancellation."""


class JobKind(enum.Enum):
    """What a job does (one slot per design and kind)."""

    SIMULATE = "simulate"
    EPISODE = "episode"
    GENERATE = "generate"
    """The built-in engine writing a testbench for a design without one (on save)."""


class JobState(enum.Enum):
    """Where a job is."""

    WAITING = "waiting"
    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"
    FAILED = "failed"


@dataclass
class Job:
    """One claimed slot."""

    key: str
    """The design (its root folder)."""
    kind: JobKind
    """What it does."""
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set to cancel; the blocking work polls it and kills its children."""
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the job no longer runs anything."""
    previous: Job | None = None
    """The job this one superseded (waited for before running)."""
    state: JobState = JobState.WAITING
    """Where it is."""


class Jobs:
    """The slots and the thread pool."""

    def __init__(self, max_workers: int = MAX_WORKERS) -> None:
        self.executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="benchwright-job")
        """Where blocking work runs (never the event loop, never pygls's own pool)."""
        self.slots: dict[tuple[str, JobKind], Job] = {}
        """Latest job per (design, kind)."""

    def claim(self, key: str, kind: JobKind) -> Job:
        """A new job for the slot; the job it replaces is cancelled."""
        previous = self.slots.get((key, kind))
        if previous is not None:
            previous.cancel.set()
        job = Job(key, kind, previous=previous)
        self.slots[(key, kind)] = job
        return job

    def is_current(self, job: Job) -> bool:
        """True while no newer job claimed the slot and the job was not cancelled."""
        return self.slots.get((job.key, job.kind)) is job and not job.cancel.is_set()

    def running(self, kind: JobKind) -> int:
        """Jobs of `kind` waiting or running."""
        return sum(1 for j in self.slots.values() if j.kind is kind and not j.finished.is_set())

    async def run(self, job: Job, work: Callable[[threading.Event], T]) -> T | None:
        """Run `work(cancel)` in the pool after the superseded job ends; None when cancelled."""
        loop = asyncio.get_running_loop()
        try:
            if job.previous is not None:
                await job.previous.finished.wait()
                job.previous = None
            if job.cancel.is_set():
                job.state = JobState.CANCELLED
                return None
            job.state = JobState.RUNNING
            future = loop.run_in_executor(self.executor, work, job.cancel)
            try:
                result = await asyncio.shield(future)
            except asyncio.CancelledError:
                job.cancel.set()  # the request was cancelled: stop the thread, then give up
                await asyncio.wait([future])
                raise
        except BaseException:
            job.state = JobState.CANCELLED if job.cancel.is_set() else JobState.FAILED
            raise
        finally:
            job.finished.set()
            if self.slots.get((job.key, job.kind)) is job:
                del self.slots[(job.key, job.kind)]
        job.state = JobState.CANCELLED if job.cancel.is_set() else JobState.DONE
        return None if job.cancel.is_set() else result

    def cancel_all(self) -> None:
        """Cancel every job (shutdown)."""
        for job in self.slots.values():
            job.cancel.set()

    def shutdown(self) -> None:
        """Cancel everything and stop the pool without waiting."""
        self.cancel_all()
        self.executor.shutdown(wait=False, cancel_futures=True)


def simulate(project: Project, tb: Testbench, options: SimOptions, cancel: Cancel | None = None) -> SimResult:
    """Simulate `tb` against the project's design with coverage (the user's own files: trusted; a generated one is checked)."""
    design = project.design
    if tb.kind == "human":
        from sim.run.human import evaluate_human

        return evaluate_human(design, options, cancel)
    if tb.kind == "cocotb":
        from sim.run.cocotb import evaluate_cocotb

        return evaluate_cocotb(design, tb.path.stem, list(tb.files), options=options, trusted=True, cancel=cancel)
    # A generated testbench lives where a cloned repository could have shipped a file: guarded as untrusted.
    return evaluate_files(design, tb.files, None, options=options, check=tb.kind == "generated", cancel=cancel)


def mutation_report(project: Project, tb: Testbench, options: SimOptions,
                    cancel: Cancel | None = None) -> MutationReport | None:
    """The mutation report of `tb` (which mutants it kills), or None when it cannot be analysed."""
    from sim.mutation.model import prepare
    from sim.mutation.testbench import analyse_cocotb, analyse_files, analyse_human

    design = project.design
    try:
        if tb.kind == "human":
            return analyse_human(design, options=options, cancel=cancel)
        if tb.kind == "cocotb":
            model = prepare(design, options=options, cancel=cancel)
            return analyse_cocotb(model, tb.path.stem, list(tb.files), options=options, cancel=cancel)
        return analyse_files(design, tb.files, None, options=options, cancel=cancel)
    except SimError as exc:
        logger.info("no mutation analysis for %s: %s", design.name, exc)
        return None


class CancellablePolicy:
    """Wraps a policy so that cancelling also ends its internal search promptly.

    The heuristic engine spends the episode's Budget on many short harness runs; when
    `cancel` is set the budget is emptied, so it stops after the current run and skips
    its final check (the episode loop then kills whatever simulation is running).
    """

    def __init__(self, inner: Policy, cancel: threading.Event) -> None:
        self.inner = inner
        """The real policy."""
        self.cancel = cancel
        """Set to stop."""
        self.name = inner.name
        """Registry name (from the inner policy)."""

    def propose(self, state: State, budget: Budget) -> Proposal:
        """The inner policy's proposal, with the budget drained on cancellation."""
        done = threading.Event()

        def watch() -> None:
            while not done.wait(CANCEL_POLL_S):
                if self.cancel.is_set():
                    budget.sim_calls, budget.deadline = 0, 0.0
                    return

        watcher = threading.Thread(target=watch, name="benchwright-cancel", daemon=True)
        watcher.start()
        try:
            return self.inner.propose(state, budget)
        finally:
            done.set()
            watcher.join()
