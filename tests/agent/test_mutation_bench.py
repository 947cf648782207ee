"""Pure aggregation of the mutation bench: means, head-to-head counts, costs, the table."""

from __future__ import annotations

from typing import Any

from agent.mutation_bench import SOURCES, markdown_table, summarize


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
