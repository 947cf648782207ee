"""Load bench suites: one folder per design with a `design.toml` (DESIGN.md section 8)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.errors import DesignError
from sim.types import DEFAULT_TARGET


@dataclass(frozen=True)
class Reset:
    """A reset input of the top module."""

    name: str
    """Port name."""
    active_low: bool
    """True when the design is in reset while the port is 0."""


@dataclass(frozen=True)
class HumanTest:
    """The design's human-written test, where one exists."""

    kind: str
    """`sv` (stimulus testbench) or `cocotb` (Python test module)."""
    files: tuple[Path, ...]
    """Absolute paths of the test's files."""
    top: str
    """Testbench top module (sv) or cocotb test module name."""
    runs: bool
    """Whether it built and ran when the suite was checked."""
    note: str = ""
    """Free text from the suite author."""


@dataclass(frozen=True)
class Design:
    """One hardware repository R: RTL, interface hints, target."""

    name: str
    """Design name (the folder name in a suite)."""
    root: Path
    """Absolute design folder."""
    top: str
    """Top module of the DUT."""
    rtl: tuple[Path, ...]
    """Absolute RTL files in compile order."""
    include_dirs: tuple[Path, ...] = ()
    """Absolute include directories."""
    spec: tuple[Path, ...] = ()
    """Absolute specification files (prompt context)."""
    clocks: tuple[str, ...] = ()
    """Clock inputs of `top` (may be empty for combinational designs)."""
    resets: tuple[Reset, ...] = ()
    """Reset inputs of `top`."""
    target: float = DEFAULT_TARGET
    """Coverage pass threshold in percent."""
    target_given: bool = False
    """True when design.toml set `target` (else DEFAULT_TARGET applies)."""
    dut_instance: str = "dut"
    """Instance name a generated testbench must give the DUT."""
    defines: tuple[str, ...] = ()
    """`NAME` or `NAME=VALUE` preprocessor defines."""
    description: str = ""
    """One line: what the design is."""
    human_test: HumanTest | None = None
    """The human test, if any."""
    source: Mapping[str, str] = field(default_factory=dict)
    """Provenance (repo, commit, path, license)."""

    def spec_text(self, max_chars: int = 20000) -> str:
        """Concatenated specification text, truncated to `max_chars`."""
        parts = []
        for path in self.spec:
            try:
                parts.append(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
        return "\n\n".join(parts)[:max_chars]


def _require(data: Mapping[str, Any], key: str, kind: type, where: Path) -> Any:
    """Fetch a required key of a given type or raise DesignError naming file and key."""
    if key not in data:
        raise DesignError(f"{where}: missing required key '{key}'")
    value = data[key]
    if not isinstance(value, kind):
        raise DesignError(f"{where}: key '{key}' must be {kind.__name__}, got {type(value).__name__}")
    return value


def _str_list(data: Mapping[str, Any], key: str, where: Path) -> list[str]:
    """An optional list of strings (default empty), validated."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DesignError(f"{where}: key '{key}' must be a list of strings")
    return value


def parse_design(data: Mapping[str, Any], root: Path) -> Design:
    """Build a Design from parsed design.toml data; pure apart from path joining."""
    where = root / "design.toml"
    top = _require(data, "top", str, where)
    rtl = [root / p for p in _str_list(data, "rtl", where)]
    if not rtl:
        raise DesignError(f"{where}: 'rtl' lists no files")
    resets = []
    for item in data.get("resets", []):
        if not isinstance(item, dict) or "name" not in item:
            raise DesignError(f"{where}: each entry of 'resets' needs a 'name'")
        resets.append(Reset(str(item["name"]), bool(item.get("active_low", False))))
    human = None
    ht = data.get("human_test")
    if isinstance(ht, dict):
        kind = _require(ht, "kind", str, where)
        if kind not in ("sv", "cocotb"):
            raise DesignError(f"{where}: human_test.kind must be 'sv' or 'cocotb', got {kind!r}")
        human = HumanTest(
            kind=kind,
            files=tuple(root / p for p in _str_list(ht, "files", where)),
            top=_require(ht, "top", str, where),
            runs=bool(ht.get("runs", True)),
            note=str(ht.get("note", "")),
        )
    target = data.get("target")
    if target is not None and not isinstance(target, int | float):
        raise DesignError(f"{where}: 'target' must be a number (percent)")
    return Design(
        name=str(data.get("name", root.name)),
        root=root,
        top=top,
        rtl=tuple(rtl),
        include_dirs=tuple(root / p for p in _str_list(data, "include_dirs", where)),
        spec=tuple(root / p for p in _str_list(data, "spec", where)),
        clocks=tuple(_str_list(data, "clocks", where)),
        resets=tuple(resets),
        target=float(target) if target is not None else DEFAULT_TARGET,
        target_given=target is not None,
        dut_instance=str(data.get("dut_instance", "dut")),
        defines=tuple(_str_list(data, "defines", where)),
        description=str(data.get("description", "")),
        human_test=human,
        source={k: str(v) for k, v in data.get("source", {}).items()},
    )


def load_design(path: Path) -> Design:
    """Load a design folder (or its design.toml); raises DesignError with the reason."""
    path = path.resolve()
    toml_path = path if path.name == "design.toml" else path / "design.toml"
    try:
        data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DesignError(f"{toml_path}: not found (a design folder needs a design.toml)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise DesignError(f"{toml_path}: invalid TOML: {exc}") from None
    design = parse_design(data, toml_path.parent)
    missing = [str(p) for p in design.rtl if not p.is_file()]
    if missing:
        raise DesignError(f"{toml_path}: RTL file(s) not found: {', '.join(missing)}")
    return design


def design_from_files(files: list[Path], top: str, include_dirs: list[Path] | None = None,
                      defines: list[str] | None = None) -> Design:
    """A Design for loose RTL files (the CLI's `--top` form)."""
    files = [f.resolve() for f in files]
    missing = [str(p) for p in files if not p.is_file()]
    if missing:
        raise DesignError(f"RTL file(s) not found: {', '.join(missing)}")
    return Design(
        name=top, root=files[0].parent, top=top, rtl=tuple(files),
        include_dirs=tuple(p.resolve() for p in include_dirs or []),
        defines=tuple(defines or []),
    )


def load_suite(path: Path) -> list[Design]:
    """All designs of a suite folder, sorted by name (folders without design.toml skipped)."""
    path = path.resolve()
    if not path.is_dir():
        raise DesignError(f"{path}: suite folder not found")
    designs = [load_design(d) for d in sorted(path.iterdir()) if (d / "design.toml").is_file()]
    if not designs:
        raise DesignError(f"{path}: no design folders (each needs a design.toml)")
    return designs
