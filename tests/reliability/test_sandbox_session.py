"""The persistent sandbox that runs a binary's many short simulations (real bwrap, real Verilator)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from conftest import lingering, processes_matching, requires_verilator

from sim.run.evaluate import BuiltTestbench, SimOptions, build
from sim.sandbox.bwrap import SandboxMode, probe
from sim.sandbox.session import argv_file_text, parse_status
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
    repeat (2) @(negedge clk);
    rst_n = 1;
    if (mode == "hang") forever #1;
    repeat (4) @(negedge clk);
    $finish;
  end
endmodule
"""
"""One binary, three behaviours chosen by plusarg: plain, leave daemons behind, never finish."""


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


def test_a_hanging_run_times_out_and_the_next_run_works(built: BuiltTestbench) -> None:
    start = time.monotonic()
    result = built.run(plusargs=("+mode=hang",))
    assert result.status.value == "timeout", (result.status, result.detail, result.log_tail)
    assert time.monotonic() - start < 2.0 + 5.0
    assert "$finish" in result.detail
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
    assert argv_file_text(["./Vsim", "+a"], 2.0) == "2.000\n./Vsim\n+a\n"
    with pytest.raises(ValueError, match="newline"):
        argv_file_text(["./Vsim", "+a\nrm -rf /"], 2.0)
    assert parse_status("0\n") == 0
    assert parse_status("124\n") == 124
    assert parse_status("garbage") is None
