"""Mutation analysis: one batched mutant model per design, differential runs, a kill ratio.

`prepare` finds the mutants (sim.mutation.mutants), writes the RTL with all of them selectable
(sim.mutation.rtl), lints it and drops any mutant the compiler rejects. The result is a
`MutantModel`: a Design whose RTL is the batched copy, so any testbench built against it
(a generated SV testbench, the human test, the engine's data-driven harness) serves every
mutant from one build. `run_mutants` runs the original (`+bw_mut=0`) and each mutant with
the same stimulus and compares the DUT output traces the model writes in its run directory:
a mutant is killed when an output differs at some time, or the run ends differently
(an assertion fires, the testbench fails, it hangs). Comparison and scoring are pure.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeAlias

from sim.analysis import ast_json as ast
from sim.analysis.interface import read_tree
from sim.analysis.netlist import Netlist
from sim.errors import DesignError
from sim.mutation.mutants import Mutant, find_mutants, sample
from sim.mutation.rtl import PLUSARG, TRACE_PREFIX, TracedPort, instrument, site_lines
from sim.run.commands import BuildSpec, verilator_lint
from sim.run.evaluate import BuiltTestbench, SimOptions, builds_dir, sandbox_for
from sim.run.messages import parse_messages
from sim.sandbox.outputs import UnsafeOutputError, list_outputs, read_output_text
from sim.sandbox.process import Cancel, Limits, run_command
from sim.suite import Design
from sim.tools import find_verilator, tool_env
from sim.types import SimResult, Status

logger = logging.getLogger(__name__)

DEFAULT_CAP = 60
"""Most mutants analysed per design unless told otherwise (a seeded, kind-balanced sample)."""

LINT_ROUNDS = 4
"""Times the batched RTL is linted, dropping the mutants on error lines after each failure."""

LINT_LOG_CAP = 16 << 20
"""Largest lint log of the mutant RTL read back."""

MUTANT_OPTIONS = SimOptions(metrics=())
"""Mutant models carry no coverage instrumentation: they only need the output trace."""

SEED = 1
"""Simulator seed of every mutation run. It must be fixed and non-zero: `+verilator+seed+0`
draws a fresh seed per run, and a randomised testbench would then differ from itself."""

HANG_FACTOR = 10.0
"""A mutant run may take this many times the original's run time (plus HANG_MIN_S) before it
counts as hung: generous, so a loaded machine never turns a slow run into a kill."""

HANG_MIN_S = 10.0
"""Smallest time limit of a mutant run, in seconds."""


@dataclass(frozen=True)
class MutantModel:
    """A design's batched mutant RTL, ready to build with any testbench."""

    design: Design
    """The design with its RTL replaced by the batched copy (include dirs keep the originals)."""
    original: Design
    """The unmodified design."""
    mutants: tuple[Mutant, ...]
    """The mutants built in (ids are the `+bw_mut=` values)."""
    found: int
    """Mutants found before sampling."""
    rejected: tuple[tuple[Mutant, str], ...] = ()
    """Mutants dropped because the batched RTL with them did not compile, and the error."""
    traced: tuple[str, ...] = ()
    """Output ports written to the trace."""
    prepare_s: float = 0.0
    """Seconds spent finding mutants, rewriting and linting."""


@dataclass(frozen=True)
class Outcome:
    """How one run of one mutant (or the original) ended, as far as comparison needs."""

    status: str
    """`ok`, `runtime_error` or `timeout` (a run without coverage files counts as ok)."""
    trace: tuple[str, ...]
    """The normalised output trace (see `normalize_trace`)."""
    seconds: float = 0.0
    """Wall time of the run."""


