"""Shared fixtures of the reliability suite: a tiny design, containment checks, figures.

Every test here uses real components (Verilator, the server process, llama.cpp, loopback
HTTP servers). Figures (cases tried/contained, fuzz executions, load numbers) are
collected with the `figures` fixture and written as JSON at the end of the session to
`$BENCHWRIGHT_RELIABILITY_FIGURES` (benchmarks/reliability_report.py reads them).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "server"))  # lsp_session: the real-server helpers

FIGURES_ENV = "BENCHWRIGHT_RELIABILITY_FIGURES"
"""Where the session's figures are written (JSON), when set."""

COUNTER_RTL = """\
module counter (input logic clk, input logic rst_n, input logic en, output logic [3:0] q);
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) q <= '0;
    else if (en) q <= q + 1'b1;
endmodule
"""
"""The DUT every hostile testbench is built against (small: fast builds)."""

_FIGURES: Counter[str] = Counter()
_NOTES: dict[str, object] = {}


class Figures:
    """Counters shared by the whole session (`tried`/`contained` per corpus, fuzz runs, ...)."""

    def add(self, key: str, n: int = 1) -> None:
        _FIGURES[key] += n

    def note(self, key: str, value: object) -> None:
        _NOTES[key] = value


@pytest.fixture(scope="session")
def figures() -> Figures:
    return Figures()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    target = os.environ.get(FIGURES_ENV)
    data = {"counts": dict(sorted(_FIGURES.items())), "notes": _NOTES}
    if target:
        Path(target).write_text(json.dumps(data, indent=1))
    if _FIGURES:
        print("\nreliability figures:", json.dumps(data), file=sys.stderr)


@pytest.fixture(scope="session")
def rel_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One build cache for the reliability suite (isolated from the user's)."""
    return tmp_path_factory.mktemp("rel-cache")


@pytest.fixture(scope="session")
def counter(tmp_path_factory: pytest.TempPathFactory):  # -> sim.suite.Design
    """A one-file 4-bit counter design (session-wide, so its builds are cached)."""
    from sim.suite import Design, Reset

    root = tmp_path_factory.mktemp("counter")
    rtl = root / "rtl" / "counter.sv"
    rtl.parent.mkdir()
    rtl.write_text(COUNTER_RTL)
    return Design(name="counter", root=root, top="counter", rtl=(rtl,), clocks=("clk",),
                  resets=(Reset("rst_n", active_low=True),))


def verilator_ok() -> bool:
    from sim.errors import SimError
    from sim.tools import find_verilator

    try:
        find_verilator()
    except SimError:
        return False
    return True


requires_verilator = pytest.mark.skipif(not verilator_ok(), reason="needs Verilator >= 5.036")


# -- containment ------------------------------------------------------------------------


def snapshot(root: Path, skip: tuple[Path, ...] = ()) -> dict[str, float | int]:
    """Every file under `root` (outside `skip`) with its size and mtime."""
    out: dict[str, float | int] = {}
    for p in root.rglob("*"):
        if any(p == s or s in p.parents for s in skip):
            continue
        if p.is_file() or p.is_symlink():
            st = p.lstat()
            out[str(p)] = (st.st_size, st.st_mtime_ns)  # type: ignore[assignment]
    return out


def processes_matching(marker: str) -> list[tuple[int, str]]:
    """(pid, cmdline) of live processes (not zombies) whose command line contains `marker`."""
    found = []
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            found.append((int(entry.name), cmd.strip()))
    return found


def lingering(marker: str, timeout_s: float = 3.0) -> list[tuple[int, str]]:
    """Processes matching `marker` still alive after `timeout_s` (SIGKILL is delivered asynchronously)."""
    import time

    deadline = time.monotonic() + timeout_s
    while (found := processes_matching(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def children_of(pid: int) -> list[int]:
    """Live (non-zombie) processes whose parent is `pid`."""
    kids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            kids.append(int(entry.name))
    return kids


@dataclass
class Jail:
    """Where a hostile case runs and what it must not touch."""

    base: Path
    """Watched folder: nothing in it may change except under `run`."""
    run: Path
    """The run directory handed to the evaluator."""
    sentinel: Path
    """A file path outside the run directory that hostile code targets."""
    victim: Path
    """An existing file outside the run directory (must keep its content)."""

    def check(self, before: dict[str, float | int] | None = None) -> None:
        """Nothing escaped: no sentinel, the victim intact, nothing changed outside `run`, no process left.

        Called in a test's body, so that figures are counted only after it held.
        """
        assert not self.sentinel.exists(), "hostile code wrote the sentinel outside the run directory"
        assert self.victim.read_text() == "precious\n"
        if before is not None or self.snapshot is not None:
            assert snapshot(self.base, skip=(self.run,)) == (before or self.snapshot), \
                "files changed outside the run directory"
        assert lingering(str(self.base.parent), timeout_s=3.0) == [], "processes left behind"
        assert children_of(os.getpid()) == [], "child processes left behind"

    snapshot: dict[str, float | int] | None = None
    """Files outside `run` when the test started (set by the fixture)."""


@pytest.fixture
def jail(tmp_path: Path) -> Iterator[Jail]:
    """A watched folder with a run dir, a sentinel target and a victim file; checked after the test."""
    base = tmp_path / "watched"
    run = base / "run"
    run.mkdir(parents=True)
    victim = base / "victim.txt"
    victim.write_text("precious\n")
    j = Jail(base, run, base / "sentinel.txt", victim)
    j.snapshot = snapshot(base, skip=(run,))
    yield j
    j.check()  # again, after the test (a test that forgot to call it is still checked)
