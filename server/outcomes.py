"""What every simulation the server runs shares: options, target, coverage files, publishing.

Evaluator options and the target from the settings, where coverage files go, fingerprints of
what was simulated, and publishing an outcome to the client.

`server.simulation` (a save's simulation, or a testbench written first where none can run) and
`server.service` (the features) both use these; nothing here starts a job.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from server import convert
from server import protocol as p
from server.project import STATE_DIR, Project, Testbench
from server.server import BenchwrightServer, Outcome
from server.settings import Settings
from server.trust import sandbox_mode
from sim.mutation.model import MutationReport
from sim.run.evaluate import SimOptions
from sim.run.lcov import write_lcov
from sim.sandbox.outputs import UnsafeOutputError, open_dir

logger = logging.getLogger(__name__)


def sim_options(settings: Settings) -> SimOptions:
    """Evaluator options from the settings (sandbox `auto` leaves the mode to BENCHWRIGHT_SANDBOX)."""
    return SimOptions(metrics=tuple(settings.coverage.metrics), extra_args=tuple(settings.sim.verilator_args),
                      verilator_path=settings.sim.verilator_path or None, sandbox=sandbox_mode(settings),
                      seed=settings.sim.seed)


def target_of(project: Project, settings: Settings) -> float:
    """design.toml's target where it gives one, else the setting."""
    design = project.design
    return design.target if design.target_given else settings.coverage.target


def tool_missing(ls: BenchwrightServer, settings: Settings, text: str, kind: str = "tool") -> None:
    """Log a blocking problem (no Verilator; `kind="sandbox"`: no required sandbox); pop up each kind once."""
    ls.log(text, types.MessageType.Error)
    if kind not in ls.popups_shown and settings.show_notifications != "off":
        ls.popups_shown.add(kind)
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=text))


def _state_dir(project: Project) -> Path:
    return project.workspace / STATE_DIR


def lcov_path(project: Project) -> Path:
    """`<workspace>/.benchwright/coverage/<design>.info`: where a design's lcov file goes."""
    return _state_dir(project) / "coverage" / f"{project.design.name}.info"


def state_folder(project: Project, *parts: str) -> Path | None:
    """`<workspace>/.benchwright/<parts>`, made, with no symlink on the way (None, logged, when there is one).

    A cloned repository may ship .benchwright/ with a folder that is a symlink elsewhere.
    """
    try:
        with open_dir(project.workspace, (STATE_DIR, *parts), create=True):
            return _state_dir(project).joinpath(*parts)
    except (UnsafeOutputError, OSError) as exc:
        logger.warning("not writing under %s: %s", STATE_DIR, exc)
        return None


def save_lcov(project: Project, report: Any, lcov: Path) -> bool:
    """Write the lcov file under the workspace's .benchwright/ (a cloned repository may ship that folder).

    Never through a symlink (sim.sandbox.outputs.write_output); a refusal is logged, not raised.
    """
    try:
        write_lcov(report, lcov, root=project.workspace)
    except (UnsafeOutputError, OSError) as exc:
        logger.warning("lcov not written: %s", exc)
        return False
    return True


def files_fingerprint(files: Any) -> str:
    """Hash of some files' paths and contents."""
    h = hashlib.sha256()
    for path in files:
        h.update(str(path).encode() + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<unreadable>")
    return h.hexdigest()


def content_fingerprint(project: Project, tb: Testbench) -> str:
    """Hash of the files a simulation reads (RTL, testbench), for de-duplicating events."""
    return files_fingerprint((*project.design.rtl, *tb.files))


def publish_outcome(ls: BenchwrightServer, outcome: Outcome, version: int | None, lcov: Path | None,
                    settings: Settings) -> None:
    """Send `benchwright/coverage`, refresh hints and code lenses, remember the outcome."""
    project, result = outcome.project, outcome.result
    ls.outcomes[str(project.design.root)] = outcome
    ls.record("build", result.extra.get("build_argv"))
    ls.record("run", result.extra.get("run_argv"))
    if result.status.value != "ok":
        # Why there is no coverage, file by file (a run's output refused, and the reason): the
        # status line has room for one sentence, the output channel for every note. Sent before
        # the coverage notification, so a client has them when the result arrives.
        for note in result.notes:
            ls.log(f"{project.design.name}: {result.status.value}: {note}", types.MessageType.Warning)
    ls.notify(p.COVERAGE, convert.lsp_coverage_params(
        result, design=project.design.name, top=project.design.top, root=project.design.root,
        testbench=outcome.testbench_path, version=version, target=outcome.target, metrics=outcome.metrics,
        lcov_path=lcov, testbench_source=outcome.testbench.source if outcome.testbench is not None else ""))
    tb_text = ""  # the kept testbench names the ports its reads come from
    if outcome.testbench_path is not None and outcome.testbench_path.suffix in (".sv", ".v"):
        with contextlib.suppress(OSError):
            tb_text = outcome.testbench_path.read_text(errors="replace")
    for rtl in project.design.rtl:
        uri = convert.uri_of(rtl)
        doc = ls.workspace.text_documents.get(uri)
        if doc is None:
            continue
        hints = convert.lsp_hint_diagnostics(result.uncovered, rtl, doc.lines, project.design.name) \
            if settings.coverage.hints else []
        hints += convert.lsp_check_diagnostics(result.log_tail, doc.lines, project.design.name, outcome.testbench_path,
                                               tb_text)
        mutation = result.extra.get("mutation")
        if isinstance(mutation, MutationReport) and not mutation.error:
            hints += convert.lsp_mutant_diagnostics(mutation.survived, rtl, doc.lines, project.design.name)
        if hints or ls.hint_diagnostics.get(uri):  # (cleared too, once the checks pass again)
            ls.hint_diagnostics[uri] = hints
            ls.publish(uri)
    if ls.supports(lambda c: c.workspace.code_lens.refresh_support):  # type: ignore[union-attr]
        ls.workspace_code_lens_refresh(None)
