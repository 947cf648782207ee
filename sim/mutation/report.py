"""Mutation reports as JSON and text (pure), and the shells that print them.

`sim --mutation` analyses one testbench; `run --mutation` and `bench --mutation` analyse an
episode's best testbench (`analyse_best`, `bench_cell`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim.errors import SimError
from sim.mutation.model import MutationReport, prepare
from sim.mutation.mutants import KINDS, Mutant, by_kind
from sim.mutation.testbench import (
    analyse_cocotb,
    analyse_files,
    analyse_human,
    analyse_sv,
)
from sim.run.evaluate import SimOptions
from sim.suite import Design

MAX_LISTED = 40
"""Most surviving mutants the text report lists (the JSON lists all)."""


def mutant_json(m: Mutant) -> dict[str, Any]:
    """One mutant: id, kind, file, line, column, what changed."""
    return {"id": m.id, "kind": m.kind, "file": m.file, "line": m.line, "column": m.column,
            "description": m.description}


def mutation_json(report: MutationReport) -> dict[str, Any]:
    """The `mutation` object of `benchwright sim --json` / `run --json` (percentages 0-100)."""
    killed_by_kind = by_kind(m for m in report.mutants if m.id in report.killed)
    return {
        "mutants": len(report.mutants),
        "found": report.found,
        "killed": len(report.killed),
        "kill_ratio": round(report.ratio, 2),
        "score": round(report.score, 2),
        "killed_by_own_checks": len(report.failed_runs),
        "own_checks_ratio": round(report.self_ratio, 2),
        "possibly_equivalent": sorted(report.equivalent),
        "by_kind": {k: {"mutants": n, "killed": killed_by_kind.get(k, 0)} for k, n in by_kind(report.mutants).items()},
        "survived": [mutant_json(m) for m in report.survived],
        "killed_list": [{**mutant_json(m), "why": report.killed[m.id]} for m in report.mutants if m.id in report.killed],
        "rejected": [{**mutant_json(m), "why": why} for m, why in report.rejected],
        "prepare_s": round(report.prepare_s, 3),
        "build_s": round(report.build_s, 3),
        "run_s": round(report.run_s, 3),
        "error": report.error,
    }


def mutation_text(report: MutationReport) -> str:
    """A readable summary: kill ratio per kind, then the surviving mutants by file and line."""
    if report.error:
        return f"  mutation: {report.error}"
    counts = by_kind(report.mutants)
    killed = by_kind(m for m in report.mutants if m.id in report.killed)
    kinds = ", ".join(f"{k} {killed.get(k, 0)}/{counts[k]}" for k in KINDS if k in counts)
    lines = [f"  mutation  {len(report.killed)}/{len(report.mutants)} killed ({report.ratio:.1f} %"
             + (f", score {report.score:.1f} % without {len(report.equivalent)} possibly equivalent"
                if report.equivalent else "") + f"): {kinds}",
             f"            {len(report.failed_runs)}/{len(report.mutants)} noticed by the testbench's own checks "
             f"({report.self_ratio:.1f} %: its run failed); the rest only by comparing outputs with the original",
             f"            {report.found} mutants found, {len(report.mutants)} analysed; "
             f"prepare {report.prepare_s:.1f} s, build {report.build_s:.1f} s, runs {report.run_s:.1f} s"]
    survived = report.survived
    if survived:
        lines.append("  surviving mutants (a bug here would go unnoticed):")
    for m in survived[:MAX_LISTED]:
        tag = " (possibly equivalent)" if m.id in report.equivalent else ""
        lines.append(f"    {Path(m.file).name}:{m.line}: {m.kind}: {m.description}{tag}")
    if len(survived) > MAX_LISTED:
        lines.append(f"    ... {len(survived) - MAX_LISTED} more (see --json)")
    return "\n".join(lines)


def analyse_for_cli(design: Design, tb: Path | None, human: bool, options: SimOptions,
                    cap: int | None) -> MutationReport:
    """The mutation report of the testbench `benchwright sim` was asked to run.

    Raises:
        SimError: no testbench was given, or the design cannot be parsed.
    """
    if human:
        return analyse_human(design, cap=cap, options=options)
    if tb is None:
        raise SimError("give --tb FILE or --human")
    if tb.suffix == ".py":
        model = prepare(design, cap=cap, options=options)
        return analyse_cocotb(model, tb.stem, [tb.resolve()], options=options)
    return analyse_files(design, [tb.resolve()], None, cap=cap, options=options)


# ---------------------------------------------------------------------------- an episode's best testbench


def analyse_best(design: Design, testbench: str, out: Path | None, cap: int | None,
                 options: SimOptions = SimOptions()) -> tuple[dict[str, Any], str]:
    """Mutation JSON and text of a testbench; both are also written to `out` when given."""
    try:
        report = analyse_sv(design, testbench, tb_name=f"tb_{design.top}.sv", cap=cap, options=options)
    except SimError as exc:
        report = MutationReport(design.name, (), error=str(exc))
    data, text = mutation_json(report), "\n## Mutation\n\n```\n" + mutation_text(report) + "\n```\n"
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "mutation.json").write_text(json.dumps(data, indent=1))
        (out / "mutation.md").write_text(text)
    return data, text


def bench_cell(design: Design, testbench: str | None, cap: int | None) -> dict[str, Any]:
    """The mutation columns of one bench row (the human test when `testbench` is None)."""
    try:
        report = analyse_human(design, cap=cap) if testbench is None else \
            analyse_sv(design, testbench, tb_name=f"tb_{design.top}.sv", cap=cap)
    except SimError as exc:
        return {"mutation": None, "mutation_note": str(exc)}
    if report.error:
        return {"mutation": None, "mutation_note": report.error}
    return {"mutation": round(report.ratio, 2), "mutants": len(report.mutants), "killed": len(report.killed),
            "own_checks": round(report.self_ratio, 2), "survived": [m.id for m in report.survived]}
