"""Refinement that is measured: per round k -> k+1, did coverage rise, did the reply repeat its state.

LLM4Cov's step is a memoryless transition from a state with holes to a better state; a student
that writes its state's program again has learnt nothing of it. A round here is every step
after the first: the policy was shown a state (the best-so-far testbench and its observation)
and proposed the next testbench. Pure functions over trajectory records (`trajectory.json`),
so `benchwright train eval` and a person with a folder of trajectories get the same numbers:

    python -m training.refinement benchwright-out/bench/designs     # any folder of trajectory.json
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

GAIN_EPS = 1e-6
"""Overall coverage must rise by more than this for a round to count as a gain."""

_LINE_COMMENT = re.compile(r"//.*$")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def stripped_body(text: str) -> str:
    """A testbench without comments, blank lines and trailing spaces: what the simulator runs.

    Two renderings of one program differ only in comments (the model's name, a salvage note),
    so equal bodies mean the reply repeated the state.
    """
    text = _BLOCK_COMMENT.sub("", text)
    lines = (_LINE_COMMENT.sub("", ln).rstrip() for ln in text.splitlines())
    return "\n".join(ln for ln in lines if ln.strip())


def _overall(observation: Mapping[str, Any] | None) -> float | None:
    """Overall coverage of a simulated, passing observation (None: failed or not simulated)."""
    if not observation or observation.get("status") != "ok" or observation.get("overall") is None:
        return None
    return float(observation["overall"])


@dataclass(frozen=True)
class Round:
    """One refinement round of one episode."""

    design: str
    """Design name."""
    step: int
    """The step that proposed (k + 1; the state was step k's best)."""
    start: float | None
    """Overall coverage of the state shown (None: it failed or there was none)."""
    end: float | None
    """Overall coverage of the proposal (None: a format error or a failed simulation)."""
    below_target: bool
    """The state was below the episode's target (the rounds the issue's goal counts)."""
    gained: bool
    """The proposal covered more than the state (or passed where the state failed)."""
    repeated: bool
    """The proposal is the state's testbench again (comments aside)."""
    format_error: bool
    """The reply could not be used."""


def rounds_of(trajectory: Mapping[str, Any]) -> list[Round]:
    """The refinement rounds of one trajectory record (every step after the first)."""
    target = float(trajectory.get("target") or 0.0)
    out = []
    for step in trajectory.get("steps", []):
        if int(step.get("step", 0)) < 1:
            continue
        start = _overall(step.get("state_observation"))
        end = _overall(step.get("observation"))
        proposal, shown = step.get("testbench") or "", step.get("state_testbench") or ""
        out.append(Round(
            design=str(trajectory.get("design", "")), step=int(step["step"]), start=start, end=end,
            below_target=start is None or start < target,
            gained=end is not None and (start is None or end > start + GAIN_EPS),
            repeated=bool(proposal.strip()) and bool(shown.strip())
            and stripped_body(proposal) == stripped_body(shown),
            format_error=bool(step.get("format_error"))))
    return out


def refinement_summary(trajectories: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Rounds, rounds that gain, rounds that repeat, over a policy's trajectories.

    `gain_rate_below_target` is the issue's goal (the student gains on at least half of the
    rounds that start below target, and repeats on none); rates are None without rounds.
    """
    rounds = [r for t in trajectories for r in rounds_of(t)]
    below = [r for r in rounds if r.below_target]

    def rate(part: int, whole: int) -> float | None:
        return round(part / whole, 3) if whole else None

    gained_below = sum(r.gained for r in below)
    repeated = sum(r.repeated for r in rounds)
    return {
        "rounds": len(rounds), "below_target": len(below), "gained": sum(r.gained for r in rounds),
        "gained_below_target": gained_below, "repeated": repeated,
        "format_errors": sum(r.format_error for r in rounds),
        "gain_rate_below_target": rate(gained_below, len(below)), "repeat_rate": rate(repeated, len(rounds)),
        "per_round": [asdict(r) for r in rounds],
    }


def refinement_cell(summary: Mapping[str, Any] | None) -> tuple[str, str]:
    """The comparison table's two cells: `gained/below target` and `repeated/rounds` ('-' without rounds)."""
    if not summary or not summary.get("rounds"):
        return "-", "-"
    return (f"{summary['gained_below_target']}/{summary['below_target']}",
            f"{summary['repeated']}/{summary['rounds']}")


def main(argv: list[str] | None = None) -> int:
    """Print the refinement summary (without the per-round list) of each folder of trajectories."""
    folders = argv if argv is not None else sys.argv[1:]
    if not folders:
        print("usage: python -m training.refinement FOLDER [FOLDER ...]", file=sys.stderr)
        return 2
    for folder in folders:
        trajectories = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(Path(folder).rglob("trajectory.json"))]
        summary = {k: v for k, v in refinement_summary(trajectories).items() if k != "per_round"}
        print(json.dumps({"folder": folder, "trajectories": len(trajectories), **summary}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
