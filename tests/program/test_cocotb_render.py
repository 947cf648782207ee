"""The cocotb renderer: guarded, compilable text; the SV testbench's random draws; real runs (Verilator)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from agent.heuristic.engine import make_target
from agent.heuristic.stimulus import Clock, Field, Layout, Signal
from agent.program.cocotb import cocotb_test_name, render_cocotb
from agent.program.encode import only_mask
from agent.program.interfaces import recognise
from agent.program.ops import SPECS, check
from agent.program.rng import Rng, random_bits, random_steps
from agent.program.sv import render_testbench
from agent.program.target import Target
from agent.program.text import parse_program
from sim.analysis.interface import read_interface
from sim.analysis.write_ports import WritePort
from sim.run.cocotb import evaluate_cocotb
from sim.run.evaluate import SimOptions, evaluate_sv
from sim.sandbox.guard import check_cocotb
from sim.suite import load_design
from sim.types import SimResult, Status

DATA = Path(__file__).resolve().parents[1] / "data" / "program"
PUBLIC = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public"

PORTS = (
    ("clk", "input", 1), ("rst_n", "input", 1), ("en", "input", 1), ("mode", "input", 2), ("din", "input", 40),
    ("count", "output", 8),
    ("i_wb_cyc", "input", 1), ("i_wb_stb", "input", 1), ("i_wb_we", "input", 1), ("i_wb_adr", "input", 4),
    ("i_wb_dat", "input", 32), ("i_wb_sel", "input", 4), ("o_wb_ack", "output", 1), ("o_wb_stall", "output", 1),
    ("o_wb_dat", "output", 32),
    ("s_axil_awaddr", "input", 4), ("s_axil_awvalid", "input", 1), ("s_axil_awready", "output", 1),
    ("s_axil_wdata", "input", 32), ("s_axil_wstrb", "input", 4), ("s_axil_wvalid", "input", 1),
    ("s_axil_wready", "output", 1), ("s_axil_bresp", "output", 2), ("s_axil_bvalid", "output", 1),
    ("s_axil_bready", "input", 1), ("s_axil_araddr", "input", 4), ("s_axil_arvalid", "input", 1),
    ("s_axil_arready", "output", 1), ("s_axil_rdata", "output", 32), ("s_axil_rresp", "output", 2),
    ("s_axil_rvalid", "output", 1), ("s_axil_rready", "input", 1),
    ("apb_psel", "input", 1), ("apb_penable", "input", 1), ("apb_pwrite", "input", 1), ("apb_paddr", "input", 8),
    ("apb_wdata", "input", 32), ("apb_pstrb", "input", 4), ("apb_pready", "output", 1), ("apb_rdata", "output", 32),
    ("s_axis_tvalid", "input", 1), ("s_axis_tready", "output", 1), ("s_axis_tdata", "input", 16),
    ("s_axis_tkeep", "input", 2), ("s_axis_tlast", "input", 1),
    ("m_axis_tvalid", "output", 1), ("m_axis_tready", "input", 1), ("m_axis_tdata", "output", 8),
    ("mem_valid", "output", 1), ("mem_ready", "input", 1), ("mem_addr", "output", 16), ("mem_rdata", "input", 32),
    ("uart_rx", "input", 1), ("uart_tx", "output", 1),
    ("tbl_we", "input", 1), ("tbl_addr", "input", 4), ("tbl_wdata", "input", 8),
)
"""A made-up design with one interface of each kind the recogniser knows (and an unpacked input)."""

BASICS = """\
reset 3
random 50 seed=0x1f3a pal=50 maxhold=3 resets=10
corners
walk
toggle mode 1
avoid mode=3 din=0
set en=1 coef=0x1020304
hold 4
wait count 0x3 timeout=20
repeat 2 {
  random 5 seed=7 only=mode,din
}
"""
"""Operations every design has."""

PROTOCOLS = """\
reset 2
bus_write wb 0x1 0x10
bus_read s_axil 0x4
bus_write s_axil 0x8 0xabcd strb=0x6
bus_write apb 0x8 0x1 strb=0x3
bus_burst wb 0x2 4 seed=7
serial uart_rx 8 0x5a stop=0
send s_axis 4 seed=3 gap=20
sink m_axis ready=60 seed=5
respond mem fill=decode latency=2
serial uart_rx 8 0x55,0x1ff parity=even stop=2
loopback uart_rx
write table 0x3 0x10
fill table pattern=recip seed=9
"""
"""One of each operation that goes through an interface or a write port."""


def toy_target() -> Target:
    ports = (*(Signal(n, d, w) for n, d, w in PORTS), Signal("coef", "input", 8, (4,)))
    fields = tuple(Field(s.name, s.width, s.dims, reset=s.name == "rst_n", active_low=s.name == "rst_n")
                   for s in ports if s.direction == "input" and s.name != "clk")
    layout = Layout("toy", "dut", fields, (Clock("clk", 5),), ports)
    table = WritePort("table", "memory", "toy.sv", 1, 16, 8, enable=(("tbl_we", 1),), idle=(("tbl_we", 0),),
                      address="tbl_addr", addresses=tuple(range(16)), data=(("tbl_wdata", 0, 8),))
    interfaces = recognise(layout, params={"CLKS_PER_BIT": 8}, write_ports=[table])
    return Target(layout, interfaces, {"mode": (0, 1, 3), "din": (0, 0xFF, 1 << 39), "tbl_wdata": (0x80,)})


def test_toy_target_has_every_interface_kind() -> None:
    t = toy_target()
    kinds = {i.name: i.kind for i in t.interfaces.all()}
    assert kinds == {"s_axil": "axil", "apb": "apb", "wb": "wishbone", "mem": "mem", "s_axis": "stream",
                     "m_axis": "sink", "uart_rx": "serial"}
    assert t.interfaces.serials[0].partner == "uart_tx"


@pytest.mark.parametrize("text", [pytest.param(BASICS, id="basics"), pytest.param(PROTOCOLS, id="protocols")])
def test_rendered_test_is_guarded_and_compiles(text: str) -> None:
    t = toy_target()
    program = parse_program(text)
    check(program, t.scope)
    src = render_cocotb(t, program)
    assert check_cocotb(src) == []
    compile(src, "test_toy.py", "exec")
    assert "@cocotb.test()" in src
    assert f"async def {cocotb_test_name('toy')}(dut):" in src


def test_every_operation_is_rendered() -> None:
    used = {op.name for text in (BASICS, PROTOCOLS) for op in parse_program(text).walk()}
    assert used == {s.name for s in SPECS}


def test_extensions_drive_the_protocols_they_cover() -> None:
    src = render_cocotb(toy_target(), parse_program(PROTOCOLS))
    assert "from cocotbext.axi import" in src
    assert "from cocotbext.uart import UartSource" in src
    for made in ("AxiLiteBusMaster(bw, SAxilPorts(dut)", "ApbBusMaster(bw, ApbPorts(dut)",
                 "StreamSource(bw, SAxisPorts(dut)", "StreamSink(bw, MAxisPorts(dut)", "SerialPin(bw, 'uart_rx')"):
        assert made in src
    # No extension covers Wishbone or a plain memory port: small drivers in the module.
    assert "WishboneMaster(bw, {" in src
    assert "MemResponder(bw, {" in src
    # cocotbext finds signals by role name: the real port names come from Iface.roles.
    assert "self.awaddr = dut['s_axil_awaddr']" in src
    assert "self.tkeep = dut['s_axis_tkeep']" in src


def test_basics_need_no_extension() -> None:
    src = render_cocotb(toy_target(), parse_program(BASICS))
    assert "cocotbext" not in src
    assert "make_driver" not in src


def _module(t: Target) -> dict[str, object]:
    """The rendered module's namespace (its helpers run without a simulator)."""
    namespace: dict[str, object] = {}
    exec(compile(render_cocotb(t, parse_program(BASICS)), "test_toy.py", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("seed", [1, 0x1F3A, 0xDEADBEEF, 12345])
@pytest.mark.parametrize(("pal", "keep", "maxhold", "resets", "only"),
                         [(40, 30, 1, 0, ()), (80, 0, 4, 50, ()), (0, 10, 2, 999, ("mode", "din", "coef"))])
def test_embedded_random_draws_match_rng(seed: int, pal: int, keep: int, maxhold: int, resets: int,
                                         only: tuple[str, ...]) -> None:
    t = toy_target()
    namespace = _module(t)
    rng_type, draw_step, draw_hold = namespace["Rng"], namespace["draw_step"], namespace["draw_hold"]
    assert callable(rng_type)
    assert callable(draw_step)
    assert callable(draw_hold)
    start = [f.idle for f in t.fields]
    mask = only_mask(t, parse_program(f"random 1 seed=1 only={','.join(only)}" if only else "random 1 seed=1").ops[0])
    want = random_steps(t.draw_fields(), start, cycles=60, seed=seed, pal=pal, keep=keep, maxhold=maxhold,
                        resets=resets, only=[bool(mask >> i & 1) for i in range(len(t.fields))],
                        asserted=[f.asserted for f in t.fields], idle=[f.idle for f in t.fields])
    rng, values, got = rng_type(seed), list(start), []
    for _ in range(60):
        draw_step(rng, values, mask, pal, keep, resets)
        got.append((tuple(values), draw_hold(rng, maxhold)))
    assert got == want


def test_embedded_bits_match_rng() -> None:
    namespace = _module(toy_target())
    rng_type = namespace["Rng"]
    assert callable(rng_type)
    for seed in (1, 7, 0xC0FFEE):
        ours, theirs = rng_type(seed), Rng(seed)
        for width in (1, 4, 5, 8, 31, 32, 33, 64, 100):
            assert ours.bits(width) == random_bits(theirs, width)


# ---------------------------------------------------------------------------- real runs


BASIC_ONLY = """\
reset 3
random 200 seed=0x1f3a
corners
walk
toggle en 0
set en=1 mode=2
hold 10
avoid mode=3 din=0xf0
random 150 seed=7 pal=60 keep=20 maxhold=4 resets=5
wait flag 1 timeout=100
set mode=3 din=0xf0
hold 40
"""
"""No interface operations: the cocotb test applies the SV testbench's stimulus cycle for cycle."""

WITH_BUS = """\
reset 3
bus_write s_axil 0x0 0x5
bus_write s_axil 0x4 0x40
set en=1 mode=2
random 100 seed=3 only=mode,din
bus_write s_axil 0x8 0xabcd strb=0x2
bus_read s_axil 0x8
bus_read s_axil 0xc
bus_write s_axil 0xc 0x1
hold 20
"""
"""random, set and AXI4-Lite transactions (through cocotbext-axi's AxiLiteMaster)."""

PERIPH = """\
reset 3
respond fetch fill=ramp latency=2 seed=3
respond m_axi fill=zero latency=1
bus_write apb 0x0 0x100
bus_write apb 0x8 0x1
hold 200
bus_read apb 0x4
serial uart_rx 8 0x55,0xa3 parity=even
serial uart_rx 8 0x1ff
loopback uart_rx
hold 50
loopback uart_rx on=0
serial uart_rx 8 0x42 stop=2
random 100 seed=4
reset 3
bus_read apb 0xc
"""
"""APB (ApbMaster), an AXI4 responder (AxiRam), a memory responder, serial frames (UartSource), a loopback."""


@pytest.fixture(scope="module")
def options(tmp_path_factory: pytest.TempPathFactory) -> SimOptions:
    return SimOptions(cache_dir=tmp_path_factory.mktemp("cache"))


def _run(name: str, text: str, options: SimOptions, folder: Path = DATA,
         edit: Callable[[Target], Target] | None = None) -> tuple[SimResult, SimResult]:
    """(SV result, cocotb result) of one program on a design under tests/data/program/ (or `folder`).

    `edit`: a change to the recognised target both renderings use (to pick a driver).
    """
    design = load_design(folder / name)
    t, _hints = make_target(design, read_interface(design), "heuristic")
    t = edit(t) if edit is not None else t
    program = parse_program(text)
    check(program, t.scope)
    module = cocotb_test_name(design.top)
    cocotb = evaluate_cocotb(design, module, {f"{module}.py": render_cocotb(t, program)}, options=options,
                             trusted=False)
    return evaluate_sv(design, render_testbench(t, program), options=options), cocotb


def _run_public(name: str, text: str, options: SimOptions) -> tuple[SimResult, SimResult]:
    """`_run` on a design of the public benchmark suite (skipped where the suite is not beside the checkout)."""
    if not (PUBLIC / name).is_dir():
        pytest.skip(f"{PUBLIC / name} is not here")
    return _run(name, text, options, PUBLIC)


def _covered(result: SimResult) -> dict[str, int]:
    assert result.coverage is not None, result.detail + result.log_tail[-2000:]
    return {k: m.covered for k, m in result.coverage.metrics.items()}


def _toggles(result: SimResult) -> dict[tuple[str, int, str], int]:
    """Hit count of every toggle point (a toggle counts changes of a signal: same waveform, same counts)."""
    assert result.report is not None
    return {(Path(p.file).name, p.line, p.comment): p.count for p in result.report.points if p.kind == "toggle"}


@pytest.mark.simulator_required
def test_basic_program_covers_the_same_points_as_the_sv_testbench(options: SimOptions) -> None:
    sv, cocotb = _run("regs_counter", BASIC_ONLY, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _covered(cocotb) == _covered(sv)
    assert sum(_covered(cocotb).values()) > 0
    # Stronger: every input, register and output toggles exactly as often (line and branch
    # counts of combinational blocks may differ: cocotb's writes make Verilator evaluate more).
    assert _toggles(cocotb) == _toggles(sv)


@pytest.mark.simulator_required
def test_command_fields_repeat_and_match_the_sv_testbench(options: SimOptions) -> None:
    # A stream whose beat is separate command ports: each keeps its value on some beats, so a
    # write to the same address again (the `continues` counter) happens at all.
    sv, cocotb = _run("cmd_stream", "reset\nsend s_cmd 24 seed=0x1234 gap=20\nhold 4\n", options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = _toggles(sv)
    assert toggles[("cmd_unit.sv", 14, "continues[0]:0->1")] > 0
    assert toggles[("cmd_unit.sv", 13, "restarts[1]:0->1")] > 0


@pytest.mark.simulator_required
def test_axi_lite_program_runs_with_coverage(options: SimOptions) -> None:
    # AxiLiteMaster has its own handshake timing, so only success and coverage are compared.
    sv, cocotb = _run("regs_counter", WITH_BUS, options)
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert sum(_covered(cocotb).values()) > 0
    assert sv.status is Status.OK
    assert sum(_covered(sv).values()) > 0


@pytest.mark.simulator_required
def test_protocol_drivers_run_with_coverage(options: SimOptions) -> None:
    # cocotbext drivers (ApbMaster, AxiRam, UartSource) keep the program's values, not the SV timing.
    sv, cocotb = _run("periph", PERIPH, options)
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert sum(_covered(cocotb).values()) > 0
    assert sv.status is Status.OK


@pytest.mark.simulator_required
def test_byte_lane_wishbone_matches_the_sv_testbench(options: SimOptions) -> None:
    # Byte registers picked by sel (a 16550's bus): the cocotb master picks the lane of the
    # address and carries the byte on every lane exactly as the SV task does.
    text = "reset\n" + "".join(f"bus_write wb {k} 0x{0x21 * (k + 1):x}\nbus_read wb {k}\n" for k in range(4))
    sv, cocotb = _run("byte_lanes", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    assert _toggles(sv)[("byte_lanes.sv", 15, "regs[3][7]:0->1")] > 0  # 0x84 reached the last lane


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [2, 3])
def test_split_transaction_responders_match_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # Requests taken while accept is high, answered later in order with their tags; the
    # fetched words decode (`(inst & MASK) == MATCH` templates), so the CPU runs without a trap.
    # A rough data memory (latency 3) answers some requests with mem_d_error_i.
    text = f"reset 3\nrespond mem_i fill=decode seed=5\nrespond mem_d fill=decode latency={latency} seed=7\nhold 1500\n"
    sv, cocotb = _run("split_cpu", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert toggles["retired_o[6]:0->1"] > 0
    assert toggles["mem_d_wr_o[3]:0->1"] > 0
    assert toggles["trap_o:0->1"] == 0
    assert toggles["tag_error_o:0->1"] == 0  # every answer carried its request's tag
    assert (toggles["bus_error_o:0->1"] > 0) == (latency >= 3)


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [2, 3])
def test_ahb_lite_responder_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # A CPU on one AHB-Lite manager port: fetches and loads answered in their data phases with
    # wait states (hready low), byte stores by hsize; cocotb and SV answer cycle for cycle. A
    # rough memory (latency 3) answers some data phase ERROR, on which this CPU traps.
    text = f"reset 3\nrespond ahb fill=decode latency={latency} seed=9\nhold 1500\n"
    sv, cocotb = _run("ahb_cpu", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = _toggles(sv)
    assert toggles[("ahb_cpu.sv", 16, "HREADY:1->0")] > 0  # with wait states
    if latency < 3:
        assert toggles[("ahb_cpu.sv", 21, "retired[6]:0->1")] > 0  # 64 instructions retired through the responder
        assert toggles[("ahb_cpu.sv", 17, "HRESP:0->1")] == 0
    else:
        assert toggles[("ahb_cpu.sv", 17, "HRESP:0->1")] > 0
        assert toggles[("ahb_cpu.sv", 19, "trap:0->1")] > 0


@pytest.mark.simulator_required
def test_ahb_lite_subordinate_driver_matches_the_sv_testbench(options: SimOptions) -> None:
    # Word and byte (one strobe lane) writes, a waited register, a read, and an ERROR response.
    text = ("reset\nbus_write ahb 0x1c 0x600dcafe\nbus_write ahb 0x4 0x00ab0000 strb=0x4\nbus_read ahb 0x14\n"
            "bus_read ahb 0x40\nbus_write ahb 0x8 0x12345678 strb=0x3\n")
    sv, cocotb = _run("ahb_regs", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = _toggles(sv)
    assert toggles[("ahb_regs.sv", 19, "unlocked:0->1")] > 0
    assert toggles[("ahb_regs.sv", 20, "lane2_seen:0->1")] > 0
    assert toggles[("ahb_regs.sv", 17, "hresp_o:0->1")] > 0
    assert toggles[("ahb_regs.sv", 22, "regs[1][23]:0->1")] > 0  # 0xab on lane 2 only
    assert toggles[("ahb_regs.sv", 22, "regs[1][7]:0->1")] == 0


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_i2c_target_device_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # forencich's I2C master (MIT, the public suite's copy) under random commands: a clean device
    # acknowledges every transfer and its bytes are read back; a rough one (latency 2) also
    # stretches the clock, refuses some bytes, and another controller takes the bus.
    text = (f"reset 3\nrespond i2c fill=ramp seed=3 latency={latency}\nset prescale=2 stop_on_idle=1\n"
            "sink m_axis_data ready=100 seed=3\nsend s_axis_cmd 30 seed=5 gap=40\nsend s_axis_data 20 seed=7\n"
            "hold 30000\n")
    sv, cocotb = _run_public("forencich__i2c_master", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    # Every signal but the clock toggles alike (the cocotb test ends one clock later here: the
    # sink is cocotbext's, whose last beat is taken on its own timing).
    assert {k: n for k, n in _toggles(cocotb).items() if "clk:" not in k[2]} == \
        {k: n for k, n in _toggles(sv).items() if "clk:" not in k[2]}
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert toggles["m_axis_data_tvalid:0->1"] > 0  # bytes read back from the device
    if latency == 0:
        assert toggles["missed_ack:0->1"] == 0  # every address and byte acknowledged
        assert toggles["m_axis_data_tdata[7]:0->1"] == 0  # ramp bytes from a small pointer: bit 7 stays low
    else:
        assert toggles["missed_ack:0->1"] > 0  # refusals


@pytest.mark.simulator_required
def test_the_other_i2c_controller_addressing_a_target_matches_the_sv_testbench(options: SimOptions) -> None:
    # A target that drives SDA only, at its parameter's address 0x2A: the other controller on the
    # bus writes register numbers and bytes and reads them back; cocotb and SV toggle alike.
    text = "reset 3\nrespond i2c fill=random seed=11 latency=0\nhold 40000\n"
    sv, cocotb = _run("i2c_regs", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert toggles["writes[0]:0->1"] > 0  # bytes stored at its own address
    assert toggles["reads[0]:0->1"] > 0  # and read back
    assert toggles["sda_oe:0->1"] > 0


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_the_other_i2c_controller_addresses_a_design_that_drives_scl_only_when_rough(options: SimOptions,
                                                                                    latency: int) -> None:
    # A design that can drive SCL (as a controller with a slave mode) is addressed at its
    # parameter's address by the other controller on a rough bus only, half of its turns.
    text = f"reset 3\nrespond i2c fill=random seed=11 latency={latency}\nhold 60000\n"
    sv, cocotb = _run("i2c_regs_scl", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert (toggles["writes[0]:0->1"] > 0) == (latency > 0)
    assert (toggles["reads[0]:0->1"] > 0) == (latency > 0)


@pytest.mark.simulator_required
def test_consecutive_bursts_on_a_pipelined_wishbone_match_the_sv_testbench(options: SimOptions) -> None:
    # `step` bursts on a pipelined slave are one cycle of back-to-back requests, so the slave's
    # "next address while the previous request is open" path runs; `step=0` bursts never do.
    text = "reset\nbus_burst wb 0x10 8 write=0 step=1\nhold 5\nbus_burst wb 0x20 4 seed=9 bits=32 step=1\nhold 5\n"
    sv, cocotb = _run("wb_pipe", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = _toggles(sv)
    assert toggles[("wb_pipe.sv", 19, "long_read:0->1")] == 1
    assert toggles[("wb_pipe.sv", 20, "long_write:0->1")] == 1
    assert toggles[("wb_pipe.sv", 18, "continued[3]:0->1")] == 1  # 7 + 3 continuations
    same, _ = _run("wb_pipe", "reset\nbus_burst wb 0x10 8 write=0\nbus_burst wb 0x20 8 seed=9\nhold 5\n", options)
    assert _toggles(same)[("wb_pipe.sv", 18, "continued[0]:0->1")] == 0


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_sd_card_device_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # An SD controller over SPI: the card answers its initialisation (CMD0, CMD8, CMD55 +
    # ACMD41 until ready, CMD58) and sends 512-byte blocks with their CRC16; a rough card
    # (latency 2) waits longer, keeps the controller looping on ACMD41 and sends CRC errors.
    # (The program ends with the card deselected: at the very last clock edge SV and cocotb
    # could otherwise differ in whether the device's process ran before the end.)
    text = (f"reset 3\nrespond spi fill=ramp seed=3 latency={latency}\nset start_read=1 block=0x21\nhold 30000\n"
            "set start_read=0\nhold 20000\n")
    sv, cocotb = _run("sd_spi", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert toggles["card_in:0->1"] == 1  # the device holds the slot's card detect at "present"
    assert toggles["ready:0->1"] == 1  # the card initialised
    assert toggles["v2:0->1"] == 1
    assert toggles["sdhc:0->1"] == 1
    assert toggles["block_done:0->1"] >= 1
    assert toggles["crc_ok:0->1"] == 1
    if latency == 0:
        assert toggles["error:0->1"] == 0
        assert toggles["init_loops[1]:0->1"] == 0  # ready at the second ACMD41
    else:
        assert toggles["init_loops[1]:0->1"] == 1 or toggles["error:0->1"] == 1


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_spi_flash_device_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # A flash controller over SPI: JEDEC ID, sector erase, page program, status polling while
    # the flash is busy, read back; a rough flash (latency 2) stays busy longer and sometimes
    # reports a failed program (status bit 6).
    text = (f"reset 3\nrespond spi fill=random seed=3 latency={latency}\nset start=1 wdata=0x12345678\nhold 12000\n"
            "set start=0\nhold 3000\n")
    sv, cocotb = _run("spi_flash", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert toggles["id_ok:0->1"] == 1
    assert toggles["wip_seen:0->1"] == 1
    assert toggles["done:0->1"] >= 2  # the sequence ran more than once
    assert toggles["match:0->1"] == 1  # what was programmed after the erase reads back
    assert (toggles["prog_error:0->1"] > 0) == (latency > 0)


@pytest.mark.simulator_required
def test_consecutive_bursts_on_a_classic_wishbone_are_single_transactions_in_both(options: SimOptions) -> None:
    # A classic slave (no stall output) gets one transaction per address, `step` apart, in SV and cocotb alike.
    text = "reset\nbus_burst wb 0x0 4 seed=5 bits=8 step=1\nbus_burst wb 0x0 4 write=0 step=1\nhold 4\n"
    sv, cocotb = _run("byte_lanes", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    assert _toggles(sv)[("byte_lanes.sv", 15, "regs[3][0]:0->1")] + \
        _toggles(sv)[("byte_lanes.sv", 15, "regs[3][1]:0->1")] > 0  # the fourth register was written


def _without_ids(t: Target) -> Target:
    """`t` with its AXI responder's ID ports unrecognised: cocotbext's AxiRam needs them, so the hand responder runs."""
    responders = tuple(replace(r, roles={k: v for k, v in r.roles.items() if k not in ("awid", "arid")})
                       for r in t.interfaces.responders)
    return replace(t, interfaces=replace(t.interfaces, responders=responders))


AXI4_COPIES = """\
reset 3
respond m_axi fill=random seed=11 latency={latency}
set src=0x40 dst=0x200 len=15 wrap=0 tag=3 start=1
hold 1
set start=0
hold 200
set src=0x84 dst=0x300 len=7 wrap=1 tag=5 start=1
hold 1
set start=0
hold 200
"""
"""Two copies on the AXI4 copy engine: a 16-beat INCR burst, then an 8-beat WRAP burst from mid-block."""


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_axi4_burst_responder_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # A master's read and write bursts answered beat by beat (RLAST on the last, the burst's
    # addresses INCR and WRAP); a rough slave (latency 2) waits and answers some SLVERR.
    sv, cocotb = _run("axi4_copy", AXI4_COPIES.format(latency=latency), options, edit=_without_ids)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert toggles["done:0->1"] == 2  # both copies ran to their write response
    assert toggles["m_axi_rlast:0->1"] == 2  # RLAST once per read burst, with its last beat
    assert toggles["checksum[31]:0->1"] + toggles["checksum[30]:0->1"] > 0


@pytest.mark.simulator_required
def test_an_axi4_slave_drops_its_answers_when_the_design_is_reset(options: SimOptions) -> None:
    # A reset asserted by the program's inputs (not `reset`, which stops the responder) in the
    # middle of a burst: the slave resets with the design, so the copy after it gets its own
    # answers, never a read beat left over from before (picorv32_axi took such a beat for its
    # next fetch and withdrew ARVALID: a false protocol finding). Cocotb and SV alike (IDs left
    # out so the hand responder runs: this design then flags the missing RID, as before).
    text = ("reset 3\nrespond m_axi fill=random seed=11 latency=2\n"
            "set src=0x40 dst=0x200 len=15 wrap=0 tag=3 start=1\nhold 1\nset start=0\nhold 12\n"
            "set rst_n=0\nhold 2\nset rst_n=1\nhold 4\n"
            "set src=0x80 dst=0x300 len=7 wrap=0 tag=5 start=1\nhold 1\nset start=0\nhold 300\n")
    sv, cocotb = _run("axi4_copy", text, options, edit=_without_ids)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert toggles["done:0->1"] == 1  # the copy after the reset completed


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [2, 4])
def test_a_rough_axi4_slave_stalls_for_long_in_both_renderings(options: SimOptions, latency: int) -> None:
    # 24 copies started 400 clocks apart: a slave answering within a few clocks finishes each
    # before the next start; a rough one (latency 4) also stalls for 1,024 clocks now and then,
    # so some starts find the engine busy and are lost. Cocotb and SV alike.
    copy = "set src=0x40 dst=0x200 len=3 wrap=0 tag=1 start=1\nhold 1\nset start=0\nhold 400\n"
    text = f"reset 3\nrespond m_axi fill=random seed=11 latency={latency}\n" + copy * 24
    sv, cocotb = _run("axi4_copy", text, options, edit=_without_ids)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    done = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}["done:0->1"]
    assert (done < 24) == (latency == 4), done


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [1, 3])
def test_wishbone_responder_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # A Wishbone master's reads and write answered with stalls; a rough memory (latency 3) ends
    # some cycles with ERR instead of ACK, which this master counts.
    text = (f"reset 3\nrespond wb fill=random latency={latency} seed=13\n"
            + "".join(f"set i_start=1 i_base={base} i_count=15\nhold 1\nset i_start=0\nhold 120\n"
                      for base in (0x10, 0x40, 0x80, 0xc0)))
    sv, cocotb = _run("wb_sum", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    toggles = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}
    assert toggles["i_wb_stall:0->1"] > 0
    assert toggles["o_sum[30]:0->1"] > 0  # the random words were summed
    assert (toggles["o_errors[0]:0->1"] > 0) == (latency >= 3)
    assert toggles["o_done:0->1"] > 0


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [2, 4])
def test_a_rough_wishbone_slave_stalls_for_long_in_both_renderings(options: SimOptions, latency: int) -> None:
    # 20 sums of 4 words started 300 clocks apart: each finishes before the next start unless
    # a rough slave (latency 4) holds STALL for 1,024 clocks, which loses some starts.
    text = (f"reset 3\nrespond wb fill=random latency={latency} seed=13\n"
            + "set i_start=1 i_base=0x10 i_count=3\nhold 1\nset i_start=0\nhold 300\n" * 20)
    sv, cocotb = _run("wb_sum", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert _toggles(cocotb) == _toggles(sv)
    done = {comment: n for (_file, _line, comment), n in _toggles(sv).items()}["o_done:0->1"]
    assert (done < 20) == (latency == 4), done
