"""A token-level pre-scan of HDL text: what must be known *before* Verilator can parse.

Verilator needs the include directories and the package files first, so those two facts
come from a scan of comment-stripped tokens (`` `include "x" ``, `package p;`, `p::`).
Verilator looks for an `` `include `` only in the include directories (never beside the
including file), so `resolve_includes` finds each target where it really is (beside the
includer, `../` relative to it, or below a folder) and names the directory to pass.
A file that declares no unit and only defines macros is a header, not a compilation unit.
The same scan names the units a file declares and the identifiers it uses, which is
all the language server's incremental workspace index needs to pick the files of one
design. Which module is the top, and what instantiates what, is decided from
Verilator's own parse (sim.project.infer), never from this scan. Pure: text in, facts out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable, Mapping
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
_DEFINE = re.compile(r"`define\s+([A-Za-z_]\w*)")
_MACRO_USE = re.compile(r"`([A-Za-z_]\w*)")
_DIRECTIVES = frozenset((
    "define", "undef", "undefineall", "ifdef", "ifndef", "elsif", "else", "endif", "include", "timescale",
    "resetall", "default_nettype", "celldefine", "endcelldefine", "line", "pragma", "begin_keywords",
    "end_keywords", "unconnected_drive", "nounconnected_drive", "__FILE__", "__LINE__", "verilator_config"))
"""Compiler directives: backtick words that are not macro uses."""


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
    macros: tuple[str, ...] = ()
    """Macros the file `` `define ``s."""
    macro_uses: frozenset[str] = frozenset()
    """Macros the file uses (`` `NAME `` that is not a compiler directive)."""

    @property
    def declared(self) -> tuple[str, ...]:
        """Every unit name the file declares."""
        return (*self.packages, *self.modules)

    @property
    def defines_only(self) -> bool:
        """True for a file that declares no unit and only defines macros (a header by content)."""
        return bool(self.macros) and not self.declared


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
    macros = tuple(dict.fromkeys(_DEFINE.findall(code)))
    uses = frozenset(m for m in _MACRO_USE.findall(code) if m not in _DIRECTIVES)
    return FileFacts(tuple(modules), tuple(packages), includes, refs, idents, macros, uses)


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


@dataclass(frozen=True)
class Include:
    """One `` `include `` and where it resolves."""

    includer: Path
    """The file that includes."""
    target: str
    """The target as written."""
    header: Path
    """The file it resolves to."""
    directory: Path
    """The include directory that makes Verilator find it (`target` is relative to it)."""


def resolve_includes(includers: Mapping[Path, FileFacts], known: Collection[Path]) -> list[Include]:
    """Where every `` `include `` of `includers` resolves among the `known` files (pure).

    In order: beside the including file, or relative to it when the target climbs with
    `../` (`` `include "../rtl/config.vh" ``): the includer's folder is the directory;
    else a known file whose path ends with the target (`rtl/include` for
    `common_cells/registers.svh`), the nearest to the includer. Targets found nowhere
    are left out (Verilator names them when it parses).
    """
    out: list[Include] = []
    for src, facts in includers.items():
        for target in facts.includes:
            parts = PurePosixPath(target).parts
            if not parts or PurePosixPath(target).is_absolute():
                continue
            beside = Path(os.path.normpath(src.parent / target))
            if beside in known:
                out.append(Include(src, target, beside, src.parent))
                continue
            if ".." in parts:
                continue
            matches = [h for h in known if h.parts[-len(parts):] == parts]
            if matches:
                best = min(matches, key=lambda h: (_distance(src.parent, h), str(h)))
                out.append(Include(src, target, best, Path(*best.parts[: len(best.parts) - len(parts)])))
    return out


def include_dirs_for(includers: Mapping[Path, FileFacts], known: Collection[Path]) -> list[Path]:
    """Include directories that make every `` `include `` of `includers` resolve (see resolve_includes)."""
    return list(dict.fromkeys(inc.directory for inc in resolve_includes(includers, known)))


def included_files(includers: Mapping[Path, FileFacts], candidates: Collection[Path]) -> set[Path]:
    """Which `candidates` some file `include`s.

    A `.v` pulled in by `` `include `` must not be compiled a second time as a source.
    """
    return {inc.header for inc in resolve_includes(includers, candidates)}


def _distance(a: Path, b: Path) -> int:
    """Folder steps between two paths (through their common ancestor)."""
    common = 0
    for x, y in zip(a.parts, b.parts, strict=False):
        if x != y:
            break
        common += 1
    return (len(a.parts) - common) + (len(b.parts) - common)
