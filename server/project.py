"""Which design and testbench a document belongs to (pure apart from reading files).

A design is found by searching upward from the document for a `design.toml` (stopping
at the workspace folder); without one, the `project.filelist` setting lists the RTL;
without that, the design is inferred from the workspace with the command line's inference
(sim.project.discover): over a `.f` filelist that lists the document, else the folder of a
FuseSoC core whose design lists it, else the files the workspace index connects to it,
testbench and backup folders left out as `benchwright init` leaves them out. Saving a
submodule simulates the top containing it; when several tops still contain it the
caller hears the candidates (`on_ambiguous`, the editor's picker). When inference fails
the document is a one-file design whose top is `project.top` or its first module.
Settings add include dirs and defines and may override the top.

The testbench, in order: the `project.testbench` setting, the last proposal the user
accepted for the design (while the file exists), the design.toml human test, then the
`tb/` convention (`tb/tb_<top>.sv`, else the one `tb/*.sv` that instantiates the top), then
the one the built-in engine wrote when the design had none of these
(`.benchwright/generated/<design>/tb_<top>.sv`, see server.service.generate_missing). An
inferred design's human test is the repository's own testbench (sim.project.testbench).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from server.settings import Settings
from server.workspace_index import ModuleIndex
from sim.errors import DesignError, SimError
from sim.project.discover import Inferred, infer
from sim.project.filelist import read_filelist
from sim.project.fusesoc_core import find_core
from sim.project.infer import AmbiguousTopError
from sim.project.sources import (
    gather_filelist,
    gather_files,
    gather_folder,
    stale_folder,
    tb_folder,
)
from sim.sandbox.guard import strip_comments
from sim.suite import Design, design_from_files, load_design

logger = logging.getLogger(__name__)

HDL_SUFFIXES = (".v", ".sv", ".vh", ".svh")
"""Files the server lints and watches."""

HEADER_SUFFIXES = (".vh", ".svh")
"""Include files: linted only as part of a design, never on their own."""

STATE_DIR = ".benchwright"
"""Per-workspace folder for lcov files, trajectories and generated testbenches."""

GENERATED_SOURCE = "written by the built-in engine: the design has no testbench Benchwright can run"
"""`Testbench.source` of a testbench the server generated because the design had none."""

_MODULE = re.compile(r"^\s*(?:module|macromodule)\s+(?:automatic\s+|static\s+)?([A-Za-z_]\w*)", re.M)


@dataclass(frozen=True)
class Testbench:
    """A testbench the server can simulate."""

    kind: str
    """`human` (design.toml human test), `sv` (one SV file), `cocotb` (a Python test) or
    `generated` (one SV file the built-in engine wrote under `.benchwright/generated/`)."""
    files: tuple[Path, ...]
    """Its files; the first is the one shown to the user."""
    source: str
    """Where it came from: setting, proposal, design.toml or tb/."""

    @property
    def path(self) -> Path:
        """The main file."""
        return self.files[0]


@dataclass(frozen=True)
class Project:
    """A design plus where it lives."""

    design: Design
    """The design, with the settings' overrides applied."""
    workspace: Path
    """The workspace folder holding it (the design root when outside every folder)."""
    from_toml: bool
    """True when the design came from a design.toml."""
    ambiguous: tuple[str, ...] = ()
    """The candidate tops when several contain the document (the design is then the document alone)."""


def modules_in(text: str) -> list[tuple[str, int]]:
    """(module name, 0-based line) of every module declaration in `text`."""
    clean = strip_comments(text)
    return [(m.group(1), clean.count("\n", 0, m.start(1))) for m in _MODULE.finditer(clean)]


def find_design_toml(path: Path, stop: Path | None) -> Path | None:
    """The nearest design.toml at or above `path`'s folder, not above `stop`."""
    for folder in [path.parent, *path.parent.parents]:
        if (folder / "design.toml").is_file():
            return folder / "design.toml"
        if stop is not None and folder == stop:
            return None
    return None


def workspace_of(path: Path, folders: list[Path]) -> Path | None:
    """The innermost workspace folder containing `path`."""
    inside = [f for f in folders if path == f or f in path.parents]
    return max(inside, key=lambda f: len(f.parts)) if inside else None


def parse_filelist(path: Path) -> tuple[list[Path], list[Path], list[str]]:
    """RTL files, include dirs and defines of a Verilator/VCS-style `-f` file (sim.project.filelist)."""
    if not path.is_file():
        raise FileNotFoundError(2, "filelist not found", str(path))
    fl = read_filelist(path)
    return list(fl.files), list(fl.include_dirs), list(fl.defines)


