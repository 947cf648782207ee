"""The episode loop with a deterministic scripted policy and the real evaluator."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent.loop import AgentConfig, EpisodeStatus, done, is_better, rank, run_episode
from agent.policy import Budget, Proposal, State, get_policy
from sim.run.evaluate import SimOptions
from sim.suite import load_design
from sim.types import CoverageSummary, MetricSummary, SimResult, Status

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "traffic_light"

TB = (EXAMPLE / "tb" / "tb_traffic_light.sv").read_text().replace("    repeat (60) @(negedge clk);\n", "    STIMULUS\n")
"""The example's testbench with its stimulus replaced by a placeholder."""


def _res(status: Status, overall: float | None) -> SimResult:
    cov = None if overall is None else CoverageSummary({"line": MetricSummary(int(overall), 100)})
    return SimResult(status=status, coverage=cov)


def test_rank_ordering() -> None:
    compile_err = _res(Status.COMPILE_ERROR, None)
    timeout = _res(Status.TIMEOUT, None)
    low = _res(Status.OK, 40)
    high = _res(Status.OK, 95)
    assert rank(None, 90) < rank(compile_err, 90) < rank(timeout, 90) < rank(low, 90) < rank(high, 90)
    assert is_better(low, low, 90)  # ties go to the newer
    assert not is_better(low, high, 90)
    assert not is_better(timeout, low, 90)  # a regression never replaces the best
    assert done(high, 90)
    assert not done(low, 90)
    assert done(_res(Status.OK, 100), 101)


def test_at_equal_coverage_a_testbench_that_checks_is_not_replaced_by_one_that_does_not() -> None:
    # verilog-axis axis_adapter in a 100-call bench episode: the fourth round's engine had no
    # call left to record its checks and its testbench (equal coverage) replaced the third's.
    checked = SimResult(status=Status.OK, coverage=_res(Status.OK, 70).coverage,
                        log_tail="BW-CHECKS 4 checks, 0 mismatches\n- Verilog $finish")
    plain = _res(Status.OK, 70)
    assert not is_better(plain, checked, 90)
    assert is_better(checked, plain, 90)
    assert is_better(checked, checked, 90)  # ties still go to the newer
    assert is_better(_res(Status.OK, 71), checked, 90)  # coverage first


@dataclass
class ScriptedPolicy:
    """Returns the given responses in order; records the states it saw."""

    outputs: list[str]
    name: str = "scripted"
    seen: list[State] = field(default_factory=list)

    def propose(self, state: State, budget: Budget) -> Proposal:
        self.seen.append(state)
        text = self.outputs[len(self.seen) - 1]
        if text == "GARBAGE":
            return Proposal(testbench="", filename="", response="???", format_error="no fenced block")
        return Proposal(testbench=text, filename="tb_traffic_light.sv", response=text)


@pytest.mark.simulator_required
def test_episode_keeps_best_and_saves_trajectory(tmp_path: Path) -> None:
    design = load_design(EXAMPLE)
    weak = TB.replace("STIMULUS", "repeat (30) @(negedge clk);")
    broken = TB.replace("STIMULUS", "repeat (30) @(negedge clk); no_such_signal = 1;")  # compile error
    strong = TB.replace("STIMULUS", "repeat (30) @(negedge clk); ped_req = 1; repeat (40) @(negedge clk); "
                        "speed = 2; night_mode = 1; repeat (20) @(negedge clk); night_mode = 0; repeat (30) @(negedge clk);")
    policy = ScriptedPolicy([weak, broken, "GARBAGE", strong])
    cfg = AgentConfig(refinements=3, target=99.9, trajectory_dir=tmp_path / "traj",
                      sim=SimOptions(cache_dir=tmp_path / "cache"))
    ep = run_episode(design, policy, cfg)
    assert [r.accepted for r in ep.steps] == [True, False, False, True]
    # Memoryless: after the compile error the policy is shown the best (weak) state again.
    assert policy.seen[2].testbench == weak
    assert policy.seen[3].format_error == "no fenced block"
    assert ep.best_testbench == strong
    assert ep.best_result is not None
    assert ep.best_result.overall > ep.steps[0].observation["overall"]  # type: ignore[index]
    assert ep.sim_calls == 3  # the format error cost no simulator call
    data = json.loads((tmp_path / "traj" / "trajectory.json").read_text())
    assert data["trajectory_format"] == "benchwright.trajectory/1"
    assert len(data["steps"]) == 4
    assert data["steps"][1]["observation"]["status"] == "compile_error"
    assert ep.status in (EpisodeStatus.ROUNDS_DONE, EpisodeStatus.SUBMITTED)


