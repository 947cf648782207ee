"""Pure renderers of an episode: the `run --json` object and the markdown report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agent.loop import EpisodeResult
from agent.program import iface_report, sv_monitors

MAX_HOLES = 40
"""Uncovered points listed in the markdown report."""


def episode_json(ep: EpisodeResult, testbench: Path | None,
                 interfaces: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`{"status", "coverage", "target", "passed", "rounds", "sim_calls", "wall_s", "testbench", ...}`.

    `interfaces`: what the engine recognised (`{"found": [...], "unrecognised_handshakes": [...]}`,
    or `{"error": ...}`), listed as `"interfaces"` when given.
    """
    best = ep.best_result
    cov = best.coverage if best is not None else None
    extra = {"interfaces": dict(interfaces)} if interfaces is not None else {}
    return {
        "status": best.status.value if best is not None else "none",
        "coverage": {"overall": round(cov.overall, 2) if cov else None, "metrics": cov.percents() if cov else {}},
        "target": ep.target,
        "passed": ep.passed,
        "rounds": len(ep.steps),
        "sim_calls": ep.sim_calls,
        "wall_s": round(ep.wall_s, 2),
        "testbench": str(testbench) if testbench else None,
        "episode": ep.status.value,
        "policy": ep.policy,
        "uncovered": len(best.uncovered) if best is not None else None,
        "error": ep.error,
        "findings": [asdict(f) for f in findings(ep)],
        **extra,
    }


def findings(ep: EpisodeResult) -> list[sv_monitors.Finding]:
    """The protocol rules the design broke in the best testbench's run (its checkers' `final` lines)."""
    return sv_monitors.parse_findings(ep.best_result.log_tail) if ep.best_result is not None else []


def episode_markdown(ep: EpisodeResult, testbench: Path | None,
                     interfaces: Mapping[str, Any] | None = None) -> str:
    """Per-round coverage, the final metrics, the remaining holes, and (given) the interfaces found."""
    lines = [f"# {ep.design.name}: policy `{ep.policy}`", "",
             "| step | status | overall | accepted | sim calls | seconds |", "|---|---|---|---|---|---|"]
    for rec in ep.steps:
        obs = rec.observation or {}
        overall = f"{obs['overall']:.2f}" if obs.get("overall") is not None else "-"
        status = obs.get("status") or f"format error: {rec.format_error}"
        lines.append(f"| {rec.step} | {status} | {overall} | {'yes' if rec.accepted else 'no'} | "
                     f"{rec.sim_calls} | {sum(rec.timings.values()):.1f} |")
    best = ep.best_result
    lines.append("")
    if best is None or best.coverage is None:
        lines.append(f"No testbench produced coverage ({best.status.value if best else 'none'}: "
                     f"{best.detail if best else ''}).")
    else:
        c = best.coverage
        lines.append(f"**Best: overall {c.overall:.2f} %** (target {ep.target:g} %, "
                     f"{'met' if ep.passed else 'not met'}) — "
                     + ", ".join(f"{k} {v.percent:.1f} % ({v.covered}/{v.total})" for k, v in c.metrics.items()))
        for note in best.notes:
            lines.append(f"- note: {note}")
        if best.uncovered:
            lines += ["", f"Uncovered points ({len(best.uncovered)}):", ""]
            for pt in best.uncovered[:MAX_HOLES]:
                lines.append(f"- `{Path(pt.file).name}:{pt.line}` {pt.kind} `{pt.comment}` — `{pt.source[:70]}`")
            if len(best.uncovered) > MAX_HOLES:
                lines.append(f"- … {len(best.uncovered) - MAX_HOLES} more")
    broken = findings(ep)
    if broken:
        lines += ["", "## Findings", "", "Protocol rules the design broke while the testbench ran (not failures: the run went on):",
                  ""]
        lines += [f"- `{f.interface}`: {f.rule} — first at {f.first_ns} ns ({f.count} times)" for f in broken]
    if interfaces is not None:
        lines.append("")
        if "error" in interfaces:
            lines += ["## Interfaces", "", f"Not recognised: {interfaces['error']}", ""]
        else:
            lines += iface_report.markdown(interfaces["found"], interfaces["unrecognised_handshakes"])
    if ep.error:
        lines += ["", f"**The episode stopped with an error:** {ep.error}"]
    lines += ["", f"{ep.sim_calls} simulator calls, {ep.wall_s:.1f} s, episode {ep.status.value}."]
    if testbench:
        lines.append(f"Testbench: `{testbench}`")
    return "\n".join(lines) + "\n"
