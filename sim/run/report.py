"""Pure renderers of SimResults: the CLI's JSON object and its readable summary."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from sim.types import SimResult

MAX_UNCOVERED_TEXT = 30
"""Uncovered points listed in the readable summary (the JSON lists all)."""


def result_json(result: SimResult) -> dict[str, Any]:
    """The `benchwright sim --json` object (percentages 0-100)."""
    cov = result.coverage
    return {
        "status": result.status.value,
        "coverage": {
            "overall": round(cov.overall, 2) if cov else None,
            "metrics": cov.percents() if cov else {},
            "counts": {k: {"covered": v.covered, "total": v.total} for k, v in cov.metrics.items()} if cov else {},
            # Consistency: points in coverage.dat, in the DUT's design units, and kept as the DUT's.
            "points": result.extra.get("points", {}),
            "scopes": result.extra.get("scopes", []),
        },
        "uncovered": [asdict(p) for p in result.uncovered],
        "build_s": round(result.build_s, 3),
        "run_s": round(result.run_s, 3),
        "cached": result.cached,
        "errors": [asdict(m) for m in result.messages if m.severity == "error"],
        "warnings": len([m for m in result.messages if m.severity == "warning"]),
        "detail": result.detail,
        "notes": list(result.notes),
        "lcov": str(result.lcov) if result.lcov else None,
        "seed": result.seed,
    }


def result_text(result: SimResult, name: str = "") -> str:
    """A readable summary table of one result."""
    lines = [f"{name + ': ' if name else ''}{result.status.value}"
             f"  (build {result.build_s:.2f} s{' cached' if result.cached else ''}, run {result.run_s:.2f} s)"]
    if result.detail:
        lines.append(f"  {result.detail}")
    for m in [m for m in result.messages if m.severity == "error"][:10]:
        lines.append(f"  {m.file}:{m.line}:{m.column}: error{'-' + m.tag if m.tag else ''}: {m.text}")
    cov = result.coverage
    if cov is not None:
        lines.append("")
        lines.append(f"  {'metric':<8} {'covered':>8} {'total':>6} {'percent':>8}")
        for metric, s in cov.metrics.items():
            lines.append(f"  {metric:<8} {s.covered:>8} {s.total:>6} {s.percent:>7.1f}%")
        lines.append(f"  {'overall':<8} {'':>8} {'':>6} {cov.overall:>7.1f}%")
        if result.uncovered:
            lines.append("")
            lines.append(f"  uncovered points ({len(result.uncovered)}):")
            for p in result.uncovered[:MAX_UNCOVERED_TEXT]:
                lines.append(f"    {p.file.rsplit('/', 1)[-1]}:{p.line} {p.kind} {p.comment}  | {p.source[:60]}")
            if len(result.uncovered) > MAX_UNCOVERED_TEXT:
                lines.append(f"    ... {len(result.uncovered) - MAX_UNCOVERED_TEXT} more (see --json)")
    for note in result.notes:
        lines.append(f"  note: {note}")
    if result.lcov:
        lines.append(f"  lcov: {result.lcov}")
    return "\n".join(lines)
