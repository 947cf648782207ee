"""`benchwright sim` and `benchwright doctor`: the evaluator from a terminal."""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from sim.errors import SimError
from sim.project.init_cli import add_input_args, design_from_args
from sim.run.commands import DEFAULT_SEED, check_seed
from sim.run.evaluate import SimOptions, evaluate_files
from sim.run.report import result_json, result_text
from sim.sandbox.bwrap import describe as describe_sandbox
from sim.sandbox.outputs import UnsafeOutputError, copy_outputs, list_outputs
from sim.suite import Design, design_from_files
from sim.types import METRICS, SimResult


def build_sim_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright sim` (pure)."""
    p = argparse.ArgumentParser(prog="benchwright sim", description="Simulate a testbench with Verilator coverage.")
    add_input_args(p, top_help="top module (default: design.toml's, else inferred)")
    p.add_argument("--tb", type=Path, help="testbench file (.sv, or a cocotb test .py)")
    p.add_argument("--human", action="store_true", help="run the design's human test from design.toml")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", type=Path, help="copy coverage.dat, coverage.info and logs here")
    p.add_argument("--metrics", default=",".join(METRICS), help="comma-separated metrics (default: %(default)s)")
    p.add_argument("--timeout", type=float, default=60.0, help="simulation wall-clock limit in seconds")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help="simulator seed, 1..2**31-1: the same seed gives the same coverage (default: %(default)s)")
    p.add_argument("--waivers", type=Path, help="waiver file (default: <design>/coverage.waivers if present)")
    p.add_argument("--mutation", action="store_true",
                   help="also run every mutant of the RTL with this testbench and report the kill ratio")
    p.add_argument("--mutants", type=int, default=60, help="most mutants analysed with --mutation (default: %(default)s)")
    p.add_argument("--dead", action="store_true",
                   help="also list uncovered points no stimulus can reach at these parameter values "
                        "(coverage over the rest, and waiver lines to review)")
    p.add_argument("-I", "--incdir", action="append", type=Path, default=[], help="extra include dir")
    p.add_argument("-D", "--define", action="append", default=[], help="extra define NAME[=VALUE]")
    p.add_argument("-v", "--verbose", action="store_true", help="log command lines to stderr")
    return p


def _design_of(args: argparse.Namespace) -> Design:
    files_with_top = args.top and args.design and not args.filelist and all(p.is_file() for p in args.design)
    if files_with_top:
        # Everything was given: use the files as listed, no inference.
        return design_from_files(args.design, args.top, args.incdir, args.define)
    design = design_from_args(args, "benchwright sim")
    extra_dirs = tuple(p.resolve() for p in args.incdir)
    return replace(design, include_dirs=(*design.include_dirs, *extra_dirs), defines=(*design.defines, *args.define))


def simulate(design: Design, tb: Path | None, human: bool, options: SimOptions) -> SimResult:
    """Run the testbench the arguments choose."""
    if human:
        from sim.run.human import evaluate_human

        return evaluate_human(design, options)
    if tb is None:
        raise SimError("give --tb FILE or --human")
    if tb.suffix == ".py":
        from sim.run.cocotb import evaluate_cocotb

        return evaluate_cocotb(design, tb.stem, [tb.resolve()], options=options, trusted=True)
    return evaluate_files(design, [tb.resolve()], None, options=options, check=False)


def sim_main(argv: list[str]) -> int:
    """Entry point of `benchwright sim`; exit 0 when the simulation status is ok."""
    args = build_sim_parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    metrics = tuple(m.strip() for m in args.metrics.split(",") if m.strip())
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        sys.stderr.write(f"benchwright sim: unknown metric(s) {unknown}; choose from {', '.join(METRICS)}\n")
        return 2
    try:
        seed = check_seed(args.seed)
    except ValueError as exc:
        sys.stderr.write(f"benchwright sim: --seed: {exc}\n")
        return 2
    options = SimOptions(metrics=metrics, run_timeout_s=args.timeout, keep_runs=args.out is not None,
                         waivers=args.waivers, seed=seed)
    try:
        design = _design_of(args)
        result = simulate(design, args.tb, args.human, options)
        mutation = None
        if args.mutation:
            from sim.mutation.report import analyse_for_cli

            mutation = analyse_for_cli(design, args.tb, args.human, options, args.mutants)
    except SimError as exc:
        sys.stderr.write(f"benchwright sim: {exc}\n")
        return 2
    if args.out is not None:
        result = _export(result, args.out)
    dead = _dead_report(design, result) if args.dead else None
    if args.json:
        payload = result_json(result)
        if dead is not None:
            payload["dead"] = dead
        if mutation is not None:
            from sim.mutation.report import mutation_json

            payload["mutation"] = mutation_json(mutation)
        sys.stdout.write(json.dumps(payload, indent=1) + "\n")
    else:
        sys.stdout.write(result_text(result, design.name) + "\n")
        if dead is not None:
            sys.stdout.write(_dead_text(dead))
        if mutation is not None:
            from sim.mutation.report import mutation_text

            sys.stdout.write(mutation_text(mutation) + "\n")
    return 0 if result.status.value == "ok" else 1


def _dead_report(design: Design, result: SimResult) -> dict[str, Any]:
    """The `--dead` section: unreachable points with reasons, coverage over the rest, waiver lines."""
    from sim.analysis.dead_points import (
        dead_points,
        elaborated_facts,
        reachable_percents,
        waiver_lines,
    )
    from sim.analysis.interface import read_tree

    if result.coverage is None:
        return {"points": [], "reachable": {}, "waivers": "", "note": "no coverage to classify"}
    try:
        facts = elaborated_facts(read_tree(design))
    except SimError as exc:  # the testbench ran, but the design alone does not elaborate (e.g. a missing top)
        return {"points": [], "reachable": {}, "waivers": "", "note": f"not classified: {exc}"}
    dead = dead_points(result.uncovered, facts)
    counts = {k: (v.covered, v.total) for k, v in result.coverage.metrics.items()}
    return {
        "points": [{**asdict(p), "reason": why} for p, why in dead.items()],
        "reachable": reachable_percents(counts, dead),
        "waivers": waiver_lines(dead) if dead else "",
    }


def _dead_text(dead: dict[str, Any]) -> str:
    """The `--dead` section as text."""
    points = dead["points"]
    if dead.get("note"):
        return f"\n  dead points: {dead['note']}\n"
    if not points:
        return "\n  no uncovered point is provably unreachable at these parameter values\n"
    reach = dead["reachable"]
    lines = ["", f"  {len(points)} uncovered points cannot be reached at these parameter values "
             f"(overall over the rest: {reach.get('overall', 0.0):.1f}%):"]
    lines += [f"    {Path(p['file']).name}:{p['line']} {p['kind']} {p['comment']}: {p['reason']}" for p in points[:30]]
    if len(points) > 30:
        lines.append(f"    ... {len(points) - 30} more (see --json)")
    lines += ["", "  waiver lines to review (a coverage.waivers file beside design.toml):", ""]
    lines += ["    " + ln for ln in dead["waivers"].splitlines()]
    return "\n".join(lines) + "\n"


EXPORT_SUFFIXES = (".dat", ".info", ".log", ".json", ".xml")
"""Run files `--out` keeps: coverage data, lcov, logs, cocotb results."""

MAX_EXPORTED = 64
"""Most files `--out` copies from one run directory (the rest are counted in a note)."""

EXPORT_CAP = 64 << 20
"""Largest single file `--out` copies (as large as the largest coverage.dat read)."""

EXPORT_TOTAL = 256 << 20
"""Most bytes `--out` copies from one run directory in all."""


def _export(result: SimResult, out: Path) -> SimResult:
    """Copy a run's artifacts to `out` (coverage.dat, coverage.info with absolute paths, logs).

    The run directory was writable by the testbench: only regular files are copied, through
    `sim.sandbox.outputs`; every other entry (a symlink, FIFO, socket, directory, hard link,
    or a file past the limits) is refused by name, on stderr and in the result's notes.
    """
    out.mkdir(parents=True, exist_ok=True)
    known = [p for p in (result.coverage_dat, result.lcov) if p is not None]
    root = result.run_dir or (known[0].parent if known else None)
    notes: tuple[str, ...] = ()
    if root is not None:
        try:
            names, refused = list_outputs(root, EXPORT_SUFFIXES, MAX_EXPORTED)
        except (OSError, UnsafeOutputError) as exc:
            names, refused = [], [(str(root), str(exc))]
        names = [*(p.name for p in known if p.parent == root), *names]
        done = copy_outputs(root, names, out, EXPORT_CAP, EXPORT_TOTAL)
        notes = tuple(dict.fromkeys([*(f"not copied: {name}: {why}" for name, why in refused), *done.notes()]))
        for note in notes:
            sys.stderr.write(f"benchwright sim: --out {note}\n")
    result = replace(result, notes=(*result.notes, *notes))
    (out / "result.json").unlink(missing_ok=True)
    (out / "result.json").write_text(json.dumps(result_json(result), indent=1))
    return result


def build_doctor_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright doctor` (pure; no options)."""
    return argparse.ArgumentParser(prog="benchwright doctor")


def doctor_main(argv: list[str]) -> int:
    """Print tool paths and versions; exit 1 when something required is missing."""
    build_doctor_parser().parse_args(argv)
    import importlib.util

    from sim.tools import find_verilator

    ok = True
    lines = [f"python       {sys.executable} ({sys.version.split()[0]})"]
    try:
        tool = find_verilator()
        lines.append(f"verilator    {tool.verilator} ({tool.version_text})")
        lines.append(f"coverage     {tool.coverage}")
    except SimError as exc:
        ok = False
        lines.append(f"verilator    MISSING: {exc}")
    lines.append(f"ccache       {shutil.which('ccache') or 'not found (rebuilds are slower)'}")
    sandbox_ok, sandbox_text = describe_sandbox()
    ok = ok and sandbox_ok
    lines.append(f"sandbox      {sandbox_text}")
    for mod, extra in (("cocotb", "cocotb"), ("llama_cpp", "llama"), ("openai", "openai"),
                       ("torch", "train"), ("pygls", "(core)")):
        found = importlib.util.find_spec(mod) is not None
        lines.append(f"{mod:<12} {'ok' if found else f'not installed (pip install .[{extra}])'}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if ok else 1
