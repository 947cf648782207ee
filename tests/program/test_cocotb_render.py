"""The cocotb renderer: guarded, compilable text; the SV testbench's random draws; real runs (Verilator)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cocotb_twins import covered, run_twins, toggle_counts

from agent.heuristic.stimulus import Clock, Field, Layout, Signal
from agent.program.cocotb import cocotb_test_name, render_cocotb
from agent.program.encode import only_mask
from agent.program.interfaces import recognise
from agent.program.ops import SPECS, check
from agent.program.rng import Rng, random_bits, random_steps
from agent.program.target import Target
from agent.program.text import parse_program
from sim.analysis.write_ports import WritePort
from sim.run.evaluate import SimOptions
from sim.sandbox.guard import check_cocotb
from sim.types import Status

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


@pytest.mark.simulator_required
def test_basic_program_covers_the_same_points_as_the_sv_testbench(options: SimOptions) -> None:
    sv, cocotb = run_twins("regs_counter", BASIC_ONLY, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert covered(cocotb) == covered(sv)
    assert sum(covered(cocotb).values()) > 0
    # Stronger: every input, register and output toggles exactly as often (line and branch
    # counts of combinational blocks may differ: cocotb's writes make Verilator evaluate more).
    assert toggle_counts(cocotb) == toggle_counts(sv)


@pytest.mark.simulator_required
def test_command_fields_repeat_and_match_the_sv_testbench(options: SimOptions) -> None:
    # A stream whose beat is separate command ports: each keeps its value on some beats, so a
    # write to the same address again (the `continues` counter) happens at all.
    sv, cocotb = run_twins("cmd_stream", "reset\nsend s_cmd 24 seed=0x1234 gap=20\nhold 4\n", options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = toggle_counts(sv)
    assert toggles[("cmd_unit.sv", 14, "continues[0]:0->1")] > 0
    assert toggles[("cmd_unit.sv", 13, "restarts[1]:0->1")] > 0


@pytest.mark.simulator_required
def test_axi_lite_program_runs_with_coverage(options: SimOptions) -> None:
    # AxiLiteMaster has its own handshake timing, so only success and coverage are compared.
    sv, cocotb = run_twins("regs_counter", WITH_BUS, options)
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert sum(covered(cocotb).values()) > 0
    assert sv.status is Status.OK
    assert sum(covered(sv).values()) > 0


@pytest.mark.simulator_required
def test_protocol_drivers_run_with_coverage(options: SimOptions) -> None:
    # cocotbext drivers (ApbMaster, AxiRam, UartSource) keep the program's values, not the SV timing.
    sv, cocotb = run_twins("periph", PERIPH, options)
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert sum(covered(cocotb).values()) > 0
    assert sv.status is Status.OK


@pytest.mark.simulator_required
def test_byte_lane_wishbone_matches_the_sv_testbench(options: SimOptions) -> None:
    # Byte registers picked by sel (a 16550's bus): the cocotb master picks the lane of the
    # address and carries the byte on every lane exactly as the SV task does.
    text = "reset\n" + "".join(f"bus_write wb {k} 0x{0x21 * (k + 1):x}\nbus_read wb {k}\n" for k in range(4))
    sv, cocotb = run_twins("byte_lanes", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    assert toggle_counts(sv)[("byte_lanes.sv", 15, "regs[3][7]:0->1")] > 0  # 0x84 reached the last lane
