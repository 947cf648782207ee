"""Design and testbench discovery for a document."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.project import (
    find_project,
    find_testbench,
    generated_path,
    modules_in,
    parse_filelist,
    proposal_path,
)
from server.settings import Settings
from sim.errors import DesignError

TOP = "module top(input logic clk);\nendmodule\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def design(tmp_path: Path) -> Path:
    root = tmp_path / "ws" / "d"
    write(root / "design.toml", 'top = "top"\nrtl = ["rtl/top.sv"]\ntarget = 80\n')
    write(root / "rtl" / "top.sv", TOP)
    return root


def test_design_toml_found_upward_and_tb_convention(design: Path) -> None:
    settings = Settings()
    project = find_project(design / "rtl" / "top.sv", [design.parent], settings)
    assert project is not None
    assert project.from_toml
    assert project.workspace == design.parent
    assert project.design.top == "top"
    assert find_testbench(project, settings) is None
    write(design / "tb" / "bench.sv", "module bench; top dut(.clk()); endmodule\n")
    tb = find_testbench(project, settings)
    assert tb is not None
    assert (tb.path.name, tb.source) == ("bench.sv", "tb/")
    write(design / "tb" / "tb_top.sv", "module tb_top; endmodule\n")
    tb = find_testbench(project, settings)
    assert tb is not None
    assert tb.path.name == "tb_top.sv"
    assert proposal_path(project, tb) == tb.path


def test_a_generated_testbench_comes_last_and_proposals_go_into_tb(design: Path) -> None:
    settings = Settings()
    project = find_project(design / "rtl" / "top.sv", [design.parent], settings)
    assert project is not None
    generated = generated_path(project)
    assert generated == design.parent / ".benchwright" / "generated" / "d" / "tb_top.sv"
    write(generated, "module tb_top; top dut(.clk()); endmodule\n")
    tb = find_testbench(project, settings)
    assert tb is not None
    assert (tb.kind, tb.path) == ("generated", generated)
    assert "built-in engine" in tb.source
    assert proposal_path(project, tb) == design / "tb" / "tb_top.sv"  # into the repository, not .benchwright/
    write(design / "tb" / "bench.sv", "module bench; top dut(.clk()); endmodule\n")
    mine = find_testbench(project, settings)
    assert mine is not None
    assert (mine.kind, mine.path.name) == ("sv", "bench.sv")  # any testbench of the repository's wins


def test_precedence_setting_then_proposal_then_human(design: Path) -> None:
    (design / "design.toml").write_text((design / "design.toml").read_text()
                                        + '[human_test]\nkind = "sv"\nfiles = ["tb/h.sv"]\ntop = "h"\n')
    write(design / "tb" / "h.sv", "module h; endmodule\n")
    settings = Settings()
    project = find_project(design / "rtl" / "top.sv", [design.parent], settings)
    assert project is not None
    human = find_testbench(project, settings)
    assert human is not None
    assert human.kind == "human"
    accepted = write(design / "tb" / "tb_top.sv", "module tb_top; endmodule\n")
    proposal = find_testbench(project, settings, accepted)
    assert proposal is not None
    assert proposal.source == "proposal"
    settings.project.testbench = "d/tb/other.py"
    chosen = find_testbench(project, settings, accepted)
    assert chosen is not None
    assert (chosen.kind, chosen.path) == ("cocotb", design / "tb" / "other.py")


def test_loose_file_and_settings_overrides(tmp_path: Path) -> None:
    rtl = write(tmp_path / "alu.sv", "// alu\nmodule alu(input a); endmodule\nmodule helper; endmodule\n")
    settings = Settings()
    settings.project.defines = ["W=4"]
    settings.project.include_dirs = ["inc"]
    project = find_project(rtl, [tmp_path], settings)
    assert project is not None
    assert (project.design.top, project.design.defines) == ("alu", ("W=4",))
    assert project.design.include_dirs == ((tmp_path / "inc").resolve(),)
    settings.project.top = "helper"
    project = find_project(rtl, [tmp_path], settings)
    assert project is not None
    assert project.design.top == "helper"
    assert find_project(write(tmp_path / "x.svh", "`define X"), [tmp_path], settings) is None


def test_filelist(tmp_path: Path) -> None:
    write(tmp_path / "src" / "a.sv", "module a; endmodule\n")
    write(tmp_path / "src" / "b.sv", "module b; a u(); endmodule\n")
    write(tmp_path / "files.f", "// list\n+incdir+inc\n-DFOO=1\nsrc/a.sv\nsrc/b.sv  # second\n")
    files, incdirs, defines = parse_filelist(tmp_path / "files.f")
    assert [f.name for f in files] == ["a.sv", "b.sv"]
    assert incdirs == [tmp_path / "inc"]
    assert defines == ["FOO=1"]
    settings = Settings()
    settings.project.filelist = "files.f"
    settings.project.top = "b"
    project = find_project(tmp_path / "src" / "b.sv", [tmp_path], settings)
    assert project is not None
    assert (project.design.top, len(project.design.rtl)) == ("b", 2)
    settings.project.filelist = "missing.f"
    with pytest.raises(FileNotFoundError):
        find_project(tmp_path / "src" / "b.sv", [tmp_path], settings)


def test_bad_design_toml_raises(tmp_path: Path) -> None:
    write(tmp_path / "design.toml", "top = 3\n")
    with pytest.raises(DesignError):
        find_project(write(tmp_path / "a.sv", TOP), [tmp_path], Settings())


def test_modules_in_skips_comments() -> None:
    text = "// module fake;\n/* module also_fake; */\nmodule real_one #(parameter W = 1) ();\nendmodule\n"
    assert modules_in(text) == [("real_one", 2)]
