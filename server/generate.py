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
bench is C++) counts as none, until its files change. What cannot work (a design Verilator
rejects, a testbench that does not build) is said in a pop-up, once per design, with the reason
in Verilator's words.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from lsprotocol import types

from agent.loop import AgentConfig, EpisodeResult, run_episode
from agent.policy import get_policy
from server.jobs import CancellablePolicy
from server.outcomes import files_fingerprint, sim_options, target_of, tool_missing
from server.project import (
    Project,
    Testbench,
)
from server.server import BenchwrightServer
from server.settings import Settings
from sim.analysis.interface import read_interface
from sim.errors import SimError
from sim.sandbox.outputs import write_output
from sim.types import SimResult, Status

AUTO_SIM_CALLS = 100
"""Most simulator calls the built-in engine spends writing a testbench for a design without one
(`benchwright.policy.simCalls` when lower); Improve Coverage carries on from it."""

AUTO_WALL_S = 240.0
"""Most seconds it spends on it (`benchwright.policy.wallSeconds` when lower)."""

MAX_WHY = 400
"""Most characters of a reason quoted in a pop-up (the output channel has the whole log)."""


def generate_work(project: Project, settings: Settings, path: Path, report: Any) -> Any:
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


def cannot_generate(ls: BenchwrightServer, settings: Settings, project: Project, why: str) -> None:
    """Say (once per design, as a pop-up) that a design without a testbench gets no coverage, and why."""
    design = project.design
    why = " ".join(line.strip() for line in why.splitlines() if line.strip() and not line.startswith("%Error: Exiting"))
    why = why if len(why) <= MAX_WHY else why[:MAX_WHY - 1] + "…"
    tool_missing(ls, settings, f"Benchwright: no coverage for {design.name} (top {design.top}): it has no testbench "
                               f"Benchwright can run, and the built-in engine could not write one ({why}). Point "
                               f"benchwright.project.testbench at a testbench, or check the inferred design "
                               f"(benchwright init --dry-run) and benchwright.project.top.",
                 f"generate:{design.root}")
