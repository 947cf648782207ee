"""`BenchwrightServer`: the one LanguageServer subclass and the state features share.

It owns the typed settings (init options + pulled configuration), the per-URI lint
and coverage-hint diagnostics (published together, with the document version), the
last simulation outcome per design, the background jobs, work-done progress and the
`benchwright/status` notification. Features are registered in `server.features`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

import server as server_pkg
from server import protocol as p
from server.jobs import JobKind, Jobs
from server.project import Project, Testbench
from server.settings import (
    CONVERTER,
    SECTION,
    Settings,
    SettingsError,
    merge,
    parse_settings,
    section_of,
)
from server.workspace_index import ModuleIndex
from sim.types import SimResult

if TYPE_CHECKING:
    from pygls.server import ServerErrors

logger = logging.getLogger(__name__)

MAX_COMMAND_LINES = 12
"""Command lines kept for `doctor`."""


@dataclass
class Outcome:
    """The last simulation of one design."""

    project: Project
    """The design simulated."""
    testbench: Testbench | None
    """Its testbench (None for a proposal that is not on disk yet)."""
    testbench_path: Path | None
    """The testbench file the result belongs to."""
    result: SimResult
    """What the simulator saw."""
    target: float
    """The design's target."""
    metrics: tuple[str, ...]
    """Metrics scored."""


class BenchwrightServer(LanguageServer):
    """The Benchwright language server."""

    def __init__(self) -> None:
        super().__init__(name=p.SERVER_NAME, version=server_pkg.__version__,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.init_settings: dict[str, Any] = {}
        """Raw settings from initializationOptions."""
        self.folder_settings: dict[str, Settings] = {}
        """Validated settings per workspace folder URI ('' for no folder), pulled lazily."""
        self.shown_errors: set[str] = set()
        """Settings errors already shown (each is shown once)."""
        self.lint_diagnostics: dict[str, list[types.Diagnostic]] = {}
        """Lint diagnostics per URI."""
        self.hint_diagnostics: dict[str, list[types.Diagnostic]] = {}
        """Uncovered-line hints per URI."""
        self.lint_tasks: dict[str, asyncio.Task[None]] = {}
        """Pending or running lint per URI (a change cancels it)."""
        self.outcomes: dict[str, Outcome] = {}
        """Last simulation per design root."""
        self.accepted: dict[str, Path] = {}
        """Last accepted proposal's file per design root."""
        self.resim_tasks: dict[str, asyncio.Task[None]] = {}
        """Pending re-simulations from watched-file events, per design root."""
        self.unusable_own: dict[str, str] = {}
        """Designs (roots) whose repository testbench does not build with Verilator -> a hash of its files."""
        self.generating: dict[str, bool] = {}
        """Designs (roots) whose missing testbench the built-in engine is writing -> a save came meanwhile."""
        self.sim_fingerprints: dict[str, str] = {}
        """Content hash of the RTL + testbench each design was last simulated with."""
        self.jobs = Jobs()
        """Simulations and episodes."""
        self.module_index = ModuleIndex()
        """Units each workspace HDL file declares and uses (design inference without design.toml)."""
        self.commands: deque[tuple[str, str]] = deque(maxlen=MAX_COMMAND_LINES)
        """(what, command line) of recent child processes, for doctor."""
        self.shadow_dir = Path(tempfile.mkdtemp(prefix="benchwright-lsp-"))
        """Private folder for unsaved buffers being linted (removed when the server exits)."""
        self.busy: dict[p.State, int] = {"linting": 0, "simulating": 0, "generating": 0}
        """How many of each activity are in flight."""
        self.last_state: p.State = "idle"
        """Last state sent in `benchwright/status`."""
        self.popups_shown: set[str] = set()
        """Kinds of blocking problems already popped up once (`tool`: no Verilator, `sandbox`)."""
        self.ambiguities_sent: set[tuple[str, ...]] = set()
        """(document, candidates...) already sent as `benchwright/ambiguousTop` (each once)."""
        self.workspace_trusted = True
        """False when initializationOptions say `workspaceTrusted: false`: lint only, never simulate."""
        self.restriction: tuple[str, str] = ("", "")
        """(status-bar text, tooltip detail) of what the server persistently does not do."""
        self.restriction_sent = False
        """A status carrying the restriction was sent (the first one always is)."""
        self.reporting_error = False
        """An error report is being sent (a failing send must not report itself again)."""

    # -- settings -------------------------------------------------------------------

    def folder_of(self, uri: str) -> str:
        """The workspace folder URI holding `uri` ('' when none does)."""
        path = to_fs_path(uri) or ""
        inside = [f.uri for f in self.workspace.folders.values()
                  if (fp := to_fs_path(f.uri)) and (path == fp or path.startswith(fp.rstrip("/") + "/"))]
        return max(inside, key=len) if inside else ""

    def folder_paths(self) -> list[Path]:
        """Workspace folders (and the root) as paths."""
        uris = [f.uri for f in self.workspace.folders.values()]
        if self.workspace.root_uri:
            uris.append(self.workspace.root_uri)
        return [Path(fp) for u in dict.fromkeys(uris) if (fp := to_fs_path(u))]

    def supports(self, getter: Callable[[types.ClientCapabilities], Any]) -> bool:
        """Whether a client capability is present and true."""
        try:
            return bool(getter(self.client_capabilities))
        except AttributeError:
            return False

    async def settings_for(self, uri: str) -> Settings:
        """Typed settings for a document: defaults < init options < pulled configuration."""
        folder = self.folder_of(uri)
        if folder not in self.folder_settings:
            pulled: dict[str, Any] = {}
            if self.supports(lambda c: c.workspace.configuration):  # type: ignore[union-attr]
                item = types.ConfigurationItem(scope_uri=folder or uri, section=SECTION)
                try:
                    values = await self.workspace_configuration_async(types.ConfigurationParams(items=[item]))
                    pulled = section_of(values[0] if values else None)
                except Exception:  # a protocol boundary: fall back to the init options
                    logger.warning("workspace/configuration failed", exc_info=True)
            settings, errors = parse_settings(merge(self.init_settings, pulled))
            self.show_settings_errors(errors)
            self.folder_settings[folder] = settings
        return self.folder_settings[folder]

    def show_settings_errors(self, errors: list[SettingsError]) -> None:
        """One window/showMessage naming the invalid keys (each error set shown once)."""
        text = "; ".join(str(e) for e in errors)
        if not errors or text in self.shown_errors:
            return
        self.shown_errors.add(text)
        logger.warning("invalid settings: %s", text)
        self.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message=f"Benchwright: invalid settings, using the defaults for them: {text}"))

    def report_server_error(self, error: Exception, source: ServerErrors) -> None:
        """Show an out-of-band error once; a report whose own send fails is only logged.

        pygls reports a failed send with window/showMessage, whose send fails the same way once
        stdout is closed (a job finishing after `exit`): without this guard the server recursed
        through its error reports at full CPU instead of exiting.
        """
        if self.reporting_error:
            logger.error("not reported to the client (sending failed): %s", error)
            return
        self.reporting_error = True
        try:
            super().report_server_error(error, source)
        finally:
            self.reporting_error = False

    # -- publishing -----------------------------------------------------------------

    def publish(self, uri: str) -> None:
        """Publish lint diagnostics and coverage hints of `uri` together, with its version."""
        doc = self.workspace.text_documents.get(uri)
        diagnostics = [*self.lint_diagnostics.get(uri, []), *self.hint_diagnostics.get(uri, [])]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics, version=doc.version if doc is not None else None))

    def notify(self, method: str, payload: Any) -> None:
        """Send a custom notification, converting the payload to camelCase JSON."""
        self.protocol.notify(method, CONVERTER.unstructure(payload))

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        """Log to stderr and to the client's output channel."""
        logger.log(logging.ERROR if kind is types.MessageType.Error else logging.INFO, "%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def record(self, what: str, argv: Any) -> None:
        """Remember a child command line for doctor."""
        if argv:
            self.commands.append((what, " ".join(str(a) for a in argv)))

    @contextlib.contextmanager
    def activity(self, state: p.State, message: str = "") -> Any:
        """Count an activity for `benchwright/status` while the block runs."""
        self.busy[state] += 1
        self._send_status(message)
        try:
            yield
        finally:
            self.busy[state] -= 1
            self._send_status("")

    def _send_status(self, message: str, force: bool = False) -> None:
        order: tuple[p.State, ...] = ("generating", "simulating", "linting")
        state: p.State = next((s for s in order if self.busy[s] > 0), "idle")
        if state != self.last_state or message or force:
            self.last_state = state
            self.notify(p.STATUS, p.StatusParams(state, message, *self.restriction))

    def set_restriction(self, text: str, detail: str) -> None:
        """Change the persistent restriction; a status carrying it is sent (always, the first time)."""
        if not self.restriction_sent or (text, detail) != self.restriction:
            self.restriction_sent = True
            self.restriction = (text, detail)
            self._send_status("", force=True)

    @contextlib.asynccontextmanager
    async def work_progress(self, title: str, cancel: Any) -> AsyncIterator[Callable[[str, int | None], None]]:
        """Cancellable work-done progress; yields `report(message, percent)` (thread-safe).

        A client cancel sets `cancel` (a threading.Event), which stops the job.
        """
        if not self.supports(lambda c: c.window.work_done_progress):  # type: ignore[union-attr]
            yield lambda _message, _percent: None
            return
        token = f"benchwright-{uuid.uuid4().hex[:12]}"
        progress = self.work_done_progress
        try:
            await progress.create_async(token)
        except Exception:  # a protocol boundary: run without progress
            logger.warning("window/workDoneProgress/create failed", exc_info=True)
            yield lambda _message, _percent: None
            return
        progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True, percentage=0))
        progress.tokens[token].add_done_callback(lambda f: cancel.set() if f.cancelled() else None)
        loop = asyncio.get_running_loop()

        def report(message: str, percent: int | None) -> None:
            value = types.WorkDoneProgressReport(message=message, percentage=percent, cancellable=True)
            loop.call_soon_threadsafe(progress.report, token, value)

        try:
            yield report
        finally:
            progress.end(token, types.WorkDoneProgressEnd(message="cancelled" if cancel.is_set() else "done"))
            progress.tokens.pop(token, None)

    def shutdown_jobs(self) -> None:
        """Cancel lints and jobs (shutdown)."""
        for task in [*self.lint_tasks.values(), *self.resim_tasks.values()]:
            task.cancel()
        self.jobs.shutdown()

    def busy_with(self, kind: JobKind) -> int:
        """Jobs of a kind in flight."""
        return self.jobs.running(kind)
