"""The evaluator Sim(R, x) -> o: guard, cached build, sandboxed run, DUT-restricted coverage.

`evaluate_sv` is the one-call form. `build_sv` returns a `BuiltTestbench` whose `run`
can be called many times with different data files (the heuristic engine's harness).
"""

from __future__ import annotations

import functools
import json
import logging
import re
import shutil
import tempfile
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from sim.errors import CoverageParseError
from sim.run import coverage as cov
from sim.run.cache import (
    BUILD_DIR_PLACEHOLDER,
    build_key,
    cache_root,
    locked,
    max_cache_bytes,
    prune_builds,
    record_build,
    touch_build,
)
from sim.run.commands import (
    DEFAULT_SEED,
    BuildSpec,
    check_seed,
    common_args,
    simulation_run,
    verilator_build,
)
from sim.run.lcov import write_lcov
from sim.run.messages import parse_messages
from sim.sandbox.bwrap import (
    Sandbox,
    SandboxMode,
    compiler_cache_dir,
    probe,
    runtime_paths,
    status_note,
)
from sim.sandbox.guard import check_sv
from sim.sandbox.outputs import UnsafeOutputError, read_output_text, refusal_notes
from sim.sandbox.process import Cancel, Limits, read_tail, run_commands
from sim.sandbox.session import SandboxSession
from sim.suite import Design
from sim.tools import Verilator, find_verilator, tool_env, tool_fingerprint
from sim.types import (
    METRICS,
    CoverageSummary,
    Message,
    SimResult,
    Status,
    UncoveredPoint,
)

logger = logging.getLogger(__name__)

WAIVER_FILE = "coverage.waivers"
"""Waiver file looked for in a design folder (unreachable points, each listed in reports)."""

EXE_NAME = "Vsim"
"""Name of every built simulation binary."""

GUARD_LOG_CAP = 64 << 20
"""Largest preprocessed testbench text the guard reads back (`verilator -E` output)."""


@dataclass(frozen=True)
class SimOptions:
    """How to build and run a simulation."""

    metrics: tuple[str, ...] = METRICS
    """Coverage metrics to instrument and score (overall = their mean)."""
    run_timeout_s: float = 60.0
    """Wall-clock limit of one simulation run (a testbench that never calls $finish)."""
    build_timeout_s: float = 600.0
    """Wall-clock limit of one Verilator build."""
    run_memory_bytes: int = 2 << 30
    """Address-space limit of the simulation process."""
    build_memory_bytes: int = 8 << 30
    """Address-space limit of each build process (g++ on big models needs room)."""
    file_bytes: int = 256 << 20
    """Largest file a simulation may write (stops $display floods)."""
    cache_dir: Path | None = None
    """Build cache root; default `$BENCHWRIGHT_CACHE/builds` (~/.cache/benchwright/builds)."""
    extra_args: tuple[str, ...] = ()
    """Extra Verilator arguments from the user's settings."""
    verilator_path: str | None = None
    """Explicit verilator executable (setting); None uses the normal lookup."""
    jobs: int = 2
    """Parallel C++ compile jobs per build."""
    keep_runs: bool = False
    """Keep each run directory (coverage.dat, log) instead of deleting it."""
    waivers: Path | None = None
    """Waiver file (see sim.run.coverage.parse_waivers); waived points are listed, not scored.
    None uses `<design folder>/coverage.waivers` when that file exists."""
    sandbox: SandboxMode | None = None
    """OS sandbox for builds and runs (sim.sandbox.bwrap); None reads BENCHWRIGHT_SANDBOX (default auto)."""
    seed: int = DEFAULT_SEED
    """Simulator seed (`+verilator+seed+N`, cocotb's RANDOM_SEED) of runs that are not given one:
    1..2**31-1. The same seed gives a `$urandom` testbench the same coverage on every run."""


def builds_dir(options: SimOptions) -> Path:
    """Root of the build cache these options use."""
    return options.cache_dir or cache_root() / "builds"


