"""FuseSoC `.core` files, read with FuseSoC's own parser: targets, file sets, include dirs, defines.

`read_core(path)` is the thin shell around the `fusesoc` package (imported lazily); it
returns every target's toplevel and HDL files with paths resolved. FuseSoC 2 reads CAPI2
only: a CAPI1 core (`CAPI=1`, INI) is reported, never guessed at. A core FuseSoC rejects
for an empty key (`depend:` with nothing under it) is read again with empty keys left out,
and says so. `design_target` and `testbench_target` are pure choices over the result.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.errors import DesignError

logger = logging.getLogger(__name__)

HDL_FILE_TYPES = ("verilogsource", "systemverilogsource")
"""FuseSoC file types Verilator compiles (`verilogSource-2005` and the like match by prefix)."""

TESTBENCH_TARGET_WORDS = frozenset(("sim", "test", "tb", "testbench", "verif", "bench"))
"""Target-name words that mark a simulation target (`sim`, `test_ez`, `tb_sha256`)."""


class CoreError(DesignError):
    """A `.core` file that cannot be used (CAPI1, invalid, or FuseSoC not installed)."""


@dataclass(frozen=True)
class CoreTarget:
    """One target of a core, with FuseSoC's use flags for it applied."""

    name: str
    """Target name (`default`, `lint`, `sim`, ...)."""
    toplevel: str
    """Its toplevel module ('' when it names none)."""
    files: tuple[Path, ...] = ()
    """HDL sources in file-set order (absolute), include files left out."""
    include_files: tuple[Path, ...] = ()
    """Files marked `is_include_file` (absolute)."""
    include_dirs: tuple[Path, ...] = ()
    """Where the include files are found (`include_path`, else their folder)."""
    defines: tuple[str, ...] = ()
    """`vlogdefine` parameters with a default, as `NAME` or `NAME=VALUE`."""
    parameters: tuple[tuple[str, str], ...] = ()
    """`vlogparam` parameters with a default (name, value): reported, not applied."""
    depends: tuple[str, ...] = ()
    """VLNVs of the cores it depends on (a lone core cannot resolve them)."""


@dataclass(frozen=True)
class CoreInfo:
    """What a `.core` file declares."""

    path: Path
    """The core file (absolute)."""
    name: str
    """Its VLNV."""
    targets: tuple[CoreTarget, ...]
    """Every target, in file order."""
    notes: tuple[str, ...] = ()
    """How it was read (leniently, and why)."""

    def target(self, name: str) -> CoreTarget | None:
        """The target called `name`, or None."""
        return next((t for t in self.targets if t.name == name), None)


def capi_version(text: str) -> int:
    """1 or 2 from a core file's first line; 0 when it is not a FuseSoC core."""
    words = text.split(maxsplit=1)
    first = words[0] if words else ""
    return {"CAPI=1": 1, "CAPI=2:": 2, "CAPI=2": 2}.get(first, 0)


def _prune_empty(data: Any) -> Any:
    """`data` without keys whose value is YAML null (an empty `depend:` or `tools:`)."""
    if isinstance(data, dict):
        return {k: _prune_empty(v) for k, v in data.items() if v is not None}
    if isinstance(data, list):
        return [_prune_empty(v) for v in data if v is not None]
    return data


def _load(path: Path) -> tuple[Any, list[str]]:
    """FuseSoC's core object for `path` and notes; strict first, then with empty keys dropped."""
    try:
        from fusesoc.capi2.coreparser import Core2Parser
        from fusesoc.core import Core
    except ImportError:
        raise CoreError(f"{path.name}: reading .core files needs the fusesoc package "
                        "(pip install fusesoc==2.4.7)") from None

    class LenientParser(Core2Parser):  # type: ignore[misc]
        """FuseSoC's parser with YAML null values dropped before validation."""

        def read(self, core_file: str, validate_core: bool = True) -> Any:
            data = _prune_empty(super().read(core_file, validate_core=False))
            if validate_core:
                self.validate(data)
            return data

    try:
        return Core(parser=Core2Parser(), core_file=str(path)), []
    except (SyntaxError, ValueError, TypeError, KeyError) as exc:
        strict = " ".join(str(exc).split())[:200]
    try:
        core = Core(parser=LenientParser(allow_additional_properties=True), core_file=str(path))
    except (SyntaxError, ValueError, TypeError, KeyError) as exc:
        raise CoreError(f"{path.name}: FuseSoC cannot read it: {strict or ' '.join(str(exc).split())[:200]}") \
            from None
    return core, [f"{path.name} does not validate as written ({strict}); read with its empty keys left out"]


def _hdl(entry: Mapping[str, Any]) -> bool:
    kind = str(entry.get("file_type", "")).lower()
    if kind:
        return kind.startswith(HDL_FILE_TYPES)
    return str(entry.get("name", "")).endswith((".v", ".sv", ".vh", ".svh"))


def _define(name: str, spec: Mapping[str, Any]) -> str | None:
    """`NAME[=VALUE]` for a vlogdefine parameter with a default (None: off or no default)."""
    if "default" not in spec:
        return None
    value = spec["default"]
    if isinstance(value, bool):
        return name if value else None
    return f"{name}={value}"


