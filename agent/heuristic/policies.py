"""The engine as episode policies: `heuristic` and the random baselines, all through `run_engine`.

They share the harness, the search and the budget, and differ in strategy and knowledge.
"""

from __future__ import annotations

from typing import Any

from agent.heuristic.engine import EngineReport, run_engine
from agent.heuristic.program_search import ProgramSearchConfig
from agent.policy import Budget, Proposal, State
from sim.run.evaluate import SimOptions


class _EnginePolicy:
    """Shared propose() of the engine policies."""

    name = "engine"
    """Registry name."""
    strategy = "heuristic"
    """Search strategy."""
    guided_default = True
    """Random strategy: coverage-guided accumulation unless told otherwise."""

    def __init__(
        self,
        seed: int = 0,
        sim_options: SimOptions | None = None,
        max_trials: int | None = None,
        reset_first: bool = False,
        guided: bool | None = None,
        objective: str = "coverage",
        mutation_cap: int | None = None,
        **_options: Any,
    ) -> None:
        self.seed = seed
        """Base seed (mixed with the episode step so refinements explore differently)."""
        self.sim_options = sim_options or SimOptions()
        """Simulator options for the harness and the final check."""
        self.max_trials = max_trials
        """Optional cap on trials per proposal."""
        self.reset_first = reset_first
        """Random policy: one proper reset first, resets released after (the stronger baseline)."""
        self.guided = self.guided_default if guided is None else guided
        """Random policy: keep every program that covers something new (coverage-guided random)
        instead of the best of independent plain-random runs."""
        self.objective = objective
        """`coverage`, or `coverage+mutation` (also keep programs that kill mutants)."""
        self.mutation_cap = mutation_cap
        """Most mutants the mutation objective aims at (None: sim.mutation.model.DEFAULT_CAP)."""
        self.last_report: EngineReport | None = None
        """Report of the latest propose() (for benches and tests)."""

    def propose(self, state: State, budget: Budget) -> Proposal:
        """Search within `budget` and return the testbench."""
        holes = (
            state.result.uncovered
            if state.result is not None and self.strategy == "heuristic"
            else ()
        )
        seed = self.seed * 1000 + state.step
        cfg = ProgramSearchConfig(
            seed=seed,
            strategy=self.strategy,
            max_trials=self.max_trials,
            reset_first=self.reset_first,
            accumulate=self.guided,
        )
        tb, report = run_engine(
            state.design,
            strategy=self.strategy,
            budget=budget,
            seed=seed,
            holes=holes,
            options=self.sim_options,
            config=cfg,
            previous=state.testbench,
            verify=False,
            objective=self.objective,
            mutation_cap=self.mutation_cap,
        )
        self.last_report = report
        companions = (
            {f"test_{state.design.top}.py": report.cocotb} if report.cocotb else {}
        )
        return Proposal(
            testbench=tb,
            filename=f"tb_{state.design.top}.sv",
            response=report.summary(),
            sim_calls=report.sim_calls,
            companions=companions,
            usage={
                "trials": report.search.sim_calls if report.search else 0,
                "wall_s": round(report.wall_s, 3),
            },
        )


class HeuristicPolicy(_EnginePolicy):
    """The built-in coverage-directed engine (interfaces, mined constants, steering)."""

    name = "heuristic"
    """Registry name."""
    strategy = "heuristic"
    """Search strategy."""


class RandomPolicy(_EnginePolicy):
    """Plain random stimulus with the same harness and budget: the baseline.

    Every simulator call runs an independent uniform-random program (resets drawn like
    every other input) and the best single run is kept: no mining, no steering, no
    coverage-guided growth.
    """

    name = "random"
    """Registry name."""
    strategy = "random"
    """Search strategy."""
    guided_default = False
    """Plain: independent runs, best kept."""


class GuidedRandomPolicy(_EnginePolicy):
    """Coverage-guided random: uniform random programs kept whenever they cover something new.

    An ablation between `random` and `heuristic`: it has the heuristic's keep-if-new
    search but none of its design knowledge.
    """

    name = "random-guided"
    """Registry name."""
    strategy = "random"
    """Search strategy."""
    guided_default = True
    """Accumulate kept programs."""
