"""The one chokepoint through which every child process runs: logged, sandboxed, killable.

Each command gets a new session (so a timeout kills the whole group: make, g++, the
simulation binary and anything it forked), resource limits, stdout+stderr captured to a
log file (never inherited: stdout may be a JSON-RPC stream), and a frozen result. Limits
never exceed what the caller's own hard limits allow (`ulimit -v`): a lower inherited limit
is used as it is and said in the result, instead of failing in the child before exec.
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
from sim.sandbox.outputs import UnsafeOutputError, open_log, read_output_tail, size_text
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
    limit_note: str = ""
    """Set when an inherited hard limit was lower than `Limits` asked for (see `planned_limits`)."""

    @property
    def ok(self) -> bool:
        """True when the command exited 0 within its limit."""
        return self.returncode == 0 and not self.timed_out


_LIMIT_NAMES = {resource.RLIMIT_AS: ("address-space", "ulimit -v"), resource.RLIMIT_FSIZE: ("file-size", "ulimit -f"),
                resource.RLIMIT_CPU: ("CPU-time", "ulimit -t"), resource.RLIMIT_NPROC: ("process-count", "ulimit -u")}
"""Words for each limit in a note: what it limits and the shell command that raises it."""


def clamp(requested: int, inherited_hard: int) -> int:
    """The value to set for a limit: `requested`, but never above the inherited hard limit (pure)."""
    if inherited_hard == resource.RLIM_INFINITY or inherited_hard < 0:
        return requested
    return min(requested, inherited_hard)


def planned_limits(limits: Limits) -> tuple[list[tuple[int, int, int]], str]:
    """(resource, soft, hard) triples a child can set, and a note naming every limit that was lowered.

    Raising a hard limit needs privileges the caller may not have (`ulimit -v` in the shell,
    prlimit, a container); setting one above it would fail in the child, before exec, as
    `SubprocessError: Exception occurred in preexec_fn`. So each limit is capped at the
    caller's own hard limit, and the note says so in words a user can act on.
    """
    wanted: list[tuple[int, int, int]] = []
    if limits.memory_bytes is not None:
        wanted.append((resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes))
    if limits.file_bytes is not None:
        wanted.append((resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes))
    if limits.cpu_s is not None:
        wanted.append((resource.RLIMIT_CPU, limits.cpu_s, limits.cpu_s + 1))
    if limits.max_procs is not None:
        wanted.append((resource.RLIMIT_NPROC, limits.max_procs, limits.max_procs))
    plan: list[tuple[int, int, int]] = [(resource.RLIMIT_CORE, 0, 0)]
    notes: list[str] = []
    for res, soft, hard in wanted:
        inherited = resource.getrlimit(res)[1]
        new_hard = clamp(hard, inherited)
        plan.append((res, min(soft, new_hard), new_hard))
        if new_hard < soft:
            what, how = _LIMIT_NAMES[res]
            have = size_text(new_hard) if res in (resource.RLIMIT_AS, resource.RLIMIT_FSIZE) else str(new_hard)
            want = size_text(soft) if res in (resource.RLIMIT_AS, resource.RLIMIT_FSIZE) else str(soft)
            notes.append(f"the inherited {what} limit ({have}, `{how}`) is below the {want} this step asks for")
    note = "; ".join(notes)
    if note:
        note += " (raise it in the shell or service that starts benchwright)"
    return plan, note


def limit_setter(limits: Limits) -> Callable[[], None]:
    """Return a preexec_fn that applies `limits` in the child before exec (never above inherited hard limits).

    The plan is computed here, in the parent: the child only calls setrlimit with values it
    is allowed to set, so it cannot fail between fork and exec.
    """
    plan, _note = planned_limits(limits)

    def apply() -> None:
        for res, soft, hard in plan:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(res, (soft, hard))

    return apply


def read_tail(path: Path, lines: int = TAIL_LINES, max_bytes: int = 64 << 10) -> str:
    """Last `lines` lines of a (possibly huge) log, decoded leniently; "" when there is no regular file to read.

    A log sits in a folder the command could write, so it is read through sim.sandbox.outputs
    (never through a symlink, never a FIFO, only its last `max_bytes`).
    """
    data = read_output_tail(path, max_bytes)
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
    _plan, limit_note = planned_limits(limits)
    if limit_note:
        logger.warning("%s", limit_note)
    argv = list(cmd) if sandbox is None else sandbox.wrap(cmd, cwd, env)
    start = time.monotonic()
    timed_out = False
    try:
        log = open_log(log_path)
    except UnsafeOutputError as exc:
        return RunResult(tuple(cmd), 127, 0.0, log_path, str(exc))
    with log:
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
            why = f"failed to start: {exc}" + (f" ({limit_note})" if limit_note else "")
            log.write(f"{why}\n".encode())
            return RunResult(tuple(cmd), 127, time.monotonic() - start, log_path, why, limit_note=limit_note)
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
    result = RunResult(tuple(cmd), proc.returncode, duration, log_path, read_tail(log_path), timed_out, limit_note)
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
