"""The design(s) a command line names: a design.toml folder, or one inferred by sim.project.discover.

`gather` turns `run`/`sim`/`init` arguments (one folder, RTL files, `-f FILELIST`) into
sources; `load_or_infer` prefers a folder's design.toml; `load_designs` is `bench`'s view,
where a folder may also be a suite of design folders, and a `.toml` manifest a list of
repositories with their tops (sim.project.manifest).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from sim.errors import DesignError
from sim.project.discover import (
    Inferred,
    Sources,
    gather_filelist,
    gather_files,
    gather_folder,
    infer,
)
from sim.project.manifest import is_manifest, manifest_designs
from sim.suite import Design, load_design


def gather(paths: list[Path], filelist: Path | None = None, top: str = "") -> Sources:
    """Sources from command-line inputs: one folder, RTL files, or a filelist (`-f`).

    `top` (a `--top`) tells a folder with a FuseSoC core whether the core's files hold it.

    Raises:
        DesignError: nothing given, a mix of folders and files, or missing files.
    """
    if filelist is not None:
        if paths:
            raise DesignError("give either -f FILELIST or folders/files, not both")
        return gather_filelist(filelist)
    if len(paths) == 1 and paths[0].is_dir():
        return gather_folder(paths[0], top)
    if not paths:
        raise DesignError("give a design folder, RTL files, or -f FILELIST")
    if any(p.is_dir() for p in paths):
        raise DesignError("give one folder, or a list of files (not both)")
    lists = [p for p in paths if p.suffix == ".f"]
    if lists:
        raise DesignError(f"{lists[0]}: a filelist goes after -f")
    return gather_files(paths)


def load_or_infer(paths: list[Path], filelist: Path | None = None, top: str = "",
                  on_inferred: Callable[[Inferred], None] | None = None) -> Design:
    """A folder's design.toml when it has one (with `top` overriding), else an inferred design.

    `on_inferred(inferred)` is called when inference ran (the CLIs print the explanation).

    Raises:
        DesignError: as `gather` and `infer`.
    """
    if filelist is None and len(paths) == 1 and (paths[0] / "design.toml").is_file():
        design = load_design(paths[0])
        return replace(design, top=top) if top else design
    inferred = infer(gather(paths, filelist, top), top)
    if on_inferred is not None:
        on_inferred(inferred)
    return inferred.design


def load_designs(paths: list[Path], filelist: Path | None = None, top: str = "",
                 warn: Callable[[str], object] | None = None) -> list[Design]:
    """The designs a `bench` argument names, sorted by name.

    One design for RTL files, `-f`, or a folder with design.toml. A manifest (`real.toml`)
    gives one design per entry, inferred as `run REPO --top TOP` would. A folder whose
    subfolders have design.toml files is a suite: those load, and subfolders of plain
    RTL are inferred. A folder with neither is inferred as one design; when that fails
    (several tops, duplicate modules across designs) each subfolder is inferred on its own.
    `warn(text)` hears about subfolders that could not be inferred (they are skipped).

    Raises:
        DesignError: nothing usable.
    """
    if filelist is None and len(paths) == 1 and is_manifest(paths[0]):
        if top:
            raise DesignError(f"{paths[0]}: a manifest names each design's top; --top does not apply")
        return [m.design for m in manifest_designs(
            paths[0], lambda repo, entry_top: load_or_infer([repo], None, entry_top), warn)]
    if filelist is not None or len(paths) != 1 or not paths[0].is_dir() or (paths[0] / "design.toml").is_file():
        return [load_or_infer(paths, filelist, top)]
    root = paths[0].resolve()
    subdirs = sorted(d for d in root.iterdir() if d.is_dir() and not d.name.startswith("."))
    declared = [d for d in subdirs if (d / "design.toml").is_file()]
    if not declared:
        try:
            return [infer(gather_folder(root, top), top).design]
        except DesignError as exc:
            whole_error = exc
    designs = [load_design(d) for d in declared]
    for folder in subdirs:
        if folder in declared:
            continue
        try:
            sources = gather_folder(folder, top)
        except DesignError:
            continue  # no RTL here: not a design
        try:
            designs.append(replace(infer(sources, top).design, name=folder.name))
        except DesignError as exc:
            if warn is not None:
                warn(f"{folder.name}: skipped: {exc}")
    if not designs:
        raise DesignError(f"{root}: no designs ({whole_error if not declared else 'no subfolder has RTL'})")
    return sorted(designs, key=lambda d: d.name)
