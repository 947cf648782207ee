"""Content-addressed build cache: one directory per hash of (sources, exact command, tool binaries).

A per-key file lock makes concurrent requests for the same build wait for one builder
instead of compiling twice (the server and the agent can ask at the same time).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
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
