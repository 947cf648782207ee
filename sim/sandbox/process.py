"""The one chokepoint through which every child process runs: logged, sandboxed, killable.

Each command gets a new session (so a timeout kills the whole group: make, g++, the
simulation binary and anything it forked), resource limits, stdout+stderr captured to a
log file (never inherited: stdout may be a JSON-RPC stream), and a frozen result.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sim.sandbox.bwrap import Sandbox
from sim.types import Command

logger = logging.getLogger(__name__)

TAIL_LINES = 50
"""How many trailing log lines a RunResult carries for error messages."""


class Cancel(Protocol):
    """Anything with `is_set()` (threading.Event): set it to kill the running command."""

    def is_set(self) -> bool:
        """True once cancellation was requested."""
        ...


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to a child process (and inherited by its children)."""

    timeout_s: float = 120.0
    """Wall-clock limit; on expiry the whole process group is killed."""
    memory_bytes: int | None = 4 << 30
    """Address-space limit (RLIMIT_AS) per process; None for no limit."""
    file_bytes: int | None = 256 << 20
    """Largest file a process may write (RLIMIT_FSIZE): stops `$display` floods."""
    cpu_s: int | None = None
    """CPU-seconds limit per process (RLIMIT_CPU); None for no limit."""
    max_procs: int | None = None
    """RLIMIT_NPROC; stops fork bombs in cocotb tests. None leaves it unchanged."""


@dataclass(frozen=True)
class RunResult:
    """What one finished (or killed) command did."""

    argv: tuple[str, ...]
    """The command as run."""
    returncode: int
    """Exit status; negative for a signal, as subprocess reports it."""
    duration_s: float
    """Wall time."""
    log_path: Path
    """File holding the combined stdout and stderr."""
    tail: str
    """The last TAIL_LINES lines of the log."""
    timed_out: bool = False
    """True when the wall-clock limit killed the group."""

    @property
    def ok(self) -> bool:
        """True when the command exited 0 within its limit."""
        return self.returncode == 0 and not self.timed_out


def limit_setter(limits: Limits) -> Callable[[], None]:
    """Return a preexec_fn that applies `limits` in the child before exec."""

    def apply() -> None:
        if limits.memory_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        if limits.file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        if limits.cpu_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        if limits.max_procs is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_procs, limits.max_procs))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def read_tail(path: Path, lines: int = TAIL_LINES, max_bytes: int = 64 << 10) -> str:
    """Last `lines` lines of a (possibly huge) text file, decoded leniently."""
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])


def kill_group(pgid: int) -> None:
    """SIGKILL a process group, ignoring one that is already gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def run_command(
    cmd: Command,
    *,
    cwd: Path,
    log_path: Path,
    env: Mapping[str, str] | None = None,
    limits: Limits = Limits(),
    cancel: Cancel | None = None,
    sandbox: Sandbox | None = None,
) -> RunResult:
    """Run one command in its own session with limits; never raises on a failing command.

    Args:
        cmd: argv.
        cwd: working directory.
        log_path: where combined stdout+stderr go (appended).
        env: full environment for the child (default: the current one).
        limits: resource limits.
        cancel: optional object with `is_set()`; when it becomes set the group is killed.
        sandbox: run inside these OS namespaces (sim.sandbox.bwrap); None runs it directly (trusted tools).

    Raises:
        SandboxUnavailableError: the sandbox is required but namespaces do not work here.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    logger.info("run (cwd=%s): %s", cwd, shlex.join(cmd))
    argv = list(cmd) if sandbox is None else sandbox.wrap(cmd, cwd, env)
    start = time.monotonic()
    timed_out = False
    with log_path.open("ab") as log:
        log.write(f"$ {shlex.join(cmd)}\n".encode())
        log.flush()
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=dict(env) if env is not None else None,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=limit_setter(limits),
            )
        except OSError as exc:
            log.write(f"failed to start: {exc}\n".encode())
            return RunResult(tuple(cmd), 127, time.monotonic() - start, log_path, str(exc))
        deadline = start + limits.timeout_s
        while True:
            try:
                proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                cancelled = cancel is not None and cancel.is_set()
                if time.monotonic() >= deadline or cancelled:
                    timed_out = not cancelled
                    kill_group(proc.pid)
                    proc.wait()
                    log.write(
                        (
                            f"\n[benchwright] killed after {limits.timeout_s:.1f} s wall-clock limit\n"
                            if timed_out
                            else "\n[benchwright] cancelled\n"
                        ).encode()
                    )
                    break
        # Children that outlived the main process (daemonised forks) go too.
        kill_group(proc.pid)
    duration = time.monotonic() - start
    result = RunResult(tuple(cmd), proc.returncode, duration, log_path, read_tail(log_path), timed_out)
    logger.debug("exit %s after %.2f s", proc.returncode, duration)
    return result


def run_commands(
    cmds: Sequence[Command],
    *,
    cwd: Path,
    log_path: Path,
    env: Mapping[str, str] | None = None,
    limits: Limits = Limits(),
    cancel: Cancel | None = None,
    sandbox: Sandbox | None = None,
) -> list[RunResult]:
    """Run commands in order, stopping at the first failure; returns the results run."""
    results: list[RunResult] = []
    for cmd in cmds:
        result = run_command(cmd, cwd=cwd, log_path=log_path, env=env, limits=limits, cancel=cancel,
                             sandbox=sandbox)
        results.append(result)
        if not result.ok:
            break
    return results
