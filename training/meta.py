"""Provenance records: a `meta.json` beside every artifact (STYLE.md rule 19).

A directory artifact (curated data, an adapter, a merged model) gets `DIR/meta.json`;
a file artifact (a GGUF) gets `<file>.meta.json` through `training.gguf.write_meta`.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from training.gguf import git_sha, sha256_file

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