def design_paths(design: Design) -> tuple[Path, ...]:
    """What a build of `design` may read: its folder when it is a design folder, else its own files.

    Loose RTL files (no design.toml) are shown one by one so a design in $HOME does not
    expose the rest of $HOME.
    """
    if (design.root / "design.toml").is_file():
        return (design.root, *design.rtl, *design.include_dirs)
    human = design.human_test.files if design.human_test else ()
    return (*design.rtl, *design.include_dirs, *design.spec, *human)


def sandbox_for(design: Design, tool: Verilator, options: SimOptions, *, read: Sequence[Path] = (),
                write: Sequence[Path] = (), build: bool = False, binary: bool = False) -> Sandbox:
    """The OS sandbox of one build or run of `design`: read-only design and tools, writable `write`.

    A build also gets the compiler cache writable, so sandboxed builds still hit ccache. A
    compiled simulation `binary` gets the lean view (no interpreter, no tools, no /proc).
    """
    if binary:
        return Sandbox(read_only=(*design_paths(design), *read), writable=tuple(write), mode=options.sandbox,
                       lean=True)
    writable = list(write)
    if build:
        ccache = compiler_cache_dir(tool_env(tool)["PATH"])
        if ccache is not None:
            ccache.mkdir(parents=True, exist_ok=True)
            writable.append(ccache)
    return Sandbox(read_only=(*design_paths(design), *read, *runtime_paths(), tool.bin_dir.parent),
                   writable=tuple(writable), mode=options.sandbox)


def tb_top_name(tb_text: str) -> str | None:
    """Name of the first module a testbench declares (its top), if any."""
    from sim.sandbox.guard import strip_comments

    match = re.search(r"^\s*module\s+(?:automatic\s+|static\s+)?([A-Za-z_]\w*)", strip_comments(tb_text), re.M)
    return match.group(1) if match else None


def find_testbench_top(tb_texts: Sequence[str]) -> str | None:
    """The one module of a testbench's files that none of its other modules instantiates, if unique.

    Given to Verilator as `--top-module`: without it every module of the RTL that nothing
    instantiates becomes a top of its own, so a second copy of a DUT submodule (a repository's
    other wrapper) would be elaborated and simulated beside the testbench.
    """
    from sim.sandbox.guard import strip_comments

    bodies: dict[str, str] = {}
    for text in tb_texts:
        code = strip_comments(text)
        for match in _MODULE_RE.finditer(code):
            end = code.find("endmodule", match.end())
            bodies.setdefault(match.group(1), code[match.end():end if end >= 0 else len(code)])
    tops = [name for name in bodies
            if not any(other != name and re.search(rf"\b{re.escape(name)}\b", body)
                       for other, body in bodies.items())]
    return tops[0] if len(tops) == 1 else None


_MODULE_RE = re.compile(r"^\s*module\s+(?:automatic\s+|static\s+)?([A-Za-z_]\w*)", re.M)
"""A module declaration's name."""


def _fault_file(options: SimOptions, design: Design) -> Path:
    """Where metrics known to crash Verilator on this design are remembered."""
    key = build_key(BuildSpec(sources=design.rtl, top=design.top), (design.top,), "faults")
    return builds_dir(options) / "faults" / f"{key}.json"


def _known_bad_metrics(options: SimOptions, design: Design) -> set[str]:
    try:
        return set(json.loads(_fault_file(options, design).read_text()))
    except (OSError, ValueError):
        return set()


def _remember_bad_metric(options: SimOptions, design: Design, metric: str) -> None:
    path = _fault_file(options, design)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(sorted(_known_bad_metrics(options, design) | {metric})))


def _is_internal_error(log: str) -> bool:
    """Verilator crashed (a tool fault), as opposed to rejecting the input."""
    return "Internal Error" in log or "%Error: Internal" in log or "Segmentation fault" in log


