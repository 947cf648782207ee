"""Helpers for driving the real server process over stdio (pytest-lsp)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import (
    ClientServerConfig,
    LanguageClient,
    client_capabilities,
    make_test_lsp_client,
)

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "traffic_light"
SHUTDOWN_TIMEOUT_S = 10.0


def verilator_available() -> bool:
    from sim.errors import SimError
    from sim.tools import find_verilator

    try:
        find_verilator()
    except SimError:
        return False
    return True


requires_verilator = pytest.mark.skipif(not verilator_available(), reason="needs Verilator >= 5.036")


@dataclass
class Recorder:
    """What the server sent besides responses."""

    coverage: list[dict[str, Any]] = field(default_factory=list)
    status: list[dict[str, Any]] = field(default_factory=list)
    edits: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    registrations: list[types.RegistrationParams] = field(default_factory=list)
    ambiguous: list[dict[str, Any]] = field(default_factory=list)
    apply: bool = True
    coverage_event: asyncio.Event = field(default_factory=asyncio.Event)

    async def next_coverage(self, count: int, timeout: float = 90.0) -> dict[str, Any]:
        """Wait until at least `count` coverage notifications arrived; return the last."""
        async def wait() -> None:
            while len(self.coverage) < count:
                self.coverage_event.clear()
                await self.coverage_event.wait()

        await asyncio.wait_for(wait(), timeout)
        return self.coverage[-1]


def make_client(recorder: Recorder) -> Callable[[], LanguageClient]:
    def factory() -> LanguageClient:
        client = make_test_lsp_client()

        @client.feature("benchwright/coverage")
        def on_coverage(params: Any) -> None:
            recorder.coverage.append(_plain(params))
            recorder.coverage_event.set()

        @client.feature("benchwright/status")
        def on_status(params: Any) -> None:
            recorder.status.append(_plain(params))

        @client.feature("benchwright/ambiguousTop")
        def on_ambiguous(params: Any) -> None:
            recorder.ambiguous.append(_plain(params))

        @client.feature(types.WORKSPACE_APPLY_EDIT)
        def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            recorder.edits.append(params)
            return types.ApplyWorkspaceEditResult(applied=recorder.apply)

        @client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(params: types.RegistrationParams) -> None:
            recorder.registrations.append(params)

        @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def on_refresh(params: None) -> None:
            return None

        return client

    return factory


def _plain(params: Any) -> Any:
    """Notification params (pygls hands unknown methods over as namedtuples) as plain JSON."""
    if hasattr(params, "_asdict"):
        return {k: _plain(v) for k, v in params._asdict().items()}
    if isinstance(params, dict):
        return {k: _plain(v) for k, v in params.items()}
    if isinstance(params, list | tuple):
        return [_plain(v) for v in params]
    return params


@dataclass
class Session:
    client: LanguageClient
    recorder: Recorder
    workspace: Path

    @property
    def design(self) -> Path:
        return self.workspace / "traffic_light"

    def uri(self, path: Path) -> str:
        return path.as_uri()

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        uri = self.uri(path)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="systemverilog", version=version,
                                                 text=path.read_text() if text is None else text)))
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))

    def save(self, uri: str) -> None:
        self.client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))

    async def diagnostics(self, uri: str, version: int | None = None, timeout: float = 30.0
                          ) -> list[types.Diagnostic]:
        """Wait for a publishDiagnostics for `uri` (optionally for `version`)."""
        async def wait() -> types.PublishDiagnosticsParams:
            while True:
                params = await self.client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
                if params.uri == uri and (version is None or params.version == version):
                    return params

        return list((await asyncio.wait_for(wait(), timeout)).diagnostics)

    async def status_where(self, check: Callable[[dict[str, Any]], bool], timeout: float = 30.0) -> dict[str, Any]:
        """The first `benchwright/status` for which `check` holds (waiting for it)."""
        return await first_where(self.recorder.status, check, timeout)

    async def command(self, name: str, *args: Any, timeout: float = 120.0) -> Any:
        return await asyncio.wait_for(self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(args))), timeout)


async def first_where(received: list[dict[str, Any]], check: Callable[[dict[str, Any]], bool],
                      timeout: float = 30.0) -> dict[str, Any]:
    """The first notification in `received` (a recorder list, still filling) for which `check` holds."""
    async def wait() -> dict[str, Any]:
        while True:
            found = next((n for n in received if check(n)), None)
            if found is not None:
                return found
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(wait(), timeout)


async def start_session(workspace: Path, cache_dir: Path, options: dict[str, Any] | None = None,
                        configuration: dict[str, Any] | None = None, extra_env: dict[str, str] | None = None,
                        ) -> tuple[Session, Callable[[], Any]]:
    recorder = Recorder()
    env = {**os.environ, "BENCHWRIGHT_CACHE": str(cache_dir), "BENCHWRIGHT_LOG_LEVEL": "INFO", **(extra_env or {})}
    config = ClientServerConfig(server_command=[sys.executable, "-m", "server"], server_env=env,
                                client_factory=make_client(recorder))
    client = await config.start()
    if configuration is not None:
        client.set_configuration(configuration)
    folder = types.WorkspaceFolder(uri=workspace.as_uri(), name=workspace.name)
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=workspace.as_uri(),
        workspace_folders=[folder], initialization_options=options))

    async def stop() -> None:
        try:
            await asyncio.wait_for(client.shutdown_session(), SHUTDOWN_TIMEOUT_S)
        finally:
            await client.stop()

    return Session(client, recorder, workspace), stop


def cli_sim_json(design: Path, cache_dir: Path) -> dict[str, Any]:
    """`benchwright sim DESIGN --human --json` (the reference numbers)."""
    out = subprocess.run([sys.executable, "-m", "benchwright.cli", "sim", str(design), "--human", "--json"],
                         capture_output=True, text=True, check=False, timeout=300,
                         env={**os.environ, "BENCHWRIGHT_CACHE": str(cache_dir)})
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)
