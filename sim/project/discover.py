"""Infer a Design from a folder of RTL, a list of files or a `-f` filelist (thin I/O shell).

`gather_*` collect the candidate sources (pure decisions live in sim.project.hdl_scan and
sim.project.filelist; sim.project.inputs maps command-line arguments onto them); `parse_all` runs `verilator --json-only` over all of them at once, with no
top named, dropping files Verilator rejects; `infer` picks the top (sim.project.infer), its
files in compile order and, from a second parse of just those, its clocks and resets
(sim.analysis.interface, the same analysis the engine uses).
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sim.analysis.interface import (
    log_lines,
    parse_sandbox,
    read_interface,
    read_tree_files,
)
from sim.errors import DesignError
from sim.project import hdl_scan
from sim.project.filelist import FileList, read_filelist
from sim.project.fusesoc_core import CoreInfo, design_target, find_core
from sim.project.infer import (
    TESTBENCH_DIRS,
    TopChoice,
    Unit,
    add_package_refs,
    choose_top,
    clock_reset_by_name,
    closure,
    compile_order,
    testbench_reason,
    top_candidates,
    units_from_tree,
)
from sim.project.testbench import find_human_test
from sim.sandbox.outputs import UnsafeOutputError
from sim.sandbox.process import Limits, run_command
from sim.suite import Design, Reset
from sim.tools import Verilator, find_verilator, tool_env
from sim.types import Command

logger = logging.getLogger(__name__)

SKIP_DIRS = frozenset(("obj_dir", "node_modules", "benchwright-out", "sim_build", "build", "__pycache__", "work"))
"""Folders never searched for RTL (build output); hidden folders are skipped too."""

MAX_FILES = 2000
"""Most HDL files one folder search returns (a guard against pointing at `/`)."""

MAX_DROP_ROUNDS = 24
"""Parse attempts, each dropping the files Verilator rejected.

