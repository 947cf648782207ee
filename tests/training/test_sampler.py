from __future__ import annotations

from training.data.sampler import SampledState, select_all, select_states


def st(key: str, overall: float, status: str = "ok", design: str = "d") -> SampledState:
    return SampledState(design, key, f"tb {key}", status, overall if status == "ok" else 0.0)


def keys(states: list[SampledState]) -> list[str]:
    return [s.key for s in states]


def test_picks_one_failing_the_worst_and_a_far_median() -> None:
    states = [st("f1", 0, "compile_error"), st("f2", 0, "timeout"), st("a", 40), st("b", 55), st("c", 70), st("d", 90)]
    picks = select_states(states, seed=0)
    assert len([s for s in picks if not s.passing]) == 1
    assert keys(picks)[1:] == ["a", "c"]  # worst 40; median of 4 (upper) is 70 > 40 + 10


def test_median_dropped_when_within_margin() -> None:
    picks = select_states([st("a", 60), st("b", 65), st("c", 69)], margin=10.0)
    assert keys(picks) == ["a"]
    assert keys(select_states([st("a", 60), st("b", 65), st("c", 69)], margin=4.0)) == ["a", "b"]


def test_median_exactly_margin_above_is_not_kept() -> None:
    assert keys(select_states([st("a", 50), st("b", 60), st("c", 99)], margin=10.0)) == ["a"]


def test_full_coverage_states_are_not_worth_fixing() -> None:
    assert select_states([st("a", 100.0), st("b", 100.0)]) == []
    assert keys(select_states([st("a", 100.0), st("b", 80.0)])) == ["b"]


def test_single_passing_state_is_worst_only() -> None:
    assert keys(select_states([st("a", 30)])) == ["a"]


def test_only_failures_gives_one() -> None:
    picks = select_states([st(f"f{i}", 0, "compile_error") for i in range(5)], seed=3)
    assert len(picks) == 1


def test_seeded_and_order_independent() -> None:
    states = [st(f"f{i}", 0, "runtime_error") for i in range(6)] + [st("a", 20), st("b", 50)]
    first = select_states(states, seed=7)
    assert select_states(list(reversed(states)), seed=7) == first
    seen = {select_states(states, seed=s)[0].key for s in range(20)}
    assert len(seen) > 1  # the seed chooses among the failing states


def test_duplicate_testbenches_count_once() -> None:
    a = SampledState("d", "a", "same", "ok", 40.0)
    b = SampledState("d", "b", "same", "ok", 40.0)
    c = SampledState("d", "c", "other", "ok", 80.0)
    assert keys(select_states([a, b, c])) == ["a", "c"]


def test_select_all_groups_by_design() -> None:
    picks = select_all([st("a", 30, design="x"), st("b", 90, design="y"), st("f", 0, "timeout", design="y")])
    assert set(picks) == {"x", "y"}
    assert keys(picks["x"]) == ["a"]
    assert keys(picks["y"]) == ["f", "b"]
