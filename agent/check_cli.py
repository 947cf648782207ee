"""`benchwright check`: run a kept testbench and say whether the design still does what it recorded.

A testbench the engine wrote compares every output, phase by phase, with the signatures of
the run that produced it (`agent/program/sv_checks.py`). After an RTL edit, this command (or a
CI job) runs it again: exit 0 when every check passed, 1 on a mismatch, a failed run or no checks, 2 on
bad input. `--accept` re-records the signatures from the design as it is now (new behaviour
that is intended), as snapshot tools' update flags do; the stimulus stays the same.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.program import sv_checks as chk
from sim.errors import SimError
from sim.project.init_cli import add_input_args, design_from_args
from sim.run.evaluate import SimOptions
from sim.suite import Design
from sim.types import SimResult


def kept_testbench(design: Design) -> Path | None:
    """The testbench `benchwright run` kept for this design (`benchwright-out/<name>/tb_<top>.sv`), if any."""
    path = Path("benchwright-out") / design.name / f"tb_{design.top}.sv"
    return path if path.is_file() else None


def verdict(result: SimResult) -> dict[str, Any]:
    """What a run of a checking testbench says: status, checks, mismatches, and whether it passed."""
    counted = chk.summary(result.log_tail)
    found = chk.mismatches(result.log_tail)
    checks, failed = counted if counted is not None else (0, len(found))
    return {"status": result.status.value, "checks": checks, "mismatches": failed, "first": found[:10],
            "passed": result.status.value == "ok" and counted is not None and failed == 0,
            "detail": result.detail if result.status.value != "ok" else ""}


def rerecord(design: Design, tb_text: str, options: SimOptions = SimOptions()) -> str:
    """The testbench with its checks recorded again from `design` as it is now (one simulator call).

    Raises SimError when the testbench carries no checks, its check block was edited by hand,
    or the recording run fails.
    """
    from agent.heuristic.engine import make_target
    from sim.analysis.interface import read_interface
    from sim.run.evaluate import evaluate_sv

    old = chk.read_checks(tb_text)
    if old is None:
        raise SimError("this testbench carries no checks to record again (regenerate it with `benchwright run`)")
    target, _hints = make_target(design, read_interface(design), "heuristic")
    recording = chk.swap(tb_text, target, old, replace(old, expected=()))
    if recording is None:
        raise SimError("the testbench's check block was edited by hand: regenerate the testbench instead")
    rec = evaluate_sv(design, recording, options=options)
    values = chk.parse_signatures(rec.log_tail, len(old.expected), len(old.outputs))
    if values is None:
        raise SimError(f"the recording run ended {rec.status.value} without signatures: {rec.detail}")
    new = chk.swap(tb_text, target, old, replace(old, expected=values, reads=chk.parse_reads(rec.log_tail)))
    if new is None:  # the block was found a moment ago
        raise SimError("the testbench's check block could not be replaced")
    return new


def build_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright check` (pure)."""
    p = argparse.ArgumentParser(prog="benchwright check",
                                description="Run a kept testbench; fail when an output differs from its recording.")
    add_input_args(p)
    p.add_argument("--tb", type=Path, help="the testbench (default: benchwright-out/<design>/tb_<top>.sv)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--accept", action="store_true",
                   help="record the checks again from the design as it is now (intended new behaviour)")
    return p


def check_main(argv: list[str]) -> int:
    """Entry point of `benchwright check`."""
    args = build_parser().parse_args(argv)
    from sim.cli import simulate

    try:
        design = design_from_args(args, "benchwright check")
    except (SimError, OSError) as exc:
        sys.stderr.write(f"benchwright check: {exc}\n")
        return 2
    tb = args.tb or kept_testbench(design)
    if tb is None:
        sys.stderr.write(f"benchwright check: no kept testbench for {design.name}: give --tb FILE, "
                         "or run `benchwright run` first\n")
        return 2
    if args.accept:
        try:
            tb.write_text(rerecord(design, tb.read_text()))
        except (SimError, OSError) as exc:
            sys.stderr.write(f"benchwright check: {exc}\n")
            return 2
        sys.stdout.write(f"{tb}: checks recorded again\n")
    try:
        result = simulate(design, tb, False, SimOptions())
    except (SimError, OSError) as exc:
        sys.stderr.write(f"benchwright check: {exc}\n")
        return 2
    v = verdict(result)
    if args.json:
        sys.stdout.write(json.dumps(v, indent=1) + "\n")
    else:
        if v["checks"] == 0 and v["status"] == "ok":
            sys.stdout.write(f"{tb}: no checks in this testbench (regenerate it with `benchwright run`)\n")
        else:
            sys.stdout.write(f"{tb}: {v['checks']} checks, {v['mismatches']} mismatches ({v['status']})\n")
        for line in v["first"]:
            sys.stdout.write(f"  {line}\n")
        if v["detail"] and not v["first"]:
            sys.stdout.write(f"  {v['detail']}\n")
    return 0 if v["passed"] else 1
