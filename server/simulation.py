"""A save's simulation: the project's testbench in a job thread, its coverage published.

A design with no testbench the server can run gets one from the built-in engine first
(`server.generate`).

`simulate_project` and `generate_missing` call each other (a save that comes while a testbench is
being written is simulated once it is there), so both live here.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from lsprotocol import types

from agent.loop import EpisodeStatus
from server import protocol as p
from server.generate import cannot_generate, generate_work, own_testbench_unusable
from server.jobs import JobKind, mutation_report, simulate
from server.outcomes import (
    content_fingerprint,
    files_fingerprint,
    lcov_path,
    publish_outcome,
    save_lcov,
    sim_options,
    target_of,
    tool_missing,
)
from server.project import (
    GENERATED_SOURCE,
    Project,
    Testbench,
    find_testbench,
    generated_path,
    generated_testbench,
    is_repository_own,
    testbench_places,
)
from server.server import BenchwrightServer, Outcome
from server.settings import Settings
from server.trust import sandbox_state_for
from sim.errors import SimError, ToolNotFoundError
from sim.run.evaluate import SimOptions
from sim.sandbox.bwrap import SandboxUnavailableError
from sim.types import SimResult, Status


def _simulate_work(project: Project, tb: Testbench, options: SimOptions, lcov: Path, mutation: bool = False) -> Any:
    """The blocking part of an on-save simulation (runs in a job thread).

    With `mutation`, the testbench's mutation report rides along in `result.extra["mutation"]`.
    """

    def work(cancel: threading.Event) -> SimResult:
        result = simulate(project, tb, options, cancel)
        if result.report is not None and not cancel.is_set():
            save_lcov(project, result.report, lcov)
        if mutation and result.status.value == "ok" and not cancel.is_set():
            report = mutation_report(project, tb, options, cancel)
            if report is not None:
                result = replace(result, extra={**result.extra, "mutation": report})
        return result

    return work


def current_testbench(ls: BenchwrightServer, project: Project, settings: Settings) -> Testbench | None:
    """find_testbench, less a repository testbench already found not to build (the generated one instead)."""
    root = str(project.design.root)
    tb = find_testbench(project, settings, ls.accepted.get(root))
    if tb is not None and is_repository_own(project, tb) and ls.unusable_own.get(root) == files_fingerprint(tb.files):
        return generated_testbench(project)
    return tb


async def simulate_project(ls: BenchwrightServer, project: Project, settings: Settings,
                           version: int | None) -> Outcome | None:
    """Simulate the project's testbench in a background job and publish; None if superseded."""
    root = str(project.design.root)
    tb = current_testbench(ls, project, settings)
    if tb is None:
        return await generate_missing(ls, project, settings, version)
    fingerprint = content_fingerprint(project, tb)
    if version is None and ls.sim_fingerprints.get(root) == fingerprint:
        # A watched-file event for content already simulated (VS Code sends one right
        # after every save): re-running would only cancel the save's own job.
        return None
    refusal = (await sandbox_state_for(ls, settings))[1]
    if refusal is not None:
        tool_missing(ls, settings, f"Benchwright: not simulating {project.design.name}: {refusal}", "sandbox")
        return None
    ls.sim_fingerprints[root] = fingerprint
    lcov = lcov_path(project)
    job = ls.jobs.claim(root, JobKind.SIMULATE)
    with ls.activity("simulating", f"simulating {project.design.name}"):
        async with ls.work_progress(f"Benchwright: simulating {project.design.name}", job.cancel):
            try:
                result = await ls.jobs.run(job, _simulate_work(project, tb, sim_options(settings), lcov,
                                                                  settings.coverage.mutation))
            except ToolNotFoundError as exc:
                tool_missing(ls, settings, str(exc))
                return None
            except SandboxUnavailableError as exc:
                tool_missing(ls, settings, f"Benchwright: not simulating {project.design.name}: {exc}", "sandbox")
                return None
    if result is None or job.cancel.is_set():
        return None  # superseded or cancelled: never publish a stale result
    if result.status.value == "compile_error" and is_repository_own(project, tb) \
            and await own_testbench_unusable(ls, project, tb, result):
        return await generate_missing(ls, project, settings, version)
    outcome = Outcome(project, tb, tb.path, result, target_of(project, settings), tuple(settings.coverage.metrics))
    publish_outcome(ls, outcome, version, lcov if result.report is not None else None, settings)
    return outcome


