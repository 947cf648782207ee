"""`run --mutation` and `bench --mutation`: the mutation report of an episode's best testbench."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim.errors import SimError
from sim.evaluate import SimOptions
from sim.mutation import MutationReport
from sim.mutation_report import mutation_json, mutation_text
from sim.mutation_tb import analyse_human, analyse_sv
from sim.suite import Design


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
            "survived": [m.id for m in report.survived]}
