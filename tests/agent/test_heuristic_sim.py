"""The heuristic engine on real public designs, with a small budget (needs Verilator)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent.heuristic.engine import HeuristicPolicy, RandomPolicy, run_engine
from agent.heuristic.search import covered_points
from agent.policy import Budget, State, get_policy
from sim.suite import load_design
from sim.types import Status

SUITE = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public"


pytestmark = [
    pytest.mark.simulator_required,
    pytest.mark.skipif(not SUITE.is_dir(), reason="public benchmark suite not present"),
]


@pytest.mark.parametrize("name", ["cvdp__fixed_priority_arbiter", "cvdp__spi_fsm"])
def test_heuristic_beats_random_and_reproduces(name: str) -> None:
    design = load_design(SUITE / name)
    budget = Budget(25, time.monotonic() + 240)
    tb, rep = run_engine(design, strategy="heuristic", budget=budget, seed=0)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    # The standalone testbench reproduces what the harness trials covered.
    assert rep.reproduced
    assert rep.search is not None
    assert covered_points(rep.final) == covered_points(rep.search.result)
    assert "$fopen" not in tb
    assert f"{design.top} {design.dut_instance} (" in tb
    assert budget.sim_calls >= 0
    assert rep.sim_calls <= 25
    _rtb, rnd = run_engine(design, strategy="random", budget=Budget(25, time.monotonic() + 240), seed=0)
    assert rnd.final is not None
    assert rep.final.overall > rnd.final.overall


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


def test_assertion_failures_are_cut_to_a_legal_prefix() -> None:
    # cc_fifo asserts on pop-when-empty / push-when-full: the kept stimulus must stay legal.
    design = load_design(SUITE / "common_cells__cc_fifo")
    _tb, rep = run_engine(design, strategy="heuristic", budget=Budget(30, time.monotonic() + 240), seed=0)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert rep.final.overall > 70.0