@dataclass
class BuiltTestbench:
    """A built simulation binary, runnable many times."""

    design: Design
    """The DUT's design."""
    options: SimOptions
    """Options it was built with."""
    exe: Path
    """The binary."""
    build_dir: Path
    """Cache directory holding it."""
    metrics: tuple[str, ...]
    """Metrics actually instrumented (a crashing metric is dropped)."""
    tool: Verilator
    """The Verilator used."""
    build_s: float = 0.0
    """Build time (0 on a cache hit)."""
    cached: bool = False
    """True when the binary came from the cache."""
    notes: tuple[str, ...] = ()
    """Notes to pass on in every result."""
    argv: tuple[str, ...] = field(default_factory=tuple)
    """The build command line."""
    _session: SandboxSession | None = field(default=None, init=False, repr=False, compare=False)
    """The persistent sandbox that runs this binary (started on the first sandboxed run)."""

    @functools.cached_property
    def _sandbox(self) -> Sandbox:
        """The lean sandbox every run of this binary gets (computed once: runs are the hot path)."""
        return sandbox_for(self.design, self.tool, self.options, read=(self.build_dir,), binary=True)

    def _run_session(self, limits: Limits) -> SandboxSession | None:
        """This binary's persistent sandbox, when runs are sandboxed (None: one process per run)."""
        if self._session is not None:
            return self._session
        if self._sandbox.resolved_mode() is SandboxMode.OFF or not probe().available:
            return None
        session = SandboxSession(self._sandbox, env=tool_env(self.tool), limits=limits)
        weakref.finalize(self, session.close)
        self._session = session
        return session

    def run(self, files: Mapping[str, str] | None = None, plusargs: Sequence[str] = (), *,
            seed: int | None = None, run_dir: Path | None = None, cancel: Cancel | None = None) -> SimResult:
        """Run the binary in a fresh directory holding `files`; coverage restricted to the DUT.

        `seed` (default: the options' seed) is passed as `+verilator+seed+N` and recorded in
        the result. Unless a `run_dir` is given or `keep_runs` is set, the run directory is
        deleted afterwards and the result's file paths are None (the parsed report stays in `report`).
        """
        seed = check_seed(self.options.seed if seed is None else seed)
        result = self._run(files, plusargs, seed=seed, run_dir=run_dir, cancel=cancel)
        if run_dir is None and not self.options.keep_runs:
            result = replace(result, coverage_dat=None, lcov=None, run_dir=None)
        return result

    def _run(self, files: Mapping[str, str] | None, plusargs: Sequence[str], *,
             seed: int, run_dir: Path | None, cancel: Cancel | None) -> SimResult:
        own_dir = run_dir is None
        limits = Limits(timeout_s=self.options.run_timeout_s, memory_bytes=self.options.run_memory_bytes,
                        file_bytes=self.options.file_bytes)
        # Throw-away run directories go through one long-lived sandbox (the engine's trials);
        # a kept or caller-given directory gets a sandbox of its own.
        session = self._run_session(limits) if own_dir and not self.options.keep_runs else None
        if session is not None:
            work = session.new_run_dir()
        else:
            work = Path(tempfile.mkdtemp(prefix="bw-run-")) if run_dir is None else run_dir
        work.mkdir(parents=True, exist_ok=True)
        try:
            for name, text in (files or {}).items():
                (work / name).write_text(text)
            log = work / "run.log"
            cmd = simulation_run(self.exe, seed=seed, plusargs=plusargs, keep_coverage=bool(self.options.metrics))
            if session is not None:
                res = session.run(cmd, cwd=work, log_path=log, timeout_s=limits.timeout_s, cancel=cancel)
            else:
                (res,) = run_commands([cmd], cwd=work, log_path=log, env=tool_env(self.tool), limits=limits,
                                      cancel=cancel, sandbox=self._sandbox)
            base = SimResult(status=Status.OK, build_s=self.build_s, run_s=res.duration_s, cached=self.cached,
                             notes=(*self.notes, *refusal_notes(res.tail)), run_dir=work if not own_dir or self.options.keep_runs else None,
                             seed=seed,
                             extra={"build_argv": list(self.argv), "run_argv": list(res.argv),
                                    "tool": self.tool.version_text})
            if res.timed_out:
                return replace(base, status=Status.TIMEOUT, log_tail=res.tail,
                               detail=f"simulation did not finish within {self.options.run_timeout_s:g} s "
                                      "(does the testbench call $finish?)")
            observed = observe(self.design, work / "coverage.dat", self.metrics, self.options.waivers)
            if res.returncode != 0:
                detail = _runtime_detail(res.returncode, res.tail)
                failed = replace(base, status=Status.RUNTIME_ERROR, log_tail=res.tail,
                                 detail=f"{detail} ({res.limit_note})" if res.limit_note else detail)
                if isinstance(observed, str):  # why there is no coverage either, never silently
                    return replace(failed, notes=(*failed.notes, f"no coverage: {observed}"))
                return observed.apply(failed)
            if isinstance(observed, str):
                return replace(base, status=Status.COVERAGE_ERROR, log_tail=res.tail, detail=observed)
            return observed.apply(replace(base, log_tail=res.tail))
        finally:
            if own_dir and not self.options.keep_runs:
                shutil.rmtree(work, ignore_errors=True)


