"""Cores a FuseSoC target depends on, found in the same repository.

A core often depends on others kept beside it (`depend: [::fifo]`, a library's cores in
subfolders): FuseSoC would find them through its library paths. Here the repository is the
library: every readable `.core` under its root is a candidate, matched by VLNV (vendor,
library, name; the version and its relation are not compared). The files, include files and
defines of the cores a target needs come first (dependencies before their users), as
FuseSoC orders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sim.project.fusesoc_core import (
    CoreError,
    CoreInfo,
    CoreTarget,
    design_target,
    read_core,
)

MAX_CORES = 200
"""Most `.core` files read in one repository (a vendored library can hold thousands)."""


def vlnv_key(vlnv: str) -> tuple[str, str, str]:
    """(vendor, library, name) of a VLNV (`>=acme:lib:fifo:1.0` -> acme, lib, fifo)."""
    parts = [*vlnv.lstrip("<>=~^!").split(":"), "", "", ""]
    return parts[0], parts[1], parts[2]


def provides(core_name: str, dependency: str) -> bool:
    """Whether the core called `core_name` satisfies `dependency` (empty vendor/library match any)."""
    want, have = vlnv_key(dependency), vlnv_key(core_name)
    return want[2] == have[2] and all(not w or w == h for w, h in zip(want[:2], have[:2], strict=True))


def repository_cores(root: Path) -> list[CoreInfo]:
    """Every `.core` under `root` FuseSoC can read (hidden folders skipped; at most `MAX_CORES`)."""
    paths = sorted(p for p in root.rglob("*.core")
                   if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))
    cores = []
    for path in paths[:MAX_CORES]:
        try:
            cores.append(read_core(path))
        except CoreError:
            continue
    return cores


@dataclass(frozen=True)
class Dependencies:
    """What the cores a target depends on add to it, dependencies first."""

    files: tuple[Path, ...] = ()
    """HDL files of the dependency cores."""
    include_files: tuple[Path, ...] = ()
    """Their include files."""
    include_dirs: tuple[Path, ...] = ()
    """Their include folders."""
    defines: tuple[str, ...] = ()
    """Their `vlogdefine` defaults."""
    cores: tuple[str, ...] = ()
    """Names of the cores used."""
    unresolved: tuple[str, ...] = ()
    """Dependencies no core in the repository provides."""


def _target_of(core: CoreInfo) -> CoreTarget | None:
    """The target a dependency contributes: its `default`, else its design target."""
    return core.target("default") or design_target(core)


def resolve(target: CoreTarget, cores: Sequence[CoreInfo]) -> Dependencies:
    """The cores `target` needs, transitively, from `cores` (pure)."""
    files: list[Path] = []
    includes: list[Path] = []
    dirs: list[Path] = []
    defines: list[str] = []
    used: list[str] = []
    unresolved: list[str] = []
    seen: set[Path] = set()

    def visit(depends: Sequence[str]) -> None:
        for dependency in depends:
            core = next((c for c in cores if provides(c.name, dependency)), None)
            if core is None:
                unresolved.append(dependency)
                continue
            if core.path in seen:
                continue
            seen.add(core.path)
            found = _target_of(core)
            if found is None:
                continue
            visit(found.depends)  # its own dependencies come before it
            used.append(core.name)
            files.extend(found.files)
            includes.extend(found.include_files)
            dirs.extend(found.include_dirs)
            defines.extend(found.defines)

    visit(target.depends)
    return Dependencies(tuple(dict.fromkeys(files)), tuple(dict.fromkeys(includes)), tuple(dict.fromkeys(dirs)),
                        tuple(dict.fromkeys(defines)), tuple(used), tuple(dict.fromkeys(unresolved)))
