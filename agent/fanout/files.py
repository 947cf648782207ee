"""The files that cross machines: a design's inputs to a worker, an episode's outputs back.

A Ray worker on another machine may not have the design at the path the driver read it
from, or may have another version of it. `design_digest` names the content a job was
planned with; a worker whose copy differs stages the driver's `bundle` under a folder of its
own and runs the design from there (`rebase`). The episode writes into a temporary folder
on the worker, and `collect` brings its files back for the driver to write (`write_back`),
so a lost worker leaves nothing half-written in the output folder.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import replace
from pathlib import Path, PurePosixPath

from sim.suite import Design

MAX_BUNDLE_BYTES = 256 * 1024 * 1024
"""Most bytes of design files sent to a worker (a design's RTL is kilobytes to a few megabytes)."""

MAX_OUTPUT_BYTES = 64 * 1024 * 1024
"""Most bytes of episode outputs brought back per design; larger files are left out."""


def design_files(design: Design) -> list[Path]:
    """Every file a design's episodes read: RTL, headers under its include dirs, spec, human test."""
    files = [*design.rtl, *design.spec]
    for folder in design.include_dirs:
        if folder.is_dir():
            files += sorted(p for p in folder.rglob("*") if p.is_file())
    if design.human_test is not None:
        files += design.human_test.files
    return list(dict.fromkeys(files))


def design_digest(design: Design) -> str:
    """Hash of the paths and contents of `design_files`; '' when one of them is missing here."""
    h = hashlib.sha256()
    for path in design_files(design):
        try:
            data = path.read_bytes()
        except OSError:
            return ""
        h.update(str(path).encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:24]


def bundle(design: Design) -> dict[str, bytes]:
    """The contents of `design_files` by absolute path, for a worker that lacks them.

    Raises:
        ValueError: the files exceed MAX_BUNDLE_BYTES.
    """
    out: dict[str, bytes] = {}
    total = 0
    for path in design_files(design):
        data = path.read_bytes()
        total += len(data)
        if total > MAX_BUNDLE_BYTES:
            raise ValueError(f"{design.name}: its files exceed {MAX_BUNDLE_BYTES >> 20} MiB; "
                             "give the workers the repository at the same path instead")
        out[str(path)] = data
    return out


def staged_path(path: Path, dest: Path) -> Path:
    """Where an absolute path of the driver's lies under a worker's staging folder `dest`."""
    return dest / path.relative_to(path.anchor)


def rebase(design: Design, dest: Path) -> Design:
    """The design with every path moved under `dest` (as `stage` writes them)."""
    def move(paths: tuple[Path, ...]) -> tuple[Path, ...]:
        return tuple(staged_path(p, dest) for p in paths)

    human = design.human_test
    if human is not None:
        human = replace(human, files=move(human.files))
    return replace(design, root=staged_path(design.root, dest), rtl=move(design.rtl),
                   include_dirs=move(design.include_dirs), spec=move(design.spec), human_test=human)


def stage(design: Design, files: dict[str, bytes], dest: Path) -> Design:
    """Write a bundle under `dest` and return the design that reads it from there."""
    for name, data in files.items():
        target = staged_path(Path(name), dest)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for folder in design.include_dirs:  # an empty include dir still has to exist
        staged_path(folder, dest).mkdir(parents=True, exist_ok=True)
    staged_path(design.root, dest).mkdir(parents=True, exist_ok=True)
    return rebase(design, dest)


def collect(folder: Path) -> tuple[dict[str, bytes], list[str]]:
    """Regular files under `folder` by relative POSIX path, and the ones left out (and why).

    Symbolic links and special files are not followed: an episode's folder holds what a
    testbench run could have written.
    """
    out: dict[str, bytes] = {}
    left: list[str] = []
    total = 0
    if not folder.is_dir():
        return out, left
    for base, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = Path(base) / name
            rel = path.relative_to(folder).as_posix()
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                left.append(f"{rel} (not a regular file)")
                continue
            if total + info.st_size > MAX_OUTPUT_BYTES:
                left.append(f"{rel} ({info.st_size} bytes: over the {MAX_OUTPUT_BYTES >> 20} MiB per design)")
                continue
            out[rel] = path.read_bytes()
            total += info.st_size
    return out, left


def write_back(folder: Path, files: dict[str, bytes]) -> None:
    """Write collected files under `folder` (names that would leave it are refused).

    Raises:
        ValueError: a name is absolute or climbs out of `folder`.
    """
    for rel, data in files.items():
        parts = PurePosixPath(rel).parts
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
            raise ValueError(f"refusing to write {rel!r} outside {folder}")
        target = folder.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
