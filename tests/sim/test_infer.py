"""sim.project.infer and sim.project.hdl_scan: top selection, closure, compile order, clocks/resets by name (pure)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from sim.errors import DesignError
from sim.project import infer
from sim.project.hdl_scan import (
    include_dirs_for,
    included_files,
    package_order,
    resolve_includes,
    scan,
)
from sim.project.infer import (
    Unit,
    add_package_refs,
    choose_top,
    clock_reset_by_name,
    closure,
    compile_order,
    top_candidates,
)
from sim.project.init_cli import design_toml
from sim.suite import Design, Reset, parse_design

R = Path("/p/rtl")


def mod(name: str, file: str = "", children: tuple[str, ...] = (), packages: tuple[str, ...] = (),
        ports: int = 3, tb: bool = False, folder: Path = R) -> Unit:
    return Unit(name, "module", folder / (file or f"{name}.sv"), 1, children, packages, ports, tb)


def pkg(name: str, packages: tuple[str, ...] = ()) -> Unit:
    return Unit(name, "package", R / f"{name}.sv", 1, (), packages, 0, False)


CHIP = [
    pkg("base_pkg"),
    pkg("chip_pkg", ("base_pkg",)),
    mod("leaf", packages=("chip_pkg",)),
    mod("mid", children=("leaf",)),
    mod("chip", children=("mid", "leaf")),
    mod("tb_chip", "tb_chip.sv", ("chip",), ports=0, tb=True, folder=Path("/p/tb")),
]


def test_the_uninstantiated_module_is_the_top_and_the_testbench_is_not() -> None:
    choice = choose_top(CHIP)
    assert choice.top == "chip"
    assert choice.candidates == ("chip",)
    assert "only module" in choice.reason


@pytest.mark.parametrize(("unit", "why"), [
    (mod("tb_chip", ports=0), "no ports"),
    (mod("harness", folder=Path("/p/tb")), "'tb/' folder"),
    (mod("fifo_tb", tb=True), "reads as a testbench"),
    (mod("testbench_for_tx", tb=True), "reads as a testbench"),
])
def test_testbench_reasons(unit: Unit, why: str) -> None:
    reason = infer.testbench_reason(unit)
    assert reason is not None
    assert why in reason


def test_design_modules_named_like_tests_are_still_design() -> None:
    # A name alone is not enough: test_mux has ports and no $finish/delays.
    assert infer.testbench_reason(mod("test_mux")) is None
    assert infer.testbench_reason(pkg("tb_pkg")) is None


def test_a_module_only_a_testbench_instantiates_stays_a_candidate() -> None:
    units = [mod("dut"), mod("tb", children=("dut",), ports=0)]
    assert top_candidates(units) == ["dut"]


def test_two_tops_is_an_error_naming_both_and_the_flag() -> None:
    units = [*CHIP, mod("spare")]
    with pytest.raises(DesignError) as err:
        choose_top(units, flag="--top")
    text = str(err.value)
    assert "2 top-module candidates" in text
    assert "chip  (chip.sv:1)" in text
    assert "spare  (spare.sv:1)" in text
    assert "--top NAME" in text
    assert choose_top(units, "spare").top == "spare"


def test_containing_picks_the_top_whose_hierarchy_holds_the_module() -> None:
    units = [*CHIP, mod("other", children=("aux",)), mod("aux")]
    assert choose_top(units, containing=("leaf",)).top == "chip"
    assert choose_top(units, containing=("aux",)).top == "other"
    with pytest.raises(DesignError, match=r"benchwright\.project\.top"):
        choose_top(units, containing=("nowhere",), flag="benchwright.project.top")


def test_unknown_requested_top_and_no_candidate() -> None:
    with pytest.raises(DesignError, match="'nope' is not among the modules found"):
        choose_top(CHIP, "nope")
    with pytest.raises(DesignError, match=r"no top module found.*tb_chip \(it has no ports\)"):
        choose_top([mod("tb_chip", ports=0)])


def test_closure_and_compile_order_packages_first_children_before_parents() -> None:
    assert [u.name for u in closure(CHIP, "chip")] == ["base_pkg", "chip_pkg", "leaf", "mid", "chip"]
    assert [p.name for p in compile_order(CHIP, "chip")] == [
        "base_pkg.sv", "chip_pkg.sv", "leaf.sv", "mid.sv", "chip.sv"]
    # The testbench and unrelated modules are not part of the design.
    assert [p.name for p in compile_order([*CHIP, mod("spare")], "mid")] == [
        "base_pkg.sv", "chip_pkg.sv", "leaf.sv", "mid.sv"]


def test_files_holding_several_modules_are_listed_once() -> None:
    units = [mod("a", "ab.sv"), mod("b", "ab.sv", children=("a",)), mod("top", children=("b",))]
    assert [p.name for p in compile_order(units, "top")] == ["ab.sv", "top.sv"]


def test_package_refs_from_the_scan_fill_what_constant_folding_hid() -> None:
    units = add_package_refs([pkg("cc_pkg"), mod("cc_fifo")], {R / "cc_fifo.sv": ("cc_pkg", "std_thing")})
    assert units[1].packages == ("cc_pkg",)
    assert [p.name for p in compile_order(units, "cc_fifo")] == ["cc_pkg.sv", "cc_fifo.sv"]


def test_unused_clock_and_reset_ports_are_taken_by_name() -> None:
    inputs = [("clk", 1), ("reset", 1), ("rst_ni", 1), ("S_AXI_ARESETN", 1), ("clk_en", 1),
              ("rst_sel", 1), ("data", 8), ("wide_clk", 4), ("i_reset", 1)]
    clocks, resets, notes = clock_reset_by_name(inputs, read={"rst_sel"}, clocks=[], resets={"i_reset": False})
    assert clocks == ["clk"]
    assert resets == {"i_reset": False, "reset": False, "rst_ni": True, "S_AXI_ARESETN": True}
    assert len(notes) == 4
    assert "'clk' drives no always block" in notes[0]


def test_found_clocks_are_kept_and_not_renamed() -> None:
    clocks, resets, notes = clock_reset_by_name([("i_clk", 1)], read=(), clocks=["i_clk"], resets={})
    assert (clocks, resets, notes) == (["i_clk"], {}, [])


# -- hdl_scan --------------------------------------------------------------------------


def test_scan_ignores_comments_and_strings() -> None:
    text = ('`include "defs.svh"\n// module fake;\n/* package nope; */\n'
            'package p; endpackage\nmodule m import q::*; (); initial $display("module s;"); endmodule\n')
    facts = scan(text)
    assert facts.modules == ("m",)
    assert facts.packages == ("p",)
    assert facts.includes == ("defs.svh",)
    assert facts.package_refs == ("q",)


def test_package_order_puts_dependencies_first() -> None:
    files = [Path("top.sv"), Path("b_pkg.sv"), Path("a_pkg.sv")]
    facts = {
        Path("top.sv"): scan("module top import b_pkg::*; (); endmodule"),
        Path("b_pkg.sv"): scan("package b_pkg; localparam int X = a_pkg::Y; endpackage"),
        Path("a_pkg.sv"): scan("package a_pkg; localparam int Y = 1; endpackage"),
    }
    assert package_order(files, facts) == [Path("a_pkg.sv"), Path("b_pkg.sv"), Path("top.sv")]


def test_include_dirs_are_the_folders_above_the_included_path() -> None:
    facts = {
        Path("/p/rtl/fifo.sv"): scan('`include "common_cells/registers.svh"\n`include "local.svh"\n'),
    }
    headers = [Path("/p/rtl/include/common_cells/registers.svh"), Path("/p/rtl/local.svh"),
               Path("/p/other/common_cells/registers.svh")]
    # The nearest match wins; Verilator never looks beside the includer, so that folder is one too.
    assert include_dirs_for(facts, headers) == [Path("/p/rtl/include"), Path("/p/rtl")]


def test_includes_climbing_with_dotdot_resolve_relative_to_the_includer() -> None:
    facts = {Path("/p/rtl/core.v"): scan('`include "../rtl/config.vh"\n`include "../missing.vh"\nmodule core; endmodule'),
             Path("/p/sim/tb.v"): scan('`include "../rtl/config.vh"\nmodule tb; endmodule')}
    known = {Path("/p/rtl/config.vh"), Path("/p/rtl/core.v"), Path("/p/sim/tb.v")}
    found = resolve_includes(facts, known)
    assert [(i.includer.name, i.header, i.directory) for i in found] == [
        ("core.v", Path("/p/rtl/config.vh"), Path("/p/rtl")), ("tb.v", Path("/p/rtl/config.vh"), Path("/p/sim"))]


def test_included_sources_are_not_compiled_twice() -> None:
    facts = {Path("/p/top.v"): scan('`include "defs.v"\nmodule top; endmodule')}
    assert included_files(facts, [Path("/p/top.v"), Path("/p/defs.v"), Path("/p/x.v")]) == {Path("/p/defs.v")}


def test_a_file_of_macros_alone_is_a_header() -> None:
    defs = scan("// options\n`define WIDTH 8\n`ifdef FAST\n`define DEPTH 4\n`endif\n`timescale 1ns/1ps\n")
    assert defs.defines_only
    assert defs.macros == ("WIDTH", "DEPTH")
    user = scan("`include \"defs.v\"\nmodule m(input [`WIDTH-1:0] a); `ifdef FAST wire x; `endif endmodule")
    assert not user.defines_only
    assert user.macro_uses == {"WIDTH"}
    assert not scan("`timescale 1ns/1ps\n").defines_only


# -- design.toml -----------------------------------------------------------------------


def test_design_toml_round_trips(tmp_path: Path) -> None:
    design = Design(name='odd "name"', root=tmp_path, top="chip",
                    rtl=(tmp_path / "rtl" / "pkg.sv", tmp_path / "rtl" / "chip.sv", tmp_path.parent / "ext" / "x.v"),
                    include_dirs=(tmp_path / "inc",), clocks=("clk",),
                    resets=(Reset("rst_n", True), Reset("srst", False)), defines=("W=8",),
                    description="inferred")
    text = design_toml(design, ["top: chip (why)"])
    assert text.startswith("# Written by `benchwright init`")
    assert "# top: chip (why)" in text
    back = parse_design(tomllib.loads(text), tmp_path)
    assert back.rtl == (tmp_path / "rtl" / "pkg.sv", tmp_path / "rtl" / "chip.sv", tmp_path / ".." / "ext" / "x.v")
    assert (back.name, back.top, back.clocks, back.resets, back.defines) == (
        design.name, design.top, design.clocks, design.resets, design.defines)
    assert back.include_dirs == design.include_dirs
    assert not back.target_given