@dataclass(frozen=True)
class MutationReport:
    """Kill ratio of one stimulus over a design's mutants."""

    design: str
    """Design name."""
    mutants: tuple[Mutant, ...]
    """Every mutant analysed."""
    killed: dict[int, str] = field(default_factory=dict)
    """Mutant id -> why it counts as killed (first differing output, failed run, hang)."""
    found: int = 0
    """Mutants found before sampling."""
    rejected: tuple[tuple[Mutant, str], ...] = ()
    """Mutants that could not be built in."""
    build_s: float = 0.0
    """Seconds spent building the mutant model with this testbench."""
    run_s: float = 0.0
    """Seconds spent running the original and every mutant."""
    prepare_s: float = 0.0
    """Seconds spent finding, rewriting and linting the mutants."""
    equivalent: frozenset[int] = frozenset()
    """Mutants no stimulus of any policy distinguished ("possibly equivalent"), when known."""
    error: str = ""
    """Why the analysis could not run ('' when it did)."""

    @property
    def failed_runs(self) -> tuple[int, ...]:
        """Mutants the testbench itself noticed: its run failed (a check, an assertion, `$fatal`).

        The rest of the kills are differential: outputs differed from the original's, which a
        testbench without checks of its own does not see.
        """
        return tuple(i for i, why in self.killed.items() if why == FAILED_RUN)

    @property
    def self_ratio(self) -> float:
        """Mutants the testbench's own checks noticed / analysed, in percent."""
        return 100.0 * len(self.failed_runs) / len(self.mutants) if self.mutants else 0.0

    @property
    def survived(self) -> tuple[Mutant, ...]:
        """Mutants the stimulus did not kill."""
        return tuple(m for m in self.mutants if m.id not in self.killed)

    @property
    def ratio(self) -> float:
        """Killed / analysed, in percent (0 without mutants)."""
        return 100.0 * len(self.killed) / len(self.mutants) if self.mutants else 0.0

    @property
    def score(self) -> float:
        """Killed / (analysed - possibly equivalent), in percent: the mutation score."""
        live = len(self.mutants) - len(self.equivalent)
        return 100.0 * len(self.killed) / live if live > 0 else 0.0


# ---------------------------------------------------------------------------------------
# Pure parts


def normalize_trace(files: Mapping[str, str]) -> tuple[str, ...]:
    """Trace files (name -> text) as comparable lines: the last value at each time, changes only.

    Within one time step an output may glitch through intermediate values whose order
    depends on evaluation order rather than on behaviour, so only the settled value counts.
    """
    out: list[str] = []
    for name in sorted(files):
        settled: dict[str, str] = {}
        order: list[str] = []
        for line in files[name].splitlines():
            when, _, values = line.strip().partition(" ")
            if not when:
                continue
            if when not in settled:
                order.append(when)
            settled[when] = values
        previous = None
        for when in order:
            if settled[when] != previous:
                out.append(f"{name} {when} {settled[when]}")
                previous = settled[when]
    return tuple(out)


FAILED_RUN = "the testbench failed (runtime error)"
"""Why a mutant counts as killed when the testbench's own run failed on it."""


def kill_reason(original: Outcome, mutant: Outcome) -> str | None:
    """Why `mutant` is distinguishable from `original` (None when it is not)."""
    if mutant.status != original.status:
        return {"timeout": "the run hung (timeout)", "runtime_error": FAILED_RUN}.get(
            mutant.status, f"the run ended differently ({mutant.status})")
    for i, (a, b) in enumerate(zip(original.trace, mutant.trace, strict=False)):
        if a != b:
            return f"outputs differ: {_trace_point(b, original.trace[i])}"
    if len(original.trace) != len(mutant.trace):
        longer = mutant.trace if len(mutant.trace) > len(original.trace) else original.trace
        return f"outputs differ: {_trace_point(longer[min(len(original.trace), len(mutant.trace))], '')}"
    return None


def _trace_point(line: str, expected: str) -> str:
    """`t=... got ... expected ...` for a differing trace line."""
    parts = line.split(" ", 2)
    want = expected.split(" ", 2)
    if len(parts) < 3:
        return line
    got = f"t={parts[1]} outputs {parts[2]}"
    return got + (f" (original: t={want[1]} {want[2]})" if len(want) == 3 else "")


