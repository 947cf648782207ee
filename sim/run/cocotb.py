"""cocotb tests under Verilator: build the DUT once (cached), re-run changed tests without rebuilding."""

from __future__ import annotations

import functools
import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from sim.run.cache import (
    BUILD_DIR_PLACEHOLDER,
    build_key,
    locked,
    max_cache_bytes,
    prune_builds,
    record_build,
    touch_build,
)
from sim.run.commands import LENIENT_WARNINGS, BuildSpec, check_seed, coverage_args
from sim.run.evaluate import SimOptions, builds_dir, observe, sandbox_for
from sim.run.messages import parse_messages
from sim.sandbox.bwrap import Sandbox, status_note
from sim.sandbox.guard import COCOTB_AUDIT_SITE, check_cocotb
from sim.sandbox.outputs import UnsafeOutputError, read_output
from sim.sandbox.process import Cancel, Limits, read_tail, run_command
from sim.suite import Design
from sim.tools import find_verilator, tool_env, tool_fingerprint
from sim.types import Message, SimResult, Status

COMPAT_DIR = Path(__file__).parent / "cocotb_compat"
"""sitecustomize aliases for cocotb 1.x human tests (never used for generated tests)."""


_GENERATED_NAME = re.compile(r"[A-Za-z_]\w*\.py|[A-Za-z0-9_][\w.-]*\.(?:txt|hex|mem|json|csv)")
"""File names a generated test may use: flat Python modules and data files."""


@functools.lru_cache(maxsize=1)
def _installed_top_levels() -> frozenset[str]:
    """Top-level modules of installed distributions (cocotb, pytest, ...) and our own packages."""
    return frozenset({*importlib.metadata.packages_distributions(), "sitecustomize", "usercustomize",
                      "sim", "agent", "server", "training", "benchwright"})


@functools.lru_cache(maxsize=1)
def _cocotb_version() -> str:
    """The installed cocotb's version ('' when it is not installed: the build then fails and says so)."""
    try:
        return importlib.metadata.version("cocotb")
    except importlib.metadata.PackageNotFoundError:
        return ""


def generated_name_error(name: str) -> str | None:
    """Why a generated file name is refused (path escape, shadowing a module), or None."""
    if not _GENERATED_NAME.fullmatch(name) or ".." in name:
        return f"file name {name!r} is not allowed (use a plain `test_<name>.py` or a data file name)"
    stem = name[:-3] if name.endswith(".py") else ""
    if stem and (stem in sys.stdlib_module_names or stem in _installed_top_levels()):
        return f"file name {name!r} would shadow the installed module {stem!r}"
    return None


def _sibling_dirs(paths: Sequence[Path]) -> list[Path]:
    """Folders beside a trusted suite's test folder (helper models live in e.g. ../model)."""
    return [d for p in paths for d in p.parent.parent.iterdir() if d.is_dir() and d != p.parent]


def _driver(action: str, spec: dict[str, object], work: Path, env: dict[str, str], limits: Limits,
            log: Path, cancel: Cancel | None, sandbox: Sandbox) -> tuple[bool, float, str, bool]:
    """Run sim.run.cocotb_driver in a sandboxed child; (ok, seconds, log tail, timed_out)."""
    spec_path = work / f"{action}.json"
    spec_path.write_text(json.dumps(spec))
    res = run_command([sys.executable, "-m", "sim.run.cocotb_driver", action, str(spec_path)], cwd=work,
                      log_path=work / f"{action}.driver.log", env=env, limits=limits, cancel=cancel,
                      sandbox=sandbox)
    tail = read_tail(log)  # "" unless the log is still a regular file (the test could replace it)
    return res.ok, res.duration_s, tail + "\n" + res.tail, res.timed_out


SUMMARY_CAP = 64 << 10
"""Largest summary.json read back (two counts)."""