def _target(core: Any, name: str, root: Path) -> CoreTarget:
    """One target with its flags applied (each query that FuseSoC refuses leaves its field empty)."""
    flags: dict[str, Any] = {}
    with contextlib.suppress(RuntimeError, SyntaxError, ValueError, KeyError):
        flags = dict(core.get_flags(name))
    flags.update(is_toplevel=True, target=name)
    try:
        toplevel = str(core.get_toplevel(flags)).strip()
    except (SyntaxError, ValueError, KeyError):
        toplevel = ""
    try:
        entries = [e for e in core.get_files(flags) if _hdl(e)]
    except (SyntaxError, ValueError, KeyError):
        entries = []
    files, includes, incdirs = [], [], []
    for entry in entries:
        path = (root / str(entry["name"])).resolve()
        if entry.get("is_include_file"):
            includes.append(path)
            incdir = entry.get("include_path")
            incdirs.append((root / str(incdir)).resolve() if incdir else path.parent)
        else:
            files.append(path)
    defines: list[str] = []
    params: list[tuple[str, str]] = []
    try:
        declared = dict(core.get_parameters(flags))
    except (SyntaxError, ValueError, KeyError, TypeError):
        declared = {}
    for pname, spec in declared.items():
        if not isinstance(spec, Mapping):
            continue
        if spec.get("paramtype") == "vlogdefine" and (define := _define(str(pname), spec)) is not None:
            defines.append(define)
        elif spec.get("paramtype") == "vlogparam" and "default" in spec:
            params.append((str(pname), str(spec["default"])))
    try:
        depends = tuple(str(v) for v in core.get_depends(flags))
    except (SyntaxError, ValueError, KeyError):
        depends = ()
    return CoreTarget(name, toplevel, tuple(dict.fromkeys(files)), tuple(dict.fromkeys(includes)),
                      tuple(dict.fromkeys(incdirs)), tuple(defines), tuple(params), depends)


def read_core(path: Path) -> CoreInfo:
    """Every target of the FuseSoC core at `path`.

    Raises:
        CoreError: not a core, a CAPI1 core, FuseSoC is missing, or FuseSoC cannot read it.
    """
    path = path.resolve()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CoreError(f"{path.name}: cannot read ({exc.strerror or exc})") from None
    version = capi_version(text)
    if version == 1:
        raise CoreError(f"{path.name} is a CAPI1 core (INI); FuseSoC 2, the parser used, reads CAPI2 only, "
                        "so it is ignored")
    if version != 2:
        raise CoreError(f"{path.name}: not a FuseSoC core (the first line is not CAPI=2:)")
    core, notes = _load(path)
    names = list(core.get_data({}).targets)
    targets = tuple(_target(core, name, path.parent) for name in names)
    return CoreInfo(path, str(core.name), targets, tuple(notes))


def is_testbench_target(target: CoreTarget, tb_name: Sequence[str] = ()) -> bool:
    """Whether a target simulates a testbench (its name says so, or its toplevel is in `tb_name`)."""
    words = set(target.name.lower().replace("-", "_").split("_"))
    return bool(words & TESTBENCH_TARGET_WORDS) or target.toplevel in tb_name


def design_target(core: CoreInfo, testbench_tops: Sequence[str] = ()) -> CoreTarget | None:
    """The target that describes the design (pure).

    The toplevel most targets name, over targets that are not simulations and have HDL
    files; among those, `default` first, then the target with the fewest files (the bare
    RTL rather than a board wrapper). `testbench_tops` are toplevels known to be test code.
    """
    usable = [t for t in core.targets if t.toplevel and t.files and not is_testbench_target(t, testbench_tops)]
    if not usable:
        return None
    counts = Counter(t.toplevel for t in usable)
    order = {t.toplevel: i for i, t in reversed(list(enumerate(usable)))}
    top = max(counts, key=lambda name: (counts[name], -order[name]))
    same = [t for t in usable if t.toplevel == top]
    return min(same, key=lambda t: (t.name != "default", len(t.files)))


def testbench_target(core: CoreInfo, design: CoreTarget | None, top: str) -> CoreTarget | None:
    """The core's own testbench for `top` (pure): a simulation target that compiles the design's files.

    Preferred: toplevel `tb_<top>`/`<top>_tb`, then a target named `tb_<top>`, `sim` or
    `test`; targets that depend on other cores are left out (a lone core cannot resolve them).
    """
    rtl = set(design.files) if design is not None else set()
    sims = [t for t in core.targets if t.toplevel and t.toplevel != top and is_testbench_target(t)
            and not t.depends and rtl <= set(t.files) and set(t.files) - rtl]
    if not sims:
        return None

    def rank(t: CoreTarget) -> tuple[int, int, int]:
        named = t.toplevel.lower() in (f"tb_{top}".lower(), f"{top}_tb".lower())
        return (not named, t.name not in (f"tb_{top}", "sim", "test"), len(t.files))

    return min(sims, key=rank)


def find_core(root: Path) -> tuple[CoreInfo | None, list[str]]:
    """The core that describes the folder `root`, and notes on the cores passed over.

    Only `.core` files directly in `root` count: the one named after the folder, else the
    only one there. Cores FuseSoC cannot read are named in the notes.
    """
    paths = sorted(p for p in root.glob("*.core") if p.is_file())
    if not paths:
        return None, []
    named = [p for p in paths if p.stem == root.name]
    if len(paths) > 1 and not named:
        return None, [f"several .core files ({', '.join(p.name for p in paths)}) and none named after the "
                      "folder: none used"]
    path = (named or paths)[0]
    try:
        core = read_core(path)
    except CoreError as exc:
        return None, [str(exc)]
    return core, list(core.notes)
