"""Mutation analysis of one testbench: a generated SV text, files on disk, or the human test.

Each builds the design's batched mutant model with the testbench once (cached like any
build) and runs the original and every mutant through `sim.mutation.model.run_mutants`.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from sim.errors import DesignError
from sim.mutation.model import (
    DEFAULT_CAP,
    SEED,
    MutantModel,
    MutationReport,
    Outcome,
    differential,
    normalize_trace,
    prepare,
    read_traces,
    run_mutants,
)
from sim.mutation.rtl import PLUSARG
from sim.run.cocotb import evaluate_cocotb
from sim.run.evaluate import BuiltTestbench, SimOptions, build, build_sv
from sim.run.human import verilogeval_copy
from sim.sandbox.process import Cancel
from sim.suite import Design
from sim.types import SimResult, Status


def mutant_options(options: SimOptions) -> SimOptions:
    """The user's options without coverage instrumentation (mutant runs compare traces only)."""
    return replace(options, metrics=(), keep_runs=False)


def _failed(model: MutantModel, built: SimResult, what: str) -> MutationReport:
    """A report saying the mutant model could not be built with this testbench."""
    return MutationReport(model.original.name, model.mutants, found=model.found, rejected=model.rejected,
                          prepare_s=model.prepare_s, build_s=built.build_s,
                          error=f"{what} does not build against the mutant model: {built.status.value}: {built.detail}")


def analyse_built(model: MutantModel, built: BuiltTestbench | SimResult, what: str,
                  files: Mapping[str, str] | None = None, cancel: Cancel | None = None) -> MutationReport:
    """Run every mutant of `model` on an already built testbench."""
    if isinstance(built, SimResult):
        return _failed(model, built, what)
    return run_mutants(built, model, files, cancel=cancel)


def build_sv_model(model: MutantModel, tb_text: str, *, tb_name: str | None = None,
                   options: SimOptions = SimOptions(), cancel: Cancel | None = None) -> BuiltTestbench | SimResult:
    """Build a generated (untrusted) SV testbench against the mutant model."""
    return build_sv(model.design, tb_text, tb_name=tb_name, options=mutant_options(options), cancel=cancel)


def analyse_sv(design: Design, tb_text: str, *, tb_name: str | None = None, cap: int | None = DEFAULT_CAP,
               options: SimOptions = SimOptions(), model: MutantModel | None = None,
               cancel: Cancel | None = None) -> MutationReport:
    """Mutation report of one generated SV testbench."""
    model = model or prepare(design, cap=cap, options=options, cancel=cancel)
    built = build_sv_model(model, tb_text, tb_name=tb_name, options=options, cancel=cancel)
    return analyse_built(model, built, "the testbench", cancel=cancel)


def analyse_files(design: Design, tb_files: Sequence[Path], top: str | None, *, cap: int | None = DEFAULT_CAP,
                  options: SimOptions = SimOptions(), model: MutantModel | None = None, check: bool = False,
                  cancel: Cancel | None = None) -> MutationReport:
    """Mutation report of testbench files on disk (the user's own testbench)."""
    model = model or prepare(design, cap=cap, options=options, cancel=cancel)
    built = build(model.design, tb_files, top, options=mutant_options(options), cancel=cancel, guard=check)
    return analyse_built(model, built, "the testbench", cancel=cancel)


def analyse_human(design: Design, *, cap: int | None = DEFAULT_CAP, options: SimOptions = SimOptions(),
                  model: MutantModel | None = None, cancel: Cancel | None = None) -> MutationReport:
    """Mutation report of the design's SV human test (as `sim.run.human.evaluate_human` runs it).

    Raises:
        DesignError: the design has no human test.
    """
    test = design.human_test
    if test is None:
        raise DesignError(f"{design.name} has no [human_test] in design.toml")
    model = model or prepare(design, cap=cap, options=options, cancel=cancel)
    if test.kind == "cocotb":
        return analyse_cocotb(model, test.top, [p for p in test.files if p.suffix == ".py"], options=options,
                              cancel=cancel)
    sv_files = [p for p in test.files if p.suffix in (".sv", ".v", ".svh", ".vh")]
    tb_text = "\n".join(p.read_text(errors="replace") for p in sv_files)
    built = build(model.design, sv_files, test.top, options=mutant_options(options),
                  generated=verilogeval_copy(model.design, tb_text), cancel=cancel)
    return analyse_built(model, built, "the human test", cancel=cancel)


def analyse_cocotb(model: MutantModel, test_module: str, files: Sequence[Path], *,
                   options: SimOptions = SimOptions(), cancel: Cancel | None = None) -> MutationReport:
    """Mutation report of a (trusted) cocotb test suite: one DUT build, one test run per mutant."""
    opts = mutant_options(options)
    build_s = 0.0

    def runner(mutant: int, timeout_s: float | None) -> Outcome:
        nonlocal build_s
        work = Path(tempfile.mkdtemp(prefix="bw-mut-cocotb-"))
        try:
            run_opts = opts if timeout_s is None else replace(opts, run_timeout_s=timeout_s)
            res = evaluate_cocotb(model.design, test_module, files, options=run_opts, trusted=True, cancel=cancel,
                                  plusargs=[f"+{PLUSARG}={mutant}"], run_dir=work, seed=SEED)
            build_s += res.build_s
            if res.status == Status.COMPILE_ERROR:
                return Outcome("compile_error", (), res.run_s)
            traces = read_traces(work)
            status = "ok" if res.status in (Status.OK, Status.COVERAGE_ERROR) else res.status.value
            return Outcome(status, normalize_trace(traces), res.run_s)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    report = differential(runner, model, opts.run_timeout_s, cancel=cancel)
    return replace(report, build_s=build_s)
