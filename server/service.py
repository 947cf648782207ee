"""What the features do: lint, simulate and publish, propose testbenches, report.

Every blocking step (Verilator, the simulator, the policy) runs either as an asyncio
subprocess (lint) or in `server.jobs` threads; these coroutines only orchestrate.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import logging
import shutil
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from agent.llm.completion import LLMError
from agent.loop import (
    AgentConfig,
    EpisodeResult,
    EpisodeStatus,
    StepRecord,
    run_episode,
)
from agent.policy import get_policy
from server import convert
from server import protocol as p
from server.jobs import CancellablePolicy, JobKind, simulate
from server.lint import lint_command, lint_sandbox, run_lint, shadow_copies
from server.outcomes import (
    lcov_path,
    publish_outcome,
    save_lcov,
    sim_options,
    state_folder,
    target_of,
    tool_missing,
)
from server.project import (
    HDL_SUFFIXES,
    HEADER_SUFFIXES,
    STATE_DIR,
    Project,
    Testbench,
    find_project,
    modules_in,
    proposal_path,
)
from server.server import BenchwrightServer, Outcome
from server.settings import Settings
from server.simulation import current_testbench, simulate_project
from server.trust import sandbox_line, sandbox_mode, sandbox_state_for
from sim.errors import SimError, ToolNotFoundError
from sim.project.infer import AmbiguousTopError
from sim.run.evaluate import SimOptions, tb_top_name
from sim.sandbox.bwrap import SandboxUnavailableError
from sim.tools import Verilator, find_verilator
from sim.types import SimResult

logger = logging.getLogger(__name__)

RESIMULATE_DELAY_S = 0.5
"""Quiet time after watched-file events before re-simulating (a checkout touches many files)."""

_lint_ids = itertools.count()


def doc_path(uri: str) -> Path | None:
    """The file path of a `file:` URI."""
    path = to_fs_path(uri)
    return Path(path) if path and uri.startswith("file:") else None


async def resolve(ls: BenchwrightServer, uri: str) -> tuple[Settings, Project | None]:
    """Settings and project of a document; an invalid design.toml is reported, not raised."""
    settings = await ls.settings_for(uri)
    path = doc_path(uri)
    if path is None:
        return settings, None
    loop = asyncio.get_running_loop()
    candidates: list[str] = []

    def ambiguous(doc: Path, exc: AmbiguousTopError) -> None:
        candidates.extend(u.name for u in exc.candidates)
        loop.call_soon_threadsafe(send_ambiguous_top, ls, doc, exc)

    try:
        # Inference may run Verilator: off the event loop.
        project = await asyncio.to_thread(find_project, path, ls.folder_paths(), settings, ls.module_index, ambiguous)
    except (SimError, OSError) as exc:
        ls.log(f"Benchwright: {exc}", types.MessageType.Warning)
        return settings, None
    if project is not None and candidates:
        project = replace(project, ambiguous=tuple(candidates))
    return settings, project


def send_ambiguous_top(ls: BenchwrightServer, doc: Path, exc: AmbiguousTopError) -> None:
    """Tell the client once per document and candidate set that the top is ambiguous."""
    key = (str(doc), *(u.name for u in exc.candidates))
    if len(exc.candidates) < 2 or key in ls.ambiguities_sent:
        return
    ls.ambiguities_sent.add(key)
    listed = ", ".join(f"{u.name} ({u.file.name}:{u.line})" for u in exc.candidates)
    ls.notify(p.AMBIGUOUS_TOP, p.AmbiguousTopParams(
        uri=convert.uri_of(doc),
        candidates=[p.TopCandidateParams(u.name, convert.uri_of(u.file), max(0, u.line - 1)) for u in exc.candidates],
        message=f"{len(exc.candidates)} modules could be the top of {doc.name}'s design: {listed}. "
                f"Pick one (saved as {p.TOP_SETTING} in the workspace settings)."))


async def verilator(ls: BenchwrightServer, settings: Settings) -> Verilator | None:
    """The Verilator to use (looked up off the loop); a missing one is shown once."""
    try:
        return await asyncio.get_running_loop().run_in_executor(
            ls.jobs.executor, find_verilator, settings.sim.verilator_path or None)
    except ToolNotFoundError as exc:
        tool_missing(ls, settings, str(exc))
        return None


# -- lint ---------------------------------------------------------------------------


def schedule_lint(ls: BenchwrightServer, uri: str, delay_s: float) -> None:
    """(Re)start the lint of `uri` after `delay_s`, cancelling a pending or running one."""
    pending = ls.lint_tasks.pop(uri, None)
    if pending is not None:
        pending.cancel()
    ls.lint_tasks[uri] = asyncio.create_task(_lint_later(ls, uri, delay_s))


async def _lint_later(ls: BenchwrightServer, uri: str, delay_s: float) -> None:
    try:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        await lint_document(ls, uri)
    except asyncio.CancelledError:
        raise
    except Exception:  # a protocol boundary: log, keep serving
        logger.exception("lint of %s failed", uri)
    finally:
        if ls.lint_tasks.get(uri) is asyncio.current_task():
            del ls.lint_tasks[uri]


def _lint_sources(ls: BenchwrightServer, project: Project, path: Path, text: str) -> tuple[list[Path], str | None]:
    """Files to lint with `path` (its design's RTL, then itself) and the top module."""
    rtl = list(project.design.rtl)
    if path in rtl:
        return rtl, project.design.top
    return [*rtl, path], tb_top_name(text)


async def lint_document(ls: BenchwrightServer, uri: str) -> None:
    """Lint the open document `uri` (its unsaved text) and publish its diagnostics."""
    doc = ls.workspace.text_documents.get(uri)
    path = doc_path(uri)
    if doc is None or path is None or path.suffix not in HDL_SUFFIXES or path.suffix in HEADER_SUFFIXES:
        return
    version, text = doc.version, doc.source
    settings, project = await resolve(ls, uri)
    tool = await verilator(ls, settings)
    if project is None or tool is None:
        return
    sources, top = _lint_sources(ls, project, path.resolve(), text)
    buffers = {path.resolve(): text}
    for other in sources:
        other_doc = ls.workspace.text_documents.get(convert.uri_of(other))
        if other_doc is not None and other != path.resolve():
            buffers[other] = other_doc.source
    work = ls.shadow_dir / f"lint-{next(_lint_ids)}"
    try:
        with ls.activity("linting"):
            shadows = shadow_copies(work, buffers)
            argv = lint_command(tool, project.design, tuple(shadows.get(s, s) for s in sources),
                                tuple(dict.fromkeys(s.parent for s in sources)), top,
                                tuple(settings.sim.verilator_args))
            ls.record("lint", argv)
            dirs = tuple(dict.fromkeys(s.parent for s in sources))
            run = await run_lint(argv, tool, work, {str(v): k for k, v in shadows.items()},
                                 lint_sandbox(tool, project.design, tuple(sources), dirs, work, sandbox_mode(settings)))
    except SandboxUnavailableError as exc:
        # Refused like a simulation; the status bar already says why, so the log says it once.
        if "lint-refused" not in ls.popups_shown:
            ls.popups_shown.add("lint-refused")
            ls.log(f"Benchwright: not linting: {exc}", types.MessageType.Error)
        return
    finally:
        shutil.rmtree(work, ignore_errors=True)
    current = ls.workspace.text_documents.get(uri)
    if current is None or current.version != version:
        return  # closed, or changed again: a newer lint is on its way
    ls.lint_diagnostics[uri] = convert.lsp_lint_diagnostics(run.messages, path, current.lines)
    ls.publish(uri)


def close_document(ls: BenchwrightServer, uri: str) -> None:
    """Stop linting `uri` and clear its diagnostics."""
    task = ls.lint_tasks.pop(uri, None)
    if task is not None:
        task.cancel()
    ls.lint_diagnostics.pop(uri, None)
    ls.hint_diagnostics.pop(uri, None)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


# -- simulation ---------------------------------------------------------------------


async def simulate_document(ls: BenchwrightServer, uri: str) -> None:
    """On save: simulate the design the document belongs to (never in an untrusted workspace)."""
    if not ls.workspace_trusted:
        logger.info("untrusted workspace: not simulating after saving %s", uri)
        return
    settings, project = await resolve(ls, uri)
    if project is None or not settings.simulate_on_save:
        return
    doc = ls.workspace.text_documents.get(uri)
    await simulate_project(ls, project, settings, doc.version if doc is not None else None)


def schedule_resimulation(ls: BenchwrightServer, uris: list[str]) -> None:
    """Re-simulate the designs of files changed outside the editor (coalesced per design; not when untrusted)."""
    if not ls.workspace_trusted:
        return
    for uri in uris:
        path = doc_path(uri)
        if path is None or STATE_DIR in path.parts:
            continue
        ls.module_index.update(path)  # created, changed or deleted: re-index just this file
        if path.suffix in (*HDL_SUFFIXES, ".f", ".py") or path.name == "design.toml":
            key = str(path.parent)
            pending = ls.resim_tasks.pop(key, None)
            if pending is not None:
                pending.cancel()
            ls.resim_tasks[key] = asyncio.create_task(_resimulate_later(ls, uri, key))


async def _resimulate_later(ls: BenchwrightServer, uri: str, key: str) -> None:
    try:
        await asyncio.sleep(RESIMULATE_DELAY_S)
        settings, project = await resolve(ls, uri)
        if project is not None and settings.simulate_on_save:
            await simulate_project(ls, project, settings, None)
    except asyncio.CancelledError:
        raise
    except Exception:  # a protocol boundary: log, keep serving
        logger.exception("re-simulation after %s failed", uri)
    finally:
        if ls.resim_tasks.get(key) is asyncio.current_task():
            del ls.resim_tasks[key]


# -- proposals ----------------------------------------------------------------------


def make_policy(settings: Settings, options: SimOptions) -> Any:
    """The configured policy (heavy backends are imported only here)."""
    pol = settings.policy
    local_model = {"model_path": pol.model_path, "n_ctx": pol.context_size, "n_threads": pol.threads or None,
                   "max_tokens": pol.max_tokens}
    if pol.backend == "llama":
        return get_policy("llama", **local_model, format=pol.format)
    if pol.backend == "hybrid":
        # The model's programs seed the built-in engine's search, which judges them with the
        # editor's simulator options like the heuristic backend.
        return get_policy("hybrid", **local_model, sim_options=options)
    if pol.backend == "openai":
        return get_policy("openai", base_url=pol.openai_base_url or None, model=pol.openai_model or "default",
                          max_tokens=pol.max_tokens, format=pol.format)
    return get_policy(pol.backend, seed=0, sim_options=options)


def _initial(project: Project, tb: Testbench | None, options: SimOptions, outcome: Outcome | None,
             cancel: threading.Event) -> tuple[str, SimResult] | None:
    """The state an improve-coverage episode starts from (the current single-file SV TB)."""
    if tb is None or tb.kind == "cocotb" or len(tb.files) != 1 or not tb.path.is_file():
        return None
    text = tb.path.read_text(errors="replace")
    if outcome is not None and outcome.testbench_path == tb.path:
        return text, outcome.result
    return text, simulate(project, tb, options, cancel)


def _episode_work(ls: BenchwrightServer, project: Project, settings: Settings, tb: Testbench | None,
                  from_current: bool, report: Any) -> Any:
    options = sim_options(settings)
    outcome = ls.outcomes.get(str(project.design.root))
    pol = settings.policy
    config = AgentConfig(refinements=pol.rounds, target=target_of(project, settings), max_sim_calls=pol.sim_calls,
                         wall_time_s=pol.wall_seconds, sim=options,
                         trajectory_dir=state_folder(project, "trajectories", project.design.name))

    def on_step(record: StepRecord, episode: EpisodeResult) -> None:
        best = episode.best_result
        cov = f"{best.overall:.1f} %" if best is not None and best.coverage is not None else "no coverage yet"
        report(f"step {record.step + 1}/{pol.rounds + 1}: best {cov} ({episode.sim_calls} sim calls)",
               min(99, int(100 * (record.step + 1) / (pol.rounds + 1))))

    def work(cancel: threading.Event) -> tuple[EpisodeResult, str | None]:
        initial = _initial(project, tb, options, outcome, cancel) if from_current else None
        policy = make_policy(settings, options)
        try:
            episode = run_episode(project.design, CancellablePolicy(policy, cancel), config, cancel=cancel,
                                  on_step=on_step, initial=initial)
        finally:
            close = getattr(policy, "close", None)
            if callable(close):
                close()
        return episode, initial[0] if initial is not None else None

    return work


def _target_file(project: Project, current: Testbench | None, text: str) -> Path:
    """Where the proposal goes; never over a human test whose top module would no longer exist."""
    path = proposal_path(project, current)
    human = project.design.human_test
    if human is not None and path in human.files and tb_top_name(text) != human.top:
        fallback = project.design.root / "tb" / f"tb_{project.design.top}.sv"
        path = fallback if fallback not in human.files else fallback.with_name(f"{fallback.stem}_proposal.sv")
    return path


async def runnable_project(ls: BenchwrightServer, uri: str) -> tuple[Settings, Project] | p.ProposalResult:
    """The settings and project of `uri` for a command that simulates, or the refusal to answer with."""
    if not ls.workspace_trusted:
        return p.ProposalResult(applied=False, message=p.UNTRUSTED_REFUSAL)
    settings, project = await resolve(ls, uri)
    if project is None:
        return p.ProposalResult(applied=False, message=f"no design found for {uri}")
    refusal = (await sandbox_state_for(ls, settings))[1]
    if refusal is not None:
        return p.ProposalResult(applied=False, message=refusal)
    return settings, project


async def propose(ls: BenchwrightServer, uri: str, from_current: bool) -> p.ProposalResult:
    """Run an episode and offer its best testbench through workspace/applyEdit (refused when untrusted)."""
    ready = await runnable_project(ls, uri)
    if isinstance(ready, p.ProposalResult):
        return ready
    settings, project = ready
    root = str(project.design.root)
    current = current_testbench(ls, project, settings)
    job = ls.jobs.claim(root, JobKind.EPISODE)
    verb = "improving coverage of" if from_current else "generating a testbench for"
    with ls.activity("generating", f"{verb} {project.design.name}"):
        async with ls.work_progress(f"Benchwright: {verb} {project.design.name}", job.cancel) as report:
            try:
                done = await ls.jobs.run(job, _episode_work(ls, project, settings, current, from_current, report))
            except (SimError, LLMError, ValueError, OSError) as exc:
                # Tool, model and endpoint failures are answers, not protocol errors.
                ls.log(f"Benchwright: {exc}", types.MessageType.Error)
                return p.ProposalResult(applied=False, message=str(exc))
    if done is None or job.cancel.is_set() or done[0].status is EpisodeStatus.CANCELLED:
        return p.ProposalResult(applied=False, cancelled=True, message="cancelled")
    return await offer(ls, project, settings, current, *done)


async def offer(ls: BenchwrightServer, project: Project, settings: Settings, current: Testbench | None,
                episode: EpisodeResult, initial_text: str | None) -> p.ProposalResult:
    """Send the episode's best testbench as an undoable edit; publish its coverage if applied."""
    text, best = episode.best_testbench, episode.best_result
    if not text or best is None or text == initial_text:
        overall = round(best.overall, 2) if best is not None and best.coverage else None
        return p.ProposalResult(applied=False, overall=overall, message="no better testbench was found")
    path = _target_file(project, current, text)
    uri = convert.uri_of(path)
    doc = ls.workspace.text_documents.get(uri)
    old = doc.source if doc is not None else (path.read_text(errors="replace") if path.is_file() else None)
    edit = convert.lsp_testbench_edit(uri, text, old, doc.version if doc is not None else None)
    label = f"Benchwright: proposed testbench for {project.design.name} ({best.overall:.1f} %)"
    answer = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label=label))
    overall = round(best.overall, 2) if best.coverage else None
    if not answer.applied:
        return p.ProposalResult(applied=False, testbench_uri=uri, overall=overall,
                                message=answer.failure_reason or "the edit was not applied")
    ls.accepted[str(project.design.root)] = path
    outcome = Outcome(project, None, path, best, target_of(project, settings), tuple(settings.coverage.metrics))
    lcov = lcov_path(project)
    if best.report is not None:
        await asyncio.get_running_loop().run_in_executor(ls.jobs.executor, save_lcov, project, best.report, lcov)
    publish_outcome(ls, outcome, None, lcov if best.report is not None else None, settings)
    return p.ProposalResult(applied=True, testbench_uri=uri, overall=overall)


