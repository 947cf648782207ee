"""Testbenches that check: recorded output signatures per phase, `benchwright check`, kills by own checks.

With real Verilator on tests/data/program/ahb_regs (an AHB-Lite register file, Apache-2.0).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from agent.check_cli import check_main
from agent.heuristic.engine import run_engine
from agent.policy import Budget
from agent.program.sv_checks import summary
from sim.mutation.testbench import analyse_sv
from sim.run.evaluate import evaluate_sv
from sim.suite import load_design
from sim.types import Status

DATA = Path(__file__).resolve().parents[1] / "data" / "program"

pytestmark = pytest.mark.simulator_required

KEY = "hwdata_i == 32'h600DCAFE"
"""The key compare of ahb_regs, which the test edits as a user would."""


@pytest.fixture
def design_copy(tmp_path: Path) -> Path:
    root = tmp_path / "ahb_regs"
    shutil.copytree(DATA / "ahb_regs", root)
    return root


def test_the_kept_testbench_checks_every_output_and_fails_after_a_behaviour_change(
        design_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    design = load_design(design_copy)
    tb, rep = run_engine(design, strategy="heuristic", budget=Budget(30, time.monotonic() + 300), seed=0)
    assert rep.final is not None
    assert rep.final.status == Status.OK, rep.final.detail
    assert "BW_EXPECT" in tb
    assert "bw_checks_done();" in tb
    assert "BW-CHECKS" in rep.final.log_tail
    assert " 0 mismatches" in rep.final.log_tail
    kept = tmp_path / "tb_ahb_regs.sv"
    kept.write_text(tb)
    assert check_main([str(design_copy), "--tb", str(kept)]) == 0
    assert "0 mismatches" in capsys.readouterr().out

    # The same stimulus on edited RTL: the key compare moves by one, so `unlocked` never rises.
    rtl = design_copy / "rtl" / "ahb_regs.sv"
    rtl.write_text(rtl.read_text().replace(KEY, "hwdata_i == 32'h600DCAFF"))
    edited = evaluate_sv(load_design(design_copy), tb)
    # Under Benchwright the run finishes (coverage is kept); the check lines are the verdict.
    assert edited.status == Status.OK
    assert edited.coverage is not None
    assert "output unlocked differs from the recorded run" in edited.log_tail
    # ... with its value at the phase's end beside the recorded one (1 bit: 0 now, 1 recorded)
    assert "at the phase's end 00000000, the recorded run 00000001" in edited.log_tail
    counted = summary(edited.log_tail)
    assert counted is not None
    assert counted[1] >= 1  # (checks, mismatches)
    assert check_main([str(design_copy), "--tb", str(kept), "--json"]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["mismatches"] >= 1
    assert not verdict["passed"]
    assert any("unlocked" in line for line in verdict["first"])


def test_check_says_what_is_missing(design_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert check_main([str(design_copy)]) == 2
    assert "no kept testbench" in capsys.readouterr().err
    plain = tmp_path / "tb_plain.sv"
    plain.write_text("module tb_plain; ahb_regs dut(.*); logic clk = 0, rst_n = 0, hsel_i = 0, hwrite_i = 0, "
                     "hready_i = 1; logic [7:0] haddr_i = 0; logic [1:0] htrans_i = 0; logic [2:0] hsize_i = 0; "
                     "logic [31:0] hwdata_i = 0, hrdata_o; logic hreadyout_o, hresp_o, unlocked, lane2_seen; "
                     "initial begin #20 $finish; end endmodule\n")
    assert check_main([str(design_copy), "--tb", str(plain)]) == 1  # ran, but it checks nothing
    assert "no checks in this testbench" in capsys.readouterr().out


def test_mutants_are_killed_by_the_testbenchs_own_checks(design_copy: Path) -> None:
    design = load_design(design_copy)
    tb, _rep = run_engine(design, strategy="heuristic", budget=Budget(20, time.monotonic() + 300), seed=0)
    assert "BW_EXPECT" in tb
    checked = analyse_sv(design, tb, cap=12)
    assert not checked.error, checked.error
    assert len(checked.failed_runs) >= len(checked.killed) // 2 > 0
    # The same stimulus without checks notices nothing itself: only the differential comparison does.
    from agent.heuristic.engine import make_target
    from agent.program.sv import render_testbench
    from agent.program.sv_read import parse_testbench
    from sim.analysis.interface import read_interface

    target, _hints = make_target(design, read_interface(design), "heuristic")
    program = parse_testbench(tb, target)
    assert program is not None
    plain = analyse_sv(design, render_testbench(target, program), cap=12)
    assert plain.failed_runs == ()
    assert len(plain.killed) > 0


def test_protocol_checkers_report_the_handshake_rules_a_design_breaks(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from agent.cli import run_main
    from agent.heuristic.engine import make_target
    from agent.program import sv_checks as chk
    from agent.program.ops import check
    from agent.program.sv import render_testbench
    from agent.program.sv_monitors import parse_findings
    from agent.program.text import parse_program
    from sim.analysis.interface import read_interface

    # bad_stream (Apache-2.0, tests/data/program) moves its payload while it waits for ready, and
    # with `hurry` withdraws valid after three cycles of back-pressure.
    programs = {"bad_stream": "reset\nset go=1 len=8 hurry=1\nsink m ready=20 seed=3\nhold 400\n",
                "vr_sink": "reset\nset go=1 len=8\nsink m ready=20 seed=3\nhold 400\n"}
    findings = {}
    for name, text in programs.items():
        design = load_design(DATA / name)
        target, _hints = make_target(design, read_interface(design), "heuristic")
        program = parse_program(text)
        check(program, target.scope)
        result = evaluate_sv(design, render_testbench(target, program, checks=chk.plan(target)))
        assert result.status == Status.OK, result.detail
        findings[name] = parse_findings(result.log_tail)
    rules = {f.rule for f in findings["bad_stream"]}
    assert rules == {"m_valid withdrawn before m_ready", "m_data/m_last changed while m_valid && !m_ready"}
    assert all(f.port == "m_valid" and f.count > 0 and f.first_ns > 0 for f in findings["bad_stream"])
    assert findings["vr_sink"] == []  # a correct source breaks nothing

    out = tmp_path / "run"
    assert run_main([str(DATA / "bad_stream"), "--rounds", "0", "--sim-calls", "12", "--json", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert any(f["rule"].startswith("m_data/m_last changed") for f in data["findings"])
    assert "## Findings" in (out / "report.md").read_text()



# stream_wire (Apache-2.0, tests/data/program) passes s_* to m_* by wires; with `bad` high it
# scrambles m_data with a counter. (program, rules expected)
WIRED_STREAM = [
    # the testbench itself moves s_data and drops s_valid while s_ready is low: m_* only follows
    ("reset\nsink m ready=20 seed=3\nset s_valid=1 s_data=1\nhold 4\nset s_data=2\nhold 4\nset s_valid=0\n"
     "hold 4\nset s_valid=1 s_data=3\nhold 4\nset s_data=9\nhold 4\nset s_valid=0\nhold 20\n", set()),
    # a lawful source (held until taken), and the design's own breach
    ("reset\nset bad=1\nsink m ready=20 seed=3\nsend s beats=8 seed=2\nhold 100\n",
     {"m_data/m_last changed while m_valid && !m_ready"}),
]


@pytest.mark.parametrize(("text", "broken"), WIRED_STREAM, ids=["testbench-breach", "design-breach"])
def test_a_stream_checker_blames_the_design_only_for_its_own_breaches(text: str, broken: set[str]) -> None:
    from agent.heuristic.engine import make_target
    from agent.program import sv_checks as chk
    from agent.program.ops import check
    from agent.program.sv import render_testbench
    from agent.program.sv_monitors import parse_findings
    from agent.program.text import parse_program
    from sim.analysis.interface import read_interface

    design = load_design(DATA / "stream_wire")
    target, _hints = make_target(design, read_interface(design), "heuristic")
    program = parse_program(text)
    check(program, target.scope)
    result = evaluate_sv(design, render_testbench(target, program, checks=chk.plan(target)))
    assert result.status == Status.OK, result.detail
    assert {f.rule for f in parse_findings(result.log_tail)} == broken


# Requesters with a `bad` input (Apache-2.0, tests/data/program): correct while it is low, and
# breaking their bus's rule once it is high. (design, interface, latency of the responder, the
# rules broken; the Wishbone classic and AXI4 rules have their own tests above and in
# test_engine_protocols_sim.py).
RULE_BREAKERS = [
    ("bad_wb", "wb", 2, {"o_wb_addr/o_wb_we/o_wb_data/o_wb_sel changed while o_wb_stb && i_wb_stall"}),
    ("bad_ahb", "ahb", 2, {"address phase changed while HREADY was low"}),
    ("bad_mem", "mem", 5, {"mem_valid withdrawn before mem_ready",
                           "mem_addr/mem_wdata/mem_wstrb changed while mem_valid && !mem_ready"}),
]


@pytest.mark.parametrize(("name", "iface", "latency", "broken"), RULE_BREAKERS, ids=[r[0] for r in RULE_BREAKERS])
def test_each_bus_rule_is_reported_with_its_time_and_a_correct_requester_is_not(
        name: str, iface: str, latency: int, broken: set[str]) -> None:
    from agent.heuristic.engine import make_target
    from agent.program import sv_checks as chk
    from agent.program.ops import check
    from agent.program.sv import render_testbench
    from agent.program.sv_monitors import parse_findings
    from agent.program.text import parse_program
    from sim.analysis.interface import read_interface

    design = load_design(DATA / name)
    target, _hints = make_target(design, read_interface(design), "heuristic")
    # 300 correct clocks with a responder that makes the requester wait, then 300 with the bug
    program = parse_program(f"reset\nrespond {iface} fill=random latency={latency} seed=5\n"
                            "set go=1 bad=0\nhold 300\nset bad=1\nhold 300\n")
    check(program, target.scope)
    result = evaluate_sv(design, render_testbench(target, program, checks=chk.plan(target)))
    assert result.status == Status.OK, result.detail
    findings = parse_findings(result.log_tail)
    assert {f.rule for f in findings} == broken
    period_ns = 2 * target.layout.clocks[0].half_period
    for f in findings:
        assert f.interface == iface
        assert f.count > 0
        assert 300 * period_ns < f.first_ns < 320 * period_ns  # after `bad` rose, not while the requester was correct

def test_each_top_level_read_carries_its_recorded_data_and_a_changed_read_names_itself(
        design_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Reads of the program's top level are written with the data they returned in the recorded
    # run (`ahb_read_is(addr, k, expected)`); an RTL edit that changes what one register reads
    # back fails that read by number, address, got and expected; `check --accept` records the
    # new data into the same calls, and the testbench reads back as the same program.
    from agent.heuristic.engine import make_target, with_checks
    from agent.program.sv import render_testbench
    from agent.program.sv_read import parse_testbench
    from agent.program.text import parse_program
    from sim.analysis.interface import read_interface
    from sim.run.evaluate import SimOptions

    design = load_design(design_copy)
    target, _hints = make_target(design, read_interface(design), "heuristic")
    from agent.program.sv_ifaces import sweep_registers

    # ... and a read of every register of the bus's list, one loop with its data beside it.
    regs = sweep_registers(target.interfaces.named("ahb"))
    assert regs[:3] == (0x0, 0x4, 0x8)
    program = parse_program("reset\nbus_write ahb 0x4 0x12345678\nbus_write ahb 0x8 0xcafe\nbus_read ahb 0x4\n"
                            "bus_read ahb 0x8\nrepeat 2 {\n  bus_read ahb 0x4\n}\n"
                            + "".join(f"bus_read ahb {a:#x}\n" for a in regs) + "hold 4\n")

    def render(checks):  # type: ignore[no-untyped-def]
        return render_testbench(target, program, phases=((0, "one phase"),), checks=checks)

    tb, rec, note = with_checks(design, render, target, 1, SimOptions())
    assert not note, note
    assert rec is not None
    assert "ahb_read_is(8'h04, 0, 32'h12345678);" in tb
    assert "ahb_read_is(8'h08, 1, 32'h0000cafe);" in tb
    assert tb.count("_read_is(8'h") == 2  # the read inside `repeat` stays a plain call
    assert "ahb_sweep_is(2, '{32'h00000000, 32'h12345678, 32'h0000cafe, " in tb, tb
    assert parse_testbench(tb, target) is not None
    kept = tmp_path / "tb_ahb_regs.sv"
    kept.write_text(tb)
    assert check_main([str(design_copy), "--tb", str(kept)]) == 0
    capsys.readouterr()
    # Register 2 (0x8) now reads back inverted.
    rtl = design_copy / "rtl" / "ahb_regs.sv"
    rtl.write_text(rtl.read_text().replace("assign hrdata_o = regs[d_addr[4:2]];",
                                           "assign hrdata_o = d_addr[4:2] == 3'd2 ? ~regs[2] : regs[d_addr[4:2]];"))
    assert check_main([str(design_copy), "--tb", str(kept), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    text = json.dumps(report)
    assert "read 2: ahb_read(08) returned ffff3501, the recorded run 0000cafe" in text, text
    assert "read 5: ahb_read(08) returned ffff3501, the recorded run 0000cafe" in text, text  # in the sweep
    assert check_main([str(design_copy), "--tb", str(kept), "--accept"]) == 0
    accepted = kept.read_text()
    assert "ahb_read_is(8'h08, 1, 32'hffff3501);" in accepted
    assert "ahb_read_is(8'h04, 0, 32'h12345678);" in accepted
    assert "ahb_sweep_is(2, '{32'h00000000, 32'h12345678, 32'hffff3501, " in accepted
    assert parse_testbench(accepted, target) == parse_testbench(tb, target)
    capsys.readouterr()
    assert check_main([str(design_copy), "--tb", str(kept)]) == 0


def test_the_cocotb_test_carries_recorded_checks_and_fails_after_a_behaviour_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agent.cli import run_main
    from agent.program.sv_checks import mismatches
    from agent.program.sv_checks import summary as check_summary
    from sim.run.cocotb import evaluate_cocotb

    # `--cocotb` records what the outputs did during each operation and writes it into the
    # test beside the calls; the written test passes on the design as it is ...
    example = Path(__file__).resolve().parents[2] / "examples" / "traffic_light"
    root = tmp_path / "traffic_light"
    shutil.copytree(example, root)
    out = tmp_path / "run"
    assert run_main([str(root), "--rounds", "0", "--sim-calls", "30", "--cocotb", "--json", "--out", str(out)]) == 0
    cocotb = json.loads(capsys.readouterr().out)["cocotb"]
    assert cocotb["status"] == "ok", cocotb
    assert cocotb["checks"] > 5
    assert cocotb["mismatches"] == 0
    text = (out / "test_traffic_light.py").read_text()
    assert "EXPECTED = (  # recorded by Benchwright" in text
    assert "checks.after(" in text

    # ... and fails, naming the first operation whose outputs differ, once a timer step changes.
    rtl = root / "rtl" / "traffic_light.sv"
    rtl.write_text(rtl.read_text().replace("timer <= timer + step;", "timer <= timer + step + 1'b1;"))
    assert "step + 1'b1" in rtl.read_text()
    changed = evaluate_cocotb(load_design(root), "test_traffic_light", {"test_traffic_light.py": text})
    assert changed.status is Status.RUNTIME_ERROR, changed.detail
    counted = check_summary(changed.log_tail)
    assert counted is not None
    assert counted[1] > 0
    assert mismatches(changed.log_tail)[0].startswith("operation ")


def test_a_combinational_designs_testbench_checks_its_outputs_too() -> None:
    # No clock to sample on: outputs are folded halfway between two input changes, so a design
    # without a clock gets checks like any other and its mutants fail the testbench itself.
    design = load_design(DATA / "comb_alu")
    tb, rep = run_engine(design, strategy="heuristic", budget=Budget(20, time.monotonic() + 300), seed=0)
    assert "BW_EXPECT" in tb
    assert rep.final is not None
    counted = summary(rep.final.log_tail)
    assert counted is not None
    assert counted[0] > 0
    assert counted[1] == 0
    checked = analyse_sv(design, tb, cap=12)
    assert not checked.error, checked.error
    assert len(checked.killed) > 0
    assert set(checked.failed_runs) == set(checked.killed)  # every mutant the stimulus reveals, its checks notice


def test_an_unpacked_array_output_is_checked_element_by_element() -> None:
    # array_out (Apache-2.0): a shift register's taps are an unpacked array output; a mutant that
    # changes only the taps fails the testbench itself.
    design = load_design(DATA / "array_out")
    tb, rep = run_engine(design, strategy="heuristic", budget=Budget(15, time.monotonic() + 300), seed=0)
    assert "foreach (taps[bw_d0])" in tb
    assert rep.final is not None
    counted = summary(rep.final.log_tail)
    assert counted is not None
    assert counted[1] == 0
    checked = analyse_sv(design, tb, cap=12)
    assert not checked.error, checked.error
    assert len(checked.killed) > 0
    assert set(checked.failed_runs) == set(checked.killed)
