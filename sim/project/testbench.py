"""A repository's own testbench for an inferred design: the `.core` simulation target, or `tb_<top>`.

`find_human_test(design, core)` looks, in order, for the FuseSoC core's simulation target
whose toplevel tests the design (sim.project.fusesoc_core.testbench_target), then for a
file named `tb_<top>` or `<top>_tb` (`.v`/`.sv`) in a testbench folder below the design
root, with the testbench-folder files it instantiates, then for a cocotb module
`test_<top>.py` there. The result is the design's
`human_test`, so `bench --policy human` and the editor score it like a declared one.
`pick_by_name` and `helpers` are the pure parts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from sim.project import hdl_scan
from sim.project.fusesoc_core import CoreInfo, design_target, testbench_target
from sim.project.infer import TESTBENCH_DIRS
from sim.suite import Design, HumanTest

MAX_TB_FILES = 400
"""Most files looked at in testbench folders (a guard against huge trees)."""

_SKIP = frozenset(("obj_dir", "node_modules", "benchwright-out", "sim_build", "build", "__pycache__", "work"))


def pick_by_name(top: str, candidates: Sequence[Path], near: Path) -> Path | None:
    """The candidate named `tb_<top>` or `<top>_tb` (any case), the nearest to `near` first (pure)."""
    names = {f"tb_{top}".lower(), f"{top}_tb".lower()}
    named = [c for c in candidates if c.stem.lower() in names]
    if not named:
        return None

    def distance(path: Path) -> tuple[int, str]:
        common = len(Path(os.path.commonpath([path.parent, near])).parts)
        return (len(path.parent.parts) + len(near.parts) - 2 * common, str(path))

    return min(named, key=distance)


def helpers(main: Path, facts: Mapping[Path, hdl_scan.FileFacts], skip: set[str]) -> list[Path]:
    """`main` and the files it needs among `facts`: those declaring units it uses, transitively (pure).

    Units named in `skip` (the design's own modules) are not looked for.
    """
    owner = {name: path for path, f in facts.items() for name in f.declared if name not in skip}
    order = [main]
    queue = [main]
    while queue:
        used = facts[queue.pop()].identifiers
        for name in sorted(used & owner.keys()):
            path = owner[name]
            if path not in order:
                order.append(path)
                queue.append(path)
    return order


def _testbench_files(root: Path) -> list[Path]:
    """HDL sources in testbench folders below `root` (bounded)."""
    out: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP)
        rel = Path(folder).relative_to(root)
        if not any(part.lower() in TESTBENCH_DIRS for part in rel.parts):
            continue
        out += [Path(folder) / n for n in sorted(names) if n.endswith((*hdl_scan.HDL_SOURCE_SUFFIXES, ".py"))]
        if len(out) > MAX_TB_FILES:
            break
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def find_human_test(design: Design, core: CoreInfo | None = None) -> HumanTest | None:
    """The repository's own testbench of `design`, or None (see the module docstring)."""
    rtl = set(design.rtl)
    if core is not None:
        dt = design_target(core)
        # The core's simulation targets test its own toplevel, not another top a user picked.
        target = testbench_target(core, dt, design.top) if dt is not None and dt.toplevel == design.top else None
        if target is not None:
            rtl |= set(dt.files) if dt is not None else set()
            files = tuple(f for f in target.files if f not in rtl and f.is_file())
            if files:
                return HumanTest("sv", files, target.toplevel, runs=True,
                                 note=f"the '{target.name}' target of {core.path.name}")
    found = _testbench_files(design.root)
    candidates = [f for f in found if f.suffix != ".py"]
    top_file = design.rtl[-1] if design.rtl else design.root
    main = pick_by_name(design.top, candidates, top_file.parent)
    if main is None:
        return _cocotb_test(design, [f for f in found if f.suffix == ".py"], top_file.parent)
    facts = {f: hdl_scan.scan(_read(f)) for f in candidates}
    if not facts[main].modules:
        return None
    own = {name for f in design.rtl for name in hdl_scan.scan(_read(f)).declared}
    needed = helpers(main, facts, own)
    modules = facts[main].modules
    top = next((m for m in modules if m.lower() == main.stem.lower()), modules[0])
    return HumanTest("sv", tuple(needed), top, runs=True, note=f"found by name: {_rel(main, design.root)}")


def _cocotb_test(design: Design, modules: Sequence[Path], near: Path) -> HumanTest | None:
    """A cocotb module `test_<top>.py` in a testbench folder (the nearest), or None."""
    wanted = f"test_{design.top}".lower()
    named = [m for m in modules if m.stem.lower() == wanted]
    if not named:
        return None

    def distance(path: Path) -> tuple[int, str]:
        common = len(Path(os.path.commonpath([path.parent, near])).parts)
        return (len(path.parent.parts) + len(near.parts) - 2 * common, str(path))

    main = min(named, key=distance)
    return HumanTest("cocotb", (main,), main.stem, runs=True,
                     note=f"found by name: {_rel(main, design.root)} (cocotb)")
