"""The persistent sandbox that runs a binary's many short simulations (real bwrap, real Verilator).

Every test here fails when the session runs without bubblewrap, or when a run shares its
PID namespace or its view of the session's folder with other runs: a canary outside the
session must be unreadable from a run, a run cannot list or read another run's directory,
and nothing a run started (setsid, a double fork, nohup) outlives it.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path

import pytest
from conftest import lingering, processes_matching, requires_verilator

from sim.run.evaluate import BuiltTestbench, SimOptions, build
from sim.sandbox.bwrap import Sandbox, SandboxMode, probe
from sim.sandbox.process import Limits
from sim.sandbox.session import SandboxSession, argv_file_text, parse_status
from sim.suite import Design, Reset
from sim.types import SimResult

pytestmark = [pytest.mark.simulator_required, requires_verilator]

RTL = """\
module blinky (input logic clk, input logic rst_n, output logic q);
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) q <= 1'b0;
    else q <= ~q;
endmodule
"""

TB = """\
module tb_blinky;
  logic clk = 0, rst_n = 0, q;
  blinky dut (.*);
  always #5 clk = ~clk;
  string mode;
  initial begin
    if (!$value$plusargs("mode=%s", mode)) mode = "plain";
    if (mode == "daemon") void'($system("sleep 7555 & sleep 7555 &"));
    if (mode == "setsid") void'($system("setsid sleep 7556 > /dev/null 2>&1 < /dev/null &"));
    if (mode == "double") void'($system("sh -c '(sleep 7557 > /dev/null 2>&1 < /dev/null &) &'"));
    if (mode == "nohup") void'($system("nohup sleep 7558 > /dev/null 2>&1 < /dev/null &"));
    repeat (2) @(negedge clk);
    rst_n = 1;
    if (mode == "hang") forever #1;
    repeat (4) @(negedge clk);
    $finish;
  end