def mark_equivalent(reports: Sequence[MutationReport]) -> list[MutationReport]:
    """Reports over the same mutants, each marked with the ids nobody killed."""
    if not reports:
        return []
    ids = {m.id for r in reports for m in r.mutants}
    killed = {i for r in reports for i in r.killed}
    equivalent = frozenset(ids - killed)
    return [replace(r, equivalent=equivalent) for r in reports]


def traced_ports(net: Netlist) -> tuple[TracedPort, ...]:
    """The top module's outputs (and inouts) as the trace prints them."""
    ports = []
    for var in net.top_ports:
        if var.get("direction") in ("OUTPUT", "INOUT"):
            ports.append(TracedPort(str(var["name"]), net.type_of(var).unpacked))
    return tuple(ports)


def rejected_by(messages_text: str, mutants: Sequence[Mutant], sources: Mapping[str, str],
                renamed: Mapping[str, str]) -> list[tuple[Mutant, str]]:
    """Mutants with a site on a line the compiler reported an error on."""
    errors = [m for m in parse_messages(messages_text) if m.severity == "error"]
    bad: list[tuple[Mutant, str]] = []
    for mutant in mutants:
        lines = site_lines(mutant, sources)
        for msg in errors:
            original = renamed.get(str(Path(msg.file).resolve()), msg.file)
            if (original, msg.line) in lines:
                bad.append((mutant, f"{Path(original).name}:{msg.line}: {msg.text}"))
                break
    return bad


# ---------------------------------------------------------------------------------------
# Shell: preparing the model, running mutants


def _write_rtl(root: Path, texts: Mapping[str, str], order: Sequence[str]) -> tuple[tuple[Path, ...], dict[str, str]]:
    """Write the batched RTL under `root` (content-addressed); new paths and new -> original."""
    digest = hashlib.sha256("\0".join(f"{p}\0{texts[p]}" for p in order).encode()).hexdigest()[:20]
    base = root / digest
    paths = []
    renamed = {}
    for i, original in enumerate(order):
        path = base / str(i) / Path(original).name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text() != texts[original]:
            path.write_text(texts[original])
        paths.append(path)
        renamed[str(path.resolve())] = original
    return tuple(paths), renamed


def prepare(design: Design, *, cap: int | None = DEFAULT_CAP, options: SimOptions = SimOptions(),
            cancel: Cancel | None = None) -> MutantModel:
    """Find, sample, rewrite and lint the mutants of a design.

    Raises:
        DesignError: Verilator cannot parse the design, or the batched RTL does not lint
            even with every mutant that touches an error line removed.
    """
    start = time.monotonic()
    tool = find_verilator(options.verilator_path)
    tree = read_tree(design, tool=tool)
    net = Netlist(tree, design.top)
    order = [str(p) for p in design.rtl]
    sources = {p: Path(p).read_text(encoding="utf-8", errors="replace") for p in order}
    found = find_mutants(tree, sources, net.module_order)
    mutants = sample(found, cap, design.name)
    top_file, top_at = top_location(tree, net, sources, order)
    outputs = traced_ports(net)
    rejected: list[tuple[Mutant, str]] = []
    root = builds_dir(options) / "mutants"
    for _ in range(LINT_ROUNDS):
        texts = instrument(sources, mutants, top_file, top_at, outputs)
        paths, renamed = _write_rtl(root, texts, order)
        extra_inc = tuple(dict.fromkeys(p.parent for p in design.rtl))
        mutated = replace(design, rtl=paths, include_dirs=(*design.include_dirs, *extra_inc))
        log = paths[0].parent.parent / "lint.log"
        log.write_text("")
        spec = BuildSpec(sources=paths, top=design.top, include_dirs=mutated.include_dirs, defines=design.defines,
                         extra_args=options.extra_args)
        # The RTL may come from a cloned repository: lint it in the sandbox too.
        res = run_command(verilator_lint(tool.verilator, spec), cwd=log.parent, log_path=log, env=tool_env(tool),
                          limits=Limits(timeout_s=120), cancel=cancel,
                          sandbox=sandbox_for(mutated, tool, options, write=(log.parent,)))
        if res.ok:
            return MutantModel(mutated, design, tuple(mutants), len(found), tuple(rejected),
                               tuple(p.name for p in outputs), time.monotonic() - start)
        try:
            lint_log = read_output_text(log, LINT_LOG_CAP)
        except (OSError, UnsafeOutputError) as exc:
            raise DesignError(f"{design.name}: the mutant RTL's lint log: {exc}") from None
        bad = rejected_by(lint_log, mutants, sources, renamed)
        if not bad:
            raise DesignError(f"{design.name}: the mutant RTL does not compile:\n{res.tail}")
        rejected += bad
        dropped = {m.id for m, _ in bad}
        mutants = [m for m in mutants if m.id not in dropped]
    raise DesignError(f"{design.name}: the mutant RTL still fails to lint after {LINT_ROUNDS} repairs")