def read_summary(path: Path) -> dict[str, int]:
    """`{"tests", "failed"}` from the driver's summary.json; {} when it is missing, refused or malformed.

    The file is in the run directory, which the test could write: it is read through
    `sim.sandbox.outputs`, and only the two integer counts are kept.
    """
    try:
        data = json.loads(read_output(path, SUMMARY_CAP))
    except (OSError, UnsafeOutputError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if k in ("tests", "failed") and type(v) is int}


def evaluate_cocotb(design: Design, test_module: str, files: Mapping[str, str] | Sequence[Path], *,
                    options: SimOptions = SimOptions(), trusted: bool = False, seed: int | None = None,
                    cancel: Cancel | None = None, plusargs: Sequence[str] = (),
                    run_dir: Path | None = None) -> SimResult:
    """Run one cocotb test module against the design with coverage.

    Args:
        design: the DUT (its top is the cocotb toplevel).
        test_module: Python module name holding the @cocotb.test()s.
        files: generated sources (name -> text; untrusted, guarded) or paths of a
            trusted suite (their folders go on PYTHONPATH).
        options: limits and metrics.
        trusted: True for collected human suites (enables the cocotb 1.x compat aliases).
        seed: cocotb's random seed (default: the options' seed), recorded in the result.
        plusargs: extra simulator plusargs (mutation analysis selects a mutant with one).
        run_dir: run in this directory and keep it (default: a temporary one).
        cancel: Event-like object that kills the run when set.
    """
    seed = check_seed(options.seed if seed is None else seed)
    tool = find_verilator(options.verilator_path)
    # Refuses here (SandboxUnavailableError) when the sandbox is required but unavailable.
    unsandboxed = status_note(options.sandbox)
    env = tool_env(tool)
    # cocotb needs libpython of *this* interpreter, and our package importable in the child.
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[2]), env.get("PYTHONPATH", "")])
    builds = builds_dir(options)
    spec = BuildSpec(sources=design.rtl, top=design.top, include_dirs=design.include_dirs,
                     defines=design.defines, metrics=options.metrics, extra_args=options.extra_args)
    defines: dict[str, object] = {}
    for d in design.defines:
        name, _, value = d.partition("=")
        defines[name] = value or 1
    build_args = [*LENIENT_WARNINGS, *coverage_args(options.metrics), *options.extra_args]

    def request(bdir: Path) -> dict[str, object]:
        """What the driver is asked to build in `bdir`."""
        return {"sources": [str(p) for p in design.rtl], "includes": [str(p) for p in design.include_dirs],
                "defines": defines, "toplevel": design.top, "build_args": build_args,
                "build_dir": str(bdir / "sim_build"), "log_file": str(bdir / "build.log")}

    # Keyed by the exact request (build directory as a placeholder) and cocotb's version: the
    # runner turns the request into Verilator's command line, so both decide the binary.
    keyed = [json.dumps(request(BUILD_DIR_PLACEHOLDER), sort_keys=True), f"cocotb {_cocotb_version()}"]
    key = "cocotb-" + build_key(spec, keyed, tool_fingerprint(tool))
    bdir = builds / key
    build_s, cached = 0.0, True
    with locked(builds / "locks" / f"{key}.lock"):
        if not (bdir / "ok").is_file():
            cached = False
            shutil.rmtree(bdir, ignore_errors=True)
            bdir.mkdir(parents=True)
            log = bdir / "build.log"
            ok, build_s, tail, timed_out = _driver(
                "build", request(bdir),
                bdir, env, Limits(timeout_s=options.build_timeout_s, memory_bytes=options.build_memory_bytes,
                                  file_bytes=None), log, cancel,
                sandbox_for(design, tool, options, write=(bdir,), build=True))
            if not ok:
                text = read_tail(log, lines=400) or tail
                return SimResult(status=Status.TIMEOUT if timed_out else Status.COMPILE_ERROR,
                                 messages=tuple(parse_messages(text)), build_s=build_s, log_tail=tail,
                                 detail="cocotb DUT build failed")
            record_build(bdir)
        else:
            touch_build(bdir)
    if not cached:
        prune_builds(builds, max_cache_bytes(), keep=bdir)
    work = run_dir or Path(tempfile.mkdtemp(prefix="bw-cocotb-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        paths: list[Path] = []
        siblings: list[Path] = []
        if isinstance(files, Mapping):
            for name, text in files.items():
                if not trusted:
                    bad_name = generated_name_error(name)
                    if bad_name is not None:
                        return SimResult(status=Status.COMPILE_ERROR, detail=f"rejected before running: {bad_name}",
                                         messages=(Message(name, 0, 0, "error", "BENCHWRIGHT-GUARD", bad_name),))
                    violations = check_cocotb(text) if name.endswith(".py") else []
                    if violations:
                        return SimResult(status=Status.COMPILE_ERROR, detail=f"rejected before running: {name}:{violations[0].line}: {violations[0].text}",
                                         messages=tuple(Message(name, v.line, 0, "error", "BENCHWRIGHT-GUARD", v.text) for v in violations))
                (work / name).write_text(text)
            pypath = [str(work)] if trusted else [str(COCOTB_AUDIT_SITE), str(work)]
        else:
            paths = list(files)
            pypath = list(dict.fromkeys(str(p.parent) for p in paths if p.suffix == ".py"))
            # Suites keep helper modules (models) in sibling folders, e.g. ../model.
            siblings = _sibling_dirs(paths)
            pypath += [str(d) for d in siblings]
        if trusted:
            pypath.append(str(COMPAT_DIR))
        test_env = {"PYTHONPATH": os.pathsep.join([*pypath, env["PYTHONPATH"]])}
        # cocotb's runner gives the simulator the driver's sys.path, so the run directory (and
        # the sandbox's sitecustomize) go on the driver's PYTHONPATH too; the sandbox switches
        # itself on only where BENCHWRIGHT_SANDBOX_ROOT is set, i.e. in the simulator (extra_env).
        sim_env = dict(test_env) if trusted else \
            {**test_env, "BENCHWRIGHT_SANDBOX_ROOT": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
        log = work / "test.log"
        limits = Limits(timeout_s=options.run_timeout_s, memory_bytes=options.run_memory_bytes,
                        file_bytes=options.file_bytes, max_procs=None if trusted else 4096)
        run_env = dict(env, **test_env)
        ok, run_s, tail, timed_out = _driver(
            "test",
            {"test_module": test_module, "toplevel": design.top, "build_dir": str(bdir / "sim_build"),
             "test_dir": str(work), "extra_env": sim_env, "log_file": str(log), "seed": seed,
             "plusargs": list(plusargs)},
            work, run_env, limits, log, cancel,
            sandbox_for(design, tool, options, read=(bdir, *(p.parent for p in paths), *siblings), write=(work,)))
        kept = work if options.keep_runs or run_dir is not None else None
        base = SimResult(status=Status.OK, build_s=build_s, run_s=run_s, cached=cached, log_tail=tail, seed=seed,
                         run_dir=kept,
                         notes=(unsandboxed,) if unsandboxed else (),
                         extra={"tool": tool.version_text, "kind": "cocotb"})
        if timed_out:
            return replace(base, status=Status.TIMEOUT, detail=f"cocotb test did not finish within {options.run_timeout_s:g} s")
        observed = observe(design, work / "coverage.dat", options.metrics, options.waivers)
        summary = read_summary(work / "summary.json")
        if isinstance(observed, str):
            status = Status.RUNTIME_ERROR if not ok else Status.COVERAGE_ERROR
            return replace(base, status=status, detail=observed if ok else "cocotb test process failed: " + observed)
        if not ok:
            failed = summary.get("failed", "?")
            return observed.apply(replace(base, status=Status.RUNTIME_ERROR,
                                          detail=f"{failed} of {summary.get('tests', '?')} cocotb tests failed"))
        keep = observed.apply(base)
        if not options.keep_runs:  # the run directory is deleted below
            keep = replace(keep, coverage_dat=None, lcov=None)
        return replace(keep, extra={**keep.extra, **summary})
    finally:
        if not options.keep_runs and run_dir is None:
            shutil.rmtree(work, ignore_errors=True)
