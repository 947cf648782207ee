"""Worst-state-prioritized sampling (LLM4Cov stage 1/2): which student states get a fix.

Per design, from all states the student visited, keep at most:
  * one failing state (compile or run failure, or an unparseable reply), drawn with the seed
    when there are several;
  * the lowest-coverage passing state below 100 %;
  * the median passing state, only when it is more than `margin` points above that worst one.
Pure and seeded: the same states and seed give the same picks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SampledState:
    """One state the student reached: its testbench and what the simulator said."""

    design: str
    """Design name."""
    key: str
    """Unique id of the state (`sample/step`)."""
    testbench: str
    """x_t."""
    status: str
    """Simulator status (`ok` passes; anything else is a failing state)."""
    overall: float
    """Overall coverage (0 for failures)."""
    format_error: str = ""
    """Parser message when the reply had no usable testbench (status `format_error`)."""

    @property
    def passing(self) -> bool:
        """True when the testbench ran and produced coverage."""
        return self.status == "ok"


def select_states(states: Sequence[SampledState], seed: int = 0, margin: float = 10.0) -> list[SampledState]:
    """The worst-state-prioritized picks of one design's states (failing first, then worst, then median).

    Duplicate testbenches count once (a student that repeats itself visits one state).
    """
    unique: dict[str, SampledState] = {}
    for s in states:
        unique.setdefault(s.testbench, s)
    pool = sorted(unique.values(), key=lambda s: s.key)  # order-independent input
    rng = np.random.default_rng(seed)
    picks: list[SampledState] = []
    failing = [s for s in pool if not s.passing]
    if failing:
        picks.append(failing[int(rng.integers(len(failing)))])
    passing = sorted((s for s in pool if s.passing and s.overall < 100.0 - 1e-9),
                     key=lambda s: (s.overall, s.key))
    if passing:
        worst = passing[0]
        picks.append(worst)
        median = passing[len(passing) // 2]  # the upper median for an even count
        if median is not worst and median.overall > worst.overall + margin:
            picks.append(median)
    return picks


def select_all(states: Sequence[SampledState], seed: int = 0, margin: float = 10.0) -> dict[str, list[SampledState]]:
    """`select_states` per design (each design gets its own seed derived from `seed`)."""
    by_design: dict[str, list[SampledState]] = {}
    for s in states:
        by_design.setdefault(s.design, []).append(s)
    return {name: select_states(group, seed + i, margin)
            for i, (name, group) in enumerate(sorted(by_design.items()))}
