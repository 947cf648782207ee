from __future__ import annotations

import pytest

from sim.types import CoverageSummary, MetricSummary, SimResult, Status
from training.data.curate import Candidate, Obs, Reason, curate, judge, reason_counts

OK60 = Obs("ok", 60.0, {"line": 80.0, "toggle": 40.0})


def cand(new: Obs | None, prev: Obs | None = OK60, key: str = "k", design: str = "d", tb: str = "module t; endmodule") -> Candidate:
    return Candidate(design, key, prev, new, (), "reply", tb)


@pytest.mark.parametrize(("c", "reason"), [
    (cand(None), Reason.NO_TESTBENCH),
    (cand(Obs("ok", 90.0, {"line": 90.0}), tb=" "), Reason.NO_TESTBENCH),
    (cand(Obs("compile_error")), Reason.NOT_COMPILED),
    (cand(Obs("rejected")), Reason.NOT_COMPILED),
    (cand(Obs("runtime_error")), Reason.RUN_FAILED),
    (cand(Obs("timeout")), Reason.RUN_FAILED),
    (cand(Obs("ok", 60.5, {"line": 81.0, "toggle": 40.0})), Reason.NO_GAIN),
    (cand(Obs("ok", 61.0, {"line": 82.0, "toggle": 40.0})), Reason.KEPT),
    (cand(Obs("ok", 70.0, {"line": 100.0, "toggle": 39.0})), Reason.METRIC_DROP),
    (cand(Obs("ok", 70.0, {"line": 100.0})), Reason.METRIC_DROP),
], ids=["no-tb", "blank-tb", "compile", "rejected", "runtime", "timeout", "gain<1", "gain=1", "metric-drop",
        "metric-missing"])
def test_rules_from_a_passing_state(c: Candidate, reason: Reason) -> None:
    assert judge(c, min_gain=1.0, floor=None) is reason


def test_fixing_a_failure_skips_gain_and_drop_rules() -> None:
    fix = cand(Obs("ok", 20.0, {"line": 20.0}), prev=Obs("compile_error"))
    assert judge(fix, floor=None) is Reason.KEPT
    assert judge(cand(Obs("ok", 20.0, {"line": 20.0}), prev=Obs("timeout")), floor=None) is Reason.KEPT
    # ...but it still has to cover something
    assert judge(cand(Obs("ok", 0.0, {"line": 0.0}), prev=Obs("timeout")), floor=None) is Reason.NO_GAIN


def test_initial_generation_counts_from_zero() -> None:
    assert judge(cand(Obs("ok", 55.0, {"line": 55.0}), prev=None)) is Reason.KEPT
    assert cand(Obs("ok", 55.0), prev=None).gain == 55.0


def test_absolute_floor() -> None:
    c = cand(Obs("ok", 45.0, {"line": 45.0}), prev=None)
    assert judge(c, floor=50.0) is Reason.BELOW_FLOOR
    assert judge(c, floor=None) is Reason.KEPT
    assert judge(c, floor=45.0) is Reason.KEPT


def test_one_best_per_design() -> None:
    cs = [
        cand(Obs("ok", 70.0, {"line": 90.0, "toggle": 50.0}), key="a"),
        cand(Obs("ok", 80.0, {"line": 90.0, "toggle": 70.0}), key="b", tb="module t; endmodule // longer"),
        cand(Obs("ok", 80.0, {"line": 90.0, "toggle": 70.0}), key="c"),  # same score, shorter testbench
        cand(Obs("compile_error"), key="e"),
        cand(Obs("ok", 65.0, {"line": 80.0, "toggle": 50.0}), key="x", design="other"),
    ]
    kept, reasons = curate(cs, floor=50.0)
    assert [c.key for c in kept] == ["c", "x"]
    assert reasons == {"a": Reason.NOT_BEST, "b": Reason.NOT_BEST, "c": Reason.KEPT, "e": Reason.NOT_COMPILED,
                       "x": Reason.KEPT}
    counts = reason_counts(reasons)
    assert counts["kept"] == 2
    assert counts["not_best"] == 2
    assert counts["not_compiled"] == 1
    assert counts["below_floor"] == 0  # every reason is listed


def test_obs_from_result_and_json() -> None:
    cov = CoverageSummary({"line": MetricSummary(3, 4), "toggle": MetricSummary(1, 4)})
    obs = Obs.from_result(SimResult(Status.OK, coverage=cov))
    assert obs is not None
    assert obs.passing
    assert obs.overall == 50.0
    assert obs.metrics == {"line": 75.0, "toggle": 25.0}
    no_cov = Obs.from_result(SimResult(Status.OK))
    assert no_cov is not None
    assert not no_cov.passing
    assert Obs.from_result(None) is None
    assert Obs.from_json(obs.to_json()) == obs
    assert Obs.from_json({"status": "compile_error", "overall": None, "metrics": {}}) == Obs("compile_error")
