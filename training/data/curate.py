"""Execution-validated curation (LLM4Cov stage 0, reused by stages 1/2): pure filter rules.

A candidate transition s_t -> x_{t+1} is kept only if every rule passes, checked in order
(the first failing rule is the reason recorded for the drop):

1. it produced a testbench at all (`no_testbench` otherwise: a format error);
2. it compiles (`not_compiled`);
3. it ran and wrote coverage (`run_failed`);
4. when s_t passed: overall coverage rose by >= `min_gain` points (`no_gain`) and no metric
   went down (`metric_drop`); when s_t failed (or is s_0) the transition fixes a failure and
   rules 4 do not apply;
5. its overall coverage reaches the absolute floor, when one is set (`below_floor`);
6. it is the best survivor of its design (`not_best`): highest overall, then largest gain,
   then the shortest testbench, then the smallest key (deterministic). With `per_design`
   above 1 (program records are short, so a design can give several: seeds, intermediate
   states) the best `per_design` survivors are kept, taken in turn from the first
   generations (from s_0) and the refinements (from a state) so both kinds are taught,
   exact duplicates (same prompt and answer) counted once.

`write_curated` is the thin I/O shell: it applies the rules and writes data.jsonl,
candidates.jsonl and report.json.
"""

from __future__ import annotations

import enum
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.types import SimResult

EPS = 1e-6
"""Tolerance for comparing percentages."""


class Reason(enum.StrEnum):
    """Why a candidate was kept or dropped."""

    KEPT = "kept"
    NO_TESTBENCH = "no_testbench"
    NOT_COMPILED = "not_compiled"
    RUN_FAILED = "run_failed"
    NO_GAIN = "no_gain"
    METRIC_DROP = "metric_drop"
    BELOW_FLOOR = "below_floor"
    NOT_BEST = "not_best"


COMPILE_FAILURES = frozenset({"compile_error", "rejected"})
"""Statuses that mean the testbench did not build."""


@dataclass(frozen=True)
class Obs:
    """The part of an observation the filters look at."""

    status: str
    """Simulator status value (`ok`, `compile_error`, ...)."""
    overall: float = 0.0
    """Overall coverage in percent (0 without coverage)."""
    metrics: Mapping[str, float] = field(default_factory=dict)
    """Per-metric percent."""

    @property
    def passing(self) -> bool:
        """True when the run produced coverage."""
        return self.status == "ok"

    @classmethod
    def from_result(cls, result: SimResult | None) -> Obs | None:
        """From a live SimResult."""
        if result is None:
            return None
        if result.status.value == "ok" and result.coverage is not None:
            return cls("ok", result.overall, result.coverage.percents())
        # `ok` without a coverage file cannot be scored: treat it as the run failure it is.
        return cls("coverage_error" if result.status.value == "ok" else result.status.value)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Obs | None:
        """From `agent.loop.observation_json` / a stored candidate."""
        if not data:
            return None
        overall = data.get("overall")
        return cls(str(data["status"]), float(overall or 0.0), dict(data.get("metrics") or {}))

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"status": self.status, "overall": round(self.overall, 3), "metrics": dict(self.metrics)}


@dataclass(frozen=True)
class Candidate:
    """One simulated transition s_t -> x_{t+1}, ready to become an SFT record."""

    design: str
    """Design name."""
    key: str
    """Unique id within the stage (`mode/sample/step`)."""
    prev: Obs | None
    """o_t (None at s_0)."""
    new: Obs | None
    """o_{t+1} (None when the response had no testbench)."""
    messages: tuple[Mapping[str, str], ...] = ()
    """The prompt the transition answered (system, prior turns, user)."""
    assistant: str = ""
    """The assistant turn in the LLM4Cov reply format."""
    testbench: str = ""
    """x_{t+1}."""

    @property
    def gain(self) -> float:
        """Overall coverage points gained over o_t (from 0 when o_t had none)."""
        base = self.prev.overall if self.prev is not None and self.prev.passing else 0.0
        return (self.new.overall if self.new is not None else 0.0) - base


def judge(c: Candidate, min_gain: float = 1.0, floor: float | None = 50.0) -> Reason:
    """Rules 1-5 for one candidate (rule 6 needs the whole design: see `curate`)."""
    if c.new is None or not c.testbench.strip():
        return Reason.NO_TESTBENCH
    if c.new.status in COMPILE_FAILURES:
        return Reason.NOT_COMPILED
    if not c.new.passing:
        return Reason.RUN_FAILED
    if c.prev is not None and c.prev.passing:
        if c.gain < min_gain - EPS:
            return Reason.NO_GAIN
        if any(c.new.metrics.get(m, 0.0) < v - EPS for m, v in c.prev.metrics.items()):
            return Reason.METRIC_DROP
    elif c.new.overall < min_gain - EPS:
        # From s_0 or a failure, the fix still has to cover something.
        return Reason.NO_GAIN
    if floor is not None and c.new.overall < floor - EPS:
        return Reason.BELOW_FLOOR
    return Reason.KEPT


