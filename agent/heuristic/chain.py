"""Chaining a search's kept programs into the final one (`assemble`).

Programs were judged alone, from power-up; the final testbench runs them one after another, so
each is re-simulated in the chain's context and kept only where it still adds points.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from agent.heuristic.corpus import Entry, Weigh, chain_starts, chained, covered_keys
from agent.program.ops import Program
from agent.program.sv_monitors import finding_key, parse_findings
from sim.types import SimResult, Status

logger = logging.getLogger(__name__)


def _rescue_calls(chained_programs: int) -> int:
    """Calls to put a left-out program back into a chain of `chained_programs`.

    A call per halving of the chain (for the place), and one for the whole new chain.
    """
    return max(0, chained_programs - 1).bit_length() + 1


def reserve(programs: int) -> int:
    """Calls `assemble` spends on a chain of `programs` beyond one per program and per closing.

    The program chosen first moved last, twice (before the put-back, and at the end where the
    chain changed), and one put-back (`_rescue_calls`) where there are three programs or more.
    """
    return 2 + (_rescue_calls(programs) if programs > 2 else 0)


def assemble(
    runner: Callable[[Program], SimResult],
    weigh: Weigh,
    note: Callable[[str, int, bool, Status], None],
    entries: Sequence[Entry],
    should_stop: Callable[[int], bool],
    closes: Callable[[Entry], bool] = lambda e: False,
) -> tuple[Program, tuple[tuple[int, Entry], ...], SimResult | None]:
    """Chain the chosen programs into one and keep each only if it adds points *in that context*.

    Programs were judged alone, from power-up; one after another, each starts from its
    own reset but after the previous ones (registers without a reset keep their values:
    a baud divisor written by one program slows the next), so a program can cover less
    there. The program covering most goes first (it keeps its power-up context); each
    next one (the one adding most to the chain's points, none that adds nothing) is tried
    after the chain (one call) and, when that context costs it more
    than half of its new points, before the chain (one more call). The program chosen first
    is also tried at the chain's end (one call). `should_stop(keep)` says whether the calls
    left, less `keep`, are spent. The last kept run is exactly what the final testbench
    covers. Returns the chain, (index of its first operation, entry) per kept program, and
    the last run.

    A program tried and left out that still has points the chain lacks is put back right
    before the first program after which it loses them (halving the chain: `_rescue_calls`),
    kept when the whole new chain covers more; one at a time, most new points first. The
    order of the calls: chain while the calls for what follows are left; the first program
    moved last; put back; chain the programs left (those adding least); put back again; the
    first program moved last again where the chain changed.

    Programs that `closes` (the closing scenarios) come after all that, each tried at the end
    (one call): a long rest leaves what no reset clears (a transmitter busy for 2^27 clocks
    after its break under a huge period) to every program after it.
    """
    chain: list[Entry] = []
    keys: frozenset[str] = frozenset()
    last: SimResult | None = None
    first: Entry | None = None
    tried: set[tuple[int, ...]] = set()
    left = [e for e in entries if not closes(e)]
    closing = [e for e in entries if closes(e)]
    rejected: list[Entry] = []  # tried in the chain and left out

    def grow(keep: int) -> None:
        """Chain the programs left, most new points first, while the calls left exceed `keep`."""
        nonlocal chain, keys, last, first
        while left:
            # Next, the program that adds most to the chain so far (greedy set cover): kept
            # programs overlap, and taking them by size alone spent the calls on near-copies of
            # the first while programs with points of their own waited past the budget.
            entry = max(left, key=lambda e: (weigh(e.covered - keys), weigh(e.covered), len(e.covered), -e.trial))
            if should_stop(keep) and last is not None:
                return
            left.remove(entry)
            if first is None:
                first = entry
            if last is not None and not entry.finding and not weigh(entry.covered - keys):
                continue  # nothing of its own to add: no call
            best: tuple[list[Entry], frozenset[str], SimResult] | None = None
            # A finding's witness goes last and stays when the chain still breaks its rule.
            orders = ([*chain, entry],) if chain and entry.finding else \
                ([*chain, entry], [entry, *chain]) if chain else ([entry],)
            for order in orders:
                if len(order) > 1 and order[0] is entry and (
                    should_stop(keep)
                    or (
                        best is not None
                        and weigh(best[1] - keys) * 2 >= weigh(entry.covered - keys)
                    )
                ):
                    break  # the second order only when the budget allows and it may help
                tried.add(tuple(map(id, order)))
                res = runner(chained(order))
                got = covered_keys(res) if res.status == Status.OK else frozenset()
                # Judged by the score (weights), not the point count: a chain that loses a
                # branch for two toggles is worse.
                better = (
                    res.status == Status.OK
                    and weigh(got) > weigh(keys)
                    and (best is None or weigh(got) > weigh(best[1]))
                ) or (
                    res.status == Status.OK
                    and bool(entry.finding)
                    and weigh(got) >= weigh(keys)
                    and entry.finding in {finding_key(f) for f in parse_findings(res.log_tail)}
                )
                note("assemble", max(0, len(got) - len(keys)), better, res.status)
                logger.debug(
                    "assemble %s %s: chain %d -> %d points",
                    entry.label,
                    "after" if order[-1] is entry else "before",
                    len(keys),
                    len(got),
                )
                if better:
                    best = (order, got, res)
            if best is not None:
                chain, keys, last = best
            else:
                rejected.append(entry)

    def try_whole(order: list[Entry], entry: Entry, what: str) -> None:
        """Run a whole new order of the chain (one call); keep it when it covers more."""
        nonlocal chain, keys, last
        tried.add(tuple(map(id, order)))
        res = runner(chained(order))
        got = covered_keys(res) if res.status == Status.OK else frozenset()
        better = res.status == Status.OK and weigh(got) > weigh(keys)
        note("assemble", max(0, len(got) - len(keys)), better, res.status)
        logger.debug("assemble %s %s: chain %d -> %d points", entry.label, what, len(keys), len(got))
        if better:
            chain, keys, last = order, got, res

    def rescue(keep: int) -> None:
        """Put left-out programs back where the chain no longer spoils them, calls past `keep` allowing."""
        # (`should_stop(k)`: no call is left past k; a put-back needs all of its calls)
        while rejected and len(chain) > 1 and not should_stop(_rescue_calls(len(chain)) - 1 + keep):
            # A program may lose its points to one program of the chain only (a UART's
            # "stimulus with rests" leaves the never-reset transmitter busy, and every setup
            # written after it is ignored): it goes in right before the first program after
            # which it no longer covers its own points, found by halving the chain.
            entry = max(rejected, key=lambda e: (weigh(e.covered - keys), -e.trial))
            rejected.remove(entry)
            new = entry.covered - keys
            if not weigh(new):
                return
            keeps, spoils = 0, len(chain)  # after none it keeps them (judged alone); after all, it did not
            while spoils - keeps > 1:
                mid = (keeps + spoils) // 2
                res = runner(chained([*chain[:mid], entry]))
                got = covered_keys(res) if res.status == Status.OK else frozenset()
                note("assemble", 0, False, res.status)
                if weigh(new & got) * 2 > weigh(new):
                    keeps = mid
                else:
                    spoils = mid
            order = [*chain[:keeps], entry, *chain[keeps:]]
            if tuple(map(id, order)) not in tried:
                try_whole(order, entry, "put back")

    def move_first_last(keep: int) -> None:
        """Try the chain with the program chosen first at its end (one call, past `keep`)."""
        moved = [*(e for e in chain if e is not first), *(e for e in chain if e is first)]
        if chain and moved[-1] is not chain[-1] and tuple(map(id, moved)) not in tried and not should_stop(keep):
            # The program chosen first covers most alone, and may leave what no reset clears (a
            # register with only an initial value, a transmitter still busy at a random baud) to
            # every program after it, which were then judged in that context.
            try_whole(moved, moved[-1], "moved last")

    # The first pass keeps calls back for: the move (one call; it often wins back what a
    # put-back would, for less), one put-back (`rescue`), the move again at the end, and one
    # per closing; the programs that add least wait for what is left.
    extra = reserve(len(left))
    grow(extra + len(closing))
    move_first_last(extra - 1 + len(closing))
    rescue(1 + len(closing))
    grow(1 + len(closing))
    rescue(1 + len(closing))
    move_first_last(len(closing))
    for entry in closing:
        if should_stop(0) and last is not None:
            break
        try_whole([*chain, entry], entry, "at the end")
    return (
        chained(chain),
        tuple(zip(chain_starts(chain), chain, strict=True)),
        last,
    )
