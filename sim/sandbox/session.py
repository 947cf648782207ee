"""One long-lived sandbox that runs many short simulations (the engine's hundreds of trials).

Starting bubblewrap costs several milliseconds of mounts and namespaces, more than a short
simulation run itself. A `SandboxSession` pays that once per built binary: a small bash
loop inside the sandbox reads one run directory per line from its stdin, runs the command
written in that directory, and answers with the exit status. The sandbox and its view are
the same as for a single run (sim.sandbox.bwrap); only the start-up is shared. The loop exits
by itself when idle, and with its owner (`--die-with-parent`).

Each run still gets a small sandbox of its own inside the session (a nested `bwrap`, about
3 ms): a new PID namespace, so every process the run started dies with it (`setsid`, a
double fork and `nohup` included: when the run's first process exits the kernel kills the
rest), and a view in which the session's folder is an empty tmpfs with only this run's
directory bound back, so no run can see or change another run's files; /proc is an empty
tmpfs there, as in the lean view of a single run (a compiled binary needs none).

The wall-clock limit is kept by the host, not by a `timeout` process per run: a run past
its limit ends the whole session (the next run starts a new one). Each process exec'd per
run costs about a millisecond, as much as a short simulation's own start-up.
"""

from __future__ import annotations

import contextlib
import os
import select
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from sim.sandbox.bwrap import Sandbox, SandboxUnavailableError, probe
from sim.sandbox.outputs import append_output
from sim.sandbox.process import (
    Cancel,
    Limits,
    RunResult,
    kill_group,
    limit_setter,
    read_tail,
)

ARGV_FILE = ".bw-argv"
"""Per-run file: one argv element per line."""

IDLE_EXIT_S = 120
"""The loop exits after this long without a request (a forgotten session ends itself)."""

LOOP = r"""
while IFS= read -r -t "$BW_IDLE" dir; do
  status=126
  if cd -- "$dir"; then
    set --
    while IFS= read -r arg; do set -- "$@" "$arg"; done < .bw-argv
    "$BW_BWRAP" --unshare-pid --new-session --die-with-parent --dev-bind / / --tmpfs /proc \
      --tmpfs "$BW_ROOT" --bind "$dir" "$dir" --chdir "$dir" -- "$@" >> run.log 2>&1 < /dev/null
    status=$?
    cd /
  fi
  echo "$status"
done
"""
"""The request loop run inside the sandbox (bash: `read -t`); each run in a nested bwrap (see the module doc)."""


def argv_file_text(argv: Sequence[str]) -> str:
    """The request file for one run; argv elements must be single lines."""
    if any("\n" in a or "\r" in a for a in argv):
        raise ValueError("a sandboxed session cannot pass an argument containing a newline")
    return "\n".join(argv) + "\n"


def parse_status(line: str) -> int | None:
    """The exit status the loop answered, or None for anything else."""
    text = line.strip()
    return int(text) if text.isdigit() else None


