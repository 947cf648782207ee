"""The `coverage+mutation` objective: after the coverage search, keep stimulus that kills mutants.

The design's batched mutant model (sim.mutation.model) is built once with the engine's
data-driven harness, so the kept stimulus can be run on the original and on every mutant
without rebuilding. `hunt` grows the kept stimulus the way the coverage search does, but a
candidate is kept when it kills a mutant still alive, and the hints are steered toward the
lines of the surviving mutants. The loop is pure apart from calling `judge`.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from agent.heuristic import generators as gen
from agent.heuristic import harness as hx
from agent.heuristic import stimulus as st
from agent.heuristic.search import ARMS, _Bandit, propose
from agent.heuristic.stimulus import Hints, Layout, Segment, Step
from sim.errors import SimError
from sim.mutation.model import (
    DEFAULT_CAP,
    MutantModel,
    MutationReport,
    Outcome,
    hang_limit,
    kill_reason,
    prepare,
    run_one,
)
from sim.mutation.testbench import build_sv_model
from sim.run.evaluate import BuiltTestbench, SimOptions
from sim.suite import Design
from sim.types import SimResult, UncoveredPoint

logger = logging.getLogger(__name__)

Judge = Callable[[Sequence[Step], Sequence[int]], tuple[bool, dict[int, str]]]
"""Runs a full stimulus on the original and the given live mutants: (ran cleanly, killed id -> why)."""

Steerer = Callable[[Hints, Sequence[UncoveredPoint]], Hints]
"""Re-biases hints toward points (here: the lines of surviving mutants)."""


@dataclass(frozen=True)
class MutantHarness:
    """The engine's harness built against a design's mutant model."""

    model: MutantModel
    """The batched mutants."""
    built: BuiltTestbench
    """The harness binary (one build for all mutants)."""
    layout: Layout
    """The harness's field layout."""


@dataclass(frozen=True)
class HuntResult:
    """What the mutation-directed phase added."""

    segments: tuple[Segment, ...]
    """The kept stimulus after the phase (the input segments plus the new ones)."""
    killed: dict[int, str] = field(default_factory=dict)
    """Mutant id -> why, over the whole kept stimulus."""
    trials: int = 0
    """Candidates tried."""
    added: int = 0
    """Candidates kept."""


def build_mutant_harness(design: Design, layout: Layout, *, cap: int | None = DEFAULT_CAP,
                         options: SimOptions = SimOptions(), model: MutantModel | None = None) -> MutantHarness | str:
    """Build the harness against the design's mutant model; a one-line error instead on failure."""
    try:
        model = model or prepare(design, cap=cap, options=options)
    except SimError as exc:
        return f"mutants: {exc}"
    built = build_sv_model(model, hx.render_harness(layout), tb_name=f"{hx.HARNESS_TOP}.sv", options=options)
    if isinstance(built, SimResult):
        return f"mutant harness build failed: {built.detail}"
    return MutantHarness(model, built, layout)


def harness_files(layout: Layout, steps: Sequence[Step]) -> dict[str, str]:
    """The run-directory files that make the harness replay `steps`."""
    return {hx.STIM_FILE: hx.render_stim(layout, steps)}


def make_judge(h: MutantHarness, on_run: Callable[[], None] | None = None) -> Judge:
    """A judge that runs the harness with `+bw_mut=0` and then each live mutant."""

    def judge(steps: Sequence[Step], alive: Sequence[int]) -> tuple[bool, dict[int, str]]:
        files = harness_files(h.layout, steps)
        base = run_one(h.built, 0, files)
        if base.status != "ok":
            return False, {}
        killed: dict[int, str] = {}
        for mid in alive:
            if on_run is not None:
                on_run()
            reason = kill_reason(base, _bounded_run(h, base, mid, files))
            if reason is not None:
                killed[mid] = reason
        return True, killed

    return judge


def _bounded_run(h: MutantHarness, base: Outcome, mutant: int, files: dict[str, str]) -> Outcome:
    """One mutant run with a timeout of a few times the original's run time."""
    limit = hang_limit(h.built.options.run_timeout_s, base.seconds)
    fast = replace(h.built, options=replace(h.built.options, run_timeout_s=limit))
    return run_one(fast, mutant, files)


