"""OS-level containment for every build and simulation: bubblewrap namespaces, or a said fallback.

Each sandboxed command runs in new user, mount, PID, IPC, UTS and network namespaces
(`bwrap --unshare-all`) with an allow-listed, read-only view of the system: /usr, a few
files of /etc, the interpreter, the venv, Verilator and the design's own files. The run
(or build) directory is the only writable place; /tmp and $HOME are empty tmpfs mounts;
there is no network; `--die-with-parent` and the PID namespace take every process with
the sandbox when its owner dies. The static guard stays in front as the fast, clear error
for generated code; this is the wall.

Where namespaces are unavailable (some containers, macOS) the mode decides: `auto` falls
back to the guard + rlimits + process groups and says so; `require` refuses to run.
"""

from __future__ import annotations

import enum
import functools
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sim.errors import SimError

logger = logging.getLogger(__name__)

MODE_ENV = "BENCHWRIGHT_SANDBOX"
"""Environment variable choosing the mode: `auto` (default), `require` or `off`."""

SETTING = "benchwright.sim.sandbox"
"""Editor setting choosing the mode (same values)."""

BWRAP_ENV = "BENCHWRIGHT_BWRAP"
"""Environment variable naming the bwrap executable (default: `bwrap` on PATH)."""

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Top-level system directories shown read-only (symlinks on merged-/usr systems are recreated)."""

ETC_ALLOWED = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group", "nsswitch.conf",
    "localtime", "timezone", "perl", "ccache.conf", "gcc", "environment",
)
"""The only entries of /etc a build or run sees: the loader, compiler alternatives, perl, names."""

ETC_LEAN = ("ld.so.cache", "passwd", "group")
"""The /etc entries a compiled simulation binary needs (its loader cache and user names)."""


class SandboxMode(enum.Enum):
    """How strictly commands are contained."""

    AUTO = "auto"
    """Use namespaces when they work; otherwise fall back to guard + rlimits and say so."""
    REQUIRE = "require"
    """Refuse to run anything when namespaces do not work."""
    OFF = "off"
    """No OS sandbox (benchmark baselines, debugging); the guard and rlimits still apply."""


class SandboxUnavailableError(SimError):
    """The sandbox is required but cannot be set up here; the message says why and what to do."""


class SandboxModeError(SimError, ValueError):
    """A sandbox mode that is not auto, require or off (from the environment or a setting)."""


def parse_mode(value: str | None) -> SandboxMode:
    """`auto`/`require`/`off` (case-insensitive; empty means auto) or a clear SandboxModeError."""
    text = (value or "auto").strip().lower()
    try:
        return SandboxMode(text)
    except ValueError:
        raise SandboxModeError(f"sandbox mode {value!r} is not one of auto, require, off "
                         f"(set by {MODE_ENV} or {SETTING})") from None


def mode_from_env(env: Mapping[str, str] | None = None) -> SandboxMode:
    """The mode the environment asks for (`BENCHWRIGHT_SANDBOX`)."""
    return parse_mode((os.environ if env is None else env).get(MODE_ENV))


@dataclass(frozen=True)
class Availability:
    """Whether namespaces work on this machine, found once per process."""

    available: bool
    """True when a trial `bwrap --unshare-all` ran successfully."""
    bwrap: str | None
    """The bwrap executable used (None when none was found)."""
    reason: str
    """Why it is unavailable (empty when available), in words a user can act on."""


@functools.lru_cache(maxsize=4)
def probe(bwrap: str | None = None) -> Availability:
    """Try a minimal sandbox once; the answer is cached for the process."""
    exe = bwrap or os.environ.get(BWRAP_ENV) or shutil.which("bwrap")
    if not exe:
        return Availability(False, None, "bubblewrap (`bwrap`) is not installed: `apt-get install bubblewrap`")
    argv = [exe, "--unshare-all", "--die-with-parent", *_system_view(), "--dev", "/dev", "true"]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Availability(False, exe, f"cannot run {exe}: {exc}")
    if out.returncode != 0:
        why = (out.stderr or out.stdout).strip().splitlines()
        return Availability(False, exe, f"{exe} cannot create namespaces here ({why[-1] if why else out.returncode}); "
                            "containers often forbid them (allow user namespaces, or run with --privileged)")
    return Availability(True, exe, "")


def fallback_note(reason: str) -> str:
    """The one line every result carries when commands run without the OS sandbox."""
    return (f"no OS sandbox: {reason}; testbenches run with the static guard, resource limits and "
            f"process-group kill only (set {MODE_ENV}=require to refuse instead)")


@dataclass(frozen=True)
class Sandbox:
    """What one command may see: read-only paths beyond the system view, and writable ones."""

    read_only: tuple[Path, ...] = ()
    """Files or folders shown read-only at their own path (design, tools, interpreter)."""
    writable: tuple[Path, ...] = ()
    """Folders shown read-write (the run or build directory, the compiler cache)."""
    mode: SandboxMode | None = None
    """Containment mode; None reads `BENCHWRIGHT_SANDBOX` at run time."""
    lean: bool = False
    """Only what a compiled simulation binary needs: three /etc entries and no /proc. Each bind
    costs a mount, and the engine runs its harness hundreds of times per design."""

    def resolved_mode(self) -> SandboxMode:
        """The mode in force for this command."""
        return self.mode if self.mode is not None else mode_from_env()

    def wrap(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None) -> list[str]:
        """The argv to execute: inside bwrap, or unchanged in the fallback; raises when required but absent."""
        mode = self.resolved_mode()
        if mode is SandboxMode.OFF:
            return list(argv)
        found = probe()
        if not found.available:
            if mode is SandboxMode.REQUIRE:
                raise SandboxUnavailableError(f"the OS sandbox is required ({MODE_ENV}=require) but {found.reason}")
            _warn_once(found.reason)
            return list(argv)
        assert found.bwrap is not None
        home = (env or os.environ).get("HOME")
        return bwrap_argv(found.bwrap, argv, cwd=cwd, read_only=self.read_only, writable=self.writable,
                          home=Path(home) if home else None, lean=self.lean)


@functools.lru_cache(maxsize=1)
def _warn_once(reason: str) -> None:
    logger.warning("%s", fallback_note(reason))


def status_note(mode: SandboxMode | None = None) -> str | None:
    """The fallback note when commands would run unsandboxed under `mode`, else None.

    Raises SandboxUnavailableError when the mode is `require` and namespaces do not work.
    """
    mode = mode if mode is not None else mode_from_env()
    if mode is SandboxMode.OFF:
        return fallback_note(f"turned off (sandbox mode `off`, from {MODE_ENV} or {SETTING})")
    found = probe()
    if found.available:
        return None
    if mode is SandboxMode.REQUIRE:
        raise SandboxUnavailableError(f"the OS sandbox is required ({MODE_ENV}=require) but {found.reason}")
    return fallback_note(found.reason)


def describe(mode: SandboxMode | None = None) -> tuple[bool, str]:
    """(usable, one line for `doctor`): the sandbox in force under `mode`, the fallback and why, or the refusal.

    `mode` None reads BENCHWRIGHT_SANDBOX. Blocking the first time (the probe runs bwrap once).
    """
    try:
        resolved = mode if mode is not None else mode_from_env()
        note = status_note(resolved)
    except (SandboxModeError, SandboxUnavailableError) as exc:
        return False, f"REFUSING TO SIMULATE: {exc}"
    if note is None:
        return True, (f"bubblewrap namespaces ({probe().bwrap}; mode {resolved.value}): "
                      "user/mount/pid/net, run dir only writable")
    return True, f"OFF ({resolved.value}): {note}"


def _system_view(etc: Sequence[str] = ETC_ALLOWED) -> list[str]:
    """The bwrap arguments for the read-only system: /usr and friends, allow-listed /etc entries."""
    args: list[str] = []
    for top in SYSTEM_DIRS:
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    for name in etc:
        entry = Path("/etc") / name
        if entry.exists():
            args += ["--ro-bind", str(entry), str(entry)]
    return args


def _depth_order(paths: Iterable[Path]) -> list[Path]:
    """Absolute, existing, de-duplicated paths, parents before children (bind order matters)."""
    seen: dict[str, Path] = {}
    for p in paths:
        absolute = Path(p).absolute()
        if absolute.exists() and str(absolute) != "/":
            seen.setdefault(str(absolute), absolute)
    return sorted(seen.values(), key=lambda q: (len(q.parts), str(q)))


def bwrap_argv(bwrap: str, argv: Sequence[str], *, cwd: Path, read_only: Sequence[Path] = (),
               writable: Sequence[Path] = (), home: Path | None = None, lean: bool = False) -> list[str]:
    """The full bwrap command line for `argv` (pure: reads only which system paths exist).

    Binds are ordered parent-first so a writable run directory inside a read-only design
    folder (or inside the tmpfs /tmp) stays writable.
    """
    args = [bwrap, "--unshare-all", "--die-with-parent", *_system_view(ETC_LEAN if lean else ETC_ALLOWED),
            "--dev", "/dev"]
    if not lean:  # a /proc of the sandbox's own PID namespace: Python and make want one
        args += ["--proc", "/proc"]
    args += ["--tmpfs", "/tmp"]
    if home is not None and str(home) not in ("/", "/tmp"):
        args += ["--tmpfs", str(home)]
    rw = {str(Path(p).absolute()) for p in writable}
    for path in _depth_order([*read_only, *writable, cwd]):
        kind = "--bind" if str(path) in rw or path == Path(cwd).absolute() else "--ro-bind"
        args += [kind, str(path), str(path)]
    args += ["--setenv", "TMPDIR", "/tmp", "--chdir", str(Path(cwd).absolute()), "--", *argv]
    return args


def runtime_paths() -> tuple[Path, ...]:
    """What any sandboxed Python child needs to read: the interpreter, the venv, our `sim` package."""
    here = Path(__file__).resolve().parents[1]
    return tuple(Path(p) for p in dict.fromkeys([sys.base_prefix, sys.prefix, str(Path(sys.executable).parent),
                                                 str(here)]))


@functools.lru_cache(maxsize=4)
def compiler_cache_dir(path_env: str) -> Path | None:
    """The ccache cache directory (builds need it writable to hit the cache), or None without ccache."""
    exe = shutil.which("ccache", path=path_env)
    if not exe:
        return None
    explicit = os.environ.get("CCACHE_DIR")
    if explicit:
        return Path(explicit)
    try:
        out = subprocess.run([exe, "-k", "cache_dir"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout.strip()
    return Path(text) if out.returncode == 0 and text else None
