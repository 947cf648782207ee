"""The coverage-directed search over stimulus programs: a corpus of programs, each run alone.

Every trial runs one candidate program from power-up through the compiled harness. A
candidate that covers a point no kept program covered joins the corpus; one that covers all
its parent did with fewer operations replaces it. Candidates come from a small bandit over
moves: extend a kept program with new operations from one generator, mutate one of its
operations, splice two, or start afresh. Trials cost the same whatever was kept before, so
the search never fills up: it runs until the budget or the target. At the end a greedy set
cover picks the fewest programs that keep every point, and they run one after another (each
from its own reset) as the final program.

A run that fails (a DUT `$fatal`/assertion, Verilator's DIDNOTCONVERGE) teaches the search:
the inputs in force when it failed become an `avoid` rule every later program carries, and
the failing program's legal prefix is still tried. Nothing here reads the clock: the
decisions depend only on the seed, the design and the answers of `run`.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from agent.heuristic import edits, moves, scenarios
from agent.heuristic.blame import Failure, analyse_failure
from agent.heuristic.chain import assemble
from agent.heuristic.corpus import (
    Entry,
    ProgramSearchResult,
    Trial,
    Weigh,
    covered_keys,
    score_weights,
    set_cover,
    weigher,
)
from agent.heuristic.stimulus import Hints
from agent.program.ops import Op, Program, assigns, op
from agent.program.sv_monitors import finding_key, parse_findings
from agent.program.target import MAX_AVOID, Target
from agent.program.text import format_program
from sim.run.coverage import CoveragePoint, CoverageReport, source_lines_of, uncovered
from sim.types import SimResult, Status, UncoveredPoint

logger = logging.getLogger(__name__)

Runner = Callable[[Program], SimResult]
"""Runs one program from power-up and returns its DUT coverage."""

Steerer = Callable[[Hints, Sequence[UncoveredPoint]], Hints]
"""Re-biases the hints toward the points still uncovered."""

Blamer = Callable[[SimResult], tuple[Sequence[str], bool]]
"""Names the inputs a failed run's error points at, and whether the failing check reads only inputs
(then the input combination itself is to avoid; otherwise it also depends on the design's state)."""

MOVES: tuple[str, ...] = ("extend", "extend", "extend", "mutate", "splice", "fresh")
"""Move kinds (extend is drawn three times as often before the bandit learns)."""

PLAIN_STEPS = 1000
"""Steps of one plain-random trial (the baseline: independent runs, the best one kept)."""

GUIDED_STEPS = 200
"""Steps a coverage-guided random candidate appends."""


@dataclass(frozen=True)
class ProgramSearchConfig:
    """Knobs of one search."""

    seed: int = 0
    """Seed of the `random.Random` every decision is drawn from."""
    strategy: str = "heuristic"
    """`heuristic` (the engine) or `random` (uniform random programs only: the baselines)."""
    accumulate: bool = True
    """Random strategy only. True: coverage-guided random (candidates that add coverage are
    kept); False: plain random, independent runs of `PLAIN_STEPS` steps, the best one kept."""
    reset_first: bool = False
    """Random strategy only: begin with one proper reset and keep resets released (otherwise
    resets are drawn like every other input)."""
    max_trials: int | None = None
    """Stop after this many trials (None: until the caller says stop)."""


class _Bandit:
    """Weights per move: a gain makes a move likelier, a miss slowly less likely."""

    def __init__(self, arms: Sequence[str]) -> None:
        self.weights = dict.fromkeys(arms, 1.0)
        """Move -> weight."""

    def pick(self, rng: random.Random) -> str:
        arms = list(self.weights)
        return rng.choices(arms, weights=[self.weights[a] for a in arms])[0]

    def update(self, arm: str, gained: int) -> None:
        w = self.weights[arm]
        self.weights[arm] = (
            min(8.0, w * 1.6 + 0.2 * min(gained, 10))
            if gained > 0
            else max(0.15, w * 0.9)
        )


MAX_WITNESSES = 3
"""Most programs the search keeps for the protocol rules they show the design breaking."""


class ProgramSearch:
    """One search: call `run()` to spend the budget; the result is `result()`."""

    def __init__(
        self,
        t: Target,
        run: Runner,
        *,
        hints: Hints,
        config: ProgramSearchConfig = ProgramSearchConfig(),
        should_stop: Callable[[], bool] = lambda: False,
        steerer: Steerer | None = None,
        blame: Blamer | None = None,
    ) -> None:
        self.t = t
        self.runner = run
        self.hints = hints
        self.config = config
        self.should_stop = should_stop
        self.steerer = steerer
        self.blame = blame
        self.rng = random.Random(config.seed)
        self.corpus: list[Entry] = []
        self.union: set[str] = set()
        self.points: dict[str, CoveragePoint] = {}
        self.source_lines: Callable[[str], list[str] | None] = source_lines_of(())
        """Source lines of the design's points, as the evaluator's restricted reader gave them."""
        self.weigh: Weigh = len
        """What covered points are worth: their share of the overall score once a run named them."""
        self.trials: list[Trial] = []
        self.failures: list[Failure] = []
        self.avoid: list[Op] = []
        self.tried: set[str] = set()
        self.gains: dict[str, int] = {}
        self.best: SimResult | None = None
        self.best_entry: Entry | None = None
        self.openings: list[tuple[str, Program]] | None = None
        self.witnesses: list[Entry] = []
        """The first program of each protocol rule the design broke (kept for the finding)."""
        gens = moves.generators_for(t)
        self.bandit = _Bandit(
            [*MOVES[:1], *(f"extend:{g}" for g in gens), "mutate", "splice", "fresh"]
        )

    # -- bookkeeping ------------------------------------------------------------------------

    @property
    def total(self) -> int:
        return len(self.points)

    def complete(self) -> bool:
        return self.total > 0 and len(self.union) >= self.total

    def holes(self) -> tuple[UncoveredPoint, ...]:
        """The points no kept program covers yet, with their source text."""
        missing = [p for key, p in self.points.items() if key not in self.union]
        # The text comes from the first run's uncovered points, which the evaluator read through
        # its restricted reader: a file name in a coverage.dat is never opened here.
        return uncovered(CoverageReport(tuple(missing)), read_source=self.source_lines)

    def _note(self, label: str, gained: int, kept: bool, status: Status) -> None:
        """Append one simulator call to the trial record."""
        self.trials.append(
            Trial(len(self.trials), label, len(self.union), gained, kept, status.value)
        )

    def _record(
        self, label: str, result: SimResult, program: Program, parent: Entry | None
    ) -> int:
        """Judge one run; returns the points it added."""
        if result.status != Status.OK or result.report is None:
            self._note(label, 0, False, result.status)
            return 0
        if not self.points:
            self.points = {p.key: p for p in result.report.points}
            self.source_lines = source_lines_of(result.uncovered)
            self.weigh = weigher(score_weights(result.report.points))
        keys = covered_keys(result)
        # best_entry holds the best run's keys: no need to recount them on every trial
        if self.best_entry is None or self.weigh(keys) > self.weigh(self.best_entry.covered):
            self.best = result
            self.best_entry = Entry(program, keys, label, len(self.trials))
        gained = len(keys - self.union)
        kept = False
        for f in parse_findings(result.log_tail):
            rule = finding_key(f)
            # One witness per rule, one rule per witness program (its run shows the others too).
            if len(self.witnesses) < MAX_WITNESSES and all(w.finding != rule and w.program != program
                                                           for w in self.witnesses):
                self.witnesses.append(Entry(program, keys, label, len(self.trials), finding=rule))
                logger.debug("trial %d (%s): finding %s", len(self.trials), label, rule)
        if gained > 0:
            self.corpus.append(Entry(program, keys, label, len(self.trials)))
            self.union |= keys
            kept = True
        elif (
            parent is not None
            and keys >= parent.covered
            and len(program) < len(parent.program)
        ):
            self.corpus[self.corpus.index(parent)] = replace(
                parent, program=program, covered=keys
            )
            kept = True
        self._note(label, gained, kept, result.status)
        if gained > 0:
            self.gains[label] = self.gains.get(label, 0) + gained
            if self.steerer is not None:
                self.hints = self.steerer(self.hints, self.holes())
            logger.debug(
                "trial %d (%s) +%d -> %d/%d",
                len(self.trials) - 1,
                label,
                gained,
                len(self.union),
                self.total,
            )
        return gained

    def _stop(self) -> bool:
        if (
            self.config.max_trials is not None
            and len(self.trials) >= self.config.max_trials
        ):
            return True
        return self.should_stop() or self.complete()

    # -- candidates -------------------------------------------------------------------------

    def _parent(self) -> Entry | None:
        if not self.corpus:
            return None
        if self.rng.random() < 0.5:
            return max(self.corpus, key=lambda e: (len(e.covered), -e.trial))
        return self.rng.choice(self.corpus)

    def _fresh(self) -> Program:
        if self.rng.random() < 0.4:
            # A scenario again, with new seeds and values.
            return self.rng.choice(scenarios.scenarios(self.rng, self.t, self.hints))[1]
        gens = moves.generators_for(self.t)
        ops: list[Op] = [op("reset")]
        for _ in range(self.rng.randint(1, 3)):
            gen = self.rng.choice(gens)
            ops += moves.GENERATORS[gen][0](self.rng, self.t, self.hints)
        return moves.trim(self.t, Program(tuple(ops)))

    def _candidate(self) -> tuple[str, Program, Entry | None]:
        cfg = self.config
        if cfg.strategy == "random":
            return self._random_candidate()
        if self.openings is None:
            self.openings = scenarios.scenarios(self.rng, self.t, self.hints)
        if self.openings:
            name, program = self.openings.pop(0)
            return f"scenario {name}", program, None
        arm = self.bandit.pick(self.rng)
        parent = self._parent()
        if parent is None or arm == "fresh":
            return "fresh", self._fresh(), None
        if arm.startswith("extend"):
            gen = (
                arm.split(":", 1)[1]
                if ":" in arm
                else self.rng.choice(moves.generators_for(self.t))
            )
            return (
                f"extend:{gen}",
                moves.extend(self.rng, self.t, self.hints, parent.program, gen),
                parent,
            )
        if arm == "mutate":
            return (
                arm,
                edits.mutate(self.rng, self.t, self.hints, parent.program),
                parent,
            )
        other = self.rng.choice(self.corpus)
        return (
            arm,
            edits.splice(self.rng, self.t, parent.program, other.program),
            parent,
        )

    def _random_candidate(self) -> tuple[str, Program, Entry | None]:
        """Uniform random: no palettes, no holds, resets drawn like data unless `reset_first`."""
        cfg = self.config
        resets = 0 if cfg.reset_first else 500
        head = (op("reset"),) if cfg.reset_first else ()
        if not cfg.accumulate or not self.corpus:
            steps = PLAIN_STEPS if not cfg.accumulate else GUIDED_STEPS
            burst = op(
                "random", steps, moves.seed(self.rng), pal=0, keep=0, resets=resets
            )
            return (
                ("plain uniform random" if not cfg.accumulate else "uniform random"),
                Program((*head, burst)),
                None,
            )
        parent = max(self.corpus, key=lambda e: len(e.covered))
        burst = op(
            "random", GUIDED_STEPS, moves.seed(self.rng), pal=0, keep=0, resets=resets
        )
        return (
            "uniform random",
            moves.trim(self.t, Program((*parent.program.ops, burst))),
            None,
        )

    # -- the loop ---------------------------------------------------------------------------

    def continue_from(self, programs: Sequence[Program]) -> None:
        """Run the chapters of a testbench found before (one call each) and keep what they cover.

        A refinement does not open with the scenarios again: the step that wrote this
        testbench played them, and its kept programs are the better parents now.
        """
        if programs:
            self.openings = []
        for program in programs:
            if self._stop():
                return
            self.tried.add(format_program(program))
            self._record(
                "continue from the current testbench",
                self.runner(program),
                program,
                None,
            )

    def run(self) -> None:
        """Trial after trial until the budget, the target or a full coverage."""
        while not self._stop():
            label, program, parent = self._candidate()
            if self.config.strategy != "random":
                program = edits.with_avoid(program, self.avoid)
            text = format_program(program)
            for _ in range(8):  # never the same candidate twice
                if text not in self.tried:
                    break
                label, program, parent = self._candidate()
                program = (
                    edits.with_avoid(program, self.avoid)
                    if self.config.strategy != "random"
                    else program
                )
                text = format_program(program)
            self.tried.add(text)
            result = self.runner(program)
            gained = self._record(label, result, program, parent)
            arm = label if label in self.bandit.weights else label.split(":", 1)[0]
            if arm in self.bandit.weights:
                self.bandit.update(arm, gained)
            if result.status == Status.RUNTIME_ERROR and not self._stop():
                self._learn(result, program, parent, label)

    def play(self, label: str, program: Program) -> int:
        """Run one given program and judge it like a candidate; returns the points it added."""
        self.tried.add(format_program(program))
        return self._record(label, self.runner(program), program, None)

    def _learn(
        self, result: SimResult, program: Program, parent: Entry | None, label: str
    ) -> None:
        """A failed run: remember what was in force, keep the inputs quiet, try the legal prefix.

        A failure no check on the design's state explains (DIDNOTCONVERGE, a `$fatal` under
        a condition on inputs) becomes `avoid` rules; one that also depends on state (a FIFO
        popped while empty) quiets the inputs it names instead: avoiding `pop=1` would
        starve the design.
        """
        blamed, stateless = self.blame(result) if self.blame is not None else ((), True)
        blamed = tuple(blamed)
        newly_quiet = [n for n in blamed if n not in self.hints.quiet]
        if blamed:
            self.hints = replace(
                self.hints, quiet=tuple(dict.fromkeys([*self.hints.quiet, *blamed]))
            )
        if (
            newly_quiet
            and not stateless
            and label.startswith("scenario ")
            and self.openings is not None
        ):
            # One check on the design's state (pop on an empty FIFO) must not end every
            # opening at its first steps: the failed scenario and those still to play are
            # drawn again with the inputs it names held low.
            name = label.removeprefix("scenario ").removesuffix(" (quiet)")
            pending = {n for n, _ in self.openings} | {name}
            self.openings = [
                (f"{n} (quiet)" if n == name else n, p)
                for n, p in scenarios.scenarios(self.rng, self.t, self.hints)
                if n in pending
            ]
        failure = analyse_failure(self.t, program, result, blamed)
        self.failures.append(failure)
        if self.config.strategy == "random":
            return
        if stateless or not blamed:
            for rule in failure.avoid:
                if rule not in self.avoid and len(self.avoid) < MAX_AVOID:
                    self.avoid.append(rule)
        if failure.op_index is not None and (failure.op_index > 1 or failure.step):
            ops = list(program.ops[: failure.op_index])
            failing = program.ops[failure.op_index]
            if failure.step and failing.name == "random":
                ops.append(
                    failing.with_arg("cycles", failure.step)
                )  # the steps before the failing one
            if blamed and not stateless:
                # The prefix ends quiet: kept as a parent, it must not hand its children the
                # very inputs (pop=1 on an empty FIFO) that failed it at their first step.
                ops.append(assigns("set", dict.fromkeys(blamed, 0)))
            prefix = edits.with_avoid(Program(tuple(ops)), self.avoid)
            text = format_program(prefix)
            if text not in self.tried:
                self.tried.add(text)
                self._record(
                    f"{label} (legal prefix)", self.runner(prefix), prefix, parent
                )

    def shrink(self, should_stop: Callable[[], bool]) -> int:
        """Drop chunks of operations from the kept programs while each keeps the points only it covers.

        Delta debugging over the set cover, longest programs first; every try is one run. The
        union of covered points never shrinks. Returns the operations removed.
        """
        removed = 0
        chosen = list(set_cover(self.corpus, self.weigh))
        for entry in sorted(chosen, key=lambda e: -len(e.program)):
            others = frozenset().union(*(e.covered for e in chosen if e is not entry))
            need = entry.covered - others
            ops = list(entry.program.ops)
            covered = entry.covered
            chunk = max(1, (len(ops) - 1) // 2)
            while chunk >= 1 and len(ops) > 1:
                at = len(ops) - chunk
                while at >= 1:
                    if should_stop():
                        return removed + self._replace(entry, ops, covered, chosen)
                    trial = Program(tuple(ops[:at] + ops[at + chunk :]))
                    text = format_program(trial)
                    if text not in self.tried:
                        self.tried.add(text)
                        res = self.runner(trial)
                        keys = (
                            covered_keys(res)
                            if res.status == Status.OK
                            else frozenset()
                        )
                        kept = res.status == Status.OK and keys >= need
                        self._note("shrink", 0, kept, res.status)
                        if kept:
                            ops, covered = list(trial.ops), keys
                            removed += chunk
                    at -= chunk
                chunk //= 2
            removed += self._replace(entry, ops, covered, chosen)
        return removed

    def _replace(
        self, entry: Entry, ops: list[Op], covered: frozenset[str], chosen: list[Entry]
    ) -> int:
        """Put a shrunk program in place of `entry` (in the corpus and the chosen list)."""
        if len(ops) == len(entry.program.ops):
            return 0
        new = replace(entry, program=Program(tuple(ops)), covered=covered)
        self.corpus[self.corpus.index(entry)] = new
        chosen[chosen.index(entry)] = new
        return 0

    def assemble(
        self, entries: Sequence[Entry], should_stop: Callable[[int], bool]
    ) -> tuple[Program, tuple[tuple[int, Entry], ...], SimResult | None]:
        """Chain the chosen programs into one (`chain.assemble`); every run is a trial of this search.

        Programs past the cycle cap (the closing scenarios) go at the chain's end.
        """
        return assemble(self.runner, self.weigh, self._note, entries, should_stop,
                        closes=lambda e: not moves.fits(self.t, e.program))

    def result(self) -> ProgramSearchResult:
        """The set cover of the corpus and the search's record."""
        if self.config.strategy == "random" and not self.config.accumulate:
            # Plain random keeps its best single run, like N seeds of one random testbench.
            entries: tuple[Entry, ...] = (
                (self.best_entry,) if self.best_entry is not None else ()
            )
            keys = self.best_entry.covered if self.best_entry is not None else frozenset()
        else:
            cover = set_cover(self.corpus, self.weigh)
            extra = [w for w in self.witnesses if all(w.program != e.program for e in cover)]
            entries = tuple(sorted((*cover, *extra), key=lambda e: e.trial))
            keys = frozenset(self.union)
        return ProgramSearchResult(
            entries,
            keys,
            self.total,
            tuple(self.trials),
            tuple(self.failures),
            tuple(self.avoid),
            dict(self.gains),
            self.best,
        )


def search_programs(
    t: Target,
    run: Runner,
    *,
    hints: Hints,
    config: ProgramSearchConfig = ProgramSearchConfig(),
    should_stop: Callable[[], bool] = lambda: False,
    steerer: Steerer | None = None,
    blame: Blamer | None = None,
    initial: Sequence[Program] = (),
) -> ProgramSearchResult:
    """Search programs for `t` until `should_stop()`, `max_trials` or 100 %; the kept programs."""
    s = ProgramSearch(
        t,
        run,
        hints=hints,
        config=config,
        should_stop=should_stop,
        steerer=steerer,
        blame=blame,
    )
    if initial and config.strategy != "random":
        s.continue_from(initial)
    s.run()
    return s.result()
