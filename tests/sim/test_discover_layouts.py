"""Inference on real repository layouts (real Verilator): defines includes, `../` includes, FuseSoC cores,
the repository's own testbench found and run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.errors import DesignError, ToolNotFoundError
from sim.project.discover import gather_folder, infer
from sim.project.inputs import load_or_infer
from sim.run.human import evaluate_human
from sim.tools import find_verilator

DATA = Path(__file__).resolve().parents[1] / "data" / "sim" / "project"

pytestmark = pytest.mark.simulator_required


@pytest.fixture(autouse=True)
def _verilator() -> None:
    try:
        find_verilator()
    except ToolNotFoundError as exc:
        pytest.skip(str(exc))


def copy(name: str, tmp_path: Path) -> Path:
    # Below a folder named `tests` on purpose: only folders inside the project mark test code.
    root = tmp_path / "tests" / name
    shutil.copytree(DATA / name, root)
    return root


def rel(paths: tuple[Path, ...], root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_opencores_defines_includes_and_ifdef_ports(tmp_path: Path) -> None:
    root = copy("defines_core", tmp_path)
    inferred = infer(gather_folder(root))
    d = inferred.design
    # Every module file includes "gpio_defines.v" from its own folder; Verilator only finds it
    # through an include dir, and the port list depends on its macros.
    assert (d.top, rel(d.rtl, root)) == ("gpio_top", ["rtl/verilog/gpio_reg.v", "rtl/verilog/gpio_top.v"])
    # timescale.v lives with the bench (freecores/gpio does this): found there, never compiled.
    assert d.include_dirs == (root / "bench" / "verilog", root / "rtl" / "verilog")
    assert (d.clocks, [r.name for r in d.resets]) == (("clk",), ["rst"])
    text = "\n".join(inferred.explain())
    assert "gpio_defines.v is `include`d" in text
    assert "backup/old folders not parsed: rtl/verilog-backup" in text
    human = d.human_test
    assert human is not None
    assert (human.top, rel(human.files, root)) == ("tb_gpio_top", ["bench/verilog/tb_gpio_top.v"])
    result = evaluate_human(d)
    assert result.status.value == "ok", result.detail
    assert result.coverage is not None
    assert result.overall > 50


def test_includes_relative_to_the_including_file(tmp_path: Path) -> None:
    root = copy("dotdot_cpu", tmp_path)
    inferred = infer(gather_folder(root))
    d = inferred.design
    assert (d.top, rel(d.rtl, root)) == ("soc", ["rtl/core.v", "rtl/soc.v"])
    assert root / "rtl" in d.include_dirs  # `include "../rtl/config.vh" resolves from rtl/
    assert [f.name for f, _ in inferred.dropped] == ["top_fpga.v"]  # a board wrapper around a vendor cell
    assert d.human_test is not None
    assert d.human_test.top == "soc_tb"
    assert evaluate_human(d).status.value == "ok"


def test_a_fusesoc_core_decides_the_top_and_brings_its_testbench(tmp_path: Path) -> None:
    root = tmp_path / "core_repo"
    shutil.copytree(DATA / "core_repo", root)
    inferred = infer(gather_folder(root))
    d = inferred.design
    assert (d.top, rel(d.rtl, root), d.include_dirs, d.defines) == \
        ("blinky", ["rtl/blinky.v"], (root / "inc",), ("BLINK_BITS=4",))
    assert inferred.choice.candidates == ("spare", "blinky")  # two tops; the core names one
    assert "core_repo.core declares" in inferred.choice.reason
    assert d.human_test is not None
    assert (d.human_test.top, rel(d.human_test.files, root)) == ("tb_blinky", ["tb/tb_blinky.v"])
    result = evaluate_human(d)
    assert result.status.value == "ok", result.detail


def test_top_still_beats_the_core(tmp_path: Path) -> None:
    root = tmp_path / "core_repo"
    shutil.copytree(DATA / "core_repo", root)
    assert load_or_infer([root], top="spare").top == "spare"  # in the core's files
    other = load_or_infer([root], top="other")  # not in them: the folder is searched
    assert (other.top, rel(other.rtl, root), other.human_test) == ("other", ["extra/other.v"], None)


def test_a_timescale_header_nobody_ships_gets_a_stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # freecores/simple_spi includes "timescale.v" from every file and has none anywhere.
    monkeypatch.setenv("BENCHWRIGHT_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "spi"
    (root / "rtl").mkdir(parents=True)
    (root / "rtl" / "shift.v").write_text(
        '`include "timescale.v"\nmodule shift(input clk, input d, output reg [3:0] q);\n'
        "always @(posedge clk) q <= {q[2:0], d};\nendmodule\n")
    inferred = infer(gather_folder(root))
    stand_in = tmp_path / "cache" / "stand-ins"
    assert inferred.design.include_dirs == (stand_in,)
    assert (stand_in / "timescale.v").read_text() == "`timescale 1ns / 1ps\n"
    assert "timescale.v: `include`d but found nowhere" in "\n".join(inferred.explain())
    # any other missing header is still Verilator's error to name
    (root / "rtl" / "shift.v").write_text('`include "defs.vh"\n' + (root / "rtl" / "shift.v").read_text())
    with pytest.raises(DesignError, match=r"defs\.vh"):
        infer(gather_folder(root))
