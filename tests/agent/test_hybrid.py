"""`--policy hybrid`: a model's program seeds the engine's corpus; the record says what it brought."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.llm.hybrid import attribute
from sim.run.coverage import CoveragePoint, CoverageReport
from sim.types import SimResult, Status

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "traffic_light"


def run_of(covered: str, total: str = "abcdefgh") -> SimResult:
    points = tuple(CoveragePoint("line", "d.sv", k, 0, "block", "tb.dut", "d", (), 1 if key in covered else 0, key)
                   for k, key in enumerate(total))
    return SimResult(Status.OK, report=CoverageReport(points))


def test_points_are_split_by_where_they_were_reached() -> None:
    state, opening, seed1, seed2, child = ("state",), ("opening",), ("m1",), ("m2",), ("child",)
    ran = [(state, run_of("ab")), (opening, run_of("ag")), (seed1, run_of("abcg")), (seed2, run_of("ad")),
           (child, run_of("abcdef")), (("broken",), SimResult(Status.RUNTIME_ERROR))]
    kept = [("continue", frozenset("ab")), ("seeded program", frozenset("abc")), ("extend", frozenset("abef"))]
    got = attribute(ran, [state], [seed1, seed2], kept, "seeded program")
    assert got.seeded == 2
    assert got.first == frozenset("cd")        # `a`, `b` were the state's, `g` the engine's opening's
    assert got.only == frozenset("c")          # only the kept model program covers `c`
    assert got.engine == frozenset("ef")       # `g` the model reached too, after the opening
    assert got.kept_programs == 1
    assert got.names["c"] == "d.sv:2 [line] block"
    none = attribute(ran[:1], [state], [], [("continue", frozenset("ab"))], "seeded program")
    assert (none.seeded, none.first, none.only, none.engine) == (0, frozenset(), frozenset(), frozenset())
    alone = attribute([(child, run_of("abc"))], [], [], [("extend", frozenset("abc"))], "seeded program")
    assert alone.engine == frozenset("abc")  # no state, no seeds: all the engine's


@pytest.mark.simulator_required
def test_hybrid_run_seeds_the_search_with_the_models_program(tiny_gguf: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")
    from agent.cli import run_main

    out = tmp_path / "out"
    run_main([str(EXAMPLE), "--policy", "hybrid", "--model", str(tiny_gguf), "--max-tokens", "64", "--rounds", "0",
              "--sim-calls", "10", "--threads", "1", "--ctx", "4096", "--json", "--out", str(out)])
    result = json.loads(capsys.readouterr().out)
    assert result["error"] == "", result["error"]
    assert result["status"] == "ok"
    step = json.loads((out / "trajectory.json").read_text())["steps"][0]
    usage = step["usage"]
    assert usage["format"] == "program"             # the model was asked for a program
    assert usage["model_programs"] >= 1             # a grammar-bound reply always parses
    assert usage["engine_trials"] >= usage["model_programs"]
    assert usage["model_points_only"] <= usage["model_points_first"]  # at s_0 the state covers nothing
    assert len(usage["model_points_listed"]) == min(usage["model_points_only"], 20)
    assert all("traffic_light.sv:" in p for p in usage["model_points_listed"])
    assert "seeded with the model's program" in step["response"]
    assert "module tb_traffic_light" in step["testbench"]
    assert step["messages"][1]["content"].startswith("# Design under test")
    assert run_main([str(EXAMPLE), "--policy", "hybrid", "--json"]) != 0  # no --model: a clear error
    assert "--policy hybrid needs --model" in capsys.readouterr().err


@pytest.mark.simulator_required
def test_a_model_that_cannot_answer_leaves_the_engine_alone(tiny_gguf: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")
    from agent.cli import run_main

    out = tmp_path / "out"
    # 640 tokens cannot hold any prompt: the step still gets the engine's testbench
    run_main([str(EXAMPLE), "--policy", "hybrid", "--model", str(tiny_gguf), "--max-tokens", "64", "--rounds", "0",
              "--sim-calls", "6", "--threads", "1", "--ctx", "640", "--json", "--out", str(out)])
    result = json.loads(capsys.readouterr().out)
    assert result["error"] == ""
    assert result["status"] == "ok"
    usage = json.loads((out / "trajectory.json").read_text())["steps"][0]["usage"]
    assert "raise n_ctx" in usage["model_error"]  # llama.cpp rounds 640 up to 768
    assert usage["model_programs"] == 0
    assert usage["engine_points"] > 0
