"""Pure aggregation of the mutation bench: means, head-to-head counts, costs, the table."""

from __future__ import annotations

from typing import Any

from agent.heuristic.mutation_bench import (
    SOURCES,
    combine,
    markdown_table,
    rescore,
    summarize,
)


def _row(name: str, scores: dict[str, float | None], cost: float = 1.0) -> dict[str, Any]:
    return {"name": name, "found": 10, "mutants": 10, "rejected": 0, "equivalent": [9], "prepare_s": cost,
            "mutant_build_s": cost, "wall_s": 3 * cost,
            "sources": {s: {"score": scores.get(s), "run_s": cost} for s in SOURCES}}


ROWS = [
    _row("a", {"heuristic": 80.0, "heuristic+mutation": 100.0, "random": 60.0, "human": 90.0}),
    _row("b", {"heuristic": 70.0, "heuristic+mutation": 80.0, "random": 75.0, "human": 85.0}, cost=2.0),
    _row("c", {"heuristic": 50.0, "heuristic+mutation": 60.0, "random": 40.0, "human": None}, cost=4.0),
    {"name": "d", "error": "cannot parse", "sources": {}},
]


def test_summarize_counts_against_human_and_random() -> None:
    s = summarize(ROWS)
    assert s["designs"] == 4
    assert s["scored"] == 3
    assert s["with_human"] == 2
    assert s["mean"]["heuristic+mutation"] == 80.0
    assert s["mean_on_human_designs"]["human"] == 87.5
    assert s["heuristic+mutation_ge_human"] == 1
    assert s["heuristic_ge_human"] == 0
    assert s["heuristic+mutation_minus_random"] == round((40 + 5 + 20) / 3, 2)
    # analysis cost = prepare + mutant build + every source's runs: 6, 12, 24 s
    assert s["analysis_s"] == {"median": 12.0, "max": 24.0}
    assert s["mutants"]["equivalent"] == 3


def test_markdown_table_has_a_row_per_design() -> None:
    table = markdown_table(ROWS, summarize(ROWS))
    assert "| a | 10 | 1 | 80.0 | 100.0 | 60.0 | 90.0 |" in table
    assert "| c | 10 | 1 | 50.0 | 60.0 | 40.0 | - |" in table
    assert "| d | error: cannot parse |" in table


def _full_row(survived: dict[str, list[int]]) -> dict[str, Any]:
    return {"name": "x", "found": 4, "mutants": 4, "rejected": 0, "equivalent": [], "prepare_s": 0.0,
            "mutant_build_s": 0.0, "wall_s": 0.0,
            "mutant_list": [{"id": i, "kind": "operator", "line": i, "description": f"m{i}"} for i in (1, 2, 3, 4)],
            "sources": {s: ({"score": 0.0, "survived": survived[s]} if s in survived else {"score": None})
                        for s in SOURCES}}


def test_combine_rescores_equivalence_across_runs() -> None:
    first = _full_row({"heuristic": [3, 4], "random": [2, 3, 4]})
    second = _full_row({"human": [4]})
    (row,) = combine([[first], [second]])
    # Only mutant 4 survives every source: possibly equivalent, out of every denominator.
    assert row["equivalent"] == [4]
    assert row["sources"]["heuristic"]["score"] == round(100 * 2 / 3, 2)
    assert row["sources"]["human"]["score"] == 100.0
    assert row["sources"]["random"]["killed"] == 1
    assert rescore(first)["equivalent"] == [3, 4]
