"""Workspace trust and the OS sandbox as the editor sees them: what the server refuses, and why.

An untrusted workspace (initializationOptions `workspaceTrusted: false`) is linted only. Where
simulations would run without the OS sandbox (sim.sandbox.bwrap's fallback), or are refused because
the sandbox is required but unavailable, `benchwright/status` carries a persistent restriction.
"""

from __future__ import annotations

import asyncio

from server import protocol as p
from server.server import BenchwrightServer
from server.settings import Settings
from sim.sandbox.bwrap import (
    SandboxMode,
    SandboxUnavailableError,
    describe,
    parse_mode,
    status_note,
)


def sandbox_mode(settings: Settings) -> SandboxMode | None:
    """`benchwright.sim.sandbox` as a mode; `auto` (the default) is None, so BENCHWRIGHT_SANDBOX decides."""
    return None if settings.sim.sandbox == "auto" else parse_mode(settings.sim.sandbox)


def sandbox_state(mode: SandboxMode | None) -> tuple[str | None, str | None]:
    """(fallback note, refusal) under `mode`: both None when commands run in the OS sandbox.

    Blocking the first time (sim.sandbox.bwrap probes bubblewrap once per process): call it off the loop.
    """
    try:
        return status_note(mode), None
    except (SandboxUnavailableError, ValueError) as exc:  # required but unavailable; bad BENCHWRIGHT_SANDBOX
        return None, str(exc)


def sandbox_line(mode: SandboxMode | None) -> str:
    """The doctor line for the sandbox under `mode` (blocking, like `sandbox_state`)."""
    return describe(mode)[1]


def restriction_for(trusted: bool, note: str | None, refusal: str | None) -> tuple[str, str]:
    """(status-bar text, tooltip detail) of `benchwright/status`: untrusted > sandbox refused > no sandbox."""
    if not trusted:
        return p.UNTRUSTED_RESTRICTION, p.UNTRUSTED_DETAIL
    if refusal is not None:
        return p.SANDBOX_REFUSED_RESTRICTION, refusal
    if note is not None:
        return p.NO_SANDBOX_RESTRICTION, note
    return "", ""


async def sandbox_state_for(ls: BenchwrightServer, settings: Settings) -> tuple[str | None, str | None]:
    """`sandbox_state` for the settings' mode, off the event loop."""
    return await asyncio.get_running_loop().run_in_executor(ls.jobs.executor, sandbox_state, sandbox_mode(settings))


async def refresh_restriction(ls: BenchwrightServer) -> None:
    """Send the current restriction (untrusted workspace, sandbox refused or missing) in `benchwright/status`."""
    settings = await ls.settings_for(ls.workspace.root_uri or "")
    if not ls.workspace_trusted:
        ls.set_restriction(*restriction_for(False, None, None))
        return
    ls.set_restriction(*restriction_for(True, *await sandbox_state_for(ls, settings)))
