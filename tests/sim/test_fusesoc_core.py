"""sim.project.fusesoc_core: .core files read with FuseSoC's own parser (no Verilator needed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.project.fusesoc_core import (
    CoreError,
    CoreInfo,
    CoreTarget,
    design_target,
    find_core,
    read_core,
)
from sim.project.fusesoc_core import (
    testbench_target as sim_target,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "sim" / "project"
REPO = DATA / "core_repo"


def test_targets_files_include_dirs_and_defines() -> None:
    core = read_core(REPO / "core_repo.core")
    assert core.name == "::blinky:1.0"
    assert [t.name for t in core.targets] == ["default", "lint", "sim"]
    lint = core.target("lint")
    assert lint is not None
    assert (lint.toplevel, [f.relative_to(REPO).as_posix() for f in lint.files]) == \
        ("blinky", ["rtl/spare.v", "rtl/blinky.v"])
    assert lint.include_files == (REPO / "inc" / "blinky_cfg.vh",)
    assert lint.include_dirs == (REPO / "inc",)
    assert lint.defines == ("BLINK_BITS=4",)
    sim = core.target("sim")
    assert sim is not None
    assert (sim.toplevel, sim.files[-1].name, sim.depends) == ("tb_blinky", "tb_blinky.v", ())
    # `depend:` with nothing under it: FuseSoC rejects the file as written; read again without it.
    assert "does not validate as written" in core.notes[0]


def test_the_design_and_its_testbench_target_are_chosen() -> None:
    core = read_core(REPO / "core_repo.core")
    design = design_target(core)
    assert design is not None
    assert (design.name, design.toplevel) == ("lint", "blinky")
    tb = sim_target(core, design, "blinky")
    assert tb is not None
    assert tb.name == "sim"


def test_design_target_prefers_the_common_toplevel_and_skips_simulations() -> None:
    rtl = (Path("/r/a.v"), Path("/r/top.v"))
    core = CoreInfo(Path("/r/x.core"), "x", (
        CoreTarget("default", "", rtl),
        CoreTarget("lint", "top", rtl),
        CoreTarget("synth", "top", rtl),
        CoreTarget("board", "board_top", (*rtl, Path("/r/board.v"))),
        CoreTarget("sim", "tb_top", (*rtl, Path("/r/tb.v"))),
        CoreTarget("test_deps", "tb_top", (*rtl, Path("/r/tb2.v")), depends=("::vlog_tb_utils:0",)),
    ))
    design = design_target(core)
    assert design is not None
    assert (design.name, design.toplevel) == ("lint", "top")
    tb = sim_target(core, design, "top")
    assert tb is not None
    assert tb.name == "sim"  # the target needing other cores is never picked


def test_capi1_and_foreign_files_are_clear_errors(tmp_path: Path) -> None:
    old = tmp_path / "old.core"
    old.write_text("CAPI=1\n[main]\ndescription = an old core\n")
    with pytest.raises(CoreError, match=r"CAPI1 core .* reads CAPI2 only"):
        read_core(old)
    other = tmp_path / "other.core"
    other.write_text("not a core\n")
    with pytest.raises(CoreError, match="not a FuseSoC core"):
        read_core(other)


def test_find_core_takes_the_one_named_after_the_folder(tmp_path: Path) -> None:
    repo = tmp_path / "core_repo"
    shutil.copytree(REPO, repo)
    core, notes = find_core(repo)
    assert core is not None
    assert core.path == repo / "core_repo.core"
    (repo / "second.core").write_text("CAPI=2:\nname: ::second:0\n")
    assert find_core(repo)[0] is not None  # still the named one
    (repo / "core_repo.core").rename(repo / "first.core")
    core, notes = find_core(repo)
    assert core is None
    assert "several .core files" in notes[0]
    (repo / "second.core").unlink()
    (repo / "first.core").write_text("CAPI=1\n[main]\n")
    core, notes = find_core(repo)
    assert core is None
    assert "CAPI1" in notes[0]
