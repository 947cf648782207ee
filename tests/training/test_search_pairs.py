"""Refinement data from the engine's own search: (program + its holes -> a child covering some of them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.data.search_pairs import (
    Visit,
    parent_of,
    search_pairs,
    shortest_covering_prefix,
)

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT.parent / "shared" / "benchmarks" / "public"
UART_RX = PUBLIC / "forencich__uart_rx"
"""A design the engine covers step by step (traffic_light reaches 99.6 % with its first program)."""


def visit(k: int, ops: str, keys: str, overall: float, passing: bool = True) -> Visit:
    return Visit(k, tuple(ops.split()), frozenset(keys), overall, passing)


def test_a_parent_is_kept_whole_but_for_its_last_operation() -> None:
    a = visit(0, "reset set1 hold", "ab", 20.0)
    b = visit(1, "reset set1 hold rand", "abc", 30.0)       # extends a
    c = visit(2, "reset set1 walk", "abd", 30.0)             # mutates a's last operation
    d = visit(3, "reset corners", "ae", 25.0)                # shares only the reset with a: not a child
    lone = visit(4, "reset", "a", 5.0)
    assert parent_of(b, [a]) == a
    assert parent_of(c, [a, b]) == a
    assert parent_of(d, [a, b, c]) is None
    assert parent_of(visit(5, "reset hold", "ab", 9.0), [lone]) is None  # a lone reset is no state
    e = visit(6, "reset set1 hold rand walk", "abcf", 40.0)
    assert parent_of(e, [a, b, c]) == b                       # the longest shared start
    assert parent_of(e, [visit(1, "reset set1 hold rand", "", 0.0, passing=False)]) is None


def test_pairs_put_the_parents_with_most_holes_first_one_child_each() -> None:
    visits = [
        visit(0, "reset x y", "ab", 20.0),
        visit(1, "reset x z", "abc", 30.0),          # a's child (its last operation changed), +10
        visit(2, "reset x y w", "abcd", 45.0),       # a's child, +25: the one kept for a
        visit(3, "reset x y w v", "abcde", 60.0),    # child of 2 (45 -> 60)
        visit(4, "reset x y w u", "bcdef", 70.0),    # loses `a` of its parent 3: never a pair
        visit(5, "reset x y w v t", "abcdeg", 60.5), # gains less than min_gain
        visit(6, "reset p q", "ab", 10.0),
        visit(7, "reset p q r", "abz", 80.0, passing=False),
        visit(8, "reset p q s", "abq", 30.0),        # 6 covers what 0 does: one state, 0's pair gains more
    ]
    pairs = search_pairs(visits, most=4)
    assert [(p.parent.index, p.child.index) for p in pairs] == [(0, 2), (2, 3)]
    assert pairs[0].holes_closed == 2
    assert pairs[0].gain == 25.0
    assert [(p.parent.index, p.child.index) for p in search_pairs(visits, most=1)] == [(0, 2)]
    assert [(p.parent.index, p.child.index) for p in search_pairs(visits, most=4, min_gain=0.1)] == \
        [(0, 2), (2, 3), (3, 5)]


def test_the_shortest_covering_prefix_by_bisection() -> None:
    ops = [f"op{k}" for k in range(20)]
    asked: list[int] = []

    def covers(n: int) -> bool:
        asked.append(n)
        return n >= 13

    assert shortest_covering_prefix(ops, 5, covers) == 13
    assert len(asked) <= 4
    assert shortest_covering_prefix(ops, 19, lambda n: True) == 19
    assert shortest_covering_prefix(ops, 0, lambda n: n >= 1) == 1


@pytest.mark.simulator_required
@pytest.mark.skipif(not UART_RX.is_dir(), reason="shared/benchmarks/public not present")
def test_search_records_on_a_real_design() -> None:
    from agent.heuristic.engine import make_target
    from agent.llm.program_grammar import program_grammar
    from agent.llm.prompting import PromptLimits
    from sim.analysis.interface import read_interface
    from sim.suite import load_design
    from training.data.programs import ProgramJob, teacher_programs

    job = ProgramJob(str(UART_RX), seed=3, key="s0", sim_calls=24, wall_time_s=300,
                     limits=PromptLimits(max_rtl_chars=1500, max_spec_chars=300), search_pairs=3,
                     prefix_states=False, max_reply_chars=700)
    records = teacher_programs(job)
    assert not [r for r in records if "error" in r], records
    assert not [r for r in records if r["kind"] == "refine"]  # prefix states off
    search = [r for r in records if r["kind"] == "search"]
    assert search, [r["key"] for r in records]
    design = load_design(UART_RX)
    grammar = program_grammar(make_target(design, read_interface(design), "heuristic")[0])
    overalls = [r["state_overall"] for r in search]
    assert overalls == sorted(overalls)  # the worst states first
    for r in search:
        assert r["new"]["overall"] > r["prev"]["overall"]
        assert all(r["new"]["metrics"][m] >= v for m, v in r["prev"]["metrics"].items())
        assert len(r["assistant"]) <= 700
        assert grammar.admits(r["assistant"])
        user = r["messages"][1]["content"]
        assert "This is the current program" in user
        assert r["state_program"].rstrip("\n") in user
        assert "Uncovered points" in user
        assert r["holes"] > 0
        assert r["assistant"] != "```\n" + r["state_program"] + "```"
    json.dumps(records)


def test_search_states_come_first_and_prefixes_only_where_the_search_gave_none() -> None:
    from training.data.programs import select_refine

    def rec(design: str, kind: str, key: str, overall: float) -> dict[str, object]:
        return {"design": design, "key": f"{design}/{key}", "kind": kind, "state_program": key,
                "state_status": "ok", "state_overall": overall}

    raw = [{"design": "a", "key": "a/direct", "kind": "direct"}, rec("a", "refine", "p1", 10.0),
           rec("a", "search", "s1", 60.0), rec("a", "search", "s2", 40.0),
           {"design": "b", "key": "b/direct", "kind": "direct"}, rec("b", "refine", "p2", 30.0)]
    kept, offered = select_refine(raw, seed=0, margin=10.0)
    assert offered == 4
    assert sorted(str(d["key"]) for d in kept) == ["a/direct", "a/s1", "a/s2", "b/direct", "b/p2"]


def test_the_reply_cap_cuts_the_teachers_program_at_a_chapter() -> None:
    import sys

    from agent.llm.program_grammar import program_grammar, reply_text
    from agent.program.text import format_program, parse_program
    from training.data.programs import fit_to_grammar

    sys.path.insert(0, str(ROOT / "tests" / "agent"))
    from test_program_grammar import make_target

    grammar = program_grammar(make_target())
    chapter = "reset\ncorners\nrandom 150 0x2265b1f6\n"
    program = parse_program(chapter * 3)
    whole = len(reply_text(chapter * 3))
    assert fit_to_grammar(program, grammar, max_chars=whole) == program
    two = fit_to_grammar(program, grammar, max_chars=whole - 1)
    assert two is not None
    assert format_program(two) == chapter * 2
    one = fit_to_grammar(program, grammar, max_chars=len(reply_text(chapter)))
    assert one is not None
    assert format_program(one) == chapter
    # no chapter fits the cap: the longest admitted prefix (the caller drops the record)
    assert fit_to_grammar(program, grammar, max_chars=10) == program