def _rank(c: Candidate) -> tuple[float, float, int, str]:
    # Ascending sort: higher overall, larger gain, shorter testbench, smaller key first.
    return (-(c.new.overall if c.new else 0.0), -c.gain, len(c.testbench), c.key)


def _in_turn(group: Sequence[Candidate]) -> list[Candidate]:
    """Candidates by rank, alternating first generations (no prior state) and refinements."""
    first = sorted((c for c in group if c.prev is None), key=_rank)
    refine = sorted((c for c in group if c.prev is not None), key=_rank)
    if not first or not refine:
        return first or refine
    lead, other = (first, refine) if _rank(first[0]) <= _rank(refine[0]) else (refine, first)
    out: list[Candidate] = []
    for k in range(max(len(lead), len(other))):
        out += lead[k:k + 1] + other[k:k + 1]
    return out


def curate(candidates: Sequence[Candidate], min_gain: float = 1.0,
           floor: float | None = 50.0, per_design: int = 1) -> tuple[list[Candidate], dict[str, Reason]]:
    """Apply all rules; the kept candidates (up to `per_design` per design, by design name) and key -> reason."""
    reasons: dict[str, Reason] = {}
    survivors: dict[str, list[Candidate]] = {}
    for c in candidates:
        r = judge(c, min_gain, floor)
        reasons[c.key] = r
        if r is Reason.KEPT:
            survivors.setdefault(c.design, []).append(c)
    kept: list[Candidate] = []
    for design in sorted(survivors):
        best: list[Candidate] = []
        seen: set[tuple[str, str]] = set()
        for c in _in_turn(survivors[design]):
            sig = (str(c.messages[-1].get("content", "")) if c.messages else "", c.assistant)
            if len(best) < max(1, per_design) and sig not in seen:
                best.append(c)
                seen.add(sig)
            else:
                reasons[c.key] = Reason.NOT_BEST
        kept += best
    return kept, reasons


def reason_counts(reasons: Mapping[str, Reason]) -> dict[str, int]:
    """Reason -> count, every reason listed (zeros included) in rule order."""
    counts = Counter(reasons.values())
    return {r.value: counts.get(r, 0) for r in Reason}


def _to_candidate(d: dict[str, Any]) -> Candidate:
    return Candidate(design=d["design"], key=d["key"], prev=Obs.from_json(d["prev"]), new=Obs.from_json(d["new"]),
                     messages=tuple(d["messages"]), assistant=d["assistant"], testbench=d["testbench"])


def write_curated(raw: list[dict[str, Any]], out_dir: Path, stage: str, min_gain: float,
                  floor: float | None, per_design: int = 1) -> dict[str, Any]:
    """Curate candidates; write data.jsonl, candidates.jsonl and report.json; return the report."""
    from training.data.chat import make_record

    out_dir.mkdir(parents=True, exist_ok=True)
    errors = [d for d in raw if "error" in d]
    raw = [d for d in raw if "error" not in d]
    cands = [_to_candidate(d) for d in raw]
    kept, reasons = curate(cands, min_gain=min_gain, floor=floor, per_design=per_design)
    with (out_dir / "data.jsonl").open("w", encoding="utf-8") as fh:
        for c in kept:
            rec = make_record(c.messages, c.assistant, design=c.design, key=c.key, stage=stage,
                              overall=round(c.new.overall, 3) if c.new else 0.0, gain=round(c.gain, 3))
            fh.write(json.dumps(rec) + "\n")
    with (out_dir / "candidates.jsonl").open("w", encoding="utf-8") as fh:
        for d in raw:
            fh.write(json.dumps({"design": d["design"], "key": d["key"], "prev": d["prev"], "new": d["new"],
                                 "reason": reasons[d["key"]].value}) + "\n")
    designs = sorted({c.design for c in cands})
    report = {
        "stage": stage, "candidates": len(cands), "designs": len(designs), "kept": len(kept),
        "episodes_failed": len(errors), "errors": [e["error"] for e in errors][:20],
        "reasons": reason_counts(reasons),
        # Counts after each rule, in rule order (what the closing note reports).
        "after_each_rule": _after_each(reasons, len(cands)),
        "designs_with_data": sorted({c.design for c in kept}),
        "mean_overall_kept": round(sum(c.new.overall for c in kept if c.new) / len(kept), 2) if kept else 0.0,
    }
    (out_dir / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


def _after_each(reasons: dict[str, Reason], total: int) -> dict[str, int]:
    left, out = total, {}
    counts = Counter(reasons.values())
    for r in Reason:
        if r is Reason.KEPT:
            continue
        left -= counts.get(r, 0)
        out[f"after_{r.value}"] = left
    return out
