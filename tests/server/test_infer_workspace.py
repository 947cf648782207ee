"""Design inference in the server: the incremental workspace index, find_project without
design.toml, and (over stdio) saving a leaf module of a multi-file design publishes the top's coverage."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsp_session import REPO, requires_verilator, start_session

from server.project import find_project, find_testbench
from server.settings import Settings
from server.workspace_index import ModuleIndex

EXAMPLE = REPO / "examples" / "pwm_timer"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace holding the multi-file example (no design.toml) and an unrelated design."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root / "pwm_timer")
    write(root / "other" / "blinky.sv", "module blinky(input logic clk, output logic led);\n"
          "  always_ff @(posedge clk) led <= ~led;\nendmodule\n")
    return root


def test_index_connects_a_leaf_to_its_design_and_rescans_only_a_saved_file(ws: Path) -> None:
    index = ModuleIndex()
    index.ensure(ws)
    first = index.scans
    assert first == 7  # 6 .sv/.svh files of the example + blinky.sv
    leaf = ws / "pwm_timer" / "rtl" / "prescaler.sv"
    names = sorted(p.relative_to(ws).as_posix() for p in index.component(leaf, ws))
    assert names == ["pwm_timer/rtl/pkg/pwm_pkg.sv", "pwm_timer/rtl/prescaler.sv", "pwm_timer/rtl/pwm_channel.sv",
                     "pwm_timer/rtl/pwm_timer.sv", "pwm_timer/tb/tb_pwm_timer.sv"]
    assert index.component(ws / "other" / "blinky.sv", ws) == [ws / "other" / "blinky.sv"]

    index.ensure(ws)
    index.update(leaf)  # unchanged: not re-scanned
    assert index.scans == first
    leaf.write_text(leaf.read_text() + "\n// edited\n")
    os.utime(leaf, ns=(1, 1))
    index.update(leaf)
    assert index.scans == first + 1

    new = write(ws / "pwm_timer" / "rtl" / "extra.sv", "module extra(input logic a); prescaler p(); endmodule\n")
    index.update(new)
    assert new in index.component(leaf, ws)
    new.unlink()
    index.update(new)
    assert new not in index.component(leaf, ws)
    # files.f (through its nested rtl/cells.f) lists the leaf; the shallower list wins.
    assert index.filelist_for(leaf, ws) == ws / "pwm_timer" / "files.f"
    (ws / "pwm_timer" / "files.f").unlink()
    index.update(ws / "pwm_timer" / "files.f")
    assert index.filelist_for(leaf, ws) == ws / "pwm_timer" / "rtl" / "cells.f"


def test_copies_of_a_design_stay_apart(tmp_path: Path) -> None:
    for name in ("a", "b"):
        shutil.copytree(EXAMPLE, tmp_path / name)
    index = ModuleIndex()
    index.ensure(tmp_path)
    component = index.component(tmp_path / "a" / "rtl" / "prescaler.sv", tmp_path)
    assert component
    assert all(tmp_path / "a" in p.parents for p in component)


@pytest.mark.simulator_required
@requires_verilator
def test_find_project_infers_the_top_holding_the_saved_file(ws: Path) -> None:
    (ws / "pwm_timer" / "files.f").unlink()
    (ws / "pwm_timer" / "rtl" / "cells.f").unlink()
    index = ModuleIndex()
    leaf = ws / "pwm_timer" / "rtl" / "prescaler.sv"
    project = find_project(leaf, [ws], Settings(), index)
    assert project is not None
    d = project.design
    assert (d.top, d.name, d.root) == ("pwm_timer", "pwm_timer", ws / "pwm_timer")
    assert [p.name for p in d.rtl] == ["pwm_pkg.sv", "prescaler.sv", "pwm_channel.sv", "pwm_timer.sv"]
    assert d.include_dirs == (ws / "pwm_timer" / "rtl" / "include",)
    assert (d.clocks, [(r.name, r.active_low) for r in d.resets]) == (("clk",), [("rst_n", True)])
    # Without the index (the old behaviour) the leaf is a design of its own.
    alone = find_project(leaf, [ws], Settings())
    assert alone is not None
    assert alone.design.top == "prescaler"


def test_a_save_during_the_first_index_walk_waits_for_it(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race found last turn: a save that arrives while the index is still being built (the
    lint of the opened file started the walk) must not see a half-built index and simulate the
    saved file as a design of its own."""
    import threading
    import time

    from server import workspace_index

    (ws / "pwm_timer" / "files.f").unlink()
    (ws / "pwm_timer" / "rtl" / "cells.f").unlink()
    walking = threading.Event()
    real_scan = workspace_index.hdl_scan.scan

    def slow_scan(text: str):  # type: ignore[no-untyped-def]
        walking.set()
        time.sleep(0.1)  # a big workspace: the walk takes a while
        return real_scan(text)

    monkeypatch.setattr(workspace_index.hdl_scan, "scan", slow_scan)
    index = ModuleIndex()
    first = threading.Thread(target=index.ensure, args=(ws,))
    first.start()
    assert walking.wait(10)
    leaf = ws / "pwm_timer" / "rtl" / "prescaler.sv"
    project = find_project(leaf, [ws], Settings(), index)  # the save, while the walk goes on
    first.join()
    assert project is not None
    assert project.design.top == "pwm_timer", "the save saw a half-built index"
    assert index.scans == 7  # one walk, not two