@pytest.mark.simulator_required
def test_early_stop_at_target(tmp_path: Path) -> None:
    design = load_design(EXAMPLE)
    weak = TB.replace("STIMULUS", "repeat (30) @(negedge clk);")
    policy = ScriptedPolicy([weak, weak, weak, weak])
    ep = run_episode(design, policy, AgentConfig(target=10, sim=SimOptions(cache_dir=tmp_path / "c")))
    assert len(ep.steps) == 1
    assert ep.status is EpisodeStatus.SUBMITTED
    assert ep.passed


def test_consecutive_format_errors_stop_the_episode(tmp_path: Path) -> None:
    design = load_design(EXAMPLE)
    policy = ScriptedPolicy(["GARBAGE"] * 4)
    ep = run_episode(design, policy, AgentConfig(max_consecutive_format_errors=2))
    assert len(ep.steps) == 2
    assert ep.status is EpisodeStatus.LIMITS_EXCEEDED
    assert ep.sim_calls == 0


def test_unknown_policy_name() -> None:
    with pytest.raises(ValueError, match="not in supported list"):
        get_policy("magic")


@pytest.mark.simulator_required
def test_heuristic_beats_human_tb_on_example(tmp_path: Path) -> None:
    from sim.run.human import evaluate_human

    design = load_design(EXAMPLE)
    opts = SimOptions(cache_dir=tmp_path / "cache")
    human = evaluate_human(design, opts)
    ep = run_episode(design, get_policy("heuristic", seed=0, sim_options=opts),
                     AgentConfig(max_sim_calls=150, sim=opts))
    assert ep.best_result is not None
    assert ep.best_result.status is Status.OK
    assert ep.best_result.overall > human.overall + 20


@pytest.mark.simulator_required
def test_cocotb_companion_reproduces_sv_coverage(tmp_path: Path) -> None:
    """The heuristic's cocotb rendering of the best stimulus is guarded, runs, and matches."""
    from sim.run.cocotb import evaluate_cocotb

    design = load_design(EXAMPLE)
    opts = SimOptions(cache_dir=tmp_path / "cache")
    ep = run_episode(design, get_policy("heuristic", seed=0, sim_options=opts),
                     AgentConfig(max_sim_calls=60, refinements=0, sim=opts))
    name = f"test_{design.top}.py"
    assert name in ep.best_companions
    res = evaluate_cocotb(design, name[:-3], {name: ep.best_companions[name]}, options=opts)
    assert res.status is Status.OK, res.detail + res.log_tail[-1500:]
    assert ep.best_result is not None
    assert res.overall == pytest.approx(ep.best_result.overall, abs=2.0)


@pytest.mark.simulator_required
def test_every_round_of_an_episode_records_its_checks(tmp_path: Path) -> None:
    """Every round's testbench checks: ties go to the newer testbench, which must check as the first did.

    (In a `bench --sim-calls 100` run, wbarbiter's rounds 1-3 spent their whole share on a
    witness program and kept no checks; the engine now records them with a call of the budget's.
    Since that witness (a false alarm) is gone, this budget no longer reproduces the case: the
    test guards the property, not that fix.)
    """
    folder = ROOT.parent / "shared" / "benchmarks" / "public" / "wb2axip__wbarbiter"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not here")
    design = load_design(folder)
    opts = SimOptions(cache_dir=tmp_path / "cache")
    ep = run_episode(design, get_policy("heuristic", seed=0, sim_options=opts),
                     AgentConfig(max_sim_calls=100, refinements=3, early_stop=False, sim=opts))
    assert len(ep.steps) == 4
    assert all("BW_EXPECT" in step.testbench for step in ep.steps)
    assert ep.best_testbench is not None
    assert "BW_EXPECT" in ep.best_testbench
