"""The coverage-directed search: grow one stimulus, keeping only segments that add coverage.

Every trial runs the kept prefix followed by one candidate segment through the compiled
harness (a continuation), so a trial's coverage is exactly what the final replay testbench
will get, and coverage only grows. A candidate is kept when it covers a point the prefix
did not. Candidates come from the generators in `stimulus.py`; a small bandit favours the
generators that have been paying off, and the hints are re-steered after every gain from
the points still uncovered. The simulator is passed in as a function, so this module is pure
apart from calling it.
"""

from __future__ import annotations

import logging
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from agent.heuristic import generators as gen
from agent.heuristic import stimulus as st
from agent.heuristic.stimulus import Hints, Layout, Segment, Step
from sim.types import SimResult, Status, UncoveredPoint

logger = logging.getLogger(__name__)

Runner = Callable[[Sequence[Step]], SimResult]
"""Runs a full stimulus (kept prefix + candidate) and returns its DUT coverage."""

Steerer = Callable[[Hints, Sequence[UncoveredPoint]], Hints]
"""Re-biases the hints toward the points still uncovered."""

Blamer = Callable[[SimResult], Sequence[str]]
"""Names the fields a failed run's assertion message points at (they are then kept quiet)."""

FAIL_TIME_RE = re.compile(r"^\[(\d+)\] %(?:Error|Fatal)", re.M)
"""Simulation time (ps) in Verilator's assertion/$error/$fatal messages."""

ARMS: tuple[str, ...] = ("mixed", "uniform", "hold", "handshake", "sequence", "steer", "toggle",
                         "mutate", "splice", "rereset", "slow", "setup", "expr")
"""Candidate generators of the heuristic strategy."""

LOUD_SHARE = 0.35
"""Share of candidates that drive the fields an assertion blamed as freely as the others.

Quieting keeps a DUT's assertions from firing, but a FIFO's `push while full` assertion
also blames the push that fills it; a loud candidate that trips the assertion is cut just
before the failing step, so its legal prefix (the FIFO filled to the brim) is still kept."""

OPTIONAL_ARMS: dict[str, Callable[[Hints], bool]] = {
    "setup": lambda h: bool(h.writes),
    "expr": lambda h: bool(h.combos),
}
"""Arms that only exist for some designs: pulled only while their hints are there."""


@dataclass(frozen=True)
class SearchConfig:
    """Knobs of one search."""

    seed: int = 0
    """Seed of the `random.Random` every candidate is drawn from."""
    strategy: str = "heuristic"
    """`heuristic` (mined, steered, mixed generators) or `random` (uniform values only)."""
    max_steps: int = 3000
    """Most steps the kept stimulus may hold (bounds the final testbench's size)."""
    max_cycles: int = 400_000
    """Most clock cycles the kept stimulus may last (bounds each trial's run time)."""
    random_len: int = 200
    """Steps of one uniform-random candidate."""
    random_reset: bool = False
    """Random strategy only: start with one reset sequence and keep resets released after it
    (False: resets are drawn uniformly like every other input: plain random)."""
    max_trials: int | None = None
    """Stop after this many trials (None: until the caller says stop)."""
    accumulate: bool = True
    """Random strategy only. True: coverage-guided random (a candidate that covers something
    new is appended to the kept stimulus). False: plain random, the baseline: every trial is
    a fresh, independent uniform-random stimulus of `plain_len` steps and the single best
    trial is kept, as running a random testbench with N seeds would."""
    plain_len: int = 1000
    """Steps of one plain-random trial."""


@dataclass(frozen=True)
class Trial:
    """What one simulator call did."""

    index: int
    """0-based trial number."""
    label: str
    """The candidate's generator."""
    covered: int
    """Covered points after the trial (the prefix's when the trial failed)."""
    gained: int
    """New points the candidate added (0 when dropped)."""
    kept: bool
    """True when the candidate joined the stimulus."""
    status: str = "ok"
    """The run's status."""


