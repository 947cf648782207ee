"""Incremental index of a workspace's HDL files: which units each declares and what it uses.

The server asks it two questions about a saved file: which `.f` filelist lists it, and
which files are connected to it (instantiate it, or are instantiated by it, transitively).
Those files then go to sim.project.discover, where Verilator's parse decides the top. The index
holds token-level facts (sim.project.hdl_scan) per file, built by one walk per workspace folder
and then updated one file at a time: a save re-scans only the saved file.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sim.errors import DesignError
from sim.project import hdl_scan
from sim.project.filelist import read_filelist
from sim.project.sources import SKIP_DIRS

logger = logging.getLogger(__name__)

MAX_FILES = 5000
"""Most HDL files indexed per workspace folder (a guard against huge trees)."""


@dataclass(frozen=True)
class Entry:
    """One indexed file."""

    stamp: tuple[int, int]
    """(size, mtime_ns) when scanned."""
    facts: hdl_scan.FileFacts
    """What the scan found."""


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _distance(a: Path, b: Path) -> int:
    """Folder steps between two files (a declaration nearer the user wins)."""
    common = len(Path(os.path.commonpath([a.parent, b.parent])).parts)
    return len(a.parent.parts) + len(b.parent.parts) - 2 * common


class ModuleIndex:
    """Token-level facts of every `.v`/`.sv`/header file and `.f` list under the workspace folders."""

    def __init__(self) -> None:
        self._entries: dict[Path, Entry] = {}
        self._filelists: set[Path] = set()
        self._folders: dict[Path, threading.Event] = {}
        """Folder -> set once its first walk has finished (the walk runs in the first caller's thread)."""
        self._lock = threading.Lock()
        self.scans = 0
        """Files scanned so far (tests check that a save re-scans one file)."""

    def ensure(self, folder: Path) -> None:
        """Index `folder` once (later changes arrive through `update`); returns when it is indexed.

        A caller that arrives while another thread walks the folder waits for that walk: a
        save that came before the index was ready would otherwise see a half-built index and
        simulate the saved file alone.
        """
        folder = folder.resolve()
        with self._lock:
            done = self._folders.get(folder)
            if done is None:
                done = self._folders[folder] = threading.Event()
                walker = True
            else:
                walker = False
        if not walker:
            done.wait()
            return
        try:
            self._walk(folder)
        finally:
            done.set()

    def _walk(self, folder: Path) -> None:
        count = 0
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
            for name in names:
                path = Path(root) / name
                if path.suffix == ".f":
                    with self._lock:
                        self._filelists.add(path)
                elif path.suffix in (*hdl_scan.HDL_SOURCE_SUFFIXES, *hdl_scan.HDL_HEADER_SUFFIXES):
                    self._scan(path)
                    count += 1
            if count > MAX_FILES:
                logger.warning("%s: more than %d HDL files; indexing stopped", folder, MAX_FILES)
                return

    def update(self, path: Path) -> None:
        """Re-scan one file that changed, appeared or disappeared (a save, a watched-file event)."""
        path = path.resolve()
        if path.suffix == ".f":
            with self._lock:
                (self._filelists.add if path.is_file() else self._filelists.discard)(path)
            return
        if path.suffix not in (*hdl_scan.HDL_SOURCE_SUFFIXES, *hdl_scan.HDL_HEADER_SUFFIXES):
            return
        if not path.is_file():
            with self._lock:
                self._entries.pop(path, None)
            return
        with self._lock:
            entry = self._entries.get(path)
        if entry is None or entry.stamp != _stamp(path):
            self._scan(path)

    def _scan(self, path: Path) -> None:
        stamp = _stamp(path)
        if stamp is None:
            return
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        entry = Entry(stamp, hdl_scan.scan(text))
        with self._lock:
            self._entries[path] = entry
            self.scans += 1

    def facts(self, path: Path) -> hdl_scan.FileFacts | None:
        """What the index knows about one file."""
        with self._lock:
            entry = self._entries.get(path.resolve())
        return entry.facts if entry is not None else None

    def filelist_for(self, path: Path, folder: Path) -> Path | None:
        """The shallowest `.f` under `folder` that lists `path` (unreadable lists are skipped)."""
        path = path.resolve()
        with self._lock:
            lists = sorted((f for f in self._filelists if folder in f.parents),
                           key=lambda f: (len(f.parts), str(f)))
        for candidate in lists:
            try:
                if path in read_filelist(candidate).files:
                    return candidate
            except DesignError:
                continue
        return None

    def component(self, path: Path, within: Path | None = None) -> list[Path]:
        """Source files connected to `path` by declared/used unit names, `path` first.

        A name declared in several files links to the declaration nearest the user (a
        workspace holding several copies of a design keeps them apart). Headers are left
        out: sim.project.discover finds the include directories they need.
        """
        path = path.resolve()
        with self._lock:
            entries = {p: e.facts for p, e in self._entries.items()
                       if p.suffix in hdl_scan.HDL_SOURCE_SUFFIXES and (within is None or within in p.parents)}
        declared: dict[str, list[Path]] = {}
        for p, facts in entries.items():
            for name in facts.declared:
                declared.setdefault(name, []).append(p)
        if path not in entries:
            return []

        def uses(user: Path) -> Iterable[Path]:
            for name in entries[user].identifiers & declared.keys():
                owners = [o for o in declared[name] if o != user]
                if owners and user not in declared[name]:
                    yield min(owners, key=lambda o: (_distance(user, o), str(o)))

        links: dict[Path, set[Path]] = {p: set() for p in entries}
        for user in entries:
            for owner in uses(user):
                links[user].add(owner)
                links[owner].add(user)
        seen = [path]
        queue = [path]
        while queue:
            for other in sorted(links[queue.pop()]):
                if other not in seen:
                    seen.append(other)
                    queue.append(other)
        return seen