async def generate_missing(ls: BenchwrightServer, project: Project, settings: Settings,
                           version: int | None) -> Outcome | None:
    """Write the design's missing testbench with the built-in engine, then publish its coverage.

    A save while it is being written is simulated once it is there; a design whose top is
    ambiguous waits for the pick (the client was asked).
    """
    design = project.design
    root = str(design.root)
    if project.ambiguous:
        ls.log(f"Benchwright: not simulating {design.name}: {len(project.ambiguous)} modules could be its top "
               f"({', '.join(project.ambiguous)}); pick one (Pick top…, or the {p.TOP_SETTING} setting)",
               types.MessageType.Warning)
        return None
    if root in ls.generating:
        ls.generating[root] = True  # simulate the new testbench once it is written
        return None
    refusal = (await sandbox_state_for(ls, settings))[1]
    if refusal is not None:
        tool_missing(ls, settings, f"Benchwright: not simulating {design.name}: {refusal}", "sandbox")
        return None
    path = generated_path(project)
    looked = "its own does not build with Verilator" if root in ls.unusable_own else \
        f"looked for {testbench_places(project)}"
    ls.log(f"Benchwright: {design.name} (top {design.top}) has no testbench Benchwright can run ({looked}); "
           f"the built-in engine is writing one: {path}")
    ls.generating[root] = False
    job = ls.jobs.claim(root, JobKind.GENERATE)
    try:
        with ls.activity("generating", f"{design.name} has no testbench Benchwright can run: "
                                       "the built-in engine is writing one"):
            async with ls.work_progress(f"Benchwright: writing a testbench for {design.name}", job.cancel) as report:
                try:
                    episode = await ls.jobs.run(job, generate_work(project, settings, path, report))
                except ToolNotFoundError as exc:
                    tool_missing(ls, settings, str(exc))
                    return None
                except SandboxUnavailableError as exc:
                    tool_missing(ls, settings, f"Benchwright: not simulating {design.name}: {exc}", "sandbox")
                    return None
                except (SimError, ValueError, OSError) as exc:
                    cannot_generate(ls, settings, project, str(exc))
                    return None
    finally:
        resave = ls.generating.pop(root, False)
    if episode is None or job.cancel.is_set() or episode.status is EpisodeStatus.CANCELLED:
        return None
    best = episode.best_result
    if best is None or best.status is not Status.OK or not path.is_file():
        why = (f"{best.status.value}: {best.detail}" if best is not None else
               episode.error or f"no testbench in {episode.sim_calls} simulator calls")
        cannot_generate(ls, settings, project, why)
        if best is not None:
            failed = Testbench("generated", (path,), "none: the built-in engine could not write one")
            publish_outcome(ls, Outcome(project, failed, None, best, target_of(project, settings),
                                        tuple(settings.coverage.metrics)), version, None, settings)
        return None
    tb = Testbench("generated", (path,), GENERATED_SOURCE)
    if resave:
        ls.sim_fingerprints.pop(root, None)
        return await simulate_project(ls, project, settings, version)
    ls.sim_fingerprints[root] = content_fingerprint(project, tb)
    lcov = lcov_path(project)
    if best.report is not None:
        await asyncio.get_running_loop().run_in_executor(ls.jobs.executor, save_lcov, project, best.report, lcov)
    outcome = Outcome(project, tb, path, best, target_of(project, settings), tuple(settings.coverage.metrics))
    publish_outcome(ls, outcome, version, lcov if best.report is not None else None, settings)
    ls.log(f"Benchwright: {design.name}: the built-in engine's testbench covers {best.overall:.1f} % "
           f"({episode.sim_calls} simulator calls); Improve Coverage proposes a better one into tb/")
    return outcome