@dataclass(frozen=True)
class SearchResult:
    """The kept stimulus and how the search got there."""

    segments: tuple[Segment, ...]
    """Kept segments, in replay order."""
    result: SimResult | None
    """Observation of the last kept stimulus (None when no trial succeeded)."""
    trials: tuple[Trial, ...] = ()
    """Every trial, in order."""
    arm_gains: dict[str, int] = field(default_factory=dict)
    """Generator -> points it added."""

    @property
    def sim_calls(self) -> int:
        """Simulator calls made."""
        return len(self.trials)

    @property
    def steps(self) -> int:
        """Steps in the kept stimulus."""
        return sum(len(s.steps) for s in self.segments)


def covered_points(result: SimResult | None) -> int:
    """Covered points over all scored metrics (0 without coverage)."""
    if result is None or result.coverage is None:
        return 0
    return sum(m.covered for m in result.coverage.metrics.values())


def total_points(result: SimResult | None) -> int:
    """All scored points (0 without coverage)."""
    if result is None or result.coverage is None:
        return 0
    return sum(m.total for m in result.coverage.metrics.values())


def _complete(result: SimResult | None) -> bool:
    """True at 100 % coverage."""
    return result is not None and result.coverage is not None and total_points(result) > 0 \
        and covered_points(result) >= total_points(result)


class _Bandit:
    """Weights per arm: a gain makes an arm likelier, a miss slowly less likely."""

    def __init__(self, arms: Sequence[str]) -> None:
        self.weights = dict.fromkeys(arms, 1.0)
        """Arm -> weight."""
        self.untried = list(arms)
        """Arms not pulled yet: each is tried once before the weights decide."""

    def pick(self, rng: random.Random, hints: Hints | None = None) -> str:
        """An untried arm, else a weighted random one (optional arms only when `hints` allow)."""
        def usable(arm: str) -> bool:
            test = OPTIONAL_ARMS.get(arm)
            return test is None or (hints is not None and test(hints))

        untried = [a for a in self.untried if usable(a)]
        if untried:
            arm = untried[rng.randrange(len(untried))]
            self.untried.remove(arm)
            return arm
        arms = [a for a in self.weights if usable(a)]
        return rng.choices(arms, weights=[self.weights[a] for a in arms])[0]

    def update(self, arm: str, gained: int) -> None:
        """Reward `arm` for `gained` new points."""
        w = self.weights[arm]
        self.weights[arm] = min(8.0, w * 1.6 + 0.2 * min(gained, 10)) if gained > 0 else max(0.15, w * 0.85)


def first_segment(rng: random.Random, layout: Layout, hints: Hints, strategy: str, random_len: int,
                  reset: bool = True) -> Segment:
    """The opening candidate: reset, then corner values and mixed random (or plain random).

    A design with writable tables or registers gets them written first, right after reset.
    """
    if strategy == "random":
        return gen.random_segment(rng, layout, random_len, label="uniform random", reset_first=reset,
                                 random_resets=not reset)
    corner = gen.corner_segment(layout, hints)
    walk = gen.walk_segment(layout)
    mixed = gen.random_segment(rng, layout, 150, hints=hints, p_palette=0.4, p_hold=0.3)
    slow = gen.slow_segment(rng, layout, hints, 40)
    # Tables and configuration first, so everything after them runs on written storage.
    setup = gen.setup_segment(rng, layout, hints, 0, pattern="ramp").steps if hints.writes else ()
    steps = st.reset_steps(layout, 3) + setup + corner.steps + walk.steps + mixed.steps + slow.steps
    written = ", write tables and registers" if setup else ""
    return Segment(f"reset{written}, corner values, walking bits, mixed random, slow serial", steps)


