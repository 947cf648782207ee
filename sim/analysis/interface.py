"""The design interface and RTL facts, read from Verilator's `--json-only` AST (DESIGN.md §3).

`parse_interface(tree, top, hints)` is pure: ports, parameters, clocks and resets (by use in
`posedge`/`negedge` sensitivity and in the first `if` of clocked blocks, traced through the
instance hierarchy to top ports), the literals each input is compared with, FSM state values,
and every `if`/`case`/`?:` condition by file and line. `read_interface(design)` is the thin
shell: it runs `verilator --json-only` in a temporary directory and caches the result.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from sim.analysis.accessors import Accessor, find_accessors
from sim.analysis.decode import input_slices, input_templates
from sim.analysis.netlist import PORT_DIRECTIONS, Netlist
from sim.analysis.rtl_facts import (
    Collector,
    Condition,
    Parameter,
    clock_reset_facts,
    top_parameters,
)
from sim.analysis.write_ports import WritePort, find_write_ports, upstream_inputs
from sim.errors import DesignError
from sim.sandbox.bwrap import Sandbox
from sim.sandbox.outputs import UnsafeOutputError, read_output
from sim.sandbox.process import Limits, run_command
from sim.suite import Design
from sim.tools import Verilator, find_verilator, tool_env
from sim.types import Command

__all__ = [
    "ALL_KEY", "Condition", "DesignInterface", "Parameter", "Port", "WritePort", "clear_cache", "conditions_at",
    "json_command", "parse_interface", "read_interface", "read_tree",
]
"""Public API; Condition and Parameter live in sim.analysis.rtl_facts, WritePort in sim.analysis.write_ports,
and are re-exported here."""

ALL_KEY = "*"
"""Key of `DesignInterface.constants` holding every interesting literal of the design."""

MAX_ERROR_LINES = 8
"""How many Verilator error lines a DesignError quotes."""



@dataclass(frozen=True)
class Port:
    """One port of the top module."""

    name: str
    """Port name as declared."""
    direction: str
    """`input`, `output` or `inout`."""
    width: int
    """Total packed bits (of one element, for unpacked-array ports)."""
    msb: int
    """Left bound of the packed range (width-1 when none was declared)."""
    lsb: int
    """Right bound of the packed range (0 when none was declared)."""
    signed: bool
    """True for signed ports."""
    unpacked: tuple[int, ...] = ()
    """Sizes of unpacked dimensions (e.g. `a_i[32]` -> (32,)); empty for scalar/packed ports."""
    is_clock: bool = False
    """True when the port clocks some always block (or design.toml says so)."""
    is_reset: bool = False
    """True when the port resets some always block (or design.toml says so)."""
    reset_active_low: bool | None = None
    """For a reset: True when active low; None for non-resets."""
    type_name: str = ""
    """Declared type name (`logic`, `state_t`, ...), '' when unknown."""


@dataclass(frozen=True)
class DesignInterface:
    """The interface and stimulus-relevant facts of an elaborated design."""

    top: str
    """Top module name."""
    ports: tuple[Port, ...]
    """Ports of the top module, in declaration order."""
    parameters: tuple[Parameter, ...] = ()
    """Parameters and localparams of the top module."""
    clocks: tuple[str, ...] = ()
    """Clock input names (design.toml hints first, then those found in the RTL)."""
    resets: tuple[tuple[str, bool], ...] = ()
    """(reset input name, active_low); design.toml hints win on polarity."""
    constants: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Input port -> literals it is compared with or case-matched against (in the port's bit
    space); `ALL_KEY` -> every compared/case literal and integer parameter value."""
    fsm_states: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """State register (hierarchical name below the top, e.g. `state`, `u_ctrl.state`) -> its
    state values (enum items, case items, compared and assigned literals)."""
    conditions: tuple[Condition, ...] = ()
    """Every if/case/case item/?: condition, sorted by file and line."""
    modules: tuple[str, ...] = ()
    """Source names of all modules in the elaborated hierarchy, top first."""
    notes: tuple[str, ...] = ()
    """Where the RTL and the hints disagree, or something could not be traced."""
    write_ports: tuple[WritePort, ...] = ()
    """Storage the inputs can write (tables, register files, decoded registers): what a
    testbench must set up before driving the datapath (sim.analysis.write_ports)."""
    upstream: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Internal signal name -> top inputs that reach it within two register stages."""
    slices: dict[str, tuple[tuple[int, int, tuple[int, ...]], ...]] = field(default_factory=dict)
    """Wide input -> (lsb, width, constants) of the bit fields the design decodes it by
    (sim.analysis.decode: an instruction word's opcode and function fields)."""
    templates: dict[str, tuple[tuple[tuple[int, int, int], ...], ...]] = field(default_factory=dict)
    """Wide input -> the field combinations its decoder recognises, each (lsb, width, value)
    triples (`opcode == 0x63 && funct3 == 0`): the instructions a CPU executes."""
    accessors: tuple[Accessor, ...] = ()
    """Read-only functions the design marks `/*verilator public*/` for its testbenches
    (sim.analysis.accessors): a register file's `get_register(r)`, a retire trace."""

    def port(self, name: str) -> Port | None:
        """The port called `name`, or None."""
        return next((p for p in self.ports if p.name == name), None)

    @property
    def inputs(self) -> tuple[Port, ...]:
        """Input ports."""
        return tuple(p for p in self.ports if p.direction == "input")

    @property
    def outputs(self) -> tuple[Port, ...]:
        """Output ports."""
        return tuple(p for p in self.ports if p.direction == "output")

    @property
    def data_inputs(self) -> tuple[Port, ...]:
        """Inputs that are neither clocks nor resets (what stimulus drives)."""
        return tuple(p for p in self.inputs if not p.is_clock and not p.is_reset)

    def conditions_at(self, file: str, line: int) -> tuple[Condition, ...]:
        """Conditions at file:line (see `conditions_at`)."""
        return conditions_at(self.conditions, file, line)


def conditions_at(conditions: Iterable[Condition], file: str, line: int) -> tuple[Condition, ...]:
    """Conditions located at `file:line`.

    `file` matches exactly or after normalisation; when no condition is in that file at all,
    conditions in a file of the same base name match (coverage tools may print relative paths).
    """
    conds = tuple(conditions)
    want = os.path.normpath(file)
    same_file = [c for c in conds if c.file == file or os.path.normpath(c.file) == want]
    if not same_file:
        base = PurePath(want).name
        same_file = [c for c in conds if PurePath(c.file).name == base]
    return tuple(c for c in same_file if c.line == line)




def parse_interface(tree: Mapping[str, Any], top: str, hints: Design | None = None) -> DesignInterface:
    """Interface and RTL facts of `top` from a loaded `--json-only` tree.

    Args:
        tree: the `.tree.json` object; its optional `meta` key holds the `.tree.meta.json`
            object (for file names; without it `Condition.file` is Verilator's file id).
        top: top module name.
        hints: the design.toml facts; its clocks and resets are merged in and win on polarity.

    Raises:
        DesignError: `top` is not a module of the tree.
    """
    net = Netlist(tree, top)
    collector = Collector(net)
    collector.run()
    found_clocks, found_resets, notes = clock_reset_facts(net)
    inputs = {str(v["name"]) for v in net.top_ports if v.get("direction") in ("INPUT", "INOUT")}
    clocks: list[str] = []
    resets: dict[str, bool] = {}
    if hints is not None:
        for name in hints.clocks:
            if name in inputs:
                clocks.append(name)
            else:
                notes.append(f"design.toml clock '{name}' is not an input of {top}")
            if name not in found_clocks and name in inputs:
                notes.append(f"design.toml clock '{name}' clocks no always block")
        for reset in hints.resets:
            if reset.name not in inputs:
                notes.append(f"design.toml reset '{reset.name}' is not an input of {top}")
                continue
            resets[reset.name] = reset.active_low
            found = found_resets.get(reset.name)
            if found is None:
                notes.append(f"design.toml reset '{reset.name}' resets no always block")
            if found is not None and found != reset.active_low:
                notes.append(
                    f"reset '{reset.name}': design.toml says active {'low' if reset.active_low else 'high'}, "
                    f"the RTL uses it active {'low' if found else 'high'}"
                )
    for name in found_clocks:
        if name not in clocks and name not in resets:
            clocks.append(name)
    for name, low in found_resets.items():
        if name not in clocks:
            resets.setdefault(name, low)
    ports = []
    for var in net.top_ports:
        info = net.type_of(var)
        name = str(var["name"])
        ports.append(Port(
            name=name, direction=PORT_DIRECTIONS[str(var["direction"])], width=info.width,
            msb=info.msb, lsb=info.lsb, signed=info.signed, unpacked=info.unpacked,
            is_clock=name in clocks, is_reset=name in resets, reset_active_low=resets.get(name),
            type_name=str(var.get("dtypeName") or info.name),
        ))
    parameters = top_parameters(net)
    constants = {p: tuple(sorted(v)) for p, v in collector.port_values.items() if p in inputs}
    constants = {p: constants[p] for p in net.port_names if p in constants}
    everything = set(collector.all_values)
    everything.update(p.value for p in parameters if isinstance(p.value, int) and p.value >= 0)
    constants[ALL_KEY] = tuple(sorted(everything))
    conditions = sorted(set(collector.conditions), key=lambda c: (c.file, c.line, c.column, c.kind))
    modules = tuple(dict.fromkeys(str(m.get("origName") or m.get("name")) for m in net.module_order))
    upstream = upstream_inputs(net)
    return DesignInterface(
        top=str(net.top.get("origName") or net.top.get("name")),
        ports=tuple(ports), parameters=parameters, clocks=tuple(clocks),
        resets=tuple((n, resets[n]) for n in net.ordered(resets)),
        constants=constants, fsm_states=collector.fsm_states(), conditions=tuple(conditions),
        modules=modules, notes=tuple(dict.fromkeys(notes)),
        write_ports=find_write_ports(net, resets, clocks), upstream=upstream,
        slices=input_slices(net, upstream), templates=input_templates(net, upstream),
        accessors=find_accessors(net),
    )


# ---------------------------------------------------------------------------------------
# Running Verilator (thin shell)

_CACHE: dict[tuple[object, ...], DesignInterface] = {}
_CACHE_LOCK = threading.Lock()


def json_command(design: Design, tool: Verilator, out_dir: Path) -> Command:
    """The `verilator --json-only` argv for a design, writing into `out_dir`."""
    cmd = [
        str(tool.verilator), "--json-only", "-Wno-fatal", "-Wno-lint", "-Wno-style",
        "--top-module", design.top,
        "--json-only-output", str(out_dir / "tree.json"),
        "--json-only-meta-output", str(out_dir / "tree.meta.json"),
        "-Mdir", str(out_dir / "obj"),
    ]
    cmd += [f"+incdir+{p}" for p in design.include_dirs]
    cmd += [f"+define+{d}" for d in design.defines]
    cmd += [str(p) for p in design.rtl]
    return cmd


TREE_CAP = 512 << 20
"""Largest `--json-only` tree (or meta) file read back."""


def parse_sandbox(tool: Verilator, reads: Iterable[Path], out_dir: Path) -> Sandbox:
    """The OS sandbox of one `--json-only` parse: the sources read-only, no network, `out_dir` writable.

    A cloned repository's files are parsed here, so Verilator never sees more than them
    (and itself); the mode is BENCHWRIGHT_SANDBOX's (auto: the fallback is said once in the log).
    """
    return Sandbox(read_only=(*reads, tool.bin_dir.parent), writable=(out_dir,))


def read_tree_files(out_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(tree, meta) from a parse's output folder, read through sim.sandbox.outputs.

    Raises:
        OSError, UnsafeOutputError, ValueError, TypeError: missing, refused or malformed output.
    """
    tree = json.loads(read_output(out_dir / "tree.json", TREE_CAP, root=out_dir))
    meta = json.loads(read_output(out_dir / "tree.meta.json", TREE_CAP, root=out_dir))
    if not isinstance(tree, dict) or not isinstance(meta, dict):
        raise TypeError("the tree or its meta is not a JSON object")
    return tree, meta


def _error_lines(log_text: str) -> str:
    """The first Verilator error lines of a log (or its last lines when there are none)."""
    lines = log_text.splitlines()
    errors = [ln for ln in lines if ln.startswith("%Error")]
    return "\n".join((errors or lines[-MAX_ERROR_LINES:])[:MAX_ERROR_LINES])


def log_lines(log: Path, cap: int = 4 << 20) -> list[str]:
    """The lines of a parse log (read through sim.sandbox.outputs; [] when refused)."""
    try:
        return read_output(log, cap).decode("utf-8", "replace").splitlines()
    except (OSError, UnsafeOutputError):
        return []


def read_tree(design: Design, *, tool: Verilator | None = None, work_dir: Path | None = None,
              timeout_s: float = 60) -> dict[str, Any]:
    """Run `verilator --json-only` on a design; the tree with the meta file under `meta`.

    Raises:
        DesignError: Verilator rejected the design (the message quotes its first errors).
    """
    tool = tool or find_verilator()
    with tempfile.TemporaryDirectory(prefix="bw-json-", dir=work_dir) as tmp:
        out_dir = Path(tmp)
        log = out_dir / "verilator.log"
        reads = (*design.rtl, *design.include_dirs)
        result = run_command(json_command(design, tool, out_dir), cwd=out_dir, log_path=log,
                             env=tool_env(tool), limits=Limits(timeout_s=timeout_s),
                             sandbox=parse_sandbox(tool, reads, out_dir))
        if result.timed_out:
            raise DesignError(f"{design.name}: verilator --json-only timed out after {timeout_s:.0f} s")
        if not result.ok:
            text = "\n".join(log_lines(log))
            raise DesignError(f"{design.name}: Verilator could not parse the design:\n{_error_lines(text)}")
        try:
            tree, meta = read_tree_files(out_dir)
        except (OSError, ValueError, TypeError, UnsafeOutputError) as exc:
            raise DesignError(f"{design.name}: unreadable Verilator JSON output: {exc}") from None
    tree["meta"] = {"files": meta.get("files", {})}
    return tree


def _cache_key(design: Design, tool: Verilator) -> tuple[object, ...]:
    """(content hash of RTL and include dirs, top, defines, hints, tool)."""
    digest = hashlib.sha256()
    for path in design.rtl:
        digest.update(str(path).encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<missing>")
    for inc in design.include_dirs:
        try:
            entries = sorted(inc.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.is_file():
                digest.update(str(entry).encode())
                digest.update(entry.read_bytes())
    hints = (design.clocks, tuple((r.name, r.active_low) for r in design.resets))
    return (digest.hexdigest(), design.top, design.defines, hints, str(tool.verilator), tool.version)


def read_interface(design: Design, *, tool: Verilator | None = None, work_dir: Path | None = None,
                   timeout_s: float = 60) -> DesignInterface:
    """The design's interface, from Verilator's parser; cached in-process by content.

    Raises:
        DesignError: Verilator rejected the design, or the top module is missing.
    """
    tool = tool or find_verilator()
    key = _cache_key(design, tool)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
    if cached is not None:
        return cached
    tree = read_tree(design, tool=tool, work_dir=work_dir, timeout_s=timeout_s)
    iface = parse_interface(tree, design.top, design)
    with _CACHE_LOCK:
        _CACHE[key] = iface
    return iface


def clear_cache() -> None:
    """Forget cached interfaces (tests; files changed behind the cache's back)."""
    with _CACHE_LOCK:
        _CACHE.clear()
