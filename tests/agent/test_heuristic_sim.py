"""The engine on real public designs, with a small budget (needs Verilator)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent.heuristic.engine import run_engine
from agent.heuristic.final_tb import MAX_TB_LINES
from agent.heuristic.policies import HeuristicPolicy, RandomPolicy
from agent.policy import Budget, State, get_policy
from sim.suite import load_design
from sim.types import Status

SUITE = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public"


pytestmark = [
    pytest.mark.simulator_required,
    pytest.mark.skipif(not SUITE.is_dir(), reason="public benchmark suite not present"),
]


def covered(result: object) -> int:
    cov = getattr(result, "coverage", None)
    return sum(m.covered for m in cov.metrics.values()) if cov is not None else 0


@pytest.mark.parametrize("name", ["cvdp__fixed_priority_arbiter", "cvdp__spi_fsm"])
def test_heuristic_beats_random_and_reproduces(name: str) -> None:
    design = load_design(SUITE / name)
    budget = Budget(25, time.monotonic() + 240)
    tb, rep = run_engine(design, strategy="heuristic", budget=budget, seed=0)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    # The standalone testbench covers exactly what its programs covered in the search.
    assert rep.reproduced, rep.summary()
    assert rep.search is not None
    assert covered(rep.final) == rep.search.covered
    assert "$fopen" not in tb
    assert "bw_random(" in tb
    assert f"{design.top} {design.dut_instance} (" in tb
    assert len(tb.splitlines()) <= MAX_TB_LINES
    assert rep.sim_calls <= 25
    _rtb, rnd = run_engine(design, strategy="random", budget=Budget(25, time.monotonic() + 240), seed=0)
    assert rnd.final is not None
    assert rnd.final.coverage is not None
    assert rep.final.coverage is not None
    assert rep.final.coverage.overall > rnd.final.coverage.overall


def test_policies_from_registry_respect_budget() -> None:
    design = load_design(SUITE / "cvdp__fsm_seq_detector")
    for name, cls in (("heuristic", HeuristicPolicy), ("random", RandomPolicy)):
        policy = get_policy(name, seed=1)
        assert isinstance(policy, cls)
        budget = Budget(12, time.monotonic() + 240)
        prop = policy.propose(State(design), budget)
        assert prop.filename == "tb_fsm_seq_detector.sv"
        assert prop.sim_calls <= 12
        assert budget.sim_calls == 12 - prop.sim_calls
        assert prop.testbench.startswith("// Testbench for fsm_seq_detector")
        assert "engine:" in prop.response


def test_a_refinement_continues_from_the_engines_own_testbench() -> None:
    design = load_design(SUITE / "cvdp__spi_fsm")
    tb, first = run_engine(design, strategy="heuristic", budget=Budget(15, time.monotonic() + 240), seed=0)
    _tb2, second = run_engine(design, strategy="heuristic", budget=Budget(15, time.monotonic() + 240), seed=1,
                              previous=tb)
    assert second.search is not None
    assert second.search.trials[0].label == "continue from the current testbench"
    assert first.final is not None
    assert second.final is not None
    assert covered(second.final) >= covered(first.final)


def test_assertion_failures_teach_the_search() -> None:
    # cc_fifo asserts on pop-when-empty / push-when-full: failed trials are cut to a legal prefix.
    design = load_design(SUITE / "common_cells__cc_fifo")
    _tb, rep = run_engine(design, strategy="heuristic", budget=Budget(30, time.monotonic() + 240), seed=0)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert rep.final.coverage is not None
    assert rep.final.coverage.overall > 70.0
