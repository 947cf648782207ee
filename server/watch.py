"""`benchwright watch DIR`: re-simulate a design on every file change and print the summary.

The terminal twin of the server's on-save simulation: the same project and testbench
discovery (server.project), the same evaluator, watchdog for the file events. A change
while a simulation runs cancels it (its processes are killed) and starts a new one.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any

from server.jobs import simulate
from server.project import (
    HDL_SUFFIXES,
    Project,
    Testbench,
    find_project,
    find_testbench,
)
from server.settings import Settings
from sim.errors import SimError
from sim.project.inputs import load_or_infer
from sim.run.evaluate import SimOptions
from sim.run.lcov import write_lcov
from sim.run.report import result_text
from sim.types import METRICS

logger = logging.getLogger(__name__)

WATCHED_SUFFIXES = (*HDL_SUFFIXES, ".f", ".py", ".toml")
"""File kinds whose change triggers a re-simulation."""

IGNORED_PARTS = (".benchwright", ".git", "obj_dir", "__pycache__", "sim_build")
"""Folders whose files never trigger (build output, our own lcov files)."""


def relevant(path: str) -> bool:
    """True when a change to `path` should re-simulate."""
    p = Path(path)
    return p.suffix in WATCHED_SUFFIXES and not any(part in IGNORED_PARTS for part in p.parts)


def resolve(folder: Path, tb: Path | None, top: str | None) -> tuple[Project, Testbench]:
    """The design in `folder` and its testbench; raises SimError when either is missing."""
    settings = Settings()
    settings.project.top = top or ""
    settings.project.testbench = str(tb.resolve()) if tb is not None else ""
    if (folder / "design.toml").is_file():
        project = find_project(folder / "design.toml", [folder], settings)
    else:
        # No design.toml: infer it (top, files, include dirs, clocks, resets) as `run` does.
        project = Project(load_or_infer([folder], top=top or ""), folder.resolve(), from_toml=False)
    if project is None:
        raise SimError(f"{folder}: no design.toml and no RTL file with a module")
    testbench = find_testbench(project, settings)
    if testbench is None:
        raise SimError(f"{project.design.name}: no testbench found (give --tb FILE or add tb/tb_{project.design.top}.sv)")
    return project, testbench


class Watcher:
    """Debounced, cancelling re-simulation driven by watchdog events."""

    def __init__(self, folder: Path, args: argparse.Namespace, options: SimOptions) -> None:
        self.folder = folder
        """The watched folder."""
        self.args = args
        """Command-line options."""
        self.options = options
        """Evaluator options."""
        self.changed = threading.Event()
        """Set by the file-event thread."""
        self.cancel = threading.Event()
        """Cancels the running simulation."""
        self.runs = 0
        """Simulations completed."""

    def on_change(self, path: str) -> None:
        """A file event (watchdog's thread)."""
        if relevant(path):
            logger.info("changed: %s", path)
            self.cancel.set()
            self.changed.set()

    def run_once(self) -> int:
        """Simulate once and print the summary; 0 when the status is ok."""
        self.cancel = threading.Event()
        try:
            project, tb = resolve(self.folder, self.args.tb, self.args.top)
        except SimError as exc:
            sys.stderr.write(f"benchwright watch: {exc}\n")
            return 2
        sys.stderr.write(f"simulating {project.design.name} with {tb.path} ...\n")
        result = simulate(project, tb, self.options, self.cancel)
        if self.cancel.is_set():
            return 1
        self.runs += 1
        if result.report is not None:
            lcov = project.workspace / ".benchwright" / "coverage" / f"{project.design.name}.info"
            write_lcov(result.report, lcov, root=project.workspace)
        sys.stdout.write(result_text(result, project.design.name) + "\n")
        sys.stdout.flush()
        return 0 if result.status.value == "ok" else 1

    def loop(self) -> int:
        """Simulate now, then after every burst of changes until interrupted or --max-runs."""
        code = self.run_once()
        while self.args.max_runs is None or self.runs < self.args.max_runs:
            self.changed.wait()
            time.sleep(self.args.debounce)
            self.changed.clear()
            code = self.run_once()
        return code


def _observer(folder: Path, watcher: Watcher) -> Any:
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.event_type in ("modified", "created", "moved", "deleted") and not event.is_directory:
                watcher.on_change(str(getattr(event, "dest_path", "") or event.src_path))

    observer = Observer()
    observer.schedule(Handler(), str(folder), recursive=True)
    return observer


def build_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright watch` (pure)."""
    p = argparse.ArgumentParser(prog="benchwright watch", description="Re-simulate a design whenever its files change.")
    p.add_argument("folder", type=Path, help="design folder (with design.toml) or a folder of RTL")
    p.add_argument("--tb", type=Path, help="testbench file (default: design.toml human test, then tb/)")
    p.add_argument("--top", help="DUT top module (default: design.toml's, else inferred)")
    p.add_argument("--metrics", default=",".join(METRICS), help="comma-separated metrics (default: %(default)s)")
    p.add_argument("--debounce", type=float, default=0.3, help="seconds of quiet before re-simulating")
    p.add_argument("--max-runs", type=int, help="exit after this many simulations (for scripts)")
    p.add_argument("-v", "--verbose", action="store_true", help="log file events to stderr")
    return p


def main(argv: list[str]) -> int:
    """Entry point of `benchwright watch`."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    folder = args.folder.resolve()
    if not folder.is_dir():
        sys.stderr.write(f"benchwright watch: {folder} is not a folder\n")
        return 2
    try:
        import watchdog  # noqa: F401
    except ModuleNotFoundError:
        sys.stderr.write("benchwright watch: needs watchdog (pip install .[watch])\n")
        return 2
    options = SimOptions(metrics=tuple(m for m in args.metrics.split(",") if m))
    watcher = Watcher(folder, args, options)
    observer = _observer(folder, watcher)
    observer.start()
    try:
        return watcher.loop()
    except KeyboardInterrupt:
        return 0
    finally:
        observer.stop()
        observer.join(timeout=5)