def top_location(tree: Mapping[str, object], net: Netlist, sources: Mapping[str, str],
                 order: Sequence[str]) -> tuple[str, int]:
    """(file, offset of the name token) of the top module."""
    fid, line, col = ast.parse_loc(str(net.top.get("loc", "")))
    top_file = _file_ids(tree, order).get(fid, order[-1])
    return top_file, _offset(sources[top_file], line, col)


def single_mutant_design(model: MutantModel, mutant_id: int) -> Design:
    """The design with one mutant applied unconditionally: one model per mutant (for comparison)."""
    design = model.original
    tree = read_tree(design)
    net = Netlist(tree, design.top)
    order = [str(p) for p in design.rtl]
    sources = {p: Path(p).read_text(encoding="utf-8", errors="replace") for p in order}
    mutant = next(m for m in model.mutants if m.id == mutant_id)
    top_file, top_at = top_location(tree, net, sources, order)
    texts = instrument(sources, [mutant], top_file, top_at, traced_ports(net), fixed=True)
    paths, _ = _write_rtl(Path(model.design.rtl[0]).parent.parent.parent, texts, order)
    return replace(model.design, rtl=paths)


def _file_ids(tree: Mapping[str, object], order: Sequence[str]) -> dict[str, str]:
    """Verilator file id -> RTL path, for the design's own files."""
    meta = tree.get("meta")
    files = meta.get("files", {}) if isinstance(meta, dict) else {}
    wanted = {str(Path(p).resolve()): p for p in order}
    out = {}
    for fid, info in files.items():
        real = str(Path(str(info.get("realpath") or info.get("filename") or "")).resolve())
        if real in wanted:
            out[str(fid)] = wanted[real]
    return out


def _offset(text: str, line: int, col: int) -> int:
    """Character offset of 1-based line:col."""
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: max(0, line - 1)]) + max(0, col - 1)


def run_one(built: BuiltTestbench, mutant: int, files: Mapping[str, str] | None = None,
            plusargs: Sequence[str] = (), cancel: Cancel | None = None) -> Outcome:
    """Run the mutant model with mutant `mutant` selected (0: the original); its outcome."""
    work = Path(tempfile.mkdtemp(prefix="bw-mut-"))
    try:
        res = built.run(files, [*plusargs, f"+{PLUSARG}={mutant}"], seed=SEED, run_dir=work, cancel=cancel)
        return Outcome(_status(res), normalize_trace(read_traces(work)), res.run_s)
    finally:
        shutil.rmtree(work, ignore_errors=True)


TRACE_CAP = 16 << 20
"""Largest output trace read back from one mutant run (per file)."""