# -- reports ------------------------------------------------------------------------


async def report_markdown(ls: BenchwrightServer, uri: str | None) -> str:
    """The last coverage report of the document's design (or of the only design simulated)."""
    project = (await resolve(ls, uri))[1] if uri else None
    key = str(project.design.root) if project is not None else next(iter(ls.outcomes), None)
    outcome = ls.outcomes.get(key) if key is not None else None
    if outcome is None:
        name = project.design.name if project is not None else "Benchwright"
        return convert.report_markdown(None, design=name, testbench=None, target=0.0)
    return convert.report_markdown(outcome.result, design=outcome.project.design.name,
                                   testbench=outcome.testbench_path, target=outcome.target)


def code_lenses(ls: BenchwrightServer, uri: str) -> list[types.CodeLens]:
    """Per-module coverage lenses for an RTL document of a simulated design."""
    path = doc_path(uri)
    if path is None:
        return []
    outcome = next((o for o in ls.outcomes.values() if path.resolve() in o.project.design.rtl), None)
    if outcome is None:
        return []
    doc = ls.workspace.get_text_document(uri)
    return convert.lsp_code_lenses(modules_in(doc.source), outcome.result.report, outcome.metrics, uri)


async def doctor_text(ls: BenchwrightServer) -> str:
    """Tool paths and versions, and the last command lines."""
    from server import __version__

    settings = await ls.settings_for(ls.workspace.root_uri or "")
    lines = [f"benchwright server {__version__}", f"python       {sys.executable} ({sys.version.split()[0]})"]
    try:
        tool = await asyncio.get_running_loop().run_in_executor(
            ls.jobs.executor, find_verilator, settings.sim.verilator_path or None)
        lines += [f"verilator    {tool.verilator} ({tool.version_text})", f"coverage     {tool.coverage}"]
    except ToolNotFoundError as exc:
        lines.append(f"verilator    MISSING: {exc}")
    lines.append(f"ccache       {shutil.which('ccache') or 'not found (rebuilds are slower)'}")
    sandbox = await asyncio.get_running_loop().run_in_executor(
        ls.jobs.executor, sandbox_line, sandbox_mode(settings))
    lines.append(f"sandbox      {sandbox}")
    lines.append("workspace    " + ("trusted" if ls.workspace_trusted else
                                    "untrusted: lint only (no builds, simulations or proposals)"))
    for mod in ("pygls", "lsprotocol", "cocotb", "llama_cpp", "openai", "watchdog"):
        found = importlib.util.find_spec(mod) is not None
        lines.append(f"{mod:<12} {'ok' if found else 'not installed'}")
    lines.append(f"policy       {settings.policy.backend}")
    lines += ["", "last command lines:"] + [f"  [{what}] {cmd}" for what, cmd in ls.commands]
    with contextlib.suppress(StopIteration):
        outcome = next(reversed(ls.outcomes.values()))
        lines += ["", f"last simulation: {outcome.project.design.name}: {outcome.result.status.value}"
                      f"{' - ' + outcome.result.detail if outcome.result.detail else ''}"]
    return "\n".join(lines)

