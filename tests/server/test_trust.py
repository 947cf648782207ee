"""Workspace trust and the OS sandbox through the real server over stdio: lint only when untrusted,
and the sandbox state (in use, off, required but unavailable) in the status, doctor and on save."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsp_session import Session, requires_verilator, start_session
from lsprotocol import types

from server import protocol as p
from sim.sandbox.bwrap import probe

pytestmark = [pytest.mark.e2e, pytest.mark.simulator_required, requires_verilator]

QUIET_S = 2.0
"""How long nothing may happen after a save: a simulation reports `simulating` within ~0.1 s."""


def options(trusted: bool | None, **sim: str) -> dict[str, Any]:
    """initializationOptions as the extension sends them (no trust flag when `trusted` is None)."""
    section = {"lint": {"debounceMs": 0}, "policy": {"rounds": 0, "simCalls": 12}, "sim": sim}
    return {"benchwright": section} if trusted is None else {"benchwright": section, "workspaceTrusted": trusted}


def rtl(session: Session) -> Path:
    return session.design / "rtl" / "traffic_light.sv"


def tb(session: Session) -> Path:
    return session.design / "tb" / "tb_traffic_light.sv"


def simulations_started(session: Session) -> list[str]:
    """Signs of a simulation: `simulating` states and simulation progress titles."""
    states = [s["state"] for s in session.recorder.status if s["state"] == "simulating"]
    titles = [str(getattr(r[0], "title", "")) for r in session.client.progress_reports.values() if r]
    return states + [t for t in titles if t.startswith("Benchwright: simulating")]


async def test_untrusted_workspace_lints_only(workspace: Path, cache_dir: Path) -> None:
    session, stop = await start_session(workspace, cache_dir, options(False))
    try:
        status = await session.status_where(lambda s: True)
        assert (status["restriction"], status["restrictionDetail"]) == (p.UNTRUSTED_RESTRICTION, p.UNTRUSTED_DETAIL)

        uri = session.open(rtl(session))
        diags = await session.diagnostics(uri, version=1)
        assert any(d.code == "WIDTHEXPAND" and d.source == "verilator" for d in diags), diags
        session.save(uri)
        tb_uri = session.open(tb(session))
        session.save(tb_uri)
        session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=tb_uri, type=types.FileChangeType.Changed)]))
        await asyncio.sleep(QUIET_S + 0.5)  # past the watched-file debounce (0.5 s)
        assert session.recorder.coverage == []
        assert simulations_started(session) == []
        assert not (session.workspace / ".benchwright").exists()
        assert session.recorder.registrations == []  # no file watchers: they only trigger simulations

        for command in (p.IMPROVE_COVERAGE, p.GENERATE_TESTBENCH):
            result = await session.command(command, uri)
            assert result["applied"] is False
            assert result["message"] == p.UNTRUSTED_REFUSAL
        assert session.recorder.edits == []
        assert [s for s in session.recorder.status if s["state"] == "generating"] == []

        doctor = await session.command(p.DOCTOR)
        assert "workspace    untrusted: lint only" in doctor["text"]
        assert all(s["restriction"] == p.UNTRUSTED_RESTRICTION for s in session.recorder.status)
        assert [s["state"] for s in session.recorder.status].count("linting") >= 1
    finally:
        await stop()


@pytest.mark.parametrize("trusted", [True, None], ids=["trusted", "no-trust-flag"])
async def test_trusted_or_unspecified_workspace_simulates_on_save(workspace: Path, cache_dir: Path,
                                                                 trusted: bool | None) -> None:
    session, stop = await start_session(workspace, cache_dir, options(trusted))
    try:
        # The one restriction this machine calls for, decided from the probe itself (not from the
        # server's own helper): none where bubblewrap works, the fallback note where it does not.
        expected = "" if probe().available else p.NO_SANDBOX_RESTRICTION
        await session.status_where(lambda s: s["restriction"] == expected)
        uri = session.open(rtl(session))
        session.save(uri)
        cov = await session.recorder.next_coverage(1)
        assert cov["status"] == "ok"
        assert cov["version"] == 1
        assert "simulating" in simulations_started(session)
        doctor = await session.command(p.DOCTOR)
        assert "workspace    trusted" in doctor["text"]
        # Every status carried exactly that restriction once the sandbox state was known.
        shown = [(s["restriction"], s["restrictionDetail"]) for s in session.recorder.status]
        assert shown[-1][0] == expected
        if probe().available:
            assert set(shown) == {("", "")}, shown
        else:
            assert shown[-1][1].startswith("no OS sandbox: "), shown
    finally:
        await stop()


async def test_sandbox_off_is_said_in_the_status_and_doctor(workspace: Path, cache_dir: Path) -> None:
    session, stop = await start_session(workspace, cache_dir, options(True, sandbox="off"))
    try:
        status = await session.status_where(lambda s: s["restriction"] != "")
        assert status["restriction"] == p.NO_SANDBOX_RESTRICTION
        assert status["restrictionDetail"].startswith("no OS sandbox: ")
        doctor = await session.command(p.DOCTOR)
        assert "sandbox      OFF (off): no OS sandbox" in doctor["text"]
    finally:
        await stop()


async def test_required_sandbox_that_cannot_start_refuses_to_simulate(workspace: Path, cache_dir: Path) -> None:
    session, stop = await start_session(workspace, cache_dir, options(True, sandbox="require"),
                                        extra_env={"BENCHWRIGHT_BWRAP": str(workspace / "no-such-bwrap")})
    try:
        status = await session.status_where(lambda s: s["restriction"] != "")
        assert status["restriction"] == p.SANDBOX_REFUSED_RESTRICTION
        assert "required" in status["restrictionDetail"]
        uri = session.open(rtl(session))
        # Lint is a tool run on the workspace's files too: refused (and said once), never unsandboxed.
        with pytest.raises(TimeoutError):
            await session.diagnostics(uri, version=1, timeout=QUIET_S)
        not_linting = [m for m in session.client.log_messages if "not linting" in m.message]
        assert len(not_linting) == 1, [m.message for m in session.client.log_messages]
        assert "required" in not_linting[0].message
        for _ in range(2):
            session.save(uri)
            await asyncio.sleep(QUIET_S / 2)
        assert session.recorder.coverage == []
        assert simulations_started(session) == []
        refused = [m for m in session.client.messages if "not simulating traffic_light" in m.message]
        assert len(refused) == 1, session.client.messages  # shown once, like a missing Verilator
        assert refused[0].type == types.MessageType.Error
        assert "required" in refused[0].message
        result = await session.command(p.IMPROVE_COVERAGE, uri)
        assert result["applied"] is False
        assert "required" in result["message"]
        doctor = await session.command(p.DOCTOR)
        assert "sandbox      REFUSING TO SIMULATE: " in doctor["text"]
    finally:
        await stop()