def _anchor(value: str, workspace: Path) -> Path:
    """A setting path made absolute against the workspace folder."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else (workspace / path).resolve()


def _first_module(path: Path) -> str | None:
    try:
        found = modules_in(path.read_text(errors="replace"))
    except OSError:
        return None
    return found[0][0] if found else None


_LOGGED: set[str] = set()
"""Inference messages already logged (lint re-resolves the design on every change)."""


def _log_once(level: int, message: str) -> None:
    """Log a message the first time it is seen."""
    if message not in _LOGGED:
        _LOGGED.add(message)
        logger.log(level, "%s", message)


OnAmbiguous = Callable[[Path, AmbiguousTopError], None]
"""Told the document and the error when several tops contain a document (the editor offers a pick)."""


def _core_folder(path: Path, workspace: Path) -> Path | None:
    """The nearest folder from `path` up to `workspace` that holds a `.core` file."""
    for folder in [path.parent, *path.parent.parents]:
        if any(folder.glob("*.core")):
            return folder
        if folder == workspace or workspace not in folder.parents:
            return None
    return None


def design_files(files: list[Path], path: Path, workspace: Path) -> list[Path]:
    """`files` less those in testbench or backup folders below `workspace` (`path` itself stays).

    The same folders `benchwright init` leaves out of a folder search (pure).
    """
    def excluded(f: Path) -> bool:
        try:
            rel = f.relative_to(workspace)
        except ValueError:
            return False
        return tb_folder(rel) is not None or stale_folder(rel) is not None

    return [f for f in files if f == path or not excluded(f)]


def _infer(path: Path, workspace: Path, index: ModuleIndex, top: str, containing: tuple[str, ...],
           flag: str) -> Inferred:
    """The inference for `path`: its filelist, else its core's folder, else its connected files.

    Raises:
        DesignError: as sim.project.discover.infer (AmbiguousTopError for several tops).
        OSError: a file vanished meanwhile.
    """
    listing = index.filelist_for(path, workspace)
    if listing is not None:
        try:
            return infer(gather_filelist(listing), top, containing, flag=flag)
        except (SimError, OSError) as exc:
            # E.g. project.top names a module the list does not hold: the files decide.
            _log_once(logging.INFO, f"{listing} does not give the design of {path.name}: {exc}")
    folder = _core_folder(path, workspace)
    if folder is not None and find_core(folder)[0] is not None:
        sources = gather_folder(folder, top)
        if path in sources.files:
            return infer(sources, top, containing, flag=flag)
    files = design_files(index.component(path, workspace) or [path], path, workspace)
    return infer(gather_files(files, stop=workspace), top, containing, flag=flag)


def infer_in_workspace(path: Path, workspace: Path, index: ModuleIndex, top: str,
                       on_ambiguous: OnAmbiguous | None = None) -> Design | None:
    """The design holding `path`, inferred from the workspace; None when inference fails.

    A `.f` filelist in the workspace that lists `path` is honoured, then a FuseSoC core
    whose design lists it; otherwise the files the index connects to `path` are parsed.
    When several tops are possible, the one whose hierarchy contains `path`'s modules
    wins; when several contain them, `on_ambiguous` hears the candidates. The reason for
    a failure is logged (the caller falls back to a one-file design, so lint keeps working).
    """
    index.ensure(workspace)
    index.update(path)
    facts = index.facts(path)
    containing = facts.modules if facts is not None else ()
    flag = "the benchwright.project.top setting"
    try:
        inferred = _infer(path, workspace, index, top, containing, flag)
    except AmbiguousTopError as exc:
        _log_once(logging.WARNING, f"Benchwright: could not infer the design of {path.name}: {exc}")
        if on_ambiguous is not None:
            on_ambiguous(path, exc)
        return None
    except (SimError, OSError) as exc:
        _log_once(logging.WARNING, f"Benchwright: could not infer the design of {path.name}: {exc}")
        return None
    # The repository's own testbench (tb/tb_<top>.sv) belongs to the design it tests: it is linted with
    # the design's RTL, and saving it re-runs the design (not a one-file design of its own).
    own_tb = inferred.design.human_test.files if inferred.design.human_test is not None else ()
    if path not in inferred.design.rtl and path not in own_tb:
        _log_once(logging.INFO, f"{path} is not part of the inferred design {inferred.design.top}")
        return None
    _log_once(logging.INFO, f"inferred design of {path.name}:\n  " + "\n  ".join(inferred.explain()))
    return inferred.design


def find_project(path: Path, folders: list[Path], settings: Settings,
                 index: ModuleIndex | None = None, on_ambiguous: OnAmbiguous | None = None) -> Project | None:
    """The design `path` belongs to, or None when it cannot be determined.

    `index` enables inference from the workspace (without it a document outside a
    design.toml or filelist is a one-file design).

    Raises:
        DesignError: a design.toml or filelist exists but is invalid.
    """
    path = path.resolve()
    workspace = workspace_of(path, folders)
    toml = find_design_toml(path, workspace)
    proj = settings.project
    if toml is not None:
        design = load_design(toml)
    elif proj.filelist:
        filelist = _anchor(proj.filelist, workspace or path.parent)
        files, incdirs, defines = parse_filelist(filelist)
        top = proj.top or next((m for f in files if (m := _first_module(f))), None)
        if not files or top is None:
            raise DesignError(f"{filelist}: lists no RTL file with a module")
        design = replace(design_from_files(files, top, incdirs, defines), root=workspace or filelist.parent)
    elif path.suffix in HDL_SUFFIXES and path.suffix not in HEADER_SUFFIXES:
        inferred = infer_in_workspace(path, workspace, index, proj.top, on_ambiguous) \
            if index is not None and workspace is not None else None
        top = proj.top or _first_module(path)
        if inferred is not None:
            design = inferred
        elif top is None:
            return None
        else:
            design = design_from_files([path], top)
    else:
        return None
    anchor = workspace or design.root
    design = replace(
        design,
        top=proj.top or design.top,
        include_dirs=(*design.include_dirs, *(_anchor(d, anchor) for d in proj.include_dirs)),
        defines=(*design.defines, *proj.defines),
    )
    return Project(design, workspace or design.root, toml is not None)


def _instantiates(path: Path, top: str) -> bool:
    try:
        text = strip_comments(path.read_text(errors="replace"))
    except OSError:
        return False
    pattern = rf"(?<![\w.$]){re.escape(top)}\s*(?:#\s*\(|[A-Za-z_]\w*\s*\()"
    return re.search(pattern, text) is not None


def find_testbench(project: Project, settings: Settings, accepted: Path | None = None) -> Testbench | None:
    """The testbench to simulate for `project` (see the module docstring for the order)."""
    design = project.design
    if settings.project.testbench:
        path = _anchor(settings.project.testbench, project.workspace)
        return Testbench("cocotb" if path.suffix == ".py" else "sv", (path,), "setting")
    if accepted is not None and accepted.is_file():
        return Testbench("sv", (accepted,), "proposal")
    human = design.human_test
    if human is not None and human.files and all(f.is_file() for f in human.files):
        return Testbench("human", human.files,
                         "design.toml" if project.from_toml else f"the repository's own testbench ({human.note})")
    tb_dir = design.root / "tb"
    conventional = tb_dir / f"tb_{design.top}.sv"
    if conventional.is_file():
        return Testbench("sv", (conventional,), "tb/")
    candidates = sorted(tb_dir.glob("*.sv")) if tb_dir.is_dir() else []
    matching = [c for c in candidates if _instantiates(c, design.top)]
    if len(matching) == 1:
        return Testbench("sv", (matching[0],), "tb/")
    return generated_testbench(project)


def generated_testbench(project: Project) -> Testbench | None:
    """The testbench the built-in engine wrote for the design, when there is one."""
    generated = generated_path(project)
    if generated.is_file() and not generated.is_symlink():
        return Testbench("generated", (generated,), GENERATED_SOURCE)
    return None


def is_repository_own(project: Project, tb: Testbench) -> bool:
    """True for an inferred design's own testbench (found in the repository, not declared or chosen)."""
    return tb.kind == "human" and not project.from_toml