def _runtime_detail(returncode: int, tail: str) -> str:
    """One line saying why a simulation failed at run time."""
    if returncode == -9 or returncode == 137:
        return "simulation was killed (memory limit or signal 9)"
    if returncode in (-25, 153):
        return "simulation exceeded the output-file size limit (too much $display output?)"
    for line in reversed(tail.splitlines()):
        if "%Error" in line or "%Fatal" in line or "Assertion" in line:
            return line.strip()
    return f"simulation exited with status {returncode}"


@dataclass(frozen=True)
class Observation:
    """The coverage part of an observation, read from one run's coverage.dat."""

    coverage: CoverageSummary
    """DUT-restricted per-metric coverage."""
    uncovered: tuple[UncoveredPoint, ...]
    """DUT points with count 0."""
    coverage_dat: Path
    """The raw coverage file."""
    lcov: Path
    """lcov tracefile written beside it."""
    report: cov.CoverageReport
    """The DUT-restricted report (for merging)."""
    scopes: tuple[str, ...]
    """DUT instance paths the report was restricted to."""
    notes: tuple[str, ...] = ()
    """Points left out of the DUT's coverage (waived, or DUT modules instantiated elsewhere), listed
    so they are never silently dropped."""
    points: Mapping[str, int] = field(default_factory=dict)
    """The consistency figures of `coverage.DutCoverage.counts`: points in the file, in the DUT's
    design units, kept."""

    def apply(self, base: SimResult) -> SimResult:
        """`base` with these coverage fields filled in."""
        return replace(base, coverage=self.coverage, uncovered=self.uncovered, coverage_dat=self.coverage_dat,
                       lcov=self.lcov, report=self.report, notes=(*base.notes, *self.notes),
                       extra={**base.extra, "scopes": list(self.scopes), "points": dict(self.points)})


def observe(design: Design, dat: Path, metrics: Sequence[str], waivers: Path | None = None) -> Observation | str:
    """Coverage of a run's coverage.dat restricted to the DUT, or a one-line error."""
    try:
        report = cov.read_coverage(dat)
    except CoverageParseError as exc:
        return str(exc)
    attributed = cov.attribute(report, design.top)
    if not attributed.scopes:
        return (f"no coverage points belong to module {design.top!r}: the testbench must instantiate "
                f"the DUT (as `{design.top} {design.dut_instance} (...)`)")
    dut, scopes = attributed.report, attributed.scopes
    notes: tuple[str, ...] = attributed.notes()
    if waivers is None and (design.root / WAIVER_FILE).is_file():
        waivers = design.root / WAIVER_FILE
    if waivers is not None:
        try:
            rules = cov.parse_waivers(waivers.read_text(encoding="utf-8", errors="replace"), str(waivers))
        except (CoverageParseError, OSError) as exc:
            return f"waiver file: {exc}"
        dut, waived = cov.apply_waivers(dut, rules)
        notes += tuple(f"waived: {p.kind} {p.file}:{p.line} {p.comment}" for p in waived)
    try:
        lcov = write_lcov(dut, dat.parent / "coverage.info")
    except (UnsafeOutputError, OSError) as exc:
        return f"cannot write the lcov file: {exc}"
    return Observation(cov.summarize(dut, tuple(metrics)),
                       cov.uncovered(dut, tuple(metrics), read_source=cov.restricted_reader(design.rtl, design.include_dirs)), dat, lcov, dut,
                       scopes, notes, attributed.counts())