class SandboxSession:
    """A persistent sandbox for short runs whose directories live under `root`.

    Thread-safe: concurrent callers take turns. A run that times out on the host side, or is
    cancelled, ends the session (its process group is killed); the next run starts a new one.
    """

    def __init__(self, sandbox: Sandbox, *, env: Mapping[str, str] | None, limits: Limits,
                 read_only: Sequence[Path] = ()) -> None:
        found = probe()
        if not found.available or found.bwrap is None:
            raise SandboxUnavailableError(f"a sandbox session needs working bubblewrap: {found.reason}")
        bwrap = Path(found.bwrap).resolve()
        self.root = Path(tempfile.mkdtemp(prefix="bw-session-")).resolve()
        """Run directories are made here (the sandbox's writable place)."""
        # Not lean: the nested bwrap of each run needs /proc, and this view is set up once.
        self._sandbox = replace(sandbox, read_only=(*sandbox.read_only, *read_only, bwrap),
                                writable=(*sandbox.writable, self.root), lean=False)
        self._env = {**(env if env is not None else os.environ), "BW_IDLE": str(IDLE_EXIT_S),
                     "BW_BWRAP": str(bwrap), "BW_ROOT": str(self.root)}
        self._limits = limits
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.started = 0
        """How many times the sandbox was started (1 for a healthy session)."""

    def new_run_dir(self) -> Path:
        """A fresh run directory inside the session's writable root."""
        return Path(tempfile.mkdtemp(prefix="bw-run-", dir=self.root))

    def _ensure(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        argv = self._sandbox.wrap(["bash", "-c", LOOP], self.root, self._env)
        self._proc = subprocess.Popen(argv, cwd=self.root, env=self._env, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
                                      preexec_fn=limit_setter(replace(self._limits, cpu_s=None)))
        self.started += 1
        return self._proc

    def _send(self, cwd: Path) -> subprocess.Popen[bytes] | None:
        """Hand `cwd` to the loop; a loop that just exited (idle) is restarted once."""
        for _ in range(2):
            proc = self._ensure()
            assert proc.stdin is not None
            try:
                proc.stdin.write(f"{cwd}\n".encode())
                proc.stdin.flush()
            except OSError:
                self._stop()
            else:
                return proc
        return None

    def run(self, argv: Sequence[str], *, cwd: Path, log_path: Path, timeout_s: float,
            cancel: Cancel | None = None) -> RunResult:
        """Run `argv` in `cwd` (a directory from `new_run_dir`) inside the session; never raises on failure."""
        if cwd.parent != self.root or log_path != cwd / "run.log":
            raise ValueError("session runs happen in their own run directory, logging to run.log")
        cwd.joinpath(ARGV_FILE).write_text(argv_file_text(argv))
        with log_path.open("ab") as log:
            log.write(f"$ {shlex.join(argv)}\n".encode())
        with self._lock:
            start = time.monotonic()
            proc = self._send(cwd)
            if proc is None:
                return RunResult(tuple(argv), 127, time.monotonic() - start, log_path,
                                 "the sandbox session could not be started")
            assert proc.stdout is not None
            # The host keeps the limit: past it the session (and the run in it) is killed.
            deadline = start + max(timeout_s, 0.1)
            line = b""
            fd = proc.stdout.fileno()
            while not line.endswith(b"\n"):
                now = time.monotonic()
                if (cancel is not None and cancel.is_set()) or now >= deadline:
                    self._stop()
                    cancelled = cancel is not None and cancel.is_set()
                    # The run could have replaced run.log (a FIFO, a symlink): append only to a regular file.
                    append_output(log_path, b"\n[benchwright] cancelled\n" if cancelled else
                                  f"\n[benchwright] killed after {timeout_s:.1f} s wall-clock limit\n".encode())
                    return RunResult(tuple(argv), -9, time.monotonic() - start, log_path, read_tail(log_path),
                                     timed_out=not cancelled)
                ready, _, _ = select.select([fd], [], [], min(0.05, deadline - now))
                if ready:
                    chunk = os.read(fd, 64)
                    if not chunk:
                        self._stop()
                        return RunResult(tuple(argv), 127, time.monotonic() - start, log_path,
                                         "the sandbox session ended unexpectedly")
                    line += chunk
            duration = time.monotonic() - start
        status = parse_status(line.decode("ascii", "replace"))
        returncode = 127 if status is None else status
        return RunResult(tuple(argv), returncode, duration, log_path, read_tail(log_path))

    def _stop(self) -> None:
        if self._proc is not None:
            kill_group(self._proc.pid)
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
            for stream in (self._proc.stdin, self._proc.stdout):
                with contextlib.suppress(OSError):
                    if stream is not None:
                        stream.close()
        self._proc = None

    def close(self) -> None:
        """End the sandbox (and every process in it) and remove the session's directories."""
        with self._lock:
            self._stop()
        shutil.rmtree(self.root, ignore_errors=True)
