"""Content-addressed build cache: one directory per hash of (sources, exact command, tool binaries).

A per-key file lock makes concurrent requests for the same build wait for one builder
instead of compiling twice (the server and the agent can ask at the same time).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from sim.run.commands import BuildSpec

DEFAULT_CACHE_ENV = "BENCHWRIGHT_CACHE"
"""Environment variable overriding the cache root (default ~/.cache/benchwright)."""


def cache_root() -> Path:
    """Root of Benchwright's caches."""
    return Path(os.environ.get(DEFAULT_CACHE_ENV) or Path.home() / ".cache" / "benchwright")


BUILD_DIR_PLACEHOLDER = Path("@build")
"""Stands for the build directory in the argv that is hashed (the directory's name is the hash)."""


def build_key(spec: BuildSpec, argv: Sequence[str], tool: str, texts: dict[str, bytes] | None = None) -> str:
    """Hash of everything that affects a build: file contents and names, the exact command, the tool.

    The command is hashed as it will run (with `BUILD_DIR_PLACEHOLDER` for the build
    directory), not the options it was derived from: a flag that a new release of
    Benchwright adds or drops (`--coverage-per-instance`) must never reuse a binary built
    without it.

    Args:
        spec: the build (its sources and include directories are hashed by content).
        argv: the build command(s), flattened, with the build directory as the placeholder.
        tool: `sim.tools.tool_fingerprint` of the tool that runs it (path, version, binaries).
        texts: contents for sources not (yet) on disk, by path string.
    """
    h = hashlib.sha256()
    h.update(tool.encode() + b"\0argv\0" + "\0".join(argv).encode())
    for src in spec.sources:
        data = (texts or {}).get(str(src))
        # RTL is keyed by its full path too (coverage.dat records absolute paths);
        # generated files live inside the keyed directory, so their name suffices.
        h.update(b"\0src\0" + (src.name if data is not None else str(src)).encode() + b"\0")
        h.update(data if data is not None else src.read_bytes())
    for d in spec.include_dirs:
        # Headers can change without the sources changing.
        for f in sorted(p for p in d.rglob("*") if p.is_file()):
            h.update(b"\0inc\0" + str(f.relative_to(d)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:24]


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if needed) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


MAX_SIZE_ENV = "BENCHWRIGHT_CACHE_MAX_GB"
"""Environment variable bounding the build cache (gigabytes; default `DEFAULT_MAX_GB`)."""

DEFAULT_MAX_GB = 10.0
"""Default bound of the build cache: a day of engine runs and test suites builds tens of
gigabytes of objects, most never used again."""

SIZE_FILE = "size"
"""A finished build's size in bytes, written beside its `ok` marker (whose time is its last use)."""


def max_cache_bytes() -> int:
    """The build cache's bound in bytes (`BENCHWRIGHT_CACHE_MAX_GB`; an unreadable value keeps the default)."""
    text = os.environ.get(MAX_SIZE_ENV, "")
    try:
        gigabytes = float(text) if text.strip() else DEFAULT_MAX_GB
    except ValueError:
        gigabytes = DEFAULT_MAX_GB
    return int(max(0.0, gigabytes) * (1 << 30))


def tree_bytes(path: Path) -> int:
    """Bytes of the files under `path` (0 for what vanished meanwhile)."""
    total = 0
    for f in path.rglob("*"):
        with contextlib.suppress(OSError):
            if f.is_file() and not f.is_symlink():
                total += f.stat().st_size
    return total


def record_build(bdir: Path) -> None:
    """Mark a build finished: its size for `prune_builds`, its `ok` marker (time of last use)."""
    (bdir / SIZE_FILE).write_text(str(tree_bytes(bdir)))
    (bdir / "ok").write_text("")


def touch_build(bdir: Path) -> None:
    """Note that a cached build was used now (least recently used builds go first)."""
    with contextlib.suppress(OSError):
        os.utime(bdir / "ok")


def prune_builds(builds: Path, max_bytes: int, keep: Path | None = None) -> list[Path]:
    """Delete the least recently used finished builds until the cache holds at most `max_bytes`.

    Only directories with an `ok` marker count (unfinished builds belong to a builder);
    each is removed under its key's lock, so no one is building it meanwhile. `keep` (the
    build just made) stays. Returns the removed directories.
    """
    found: list[tuple[float, int, Path]] = []
    for ok in builds.glob("*/ok"):
        bdir = ok.parent
        with contextlib.suppress(OSError, ValueError):
            size_file = bdir / SIZE_FILE
            size = int(size_file.read_text()) if size_file.is_file() else tree_bytes(bdir)
            found.append((ok.stat().st_mtime, size, bdir))
    total = sum(size for _, size, _ in found)
    removed: list[Path] = []
    for _, size, bdir in sorted(found, key=lambda f: f[0]):
        if total <= max_bytes:
            break
        if keep is not None and bdir == keep:
            continue
        with locked(builds / "locks" / f"{bdir.name}.lock"):
            shutil.rmtree(bdir, ignore_errors=True)
        total -= size
        removed.append(bdir)
    return removed
