"""Provenance records: a `meta.json` beside every artifact (STYLE.md rule 19).

A directory artifact (curated data, an adapter, a merged model) gets `DIR/meta.json`;
a file artifact (a GGUF) gets `<file>.meta.json` through `write_meta`.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

META_NAME = "meta.json"
"""File name of a directory artifact's provenance record."""


def input_hashes(paths: Iterable[Path]) -> dict[str, str]:
    """Path -> sha256 for every existing regular file among `paths`."""
    return {str(p): sha256_file(p) for p in paths if p.is_file()}


def write_dir_meta(out_dir: Path, stage: str, *, config: Mapping[str, Any] | None = None,
                   inputs: Iterable[Path] = (), **extra: Any) -> Path:
    """Write `out_dir/meta.json` for one stage's output and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    outputs = {p.name: sha256_file(p) for p in sorted(out_dir.iterdir())
               if p.is_file() and p.name != META_NAME and p.stat().st_size < (1 << 30)}
    record = {
        "stage": stage,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "git_sha": git_sha(),
        "python": sys.version.split()[0],
        "host": platform.node(),
        "argv": sys.argv,
        "config": dict(config) if config is not None else None,
        "inputs_sha256": input_hashes(inputs),
        "outputs_sha256": outputs,
        **extra,
    }
    path = out_dir / META_NAME
    path.write_text(json.dumps(record, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    return path


def read_meta(out_dir: Path) -> dict[str, Any]:
    """The meta.json of a directory artifact ({} when there is none)."""
    try:
        data: dict[str, Any] = json.loads((out_dir / META_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data


# --- file artifacts --------------------------------------------------------------


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sha256_dir(path: Path) -> dict[str, str]:
    """Relative file name -> sha256 for every regular file directly in `path`."""
    return {p.name: sha256_file(p) for p in sorted(path.iterdir()) if p.is_file()}


def git_sha() -> str | None:
    """Commit of the checkout this module lives in, or None outside git."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent,
                             capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def meta_path(artifact: Path) -> Path:
    """Where the provenance of `artifact` lives: `<artifact name>.meta.json` beside it."""
    return artifact.with_name(artifact.name + ".meta.json")


def write_meta(artifact: Path, meta: dict[str, Any]) -> Path:
    """Write the provenance record of `artifact` and return its path."""
    record = {"artifact": artifact.name, "size_bytes": artifact.stat().st_size,
              "sha256": sha256_file(artifact), "git_sha": git_sha(),
              "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **meta}
    path = meta_path(artifact)
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