_LINE_MARK = re.compile(r'^`line\s+(\d+)\s+"((?:[^"\\]|\\.)*)"\s+\d+\s*$')
"""A `line directive in `verilator -E` output: which file the following lines come from."""


def preprocessed_guard(tool: Verilator, spec: BuildSpec, checked: Sequence[Path], cwd: Path,
                       cancel: Cancel | None = None, timeout_s: float = 120.0,
                       sandbox: Sandbox | None = None) -> SimResult | None:
    """Guard the testbench text as the compiler will see it (macros expanded, `` pasted).

    `check_sv` on the raw text cannot see a `$system` assembled by token pasting or a DPI
    import whose "DPI-C" comes from a macro. This runs `verilator -E` over the build's
    sources and checks the lines that came from the `checked` files. A preprocessing
    failure is the same error the build would report, so it is returned as one.
    """
    log = cwd / "guard.log"
    log.write_text("")
    argv = [str(tool.verilator), "-E", *common_args(spec), *spec.extra_args, *(str(s) for s in spec.sources)]
    (res,) = run_commands([argv], cwd=cwd, log_path=log, env=tool_env(tool),
                          limits=Limits(timeout_s=timeout_s, memory_bytes=None, file_bytes=None), cancel=cancel,
                          sandbox=sandbox)
    try:
        text = read_output_text(log, GUARD_LOG_CAP, root=cwd)
    except (UnsafeOutputError, OSError) as exc:
        return SimResult(status=Status.COMPILE_ERROR, log_tail=res.tail,
                         detail=f"the preprocessed testbench could not be checked: {exc}")
    if not res.ok:
        messages = tuple(parse_messages(text))
        detail = next((f"{m.file}:{m.line}: {m.text}" for m in messages if m.severity == "error"),
                      "Verilator could not preprocess the testbench")
        if res.timed_out:
            detail = f"preprocessing the testbench did not finish within {timeout_s:g} s"
        return SimResult(status=Status.TIMEOUT if res.timed_out else Status.COMPILE_ERROR, messages=messages,
                         log_tail=res.tail, detail=detail)
    wanted = {str(p) for p in checked}
    segments: dict[str, list[tuple[int, list[str]]]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        mark = _LINE_MARK.match(line)
        if mark:
            current = None
            if mark.group(2) in wanted:
                current = []
                segments.setdefault(mark.group(2), []).append((int(mark.group(1)), current))
        elif current is not None:
            current.append(line)
    violations = [Message(Path(name).name, first + v.line - 1, 0, "error", "BENCHWRIGHT-GUARD", v.text)
                  for name, parts in segments.items() for first, lines in parts
                  for v in check_sv("\n".join(lines))]
    if not violations:
        return None
    first_v = violations[0]
    return SimResult(status=Status.COMPILE_ERROR, messages=tuple(violations),
                     detail=f"rejected before building (after preprocessing): {first_v.file}:{first_v.line}: {first_v.text}")


def build(design: Design, tb_files: Sequence[Path], top: str | None, *, options: SimOptions = SimOptions(),
          generated: Mapping[str, str] | None = None, cancel: Cancel | None = None,
          guard: bool = False) -> BuiltTestbench | SimResult:
    """Build RTL + testbench files into a cached binary; a SimResult describes a failed build.

    Args:
        design: the DUT.
        tb_files: testbench files on disk (after the RTL in compile order).
        top: testbench top module, or None to let Verilator decide.
        options: build options.
        generated: extra files to create in the build dir, name -> text (placed after tb_files).
        cancel: optional Event-like object; set it to kill a running build.
        guard: the testbench files are untrusted: check their preprocessed text before building.
    """
    tool = find_verilator(options.verilator_path)
    builds = builds_dir(options)
    bad = _known_bad_metrics(options, design)
    metrics = tuple(m for m in options.metrics if m not in bad)
    notes = tuple(f"{m} coverage disabled: it crashes Verilator {tool.version_text.split()[1]} on this design" for m in sorted(bad & set(options.metrics)))
    # Refuses here (SandboxUnavailableError) when the sandbox is required but unavailable.
    unsandboxed = status_note(options.sandbox)
    if unsandboxed:
        notes = (unsandboxed, *notes)
    gen = dict(generated or {})
    while True:
        probe = BuildSpec(sources=(*design.rtl, *tb_files, *(Path("@gen") / n for n in gen)), top=top,
                          include_dirs=design.include_dirs, defines=design.defines, metrics=metrics,
                          extra_args=options.extra_args, jobs=options.jobs)
        # The key hashes the exact command (build directory as a placeholder), so a flag
        # derived differently by another release of this code never reuses a stale binary.
        keyed = verilator_build(tool.verilator, probe, BUILD_DIR_PLACEHOLDER / "obj", EXE_NAME)
        key = build_key(probe, [a for cmd in keyed for a in cmd], tool_fingerprint(tool),
                        {str(Path("@gen") / n): t.encode() for n, t in gen.items()})
        bdir = builds / key
        spec = replace(probe, sources=(*design.rtl, *tb_files, *(bdir / n for n in gen)))
        cmds = verilator_build(tool.verilator, spec, bdir / "obj", EXE_NAME)
        exe = bdir / "obj" / EXE_NAME
        with locked(builds / "locks" / f"{key}.lock"):
            if (bdir / "ok").is_file() and exe.is_file():
                touch_build(bdir)
                return BuiltTestbench(design, options, exe, bdir, metrics, tool, 0.0, True, notes, tuple(cmds[0]))
            # A build that was killed (cancelled, timed out) leaves half-written objects
            # that make would trust; always start an unfinished key from scratch
            # (ccache makes the redo cheap).
            shutil.rmtree(bdir / "obj", ignore_errors=True)
            bdir.mkdir(parents=True, exist_ok=True)
            for name, text in gen.items():
                (bdir / name).write_text(text)
            sandbox = sandbox_for(design, tool, options, read=tb_files, write=(bdir,), build=True)
            if guard:
                rejected = preprocessed_guard(tool, spec, (*tb_files, *(bdir / n for n in gen)), bdir, cancel,
                                              min(120.0, options.build_timeout_s), sandbox)
                if rejected is not None:
                    return replace(rejected, notes=notes)
            log = bdir / "build.log"
            log.write_text("")
            start = time.monotonic()
            limits = Limits(timeout_s=options.build_timeout_s, memory_bytes=options.build_memory_bytes,
                            file_bytes=None)
            results = run_commands(cmds, cwd=bdir, log_path=log, env=tool_env(tool), limits=limits, cancel=cancel,
                                   sandbox=sandbox)
            took = time.monotonic() - start
            if results[-1].ok and exe.is_file():
                record_build(bdir)
                built = BuiltTestbench(design, options, exe, bdir, metrics, tool, took, False, notes, tuple(cmds[0]))
            else:
                built = None
            limit_note = results[-1].limit_note
        if built is not None:
            # Outside the key's lock: pruning takes each victim's lock in turn.
            prune_builds(builds, max_cache_bytes(), keep=bdir)
            return built
        text = read_tail(log, lines=400, max_bytes=1 << 20)
        if _is_internal_error(text) and "expr" in metrics and not limit_note:
            # (Under a lowered inherited limit a crash is the limit's doing, not expr coverage's.)
            # Known tool fault (expression coverage crashed Verilator on some designs):
            # rebuild without that metric, remember it for this design, and say so.
            logger.warning("Verilator internal error with expr coverage on %s; rebuilding without it", design.name)
            _remember_bad_metric(options, design, "expr")
            metrics = tuple(m for m in metrics if m != "expr")
            notes = (*notes, f"expr coverage disabled: it crashes Verilator {tool.version_text.split()[1]} on this design")
            continue
        # Generated files are reported by their own name, not the cache path.
        messages = [replace(m, file=Path(m.file).name) if m.file.startswith(str(bdir)) else m
                    for m in parse_messages(text)]
        if results[-1].timed_out:
            return SimResult(status=Status.TIMEOUT, build_s=took, log_tail=results[-1].tail, notes=notes,
                             detail=f"build did not finish within {options.build_timeout_s:g} s")
        detail = next((f"{m.file}:{m.line}: {m.text}" for m in messages if m.severity == "error"),
                      "Verilator build failed")
        if limit_note:  # a lowered inherited limit is the likeliest cause: say so with the error
            detail = f"{detail} ({limit_note})"
        return SimResult(status=Status.COMPILE_ERROR, messages=tuple(messages), build_s=took,
                         log_tail=results[-1].tail, detail=detail, notes=notes,
                         extra={"build_argv": list(cmds[0]), "tool": tool.version_text})


def guard_result(tb_text: str, tb_name: str) -> SimResult | None:
    """A compile_error result if the testbench breaks the sandbox policy, else None."""
    violations = check_sv(tb_text)
    if not violations:
        return None
    messages = tuple(Message(tb_name, v.line, 0, "error", "BENCHWRIGHT-GUARD", v.text) for v in violations)
    return SimResult(status=Status.COMPILE_ERROR, messages=messages,
                     detail=f"rejected before building: {tb_name}:{violations[0].line}: {violations[0].text}")


def build_sv(design: Design, tb_text: str, *, tb_name: str | None = None, options: SimOptions = SimOptions(),
             cancel: Cancel | None = None) -> BuiltTestbench | SimResult:
    """Guard and build one generated SV testbench (untrusted text)."""
    name = tb_name or f"tb_{design.top}.sv"
    if "/" in name or name.startswith("."):
        name = Path(name).name or f"tb_{design.top}.sv"
    rejected = guard_result(tb_text, name)
    if rejected is not None:
        return rejected
    top = tb_top_name(tb_text)
    if top is None or top == design.top:
        # Without a testbench module of its own, Verilator would take the DUT as the top and
        # score an undriven design; that is not a testbench.
        why = "declares no module" if top is None else f"declares only the DUT module {design.top!r}"
        return SimResult(status=Status.COMPILE_ERROR, detail=f"{name} {why}: write a testbench module that "
                         f"instantiates {design.top} as {design.dut_instance}",
                         messages=(Message(name, 1, 0, "error", "BENCHWRIGHT-NOTB", f"the testbench {why}"),))
    return build(design, (), top, options=options, generated={name: tb_text}, cancel=cancel, guard=True)


def evaluate_sv(design: Design, tb_text: str, *, tb_name: str | None = None, options: SimOptions = SimOptions(),
                seed: int | None = None, run_dir: Path | None = None, cancel: Cancel | None = None) -> SimResult:
    """Sim(R, x): the observation for one complete SV testbench."""
    built = build_sv(design, tb_text, tb_name=tb_name, options=options, cancel=cancel)
    if isinstance(built, SimResult):
        return built
    return built.run(seed=seed, run_dir=run_dir, cancel=cancel)


def evaluate_files(design: Design, tb_files: Sequence[Path], top: str | None, *, options: SimOptions = SimOptions(),
                   generated: Mapping[str, str] | None = None, check: bool = True, run_dir: Path | None = None,
                   cancel: Cancel | None = None) -> SimResult:
    """Sim(R, x) for testbench files on disk (the user's own TB, a human test)."""
    if check:
        for path in tb_files:
            rejected = guard_result(path.read_text(errors="replace"), str(path))
            if rejected is not None:
                return rejected
    if top is None:
        top = find_testbench_top([p.read_text(errors="replace") for p in tb_files])
    built = build(design, tb_files, top, options=options, generated=generated, cancel=cancel, guard=check)
    if isinstance(built, SimResult):
        return built
    return built.run(run_dir=run_dir, cancel=cancel)
