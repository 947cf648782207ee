"""Every design a repository holds: each top the inference finds, or each entry of a manifest.

`benchwright run-all` opens a repository with `repository_designs`. A design it cannot open
(a file Verilator rejects, a top whose hierarchy does not elaborate, a manifest entry whose
repository is missing) comes back as an `Opened` with its reason instead of an exception, so
one broken file never stops the rest of a repository.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from sim.errors import DesignError
from sim.project.discover import gather_folder, infer
from sim.project.infer import AmbiguousTopError
from sim.project.inputs import load_or_infer
from sim.project.manifest import is_manifest, read_manifest
from sim.suite import Design, load_design


@dataclass(frozen=True)
class Opened:
    """One design of a repository, or the reason it could not be opened."""

    name: str
    """Name in reports: the top (a folder's tops), `<folder>__<top>`, a manifest entry's name,
    or the path of a file Verilator rejected."""
    design: Design | None
    """The design, ready for an episode; None when it could not be opened."""
    reason: str = ""
    """Why it could not be opened ('' when it was)."""
    reference: float | None = None
    """Coverage of a reference testbench (a manifest's `reference =`)."""


def design_name(prefix: str, top: str, several: bool) -> str:
    """A top's name in reports: the top itself at the root, the folder (or folder__top) below it."""
    if not prefix:
        return top
    return f"{prefix}__{top}" if several else prefix


def _first_line(exc: Exception) -> str:
    """An error's message, its lines joined (a report cell holds one line)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def folder_designs(folder: Path, prefix: str = "") -> list[Opened]:
    """Every top of one folder of RTL, each inferred on its own; files Verilator rejects are rows too.

    When the folder's project names its top (a filelist's `--top`, a FuseSoC core's toplevel)
    that is its one design; otherwise every module no other module instantiates is one.

    Raises:
        DesignError: no RTL, Verilator could not parse the folder at all, or it has no top.
    """
    sources = gather_folder(folder)
    try:
        tops = [infer(sources).design.top]
    except AmbiguousTopError as exc:
        tops = [unit.name for unit in exc.candidates]
    opened: list[Opened] = []
    dropped: dict[Path, str] = {}
    for top in tops:
        name = design_name(prefix, top, len(tops) > 1)
        try:
            inferred = infer(sources, top)
        except DesignError as exc:
            opened.append(Opened(name, None, _first_line(exc)))
            continue
        dropped.update(inferred.dropped)
        opened.append(Opened(name, replace(inferred.design, name=name)))
    root = sources.root
    for path, why in sorted(dropped.items()):
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        name = f"{prefix}/{shown}" if prefix else shown
        opened.append(Opened(name, None, f"Verilator rejected {shown}: {why}"))
    return opened


def _declared(folder: Path) -> Opened:
    """A folder with a design.toml: its design, or why it does not load."""
    try:
        return Opened(folder.name, load_design(folder))
    except DesignError as exc:
        return Opened(folder.name, None, _first_line(exc))


def manifest_opened(path: Path) -> list[Opened]:
    """Every entry of a manifest, inferred as `run REPO --top TOP` would, in manifest order.

    Raises:
        DesignError: the manifest itself is unreadable or invalid.
    """
    out = []
    for entry in read_manifest(path):
        try:
            design = load_or_infer([entry.repo], None, entry.top)
        except DesignError as exc:
            out.append(Opened(entry.name, None, _first_line(exc), entry.reference))
            continue
        design = replace(design, name=entry.name)
        if entry.target is not None:
            design = replace(design, target=entry.target, target_given=True)
        out.append(Opened(entry.name, design, reference=entry.reference))
    return out


def _subfolders(root: Path) -> list[Path]:
    return sorted(d for d in root.iterdir() if d.is_dir() and not d.name.startswith("."))


def _has_rtl(folder: Path) -> bool:
    try:
        gather_folder(folder)
    except DesignError:
        return False
    return True


def repository_designs(path: Path) -> list[Opened]:
    """Every design under `path`, sorted by name, each with its design or the reason it has none.

    `path` may be a manifest (`[[design]] repo = top =`), a design folder (design.toml), a
    suite (subfolders with design.toml; their plain-RTL siblings are opened as folders), or
    a repository of plain RTL: every top of the whole folder, or, when the folder does not
    parse as one (two copies of a module in sibling designs), every top of each subfolder.

    Raises:
        DesignError: `path` does not exist, an invalid manifest, or no RTL anywhere.
    """
    if is_manifest(path):
        return manifest_opened(path)
    root = path.resolve()
    if not root.is_dir():
        raise DesignError(f"{path}: not a folder or a manifest (.toml)")
    if (root / "design.toml").is_file():
        return [_declared(root)]
    subdirs = _subfolders(root)
    declared = [d for d in subdirs if (d / "design.toml").is_file()]
    out: list[Opened] = [_declared(d) for d in declared]
    why = "no subfolder has RTL"
    if not declared:
        try:
            return sorted(folder_designs(root), key=lambda o: o.name)
        except DesignError as exc:
            why = _first_line(exc)
    for folder in subdirs:
        if folder in declared or not _has_rtl(folder):
            continue
        try:
            out += folder_designs(folder, folder.name)
        except DesignError as exc:
            out.append(Opened(folder.name, None, _first_line(exc)))
    if not out:
        raise DesignError(f"{root}: no designs ({why})")
    return sorted(out, key=lambda o: o.name)
