"""Infer a Design from a folder of RTL, a list of files or a `-f` filelist (thin I/O shell).

`gather_*` (sim.project.sources, re-exported here) collect the candidate sources;
sim.project.inputs maps command-line arguments onto them; `parse_all` runs `verilator --json-only` over all of them at once, with no
top named, dropping files Verilator rejects; `infer` picks the top (sim.project.infer), its
files in compile order and, from a second parse of just those, its clocks and resets
(sim.analysis.interface, the same analysis the engine uses).
"""

from __future__ import annotations

import logging
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
from sim.project.infer import (
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
from sim.project.sources import (
    NO_LIBRARY,
    SKIP_DIRS,
    SOURCE_DIRS,
    Sources,
    gather_filelist,
    gather_files,
    gather_folder,
    hdl_files,
    project_root,
    read_text,
    stale_folder,
    tb_folder,
    tb_folder_name,
)
from sim.project.testbench import find_human_test
from sim.sandbox.outputs import UnsafeOutputError
from sim.sandbox.process import Limits, run_command
from sim.suite import Design, Reset
from sim.tools import Verilator, find_verilator, tool_env
from sim.types import Command

logger = logging.getLogger(__name__)

__all__ = ["NO_LIBRARY", "SKIP_DIRS", "SOURCE_DIRS", "Inferred", "Sources", "gather_filelist", "gather_files",
           "gather_folder", "hdl_files", "infer", "parse_all", "project_root", "stale_folder", "tb_folder"]

MAX_DROP_ROUNDS = 24
"""Parse attempts, each dropping the files Verilator rejected.

Errors surface stage by stage (preprocessing, parsing, linking), so a repository of board
wrappers around vendor primitives takes a dozen rounds (darkriscv: 12)."""

_ERROR_AT = re.compile(r"^%Error(?:-[A-Z0-9_]+)?: (.+?):(\d+):(?:\d+:)? ?(.*)$")


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


# -- parsing --------------------------------------------------------------------------


def duplicate_units(facts: dict[Path, hdl_scan.FileFacts], names: list[str]) -> dict[str, list[Path]]:
    """Units among `names` that several files declare (Verilator would silently take one)."""
    where: dict[str, list[Path]] = {}
    for path, f in facts.items():
        for name in f.declared:
            if name in names:
                where.setdefault(name, []).append(path)
    return {n: files for n, files in where.items() if len(files) > 1}


@dataclass(frozen=True)
class CopyChoice:
    """Which file's copy of each unit declared more than once a design uses, and why."""

    left_out: tuple[Path, ...]
    """Files dropped from the sources: every unit they declare has a kept copy elsewhere."""
    notes: tuple[str, ...]
    """One line per unit: the files, the one used, and the rule that picked it."""


def pick_copies(twice: dict[str, list[Path]], facts: dict[Path, hdl_scan.FileFacts], root: Path) -> CopyChoice | None:
    """Pick one file per unit declared in several (an export or concatenated copy, vendor copies); pure.

    The rules, in order: the file named after the unit (`uart_top.v` for `uart_top`), the file
    declaring fewer units (an all-in-one export declares them all), the one nearer `root`.
    None when no rule tells two copies apart (a design copied into two sibling folders), or
    when no set of whole files can be left out: a losing file still holds a unit no kept file
    declares, or a kept file holds a second copy of another.
    """
    def rank(name: str, path: Path) -> tuple[bool, int, int, str]:
        depth = len(path.relative_to(root).parts) if path.is_relative_to(root) else len(path.parts)
        return (path.stem != name, len(facts[path].declared), depth, str(path))

    def ranked(name: str) -> list[Path]:
        return sorted(twice[name], key=lambda p: rank(name, p))

    # Two copies that no rule tells apart (the same design twice, in sibling folders) are two
    # designs, not one with a stray copy: picking by path would be a guess.
    if any(rank(name, ranked(name)[0])[:3] == rank(name, ranked(name)[1])[:3] for name in twice):
        return None
    chosen = {name: ranked(name)[0] for name in twice}
    kept = set(chosen.values())
    left_out = sorted({p for files in twice.values() for p in files} - kept)
    for path in left_out:  # dropping a whole file must lose no unit and leave no second copy
        for unit in facts[path].declared:
            if not any(unit in facts[k].declared for k in facts if k not in left_out):
                return None
    if any(sum(name in facts[p].declared for p in kept) > 1 for name in twice):
        return None
    notes = []
    for name, files in sorted(twice.items()):
        use = chosen[name]
        others = sorted(set(files) - {use})
        mine, runner_up = rank(name, use), rank(name, ranked(name)[1])
        why = ("named after the module" if not mine[0] and runner_up[0] else
               f"declares fewer units ({mine[1]} vs {runner_up[1]})" if mine[1] != runner_up[1] else
               "nearer the repository root")
        notes.append(f"{name} is declared in {len(files)} files: used {_shown(use, root)} ({why}); "
                     f"left out {', '.join(_shown(p, root) for p in others)}")
    return CopyChoice(tuple(left_out), tuple(notes))


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


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
    facts = {f: hdl_scan.scan(read_text(f)) for f in sources.files if f not in {d for d, _ in dropped}}
    units = add_package_refs(units_from_tree(tree), {f: s.package_refs for f, s in facts.items()})
    units = [replace(u, tb_folder=tb_folder_name(u.file, sources.root)) for u in units]
    choice, top_notes = _top_choice(units, sources, top, containing, flag)
    twice = duplicate_units(facts, [u.name for u in closure(units, choice.top)])
    if twice:
        picked = pick_copies(twice, facts, sources.root)
        if picked is None:
            listed = "; ".join(f"{name} in {', '.join(str(f) for f in files)}" for name, files in twice.items())
            raise DesignError(f"{sources.origin}: {choice.top} needs units defined more than once ({listed}), and "
                              "no rule picks one copy or no whole file can be left out; list the files to use with "
                              "-f FILELIST, or point at a smaller folder")
        # The same sources without the losing copies: parsed again, so the units, the compile
        # order and the interface all come from the files the design will really build.
        for note in picked.notes:
            logger.info("inference: %s", note)
        again = infer(replace(sources, files=tuple(f for f in sources.files if f not in picked.left_out)),
                      top, containing, tool=tool, flag=flag)
        return replace(again, notes=(*picked.notes, *again.notes))
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
