"""The `coverage+mutation` objective: after the coverage search, keep programs that kill mutants.

The design's batched mutant model (sim.mutation.model) is built once with the program
harness, so any program can run on the original and on every mutant without rebuilding.
`hunt` draws programs the way the coverage search does, but keeps one when it kills a
mutant still alive, steering the hints toward the lines of the survivors. The loop is pure
apart from calling `judge`.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from agent.heuristic import moves
from agent.heuristic.stimulus import Hints
from agent.program.encode import DATA_FILE, encode
from agent.program.ops import Program, op
from agent.program.sv import HARNESS_TOP, render_harness
from agent.program.target import Target
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

Judge = Callable[[Program, Sequence[int]], tuple[bool, dict[int, str]]]
"""Runs a program on the original and the given live mutants: (ran cleanly, killed id -> why)."""

Steerer = Callable[[Hints, Sequence[UncoveredPoint]], Hints]
"""Re-biases hints toward points (here: the lines of surviving mutants)."""

IDLE_P = 0.2
"""Probability of a candidate that resets and then holds every input idle for a while
(mutants of reset values and of idle behaviour only show without other activity)."""


@dataclass(frozen=True)
class MutantHarness:
    """The program harness built against a design's mutant model."""

    model: MutantModel
    """The batched mutants."""
    built: BuiltTestbench
    """The harness binary (one build for all mutants)."""
    target: Target
    """The design as programs see it."""


@dataclass(frozen=True)
class HuntResult:
    """What the mutation-directed phase added."""

    programs: tuple[Program, ...]
    """The programs kept for killing mutants (run after the coverage programs)."""
    killed: dict[int, str] = field(default_factory=dict)
    """Mutant id -> why, over every program."""
    trials: int = 0
    """Candidates tried."""


def build_mutant_harness(design: Design, target: Target, *, cap: int | None = DEFAULT_CAP,
                         options: SimOptions = SimOptions(), model: MutantModel | None = None) -> MutantHarness | str:
    """Build the harness against the design's mutant model; a one-line error instead on failure."""
    try:
        model = model or prepare(design, cap=cap, options=options)
    except SimError as exc:
        return f"mutants: {exc}"
    built = build_sv_model(model, render_harness(target), tb_name=f"{HARNESS_TOP}.sv", options=options)
    if isinstance(built, SimResult):
        return f"mutant harness build failed: {built.detail}"
    return MutantHarness(model, built, target)


def make_judge(h: MutantHarness, on_run: Callable[[], None] | None = None) -> Judge:
    """A judge that runs the harness with `+bw_mut=0` and then each live mutant."""

    def judge(program: Program, alive: Sequence[int]) -> tuple[bool, dict[int, str]]:
        files = {DATA_FILE: encode(h.target, program)}
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


def score_program(h: MutantHarness, program: Program) -> MutationReport:
    """Mutation report of one program on the harness (every mutant of the model)."""
    start = time.monotonic()
    ok, killed = make_judge(h)(program, [m.id for m in h.model.mutants])
    error = "" if ok else "the original design does not run cleanly with this program"
    return MutationReport(h.model.original.name, h.model.mutants, killed, h.model.found, h.model.rejected,
                          h.built.build_s, time.monotonic() - start, h.model.prepare_s, error=error)


def holes_of(model: MutantModel, alive: Sequence[int]) -> list[UncoveredPoint]:
    """Surviving mutants as line points, so the coverage steerer can aim at their conditions."""
    by_id = {m.id: m for m in model.mutants}
    return [UncoveredPoint("line", by_id[i].file, by_id[i].line, by_id[i].description, "") for i in alive
            if i in by_id]


def candidate(rng: random.Random, t: Target, hints: Hints, kept: Sequence[Program]) -> Program:
    """One hunting candidate: a reset and idle inputs, or a kept program extended by one generator."""
    if rng.random() < IDLE_P or not kept:
        return Program((op("reset", rng.randint(1, 3)), op("hold", rng.choice((2, 5, 20))),
                        op("random", 40, moves.seed(rng), pal=50, keep=30)))
    gen = rng.choice(moves.generators_for(t))
    return moves.extend(rng, t, hints, rng.choice(list(kept)), gen)


def hunt(t: Target, kept: Sequence[Program], judge: Judge, mutants: Sequence[int], *, hints: Hints,
         seed: int = 0, should_stop: Callable[[], bool] = lambda: False, steerer: Steerer | None = None,
         holes: Callable[[Sequence[int]], Sequence[UncoveredPoint]] | None = None,
         max_trials: int | None = None) -> HuntResult:
    """Programs, each run alone, kept while they kill mutants still alive after `kept`.

    Args:
        t: the design as programs see it.
        kept: the coverage search's programs (judged first, never dropped).
        judge: runs a program on the original and the live mutants.
        mutants: ids of every mutant to aim at.
        hints: the mined (and steered) hints.
        seed: seed of the candidate draw.
        should_stop: checked before every candidate (budget, deadline).
        steerer: re-steers the hints toward the surviving mutants' lines.
        holes: turns live mutant ids into points for the steerer.
        max_trials: stop after this many candidates.
    """
    rng = random.Random(seed ^ 0x6D75)
    killed: dict[int, str] = {}
    for program in kept:
        ok, new = judge(program, [m for m in mutants if m not in killed])
        if ok:
            killed.update(new)
    alive = [m for m in mutants if m not in killed]
    found: list[Program] = []
    trials = 0

    def resteer(h: Hints) -> Hints:
        return steerer(h, holes(alive)) if steerer is not None and holes is not None and alive else h

    hints = resteer(hints)
    while alive and not should_stop() and (max_trials is None or trials < max_trials):
        program = candidate(rng, t, hints, [*kept, *found])
        trials += 1
        ran, new = judge(program, alive)
        if not ran or not new:
            continue
        found.append(program)
        killed.update(new)
        alive = [m for m in alive if m not in new]
        hints = resteer(hints)
        logger.debug("mutation trial %d killed %d, %d alive", trials, len(new), len(alive))
    return HuntResult(tuple(found), killed, trials)


def mutation_phase(design: Design, t: Target, program: Program, *, hints: Hints,
                   steerer: Steerer | None, seed: int, options: SimOptions, cap: int | None,
                   should_stop: Callable[[], bool], count: Callable[[], None]) -> tuple[Program, str]:
    """The coverage program with programs that kill mutants appended; (program, summary).

    Each candidate (the original plus every live mutant, on one batched build) counts as one
    simulator call.
    """
    from agent.heuristic.corpus import chapters

    mh = build_mutant_harness(design, t, cap=cap if cap is not None else DEFAULT_CAP, options=options)
    if isinstance(mh, str):
        logger.warning("%s: %s", design.name, mh)
        return program, f"not run ({mh})"
    judge_all = make_judge(mh)

    def judge(p: Program, alive: Sequence[int]) -> tuple[bool, dict[int, str]]:
        count()
        return judge_all(p, alive)

    ids = [m.id for m in mh.model.mutants]
    hr = hunt(t, chapters(program), judge, ids, hints=hints, seed=seed, should_stop=should_stop, steerer=steerer,
              holes=lambda alive: holes_of(mh.model, alive))
    summary = f"{len(hr.killed)}/{len(ids)} mutants killed; {len(hr.programs)} of {hr.trials} programs kept " \
              "for killing mutants"
    extra = [o for p in hr.programs for o in p.ops]
    return Program((*program.ops, *extra)), summary
