"""Run every shell command the guides mark with `<!-- doc-test -->`, exactly as written.

A marker line directly before a fenced `bash` block marks the block; the marked blocks of one
page run in order, each as one `bash -euo pipefail` script, in a folder emptied for the page
that holds a fresh copy of `examples/` (the same path for every page and session, so builds
are reused), with the venv's `benchwright` first on PATH. `<!-- doc-test timeout=N -->`
sets a block's limit in seconds. A renamed flag, a changed default that breaks a command, or a moved
example fails here.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
MARKER = re.compile(r"^<!--\s*doc-test(?P<opts>(?:\s+\w+=\S+)*)\s*-->\s*$")
FENCE = re.compile(r"^```(?P<lang>\w*)\s*$")
DEFAULT_TIMEOUT_S = 300


@dataclass(frozen=True)
class Block:
    """One marked block of shell commands."""

    page: str
    """Page path relative to the repository root."""
    line: int
    """1-based line of the marker."""
    script: str
    """The block's text, run as one bash script."""
    timeout_s: float
    """Wall-clock limit of the block."""

    @property
    def commands(self) -> list[str]:
        """The block's command lines (comments and blank lines left out)."""
        return [ln for ln in self.script.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def marked_blocks(text: str, page: str) -> list[Block]:
    """Every marked block of a Markdown page, in order; ValueError for a marker without a bash block."""
    lines = text.splitlines()
    blocks = []
    for k, line in enumerate(lines):
        found = MARKER.match(line)
        if not found:
            continue
        opts = dict(o.split("=", 1) for o in found.group("opts").split())
        fence = FENCE.match(lines[k + 1]) if k + 1 < len(lines) else None
        if fence is None or fence.group("lang") not in ("bash", "sh", "shell"):
            raise ValueError(f"{page}:{k + 1}: a doc-test marker must come right before a ```bash block")
        end = next((j for j in range(k + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"{page}:{k + 1}: the marked block is not closed")
        unknown = set(opts) - {"timeout"}
        if unknown:
            raise ValueError(f"{page}:{k + 1}: unknown doc-test options {sorted(unknown)}")
        blocks.append(Block(page, k + 1, "\n".join(lines[k + 2:end]) + "\n",
                            float(opts.get("timeout", DEFAULT_TIMEOUT_S))))
    return blocks


def page_blocks() -> dict[str, list[Block]]:
    """Page (relative path) -> its marked blocks, for the pages that have any."""
    out = {}
    for path in PAGES:
        rel = str(path.relative_to(ROOT))
        blocks = marked_blocks(path.read_text(encoding="utf-8"), rel)
        if blocks:
            out[rel] = blocks
    return out


BLOCKS = page_blocks()


def test_marker_parsing() -> None:
    text = ("intro\n<!-- doc-test timeout=20 -->\n```bash\nbenchwright doctor  # tools\n# a comment\n\n```\n"
            "```bash\nnot marked\n```\n")
    (block,) = marked_blocks(text, "p.md")
    assert (block.line, block.timeout_s, block.commands) == (2, 20.0, ["benchwright doctor  # tools"])
    with pytest.raises(ValueError, match="right before"):
        marked_blocks("<!-- doc-test -->\n\n```bash\nx\n```\n", "p.md")
    with pytest.raises(ValueError, match="unknown"):
        marked_blocks("<!-- doc-test retries=2 -->\n```bash\nx\n```\n", "p.md")


def test_guides_mark_commands() -> None:
    assert {"README.md", "docs/getting-started.md", "docs/cli.md"} <= set(BLOCKS)
    assert sum(len(b.commands) for blocks in BLOCKS.values() for b in blocks) >= 20


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    """One folder per checkout, the same in every session, emptied before each page.

    Builds are cached by their sources' paths as well as their contents, so running the pages
    at one fixed path lets a page reuse the builds of the pages before it and of earlier
    sessions. A lock file serialises test sessions of the same checkout that run at once.
    """
    key = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"benchwright-doc-commands-{os.getuid()}-{key}"
    folder.mkdir(exist_ok=True)
    with (folder.parent / f"{folder.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield folder
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.mark.simulator_required
@pytest.mark.parametrize("page", sorted(BLOCKS), ids=sorted(BLOCKS))
def test_documented_commands_run(page: str, workdir: Path) -> None:
    for entry in workdir.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    shutil.copytree(ROOT / "examples", workdir / "examples")
    venv_bin = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": venv_bin + os.pathsep + os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"}
    for block in BLOCKS[page]:
        try:
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", block.script], cwd=workdir, env=env,
                                  capture_output=True, text=True, timeout=block.timeout_s, check=False)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{block.page}:{block.line}: the marked block ran past {block.timeout_s:.0f} s")
        tail = (done.stdout + done.stderr)[-3000:]
        assert done.returncode == 0, f"{block.page}:{block.line}: exit {done.returncode}\n{block.script}\n{tail}"