def propose(rng: random.Random, arm: str, layout: Layout, hints: Hints, kept: Sequence[Segment],
            room: int) -> Segment:
    """One candidate from generator `arm`, at most `room` steps long."""
    n = max(4, min(room, rng.choice((16, 40, 100, 250))))
    seg: Segment
    if arm == "uniform":
        seg = gen.random_segment(rng, layout, n, label="uniform random")
    elif arm == "hold":
        seg = gen.hold_segment(rng, layout, hints, n=rng.randint(1, 4))
    elif arm == "handshake" and hints.handshake:
        seg = gen.handshake_segment(rng, layout, hints, n)
    elif arm == "slow":
        seg = gen.slow_segment(rng, layout, hints, n)
    elif arm == "sequence":
        seg = gen.sequence_segment(rng, layout, hints, n)
    elif arm == "steer" and hints.focus:
        seg = gen.random_segment(rng, layout, n, label="steered to uncovered conditions", hints=hints,
                                p_palette=0.8, p_hold=0.4, max_cycles=3)
    elif arm == "toggle" and hints.toggles:
        targets = list(hints.toggles)
        rng.shuffle(targets)
        seg = gen.toggle_segment(rng, layout, targets[: max(1, room // 8)])
    elif arm == "mutate" and kept:
        seg = gen.mutate_segment(rng, rng.choice(list(kept)), layout, hints, rate=rng.choice((0.05, 0.15, 0.3)))
    elif arm == "splice" and len(kept) >= 2:
        a, b = rng.sample(list(kept), 2)
        seg = gen.splice(rng, a, b)
    elif arm == "setup" and hints.writes:
        seg = gen.setup_segment(rng, layout, hints, rng.choice((40, 100, 250)))
    elif arm == "expr" and hints.combos:
        seg = gen.combo_segment(rng, layout, hints, n)
    elif arm == "rereset":
        seg = gen.random_segment(rng, layout, n, label="mixed random with mid-run resets", hints=hints,
                                p_palette=0.4, p_hold=0.3, p_reset=0.03, max_cycles=2)
    else:
        seg = gen.random_segment(rng, layout, n, label="mixed random", hints=hints,
                                p_palette=rng.choice((0.2, 0.5, 0.8)), p_hold=rng.choice((0.0, 0.3, 0.7)),
                                max_cycles=rng.choice((1, 1, 2, 4)))
    if any(f.reset for f in layout.fields) and rng.random() < 0.3:
        seg = gen.with_reset(layout, seg, rng)
    if len(seg.steps) > room:
        seg = Segment(seg.label, seg.steps[:room])
    return seg


def failure_time(result: SimResult) -> int | None:
    """Time (ps) of the first error message of a failed run, if it printed one."""
    m = FAIL_TIME_RE.search(result.log_tail)
    return int(m.group(1)) if m else None


def search(layout: Layout, run: Runner, *, hints: Hints, config: SearchConfig = SearchConfig(),
           should_stop: Callable[[], bool] = lambda: False, steerer: Steerer | None = None,
           initial_holes: Sequence[UncoveredPoint] = (), blame: Blamer | None = None,
           initial: Sequence[Segment] = ()) -> SearchResult:
    """Grow a stimulus trial by trial until 100 %, `should_stop()`, `max_trials` or full.

    Args:
        layout: the fields every step drives.
        run: the simulator (one call per trial).
        hints: mined hints (plain hints for the random strategy).
        config: seed, strategy and size limits.
        should_stop: checked before every trial (budget, deadline, cancellation).
        steerer: re-steers hints from uncovered points (None: no steering).
        initial_holes: uncovered points known before the search (the best testbench so far).
        blame: names the fields behind a DUT assertion that fired. A failed candidate is
            cut just before the failing step and re-run, and those fields are kept quiet.
        initial: segments to continue from (the best testbench so far); replayed once and
            kept when they still simulate cleanly. Ignored by plain random.
    """
    rng = random.Random(config.seed)
    bandit = _Bandit(ARMS)
    if steerer is not None and initial_holes:
        hints = steerer(hints, initial_holes)
    kept: list[Segment] = []
    best: SimResult | None = None
    best_covered = 0
    trials: list[Trial] = []
    gains: dict[str, int] = {}
    kept_steps = 0
    kept_cycles = 0
    if initial and not (config.strategy == "random" and not config.accumulate) and not should_stop():
        start = run(st.flatten(initial))
        ok = start.status == Status.OK and start.coverage is not None
        trials.append(Trial(0, "continue from the current testbench", covered_points(start) if ok else 0,
                            covered_points(start) if ok else 0, ok, start.status.value))
        if ok:
            kept = list(initial)
            kept_steps = sum(len(seg.steps) for seg in kept)
            kept_cycles = sum(seg.cycles for seg in kept)
            best, best_covered = start, covered_points(start)
            if steerer is not None:
                hints = steerer(hints, start.uncovered)
    while not should_stop() and not _complete(best):
        if config.max_trials is not None and len(trials) >= config.max_trials:
            break
        plain = config.strategy == "random" and not config.accumulate
        room = config.max_steps - (0 if plain else kept_steps)
        if room < 4 or (not plain and kept_cycles >= config.max_cycles):
            break
        if plain:
            arm = "uniform"
            cand = gen.random_segment(rng, layout, min(room, config.plain_len), label="plain uniform random",
                                     random_resets=not config.random_reset)
        elif best is None:
            arm = "first"
            cand = first_segment(rng, layout, hints, config.strategy, config.random_len, config.random_reset)
            cand = Segment(cand.label, cand.steps[:room])
        elif config.strategy == "random":
            arm = "uniform"
            cand = gen.random_segment(rng, layout, min(room, config.random_len), label="uniform random",
                                     random_resets=not config.random_reset)
        else:
            arm = bandit.pick(rng, hints)
            cand = propose(rng, arm, layout, hints, kept, room)
        if kept_cycles + cand.cycles > config.max_cycles:
            cand = Segment(cand.label, tuple(Step(s.values, 1) for s in cand.steps))
        if rng.random() >= LOUD_SHARE:
            cand = gen.quieten(rng, layout, hints, cand)
        prefix = () if plain else st.flatten(kept)
        result = run(prefix + cand.steps)
        if result.status == Status.RUNTIME_ERROR and not should_stop():
            # A DUT assertion fired: keep the legal part of the candidate and learn from it.
            if blame is not None:
                hints = replace(hints, quiet=tuple(dict.fromkeys([*hints.quiet, *blame(result)])))
            when = failure_time(result)
            cut = st.step_at(layout, prefix + cand.steps, when) - len(prefix) if when is not None else 0
            trials.append(Trial(len(trials), cand.label, best_covered, 0, False, result.status.value))
            if cut <= 0:
                continue
            cand = Segment(f"{cand.label} (legal prefix)", cand.steps[:cut])
            result = run(prefix + cand.steps)
        ok = result.status == Status.OK and result.coverage is not None
        covered = covered_points(result) if ok else best_covered
        gained = covered - best_covered if ok else 0
        keep = ok and (gained > 0 or best is None)
        trials.append(Trial(len(trials), cand.label, max(covered, best_covered), max(gained, 0), keep,
                            result.status.value))
        if arm in bandit.weights:
            bandit.update(arm, gained)
        if not keep:
            continue
        if plain:  # the best single trial replaces the previous best
            kept, kept_steps, kept_cycles = [], 0, 0
        kept.append(cand)
        kept_steps += len(cand.steps)
        kept_cycles += cand.cycles
        best, best_covered = result, covered
        gains[arm] = gains.get(arm, 0) + gained
        logger.debug("trial %d (%s) +%d -> %d points", len(trials) - 1, cand.label, gained, covered)
        if steerer is not None:
            hints = steerer(hints, result.uncovered)
    return SearchResult(tuple(kept), best, tuple(trials), gains)
