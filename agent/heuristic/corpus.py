"""What the program search keeps: trials, kept programs, the set cover, and the chained program.

Pure data and functions; `program_search` fills them, `engine` renders and reruns them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from math import prod

from agent.heuristic.blame import Failure
from agent.program.ops import Op, Program, op
from sim.run.coverage import CoveragePoint
from sim.types import METRICS, SimResult

Weigh = Callable[[frozenset[str]], int]
"""What a set of covered point keys is worth (`len` counts points alike)."""


@dataclass(frozen=True)
class Trial:
    """What one simulator call did."""

    index: int
    """0-based trial number."""
    label: str
    """The move that made the candidate."""
    covered: int
    """Points covered by all kept programs after the trial."""
    gained: int
    """New points the candidate added (0 when not kept)."""
    kept: bool
    """True when the candidate joined the corpus (or replaced its parent)."""
    status: str = "ok"
    """The run's status."""


@dataclass(frozen=True)
class Entry:
    """A kept program and what it covers on its own."""

    program: Program
    """The program (starts with a reset)."""
    covered: frozenset[str]
    """Keys of the points it covers."""
    label: str
    """The move that found it."""
    trial: int
    """The trial that found it (final programs run in this order)."""
    finding: str = ""
    """The protocol rule the design broke in its run (`interface port rule`), when it was kept as
    that finding's witness rather than for its points ('' for a program kept for its points)."""


@dataclass(frozen=True)
class ProgramSearchResult:
    """The kept programs and how the search got there."""

    entries: tuple[Entry, ...]
    """The set cover of the corpus, in the order found."""
    keys: frozenset[str]
    """The points the entries cover together (the union the search saw, or the assembled run's)."""
    total: int
    """Points of the design (0 when no run gave coverage)."""
    trials: tuple[Trial, ...] = ()
    """Every trial, in order."""
    failures: tuple[Failure, ...] = ()
    """Runs that failed, with what was in force."""
    avoid: tuple[Op, ...] = ()
    """The `avoid` rules learned from failures."""
    move_gains: dict[str, int] = field(default_factory=dict)
    """Move -> points it added."""
    best: SimResult | None = None
    """The best single run (what plain random keeps; the first kept run otherwise)."""

    @property
    def covered(self) -> int:
        """How many points the entries cover together."""
        return len(self.keys)

    @property
    def program(self) -> Program:
        """The final program: the kept programs one after another, the learned rules once."""
        return chained(self.entries)

    @property
    def sim_calls(self) -> int:
        """Simulator calls made."""
        return len(self.trials)


def covered_keys(result: SimResult) -> frozenset[str]:
    """Keys of the DUT points a run covered."""
    if result.report is None:
        return frozenset()
    return frozenset(p.key for p in result.report.points if p.count > 0)


def score_weights(points: Iterable[CoveragePoint]) -> dict[str, int]:
    """Point key -> weight, so that a set's total weight follows the overall score it earns.

    The overall score is the mean of the metrics' percentages, so one point weighs one over the
    points of its metric: on a UART with 238 lines and 2,620 toggles a line is worth eleven
    toggles, and picking programs by raw point counts trades lines for toggles. Integers (the
    product of the metric sizes over its own size) keep sums exact in any order.
    """
    points = list(points)
    sizes = Counter(p.kind for p in points if p.kind in METRICS)
    scale = prod(sizes.values())
    return {p.key: scale // sizes[p.kind] for p in points if p.kind in sizes}


def weigher(weights: dict[str, int]) -> Weigh:
    """`Weigh` over `weights` (keys it does not know weigh nothing)."""

    def weigh(keys: frozenset[str]) -> int:
        return sum(weights.get(k, 0) for k in keys)

    return weigh


def set_cover(entries: Sequence[Entry], weigh: Weigh = len) -> tuple[Entry, ...]:
    """The entries (greedy, most weight first) that cover every point any entry covers, in the order found."""
    wanted = (
        frozenset().union(*(e.covered for e in entries)) if entries else frozenset()
    )
    chosen: list[Entry] = []
    got: set[str] = set()
    while got < wanted:
        best = max(entries, key=lambda e: (weigh(e.covered - got), len(e.covered - got), -e.trial))
        if not best.covered - got:
            break
        chosen.append(best)
        got |= best.covered
    return tuple(sorted(chosen, key=lambda e: e.trial))


class CoverSize:
    """`len(set_cover(entries, weigh))`, computed again only when the entries or `weigh` change.

    The engine asks before every trial how many calls chaining the cover will take; on a design
    with hundreds of thousands of points (axi_dma) the greedy cover over the kept programs took
    seconds per trial and the search spent most of its time there.
    """

    def __init__(self) -> None:
        self._key: tuple[tuple[Entry, ...], Weigh] | None = None
        self._size = 0

    def __call__(self, entries: Sequence[Entry], weigh: Weigh = len) -> int:
        key = (tuple(entries), weigh)
        if key != self._key:  # entries compare by identity first: cheap while nothing changed
            self._key, self._size = key, len(set_cover(entries, weigh))
        return self._size


def chain_starts(entries: Sequence[Entry]) -> list[int]:
    """Index of each program's first operation in `chained(entries)`."""
    rules = len(
        dict.fromkeys(o for e in entries for o in e.program.ops if o.name == "avoid")
    )
    out, at = [], 0
    for k, entry in enumerate(entries):
        out.append(at)
        at += sum(1 for o in entry.program.ops if o.name != "avoid") + (
            rules if k == 0 else 0
        )
    return out


def chained(entries: Sequence[Entry]) -> Program:
    """Programs one after another, every learned rule once, right after the first reset."""
    rules = list(
        dict.fromkeys(o for e in entries for o in e.program.ops if o.name == "avoid")
    )
    ops: list[Op] = []
    for k, entry in enumerate(entries):
        body = [o for o in entry.program.ops if o.name != "avoid"]
        if k == 0 and body:
            body = [body[0], *rules, *body[1:]]
        ops += body
    return Program(tuple(ops))


def chapters(program: Program) -> tuple[Program, ...]:
    """A final program split back into the programs it was made of (each begins at a reset)."""
    out: list[list[Op]] = []
    avoid = [o for o in program.ops if o.name == "avoid"]
    for o in program.ops:
        if o.name == "reset" or not out:
            out.append([o, *avoid] if o.name == "reset" else [op("reset"), *avoid, o])
        elif o.name != "avoid":
            out[-1].append(o)
    return tuple(Program(tuple(ops)) for ops in out)