MAX_TRACES = 64
"""Most trace files read from one run (one per traced instance)."""


def read_traces(work: Path) -> dict[str, str]:
    """The `bw_trace.*.txt` files of a run directory, read through `sim.sandbox.outputs`.

    The testbench could have left other files with that name: symlinks, FIFOs, huge or
    hard-linked files are not read, but recorded as refused (so the comparison stays
    deterministic), and at most MAX_TRACES files of at most TRACE_CAP bytes are read.
    """
    try:
        names, refused = list_outputs(work, (".txt",), MAX_TRACES, prefix=TRACE_PREFIX)
    except (OSError, UnsafeOutputError) as exc:
        return {"<run directory>": f"<refused: {exc}>"}
    traces = {name: f"<refused: {why}>" for name, why in refused}
    for name in names:
        try:
            traces[name] = read_output_text(work / name, TRACE_CAP)
        except (OSError, UnsafeOutputError) as exc:
            traces[name] = f"<refused: {exc}>"
    return traces


def hang_limit(run_timeout_s: float, original_s: float) -> float:
    """Time limit of one mutant run, given the original's run time."""
    return min(run_timeout_s, HANG_MIN_S + HANG_FACTOR * original_s)


def _status(res: SimResult) -> str:
    """The status as a string, with a clean run counted `ok` (with or without coverage)."""
    return "ok" if res.status in (Status.OK, Status.COVERAGE_ERROR) else res.status.value


MutantRunner: TypeAlias = Callable[[int, float | None], Outcome]
"""Runs the model with one mutant selected (0: the original) under an optional timeout."""


def run_mutants(built: BuiltTestbench, model: MutantModel, files: Mapping[str, str] | None = None, *,
                plusargs: Sequence[str] = (), only: Sequence[int] | None = None,
                cancel: Cancel | None = None) -> MutationReport:
    """Differential runs of a built testbench: the original, then every mutant, same stimulus."""

    def runner(mutant: int, timeout_s: float | None) -> Outcome:
        fast = built if timeout_s is None else replace(built, options=replace(built.options, run_timeout_s=timeout_s))
        return run_one(fast, mutant, files, plusargs, cancel)

    return differential(runner, model, built.options.run_timeout_s, only=only, cancel=cancel, build_s=built.build_s)


def differential(runner: MutantRunner, model: MutantModel, run_timeout_s: float, *,
                 only: Sequence[int] | None = None, cancel: Cancel | None = None, build_s: float = 0.0,
                 on_mutant: Callable[[Mutant, str | None], None] | None = None) -> MutationReport:
    """The original, then every mutant (or `only` those ids); killed ones with the reason.

    Each mutant run gets a timeout of a few times the original's run time, so a mutant
    that makes the testbench hang costs seconds, not the full run limit.
    """
    start = time.monotonic()
    base = runner(0, None)
    if base.status != "ok":
        return MutationReport(model.original.name, model.mutants, found=model.found, rejected=model.rejected,
                              run_s=time.monotonic() - start, prepare_s=model.prepare_s, build_s=build_s,
                              error=f"the original design does not run cleanly with this stimulus ({base.status})")
    limit = hang_limit(run_timeout_s, base.seconds)
    killed: dict[int, str] = {}
    wanted = set(only) if only is not None else None
    for mutant in model.mutants:
        if wanted is not None and mutant.id not in wanted:
            continue
        if cancel is not None and cancel.is_set():
            break
        reason = kill_reason(base, runner(mutant.id, limit))
        if reason is not None:
            killed[mutant.id] = reason
        if on_mutant is not None:
            on_mutant(mutant, reason)
    mutants = model.mutants if wanted is None else tuple(m for m in model.mutants if m.id in wanted)
    return MutationReport(model.original.name, mutants, killed, model.found, model.rejected,
                          build_s, time.monotonic() - start, model.prepare_s)
