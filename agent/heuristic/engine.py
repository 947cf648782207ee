"""`HeuristicPolicy` and `RandomPolicy`: build the harness once, search, render, verify.

Both policies share the same harness, search loop and budget; they differ only in what
they know. `heuristic` mines constants, corner values and handshake names from the design,
mixes several stimulus generators and steers by the uncovered points; `random` drives
uniform random values (after one reset) and nothing else: the baseline.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.heuristic import harness as hx
from agent.heuristic import steer as sr
from agent.heuristic import stimulus as st
from agent.heuristic.search import (
    SearchConfig,
    SearchResult,
    covered_points,
    search,
    total_points,
)
from agent.heuristic.spec_hints import mine_spec
from agent.heuristic.stimulus import Hints, Layout, Step
from agent.policy import Budget, Proposal, State
from sim.analysis.interface import DesignInterface, read_interface
from sim.errors import DesignError
from sim.run.evaluate import SimOptions, build_sv, evaluate_sv
from sim.suite import Design
from sim.types import SimResult, Status, UncoveredPoint

logger = logging.getLogger(__name__)

MIN_SHARE = 20
"""Fewest simulator calls one propose() may plan for (when the budget allows)."""

FINAL_RESERVE_S = 25.0
"""Seconds kept back from the deadline for building and running the final testbench."""

OBJECTIVES: tuple[str, ...] = ("coverage", "coverage+mutation")
"""What the engine keeps stimulus for: new coverage points, or also newly killed mutants."""

COVERAGE_SHARE = 0.85
"""With the mutation objective: most of the simulator calls the coverage search gets first."""

MIN_COVERAGE_SHARE = 0.3
"""With the mutation objective: the coverage search gets at least this share before a stall ends it."""

PLATEAU_TRIALS = 10
"""With the mutation objective: trials without new coverage after which the coverage search
has stalled and the mutant hunt takes over."""


@dataclass(frozen=True)
class EngineReport:
    """What one engine run did (summarised in `Proposal.response`)."""

    strategy: str
    """`heuristic` or `random`."""
    search: SearchResult | None
    """The search (None when the harness could not be built)."""
    final: SimResult | None
    """The final testbench's own observation."""
    sim_calls: int
    """Simulator calls spent (trials + the final check)."""
    wall_s: float
    """Seconds the engine ran."""
    reproduced: bool
    """True when the final testbench covered exactly what the search's last kept trial did."""
    note: str = ""
    """Why something did not work ('' when all went well)."""
    cocotb: str = ""
    """The same kept stimulus as a cocotb test ('' when there is none)."""
    mutation: str = ""
    """With the `coverage+mutation` objective: what the mutation phase did ('' otherwise)."""

    def summary(self) -> str:
        """A few lines for `Proposal.response` and logs."""
        if self.search is None:
            return f"{self.strategy} engine: {self.note}"
        # Unverified (inside an episode, where the loop judges the testbench): the harness's numbers.
        observed = self.final if self.final is not None else self.search.result
        cov = observed.coverage if observed is not None else None
        pct = ", ".join(f"{k} {v:.1f}%" for k, v in cov.percents().items()) if cov else "no coverage"
        kept = ", ".join(f"{s.label} ({len(s.steps)} steps)" for s in self.search.segments[:8])
        more = "" if len(self.search.segments) <= 8 else f", +{len(self.search.segments) - 8} more"
        lines = [
            f"{self.strategy} engine: {len(self.search.trials)} trials, {len(self.search.segments)} segments kept, "
            f"{self.search.steps} steps; overall {cov.overall if cov else 0.0:.2f}% ({pct}); "
            f"{self.sim_calls} sim calls, {self.wall_s:.1f} s",
            f"kept: {kept}{more}",
        ]
        if self.final is not None and not self.reproduced:
            lines.append("note: the standalone testbench did not reproduce the harness coverage exactly")
        if self.mutation:
            lines.append(f"mutation objective: {self.mutation}")
        if self.note:
            lines.append(f"note: {self.note}")
        return "\n".join(lines)