@pytest.mark.simulator_required
@requires_verilator
def test_a_workspace_filelist_is_honoured_and_settings_override(ws: Path) -> None:
    # A second top using the same leaf: from the files alone, prescaler.sv is ambiguous.
    write(ws / "pwm_timer" / "rtl" / "spare.sv",
          "module spare(input logic clk, input logic rst_n, output logic t);\n"
          "  prescaler u(.clk, .rst_n, .en(1'b1), .div(4'd3), .tick(t));\nendmodule\n")
    leaf = ws / "pwm_timer" / "rtl" / "prescaler.sv"
    index = ModuleIndex()
    project = find_project(leaf, [ws], Settings(), index)
    assert project is not None
    assert project.design.top == "pwm_timer"  # files.f lists the design without spare.sv
    assert all(p.name != "spare.sv" for p in project.design.rtl)

    settings = Settings()
    settings.project.top = "spare"
    project = find_project(leaf, [ws], settings, index)
    assert project is not None
    assert project.design.top == "spare"
    assert [p.name for p in project.design.rtl][-1] == "spare.sv"

    (ws / "pwm_timer" / "files.f").unlink()
    index.update(ws / "pwm_timer" / "files.f")
    # Ambiguous without the list: the server falls back to the one-file design (lint works)
    # and tells the caller the candidates (the editor offers a pick).
    heard: list[tuple[Path, list[tuple[str, str, int]]]] = []
    project = find_project(leaf, [ws], Settings(), index,
                           lambda doc, exc: heard.append((doc, [(u.name, u.file.name, u.line) for u in exc.candidates])))
    assert project is not None
    assert (project.design.top, len(project.design.rtl)) == ("prescaler", 1)
    assert heard == [(leaf, [("pwm_timer", "pwm_timer.sv", 5), ("spare", "spare.sv", 1)])]


@pytest.mark.simulator_required
@requires_verilator
def test_testbench_folders_are_left_out_as_on_the_command_line(ws: Path) -> None:
    (ws / "pwm_timer" / "files.f").unlink()
    (ws / "pwm_timer" / "rtl" / "cells.f").unlink()
    # A bench wrapper with ports (not a testbench by name) that instantiates the design.
    write(ws / "pwm_timer" / "bench" / "verilog" / "harness.sv",
          "module harness(input logic clk, input logic rst_n, output logic [1:0] pwm);\n"
          "  pwm_timer u(.clk, .rst_n, .wr_en(1'b0), .addr(2'd0), .wdata('0), .pwm, .busy(), .done());\n"
          "endmodule\n")
    leaf = ws / "pwm_timer" / "rtl" / "prescaler.sv"
    heard: list[Path] = []
    project = find_project(leaf, [ws], Settings(), ModuleIndex(), lambda doc, exc: heard.append(doc))
    assert project is not None
    assert project.design.top == "pwm_timer"
    assert all("bench" not in p.parts for p in project.design.rtl)
    assert heard == []


