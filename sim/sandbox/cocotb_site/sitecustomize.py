"""Runtime sandbox for *generated* cocotb tests: an audit hook installed before cocotb starts.

`sim.run.cocotb` puts this folder first on the simulator's PYTHONPATH for untrusted tests
and names the run directory in `BENCHWRIGHT_SANDBOX_ROOT`. The static guard
(`sim.sandbox.guard.check_cocotb`) rejects most escapes before anything runs; this hook (PEP 578,
it cannot be removed once added) refuses the rest at run time: starting processes,
forking, sockets, loading native code, signalling other processes, and creating,
changing or removing files outside the run directory.
"""

from __future__ import annotations

import os
import sys

_ROOT = os.environ.get("BENCHWRIGHT_SANDBOX_ROOT", "")

_DENIED = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "subprocess.Popen",
    "pty.spawn", "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo", "socket.sendto",
    "ctypes.dlopen", "ctypes.dlsym", "ctypes.call_function", "os.startfile", "webbrowser.open",
})
"""Audit events refused outright."""

_PATH_EVENTS = {
    "os.remove": 0, "os.rename": 0, "os.rmdir": 0, "os.mkdir": 0, "os.chmod": 0, "os.chown": 0,
    "os.symlink": 1, "os.link": 1, "os.truncate": 0, "os.utime": 0, "shutil.rmtree": 0,
    "shutil.copyfile": 1, "shutil.move": 1, "os.chflags": 0, "os.setxattr": 0, "os.removexattr": 0,
}
"""Audit events that change a file system path (argument index of the path to check)."""

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _inside(path: object) -> bool:
    """True for a path in the run directory (or a file descriptor / the null device)."""
    if isinstance(path, int) or path is None:
        return True
    try:
        real = os.path.realpath(os.fsdecode(path))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return real == os.devnull or real == _ROOT or real.startswith(_ROOT.rstrip("/") + "/")


def _hook(event: str, args: tuple[object, ...]) -> None:
    if event in _DENIED or (event in ("os.kill", "os.killpg") and args and args[0] not in (os.getpid(), 0)):
        raise PermissionError(f"benchwright sandbox: {event} is not allowed in a generated test")
    if event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
            (isinstance(flags, int) and flags & _WRITE_FLAGS)
        if writes and not _inside(path):
            raise PermissionError(f"benchwright sandbox: writing {path!r} outside the run directory")
    elif event in _PATH_EVENTS and len(args) > _PATH_EVENTS[event] and \
            not all(_inside(a) for a in args[: _PATH_EVENTS[event] + 1] if isinstance(a, str | bytes | os.PathLike)):
        raise PermissionError(f"benchwright sandbox: {event} outside the run directory")


if _ROOT:
    _ROOT = os.path.realpath(_ROOT)
    sys.dont_write_bytecode = True
    sys.addaudithook(_hook)
