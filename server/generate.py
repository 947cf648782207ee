"""A design with no testbench the server can run: the built-in engine writes one on save.

A repository cloned as it is often has no testbench the server can run (its bench is a C++
Verilator harness, a Makefile flow, a top named unlike the design). Saving its RTL used to log
"no testbench" and publish nothing. Instead the built-in engine (whatever
`benchwright.policy.backend` says: no model to load, a bounded budget) writes one to
`.benchwright/generated/<design>/tb_<top>.sv`, the server's own folder (nothing in the repository
is written), and its coverage is published like any simulation's. Later saves simulate that file
(server.project.find_testbench finds it last); Generate Testbench and Improve Coverage propose a
testbench into `tb/` as an edit. A repository testbench found by inference that does not build
with Verilator while the design does (picorv32's testbench.v is `ifndef VERILATOR`: its Verilator
bench is C++) counts as none, until its files change. What cannot work (a design Verilator rejects, a testbench that
does not build) is said in a pop-up, once per design, with the reason in Verilator's words.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from lsprotocol import types

from agent.loop import AgentConfig, EpisodeResult, EpisodeStatus, run_episode
from agent.policy import get_policy
from server import protocol as p
from server.jobs import CancellablePolicy, JobKind
from server.project import (
    GENERATED_SOURCE,
    Project,
    Testbench,
    generated_path,
    testbench_places,
)
from server.server import BenchwrightServer, Outcome
from server.service import (
    content_fingerprint,
    files_fingerprint,
    lcov_path,
    publish_outcome,
    save_lcov,
    sim_options,
    simulate_project,
    target_of,
    tool_missing,
)
from server.settings import Settings
from server.trust import sandbox_state_for
from sim.analysis.interface import read_interface
from sim.errors import SimError, ToolNotFoundError
from sim.sandbox.bwrap import SandboxUnavailableError
from sim.sandbox.outputs import write_output
from sim.types import SimResult, Status

AUTO_SIM_CALLS = 100
"""Most simulator calls the built-in engine spends writing a testbench for a design without one
(`benchwright.policy.simCalls` when lower); Improve Coverage carries on from it."""

AUTO_WALL_S = 240.0
"""Most seconds it spends on it (`benchwright.policy.wallSeconds` when lower)."""

MAX_WHY = 400
"""Most characters of a reason quoted in a pop-up (the output channel has the whole log)."""


def _generate_work(project: Project, settings: Settings, path: Path, report: Any) -> Any:
    """The blocking part of writing a testbench for a design without one (runs in a job thread).

    The best testbench is written to `path` (never through a symlink) when it simulates with coverage.
    """
    options = sim_options(settings)
    calls = min(settings.policy.sim_calls, AUTO_SIM_CALLS)
    config = AgentConfig(refinements=0, target=target_of(project, settings), max_sim_calls=calls,
                         wall_time_s=min(settings.policy.wall_seconds, AUTO_WALL_S), sim=options)

    def work(cancel: threading.Event) -> EpisodeResult:
        # The engine needs the design's ports: a design Verilator rejects says so here, in its words
        # (read_interface is cached, so the engine reads it again for free).
        read_interface(project.design)
        report(f"the built-in engine is writing a testbench (up to {calls} simulator calls)", None)
        episode = run_episode(project.design, CancellablePolicy(get_policy("heuristic", seed=0, sim_options=options),
                                                                cancel), config, cancel=cancel)
        best = episode.best_result
        if episode.best_testbench and best is not None and best.status is Status.OK and not cancel.is_set():
            write_output(path, episode.best_testbench.encode(), root=project.workspace)
        return episode

    return work


async def own_testbench_unusable(ls: BenchwrightServer, project: Project, tb: Testbench, result: SimResult) -> bool:
    """After the repository's own testbench failed to build: True (remembered, logged) when the design itself builds.

    The design is checked with Verilator's parser alone; when it fails too, the compile error is
    the user's to see, so False.
    """
    try:
        await asyncio.get_running_loop().run_in_executor(ls.jobs.executor, read_interface, project.design)
    except SimError:
        return False
    ls.unusable_own[str(project.design.root)] = files_fingerprint(tb.files)
    ls.log(f"Benchwright: {project.design.name}: {tb.source} does not build with Verilator ({result.detail}); "
           "the built-in engine writes one instead", types.MessageType.Warning)
    return True


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
                    episode = await ls.jobs.run(job, _generate_work(project, settings, path, report))
                except ToolNotFoundError as exc:
                    tool_missing(ls, settings, str(exc))
                    return None
                except SandboxUnavailableError as exc:
                    tool_missing(ls, settings, f"Benchwright: not simulating {design.name}: {exc}", "sandbox")
                    return None
                except (SimError, ValueError, OSError) as exc:
                    _cannot_generate(ls, settings, project, str(exc))
                    return None
    finally:
        resave = ls.generating.pop(root, False)
    if episode is None or job.cancel.is_set() or episode.status is EpisodeStatus.CANCELLED:
        return None
    best = episode.best_result
    if best is None or best.status is not Status.OK or not path.is_file():
        why = (f"{best.status.value}: {best.detail}" if best is not None else
               episode.error or f"no testbench in {episode.sim_calls} simulator calls")
        _cannot_generate(ls, settings, project, why)
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


def _cannot_generate(ls: BenchwrightServer, settings: Settings, project: Project, why: str) -> None:
    """Say (once per design, as a pop-up) that a design without a testbench gets no coverage, and why."""
    design = project.design
    why = " ".join(line.strip() for line in why.splitlines() if line.strip() and not line.startswith("%Error: Exiting"))
    why = why if len(why) <= MAX_WHY else why[:MAX_WHY - 1] + "…"
    tool_missing(ls, settings, f"Benchwright: no coverage for {design.name} (top {design.top}): it has no testbench "
                               f"Benchwright can run, and the built-in engine could not write one ({why}). Point "
                               f"benchwright.project.testbench at a testbench, or check the inferred design "
                               f"(benchwright init --dry-run) and benchwright.project.top.",
                 f"generate:{design.root}")
