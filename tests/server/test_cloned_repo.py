"""A cloned public repository opened as a workspace: the real server process over stdio, real Verilator.

The repository (tests/data/server/repos/apb_gpio, as cloned) has no design.toml and no testbench
the server can run. Saving its RTL once published nothing: the server logged "no testbench" to
the output channel and sat idle. Now the built-in engine writes one under .benchwright/ (nothing
in the repository is touched), its coverage is published, and later saves simulate it; a design
the engine cannot write a testbench for gets a pop-up saying why and a coverage status saying so.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from lsp_session import REPO, Session, requires_verilator, start_session
from lsprotocol import types

from server.project import GENERATED_SOURCE

pytestmark = [pytest.mark.e2e, pytest.mark.simulator_required, requires_verilator]

CLONED = REPO / "tests" / "data" / "server" / "repos" / "apb_gpio"
OPTIONS = {"benchwright": {"lint": {"debounceMs": 0}, "policy": {"simCalls": 12}}}
"""A small engine budget: the point is that coverage comes, not how much."""


def files_of(root: Path) -> dict[str, bytes]:
    """Every file below `root` but the server's own folder, with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".benchwright" not in p.relative_to(root).parts}


async def test_saving_rtl_of_a_cloned_repository_without_a_testbench_publishes_coverage(
        tmp_path: Path, cache_dir: Path) -> None:
    ws = tmp_path / "apb_gpio"
    shutil.copytree(CLONED, ws)
    before = files_of(ws)
    rtl = ws / "rtl" / "apb_gpio.sv"
    generated = ws / ".benchwright" / "generated" / "apb_gpio" / "tb_apb_gpio.sv"
    session, stop = await start_session(ws, cache_dir, OPTIONS)
    try:
        uri = session.open(rtl)
        await session.diagnostics(uri, version=1, timeout=120)
        session.save(uri)
        status = await session.status_where(lambda s: s["state"] == "generating", timeout=120)
        assert "no testbench Benchwright can run" in status["message"]
        session.save(uri)  # while the engine writes: simulated once the testbench is there, no second engine run
        cov = await session.recorder.next_coverage(1, timeout=300)
        states = [s["state"] for s in session.recorder.status]
        assert states.count("generating") == 1
        assert "simulating" in states[states.index("generating"):]
        assert cov["status"] == "ok", cov
        assert cov["top"] == "apb_gpio"
        assert cov["summary"]["overall"] > 0
        assert cov["version"] == 1
        assert cov["testbenchUri"] == generated.as_uri()
        assert cov["testbenchSource"] == GENERATED_SOURCE
        assert any(f["uri"] == uri for f in cov["files"])
        assert "module" in generated.read_text()
        said = " ".join(m.message for m in session.client.log_messages)
        assert "has no testbench Benchwright can run (looked for" in said
        assert "tb_apb_gpio or apb_gpio_tb" in said
        assert files_of(ws) == before, "the repository itself was written"
        # A later save simulates the generated testbench too.
        statuses = len(session.recorder.status)
        session.save(uri)
        again = await session.recorder.next_coverage(2, timeout=120)
        assert again["status"] == "ok", again
        assert again["testbenchUri"] == generated.as_uri()
        assert again["summary"]["overall"] == cov["summary"]["overall"]
        later = [s["state"] for s in session.recorder.status[statuses:]]
        assert "simulating" in later
        assert "generating" not in later
        assert session.client.messages == []  # nothing failed: no pop-up
        report = await session.command("benchwright.showReport", uri)
        assert "apb_gpio" in report["markdown"]
    finally:
        await stop()


async def test_a_design_the_engine_cannot_write_a_testbench_for_says_why(tmp_path: Path, cache_dir: Path) -> None:
    # Nothing in the workspace declares `missing_core`: no testbench can build, and the user hears why.
    ws = tmp_path / "broken_repo"
    (ws / "rtl").mkdir(parents=True)
    rtl = ws / "rtl" / "wrapper.v"
    rtl.write_text("module wrapper(input clk, input rst, input [7:0] d, output [7:0] q);\n"
                   "  missing_core u_core(.clk(clk), .rst(rst), .d(d), .q(q));\n"
                   "endmodule\n")
    session, stop = await start_session(ws, cache_dir, OPTIONS)
    try:
        uri = session.open(rtl)
        session.save(uri)
        shown = await first_where_message(session, "no coverage for", 240)
        assert shown.type == types.MessageType.Error
        assert "has no testbench Benchwright can run, and the built-in engine could not write one" in shown.message
        assert "Cannot find file containing module: 'missing_core'" in shown.message  # Verilator's words
        assert "benchwright.project.testbench" in shown.message
        assert not list(ws.glob(".benchwright/generated/**/*.sv"))
        session.save(uri)
        await asyncio.sleep(1.0)
        assert [m.message for m in session.client.messages].count(shown.message) == 1, "the same pop-up twice"
    finally:
        await stop()


async def first_where_message(session: Session, text: str, timeout: float) -> types.ShowMessageParams:
    """The first window/showMessage containing `text` (waiting for it)."""
    async def wait() -> types.ShowMessageParams:
        while True:
            found = next((m for m in session.client.messages if text in m.message), None)
            if found is not None:
                return found
            await asyncio.sleep(0.1)

    return await asyncio.wait_for(wait(), timeout)


COUNTER = """module counter(input clk, input rst_n, input en, output reg [3:0] q);
  always @(posedge clk or negedge rst_n)
    if (!rst_n) q <= 4'd0;
    else if (en) q <= q + 4'd1;
endmodule
"""

ICARUS_ONLY_TB = """`timescale 1ns/1ps
`ifndef VERILATOR
module tb_counter;
  reg clk = 0, rst_n = 0, en = 0;
  wire [3:0] q;
  counter dut(.clk(clk), .rst_n(rst_n), .en(en), .q(q));
  always #5 clk = ~clk;
  initial begin #20 rst_n = 1; en = 1; #200 $finish; end
endmodule
`endif
"""
"""A repository testbench for another simulator (picorv32's testbench.v is written this way: its
Verilator bench is C++), so Verilator finds no module in it."""


async def test_a_repository_testbench_that_does_not_build_with_verilator_is_replaced(
        tmp_path: Path, cache_dir: Path) -> None:
    ws = tmp_path / "counter_repo"
    (ws / "rtl").mkdir(parents=True)
    (ws / "tb").mkdir()
    rtl = ws / "rtl" / "counter.v"
    rtl.write_text(COUNTER)
    (ws / "tb" / "tb_counter.v").write_text(ICARUS_ONLY_TB)
    generated = ws / ".benchwright" / "generated" / "counter_repo" / "tb_counter.sv"
    session, stop = await start_session(ws, cache_dir, OPTIONS)
    try:
        uri = session.open(rtl)
        session.save(uri)
        cov = await session.recorder.next_coverage(1, timeout=300)
        assert cov["status"] == "ok", cov
        assert cov["testbenchUri"] == generated.as_uri()
        said = [m.message for m in session.client.log_messages]
        own = "the repository's own testbench (found by name: tb/tb_counter.v) does not build with Verilator"
        assert any(own in m for m in said), said
        # Until tb_counter.v changes, saves simulate the generated testbench straight away.
        session.save(uri)
        again = await session.recorder.next_coverage(2, timeout=120)
        assert again["testbenchUri"] == generated.as_uri()
        assert sum(own in m.message for m in session.client.log_messages) == 1
        assert session.client.messages == []
    finally:
        await stop()
