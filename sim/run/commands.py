"""Pure command builders for Verilator (argv lists; nothing runs here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sim.types import Command

DEFAULT_SEED = 1
"""The simulator seed of every run unless one is given: fixed and non-zero, because
`+verilator+seed+0` asks Verilator for a fresh random seed on each run (a `$urandom`
testbench would score differently every time)."""

MAX_SEED = (1 << 31) - 1
"""Largest seed accepted (Verilator reads it as a 32-bit integer)."""

LENIENT_WARNINGS: tuple[str, ...] = ("-Wno-fatal", "-Wno-lint", "-Wno-style")
"""Warnings never stop a build: testbenches are judged by coverage, not by lint."""

COVERAGE_FLAGS: dict[str, tuple[str, ...]] = {
    "line": ("--coverage-line",),
    "branch": ("--coverage-line",),  # Verilator emits branch points with line coverage
    "toggle": ("--coverage-toggle",),
    "expr": ("--coverage-expr",),
}
"""Verilator flags that instrument each metric."""

PER_INSTANCE_FLAG = "--coverage-per-instance"
"""Counters per instance: without it Verilator sums a module's instances into one point whose path
is collapsed (`*.core` when the DUT's core and a testbench copy share it), which cannot be attributed
to the DUT. With it every point carries its own instance path."""


@dataclass(frozen=True)
class BuildSpec:
    """Everything that determines a Verilator build (and so its cache key)."""

    sources: tuple[Path, ...]
    """Files in compile order (RTL first, then testbench files)."""
    top: str | None
    """Top module (the testbench), or None to let Verilator find the single top."""
    include_dirs: tuple[Path, ...] = ()
    """+incdir+ directories."""
    defines: tuple[str, ...] = ()
    """+define+ macros (`NAME` or `NAME=VALUE`)."""
    metrics: tuple[str, ...] = ("line", "branch", "toggle", "expr")
    """Coverage metrics to instrument."""
    extra_args: tuple[str, ...] = ()
    """User-supplied extra Verilator arguments."""
    jobs: int = 2
    """Parallel C++ compile jobs."""


def coverage_args(metrics: Sequence[str]) -> list[str]:
    """Instrumentation flags for the enabled metrics, de-duplicated, in stable order."""
    flags: list[str] = []
    for metric in metrics:
        for flag in COVERAGE_FLAGS.get(metric, ()):
            if flag not in flags:
                flags.append(flag)
    return [*flags, PER_INSTANCE_FLAG] if flags else flags


def common_args(spec: BuildSpec) -> list[str]:
    """Arguments shared by lint and build: warnings, top, include dirs, defines."""
    args = list(LENIENT_WARNINGS)
    if spec.top:
        args += ["--top-module", spec.top]
    args += [f"+incdir+{d}" for d in spec.include_dirs]
    args += [f"+define+{d}" for d in spec.defines]
    return args


def verilator_build(verilator: Path, spec: BuildSpec, obj_dir: Path, exe_name: str = "Vsim") -> list[Command]:
    """Commands that build a self-running simulation binary with coverage (`--binary --timing`)."""
    cmd = [
        str(verilator), "--binary", "--timing", "--quiet-exit",
        *coverage_args(spec.metrics),
        *common_args(spec),
        "-j", str(max(1, spec.jobs)),
        "-Mdir", str(obj_dir), "-o", exe_name,
        *spec.extra_args,
        *[str(s) for s in spec.sources],
    ]
    return [cmd]


def verilator_lint(verilator: Path, spec: BuildSpec) -> Command:
    """A `--lint-only` command for the sources (fast, no C++)."""
    return [str(verilator), "--lint-only", "--timing", *common_args(spec), *spec.extra_args,
            *[str(s) for s in spec.sources]]


KEEP_COVERAGE = "bw_keep_coverage"
"""Plusarg of every run Benchwright starts: a self-checking testbench then ends a run with failed
checks by `$finish` (Verilator writes coverage only then) and leaves the verdict to the lines it
printed; run without it (a plain Verilator run in CI) it ends with `$fatal` and a failing exit status."""


def simulation_run(exe: Path, coverage_file: str = "coverage.dat", seed: int = 0,
                   plusargs: Sequence[str] = (), *, keep_coverage: bool = True) -> Command:
    """Run a built binary, writing coverage to `coverage_file` in its cwd.

    `keep_coverage`: pass `KEEP_COVERAGE` (False for a build without coverage, such as a mutant
    model: a failed check then fails the run, which is how mutation analysis sees it).
    """
    keep = [f"+{KEEP_COVERAGE}"] if keep_coverage else []
    return [str(exe), f"+verilator+seed+{seed}", f"+verilator+coverage+file+{coverage_file}", *keep, *plusargs]


def check_seed(seed: int) -> int:
    """`seed` when it is a valid explicit seed (1..MAX_SEED); a ValueError saying why otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 1 <= seed <= MAX_SEED:
        raise ValueError(f"simulator seed {seed!r} must be an integer from 1 to {MAX_SEED} "
                         "(0 would make Verilator draw a fresh random seed on every run)")
    return seed