def score_steps(h: MutantHarness, steps: Sequence[Step]) -> MutationReport:
    """Mutation report of one stimulus on the harness (every mutant of the model)."""
    start = time.monotonic()
    ok, killed = make_judge(h)(steps, [m.id for m in h.model.mutants])
    error = "" if ok else "the original design does not run cleanly with this stimulus"
    return MutationReport(h.model.original.name, h.model.mutants, killed, h.model.found, h.model.rejected,
                          h.built.build_s, time.monotonic() - start, h.model.prepare_s, error=error)


def holes_of(model: MutantModel, alive: Sequence[int]) -> list[UncoveredPoint]:
    """Surviving mutants as line points, so the coverage steerer can aim at their conditions."""
    by_id = {m.id: m for m in model.mutants}
    return [UncoveredPoint("line", by_id[i].file, by_id[i].line, by_id[i].description, "") for i in alive
            if i in by_id]


RESTART_P = 0.5
"""Probability that a hunting candidate starts from a fresh reset (the kept prefix may have
left the design in a state where the mutant cannot show)."""

IDLE_P = 0.2
"""Probability of a candidate that resets and then holds every input idle for a while
(mutants of reset values and of idle behaviour only show without other activity)."""


def candidate(rng: random.Random, arm: str, layout: Layout, hints: Hints, kept: Sequence[Segment],
              room: int) -> Segment:
    """One hunting candidate: a search generator's segment, often after a reset."""
    resets = any(f.reset for f in layout.fields)
    if resets and rng.random() < IDLE_P:
        idle = (*st.reset_steps(layout, rng.randint(1, 3)), Step(layout.idle, rng.choice((2, 5, 20))))
        tail = gen.random_segment(rng, layout, max(0, min(room - len(idle), 40)), label="mixed random", hints=hints,
                                p_palette=0.5, p_hold=0.3)
        return Segment("reset, idle, mixed random", (idle + tail.steps)[:room])
    seg = gen.quieten(rng, layout, hints, propose(rng, arm, layout, hints, kept, room))
    if resets and rng.random() < RESTART_P and seg.steps[:1] != st.reset_steps(layout, 1)[:1]:
        seg = gen.with_reset(layout, seg, rng)
    return Segment(seg.label, seg.steps[:room])


def hunt(layout: Layout, kept: Sequence[Segment], judge: Judge, mutants: Sequence[int], *, hints: Hints,
         seed: int = 0, should_stop: Callable[[], bool] = lambda: False,
         steerer: Steerer | None = None, holes: Callable[[Sequence[int]], Sequence[UncoveredPoint]] | None = None,
         max_steps: int = 3000, max_trials: int | None = None) -> HuntResult:
    """Append candidate segments to `kept` while they kill mutants that are still alive.

    Args:
        layout: the fields every step drives.
        kept: the coverage search's kept segments (replayed first, never dropped).
        judge: runs a stimulus on the original and the live mutants.
        mutants: ids of every mutant to aim at.
        hints: the mined (and steered) hints.
        seed: seed of the candidate draw.
        should_stop: checked before every candidate (budget, deadline).
        steerer: re-steers the hints toward the surviving mutants' lines.
        holes: turns live mutant ids into points for the steerer.
        max_steps: most steps the kept stimulus may hold.
        max_trials: stop after this many candidates.
    """
    rng = random.Random(seed ^ 0x6D75)
    segments = list(kept)
    ok, killed = judge(st.flatten(segments), mutants) if segments else (True, {})
    if not ok:
        return HuntResult(tuple(segments), {}, 0, 0)
    alive = [m for m in mutants if m not in killed]
    bandit = _Bandit(ARMS)
    trials = added = 0

    def resteer(h: Hints) -> Hints:
        return steerer(h, holes(alive)) if steerer is not None and holes is not None and alive else h

    hints = resteer(hints)
    while alive and not should_stop() and (max_trials is None or trials < max_trials):
        room = max_steps - sum(len(s.steps) for s in segments)
        if room < 4:
            break
        arm = bandit.pick(rng) if segments else "mixed"
        cand = candidate(rng, arm, layout, hints, segments, room)
        trials += 1
        ran, new = judge(st.flatten(segments) + cand.steps, alive)
        if arm in bandit.weights:
            bandit.update(arm, len(new))
        if not ran or not new:
            continue
        segments.append(Segment(f"{cand.label} (kills {len(new)} mutant{'s' if len(new) > 1 else ''})", cand.steps))
        added += 1
        killed.update(new)
        alive = [m for m in alive if m not in new]
        hints = resteer(hints)
        logger.debug("mutation trial %d (%s) killed %d, %d alive", trials, cand.label, len(new), len(alive))
    return HuntResult(tuple(segments), killed, trials, added)
