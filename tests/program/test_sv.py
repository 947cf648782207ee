"""The program testbench: rendered calls read back exactly; SV draws what rng.py draws; the harness runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.heuristic.engine import make_target
from agent.heuristic.moves import program_cycles
from agent.heuristic.stimulus import Clock, Field, Layout, Signal
from agent.program.cocotb import program_py
from agent.program.encode import DATA_FILE, encode
from agent.program.interfaces import recognise
from agent.program.ops import Program, check
from agent.program.rng import random_steps
from agent.program.sv import (
    BEGIN_MARK,
    END_MARK,
    HARNESS_TOP,
    op_sv,
    render_harness,
    render_testbench,
)
from agent.program.sv_ifaces import sweep_registers
from agent.program.sv_read import parse_testbench
from agent.program.target import Target
from agent.program.text import canonical_program, parse_program
from sim.analysis.interface import read_interface
from sim.analysis.write_ports import WritePort
from sim.run.evaluate import SimOptions, build_sv, evaluate_sv
from sim.suite import load_design

DATA = Path(__file__).resolve().parents[1] / "data" / "program"

PORTS = (">clk >rst_n >i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[32] >i_wb_sel[4] <o_wb_ack <o_wb_data[32] "
         ">i_rx <o_tx <mem_valid >mem_ready <mem_addr[16] >mem_rdata[16] >s_tvalid <s_tready >s_tdata[8] >s_tlast "
         "<m_tvalid >m_tready <m_tdata[8] >we >waddr[4] >wdata[8] <busy")


def _target() -> Target:
    signals, fields = [], []
    for item in PORTS.split():
        direction = "input" if item[0] == ">" else "output"
        name, _, width = item[1:].partition("[")
        bits = int(width.rstrip("]") or 1)
        signals.append(Signal(name, direction, bits))
        if direction == "input" and name != "clk":
            fields.append(Field(name, bits, (), False, name == "rst_n", name == "rst_n"))
    layout = Layout("soc", "dut", tuple(fields), (Clock("clk", 5),), tuple(signals))
    table = WritePort("table", "memory", "soc.sv", 1, 16, 8, (("we", 1),), (("we", 0),), "waddr",
                      tuple(range(16)), (("wdata", 0, 8),))
    ifs = recognise(layout, params={"CLKS_PER_BIT": 16}, write_ports=(table,))
    return Target(layout, ifs, {"waddr": (0, 1, 15), "wdata": (0, 0x55, 0xFF)})


EVERY_OP = """\
reset
avoid we=1 waddr=0xf
respond mem fill=random seed=3 latency=2
sink m ready=50 seed=9
fill table pattern=recip seed=4
write table 3 0x5a
bus_write wb 2 0x12345678
bus_read wb 1
bus_read wb 3 strb=0x8
bus_burst wb 0 4 seed=3 bits=32 step=1 gap=9
bus_burst wb 1 2 write=0
send s 3 seed=5 gap=20
serial rx 16 0x55,0x100 parity=odd stop=2
loopback rx
set waddr=2 wdata=0xaa
toggle wdata 7
random 12 0x99 pal=50 keep=10 maxhold=3 resets=5 only=waddr,wdata
corners
walk
repeat 2 {
  hold 3
  wait busy 1 timeout=20
}
"""


def test_every_operation_renders_and_reads_back() -> None:
    t = _target()
    program = parse_program(EVERY_OP)
    check(program, t.scope)
    tb = render_testbench(t, program, title="all", phases=[(0, "the whole thing")])
    assert "module tb_soc;" in tb
    assert "  // the whole thing" in tb
    assert parse_testbench(tb, t) == canonical_program(program)
    # Only what the program uses is in the testbench; everything is in the harness.
    assert "wb_write(" in tb
    assert "s_send(" in tb
    assert "table_fill(" in tb
    harness = render_harness(t)
    assert "$fscanf" in harness
    assert "$fscanf" not in tb
    assert "wb_burst(2'h0, 4, 32'h3, 1'b1, 32, 1, 9);" in tb  # the gap after the step
    assert "wb_burst(2'h1, 2, 32'h1, 1'b0, 8);" in tb  # defaults left out
    assert len(encode(t, program).splitlines()) == 24  # 20 operations, repeat unrolled (+2), two frames (+1)


def test_unused_interfaces_stay_out_of_the_testbench() -> None:
    t = _target()
    tb = render_testbench(t, parse_program("reset\nrandom 10 0x5\n"))
    assert "wb_xfer" not in tb
    assert "bw_mem_on" not in tb
    assert "bw_corners" not in tb
    assert parse_testbench(tb, t) == parse_program("reset\nrandom 10 0x5\n")
    assert parse_testbench(tb.replace("bw_random(", "bw_rnd("), t) is None
    assert parse_testbench("module tb_soc; endmodule", t) is None


def _sweeps(bus: str, regs: tuple[int, ...]) -> str:
    """Every register written, bursts in reverse with consecutive seeds, reads, then a broken run."""
    text = "".join(f"bus_write {bus} {a:#x} 0x19\n" for a in regs)
    text += "".join(f"bus_burst {bus} {a:#x} 2 seed={0x70 + i:#x} bits=16\n" for i, a in reversed(list(enumerate(regs))))
    text += "".join(f"bus_burst {bus} {a:#x} 20 write=0\n" for a in regs)
    return text + "".join(f"bus_read {bus} {a:#x}\n" for a in regs[1:])


def test_the_same_call_on_every_register_is_one_loop() -> None:
    t = _target()
    regs = sweep_registers(t.interfaces.named("wb"))
    program = parse_program("reset\n" + _sweeps("wb", regs))
    tb = render_testbench(t, program)
    assert "localparam logic [1:0] BW_WB_REGS [4] = '{2'h0, 2'h1, 2'h2, 2'h3};" in tb
    loops = [line.strip() for line in tb.splitlines() if "bw_i" in line and "REGS [" not in line]
    assert loops == [
        "foreach (BW_WB_REGS[bw_i]) wb_write(BW_WB_REGS[bw_i], 32'h00000019, 4'hf);",
        "for (int bw_i = 3; bw_i >= 0; bw_i--) wb_burst(BW_WB_REGS[bw_i], 2, 32'h70 + bw_i, 1'b1, 16);  "
        "// random writes",
        "foreach (BW_WB_REGS[bw_i]) wb_burst(BW_WB_REGS[bw_i], 20, 32'h1, 1'b0, 8);  // reads",
    ]
    assert tb.count("wb_read(2'h") == 3  # a run missing a register stays one call per line
    assert parse_testbench(tb, t) == canonical_program(program)
    assert parse_testbench(tb.replace("BW_WB_REGS[bw_i]", "BW_XX_REGS[bw_i]"), t) is None
    # Without a loop the list is not declared.
    assert "BW_WB_REGS" not in render_testbench(t, parse_program("reset\nbus_read wb 0x1\nbus_read wb 0x2\n"))


@pytest.mark.simulator_required
def test_the_testbench_draws_exactly_what_rng_py_draws(tmp_path: Path) -> None:
    design = load_design(DATA / "passthru")
    t, _ = make_target(design, read_interface(design), "heuristic")
    program = parse_program("reset 2\nrandom 16 0xbeef pal=40 keep=20 maxhold=2\n")
    tb = render_testbench(t, program)
    # Print every drawn vector just before its step, then compare with the Python replay.
    tb = tb.replace("    bw_step(bw_maxhold > 1", '    $display("v %h %h %h", en, a, w);\n    bw_step(bw_maxhold > 1')
    result = evaluate_sv(design, tb, options=SimOptions(), run_dir=tmp_path / "run")
    assert result.status.value == "ok", result.detail
    seen = [tuple(int(x, 16) for x in m.groups())
            for m in re.finditer(r"^v ([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+)$", result.log_tail, re.M)]
    names = [f.name for f in t.fields]
    op = program.ops[1]
    steps = random_steps(t.draw_fields(), [f.idle for f in t.fields], cycles=16, seed=op.num("seed"),
                         pal=op.num("pal"), keep=op.num("keep"), maxhold=op.num("maxhold"), resets=0,
                         only=[not f.reset for f in t.fields], asserted=[f.asserted for f in t.fields],
                         idle=[f.idle for f in t.fields])
    expected = [tuple(v[names.index(n)] for n in ("en", "a", "w")) for v, _ in steps]
    assert seen == expected


@pytest.mark.simulator_required
def test_random_without_a_palette_share_still_builds(tmp_path: Path) -> None:
    # bw_random names the palettes whatever its share; a testbench must carry them.
    design = load_design(DATA / "passthru")
    t, _ = make_target(design, read_interface(design), "heuristic")
    assert any(t.palette(f) for f in t.fields)
    result = evaluate_sv(design, render_testbench(t, parse_program("reset\nrandom 16 0x5 pal=0\n")),
                         options=SimOptions(), run_dir=tmp_path / "run")
    assert result.status.value == "ok", result.detail


@pytest.mark.simulator_required
@pytest.mark.parametrize("name", ["uart_rx", "tiny_cpu", "vr_sink"])
def test_harness_and_testbench_cover_the_same(name: str) -> None:
    design = load_design(DATA / name)
    t, _ = make_target(design, read_interface(design), "heuristic")
    scope = t.scope
    ops = ["reset", "random 50 0x3 pal=40", "repeat 3 {", "  random 5 0x7", "  hold 2 grow=3", "}"]
    if scope.has("serial"):
        ops.append(f"serial {scope.names['serial'][0]} 16 0x5a,0xc3")
    if scope.has("responder"):
        ops += ["respond mem seed=5", "hold 300"]
    if scope.has("sink"):
        ops += ["set go=1 len=5", "sink m ready=60 seed=2", "hold 30"]
    program = parse_program("\n".join(ops) + "\n")
    check(program, scope)
    built = build_sv(design, render_harness(t), tb_name=f"{HARNESS_TOP}.sv")
    assert not hasattr(built, "status"), getattr(built, "detail", "")
    harness = built.run({DATA_FILE: encode(t, program)})
    alone = evaluate_sv(design, render_testbench(t, program))
    assert harness.status.value == alone.status.value == "ok", (harness.detail, alone.detail)
    assert harness.coverage is not None
    assert alone.coverage is not None
    assert harness.coverage.metrics == alone.coverage.metrics
    assert Program(program.ops) == program


@pytest.mark.simulator_required
def test_byte_registers_on_lanes_are_reached_by_their_byte_addresses(tmp_path: Path) -> None:
    # A 16550 on a 32-bit Wishbone bus picks its byte register by a one-hot sel: the netlist's
    # case on sel makes the bus one of byte lanes, and byte addresses 0-3 reach the four
    # registers. Read as a plain byte-enable bus, every lane set reaches none of them.
    design = load_design(DATA / "byte_lanes")
    iface = read_interface(design)
    t, _ = make_target(design, iface, "heuristic")
    assert t.interfaces.named("wb").byte_lanes == 4
    plain = Target(t.layout, recognise(t.layout), t.palettes)
    assert plain.interfaces.named("wb").byte_lanes == 0

    def read_arms_missed(target: Target, program: Program, run: str) -> set[int]:
        result = evaluate_sv(design, render_testbench(target, program), run_dir=tmp_path / run)
        assert result.status.value == "ok", result.detail
        assert result.coverage is not None
        lines = {u.line for u in result.uncovered if u.kind == "line"}
        return lines & {41, 42, 43, 44}  # the four read arms

    by_address = parse_program("reset\n" + "".join(f"bus_write wb {k} 0x{0x11 * (k + 1):x}\nbus_read wb {k}\n"
                                                    for k in range(4)))
    rendered = render_testbench(t, by_address)
    assert "wb_write(3'h3, 8'h44);" in rendered  # a byte register: no lanes to name
    assert parse_testbench(rendered, t) == canonical_program(by_address)
    assert read_arms_missed(t, by_address, "lanes") == set()
    # an explicit strobe still drives exactly that sel
    explicit = parse_program("reset\n" + "".join(f"bus_read wb 0 strb={1 << k}\n" for k in range(4)))
    assert read_arms_missed(t, explicit, "explicit") == set()
    assert read_arms_missed(plain, parse_program("reset\n" + "bus_read wb 0\n" * 4), "plain") == {41, 42, 43, 44}


@pytest.mark.simulator_required
def test_register_loops_cover_what_the_calls_cover(tmp_path: Path) -> None:
    # The loops are only a shorter way to write the same transactions: Verilator compiles
    # them and the design sees exactly what one call per line gives it.
    design = load_design(DATA / "byte_lanes")
    t, _ = make_target(design, read_interface(design), "heuristic")
    program = parse_program("reset\n" + _sweeps("wb", sweep_registers(t.interfaces.named("wb"))))
    looped = render_testbench(t, program)
    assert looped.count("bw_i]) ") == 2
    head, rest = looped.split(BEGIN_MARK)
    calls = "\n".join(f"    {op_sv(t, o)}" for o in program.ops)
    unrolled = f"{head}{BEGIN_MARK}\n{calls}\n    {END_MARK}{rest.split(END_MARK)[1]}"
    assert "bw_i]) " not in unrolled

    def covered(tb: str, run: str) -> tuple[int, ...]:
        result = evaluate_sv(design, tb, run_dir=tmp_path / run)
        assert result.status.value == "ok", result.detail
        assert result.coverage is not None
        return tuple(m.covered for m in result.coverage.metrics.values())

    assert covered(looped, "looped") == covered(unrolled, "unrolled")


def test_an_opening_programs_share_is_one_task_and_reads_back() -> None:
    # Three programs open with the same four writes after their reset, a fourth with only two
    # of them: the four writes become one task the three call; the program reads back whole.
    opening = "bus_write wb 0x3 0x83\nbus_write wb 0x0 0x1\nbus_write wb 0x1 0x0\nbus_write wb 0x3 0x3\n"
    text = "".join(f"reset\n{opening}random 5 {seed:#x}\n" for seed in (1, 2, 3))
    text += "reset\nbus_write wb 0x3 0x83\nbus_write wb 0x0 0x1\nhold 4\n"
    t = _target()
    program = parse_program(text)
    tb = render_testbench(t, program)
    assert tb.count("task automatic bw_setup_1();") == 1
    assert "bw_setup_2" not in tb  # two shared writes are not worth a task
    calls = [line.strip() for line in tb.splitlines() if line.strip() == "bw_setup_1();"]
    assert len(calls) == 3
    assert tb.count("wb_write(2'h0, 32'h00000001, 4'hf);") == 2  # in the task, and in the fourth program
    assert parse_testbench(tb, t) == canonical_program(program)
    assert parse_testbench(tb.replace("task automatic bw_setup_1();", "task automatic bw_setup_9();"), t) is None


@pytest.mark.simulator_required
def test_a_shared_opening_covers_what_the_repeated_statements_cover(tmp_path: Path) -> None:
    design = load_design(DATA / "byte_lanes")
    t, _ = make_target(design, read_interface(design), "heuristic")
    opening = "bus_write wb 0x0 0x11\nbus_write wb 0x1 0x21\nbus_write wb 0x2 0x42\nbus_write wb 0x3 0x84\nbus_read wb 0x2\n"
    program = parse_program("".join(f"reset\n{opening}random 20 {seed:#x}\n" for seed in (5, 6)))
    shared = render_testbench(t, program)
    assert "bw_setup_1();" in shared
    head, rest = shared.split(BEGIN_MARK)
    calls = "\n".join(f"    {op_sv(t, o)}" for o in program.ops)
    repeated = f"{head}{BEGIN_MARK}\n{calls}\n    {END_MARK}{rest.split(END_MARK)[1]}"

    def covered(tb: str, run: str) -> tuple[int, ...]:
        result = evaluate_sv(design, tb, run_dir=tmp_path / run)
        assert result.status.value == "ok", result.detail
        assert result.coverage is not None
        return tuple(m.covered for m in result.coverage.metrics.values())

    assert covered(shared, "shared") == covered(repeated, "repeated")


def test_a_hold_after_an_operation_joins_its_line_and_reads_back() -> None:
    t = _target()
    text = ("reset\nhold 5\nserial rx 16 0x55,0xa5\nhold 500\nbus_burst wb 0x1 4 seed=0x7 bits=8\nhold 20\n"
            "set waddr=2\nhold 10\nbus_read wb 0x2\nhold 30\nrandom 50 0x9\nhold 2000\nwait busy 1 timeout=20\nhold 7\n"
            "loopback rx\nhold 3\nrandom 5 0x1\nhold 4\n")
    program = parse_program(text)
    tb = render_testbench(t, program, phases=[(0, "first"), (16, "second")])
    body = [line.strip() for line in tb.split(BEGIN_MARK)[1].split(END_MARK)[0].splitlines() if line.strip()]
    assert body == [
        "// first",
        "bw_reset(3);",
        "bw_step(5);",  # a reset keeps its line: a hold after it is the time it lets settle
        "rx_send(16, 9'h055, 0, 1); rx_send(16, 9'h0a5, 0, 1); bw_step(500);",
        "wb_burst(2'h1, 4, 32'h7, 1'b1, 8); bw_step(20);  // random writes",
        "waddr = 4'h2; bw_step(10);",
        "wb_read(2'h2);",  # a read keeps its line (a checked read is matched line by line)
        "bw_step(30);",
        "bw_random(50, 32'h9, 40, 30, 1, 0, 17'b11111111111111110); bw_step(2000);",
        "for (int t = 0; t < 20 && busy != 1'h1; t++) bw_step(1);",
        "bw_step(7);",
        "bw_rx_lb = 1'b1; bw_step(3);  // loopback",
        "// second",
        "bw_random(5, 32'h1, 40, 30, 1, 0, 17'b11111111111111110); bw_step(4);",
    ]
    assert parse_testbench(tb, t) == canonical_program(program)
    # A hold joined to a statement that never takes one is not a testbench this module wrote.
    assert parse_testbench(tb.replace("bw_step(5);", "bw_reset(3); bw_step(5);", 1), t) is None
    # A phase that starts at the hold keeps it on its own line, after the phase's comment.
    split = render_testbench(t, program, phases=[(0, "first"), (17, "second")])
    assert "bw_random(5, 32'h1, 40, 30, 1, 0, 17'b11111111111111110);\n    // second\n    bw_step(4);" in split
    assert parse_testbench(split, t) == canonical_program(program)


def test_a_growing_hold_waits_longer_on_each_pass_in_every_form() -> None:
    t = _target()
    program = parse_program("reset\nrepeat 3 {\n  bus_write wb 0x3 0x5\n  hold 10 grow=2\n  repeat 2 {\n"
                            "    hold 4 grow=1\n  }\n}\nhold 7 grow=3\n")
    check(program, t.scope)
    tb = render_testbench(t, program)
    assert "for (int bw_p1 = 0; bw_p1 < 3; bw_p1++) begin" in tb
    assert "wb_write(2'h3, 32'h00000005, 4'hf); bw_step(10 + 2 * bw_p1);" in tb
    assert "for (int bw_p2 = 0; bw_p2 < 2; bw_p2++) begin" in tb
    assert "bw_step(4 + 1 * bw_p2);" in tb
    # Outside a repeat a hold is its first pass: it reads back without its grow.
    assert parse_testbench(tb, t) == canonical_program(program)
    assert canonical_program(program).ops[-1] == parse_program("hold 7\n").ops[0]
    # The search's data file unrolls the passes: 10, 12, 14 around 4, 5 each time.
    holds = [line.split()[1] for line in encode(t, program).splitlines() if line.startswith("2 ")]
    assert holds == ["10", "4", "5", "12", "4", "5", "14", "4", "5", "7"]
    assert program_cycles(t, program) == 4 + 3 * (8 + 10 + 2 * 4) + 2 * 3 + 3 * 1 + 7
    py = "\n".join(program_py(t, program.ops))
    assert "for bw_p1 in range(3):" in py
    assert "await bw.hold(10 + 2 * bw_p1)" in py
    assert "await bw.hold(4 + 1 * bw_p2)" in py
