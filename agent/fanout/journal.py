"""Finished rows kept on disk as they arrive, so a restarted run (`--resume`) skips them.

One file per design, `<out>/rows/<name>.json`, holding the row and the key of the job that
produced it (agent.fanout.rows.job_key: the design's files and every setting). A row is
reused only under the same key: a changed file, seed or budget runs the design again.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

JOURNAL_DIR = "rows"
"""Subfolder of the output folder that holds the journal."""


def file_name(name: str) -> str:
    """A design name as a file name (run-all names may hold `/`)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".json"


class Journal:
    """The rows of one output folder."""

    def __init__(self, out_dir: Path) -> None:
        self.folder = out_dir / JOURNAL_DIR
        """Where the row files live."""

    def load(self, name: str, key: str) -> dict[str, Any] | None:
        """The row kept for `name` under `key`, or None (none kept, another key, unreadable)."""
        path = self.folder / file_name(name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key or not isinstance(data.get("row"), dict):
            return None
        row: dict[str, Any] = data["row"]
        return row if row.get("name") == name else None

    def store(self, name: str, key: str, row: dict[str, Any]) -> None:
        """Keep a finished row (written whole, then renamed: an interrupted write leaves no half row)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / file_name(name)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"key": key, "row": row}, indent=1), encoding="utf-8")
        tmp.replace(path)
