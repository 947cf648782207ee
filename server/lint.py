"""Lint a document (possibly unsaved) with `verilator --lint-only`, without blocking.

Unsaved buffers are written to a private shadow folder (same file names) and linted in
place of the files on disk; messages about a shadow file are mapped back to the real
path. The child runs through asyncio in its own session with output captured (at most
LINT_OUTPUT_CAP bytes kept), and is killed as a group when the lint is superseded (task
cancelled) or runs too long. Like every tool run on a repository's files it runs in the OS
sandbox (sim.sandbox.bwrap): the design and the shadow copies read-only, no network, and
only the lint's own scratch folder writable.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import re
import signal
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from sim.run.commands import BuildSpec, verilator_lint
from sim.run.evaluate import design_paths
from sim.run.messages import parse_messages
from sim.sandbox.bwrap import Sandbox, SandboxMode
from sim.suite import Design
from sim.tools import Verilator, tool_env
from sim.types import Message

logger = logging.getLogger(__name__)

LINT_TIMEOUT_S = 30.0
"""A lint that takes longer than this is killed (and reported as one diagnostic)."""

LINT_OUTPUT_CAP = 4 << 20
"""Most lint output kept (the rest is read and dropped, so the child never blocks on a full pipe)."""

LINT_WARNINGS = ("-Wwarn-lint",)
"""Lint-category warnings are the point of linting (builds keep them off)."""

_CARET = re.compile(r"^\s*(?:\d+\s*)?\|\s?(?P<pad>\s*)(?P<mark>\^~*)")


@dataclass(frozen=True)
class LintMessage:
    """A Verilator message with the width of the span its caret line marks."""

    message: Message
    """The parsed message (file mapped back from the shadow copy)."""
    width: int
    """Characters the `^~~~` marker covers (0 when Verilator printed none)."""


@dataclass(frozen=True)
class LintRun:
    """What one lint did."""

    messages: tuple[LintMessage, ...]
    """Messages in the order Verilator printed them."""
    argv: tuple[str, ...]
    """The command line (for doctor)."""
    seconds: float
    """Wall time of the child."""
    returncode: int
    """Exit status (-9 when killed)."""


def parse_lint_output(log: str, file_map: Mapping[str, Path] | None = None) -> list[LintMessage]:
    """Split a lint log into messages, each with its caret width; shadow paths mapped back."""
    blocks: list[list[str]] = []
    for line in log.splitlines():
        if line.startswith(("%Error", "%Warning")):
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    out: list[LintMessage] = []
    for block in blocks:
        parsed = parse_messages(block[0])
        if not parsed:
            continue
        message = parsed[0]
        if file_map and message.file in file_map:
            message = replace(message, file=str(file_map[message.file]))
        width = 0
        for line in block[1:]:
            caret = _CARET.match(line)
            if caret:
                width = len(caret.group("mark"))
                break
        out.append(LintMessage(message, width))
    return out


def lint_command(tool: Verilator, design: Design, sources: tuple[Path, ...], real_dirs: tuple[Path, ...],
                 top: str | None, extra_args: tuple[str, ...]) -> list[str]:
    """The `--lint-only` argv for `sources` (shadow copies already substituted).

    `real_dirs` are the folders of the real files: loose files find their sibling
    modules there (`-y`) and their includes (`+incdir+`), as they would on disk.
    """
    spec = BuildSpec(sources=sources, top=top, include_dirs=(*design.include_dirs, *real_dirs),
                     defines=design.defines, extra_args=(*LINT_WARNINGS, *extra_args))
    argv = verilator_lint(tool.verilator, spec)
    return [argv[0], *(arg for d in real_dirs for arg in ("-y", str(d))), *argv[1:]]


def shadow_copies(shadow_root: Path, buffers: Mapping[Path, str]) -> dict[Path, Path]:
    """Write unsaved buffers under `shadow_root` (one folder per real folder); real -> shadow."""
    mapping: dict[Path, Path] = {}
    for real, text in buffers.items():
        folder = shadow_root / hashlib.sha256(str(real.parent).encode()).hexdigest()[:16]
        folder.mkdir(parents=True, exist_ok=True)
        shadow = folder / real.name
        # surrogateescape: a buffer holding undecodable bytes (lone surrogates) still lints.
        shadow.write_text(text, encoding="utf-8", errors="surrogateescape")
        mapping[real] = shadow
    return mapping


def lint_sandbox(tool: Verilator, design: Design, sources: tuple[Path, ...], real_dirs: tuple[Path, ...],
                 work: Path, mode: SandboxMode | None) -> Sandbox:
    """What a lint may see: the design, the linted files and their folders, Verilator; `work` (its cwd) writable."""
    return Sandbox(read_only=(*design_paths(design), *sources, *real_dirs, *design.include_dirs,
                              tool.bin_dir.parent),
                   writable=(work,), mode=mode)


async def _read_capped(stream: asyncio.StreamReader, cap: int) -> bytes:
    """Everything up to `cap` bytes from `stream`, draining (and dropping) the rest until EOF."""
    kept: list[bytes] = []
    size = 0
    while chunk := await stream.read(1 << 16):
        if size < cap:
            kept.append(chunk[: cap - size])
        size += len(chunk)
    return b"".join(kept)


async def run_lint(argv: list[str], tool: Verilator, cwd: Path, file_map: Mapping[str, Path],
                   sandbox: Sandbox | None = None) -> LintRun:
    """Run a lint command (inside `sandbox` when given); cancelling the awaiting task kills the child's group.

    Raises:
        SandboxUnavailableError: the sandbox is required but cannot start here.
    """
    start = time.monotonic()
    env = tool_env(tool)
    wrapped = argv if sandbox is None else sandbox.wrap(argv, cwd, env)
    proc = await asyncio.create_subprocess_exec(
        *wrapped, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    assert proc.stdout is not None

    async def finish() -> bytes:
        assert proc.stdout is not None
        data = await _read_capped(proc.stdout, LINT_OUTPUT_CAP)
        await proc.wait()
        return data

    try:
        out = await asyncio.wait_for(finish(), LINT_TIMEOUT_S)
    except (asyncio.CancelledError, TimeoutError):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            await asyncio.shield(proc.wait())
        raise
    text = out.decode("utf-8", "replace")
    seconds = time.monotonic() - start
    logger.debug("lint exit %s in %.3f s", proc.returncode, seconds)
    return LintRun(tuple(parse_lint_output(text, file_map)), tuple(argv), seconds, proc.returncode or 0)