def generated_path(project: Project) -> Path:
    """Where the built-in engine's testbench for a design without one is kept (pure)."""
    design = project.design
    return project.workspace / STATE_DIR / "generated" / design.name / f"tb_{design.top}.sv"


def testbench_places(project: Project) -> str:
    """What find_testbench looked for, for a message saying none was there (pure)."""
    top = project.design.top
    return (f"the benchwright.project.testbench setting, a design.toml test, a FuseSoC simulation target, "
            f"tb_{top} or {top}_tb (or test_{top}.py) in a testbench folder, a tb/*.sv that instantiates {top}")


def proposal_path(project: Project, current: Testbench | None) -> Path:
    """Where a proposed testbench goes: over the current single-file SV testbench, else `tb/tb_<top>.sv`.

    A generated testbench (under `.benchwright/`) is never the target: a proposal puts it into the repository.
    """
    if current is not None and current.kind in ("sv", "human") and len(current.files) == 1 \
            and current.path.suffix == ".sv":
        return current.path
    return project.design.root / "tb" / f"tb_{project.design.top}.sv"


def is_testbench_file(path: Path, project: Project, tb: Testbench | None) -> bool:
    """True when `path` is part of the testbench rather than the design."""
    return (tb is not None and path.resolve() in {f.resolve() for f in tb.files}) or \
        path.resolve() not in {f.resolve() for f in project.design.rtl}
