"""Refinement pairs from the engine's own search: (a program and its holes -> a child that covers some).

The search runs hundreds of programs; most are a kept program extended or mutated at its end.
Every such child that covers points its parent missed is an LLM4Cov transition for free: the
state is the parent program with its observation, the action the child. Parents are found
by their operations (the earlier passing program the child keeps all but at most the last
operation of, the longest such), so the pairs need nothing from the search but the programs
it ran and what each covered, in order.

States are weighted by their holes: per run, parents with the most uncovered points come
first (worst-state prioritized), one pair per distinct state (parents covering the same
points are one), the child with the largest gain. Targets are
minimised before they become records (`shortest_covering_prefix`), and a target longer than
the reply cap is dropped, so the student learns replies that end before the cap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

EPS = 1e-6
"""Tolerance for comparing percentages."""


@dataclass(frozen=True)
class Visit:
    """One program the search ran, and what it covered."""

    index: int
    """Position in the search's run order."""
    ops: tuple[str, ...]
    """The program's operations, one text line each (its canonical form)."""
    keys: frozenset[str]
    """Coverage points it covered (empty when the run failed)."""
    overall: float
    """Overall coverage in percent (0 when the run failed)."""
    passing: bool
    """The run ended ok with coverage."""


def common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """Operations two programs share from their start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def parent_of(child: Visit, earlier: Sequence[Visit]) -> Visit | None:
    """The program `child` grew from: an earlier passing one whose operations it keeps but for the last.

    A parent has more than one operation (a lone `reset` is no state worth teaching); the
    longest shared start wins, then the later run.
    """
    best: tuple[int, int] | None = None
    found: Visit | None = None
    for v in earlier:
        if not v.passing or len(v.ops) < 2 or v.ops == child.ops:
            continue
        shared = common_prefix(v.ops, child.ops)
        if shared >= len(v.ops) - 1 and (best is None or (shared, v.index) > best):
            best, found = (shared, v.index), v
    return found


@dataclass(frozen=True)
class Pair:
    """A parent state and the child that covers some of its holes."""

    parent: Visit
    """The state's program."""
    child: Visit
    """The program that answers it."""

    @property
    def gain(self) -> float:
        """Overall coverage points the child adds."""
        return self.child.overall - self.parent.overall

    @property
    def holes_closed(self) -> int:
        """Points the child covers that the parent missed."""
        return len(self.child.keys - self.parent.keys)


def search_pairs(visits: Sequence[Visit], most: int = 4, min_gain: float = 1.0) -> list[Pair]:
    """Up to `most` pairs, one per parent state, parents with the most holes (lowest coverage) first.

    Parents that cover the same points count as one state; its pair is the child that gains
    most (the shorter on a tie).

    A pair needs a passing child that closes at least one of its parent's holes, loses none of
    its parent's points, and gains at least `min_gain` overall points.
    """
    best: dict[frozenset[str], Pair] = {}
    for k, child in enumerate(visits):
        if not child.passing:
            continue
        parent = parent_of(child, visits[:k])
        if parent is None or not parent.keys <= child.keys:
            continue
        pair = Pair(parent, child)
        if pair.holes_closed == 0 or pair.gain < min_gain - EPS:
            continue
        # Parents that cover the same points are one state (their prompts differ only in the program).
        held = best.get(parent.keys)
        if held is None or (pair.gain, -len(child.ops)) > (held.gain, -len(held.child.ops)):
            best[parent.keys] = pair
    ranked = sorted(best.values(), key=lambda p: (p.parent.overall, p.parent.index))
    return ranked[:most]


def shortest_covering_prefix(ops: Sequence[str], start: int, covers: Callable[[int], bool]) -> int:
    """The fewest operations (at least `start`) whose prefix `covers`, by bisection.

    `covers(n)` runs the first n operations; a prefix's run is the start of the whole run, so
    what it covers grows with n and bisection finds the shortest (about log2 of the span runs).
    `covers(len(ops))` is assumed true.
    """
    lo, hi = max(1, start), len(ops)
    while lo < hi:
        mid = (lo + hi) // 2
        if covers(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi
