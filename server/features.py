"""The registration module: every LSP feature and command of the Benchwright server.

Each handler gets the document, reads the typed settings, calls `server.service`,
converts with `server.convert`, and returns the value (None when empty) or publishes.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types

from server import protocol as p
from server import service, trust
from server.server import BenchwrightServer
from server.settings import CONVERTER, section_of, trust_of

logger = logging.getLogger(__name__)

WATCH_GLOBS = ("**/*.{v,sv,vh,svh}", "**/design.toml", "**/*.f")
"""Files whose outside changes (checkout, generators) trigger a re-simulation."""


def make_server() -> BenchwrightServer:
    """A server with every feature registered."""
    ls = BenchwrightServer()
    register(ls)
    return ls


def _first_uri(args: tuple[Any, ...]) -> str | None:
    """The `[uri]` argument of a command (a string, or an object with `uri`)."""
    first = args[0] if args else None
    if isinstance(first, dict):
        first = first.get("uri") or first.get("external")
    return first if isinstance(first, str) else None


def register(ls: BenchwrightServer) -> None:
    """Register all features on `ls`."""

    @ls.feature(types.INITIALIZE)
    def initialize(ls: BenchwrightServer, params: types.InitializeParams) -> None:
        ls.init_settings = section_of(params.initialization_options)
        ls.workspace_trusted = trust_of(params.initialization_options)
        if not ls.workspace_trusted:
            logger.info("untrusted workspace: lint only (no builds, simulations or proposals)")
            ls.restriction = trust.restriction_for(False, None, None)  # carried by every status from the first

    @ls.feature(types.INITIALIZED)
    async def initialized(ls: BenchwrightServer, params: types.InitializedParams) -> None:
        # Watched files only trigger simulations, which an untrusted workspace never runs.
        if ls.workspace_trusted and ls.supports(lambda c: c.workspace.did_change_watched_files.dynamic_registration):  # type: ignore[union-attr]
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCH_GLOBS])
            registration = types.Registration(id="benchwright-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                              register_options=CONVERTER.unstructure(options))
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
            except Exception:  # a protocol boundary: watching is optional
                logger.info("client did not accept the file watcher registration", exc_info=True)
        await trust.refresh_restriction(ls)

    @ls.feature(types.SHUTDOWN)
    def shutdown(ls: BenchwrightServer, params: None) -> None:
        ls.shutdown_jobs()

    @ls.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: BenchwrightServer, params: types.DidChangeConfigurationParams) -> None:
        if not ls.supports(lambda c: c.workspace.configuration):  # type: ignore[union-attr]
            ls.init_settings = section_of(params.settings) or ls.init_settings
        ls.folder_settings.clear()
        for uri in list(ls.workspace.text_documents):
            service.schedule_lint(ls, uri, 0.0)
        await trust.refresh_restriction(ls)

    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: BenchwrightServer, params: types.DidOpenTextDocumentParams) -> None:
        service.schedule_lint(ls, params.text_document.uri, 0.0)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: BenchwrightServer, params: types.DidChangeTextDocumentParams) -> None:
        settings = await ls.settings_for(params.text_document.uri)
        service.schedule_lint(ls, params.text_document.uri, settings.lint.debounce_ms / 1000)

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: BenchwrightServer, params: types.DidSaveTextDocumentParams) -> None:
        await service.simulate_document(ls, params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: BenchwrightServer, params: types.DidCloseTextDocumentParams) -> None:
        service.close_document(ls, params.text_document.uri)

    @ls.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: BenchwrightServer, params: types.DidChangeWatchedFilesParams) -> None:
        service.schedule_resimulation(ls, [change.uri for change in params.changes])

    @ls.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: BenchwrightServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        return service.code_lenses(ls, params.text_document.uri) or None

    @ls.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: BenchwrightServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        from server import convert

        return convert.lsp_code_actions(params.context.diagnostics, params.text_document.uri) or None

    @ls.command(p.GENERATE_TESTBENCH)
    async def generate_testbench(ls: BenchwrightServer, *args: Any) -> Any:
        uri = _first_uri(args)
        if uri is None:
            return CONVERTER.unstructure(p.ProposalResult(applied=False, message="expected [uri]"))
        return CONVERTER.unstructure(await service.propose(ls, uri, from_current=False))

    @ls.command(p.IMPROVE_COVERAGE)
    async def improve_coverage(ls: BenchwrightServer, *args: Any) -> Any:
        uri = _first_uri(args)
        if uri is None:
            return CONVERTER.unstructure(p.ProposalResult(applied=False, message="expected [uri]"))
        return CONVERTER.unstructure(await service.propose(ls, uri, from_current=True))

    @ls.command(p.ACCEPT_BEHAVIOUR)
    async def accept_new_behaviour(ls: BenchwrightServer, *args: Any) -> Any:
        from server.regression import accept_behaviour

        uri = _first_uri(args)
        if uri is None:
            return CONVERTER.unstructure(p.ProposalResult(applied=False, message="expected [uri]"))
        return CONVERTER.unstructure(await accept_behaviour(ls, uri))

    @ls.command(p.SHOW_REPORT)
    async def show_report(ls: BenchwrightServer, *args: Any) -> Any:
        return {"markdown": await service.report_markdown(ls, _first_uri(args))}

    @ls.command(p.DOCTOR)
    async def doctor(ls: BenchwrightServer, *args: Any) -> Any:
        return {"text": await service.doctor_text(ls)}
