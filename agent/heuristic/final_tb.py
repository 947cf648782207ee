"""The engine's final testbench: its programs rendered with a comment each, fitted to MAX_TB_LINES (pure).

`fit_lines` drops the programs that add least until the testbench (checks included) fits, then
puts back what still fits; `render_final` writes the kept programs as one testbench, each phase
commented with what it added.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agent.heuristic.blame import summarize_failures
from agent.heuristic.corpus import Entry, ProgramSearchResult, Weigh, chain_starts
from agent.program import sv_checks as chk
from agent.program.ops import Program
from agent.program.sv import render_testbench
from agent.program.target import Target
from sim.suite import Design

MAX_TB_LINES = 400
"""A final testbench longer than this gets its programs shrunk (a person reads every line; the
checks issue sets 400 as the most a readable testbench may have)."""


def fit_lines(
    target: Target, result: ProgramSearchResult, design: Design, weigh: Weigh = len
) -> ProgramSearchResult:
    """`result` without the programs that add the least (by `weigh`), until its testbench fits MAX_TB_LINES."""
    entries = list(result.entries)
    while (
        len(entries) > 1
        and tb_lines(target, replace(result, entries=tuple(entries)), design)
        > MAX_TB_LINES
    ):

        def unique(e: Entry) -> tuple[int, int]:
            others = frozenset().union(*(o.covered for o in entries if o is not e))
            return weigh(e.covered - others), len(e.covered - others)

        # A finding's witness goes last: it shows a broken protocol rule, which no point measures.
        entries.remove(min([e for e in entries if not e.finding] or entries, key=lambda e: (unique(e), -len(e.program))))
    # A long program dropped late can leave room for a short one dropped earlier: put back, the
    # most valuable first, every dropped program the testbench still has lines for.
    def adds(e: Entry) -> int:
        return weigh(e.covered - frozenset().union(*(o.covered for o in entries)))

    kept = {id(e) for e in entries}
    for entry in sorted((e for e in result.entries if id(e) not in kept), key=adds, reverse=True):
        trial = [e for e in result.entries if id(e) in kept or e is entry]  # the search's order
        if adds(entry) > 0 and tb_lines(target, replace(result, entries=tuple(trial)), design) <= MAX_TB_LINES:
            entries = trial
            kept.add(id(entry))
    return replace(result, entries=tuple(entries), keys=frozenset().union(*(e.covered for e in entries)))


def tb_lines(target: Target, result: ProgramSearchResult, design: Design) -> int:
    """Lines the final testbench of `result` would have, its checks included."""
    plan = chk.plan(target)
    rows = chk.phase_count(len(result.entries))
    checks = replace(plan, expected=((0,) * len(plan.outputs),) * rows) if plan.outputs else None
    return len(
        render_final(target, result, result.program, "heuristic", design, checks=checks).splitlines()
    )


def render_final(
    target: Target,
    result: ProgramSearchResult,
    program: Program,
    strategy: str,
    design: Design,
    starts: Sequence[int] | None = None,
    checks: chk.Checks | None = None,
) -> str:
    """The testbench of a search: its programs as task calls, a comment per program saying what it added.

    `checks`: compare every output per program with recorded signatures (or record them).
    """
    notes = [
        f"design {design.name}; {len(result.trials)} trials, {len(result.entries)} programs kept, "
        f"covering {result.covered} of {result.total} points together"
    ]
    phases: list[tuple[int, str]] = []
    seen: set[str] = set()
    for k, (at, entry) in enumerate(
        zip(
            starts if starts is not None else chain_starts(result.entries),
            result.entries,
            strict=True,
        )
    ):
        new = len(entry.covered - seen)
        seen |= entry.covered
        why = f"breaks {entry.finding.split(' ', 2)[-1]}" if entry.finding else f"+{new} points"
        phases.append((at, f"program {k + 1} (trial {entry.trial}, {entry.label}): {why}"))
    if result.failures:
        notes += summarize_failures(result.failures)[:3]
    title = (
        "a stimulus program found by the Benchwright engine"
        if strategy == "heuristic"
        else "uniform random stimulus (Benchwright random baseline)"
    )
    return render_testbench(target, program, title=title, notes=notes, phases=phases, checks=checks)