endmodule
"""
"""One binary, behaviours chosen by plusarg: plain, leave daemons behind (four ways), never finish."""


def live(marker: str) -> list[int]:
    """Pids of live processes whose command line contains `marker`."""
    return [pid for pid, _ in processes_matching(marker)]


def settle(marker: str, timeout_s: float = 3.0) -> list[int]:
    return [pid for pid, _ in lingering(marker, timeout_s)]


@pytest.fixture
def built(tmp_path: Path) -> BuiltTestbench:
    if not probe().available:
        pytest.fail(f"bubblewrap namespaces must work on this machine: {probe().reason}")
    rtl = tmp_path / "rtl" / "blinky.sv"
    rtl.parent.mkdir()
    rtl.write_text(RTL)
    design = Design(name="blinky", root=tmp_path, top="blinky", rtl=(rtl,), clocks=("clk",),
                    resets=(Reset("rst_n", active_low=True),))
    options = SimOptions(cache_dir=tmp_path / "cache", run_timeout_s=2.0, sandbox=SandboxMode.REQUIRE)
    # The user's own testbench is not guarded ($system is allowed): build it as evaluate_files does.
    (tmp_path / "tb_blinky.sv").write_text(TB)
    unguarded = build(design, (tmp_path / "tb_blinky.sv",), "tb_blinky", options=options)
    assert not isinstance(unguarded, SimResult), unguarded.detail
    return unguarded


def test_many_runs_share_one_sandbox(built: BuiltTestbench) -> None:
    results = [built.run() for _ in range(5)]
    assert [r.status.value for r in results] == ["ok"] * 5
    assert results[0].coverage == results[-1].coverage
    assert built._session is not None
    assert built._session.started == 1


def test_stragglers_die_with_their_run(built: BuiltTestbench) -> None:
    result = built.run(plusargs=("+mode=daemon",))
    assert result.status.value == "ok", result.detail
    assert settle("sleep 7555") == [], "a process the testbench left behind outlived its run"
    assert built.run().status.value == "ok"


@pytest.mark.parametrize(("mode", "marker"), [("setsid", "sleep 7556"), ("double", "sleep 7557"),
                                              ("nohup", "sleep 7558")])
def test_setsid_double_fork_and_nohup_die_with_their_run(built: BuiltTestbench, mode: str, marker: str,
                                                          figures) -> None:
    result = built.run(plusargs=(f"+mode={mode}",))
    assert result.status.value == "ok", result.detail
    assert built._session is not None
    # Gone as soon as the run answered: its PID namespace died with it (not when the session ends).
    left = settle(marker, 2.0)
    assert left == [], f"{mode}: a process the run started outlived it"
    assert live(str(built._session.root)), "the session itself should still be running"
    figures.note(f"session_stragglers_{mode}", len(left))


def test_a_hanging_run_times_out_and_the_next_run_works(built: BuiltTestbench) -> None:
    start = time.monotonic()
    result = built.run(plusargs=("+mode=hang",))
    assert result.status.value == "timeout", (result.status, result.detail, result.log_tail)
    assert time.monotonic() - start < 2.0 + 5.0
    assert "$finish" in result.detail
    assert settle(str(built.exe), 3.0) == [], "the hanging simulation outlived its time limit"
    assert built.run().status.value == "ok"


def test_cancel_kills_the_session_and_a_new_one_starts(built: BuiltTestbench) -> None:
    assert built.run().status.value == "ok"
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    result = built.run(plusargs=("+mode=hang",), cancel=cancel)
    assert time.monotonic() - start < 1.9
    assert result.status.value != "ok"
    assert built._session is not None
    root = str(built._session.root)
    assert settle(root, 3.0) == [], "the cancelled session's processes are still running"
    assert built.run().status.value == "ok"
    assert built._session.started == 2


def test_close_ends_every_process(built: BuiltTestbench) -> None:
    assert built.run(plusargs=("+mode=daemon",)).status.value == "ok"
    assert built._session is not None
    root = built._session.root
    assert live(str(root)), "the session's loop should be running between runs"
    built._session.close()
    assert settle(str(root)) == []
    assert not root.exists()


def test_request_file_and_status_line() -> None:
    assert argv_file_text(["./Vsim", "+a"]) == "./Vsim\n+a\n"
    with pytest.raises(ValueError, match="newline"):
        argv_file_text(["./Vsim", "+a\nrm -rf /"])
    assert parse_status("0\n") == 0
    assert parse_status("124\n") == 124
    assert parse_status("garbage") is None


# -- the session on its own: a shell in place of a simulation binary ----------------------


@pytest.fixture
def session(tmp_path: Path):  # -> SandboxSession
    if not probe().available:
        pytest.fail(f"bubblewrap namespaces must work on this machine: {probe().reason}")
    s = SandboxSession(Sandbox(mode=SandboxMode.REQUIRE, lean=True), env=None, limits=Limits(timeout_s=10))
    try:
        yield s
    finally:
        s.close()


def shell(session: SandboxSession, script: str, timeout_s: float = 10.0) -> tuple[int, str, Path]:
    """Run `sh -c script` as one session run; (status, log, run dir)."""
    work = session.new_run_dir()
    res = session.run(["sh", "-c", script], cwd=work, log_path=work / "run.log", timeout_s=timeout_s)
    return res.returncode, (work / "run.log").read_text(errors="replace"), work


def test_a_run_cannot_read_outside_the_session(session: SandboxSession, tmp_path: Path) -> None:
    secret = "SESSION-CANARY-" + uuid.uuid4().hex
    canary = tmp_path / "canary.txt"
    canary.write_text(secret)
    status, log, _ = shell(session, f"cat {canary}; echo done")
    assert status == 0, log
    assert "done" in log
    assert secret not in log, "a session run read a file outside the sandbox's view"


def test_runs_cannot_see_each_other(session: SandboxSession) -> None:
    status, log, first = shell(session, "echo private-data > mine.txt; echo ok")
    assert status == 0, log
    assert (first / "mine.txt").is_file()
    status, log, second = shell(session, f"echo LIST: $(ls -a {session.root}); cat {first}/mine.txt; "
                                         f"touch {first}/planted; echo end")
    assert status == 0, log
    assert "end" in log
    listed = next(line for line in log.splitlines() if line.startswith("LIST:")).split()[1:]
    assert sorted(listed) == sorted([".", "..", second.name]), f"a run listed other runs' directories: {listed}"
    assert "private-data" not in log, "a run read another run's file"
    assert not (first / "planted").exists(), "a run wrote into another run's directory"


def test_each_run_has_its_own_pid_namespace(session: SandboxSession) -> None:
    status, log, _ = shell(session, f"echo pid=$$; kill -0 {os.getpid()} 2> /dev/null && echo host-seen || "
                                    "echo host-hidden; ls -A /proc | wc -l")
    assert status == 0, log
    lines = log.strip().splitlines()
    # bwrap's init is 1, the run's shell 2: in the session's namespace the loop would be 2.
    assert lines[-3] in ("pid=1", "pid=2"), log
    assert lines[-2] == "host-hidden", f"the run can signal the host process: {log}"
    assert lines[-1] == "0", f"the run sees a /proc: {log}"


@pytest.mark.parametrize("how", ["setsid sleep 7561 &", "(sleep 7562 &) &", "nohup sleep 7563 &"],
                         ids=["setsid", "double-fork", "nohup"])
def test_session_run_leaves_no_process(session: SandboxSession, how: str) -> None:
    marker = how.split("&")[0].split()[-1]
    status, log, _ = shell(session, f"{how} > /dev/null 2>&1 < /dev/null; echo started")
    assert status == 0, log
    assert settle(f"sleep {marker}", 2.0) == [], f"`{how}` outlived its session run"