@pytest.mark.simulator_required
@requires_verilator
def test_a_core_in_the_workspace_names_the_design_and_its_testbench(ws: Path) -> None:
    shutil.copytree(REPO / "tests" / "data" / "sim" / "project" / "core_repo", ws / "core_repo")
    rtl = ws / "core_repo" / "rtl" / "blinky.v"
    project = find_project(rtl, [ws], Settings(), ModuleIndex())
    assert project is not None
    d = project.design
    assert (d.top, d.defines, d.include_dirs) == ("blinky", ("BLINK_BITS=4",), (ws / "core_repo" / "inc",))
    tb = find_testbench(project, Settings())
    assert tb is not None
    assert (tb.kind, tb.path.name) == ("human", "tb_blinky.v")
    assert "the repository's own testbench" in tb.source
    assert "core_repo.core" in tb.source


@pytest.mark.simulator_required
@requires_verilator
def test_the_repository_own_testbench_belongs_to_the_design_it_tests(tmp_path: Path) -> None:
    """Found last turn by the editor's regression flow: tb/tb_<top>.sv of a design without design.toml
    resolved to a one-file design of its own, so its lint missed the design's module (MODMISSING)
    and saving it (e.g. after Accept new behaviour) re-ran nothing."""
    shutil.copytree(REPO / "tests" / "data" / "regression" / "apb_adder", tmp_path / "apb_adder")
    root = tmp_path / "apb_adder"
    index = ModuleIndex()
    of_rtl = find_project(root / "rtl" / "apb_adder.sv", [tmp_path], Settings(), index)
    of_tb = find_project(root / "tb" / "tb_apb_adder.sv", [tmp_path], Settings(), index)
    assert of_rtl is not None
    assert of_tb is not None
    same = ("name", "top", "root", "rtl", "clocks", "resets", "human_test")
    assert [getattr(of_tb.design, k) for k in same] == [getattr(of_rtl.design, k) for k in same]
    assert (of_tb.design.top, [p.name for p in of_tb.design.rtl]) == ("apb_adder", ["apb_adder.sv"])
    tb = find_testbench(of_tb, Settings())
    assert tb is not None
    assert (tb.kind, tb.path) == ("human", root / "tb" / "tb_apb_adder.sv")
    # Another testbench-folder file that is not the design's testbench stays a design of its own.
    write(root / "tb" / "scratch.sv", "module scratch; endmodule\n")
    other = find_project(root / "tb" / "scratch.sv", [tmp_path], Settings(), index)
    assert other is not None
    assert other.design.top == "scratch"


def cli_sim(design: Path, tb: Path, cache_dir: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-m", "benchwright.cli", "sim", str(design), "--tb", str(tb), "--json"],
                         capture_output=True, text=True, check=False, timeout=300,
                         env={**os.environ, "BENCHWRIGHT_CACHE": str(cache_dir)})
    assert out.returncode in (0, 1), out.stderr
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.mark.e2e
@pytest.mark.simulator_required
@requires_verilator
async def test_saving_a_leaf_publishes_coverage_of_the_top(ws: Path, cache_dir: Path) -> None:
    design = ws / "pwm_timer"
    (design / "files.f").unlink()
    (design / "rtl" / "cells.f").unlink()
    options = {"benchwright": {"lint": {"debounceMs": 0}}}
    session, stop = await start_session(ws, cache_dir, options)
    try:
        leaf = design / "rtl" / "prescaler.sv"
        uri = session.open(leaf)
        diags = await session.diagnostics(uri, version=1)
        assert not [d for d in diags if d.severity == 1], diags  # linted as part of the design
        session.save(uri)
        cov = await session.recorder.next_coverage(1, timeout=240)
    finally:
        await stop()
    assert cov["status"] == "ok"
    assert (cov["design"], cov["top"]) == ("pwm_timer", "pwm_timer")
    assert cov["testbenchUri"] == (design / "tb" / "tb_pwm_timer.sv").as_uri()
    files = {f["uri"] for f in cov["files"]}
    assert uri in files
    assert (design / "rtl" / "pwm_timer.sv").as_uri() in files
    expected = cli_sim(design, design / "tb" / "tb_pwm_timer.sv", cache_dir)
    assert expected["status"] == "ok"
    assert cov["summary"]["overall"] == expected["coverage"]["overall"]  # type: ignore[index]


@pytest.mark.simulator_required
@requires_verilator
def test_watch_infers_a_folder_without_design_toml(ws: Path) -> None:
    from server.watch import resolve

    project, tb = resolve(ws / "pwm_timer", None, None)
    assert (project.design.top, project.from_toml) == ("pwm_timer", False)
    assert tb.path == ws / "pwm_timer" / "tb" / "tb_pwm_timer.sv"
