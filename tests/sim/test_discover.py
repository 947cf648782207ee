"""sim.project.discover and `benchwright init`/`run` with real Verilator on the multi-file example."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sim.errors import DesignError, ToolNotFoundError
from sim.project.discover import gather_filelist, gather_files, gather_folder, infer
from sim.project.init_cli import init_main
from sim.project.inputs import gather, load_designs, load_or_infer
from sim.suite import load_design
from sim.tools import find_verilator

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pwm_timer"
RTL_ORDER = ["rtl/pkg/pwm_pkg.sv", "rtl/prescaler.sv", "rtl/pwm_channel.sv", "rtl/pwm_timer.sv"]

pytestmark = pytest.mark.simulator_required


@pytest.fixture(autouse=True)
def _verilator() -> None:
    try:
        find_verilator()
    except ToolNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the example (no design.toml, as shipped)."""
    root = tmp_path / "pwm_timer"
    shutil.copytree(EXAMPLE, root)
    assert not (root / "design.toml").exists()
    return root


def rel(paths: tuple[Path, ...], root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_filelist_inference(project: Path) -> None:
    inferred = infer(gather_filelist(project / "files.f"))
    d = inferred.design
    assert d.top == "pwm_timer"
    assert rel(d.rtl, project) == RTL_ORDER
    assert d.include_dirs == (project / "rtl" / "include",)
    assert d.clocks == ("clk",)
    assert [(r.name, r.active_low) for r in d.resets] == [("rst_n", True)]
    units = {u.name: u for u in inferred.units}
    assert units["pwm_timer"].children == ("prescaler", "pwm_channel")
    assert units["pwm_channel"].packages == ("pwm_pkg",)
    assert units["pwm_pkg"].kind == "package"
    text = "\n".join(inferred.explain())
    assert "filelist files.f" in text
    assert "top: pwm_timer (the only module no other design module instantiates)" in text


def test_folder_without_filelist_finds_the_same_design(project: Path) -> None:
    (project / "files.f").unlink()
    (project / "rtl" / "cells.f").unlink()
    sources = gather_folder(project)
    assert not any("tb" in f.parts for f in sources.files)  # tb/ is test code
    # The include dir is found from the `include targets; packages are parsed first.
    assert sources.include_dirs == (project / "rtl" / "include",)
    assert sources.files[0].name == "pwm_pkg.sv"
    d = infer(sources).design
    assert (d.top, rel(d.rtl, project), d.clocks) == ("pwm_timer", RTL_ORDER, ("clk",))


def test_files_with_a_testbench_among_them(project: Path) -> None:
    files = [project / "tb" / "tb_pwm_timer.sv", *reversed([project / p for p in RTL_ORDER])]
    inferred = infer(gather_files(files, include_dirs=[project / "rtl" / "include"]))
    assert inferred.design.top == "pwm_timer"
    assert rel(inferred.design.rtl, project) == RTL_ORDER
    assert [u.name for u in inferred.units if u.name.startswith("tb")] == ["tb_pwm_timer"]


def test_two_tops_is_a_clear_error_and_top_picks_one(project: Path) -> None:
    (project / "rtl" / "spare.sv").write_text("module spare(input logic a, output logic y); assign y = a; endmodule\n")
    (project / "files.f").unlink()
    with pytest.raises(DesignError) as err:
        infer(gather_folder(project))
    assert "2 top-module candidates" in str(err.value)
    assert "pwm_timer" in str(err.value)
    assert "spare" in str(err.value)
    assert "--top NAME" in str(err.value)
    assert infer(gather_folder(project), "pwm_timer").design.top == "pwm_timer"


def test_a_file_verilator_rejects_is_dropped_and_reported(project: Path) -> None:
    (project / "files.f").unlink()
    (project / "rtl" / "broken.sv").write_text("module broken(input a; endmodule\n")
    inferred = infer(gather_folder(project))
    assert inferred.design.top == "pwm_timer"
    assert [f.name for f, _ in inferred.dropped] == ["broken.sv"]
    assert any("dropped rtl/broken.sv" in line for line in inferred.explain())


def test_load_or_infer_prefers_design_toml(project: Path) -> None:
    assert init_main([str(project)]) == 0
    design = load_or_infer([project])
    assert design.top == "pwm_timer"
    assert load_or_infer([project], top="prescaler").top == "prescaler"


def test_init_writes_reviewable_toml_and_never_overwrites(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert init_main([str(project)]) == 0
    out = capsys.readouterr().out
    assert "top: pwm_timer" in out
    assert "wrote" in out
    toml = project / "design.toml"
    written = toml.read_text()
    design = load_design(project)
    assert design.top == "pwm_timer"
    assert rel(design.rtl, project) == RTL_ORDER
    assert design.include_dirs == (project / "rtl" / "include",)
    assert design.clocks == ("clk",)

    assert init_main([str(project), "--top", "prescaler"]) == 1
    assert "exists; not overwritten" in capsys.readouterr().err
    assert toml.read_text() == written
    assert init_main([str(project), "--top", "prescaler", "--force"]) == 0
    assert load_design(project).top == "prescaler"


def test_init_from_a_filelist_and_files(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "elsewhere" / "design.toml"
    out.parent.mkdir()
    assert init_main(["-f", str(project / "files.f"), "--out", str(out)]) == 0
    design = load_design(out)
    assert tuple(p.resolve() for p in design.rtl) == tuple(project / p for p in RTL_ORDER)
    assert init_main(["--dry-run", *(str(project / p) for p in RTL_ORDER)]) == 0
    assert init_main([str(tmp_path / "empty-nothing")]) == 2


def test_library_dirs_and_files_are_resolved_into_explicit_files(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "cells").mkdir()
    (tmp_path / "top.v").write_text("module top(input clk, input rst, input [3:0] d, output [3:0] q);\n"
                                    "  dff4 u0(.clk(clk), .rst(rst), .d(d), .q(q));\n  inv1 u1();\nendmodule\n")
    (tmp_path / "lib" / "dff4.v").write_text("module dff4(input clk, input rst, input [3:0] d, output reg [3:0] q);\n"
                                             "  always @(posedge clk) if (rst) q <= 4'd0; else q <= d;\nendmodule\n")
    (tmp_path / "lib" / "unused.v").write_text("module unused(input a, output b); assign b = a; endmodule\n")
    (tmp_path / "cells" / "prims.v").write_text("module inv1(); endmodule\nmodule nand1(); endmodule\n")
    (tmp_path / "design.f").write_text("top.v\n-y lib\n+libext+.v\n-v cells/prims.v\n")
    inferred = infer(gather_filelist(tmp_path / "design.f"))
    d = inferred.design
    # Only the library modules the top uses are listed, so the design builds without the list.
    assert rel(d.rtl, tmp_path) == ["lib/dff4.v", "cells/prims.v", "top.v"]
    assert (d.top, d.clocks, [(r.name, r.active_low) for r in d.resets]) == ("top", ("clk",), [("rst", False)])
    assert not any("not a candidate: inv1" in line for line in inferred.explain())


def test_gather_rejects_mixed_inputs(project: Path) -> None:
    with pytest.raises(DesignError, match="either -f"):
        gather([project], project / "files.f")
    with pytest.raises(DesignError, match="goes after -f"):
        gather([project / "files.f"])


def test_bench_inputs_infer_each_plain_subfolder(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    for name in ("a", "b"):
        shutil.copytree(EXAMPLE, suite / name)
    messages: list[str] = []
    designs = load_designs([suite], warn=messages.append)
    # The whole folder has each module twice (two tops): each subfolder is one design.
    assert [(d.name, d.top) for d in designs] == [("a", "pwm_timer"), ("b", "pwm_timer")]
    assert messages == []


def test_run_works_on_the_example_without_design_toml(project: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from agent.cli import run_main

    out = tmp_path / "run"
    code = run_main([str(project), "--rounds", "0", "--sim-calls", "8", "--json", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "no design.toml; inferred the design" in captured.err
    data = json.loads(captured.out)
    assert data["status"] == "ok"
    assert data["coverage"]["overall"] > 50
    assert (out / "tb_pwm_timer.sv").is_file()


def test_a_module_defined_twice_opens_and_says_which_file_it_used(tmp_path: Path) -> None:
    """A repository that also ships an all-in-one export (every module again in one file, as the
    SD-card controller of issue 32 does) opens: each module's own file is used, the export is left
    out, and the explanation says so. A second copy that cannot be left out whole is still an error."""
    repo = tmp_path / "sdspi"
    (repo / "rtl").mkdir(parents=True)
    (repo / "export").mkdir()
    leaf = "module sd_leaf (input logic clk, input logic d, output logic q);\n  always_ff @(posedge clk) q <= d;\nendmodule\n"
    top = ("module sd_top (input logic clk, input logic d, output logic q);\n"
           "  sd_leaf u_leaf (.clk(clk), .d(d), .q(q));\nendmodule\n")
    (repo / "rtl" / "sd_leaf.v").write_text(leaf)
    (repo / "rtl" / "sd_top.v").write_text(top)
    (repo / "export" / "sdspi_all.v").write_text(leaf.replace("q <= d", "q <= ~d") + top)
    inferred = infer(gather_folder(repo, ""))
    d = inferred.design
    assert d.top == "sd_top"
    assert rel(d.rtl, repo) == ["rtl/sd_leaf.v", "rtl/sd_top.v"]
    text = "\n".join(inferred.explain())
    assert ("sd_leaf is declared in 2 files: used rtl/sd_leaf.v (named after the module); "
            "left out export/sdspi_all.v") in text, text
    assert "sd_top is declared in 2 files: used rtl/sd_top.v" in text
    # The export also holds a module nothing else declares: it cannot be left out, so no guess.
    (repo / "export" / "sdspi_all.v").write_text(leaf + top + "module sd_extra; endmodule\n")
    (repo / "rtl" / "sd_top.v").write_text(top.replace("endmodule", "  sd_extra u_extra ();\nendmodule"))
    with pytest.raises(DesignError, match="no whole file can be left out"):
        infer(gather_folder(repo, ""), "sd_top")


def test_a_core_that_depends_on_cores_of_the_same_repository_gets_their_files_and_defines(tmp_path: Path) -> None:
    """FuseSoC cores of one repository: the top's core depends on a leaf core in a subfolder
    (`>=::leaf:1.0`; the leaf is 1.2) that sets a define; the leaf's files come first, its
    define applies, and a stale copy of the leaf elsewhere in the repository is not parsed.
    A dependency no core of the repository provides falls back to parsing the folder."""
    repo = tmp_path / "soc"
    (repo / "leaf").mkdir(parents=True)
    (repo / "old").mkdir()
    (repo / "soc.core").write_text(
        "CAPI=2:\nname: ::soc:1.0\nfilesets:\n  rtl:\n    files: [top.v]\n    file_type: verilogSource\n"
        "    depend: ['>=::leaf:1.0']\ntargets:\n  default:\n    filesets: [rtl]\n    toplevel: top\n")
    (repo / "leaf" / "leaf.core").write_text(
        "CAPI=2:\nname: ::leaf:1.2\nfilesets:\n  rtl:\n    files: [leaf.v]\n    file_type: verilogSource\n"
        "targets:\n  default:\n    filesets: [rtl]\n    parameters: [LEAF_W]\n"
        "parameters:\n  LEAF_W:\n    datatype: int\n    default: 4\n    paramtype: vlogdefine\n")
    (repo / "leaf" / "leaf.v").write_text(
        "module leaf (input logic clk, input logic [`LEAF_W-1:0] d, output logic [`LEAF_W-1:0] q);\n"
        "  always_ff @(posedge clk) q <= d;\nendmodule\n")
    (repo / "old" / "leaf_v0.v").write_text("module leaf (input logic clk); endmodule\n")
    (repo / "top.v").write_text("module top (input logic clk, input logic [3:0] d, output logic [3:0] q);\n"
                                "  leaf u_leaf (.clk(clk), .d(d), .q(q));\nendmodule\n")
    sources = gather_folder(repo, "")
    assert rel(list(sources.files), repo) == ["leaf/leaf.v", "top.v"]
    assert "LEAF_W=4" in sources.defines
    assert "the cores it depends on (::leaf:1.2)" in sources.origin
    design = infer(sources).design
    assert design.top == "top"
    assert rel(design.rtl, repo) == ["leaf/leaf.v", "top.v"]
    # A dependency on a core the repository does not hold: the folder is parsed instead, and said so.
    (repo / "soc.core").write_text((repo / "soc.core").read_text().replace("['>=::leaf:1.0']",
                                                                           "['>=::leaf:1.0', 'acme:ip:dma']"))
    fallback = gather_folder(repo, "")
    assert any("depends on cores not in this folder (acme:ip:dma:0)" in n for n in fallback.notes), fallback.notes