Errors surface stage by stage (preprocessing, parsing, linking), so a repository of board
wrappers around vendor primitives takes a dozen rounds (darkriscv: 12)."""

NO_LIBRARY = FileList()
"""No `-y`/`-v` libraries."""

_ERROR_AT = re.compile(r"^%Error(?:-[A-Z0-9_]+)?: (.+?):(\d+):(?:\d+:)? ?(.*)$")


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


@dataclass(frozen=True)
class Inferred:
    """An inferred design and the reasoning behind it."""

    design: Design
    """The design, ready for the evaluator."""
    choice: TopChoice
    """The top and why."""
    units: tuple[Unit, ...]
    """Every unit Verilator found."""
    sources: Sources
    """What was parsed."""
    dropped: tuple[tuple[Path, str], ...] = ()
    """Files Verilator rejected (with its first error), left out."""
    notes: tuple[str, ...] = ()
    """Remarks of the interface analysis (sim.analysis.interface)."""

    def explain(self) -> list[str]:
        """What was inferred and why, one line each."""
        d = self.design
        rel = _relative_to(d.root)
        lines = [f"sources: {self.sources.origin} ({len(self.sources.files)} files parsed by Verilator)"]
        lines += [f"  note: {n}" for n in self.sources.notes]
        lines += [f"  dropped {rel(f)}: Verilator rejected it: {why}" for f, why in self.dropped]
        lines.append(f"top: {d.top} ({self.choice.reason})")
        others = [c for c in self.choice.candidates if c != d.top]
        if others:
            lines.append(f"  other uninstantiated modules: {', '.join(others)}")
        used = {c for u in self.units if testbench_reason(u) is None for c in u.children}
        tbs = [(u.name, testbench_reason(u)) for u in self.units if testbench_reason(u) and u.name not in used]
        lines += [f"  not a candidate: {n} ({why})" for n, why in tbs]
        lines.append(f"rtl (compile order, packages first): {', '.join(rel(p) for p in d.rtl)}")
        if d.include_dirs:
            lines.append(f"include dirs: {', '.join(rel(p) for p in d.include_dirs)}")
        if d.defines:
            lines.append(f"defines: {', '.join(d.defines)}")
        lines.append(f"clocks: {', '.join(d.clocks) or 'none'} (edge sensitivities traced to top ports)")
        resets = [f"{r.name} (active {'low' if r.active_low else 'high'})" for r in d.resets]
        lines.append(f"resets: {', '.join(resets) or 'none'} (first if of clocked blocks, sync resets by name)")
        human = d.human_test
        if human is not None:
            lines.append(f"repository's own testbench: {human.top} in {', '.join(rel(p) for p in human.files)} "
                         f"({human.note})")
        lines += [f"  note: {n}" for n in self.notes]
        return lines


def _relative_to(root: Path) -> Callable[[Path], str]:
    """Paths shown relative to `root` where they lie below it."""
    def rel(path: Path) -> str:
        try:
            return str(path.relative_to(root))
        except ValueError:
            return str(path)
    return rel


# -- collecting sources -------------------------------------------------------------


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


def _read(path: Path) -> str:
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
    facts = {f: hdl_scan.scan(_read(f)) for f in [*files, *headers]}
    includes = hdl_scan.resolve_includes(facts, {*files, *headers, *elsewhere})
    included = {i.header for i in includes} & set(files)
    for f in sorted(included):
        notes.append(f"{f.name} is `include`d, so it is not compiled on its own")
    files = [f for f in files if f not in included]
    preludes = [f for f in files if facts[f].defines_only]
    for f in preludes:
        notes.append(f"{f.name} only defines macros and nothing includes it: parsed first, as a header")
    dirs = list(dict.fromkeys([*include_dirs, *(i.directory for i in includes)]))
    ordered = hdl_scan.package_order([f for f in files if f not in preludes], facts)
    return Sources(root, name, (*preludes, *ordered), tuple(dirs), tuple(defines), library, top, origin,
                   tuple(notes), tuple(preludes), suggested_top, core)


def gather_folder(root: Path, top: str = "") -> Sources:
    """Sources of a folder: its one top-level `.f` filelist, else its FuseSoC core, else every `.v`/`.sv`.

    A core's design target gives the files, include dirs, defines and toplevel when it
    needs no other core and holds `top` (when one is asked for); otherwise the folder is
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
        missing = [f for f in target.files if not f.is_file()]
        if target.depends:
            notes.append(f"{where} depends on cores not in this folder ({', '.join(target.depends[:4])}): "
                         "the folder's files are parsed instead")
        elif missing:
            notes.append(f"{where} lists missing files ({', '.join(f.name for f in missing[:4])}): "
                         "the folder's files are parsed instead")
        elif top and not any(top in hdl_scan.scan(_read(f)).modules for f in target.files):
            notes.append(f"{where} describes {target.toplevel}; {top} is not among its files: the folder's "
                         "files are parsed instead")
        else:
            return _finish(root, root.name, list(target.files), [*headers, *target.include_files],
                           list(target.include_dirs), list(target.defines), where, notes,
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


def _tb_folder_name(path: Path, root: Path) -> str:
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


# -- parsing --------------------------------------------------------------------------


def duplicate_units(facts: dict[Path, hdl_scan.FileFacts], names: list[str]) -> dict[str, list[Path]]:
    """Units among `names` that several files declare (Verilator would silently take one)."""
    where: dict[str, list[Path]] = {}
    for path, f in facts.items():
        for name in f.declared:
            if name in names:
                where.setdefault(name, []).append(path)
    return {n: files for n, files in where.items() if len(files) > 1}


def parse_command(sources: Sources, files: list[Path], tool: Verilator, out_dir: Path) -> Command:
    """`verilator --json-only` over all files, no top named (every uninstantiated module is one)."""
    cmd = [str(tool.verilator), "--json-only", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-MULTITOP",
           "--error-limit", "100000", "--timing", "--json-only-output", str(out_dir / "tree.json"),
           "--json-only-meta-output", str(out_dir / "tree.meta.json"), "-Mdir", str(out_dir / "obj")]
    cmd += [f"+incdir+{p}" for p in sources.include_dirs]
    cmd += [f"+define+{d}" for d in sources.defines]
    for lib in sources.library.library_dirs:
        cmd += ["-y", str(lib)]
    for lib in sources.library.library_files:
        cmd += ["-v", str(lib)]
    if sources.library.library_exts:
        cmd.append("+libext+" + "+".join(sources.library.library_exts))
    return cmd + [str(f) for f in files]


def rejected_files(log: str, files: list[Path]) -> dict[Path, str]:
    """Files an error message points into, each with its first error (pure)."""
    known = {str(f): f for f in files}
    out: dict[Path, str] = {}
    for line in log.splitlines():
        match = _ERROR_AT.match(line)
        if match and match.group(1) in known:
            out.setdefault(known[match.group(1)], f"line {match.group(2)}: {match.group(3).strip()}")
    return out


def parse_all(sources: Sources, tool: Verilator, timeout_s: float = 120
              ) -> tuple[dict[str, Any], list[tuple[Path, str]]]:
    """The tree of all sources, and the files dropped because Verilator rejected them.

    Raises:
        DesignError: Verilator failed on something other than individual files, or every
            file was rejected.
    """
    files = list(sources.files)
    dropped: list[tuple[Path, str]] = []
    with tempfile.TemporaryDirectory(prefix="bw-infer-") as tmp:
        out_dir = Path(tmp)
        for attempt in range(MAX_DROP_ROUNDS):
            log = out_dir / f"verilator-{attempt}.log"
            # A cloned repository's files: parsed in the OS sandbox, outputs read back safely.
            reads = (*files, *sources.include_dirs, *sources.library.library_dirs, *sources.library.library_files)
            result = run_command(parse_command(sources, files, tool, out_dir), cwd=out_dir, log_path=log,
                                 env=tool_env(tool), limits=Limits(timeout_s=timeout_s),
                                 sandbox=parse_sandbox(tool, reads, out_dir))
            text = "\n".join(log_lines(log))
            if result.timed_out:
                raise DesignError(f"{sources.origin}: verilator --json-only timed out after {timeout_s:.0f} s")
            if result.ok:
                try:
                    tree, meta = read_tree_files(out_dir)
                except (OSError, ValueError, TypeError, UnsafeOutputError) as exc:
                    raise DesignError(f"{sources.origin}: unreadable Verilator JSON output: {exc}") from None
                tree["meta"] = {"files": meta.get("files", {})}
                return tree, dropped
            bad = rejected_files(text, files)
            if not bad or len(bad) == len(files):
                errors = [ln for ln in text.splitlines() if ln.startswith("%Error")][:8]
                raise DesignError(f"{sources.origin}: Verilator could not parse the sources:\n" + "\n".join(errors))
            dropped += list(bad.items())
            files = [f for f in files if f not in bad]
            logger.info("inference: dropped %s", ", ".join(str(f) for f in bad))
    raise DesignError(f"{sources.origin}: still failing after dropping {len(dropped)} file(s)")


# -- inference ------------------------------------------------------------------------

MAX_CACHED = 64
"""Inferences kept in-process (the server re-resolves a design on every lint)."""

_CACHE: dict[tuple[object, ...], Inferred] = {}
_CACHE_LOCK = threading.Lock()


def _stamp(sources: Sources) -> tuple[object, ...]:
    """Cache key: every file's path, size and mtime plus the options."""
    def stat(p: Path) -> tuple[str, int, int]:
        try:
            st = p.stat()
        except OSError:
            return (str(p), -1, -1)
        return (str(p), st.st_size, st.st_mtime_ns)

    headers = [h for d in sources.include_dirs if d.is_dir() for h in sorted(d.rglob("*")) if h.is_file()]
    core = [sources.core.path] if sources.core is not None else []
    return (tuple(stat(f) for f in [*sources.files, *headers, *core]), sources.include_dirs, sources.defines,
            sources.library, sources.top, sources.suggested_top)


def _top_choice(units: list[Unit], sources: Sources, top: str, containing: tuple[str, ...],
                flag: str) -> tuple[TopChoice, list[str]]:
    """The top: asked for, else the filelist's, else the core's toplevel when it exists, else chosen."""
    if top or sources.top or not sources.suggested_top:
        return choose_top(units, top or sources.top, containing, flag), []
    suggested = sources.suggested_top
    if any(u.name == suggested and u.kind == "module" for u in units):
        where = sources.core.path.name if sources.core is not None else "the project"
        candidates = top_candidates(units)
        return TopChoice(suggested, tuple(candidates), f"the design toplevel {where} declares"), []
    return choose_top(units, "", containing, flag), [f"the core's toplevel {suggested} is not among the modules "
                                                     "parsed; chosen as if there were no core"]


def infer(sources: Sources, top: str = "", containing: tuple[str, ...] = (), *,
          tool: Verilator | None = None, flag: str = "--top") -> Inferred:
    """The design the sources hold: top, files in compile order, clocks and resets.

    Args:
        sources: what to parse (from a gather_* function).
        top: the top module to use (skips the choice; must exist).
        containing: module names the top's hierarchy must contain when several are possible.
        tool: Verilator to use (found when None).
        flag: how the user picks a top, named in the ambiguity error.

    Raises:
        DesignError: Verilator could not parse the sources, or the top is ambiguous or missing.
    """
    tool = tool or find_verilator()
    key = (_stamp(sources), top, containing, flag, str(tool.verilator))
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    tree, dropped = parse_all(sources, tool)
    facts = {f: hdl_scan.scan(_read(f)) for f in sources.files if f not in {d for d, _ in dropped}}
    units = add_package_refs(units_from_tree(tree), {f: s.package_refs for f, s in facts.items()})
    units = [replace(u, tb_folder=_tb_folder_name(u.file, sources.root)) for u in units]
    choice, top_notes = _top_choice(units, sources, top, containing, flag)
    twice = duplicate_units(facts, [u.name for u in closure(units, choice.top)])
    if twice:
        listed = "; ".join(f"{name} in {', '.join(str(f) for f in files)}" for name, files in twice.items())
        raise DesignError(f"{sources.origin}: {choice.top} needs units defined more than once ({listed}); "
                          "list the files to use with -f FILELIST, or point at a smaller folder")
    rtl = compile_order(units, choice.top)
    wanted = {m for f in rtl if f in facts for m in facts[f].macro_uses}
    rtl = [p for p in sources.preludes if p in facts and set(facts[p].macros) & wanted and p not in rtl] + rtl
    used = set(rtl)
    # Library (-y/-v) files Verilator pulled in are listed explicitly, so the design
    # builds without the filelist; given files the top does not need are left out.
    design = Design(name=sources.name, root=sources.root, top=choice.top, rtl=tuple(rtl),
                    include_dirs=sources.include_dirs, defines=sources.defines,
                    description=f"inferred from {sources.origin}")
    design = replace(design, human_test=find_human_test(design, sources.core))
    iface = read_interface(design, tool=tool)
    read = {s for c in iface.conditions for s in c.signals}
    clocks, resets, notes = clock_reset_by_name([(p.name, p.width) for p in iface.inputs if not p.unpacked],
                                                read, iface.clocks, dict(iface.resets))
    design = replace(design, clocks=tuple(clocks),
                     resets=tuple(Reset(name, low) for name, low in resets.items()))
    unused = [f for f in sources.files if f not in used and f not in {d for d, _ in dropped}]
    notes = [*top_notes, *iface.notes, *notes]
    if unused:
        notes.append(f"{len(unused)} parsed file(s) not needed by {choice.top}: "
                     f"{', '.join(f.name for f in unused[:8])}{' ...' if len(unused) > 8 else ''}")
    result = Inferred(design, choice, tuple(units), sources, tuple(dropped), tuple(notes))
    with _CACHE_LOCK:
        _CACHE[key] = result
        while len(_CACHE) > MAX_CACHED:  # every save makes a new key: drop the oldest
            del _CACHE[next(iter(_CACHE))]
    return result
