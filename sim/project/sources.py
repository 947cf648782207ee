"""Collecting a design's candidate sources before Verilator reads them (thin I/O shell).

`gather_folder` (a folder: its one `.f`, else its FuseSoC core, else every `.v`/`.sv` outside
testbench and backup folders), `gather_files` (explicit files) and `gather_filelist` (`-f`)
return `Sources`: files with packages first and macro-only preludes before them, `include`d
files left out, and the include directories the `` `include ``s need (sim.project.hdl_scan
decides, purely). sim.project.discover parses them and infers the design.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from sim.errors import DesignError
from sim.project import hdl_scan
from sim.project.filelist import FileList, read_filelist
from sim.project.fusesoc_core import CoreInfo, design_target, find_core
from sim.project.fusesoc_deps import Dependencies, repository_cores, resolve
from sim.project.infer import TESTBENCH_DIRS
from sim.run.cache import cache_root

SKIP_DIRS = frozenset(("obj_dir", "node_modules", "benchwright-out", "sim_build", "build", "__pycache__", "work"))
"""Folders never searched for RTL (build output); hidden folders are skipped too."""

MAX_FILES = 2000
"""Most HDL files one folder search returns (a guard against pointing at `/`)."""

NO_LIBRARY = FileList()
"""No `-y`/`-v` libraries."""

STAND_INS = {"timescale.v": "`timescale 1ns / 1ps\n", "timescale.vh": "`timescale 1ns / 1ps\n"}
"""Headers a repository may `include` without having them, and what stands in: OpenCores
cores (simple_spi, ...) include a `timescale.v` their users supply. Only these: any other
missing header holds definitions nobody can guess, and Verilator names it."""


def _stand_in_dir() -> Path:
    """A folder holding every `STAND_INS` header (written once, atomically)."""
    folder = cache_root() / "stand-ins"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in STAND_INS.items():
        path = folder / name
        if not path.is_file() or path.read_text() != text:
            tmp = folder / f".{name}.{os.getpid()}"
            tmp.write_text(text)
            tmp.replace(path)
    return folder


@dataclass(frozen=True)
class Sources:
    """Candidate sources of a design, before Verilator has read them."""

    root: Path
    """Folder the design lives in (design.toml goes here)."""
    name: str
    """Design name (folder name, filelist stem, or first file's stem)."""
    files: tuple[Path, ...]
    """Source files, package files first."""
    include_dirs: tuple[Path, ...] = ()
    """Include directories (given, or found for the `` `include `` targets)."""
    defines: tuple[str, ...] = ()
    """`NAME[=VALUE]` defines."""
    library: FileList = NO_LIBRARY
    """`-y`/`-v`/`+libext+` from a filelist."""
    top: str = ""
    """Top named by a filelist ('' when none)."""
    origin: str = ""
    """Where the list came from, for the explanation."""
    notes: tuple[str, ...] = ()
    """What was skipped while collecting, and why."""
    preludes: tuple[Path, ...] = ()
    """Files that only define macros and that nothing includes (first in `files`)."""
    suggested_top: str = ""
    """A top the project declares softly (a FuseSoC core's toplevel): used when it exists."""
    core: CoreInfo | None = None
    """The FuseSoC core describing the folder, where one was read."""




def hdl_files(root: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """(sources, headers, filelists at the top level) under `root`, sorted, build folders skipped."""
    sources: list[Path] = []
    headers: list[Path] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(names):
            path = Path(folder) / name
            if path.suffix in hdl_scan.HDL_SOURCE_SUFFIXES:
                sources.append(path)
            elif path.suffix in hdl_scan.HDL_HEADER_SUFFIXES:
                headers.append(path)
        if len(sources) + len(headers) > MAX_FILES:
            raise DesignError(f"{root}: more than {MAX_FILES} HDL files; give a filelist (-f) or a smaller folder")
    filelists = sorted(p for p in root.glob("*.f") if p.is_file())
    return sources, headers, filelists


def read_text(path: Path) -> str:
    """A file's text ('' when it cannot be read)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _finish(root: Path, name: str, files: list[Path], headers: list[Path], include_dirs: list[Path],
            defines: list[str], origin: str, notes: list[str], library: FileList = NO_LIBRARY,
            top: str = "", suggested_top: str = "", core: CoreInfo | None = None,
            elsewhere: tuple[Path, ...] = ()) -> Sources:
    """Order packages first, drop `include`d files, add include dirs the `include`s need.

    A source that only defines macros and that nothing includes is kept as a prelude:
    parsed first (as a filelist that lists it first would), so its macros reach the rest.
    `elsewhere` are files not compiled (testbench folders) that an `include may still
    name (an OpenCores `timescale.v` kept in `bench/`).
    """
    facts = {f: hdl_scan.scan(read_text(f)) for f in [*files, *headers]}
    includes = hdl_scan.resolve_includes(facts, {*files, *headers, *elsewhere})
    included = {i.header for i in includes} & set(files)
    for f in sorted(included):
        notes.append(f"{f.name} is `include`d, so it is not compiled on its own")
    files = [f for f in files if f not in included]
    preludes = [f for f in files if facts[f].defines_only]
    for f in preludes:
        notes.append(f"{f.name} only defines macros and nothing includes it: parsed first, as a header")
    dirs = list(dict.fromkeys([*include_dirs, *(i.directory for i in includes)]))
    found = {i.target for i in includes}
    missing = sorted({t for f in [*files, *headers] for t in facts[f].includes if t not in found and t in STAND_INS})
    if missing:
        dirs.append(_stand_in_dir())
        notes.append(f"{', '.join(missing)}: `include`d but found nowhere; a stand-in holds `timescale 1ns / 1ps")
    ordered = hdl_scan.package_order([f for f in files if f not in preludes], facts)
    return Sources(root, name, (*preludes, *ordered), tuple(dirs), tuple(defines), library, top, origin,
                   tuple(notes), tuple(preludes), suggested_top, core)


def gather_folder(root: Path, top: str = "") -> Sources:
    """Sources of a folder: its one top-level `.f` filelist, else its FuseSoC core, else every `.v`/`.sv`.

    A core's design target gives the files, include dirs, defines and toplevel when the cores
    it depends on are in the repository (`fusesoc_deps`; theirs come first) and it holds `top`
    (when one is asked for); otherwise the folder is
    searched, still with the core's toplevel, include dirs and defines. Files in testbench
    folders such as `tb/` and in backup folders are left out of the search.

    Raises:
        DesignError: no HDL files.
    """
    root = root.resolve()
    sources, headers, filelists = hdl_files(root)
    if len(filelists) == 1:
        return gather_filelist(filelists[0], root=root)
    notes = [f"several filelists ({', '.join(f.name for f in filelists)}): none used; pick one with -f"] \
        if filelists else []
    core, core_notes = find_core(root)
    notes += core_notes
    target = design_target(core) if core is not None else None
    if core is not None and target is not None:
        where = f"core {core.path.name} (target {target.name})"
        deps = resolve(target, repository_cores(root)) if target.depends else Dependencies()
        missing = [f for f in (*deps.files, *target.files) if not f.is_file()]
        if deps.unresolved:
            notes.append(f"{where} depends on cores not in this folder ({', '.join(deps.unresolved[:4])}): "
                         "the folder's files are parsed instead")
        elif missing:
            notes.append(f"{where} lists missing files ({', '.join(f.name for f in missing[:4])}): "
                         "the folder's files are parsed instead")
        elif top and not any(top in hdl_scan.scan(read_text(f)).modules for f in (*deps.files, *target.files)):
            notes.append(f"{where} describes {target.toplevel}; {top} is not among its files: the folder's "
                         "files are parsed instead")
        else:
            if deps.cores:
                where += f" with the cores it depends on ({', '.join(deps.cores)})"
            return _finish(root, root.name, [*deps.files, *target.files],
                           [*headers, *deps.include_files, *target.include_files],
                           [*deps.include_dirs, *target.include_dirs], [*deps.defines, *target.defines], where, notes,
                           suggested_top=target.toplevel, core=core)
    elif core is not None:
        notes.append(f"{core.path.name} names no design toplevel (only simulation targets, or none)")
    current = [f for f in sources if not stale_folder(f.relative_to(root))]
    stale = sorted({str(stale_folder(f.relative_to(root))) for f in sources if f not in current})
    if stale:
        notes.append(f"{len(sources) - len(current)} file(s) in backup/old folders not parsed: {', '.join(stale)}")
    design = [f for f in current if not tb_folder(f.relative_to(root))]
    skipped = sorted({str(tb_folder(f.relative_to(root))) for f in current if f not in design})
    if skipped:
        notes.append(f"{len(current) - len(design)} file(s) in testbench folders not parsed: {', '.join(skipped)}")
    if not design:
        raise DesignError(f"{root}: no .v/.sv files outside testbench folders")
    return _finish(root, root.name, design, headers, list(target.include_dirs) if target else [],
                   list(target.defines) if target else [], f"folder {root.name}/", notes,
                   suggested_top=target.toplevel if target else "", core=core,
                   elsewhere=tuple(f for f in current if f not in design))


def tb_folder(rel: Path) -> Path | None:
    """The testbench folder (`tb`, `test`, `bench`, ...) a relative path lies in, or None.

    The one rule for the command line and the language server: files there are test code.
    """
    for i, part in enumerate(rel.parts[:-1]):
        if part.lower() in TESTBENCH_DIRS:
            return Path(*rel.parts[: i + 1])
    return None


def tb_folder_name(path: Path, root: Path) -> str:
    """The testbench folder `path` lies in below `root` ('' when none, or when outside `root`)."""
    try:
        folder = tb_folder(path.relative_to(root))
    except ValueError:
        return ""
    return folder.name if folder is not None else ""


STALE_TOKENS = frozenset(("backup", "bak", "old", "obsolete", "deprecated", "archive", "attic", "unused"))
"""Folder-name words that mark superseded copies (`rtl/verilog-backup/`): never design sources."""


def stale_folder(rel: Path) -> Path | None:
    """The backup/old folder a relative path lies in, or None."""
    for i, part in enumerate(rel.parts[:-1]):
        if set(re.split(r"[-_.\s]+", part.lower())) & STALE_TOKENS:
            return Path(*rel.parts[: i + 1])
    return None


def gather_files(files: list[Path], include_dirs: list[Path] | None = None,
                 defines: list[str] | None = None, stop: Path | None = None) -> Sources:
    """Sources of an explicit file list; headers under their project folder serve the `include`s.

    `stop` bounds the project folder (see `project_root`).

    Raises:
        DesignError: a file does not exist.
    """
    files = [f.resolve() for f in files]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise DesignError(f"RTL file(s) not found: {', '.join(missing)}")
    root = project_root(files, stop)
    others, headers, _ = hdl_files(root)
    return _finish(root, root.name, files, headers, [p.resolve() for p in include_dirs or []],
                   list(defines or []), f"{len(files)} file(s) given", [],
                   elsewhere=tuple(f for f in others if f not in files))


SOURCE_DIRS = frozenset(("rtl", "src", "hdl", "source", "sources", "verilog", "sv", "design", "include", "inc",
                         "pkg", "packages", "ip", "lib", "core", "cores", "modules"))
"""Folder names that hold a project's sources rather than being the project."""


def project_root(files: list[Path], stop: Path | None = None) -> Path:
    """The project folder of some sources: their common folder, above `rtl/`-like names.

    `stop` (a workspace folder) is never left. The project folder is where design.toml,
    `tb/` and the state live, so `rtl/` itself is the wrong answer (pure).
    """
    root = Path(os.path.commonpath([str(f.parent) for f in files]))
    while root.name.lower() in SOURCE_DIRS and root != stop and root.parent != root:
        if stop is not None and stop not in root.parents:
            break
        root = root.parent
    return root


def gather_filelist(path: Path, root: Path | None = None) -> Sources:
    """Sources of a `-f` filelist (nested lists, `+incdir+`, `+define+`, `-y`, `-v`).

    Raises:
        DesignError: the list, a nested list or a listed file is missing.
    """
    fl = read_filelist(path)
    missing = [str(f) for f in fl.files if not f.is_file()]
    if missing:
        raise DesignError(f"{path}: listed file(s) not found: {', '.join(missing)}")
    if not fl.files and not fl.library_dirs and not fl.library_files:
        raise DesignError(f"{path}: lists no source files")
    notes = [f"filelist options ignored: {' '.join(fl.ignored)}"] if fl.ignored else []
    headers = sorted({h for d in fl.include_dirs if d.is_dir() for s in hdl_scan.HDL_HEADER_SUFFIXES
                      for h in d.rglob(f"*{s}")})
    folder = root or path.resolve().parent
    return _finish(folder, folder.name, list(fl.files), headers,
                   list(fl.include_dirs), list(fl.defines), f"filelist {path.name}", notes, fl, fl.top)
