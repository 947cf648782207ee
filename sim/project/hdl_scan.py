"""A token-level pre-scan of HDL text: what must be known *before* Verilator can parse.

Verilator needs the include directories and the package files first, so those two facts
come from a scan of comment-stripped tokens (`` `include "x" ``, `package p;`, `p::`).
The same scan names the units a file declares and the identifiers it uses, which is
all the language server's incremental workspace index needs to pick the files of one
design. Which module is the top, and what instantiates what, is decided from
Verilator's own parse (sim.project.infer), never from this scan. Pure: text in, facts out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sim.sandbox.guard import strip_comments

HDL_SOURCE_SUFFIXES = (".v", ".sv")
"""Files compiled as sources."""

HDL_HEADER_SUFFIXES = (".vh", ".svh", ".inc", ".vinc", ".h")
"""Files only ever `include`d."""

_INCLUDE = re.compile(r'`include\s*"([^"\n]+)"')
_UNIT = re.compile(r"\b(module|macromodule|package|interface|program)\s+(?:automatic\s+|static\s+)?([A-Za-z_]\w*)")
_PKG_REF = re.compile(r"\b([A-Za-z_]\w*)\s*::")
_IDENT = re.compile(r"(?<![`$\w])[A-Za-z_]\w*")
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


@dataclass(frozen=True)
class FileFacts:
    """Token-level facts of one HDL file."""

    modules: tuple[str, ...] = ()
    """Modules, interfaces and programs declared (in order)."""
    packages: tuple[str, ...] = ()
    """Packages declared."""
    includes: tuple[str, ...] = ()
    """`` `include `` targets as written."""
    package_refs: tuple[str, ...] = ()
    """Names used as `name::` (package scopes, also class scopes)."""
    identifiers: frozenset[str] = frozenset()
    """Every identifier token (a superset of the names of instantiated modules)."""

    @property
    def declared(self) -> tuple[str, ...]:
        """Every unit name the file declares."""
        return (*self.packages, *self.modules)


def scan(text: str) -> FileFacts:
    """Token-level facts of one file's text."""
    clean = strip_comments(text)
    includes = tuple(_INCLUDE.findall(clean))
    code = _STRING.sub('""', clean)
    modules: list[str] = []
    packages: list[str] = []
    for kind, name in _UNIT.findall(code):
        (packages if kind == "package" else modules).append(name)
    refs = tuple(dict.fromkeys(n for n in _PKG_REF.findall(code) if n not in ("std", "local", "super", "this")))
    idents = frozenset(_IDENT.findall(code))
    return FileFacts(tuple(modules), tuple(packages), includes, refs, idents)


def package_order(files: Iterable[Path], facts: Mapping[Path, FileFacts]) -> list[Path]:
    """`files` with package-declaring files first, each after the packages it references.

    Verilator resolves `import p::*` and `p::x` at parse time, so a package must be read
    before its users; the rest keep their given order.
    """
    files = list(files)
    owner = {pkg: f for f in files for pkg in facts.get(f, FileFacts()).packages}
    pkg_files = [f for f in files if facts.get(f, FileFacts()).packages]
    ordered: list[Path] = []
    visiting: set[Path] = set()

    def visit(f: Path) -> None:
        if f in ordered or f in visiting:
            return
        visiting.add(f)
        for ref in facts.get(f, FileFacts()).package_refs:
            dep = owner.get(ref)
            if dep is not None and dep != f:
                visit(dep)
        visiting.discard(f)
        ordered.append(f)

    for f in pkg_files:
        visit(f)
    return ordered + [f for f in files if f not in ordered]


def include_dirs_for(includers: Mapping[Path, FileFacts], headers: Iterable[Path]) -> list[Path]:
    """Include directories that make every `` `include "a/b.svh" `` resolve to a header found.

    For each target, a header whose path ends with the target gives the directory above
    that suffix (`rtl/include` for `common_cells/registers.svh`). A header beside the
    including file needs no directory. The nearest header to the includer wins.
    """
    headers = list(headers)
    out: list[Path] = []
    for src, facts in includers.items():
        for target in facts.includes:
            parts = PurePosixPath(target).parts
            if not parts or ".." in parts:
                continue
            if (src.parent / target) in headers:
                continue
            matches = [h for h in headers if h.parts[-len(parts):] == parts]
            if not matches:
                continue
            best = min(matches, key=lambda h: (_distance(src.parent, h), str(h)))
            folder = Path(*best.parts[: len(best.parts) - len(parts)])
            if folder not in out:
                out.append(folder)
    return out


def included_files(includers: Mapping[Path, FileFacts], candidates: Iterable[Path]) -> set[Path]:
    """Which `candidates` some file `include`s.

    A `.v` pulled in by `` `include `` must not be compiled a second time as a source.
    """
    names = {PurePosixPath(t).name for f in includers.values() for t in f.includes}
    return {c for c in candidates if c.name in names and any(
        c.parts[-len(PurePosixPath(t).parts):] == PurePosixPath(t).parts
        for f in includers.values() for t in f.includes)}


def _distance(a: Path, b: Path) -> int:
    """Folder steps between two paths (through their common ancestor)."""
    common = 0
    for x, y in zip(a.parts, b.parts, strict=False):
        if x != y:
            break
        common += 1
    return (len(a.parts) - common) + (len(b.parts) - common)
