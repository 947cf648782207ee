"""agent.fanout's pure parts and its local shell: rows, keys, journal, progress, JUnit, files."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from agent.bench import BenchJob, summarize
from agent.fanout.files import bundle, collect, design_digest, stage, write_back
from agent.fanout.journal import Journal
from agent.fanout.junit import junit_xml
from agent.fanout.progress import Board, Event, EventKind, View
from agent.fanout.rows import (
    NOT_OPENED,
    Retry,
    comparable,
    failed_row,
    job_key,
    with_retries,
)
from agent.fanout.runner import report_markdown
from sim.suite import Design, HumanTest


def _row(name: str, overall: float, cov: bool, wall: float = 1.0) -> dict[str, object]:
    return {"name": name, "sim_pass": True, "cov_pass": cov, "overall": overall, "metrics": {"line": overall},
            "target": 90.0, "rounds": 1, "sim_calls": 4, "wall_s": wall, "status": "ok", "curve": [[4, overall]]}


def _design(root: Path) -> Design:
    (root / "rtl").mkdir(parents=True)
    (root / "inc").mkdir()
    (root / "rtl" / "top.sv").write_text("module top; endmodule\n")
    (root / "inc" / "defs.svh").write_text("`define W 4\n")
    (root / "tb.sv").write_text("module tb; top dut(); endmodule\n")
    return Design(name="top", root=root, top="top", rtl=(root / "rtl" / "top.sv",), include_dirs=(root / "inc",),
                  human_test=HumanTest("sv", (root / "tb.sv",), "tb", True))


def _bench(rows: list[dict[str, object]]) -> dict[str, object]:
    return {"summary": summarize(rows, 3.0), "designs": rows, "policy": "heuristic", "run": {}}


def test_failed_rows_count_as_failures_and_compare_without_timing() -> None:
    row = failed_row("rtl/broken.v", "Verilator rejected rtl/broken.v: line 2", NOT_OPENED)
    s = summarize([_row("a", 100.0, True), row], 1.0)
    assert (s["n"], s["sim_pass"], s["avg_cov"]) == (2, 50.0, 50.0)
    retried = with_retries(_row("a", 80.0, False, wall=9.0), (Retry(1, "WorkerCrashedError: died", "n1 pid 4"),),
                           "n2 pid 7")
    assert retried["retries"] == [{"attempt": 1, "reason": "WorkerCrashedError: died", "worker": "n1 pid 4"}]
    assert comparable(retried) == comparable(_row("a", 80.0, False, wall=1.0))
    assert "retries" not in with_retries(_row("a", 1.0, False), (), "")


def test_job_key_follows_files_and_settings(tmp_path: Path) -> None:
    design = _design(tmp_path / "d")
    job = BenchJob(design, "heuristic", {"seed": 0}, max_sim_calls=10)
    key = job_key(job, design_digest(design))
    assert key == job_key(replace(job, out_dir=tmp_path / "elsewhere"), design_digest(design))
    assert key != job_key(replace(job, policy_options={"seed": 1}), design_digest(design))
    (tmp_path / "d" / "inc" / "defs.svh").write_text("`define W 5\n")  # a header is part of the design
    assert key != job_key(job, design_digest(design))


def test_journal_reuses_a_row_only_under_its_key(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.store("sub/top", "k1", _row("sub/top", 90.0, True))
    assert journal.load("sub/top", "k1") == _row("sub/top", 90.0, True)
    assert journal.load("sub/top", "k2") is None
    assert journal.load("other", "k1") is None
    (tmp_path / "rows" / "sub_top.json").write_text("{half")
    assert journal.load("sub/top", "k1") is None


def test_junit_has_a_case_per_design() -> None:
    rows = [_row("good", 95.0, True), _row("low", 60.0, False),
            failed_row("rtl/broken.v", "Verilator rejected rtl/broken.v: line 2: syntax error", NOT_OPENED),
            with_retries(_row("again", 92.0, True), (Retry(1, "WorkerCrashedError: x", "n1 pid 3"),), "n2 pid 9")]
    root = ET.fromstring(junit_xml(_bench(rows), "benchwright run-all"))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "1", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases["good"].find("failure") is None
    assert cases["good"].find("error") is None
    failure = cases["low"].find("failure")
    assert failure is not None
    assert "60.00 % is below the target 90 %" in str(failure.get("message"))
    error = cases["rtl/broken.v"].find("error")
    assert error is not None
    assert error.get("type") == NOT_OPENED
    assert "syntax error" in str(error.get("message"))
    assert "attempt 1 lost on n1 pid 3" in str(cases["again"].findtext("system-out"))


def test_report_lists_failed_retried_and_resumed() -> None:
    rows = [with_retries(_row("again", 92.0, True), (Retry(1, "WorkerCrashedError: x", "n1 pid 3"),), "n2 pid 9"),
            failed_row("rtl/broken.v", "Verilator rejected it", NOT_OPENED), _row("kept", 95.0, True)]
    bench = {**_bench(rows), "run": {"backend": "ray", "address": "h:1", "nodes": 2, "cpus": 2, "staged": [],
                                     "resumed": ["kept"]}}
    text = report_markdown(bench, "Run-all")
    assert text.startswith("# Run-all: policy `heuristic`")
    assert "- `rtl/broken.v` (not opened): Verilator rejected it" in text
    assert "- `again`: attempt 1 lost on n1 pid 3 (WorkerCrashedError: x); attempt 2 finished on n2 pid 9" in text
    assert "1 of 3 rows are an earlier run's" in text
    assert "2 node(s), 2 CPUs" in text


def test_progress_board_and_log_lines() -> None:
    board = Board(["a", "b"], budget=40.0, label="bench")
    stream = io.StringIO()
    view = View(board, stream, tty=False)
    view.on_event(Event("a", EventKind.START, worker="n1 pid 3"))
    view.on_event(Event("a", EventKind.STEP, step=0, sim_calls=20.0, overall=71.5))
    assert "a  " in board.lines(board.started + 5)[1]
    assert "20/40 calls  71.5 %" in board.lines(board.started + 5)[1]
    view.on_event(Event("a", EventKind.LOST, worker="n1 pid 3", detail="WorkerCrashedError: x"))
    assert board.designs["a"].attempt == 2
    assert board.designs["a"].state == "queued"
    view.on_event(Event("a", EventKind.DONE, 2, overall=80.0))
    view.on_event(Event("b", EventKind.RESUMED, overall=90.0))
    assert board.finished() == 2
    assert "1 worker(s) lost" in board.head(board.started)
    log = stream.getvalue().splitlines()
    assert [line.split("] ", 1)[1].split()[0] for line in log] == ["start", "step", "lost", "done", "resumed"]
    tty = io.StringIO()
    View(Board(["a"], 10.0), tty, tty=True).draw(0.0)
    assert tty.getvalue().startswith("bench [")


def test_design_files_staged_elsewhere_and_outputs_back(tmp_path: Path) -> None:
    design = _design(tmp_path / "d")
    staged = stage(design, bundle(design), tmp_path / "worker")
    assert staged.rtl[0] == tmp_path / "worker" / design.rtl[0].relative_to("/")
    assert staged.rtl[0].read_text() == design.rtl[0].read_text()
    assert staged.human_test is not None
    assert staged.human_test.files[0].is_file()
    assert staged.include_dirs[0].is_dir()
    assert design_digest(staged) != ""
    out = tmp_path / "out"
    (out / "sample0").mkdir(parents=True)
    (out / "sample0" / "tb.sv").write_text("x")
    (out / "link").symlink_to(tmp_path / "d" / "tb.sv")
    files, left = collect(out)
    assert files == {"sample0/tb.sv": b"x"}
    assert left == ["link (not a regular file)"]
    write_back(tmp_path / "back", files)
    assert (tmp_path / "back" / "sample0" / "tb.sv").read_text() == "x"
    with pytest.raises(ValueError, match="outside"):
        write_back(tmp_path / "back", {"../escape": b""})
