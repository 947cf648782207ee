"""sim.analysis.interface: interface and RTL facts from Verilator's --json-only AST."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from sim.analysis import ast_json as ast
from sim.analysis.interface import (
    ALL_KEY,
    DesignInterface,
    clear_cache,
    conditions_at,
    parse_interface,
    read_interface,
    read_tree,
)
from sim.errors import DesignError, ToolNotFoundError
from sim.suite import Design, Reset, design_from_files, load_suite
from sim.tools import find_verilator

DATA = Path(__file__).resolve().parents[1] / "data" / "sim" / "design"
SUITE = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public"

# Designs whose design.toml names a clock/reset that the RTL never uses as one (checked by
# reading the RTL): the hints still put them into the interface.
UNUSED_HINTS = {
    ("cvdp__single_cycle_arbiter", "clk"): "purely combinational; clk is an unused port",
    ("cvdp__single_cycle_arbiter", "reset"): "purely combinational; reset is an unused port",
    ("wb2axip__wbarbiter", "i_reset"): "i_reset is only read under `ifdef FORMAL",
}


def load(name: str) -> dict[str, Any]:
    tree: dict[str, Any] = json.loads((DATA / f"{name}.json").read_text())
    return tree


@pytest.fixture(scope="module")
def fsm_top() -> DesignInterface:
    return parse_interface(load("fsm_top"), "fsm_top")


def hint(**kw: Any) -> Design:
    return Design(name="t", root=DATA, top=kw.pop("top", "fsm_top"), rtl=(DATA / "fsm_top.sv",), **kw)


# -- pure: committed fixtures -------------------------------------------------------------


def test_ports(fsm_top: DesignInterface) -> None:
    ports = {p.name: p for p in fsm_top.ports}
    assert [p.name for p in fsm_top.ports] == [
        "clk", "rst_n", "sync_rst", "cmd", "op", "mat", "s", "out", "flag", "q"
    ]
    assert (ports["cmd"].width, ports["cmd"].msb, ports["cmd"].lsb) == (8, 7, 0)
    assert ports["op"].width == 2
    assert ports["mat"].width == 4
    assert ports["mat"].unpacked == (2, 3)
    assert ports["s"].signed
    assert not ports["cmd"].signed
    assert ports["out"].direction == "output"
    assert [p.name for p in fsm_top.data_inputs] == ["cmd", "op", "mat", "s"]
    assert fsm_top.port("nope") is None


def test_parameters(fsm_top: DesignInterface) -> None:
    params = {p.name: p for p in fsm_top.parameters}
    assert params["W"].value == 8
    assert params["W"].type == "int"
    assert not params["W"].local
    assert params["MODE"].value == 3
    assert params["MODE"].width == 4
    assert params["DEPTH"].local


def test_clocks_and_resets(fsm_top: DesignInterface) -> None:
    # clk reaches the submodule through `wire clk_w = clk`; sync_rst is a synchronous reset
    # inside the submodule; rst_n is async (negedge) and therefore active low.
    assert fsm_top.clocks == ("clk",)
    assert fsm_top.resets == (("rst_n", True), ("sync_rst", False))
    rst_n = fsm_top.port("rst_n")
    assert rst_n is not None
    assert rst_n.is_reset
    assert rst_n.reset_active_low is True
    clk = fsm_top.port("clk")
    assert clk is not None
    assert clk.is_clock
    assert clk.reset_active_low is None
    assert fsm_top.modules == ("fsm_top", "sub")
    assert fsm_top.notes == ()


def test_tail_reset_and_enable() -> None:
    iface = parse_interface(load("tail_reset"), "tail_reset")
    assert iface.clocks == ("clk",)
    # `if (rst)` at the end of the block is a reset; `if (en) v <= 1` is not.
    assert iface.resets == (("rst", False),)


def test_hints_win_and_are_checked() -> None:
    hints = hint(clocks=("clk", "missing"), resets=(Reset("rst_n", False), Reset("cmd", True)))
    iface = parse_interface(load("fsm_top"), "fsm_top", hints)
    assert dict(iface.resets) == {"rst_n": False, "cmd": True, "sync_rst": False}
    assert iface.clocks == ("clk",)
    assert any("'missing' is not an input" in n for n in iface.notes)
    assert any("reset 'rst_n': design.toml says active high, the RTL uses it active low" in n
               for n in iface.notes)
    assert any("reset 'cmd' resets no always block" in n for n in iface.notes)


def test_constants(fsm_top: DesignInterface) -> None:
    # cmd == 8'hA5 directly; the submodule compares cmd[7:4] == 9, i.e. cmd = 0x90.
    assert fsm_top.constants["cmd"] == (0x90, 0xA5)
    assert fsm_top.constants["op"] == (2,)  # op == 2'b10 and casez 2'b1?
    assert fsm_top.constants["s"] == (253,)  # s < -3, as an 8-bit pattern
    assert "clk" not in fsm_top.constants
    assert {3, 4, 8, 9, 0xA5}.issubset(fsm_top.constants[ALL_KEY])


def test_fsm_states(fsm_top: DesignInterface) -> None:
    assert fsm_top.fsm_states == {"state": (0, 1, 3)}


def test_conditions_by_line(fsm_top: DesignInterface) -> None:
    at41 = fsm_top.conditions_at("fsm_top.sv", 41)
    assert {c.kind for c in at41} == {"case_item", "if"}
    cond_if = next(c for c in at41 if c.kind == "if")
    assert cond_if.signals == ("cmd",)
    assert cond_if.constants == (0xA5,)
    assert cond_if.text == "cmd == 8'd165"
    at42 = next(c for c in fsm_top.conditions_at("fsm_top.sv", 42) if c.kind == "if")
    assert at42.signals == ("op", "s")
    # Submodule condition, traced through the port connection to the top input.
    at11 = fsm_top.conditions_at("fsm_top.sv", 11)
    assert [(c.kind, c.signals, c.constants) for c in at11] == [("if", ("cmd",), (9,))]
    item = next(c for c in fsm_top.conditions_at("fsm_top.sv", 52))
    assert item.kind == "case_item"
    assert item.signals == ("op",)
    assert fsm_top.conditions_at("fsm_top.sv", 3) == ()


def test_conditions_at_matches_by_basename(fsm_top: DesignInterface) -> None:
    found = conditions_at(fsm_top.conditions, "/abs/path/to/fsm_top.sv", 41)
    assert len(found) == 2
    assert conditions_at(fsm_top.conditions, "./fsm_top.sv", 41) == found


def test_unknown_top_raises() -> None:
    with pytest.raises(DesignError, match="top module 'nope' not in the elaborated design"):
        parse_interface(load("fsm_top"), "nope")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("32'sh8", ast.ConstValue(32, 8, True, False), id="signed-hex"),
        pytest.param("4'b1zz0", ast.ConstValue(4, 8, False, True), id="wildcard"),
        pytest.param("8'd200", ast.ConstValue(8, 200, False, False), id="decimal"),
        pytest.param('"dump.vcd"', None, id="string"),
    ],
)
def test_parse_const(text: str, expected: ast.ConstValue | None) -> None:
    assert ast.parse_const(text) == expected


def test_parse_loc() -> None:
    assert ast.parse_loc("e,19:22,19:28") == ("e", 19, 22)
    assert ast.parse_loc("") == ("", 0, 0)


def test_render() -> None:
    nodes = {"(B)": {"type": "BASICDTYPE", "keyword": "logic", "addr": "(B)"}}
    ref = {"type": "VARREF", "name": "rst_n", "varp": "(V)", "dtypep": "(B)"}
    const = {"type": "CONST", "name": "8'shfd"}
    assert ast.render({"type": "NOT", "dtypep": "(B)", "lhsp": [ref]}, nodes) == "!rst_n"
    assert ast.render({"type": "LTS", "lhsp": [const], "rhsp": [ref]}) == "rst_n > -8'sd3"
    assert ast.render({"type": "COND", "condp": [ref], "thenp": [const], "elsep": [ref]}) == (
        "rst_n ? -8'sd3 : rst_n"
    )
    assert ast.render({"type": "WEIRD"}) == ""


# -- with Verilator -----------------------------------------------------------------------


def _verilator_or_skip() -> None:
    try:
        find_verilator()
    except ToolNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.mark.simulator_required
def test_fixtures_are_current(tmp_path: Path) -> None:
    """The committed JSON matches what Verilator makes of the committed Verilog."""
    _verilator_or_skip()
    design = design_from_files([DATA / "fsm_top.sv"], "fsm_top")
    live = parse_interface(read_tree(design, work_dir=tmp_path), "fsm_top")
    committed = parse_interface(load("fsm_top"), "fsm_top")
    assert (live.ports, live.clocks, live.resets) == (committed.ports, committed.clocks, committed.resets)
    assert live.constants == committed.constants
    assert live.fsm_states == committed.fsm_states
    assert [(Path(c.file).name, c.line, c.kind, c.signals) for c in live.conditions] == [
        (c.file, c.line, c.kind, c.signals) for c in committed.conditions
    ]


@pytest.mark.simulator_required
def test_read_interface_error(tmp_path: Path) -> None:
    _verilator_or_skip()
    bad = tmp_path / "bad.v"
    bad.write_text("module bad(input a;\nendmodule\n")
    with pytest.raises(DesignError, match="%Error"):
        read_interface(design_from_files([bad], "bad"), work_dir=tmp_path)


@pytest.mark.simulator_required
def test_read_interface_caches(tmp_path: Path) -> None:
    _verilator_or_skip()
    src = tmp_path / "m.v"
    src.write_text("module m(input clk, input [3:0] a, output reg [3:0] y);\n"
                   "always @(posedge clk) if (a == 4'd7) y <= a;\nendmodule\n")
    design = design_from_files([src], "m")
    clear_cache()
    first = read_interface(design)
    assert read_interface(design) is first
    assert first.constants["a"] == (7,)
    src.write_text(src.read_text().replace("4'd7", "4'd5"))
    assert read_interface(design).constants["a"] == (5,)


@pytest.mark.simulator_required
def test_the_clock_that_clocks_most_comes_first(tmp_path: Path) -> None:
    # Hazard3's shape: the top's own power logic on `clk_always_on` is met first, the core runs on `clk`.
    _verilator_or_skip()
    src = tmp_path / "cpu.v"
    src.write_text("module core(input clk, input [3:0] a, output reg [3:0] x, y, z);\n"
                   "always @(posedge clk) x <= a;\nalways @(posedge clk) y <= x;\nalways @(posedge clk) z <= y;\n"
                   "endmodule\n"
                   "module cpu(input clk_always_on, input clk, input [3:0] a, output [3:0] x, y, z, output reg on);\n"
                   "always @(posedge clk_always_on) on <= 1'b1;\n"
                   "core c(.clk(clk), .a(a), .x(x), .y(y), .z(z));\nendmodule\n")
    iface = read_interface(design_from_files([src], "cpu"), work_dir=tmp_path)
    assert iface.clocks == ("clk", "clk_always_on")


@pytest.fixture(scope="module")
def suite_interfaces() -> dict[str, tuple[Design, DesignInterface, DesignInterface]]:
    """(design, merged interface, interface without hints) for every public design."""
    _verilator_or_skip()
    if not SUITE.is_dir():
        pytest.skip(f"{SUITE} not present")
    clear_cache()
    start = time.monotonic()
    out = {}
    for design in load_suite(SUITE):
        merged = read_interface(design)
        raw = parse_interface(read_tree(design), design.top)
        out[design.name] = (design, merged, raw)
    print(f"\nread_interface + raw parse on {len(out)} designs: {time.monotonic() - start:.2f} s")
    return out


@pytest.mark.simulator_required
def test_public_suite(suite_interfaces: dict[str, tuple[Design, DesignInterface, DesignInterface]]) -> None:
    assert len(suite_interfaces) == 54
    problems = []
    for name, (design, merged, raw) in suite_interfaces.items():
        ports = {p.name for p in merged.ports}
        wanted = set(design.clocks) & ports
        if not wanted <= set(merged.clocks):
            problems.append(f"{name}: clocks {merged.clocks} miss design.toml {sorted(wanted - set(merged.clocks))}")
        for clock in sorted(wanted - set(raw.clocks)):
            if (name, clock) not in UNUSED_HINTS:
                problems.append(f"{name}: RTL analysis misses design.toml clock {clock!r} (found {raw.clocks})")
        raw_resets, merged_resets = dict(raw.resets), dict(merged.resets)
        for reset in design.resets:
            if merged_resets.get(reset.name) != reset.active_low:
                problems.append(f"{name}: reset {reset.name} polarity {merged_resets.get(reset.name)}")
            found = raw_resets.get(reset.name)
            if found is None and (name, reset.name) not in UNUSED_HINTS:
                problems.append(f"{name}: RTL analysis misses design.toml reset {reset.name!r} (found {raw.resets})")
            elif found is not None and found != reset.active_low:
                problems.append(f"{name}: reset {reset.name} is active_low={found} in the RTL, "
                                f"{reset.active_low} in design.toml")
        extra = set(raw_resets) - {r.name for r in design.resets}
        if extra:
            problems.append(f"{name}: RTL analysis finds resets {sorted(extra)} design.toml lacks")
        if not merged.modules or merged.top != design.top:
            problems.append(f"{name}: top {merged.top} modules {merged.modules}")
    assert problems == []


@pytest.mark.simulator_required
def test_public_suite_known_designs(
    suite_interfaces: dict[str, tuple[Design, DesignInterface, DesignInterface]],
) -> None:
    def port(design: str, name: str) -> tuple[str, int, tuple[int, ...]]:
        p = suite_interfaces[design][1].port(name)
        assert p is not None, f"{design}: no port {name}"
        return p.direction, p.width, p.unpacked

    assert port("cvdp__gf_multiplier", "A") == ("input", 4, ())
    assert port("cvdp__gf_multiplier", "result") == ("output", 4, ())
    assert port("cocotb__matrix_multiplier", "a_i") == ("input", 8, (32,))
    assert port("cocotb__matrix_multiplier", "b_i") == ("input", 8, (20,))
    assert port("cocotb__matrix_multiplier", "c_o") == ("output", 18, (40,))
    assert port("forencich__uart_tx", "s_axis_tdata") == ("input", 8, ())
    assert port("forencich__uart_tx", "prescale") == ("input", 16, ())
    uart = suite_interfaces["forencich__uart_tx"][1]
    assert any(p.name == "DATA_WIDTH" and p.value == 8 for p in uart.parameters)

    fsm = suite_interfaces["cvdp__fsm_seq_detector"][1]
    assert fsm.fsm_states == {"cur_state": tuple(range(8))}
    assert set(range(8)) <= set(fsm.constants[ALL_KEY])
    seq = [c for c in fsm.conditions_at(str(fsm_file(suite_interfaces)), 39) if c.kind == "if"]
    assert [c.signals for c in seq] == [("seq_in",)]
    case_items = [c for c in fsm.conditions if c.kind == "case_item"]
    assert sorted(c.constants for c in case_items if c.constants) == [(v,) for v in range(8)]

    vending = suite_interfaces["cvdp__vending_machine"][1]
    assert set(vending.constants["coin_input"]) >= {1, 2, 5, 10}
    hier = suite_interfaces["cvdp__bcd_adder"][1]
    assert hier.modules[0] == "bcd_adder"
    assert len(hier.modules) == 3


def fsm_file(ifaces: dict[str, tuple[Design, DesignInterface, DesignInterface]]) -> Path:
    return ifaces["cvdp__fsm_seq_detector"][0].rtl[0]


@pytest.mark.simulator_required
def test_an_async_reset_first_in_the_list_and_a_sync_reset_under_it(tmp_path: Path) -> None:
    # OpenCores i2c: `always @(posedge clk or negedge rst_i)` where rst_i = arst_i ^ ARST_LVL,
    # some blocks folded by Verilator into `q <= rst_i & d` (no if left), the others
    # `if (!rst_i) ... else if (wb_rst_i) ...`. arst_i was taken for a clock (the first edge
    # of a block whose reset is no longer named in an if) and wb_rst_i for data.
    _verilator_or_skip()
    src = tmp_path / "top.v"
    src.write_text(
        "module top(input wb_clk_i, input wb_rst_i, input arst_i, input d, output reg [3:0] q, output reg p);\n"
        "parameter ARST_LVL = 1'b0;\n"
        "wire rst_i = arst_i ^ ARST_LVL;\n"
        "always @(negedge rst_i or posedge wb_clk_i)\n"
        "  if (!rst_i) q <= 4'd0; else if (wb_rst_i) q <= 4'd0; else q <= q + {3'd0, d};\n"
        "always @(posedge wb_clk_i or negedge rst_i)\n"
        "  if (!rst_i) p <= 1'b0; else p <= d & q[0];\n"
        "endmodule\n")
    iface = read_interface(design_from_files([src], "top"), work_dir=tmp_path)
    assert iface.clocks == ("wb_clk_i",)
    assert dict(iface.resets) == {"arst_i": True, "wb_rst_i": False}
