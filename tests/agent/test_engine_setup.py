"""Write-then-use phases, expression-term steering and spec literals (pure, no simulator)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from port_layouts import layout

from agent.heuristic import banked_divisor as bd
from agent.heuristic import collisions as co
from agent.heuristic import long_rest as lr
from agent.heuristic import moves
from agent.heuristic import scenario_parts as sp
from agent.heuristic import scenarios as sc
from agent.heuristic import steer as sr
from agent.heuristic.spec_hints import literals, mine_spec
from agent.heuristic.stimulus import Clock, Field, Hints, Layout, Signal
from agent.program import sv_ifaces
from agent.program.interfaces import recognise
from agent.program.isa import MAJOR_OPCODES, PROLOGUE_CSRS
from agent.program.ops import IDIOMS, Program, check, op
from agent.program.target import ROUGH_LATENCY, Target
from sim.analysis.expr_points import split_terms
from sim.analysis.write_ports import WritePort

REPO = Path(__file__).resolve().parents[2]

LAYOUT = Layout(
    top="unit", instance="dut",
    fields=(Field("rst_n", 1, reset=True, active_low=True), Field("cfg_we", 1), Field("cfg_addr", 9),
            Field("cfg_wdata", 16), Field("valid_in", 1), Field("r", 8)),
)
TABLE = WritePort("table", "memory", "unit.sv", 10, depth=4, width=16, enable=(("cfg_we", 1),),
                  idle=(("cfg_we", 0),), address="cfg_addr", addresses=(0, 1, 2, 3), data=(("cfg_wdata", 0, 16),))
CONTROL = WritePort("enable", "register", "unit.sv", 20, depth=1, width=1, enable=(("cfg_we", 1),),
                    idle=(("cfg_we", 0),), address="cfg_addr", addresses=(0x100,), data=(("cfg_wdata", 0, 1),))


def _target() -> Target:
    ports = (Signal("clk", "input", 1), *(Signal(f.name, "input", f.width) for f in LAYOUT.fields),
             Signal("y", "output", 16))
    unit = Layout(LAYOUT.top, LAYOUT.instance, LAYOUT.fields, (Clock("clk", 5),), ports)
    return Target(unit, recognise(unit, write_ports=(CONTROL, TABLE)), {"r": (0, 7, 0xFF)})


def test_setup_scenario_writes_tables_then_registers_then_streams_with_writes_idle() -> None:
    t = _target()
    assert [n for n, _ in t.interfaces.ports] == ["enable", "table"]
    scenarios = dict(sc.scenarios(random.Random(1), t, Hints(palettes=t.palettes)))
    setup = scenarios["setup"]
    check(setup, t.scope)
    fills = [o.word("port") for o in setup.ops if o.name == "fill"]
    assert fills == ["table", "enable"]  # tables first: an enable often has to come last
    datapath = setup.ops[-1]
    assert datapath.name == "random"
    assert "cfg_we" not in datapath.get("only")
    assert "valid_in" in datapath.get("only")


def test_the_fill_patterns_span_the_range_and_flip_every_bit() -> None:
    lines = "\n".join(sv_ifaces.pattern_function())
    for pattern in ("ramp", "down", "recip", "checker"):
        assert sv_ifaces.PATTERN_CODES[pattern] in range(8)
    assert "{BW_W{2'b01}}" in lines
    assert "(bw_m + 1) / (bw_k + 1)" in lines


def test_steering_sets_the_operands_an_expression_point_asks_for() -> None:
    t = _target()
    hints = Hints(palettes={f.name: () for f in LAYOUT.fields}, combos=((("valid_in", 1, 1), ("r", 0xF0, 0xA0)),))
    ops = moves.gen_steer(random.Random(3), t, hints)
    sets = [dict(o.args) for o in ops if o.name == "set"]
    assert sets
    assert any(s.get("valid_in") == 1 and s.get("r", 0) & 0xF0 == 0xA0 for s in sets)


@pytest.mark.parametrize(("comment", "combo"), [
    ("(enable[0]==1 && (ss[3:0] == 32'sh9)==1) => 1", (("enable", 1, 1), ("ss", 0xF, 9))),
    ("((ss[3:0] == 32'sh9)==0) => 0", (("ss", 0xF, 8),)),
    ("(enable[1]==0) => 0", (("enable", 2, 0),)),
    ("((ss[7:4] == 4'h5)==1) => 1", (("ss", 0xF0, 0x50),)),
    ("((ss < 8'h10)==1) => 1", (("ss", 0xFF, 0x0F),)),
])
def test_expression_points_become_operand_combinations(comment: str, combo: tuple[tuple[str, int, int], ...]) -> None:
    fields = {"enable": Field("enable", 2), "ss": Field("ss", 8)}
    got, upstream = sr.expr_wants(comment, fields, {})
    assert got == combo
    assert upstream == ()


def test_expression_terms_on_registers_steer_their_upstream_inputs() -> None:
    fields = {"valid_in": Field("valid_in", 1), "r": Field("r", 8)}
    combo, upstream = sr.expr_wants("(valid_in==1 && (recip2 != 16'h0)==1) => 1", fields,
                                    {"recip2": ("cfg_wdata", "r")})
    assert combo == (("valid_in", 1, 1),)
    assert upstream == ("cfg_wdata", "r")
    assert split_terms("if") == []


def test_spec_literals_go_to_the_fields_named_beside_them() -> None:
    text = (REPO / "examples" / "recip_pipeline" / "spec" / "recip_pipeline.md").read_text()
    fields = [Field("rst_n", 1, reset=True), Field("cfg_addr", 9), Field("cfg_wdata", 16), Field("valid_in", 1)]
    spec = mine_spec(text, fields)
    # The register-map rows name no port: their addresses are shared values.
    assert {0x100, 0x101, 0x0FF} <= set(spec.shared)
    assert literals("set prescale to 4 and mode 4'b1010, key 0xA5", decimals=True) == [4, 0b1010, 0xA5]
    assert literals("three cycles, 16 entries", decimals=False) == []
    named = mine_spec("write 8'hA5 to cfg_wdata, then 12 to cfg_addr", fields)
    assert named.per_field == {"cfg_wdata": (0xA5, 12), "cfg_addr": (0xA5, 12)}


PUBLIC_SUITE = REPO.parent / "shared" / "benchmarks" / "public"


@pytest.mark.skipif(not PUBLIC_SUITE.is_dir(), reason=f"the public suite is not at {PUBLIC_SUITE}: cannot check "
                    "that the engine split covers it")
def test_split_covers_the_public_suite_exactly() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import engine_split

    split = engine_split.load_split()
    names = {p.name for p in PUBLIC_SUITE.iterdir() if (p / "design.toml").is_file()}
    assert set(split["tune"]) | set(split["validation"]) == names


def test_split_is_fixed_and_disjoint_and_scored() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import engine_split

    split = engine_split.load_split()
    assert len(split["tune"]) == len(split["validation"]) == 27
    assert not set(split["tune"]) & set(split["validation"])
    rows = {"a": {"sim_pass": True, "cov_pass": True, "overall": 96.0, "metrics": {"expr": 90.0}, "target": 98.0},
            "b": {"sim_pass": False, "cov_pass": False, "overall": 50.0, "metrics": {}}}
    rnd = {"a": {"sim_pass": True, "cov_pass": False, "overall": 80.0, "metrics": {}},
           "b": {"sim_pass": True, "cov_pass": False, "overall": 60.0, "metrics": {}}}
    half = engine_split.half_summary(rows, ["a", "b", "c"])
    assert (half["n"], half["cov_pass"], half["avg_cov"], half["missing"]) == (2, 50.0, 48.0, ["c"])
    mg = engine_split.margin(rows, rnd, ["a", "b"])
    assert mg == {"points": -22.0, "share_of_gap": -0.733, "n": 2}
    assert engine_split.below_best(rows, [rnd], ["a", "b"]) == [{"name": "b", "after": 0.0, "best_other": 60.0}]
    reach = engine_split.reachable_row(rows["a"], 3, {"line": 100.0, "expr": 95.0, "overall": 97.5})
    assert (reach["dead_points"], reach["reachable_overall"], reach["reachable_pass"]) == (3, 97.5, False)
    assert reach["reachable_metrics"] == {"line": 100.0, "expr": 95.0}


def _layout(ports: str) -> Layout:
    """A layout with a clock `clk` and an active-high reset `rst` before `ports`."""
    return layout("soc", f">clk >rst {ports}", {"rst": False})


def test_a_command_packet_goes_with_the_data_stream_valid_and_the_lines_high() -> None:
    # i2c_master's shape: a command stream whose writes take bytes from a second stream,
    # open-drain line inputs and a prescaler outside every interface.
    soc = _layout(">s_axis_cmd_address[7] >s_axis_cmd_read >s_axis_cmd_valid <s_axis_cmd_ready "
                     ">s_axis_data_tdata[8] >s_axis_data_tvalid <s_axis_data_tready >s_axis_data_tlast "
                     ">scl_i >sda_i >prescale[16] <scl_o <sda_o")
    t = Target(soc, recognise(soc), {})
    cmd, data = (t.interfaces.named(n) for n in ("s_axis_cmd", "s_axis_data"))
    (context,) = moves.stream_context(random.Random(3), t, cmd, sides=1)
    values = dict(context.args)
    assert values["s_axis_data_tvalid"] == 1
    assert 0 <= values["s_axis_data_tdata"] < 256
    assert values["scl_i"] == values["sda_i"] == 1
    assert values["prescale"] in (1, 2, 4)  # a divisor kept small: transfers end in the budget
    assert "s_axis_cmd_valid" not in values  # the packet's own stream is the send's
    (other,) = moves.stream_context(random.Random(3), t, data, sides=0)
    assert dict(other.args)["s_axis_cmd_valid"] == 1
    assert dict(other.args)["scl_i"] == 0
    scenarios = dict(sc.scenarios(random.Random(1), t, Hints(palettes=t.palettes)))
    in_context = scenarios["stream in context"]
    check(in_context, t.scope)
    assert [o.name for o in in_context.ops].count("send") == 6  # three packets per stream


def test_long_serial_scenarios_keep_whole_passes_and_read_after_each() -> None:
    # wbuart's shape: four registers behind Wishbone, a serial input and output.
    soc = _layout(">i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[32] >i_wb_sel[4] "
                     "<o_wb_ack <o_wb_stall <o_wb_data[32] >i_uart_rx <o_uart_tx")
    t = Target(soc, recognise(soc, params={"CLKS_PER_BIT": 25}), {})
    scenarios = sc.scenarios(random.Random(2), t, Hints(palettes=t.palettes))
    errors = [p for n, p in scenarios if n.startswith("serial errors")]
    assert 2 <= len(errors) <= 3  # six mode words, whole passes, no program trimmed
    frames = 0
    for program in errors:
        check(program, t.scope)
        assert moves.fits(t, program)
        names = [o.name for o in program.ops]
        assert names[-1] == "bus_burst"  # each pass ends reading then writing every register
        for i, o in enumerate(program.ops):
            if o.name == "serial":
                frames += 1
                assert program.ops[i - 1].name == "hold"  # the line idles before each pair
    assert frames == sc.MODE_WORDS * len(sp.ERROR_FRAMES)  # every mode word's pass kept whole
    sent = {(o.word("parity"), o.num("stop")) for p in errors for o in p.ops if o.name == "serial"}
    assert {("even", 2), ("odd", 2)} <= sent  # whichever parity the receiver expects, one is wrong
    rests = dict(scenarios)["stimulus with rests"]
    assert [o.name for o in rests.ops].count("hold") >= 3
    # Every code of the three mode bits above the period, highest first, each with one byte
    # under both parities (a fixed parity bit then arrives both ways).
    coded = [p for n, p in scenarios if n.startswith("serial parity codes")]
    assert len(coded) == 2
    configs = [o.num("data") >> 24 for p in coded for o in p.ops if o.name == "bus_write" and o.num("addr") == 0]
    assert configs == [7, 6, 5, 4, 3, 2]  # three passes a program, two programs: the lowest codes left out
    frames = [(o.get("data"), o.word("parity")) for o in coded[0].ops if o.name == "serial"][:2]
    assert frames[0][0] == frames[1][0]
    assert [f[1] for f in frames] == ["even", "odd"]


def test_a_serial_design_closes_with_a_power_of_two_and_a_long_rest() -> None:
    # wbuart's shape again: a 32-bit configuration register whose period field's top bit is 23.
    soc = _layout(">i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[32] >i_wb_sel[4] "
                  "<o_wb_ack <o_wb_stall <o_wb_data[32] >i_uart_rx <o_uart_tx")
    t = Target(soc, recognise(soc, params={"CLKS_PER_BIT": 25}), {})
    assert not any(n.startswith("long rest") for n, _ in sc.scenarios(random.Random(2), t, Hints(palettes=t.palettes)))
    closing = dict(sc.closings(t))
    assert sorted(closing) == [f"long rest 2^{top}" for top in sorted(lr.FIELD_TOPS)]
    (bus,) = t.interfaces.buses
    first, *others = bus.addresses[:lr.TOGGLE_REGISTERS]
    for top in lr.FIELD_TOPS:
        program = closing[f"long rest 2^{top}"]
        check(program, t.scope)
        assert not moves.fits(t, program)  # past the cycle cap: why it closes rather than opens
        names = [o.name for o in program.ops]
        at = names.index("bus_write")
        assert (program.ops[at].num("addr"), program.ops[at].num("data")) == (first, 1 << top)
        # then every other register all ones, then zero, twice (a break bit reloads the
        # counters twice), then the rest, then a change on the line
        toggles, rest = program.ops[at + 1:at + 3]
        assert toggles.num("times") == 2
        assert [(o.num("addr"), o.num("data")) for o in toggles.body] == [
            (r, v) for v in (0xFFFF_FFFF, 0) for r in others]
        assert rest.num("times") * rest.body[0].num("cycles") == lr.REST_CYCLES > 1 << 21
        assert names[at + 3:] == ["serial", "bus_write"]
        assert (program.ops[-1].num("addr"), program.ops[-1].num("data")) == (first, 25)  # the period back
    # a byte register has no 24- or 16-bit field: nothing to close with
    narrow = _layout(">wb_adr_i[3] >wb_dat_i[8] <wb_dat_o[8] >wb_we_i >wb_stb_i >wb_cyc_i <wb_ack_o "
                     ">srx_pad_i <stx_pad_o")
    assert sc.closings(Target(narrow, recognise(narrow), {})) == []
    assert sc.closings(_target()) == []  # no serial line


def test_a_looped_uart_sweeps_a_bus_access_across_two_frames() -> None:
    soc = _layout(">i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[32] >i_wb_sel[4] "
                  "<o_wb_ack <o_wb_stall <o_wb_data[32] >i_uart_rx <o_uart_tx >i_cts_n")
    t = Target(soc, recognise(soc, params={"CLKS_PER_BIT": 25}), {})
    program = dict(sc.scenarios(random.Random(2), t, Hints(palettes=t.palettes)))["collision sweep"]
    check(program, t.scope)
    assert moves.fits(t, program)
    (bus,) = t.interfaces.buses
    frame = co.FRAME_BITS * co.SWEEP_PERIOD
    sweeps = [i for i, o in enumerate(program.ops) if o.name == "repeat"]
    targets = []
    for i in sweeps:
        # every register back to the short period before each sweep (the last may have changed it)
        assert [(o.num("addr"), o.num("data")) for o in program.ops[i - 5:i - 1]] == [
            (a, co.SWEEP_PERIOD) for a in bus.addresses]
        sweep = program.ops[i]
        burst, hold, write = sweep.body[:3]
        targets.append(burst.num("addr"))
        assert burst.num("count") == 2
        assert write.num("addr") == burst.num("addr")
        # the access moves one clock a pass, from before one frame to past two
        assert hold.num("grow") == 1
        assert hold.num("cycles") < frame
        assert hold.num("cycles") + sweep.num("times") - 1 > 2 * frame
    assert targets == list(bus.addresses)  # which register transmits is not known: each is tried
    # Control bits set and cleared at the short period, flow control high then low: a break runs out.
    bits = dict(sc.scenarios(random.Random(2), t, Hints(palettes=t.palettes)))["serial control bits"]
    check(bits, t.scope)
    writes = [(o.num("addr"), o.num("data")) for o in bits.ops if o.name == "bus_write"]
    others = bus.addresses[1:]  # the first keeps the period
    assert writes[:4] == [(a, co.SWEEP_PERIOD) for a in bus.addresses]
    assert writes[4:6] == [(bus.addresses[0], 0xFFFF_FFFF), (bus.addresses[0], co.SWEEP_PERIOD)]
    assert writes[6:] == [(a, v) for _ in range(2) for v in (0xFFFF_FFFF, 0) for a in others]
    assert [o.args for o in bits.ops if o.name == "set"] == [(("i_cts_n", 1),), (("i_cts_n", 0),)]
    narrow = _layout(">wb_adr_i[3] >wb_dat_i[8] <wb_dat_o[8] >wb_we_i >wb_stb_i >wb_cyc_i <wb_ack_o "
                     ">srx_pad_i <stx_pad_o")
    narrow_t = Target(narrow, recognise(narrow), {})
    assert "collision sweep" not in dict(sc.scenarios(random.Random(2), narrow_t, Hints(palettes=narrow_t.palettes)))


def test_a_cpu_closes_with_a_long_run_of_its_idioms() -> None:
    # picorv32's memory port: its counters' upper bits move only in a run of a million clocks.
    cpu = _layout(">resetn <mem_valid <mem_instr >mem_ready <mem_addr[32] <mem_wdata[32] <mem_wstrb[4] "
                  ">mem_rdata[32]")
    t = Target(cpu, recognise(cpu, constants={"*": (*MAJOR_OPCODES, *PROLOGUE_CSRS)}), {})
    (memory,) = t.interfaces.responders
    assert memory.idioms
    (name, program), = sc.closings(t)
    assert name == "long run"
    check(program, t.scope)
    assert not moves.fits(t, program)  # past the cycle cap: why it closes rather than opens
    (respond,) = [o for o in program.ops if o.name == "respond"]
    assert (respond.word("iface"), respond.word("fill")) == (memory.name, IDIOMS)
    run = program.ops[-1]
    assert run.num("times") * run.body[0].num("cycles") == lr.RUN_CYCLES > 1 << 20
    # the same port without a RISC-V decoder behind it: a plain memory, no long run
    plain = Target(cpu, recognise(cpu), {})
    (memory,) = plain.interfaces.responders
    assert not memory.idioms
    assert sc.closings(plain) == []


def test_a_pipelined_wishbone_gets_held_runs_after_each_way_of_setting_its_registers() -> None:
    # wbqspiflash's shape: a pipelined Wishbone (a stall output) whose data path waits for
    # an unlock bit; a classic Wishbone (no stall) cannot rest inside a cycle and gets none.
    ports = ">i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[32] >i_wb_sel[4] <o_wb_ack <o_wb_data[32]"
    for stall in (True, False):
        soc = _layout(ports + (" <o_wb_stall" if stall else ""))
        t = Target(soc, recognise(soc), {})
        scenarios = dict(sc.scenarios(random.Random(3), t, Hints(palettes=t.palettes)))
        (bus,) = t.interfaces.buses
        held = scenarios.get(f"bus {bus.name} held runs")
        assert (held is not None) == stall
        if held is None:
            continue
        check(held, t.scope)
        bursts = [o for o in held.ops if o.name == "bus_burst"]
        assert {o.num("gap") for o in bursts} == set(sc.HELD_GAPS)
        assert all(o.num("step") > 0 and o.num("count") > 1 for o in bursts)
        assert {o.num("write") for o in bursts} == {0, 1}
        # three passes: the registers as they are, then all ones, then every other bit
        writes = [o.num("data") for o in held.ops if o.name == "bus_write"]
        assert writes == [0xFFFF_FFFF] * len(bus.addresses[:8]) + [0x5555_5555] * len(bus.addresses[:8])
        first_write = next(i for i, o in enumerate(held.ops) if o.name == "bus_write")
        assert any(o.name == "bus_burst" for o in held.ops[:first_write])


def test_packed_passes_start_each_part_with_the_head_and_stop_at_most() -> None:
    soc = _layout(">a[4]")
    t = Target(soc, recognise(soc), {})
    head = [op("reset")]
    blocks = [[op("hold", 10)] * 20 for _ in range(5)]
    parts = sp.packed(t, "p", head, blocks, 2)
    assert [n for n, _ in parts] == ["p 1/2", "p 2/2"]
    for _, program in parts:
        assert program.ops[0].name == "reset"
        assert len(program.ops) == 41
    assert sp.packed(t, "q", head, blocks[:1], 3) == [("q", Program((*head, *blocks[0])))]


def test_a_controller_with_a_slave_mode_gets_sessions_with_its_registers_configured() -> None:
    # freecores i2c's shape: Wishbone byte registers, open-drain lines, a known own address.
    soc = _layout(">wb_adr_i[3] >wb_dat_i[8] <wb_dat_o[8] >wb_we_i >wb_stb_i >wb_cyc_i <wb_ack_o "
                  ">scl_pad_i <scl_pad_o <scl_padoen_o >sda_pad_i <sda_pad_o <sda_padoen_o")
    t = Target(soc, recognise(soc, i2c_addresses=(0x7E,)), {})
    scenarios = dict(sc.scenarios(random.Random(1), t, Hints(palettes=t.palettes)))
    sessions = {name: p for name, p in scenarios.items() if name.startswith("i2c addressed with")}
    assert len(sessions) == 8  # one per register
    # ... and serviced ones, one per register that has registers after it (test_device_scenarios)
    assert len([n for n in scenarios if n.startswith("i2c addressed and serviced")]) == 7
    ctr = sessions["i2c addressed with wb register 0x2 all ones"]
    check(ctr, t.scope)
    writes = [(o.num("addr"), o.num("data")) for o in ctr.ops if o.name == "bus_write"]
    assert writes == [*((a, 0) for a in range(8)), (2, 0xFF)]  # every register 0, then CTR all ones
    (respond,) = [o for o in ctr.ops if o.name == "respond"]
    assert respond.num("latency") > 0  # the other controller addresses a controller only on a rough bus
    # Without a known own address, a controller gets no such sessions.
    plain = Target(soc, recognise(soc), {})
    assert not [n for n, _ in sc.scenarios(random.Random(1), plain, Hints(palettes=plain.palettes))
                if n.startswith("i2c addressed")]


def test_a_command_bridge_gets_long_writes_on_the_slowest_bus() -> None:
    # core_dbg_bridge's shape: a UART command parser (commands 0x10/0x11, two special
    # addresses) in front of an AXI4 master: long writes to a plain and a special address while
    # the slave is as slow as it gets, and the requester again on a rough bus.
    soc = _layout(">uart_rxd_i <uart_txd_o <mem_awvalid_o >mem_awready_i <mem_awaddr_o[32] <mem_wvalid_o "
                  ">mem_wready_i <mem_wdata_o[32] <mem_wstrb_o[4] >mem_bvalid_i <mem_bready_o <mem_arvalid_o "
                  ">mem_arready_i <mem_araddr_o[32] >mem_rvalid_i <mem_rready_o >mem_rdata_i[32]")
    t = Target(soc, recognise(soc, params={"UART_DIV": 128}, commands=(0x10, 0x11), wide=(0xF0000000,)), {})
    scenarios = dict(sc.scenarios(random.Random(1), t, Hints(palettes=t.palettes)))
    bursts = scenarios["serial command bursts on a rough bus"]
    check(bursts, t.scope)
    (respond,) = [o for o in bursts.ops if o.name == "respond"]
    assert respond.num("latency") == sc.SLOWEST_LATENCY
    frames = [o.get("data") for o in bursts.ops if o.name == "serial"]
    assert [f[:6] for f in frames] == [(c, 16, *a) for c in (0x10, 0x11) for a in ((0, 0, 0, 0), (0xF0, 0, 0, 0))]
    assert all(len(f) == 22 for f in frames)  # command, length, four address bytes, 16 data bytes
    rough = scenarios["requester on a rough bus"]
    assert [o.num("latency") for o in rough.ops if o.name == "respond"] == [ROUGH_LATENCY + 1]


def test_a_placeholder_testbench_keeps_a_multi_line_reason_in_comments() -> None:
    from agent.heuristic.engine import _placeholder_tb
    from sim.suite import load_design

    design = load_design(Path(__file__).resolve().parents[1] / "data" / "program" / "i2c_regs")
    text = _placeholder_tb(design, None, "harness build failed: %Error: x.sv:3: syntax error\n  near 'endmodule'\n")
    head = text[: text.index("module tb_i2c_regs")].splitlines()
    assert head == ["// harness build failed: %Error: x.sv:3: syntax error", "//   near 'endmodule'"]


def test_a_design_with_two_resets_gets_each_alone_as_well() -> None:
    two = layout("i2c", ">clk >arst_i >wb_rst_i >go", {"arst_i": True, "wb_rst_i": False})
    t = Target(two, recognise(two), {})
    drawn = [moves.gen_reset(random.Random(k), t, Hints()) for k in range(40)]
    alone = {(o.args[0][0], o.args[0][1]) for ops in drawn if ops[0].name == "set" for o in ops[:1]}
    assert alone == {("arst_i", 0), ("wb_rst_i", 1)}  # each asserted alone, by its own polarity
    assert any(ops[0].name == "reset" for ops in drawn)
    for ops in drawn:
        check(Program((op("reset"), *ops)), t.scope)


def test_fitting_puts_back_a_short_program_a_long_one_made_room_for() -> None:
    from agent.heuristic.corpus import Entry, ProgramSearchResult
    from agent.heuristic.final_tb import MAX_TB_LINES, fit_lines, tb_lines
    from agent.program.text import parse_program
    from sim.suite import Design

    t = _target()

    def entry(n: int, points: str, k: int, trial: int) -> Entry:
        # One line per operation; no two programs open alike (a shared opening would be one task).
        text = "reset\n" + "".join(f"set r={(v + trial) % 256:#x}\n" for v in range(n))
        return Entry(parse_program(text), frozenset(f"{points}{i}" for i in range(k)), "test", trial)

    # The fit drops the least valuable first: the short C, then (still too long) B; with B gone
    # there is room for C again.
    a, b, c = entry(200, "a", 100, 1), entry(180, "b", 50, 2), entry(5, "c", 10, 3)
    result = ProgramSearchResult((a, b, c), a.covered | b.covered | c.covered, 200)
    design = Design("unit", REPO, "unit", ())
    assert tb_lines(t, result, design) > MAX_TB_LINES
    fitted = fit_lines(t, result, design)
    assert fitted.entries == (a, c)
    assert tb_lines(t, fitted, design) <= MAX_TB_LINES
    assert fitted.keys == a.covered | c.covered


def test_a_16550_gets_parity_errors_in_every_fifo_slot_and_every_narrow_word() -> None:
    # uart16550's shape: byte registers behind Wishbone, a serial input and its own output.
    soc = _layout(">wb_adr_i[3] >wb_dat_i[8] <wb_dat_o[8] >wb_we_i >wb_stb_i >wb_cyc_i <wb_ack_o "
                  ">srx_pad_i <stx_pad_o")
    t = Target(soc, recognise(soc), {})
    scenarios = dict(sc.scenarios(random.Random(1), t, Hints(palettes=t.palettes)))
    slots = [p for n, p in scenarios.items() if n.startswith("banked divisor error slots, in order")]
    assert len(slots) == bd.ERROR_SLOT_PROGRAMS
    modes: dict[int, set[str]] = {}
    breaks = 0
    for program in slots:
        check(program, t.scope)
        assert moves.fits(t, program)
        mode = -1  # the last line-control word written before each burst
        for o in program.ops:
            if o.name == "bus_write" and o.num("addr") == 3:
                mode = o.num("data")
            elif o.name == "serial" and o.num("stop") == 0:
                assert len(o.get("data")) == bd.ERROR_SLOTS  # more frames than the FIFO holds
                modes.setdefault(mode, set()).add(o.word("parity"))
            elif o.name == "serial":
                breaks += 1
    # Every mode word of the covering array, each with both parities: whichever word turns
    # parity on, one of its bursts puts a parity error in every slot.
    assert len(modes) == sc.MODE_WORDS
    assert all(parities == {"even", "odd"} for parities in modes.values())
    assert breaks == 1
    # Every parity code of the line control (enable, even, stick: 1/0/1 sticks the bit at 1)
    # goes through the looped-back line, not only those the pairwise words happen to hold.
    codes = {(o.num("data") >> bd.PARITY_SHIFT) & 7 for n, p in scenarios.items()
             if n.startswith("banked divisor modes, in order") for o in p.ops
             if o.name == "bus_write" and o.num("addr") == 3 and not o.num("data") & bd.BANK_BIT}
    assert codes == set(range(8))
    narrow = scenarios["banked divisor narrow words, in order"]
    check(narrow, t.scope)
    assert moves.fits(t, narrow)
    names = [o.name for o in narrow.ops]
    first = names.index("bus_burst")
    assert narrow.ops[first - 1].num("data") == bd.NARROW_MODE  # 5 data bits set before the bytes
    bursts = [o for o in narrow.ops if o.name == "bus_burst" and o.num("write") == 1]
    assert len(bursts) == bd.NARROW_BURSTS
    assert all(o.num("bits") == bd.NARROW_BITS and o.num("count") == 16 and o.num("addr") == 0 for o in bursts)
    assert len({o.num("seed") for o in bursts}) == bd.NARROW_BURSTS
    assert all(narrow.ops[narrow.ops.index(o) + 1].name == "hold" for o in bursts)  # the FIFO empties between
    # A write swept across the transmitter taking a byte, into the divisor's (the transmit) address,
    # after the latch is set: one frame of 16-clock bits, a clock later each pass.
    for order, low in (("in order", 0), ("lanes reversed", 3)):
        swept = scenarios[f"banked divisor collision sweep, {order}"]
        check(swept, t.scope)
        assert moves.fits(t, swept)
        assert [o.num("data") for o in swept.ops if o.name == "bus_write"][:1] == [bd.BANK_OPEN]
        sweep = swept.ops[-1]
        assert sweep.body[0].num("addr") == low
        assert sweep.body[1].num("cycles") < co.FRAME_BITS * bd.DIVISOR_PERIOD
        assert sweep.body[1].num("grow") == 1
    # Two bytes under a trigger level of 14, then a rest of more than four frames: the character timeout.
    timeout = scenarios["banked divisor timeout, in order"]
    check(timeout, t.scope)
    ops = list(timeout.ops)
    k = next(i for i, o in enumerate(ops) if o.name == "bus_burst")
    assert [(o.num("addr"), o.num("data")) for o in ops[k - 3:k - 1]] == [(1, bd.TRIGGER_HIGH), (2, bd.TRIGGER_HIGH)]
    assert (ops[k].num("addr"), ops[k].num("count"), ops[k].num("write")) == (0, 2, 1)
    assert ops[k + 1].num("cycles") > 4 * 10 * bd.DIVISOR_PERIOD
    # A peer one clock per bit fast, its next start bit a clock later each pass (not looped back).
    fast = scenarios["banked divisor fast peer, in order"]
    check(fast, t.scope)
    assert "loopback" not in [o.name for o in fast.ops]
    first_frame, gap, second_frame = fast.ops[-1].body[:3]
    assert (first_frame.num("period"), second_frame.num("period")) == (bd.DIVISOR_PERIOD - 1, bd.DIVISOR_PERIOD)
    assert gap.num("grow") == 1
    assert fast.ops[-1].num("times") > bd.DIVISOR_PERIOD  # past a whole bit of offsets