def _read_lines(path: str) -> list[str] | None:
    """Lines of a source file named in a log (None when unreadable)."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None


def _placeholder_tb(design: Design, iface: DesignInterface | None, note: str) -> str:
    """A minimal testbench used when nothing better could be produced."""
    if iface is None:
        return f"// {note}\nmodule tb_{design.top};\n  {design.top} {design.dut_instance} ();\n" \
               "  initial #100 $finish;\nendmodule\n"
    layout = hx.make_layout(design, iface)
    return hx.render_replay(layout, [], title=note)


def run_engine(design: Design, *, strategy: str, budget: Budget, seed: int = 0,
               holes: Sequence[UncoveredPoint] = (), options: SimOptions = SimOptions(),
               config: SearchConfig | None = None, previous: str | None = None,
               verify: bool = True, objective: str = "coverage",
               mutation_cap: int | None = None) -> tuple[str, EngineReport]:
    """Search stimulus for `design` within `budget`; the final testbench text and a report.

    `previous` is the current testbench: when it is one of the engine's own replays for
    this design, the search continues from its stimulus. Each call spends at most an even
    share of the budget over the episode steps still to come (`budget.steps_left`), so the
    refinements get their turn. With `verify`, the final testbench is also simulated on its
    own (one more call) to check it reproduces the harness coverage; an episode skips that,
    since its loop simulates every proposal anyway. With `objective="coverage+mutation"`
    the coverage search gets part of the share and the rest goes to keeping stimulus that
    kills the design's mutants (`mutation_objective.hunt`; at most `mutation_cap` mutants).
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r} is not in supported list: {', '.join(OBJECTIVES)}")
    start = time.monotonic()
    try:
        iface = read_interface(design)
    except DesignError as exc:
        note = f"cannot read the design interface: {exc}"
        return _placeholder_tb(design, None, note), EngineReport(strategy, None, None, 0, 0.0, False, note)
    layout = hx.make_layout(design, iface)
    built = build_sv(design, hx.render_harness(layout), tb_name=f"{hx.HARNESS_TOP}.sv", options=options)
    if isinstance(built, SimResult):
        note = f"harness build failed: {built.detail}"
        logger.warning("%s: %s", design.name, note)
        return _placeholder_tb(design, iface, note), EngineReport(
            strategy, None, None, 0, time.monotonic() - start, False, note)
    calls = 0

    best_points, last_gain = 0, 0

    def run(steps: Sequence[Step]) -> SimResult:
        nonlocal calls, best_points, last_gain
        calls += 1
        budget.spend(1)
        res = built.run({hx.STIM_FILE: hx.render_stim(layout, steps)})
        if covered_points(res) > best_points:
            best_points, last_gain = covered_points(res), calls
        return res

    # Keep enough time (and, when verifying, one call) for the final testbench's own build and run.
    reserve_s = FINAL_RESERVE_S + built.build_s

    share = max(MIN_SHARE, budget.sim_calls // (budget.steps_left + 1))
    final_calls = 1 if verify else 0

    hunting = objective == "coverage+mutation"
    coverage_share = max(MIN_SHARE // 2, int(share * COVERAGE_SHARE)) if hunting else share

    def should_stop() -> bool:
        # With the mutation objective, the coverage search also ends once it has stalled:
        # the hunt for mutants then gets the rest of the share.
        stalled = hunting and calls - last_gain >= PLATEAU_TRIALS and calls >= share * MIN_COVERAGE_SHARE
        return budget.sim_calls <= final_calls or budget.left_s() <= reserve_s \
            or calls >= coverage_share - final_calls or stalled

    if strategy == "random":
        hints: Hints = sr.plain_hints(layout)
        steerer = None
    else:
        hints = sr.mine_hints(layout, iface, mine_spec(design.spec_text(), layout.fields))

        def steerer(h: Hints, pts: Sequence[UncoveredPoint]) -> Hints:
            return sr.steer(h, layout, iface, pts, dut_scope=f"{hx.HARNESS_TOP}.{layout.instance}")

    def blame(res: SimResult) -> Sequence[str]:
        return sr.blamed_fields(layout, res.log_tail, _read_lines)

    cfg = config or SearchConfig(seed=seed, strategy=strategy)
    initial = hx.parse_replay(previous, layout) if previous else None
    result = search(layout, run, hints=hints, config=cfg, should_stop=should_stop,
                    steerer=steerer, initial_holes=holes, blame=blame if strategy != "random" else None,
                    initial=initial or ())
    hunted = ""
    if hunting:
        def hunt_stop() -> bool:
            return budget.sim_calls <= final_calls or budget.left_s() <= reserve_s or calls >= share - final_calls

        def count() -> None:
            nonlocal calls
            calls += 1
            budget.spend(1)

        result, hunted = mutation_phase(design, layout, result, run, hints=hints, steerer=steerer, seed=seed,
                                        options=options, cap=mutation_cap, should_stop=hunt_stop, count=count)
    tb = render_final(layout, result, strategy, design)
    final: SimResult | None = None
    note = ""
    if verify and budget.sim_calls > 0:
        calls += 1
        budget.spend(1)
        final = evaluate_sv(design, tb, tb_name=f"tb_{design.top}.sv", options=options)
        if final.status != Status.OK:
            note = f"final testbench: {final.status.value}: {final.detail}"
    reproduced = final is not None and covered_points(final) == covered_points(result.result) \
        and total_points(final) == total_points(result.result)
    cocotb = hx.render_cocotb(layout, result.segments) if result.segments else ""
    report = EngineReport(strategy, result, final, calls, time.monotonic() - start, reproduced, note, cocotb, hunted)
    return tb, report


def mutation_phase(design: Design, layout: Layout, result: SearchResult, run: Callable[[Sequence[Step]], SimResult],
                   *, hints: Hints, steerer: Callable[[Hints, Sequence[UncoveredPoint]], Hints] | None, seed: int,
                   options: SimOptions, cap: int | None, should_stop: Callable[[], bool],
                   count: Callable[[], None]) -> tuple[SearchResult, str]:
    """Grow the coverage search's stimulus with segments that kill mutants; (result, summary).

    Each candidate (the original plus every live mutant, on one batched build) counts as one
    simulator call. When segments were added, the coverage harness re-runs the final
    stimulus once so the reported coverage is the kept stimulus's own.
    """
    from agent.heuristic import mutation_objective as mo
    from sim.mutation.model import DEFAULT_CAP

    mh = mo.build_mutant_harness(design, layout, cap=cap if cap is not None else DEFAULT_CAP, options=options)
    if isinstance(mh, str):
        logger.warning("%s: %s", design.name, mh)
        return result, f"not run ({mh})"

    def judge(steps: Sequence[Step], alive: Sequence[int]) -> tuple[bool, dict[int, str]]:
        count()
        return mo.make_judge(mh)(steps, alive)

    ids = [m.id for m in mh.model.mutants]
    hr = mo.hunt(layout, result.segments, judge, ids, hints=hints, seed=seed, should_stop=should_stop,
                 steerer=steerer, holes=lambda alive: mo.holes_of(mh.model, alive))
    summary = (f"{len(hr.killed)}/{len(ids)} mutants killed; {hr.added} of {hr.trials} candidates kept "
               "for killing mutants")
    if not hr.added:
        return result, summary
    count()
    rerun = run(st.flatten(hr.segments))
    if rerun.status != Status.OK:
        return result, summary + " (dropped: the grown stimulus did not re-run cleanly)"
    return SearchResult(hr.segments, rerun, result.trials, result.arm_gains), summary


def render_final(layout: Layout, result: SearchResult, strategy: str, design: Design) -> str:
    """The replay testbench of a search, with a header saying what it covers."""
    cov = result.result.coverage if result.result is not None else None
    notes = [f"design {design.name}; {len(result.trials)} trials, {len(result.segments)} kept segments"]
    if cov is not None:
        notes.append("coverage when run alone: " + ", ".join(f"{k} {v:.1f}%" for k, v in cov.percents().items())
                     + f" (overall {cov.overall:.2f}%)")
    title = "stimulus found by the Benchwright heuristic engine" if strategy == "heuristic" \
        else "uniform random stimulus (Benchwright random baseline)"
    return hx.render_replay(layout, result.segments, title=title, notes=notes)


class _EnginePolicy:
    """Shared propose() of the two engine policies."""

    name = "engine"
    """Registry name."""
    strategy = "heuristic"
    """Search strategy."""
    guided_default = True
    """Random strategy: coverage-guided accumulation unless told otherwise."""

    def __init__(self, seed: int = 0, sim_options: SimOptions | None = None, max_trials: int | None = None,
                 reset_first: bool = False, guided: bool | None = None, objective: str = "coverage",
                 mutation_cap: int | None = None, **_options: Any) -> None:
        self.seed = seed
        """Base seed (mixed with the episode step so refinements explore differently)."""
        self.sim_options = sim_options or SimOptions()
        """Simulator options for the harness and the final check."""
        self.max_trials = max_trials
        """Optional cap on trials per proposal."""
        self.reset_first = reset_first
        """Random policy: one proper reset first, resets released after (the stronger baseline)."""
        self.guided = self.guided_default if guided is None else guided
        """Random policy: keep every candidate that covers something new (coverage-guided
        random) instead of the best of independent plain-random runs."""
        self.objective = objective
        """`coverage`, or `coverage+mutation` (also keep stimulus that kills mutants)."""
        self.mutation_cap = mutation_cap
        """Most mutants the mutation objective aims at (None: sim.mutation.model.DEFAULT_CAP)."""
        self.last_report: EngineReport | None = None
        """Report of the latest propose() (for benches and tests)."""

    def propose(self, state: State, budget: Budget) -> Proposal:
        """Search within `budget` and return the replay testbench."""
        holes = state.result.uncovered if state.result is not None and self.strategy == "heuristic" else ()
        seed = self.seed * 1000 + state.step
        cfg = SearchConfig(seed=seed, strategy=self.strategy, max_trials=self.max_trials,
                           random_reset=self.reset_first, accumulate=self.guided)
        tb, report = run_engine(state.design, strategy=self.strategy, budget=budget, seed=seed, holes=holes,
                                options=self.sim_options, config=cfg, previous=state.testbench, verify=False,
                                objective=self.objective, mutation_cap=self.mutation_cap)
        self.last_report = report
        companions = {f"test_{state.design.top}.py": report.cocotb} if report.cocotb else {}
        return Proposal(testbench=tb, filename=f"tb_{state.design.top}.sv", response=report.summary(),
                        sim_calls=report.sim_calls, companions=companions,
                        usage={"trials": report.search.sim_calls if report.search else 0,
                               "wall_s": round(report.wall_s, 3)})


class HeuristicPolicy(_EnginePolicy):
    """The built-in coverage-directed engine (mined constants, corners, steering)."""

    name = "heuristic"
    """Registry name."""
    strategy = "heuristic"
    """Search strategy."""


class RandomPolicy(_EnginePolicy):
    """Plain random stimulus with the same harness and budget: the baseline.

    Every simulator call runs an independent uniform-random stimulus (resets included)
    and the best single run is kept: no mining, no steering, no coverage-guided growth.
    """

    name = "random"
    """Registry name."""
    strategy = "random"
    """Search strategy."""
    guided_default = False
    """Plain: independent runs, best kept."""


class GuidedRandomPolicy(_EnginePolicy):
    """Coverage-guided random: uniform candidates appended whenever they cover something new.

    An ablation between `random` and `heuristic`: it has the heuristic's keep-if-new
    search but none of its design knowledge.
    """

    name = "random-guided"
    """Registry name."""
    strategy = "random"
    """Search strategy."""
    guided_default = True
    """Accumulate kept candidates."""
