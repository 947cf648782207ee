"""Suite manifests: real repositories as cloned, each `[[design]]` naming a repo and its top.

A manifest (`../shared/benchmarks/real/real.toml`) is a TOML file of entries
`[[design]] repo = "wbuart32", top = "wbuart", target = 90.0, reference = 94.62`; the
repositories have no design.toml, so each design is inferred the way `benchwright run REPO
--top TOP` does. `parse_manifest` is pure (data in, entries out); `read_manifest` reads the
file; `manifest_designs` infers every entry.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sim.errors import DesignError
from sim.suite import Design


@dataclass(frozen=True)
class ManifestEntry:
    """One `[[design]]` of a manifest."""

    repo: Path
    """The repository folder (absolute; relative entries resolve against the manifest's folder)."""
    top: str
    """Top module a user would pick (passed as `--top`)."""
    name: str
    """Design name in reports: `name =` when given, else `<repo>__<top>`."""
    target: float | None = None
    """Coverage target in percent (None: the inferred design's default)."""
    reference: float | None = None
    """Coverage of a reference testbench, reported beside the policy's (None when not given)."""
    note: str = ""
    """Free text (`note =`)."""


@dataclass(frozen=True)
class ManifestDesign:
    """A manifest entry and the design inferred for it."""

    entry: ManifestEntry
    """What the manifest says."""
    design: Design
    """The inferred design (named and targeted as the entry says)."""


def _number(item: Mapping[str, Any], key: str, where: str) -> float | None:
    value = item.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DesignError(f"{where}: '{key}' must be a number (percent)")
    return float(value)


def parse_manifest(data: Mapping[str, Any], base: Path, source: str = "manifest") -> list[ManifestEntry]:
    """The entries of parsed manifest data; relative repos resolve against `base` (pure).

    Raises:
        DesignError: no `[[design]]`, an entry without `repo`/`top`, a bad number, or two
            entries with one name.
    """
    items = data.get("design")
    if not isinstance(items, list) or not items:
        raise DesignError(f"{source}: no [[design]] entries (each needs repo = and top =)")
    entries: list[ManifestEntry] = []
    for k, item in enumerate(items, 1):
        where = f"{source}: design #{k}"
        if not isinstance(item, Mapping):
            raise DesignError(f"{where}: must be a table")
        repo, top = item.get("repo"), item.get("top")
        if not isinstance(repo, str) or not repo or not isinstance(top, str) or not top:
            raise DesignError(f"{where}: needs repo = \"FOLDER\" and top = \"MODULE\"")
        name = item.get("name", f"{Path(repo).name}__{top}")
        if not isinstance(name, str) or not name:
            raise DesignError(f"{where}: 'name' must be a string")
        path = Path(repo).expanduser()
        entries.append(ManifestEntry(
            repo=path if path.is_absolute() else base / path, top=top, name=name,
            target=_number(item, "target", where), reference=_number(item, "reference", where),
            note=str(item.get("note", ""))))
    names = [e.name for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DesignError(f"{source}: several entries named {', '.join(twice)}; give each a name =")
    return entries


def is_manifest(path: Path) -> bool:
    """Whether `path` is a manifest file (a `.toml` other than design.toml)."""
    return path.suffix == ".toml" and path.name != "design.toml" and path.is_file()


def read_manifest(path: Path) -> list[ManifestEntry]:
    """The entries of a manifest file.

    Raises:
        DesignError: unreadable or invalid TOML, or as `parse_manifest`.
    """
    path = path.resolve()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DesignError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DesignError(f"{path}: invalid TOML: {exc}") from None
    return parse_manifest(data, path.parent, str(path))


def manifest_designs(path: Path, load: Callable[[Path, str], Design],
                     warn: Callable[[str], object] | None = None) -> list[ManifestDesign]:
    """Every entry of the manifest at `path` with its design, in manifest order.

    `load(repo, top)` gives an entry's design (sim.project.inputs.load_or_infer, so a
    manifest design is the design `run REPO --top TOP` would use). An entry whose design
    cannot be loaded is skipped and reported through `warn(text)`.

    Raises:
        DesignError: as `read_manifest`, or no entry could be loaded.
    """
    out: list[ManifestDesign] = []
    errors: list[str] = []
    for entry in read_manifest(path):
        try:
            design = load(entry.repo, entry.top)
        except DesignError as exc:
            errors.append(f"{entry.name}: skipped: {exc}")
            if warn is not None:
                warn(errors[-1])
            continue
        design = replace(design, name=entry.name)
        if entry.target is not None:
            design = replace(design, target=entry.target, target_given=True)
        out.append(ManifestDesign(entry, design))
    if not out:
        raise DesignError(f"{path}: no design could be loaded ({'; '.join(errors)})")
    return out
