"""The engine on a design whose datapath reads a table written through a write port (needs Verilator)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent.heuristic.engine import run_engine
from agent.policy import Budget
from sim.suite import load_design
from sim.types import Status

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.simulator_required


def test_table_written_then_pipeline_streamed_reaches_95_percent() -> None:
    design = load_design(REPO / "examples" / "recip_pipeline")
    tb, rep = run_engine(design, strategy="heuristic", budget=Budget(40, time.monotonic() + 300), seed=0)
    assert rep.final is not None
    assert rep.final.status == Status.OK
    assert rep.final.coverage is not None
    assert rep.reproduced
    assert rep.final.coverage.overall >= 95.0, rep.summary()
    # The testbench loads the table through its write port (a fill call) before streaming.
    assert "_fill(" in tb
    assert rep.sim_calls <= 40
    _tb, rnd = run_engine(design, strategy="random", budget=Budget(40, time.monotonic() + 300), seed=0)
    assert rnd.final is not None
    assert rnd.final.coverage is not None
    assert rep.final.coverage.overall > rnd.final.coverage.overall + 5.0, rnd.summary()
