"""Refinement that is measured: rounds that gain and rounds that repeat, per policy."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent.llm.completion import Completion
from agent.llm.policy import LLMPolicy
from agent.llm.prompting import PromptLimits, PromptSet
from agent.loop import AgentConfig, run_episode
from agent.policy import State
from sim.run.evaluate import SimOptions
from training.evaluate import compare_markdown
from training.refinement import (
    refinement_cell,
    refinement_summary,
    rounds_of,
    stripped_body,
)

TB = "// written by model A\nmodule tb;\n  initial begin /* go */ run(); end\n\nendmodule\n"


def step(k: int, shown: str | None, start: float | None, tb: str, end: float | None,
         error: str | None = None) -> dict[str, Any]:
    def obs(v: float | None) -> dict[str, Any] | None:
        return None if v is None else {"status": "ok", "overall": v}
    return {"step": k, "state_testbench": shown, "state_observation": obs(start), "testbench": tb,
            "observation": obs(end) if not error else None, "format_error": error}


def test_bodies_ignore_comments_and_blank_lines() -> None:
    assert stripped_body(TB) == stripped_body("// written by model B (salvaged)\nmodule tb;\n"
                                                "  initial begin  run(); end\nendmodule")
    assert stripped_body(TB) != stripped_body(TB.replace("run()", "run(2)"))


def test_rounds_count_gains_repeats_and_format_errors() -> None:
    other = TB.replace("run()", "run(2)")
    traj = {"design": "d", "target": 90.0, "steps": [
        step(0, None, None, TB, 50.0),
        step(1, TB, 50.0, TB.replace("model A", "model A, again"), 50.0),  # the same program: a repeat
        step(2, TB, 50.0, other, 70.0),                                    # a gain
        step(3, other, 70.0, "", None, error="no code block"),             # a format error
        step(4, other, 70.0, TB, 60.0),                                    # worse, not a repeat of its state
    ]}
    rounds = rounds_of(traj)
    assert [(r.step, r.gained, r.repeated, r.format_error) for r in rounds] == [
        (1, False, True, False), (2, True, False, False), (3, False, False, True), (4, False, False, False)]
    s = refinement_summary([traj, {"design": "e", "target": 90.0, "steps": [
        step(0, None, None, TB, 95.0), step(1, TB, 95.0, other, 96.0)]}])
    assert (s["rounds"], s["below_target"], s["gained"], s["gained_below_target"]) == (5, 4, 2, 1)
    assert s["repeated"] == 1
    assert s["format_errors"] == 1
    assert s["gain_rate_below_target"] == 0.25
    assert refinement_cell(s) == ("1/4", "1/5")
    assert refinement_cell(refinement_summary([])) == ("-", "-")
    # a state that failed: passing now is a gain
    failed = {"design": "f", "target": 90.0, "steps": [step(1, TB, None, other, 10.0)]}
    assert rounds_of(failed)[0].gained


def test_the_comparison_table_has_the_refinement_columns() -> None:
    summary = {"n": 1, "sim_pass": 100.0, "cov_pass": 0.0, "avg_cov": 50.0, "wall_s": 3.0}
    traj = {"design": "d", "target": 90.0, "steps": [step(0, None, None, TB, 50.0), step(1, TB, 50.0, TB, 50.0)]}
    table = compare_markdown({"student": {"summary": summary, "refinement": refinement_summary([traj])},
                              "heuristic": {"summary": summary}})
    assert "rounds gaining (of those below target) | rounds repeating" in table
    assert "| 0/1 | 1/1 |" in table.splitlines()[2]
    assert "| - | - |" in table.splitlines()[3]


@dataclass
class ScriptedBackend:
    """A Backend that answers from a list (the policy, the parser, the renderer and the simulator are real)."""

    replies: list[str]
    n_params: int | None = 135_000_000
    n_ctx: int | None = 8192
    name: str = "scripted"
    asked: list[Any] = field(default_factory=list)

    def complete(self, messages: Sequence[Any], *, max_tokens: int, temperature: float, seed: int | None,
                 top: str, grammar: str | None = None) -> Completion:
        return Completion(self.replies.pop(0))

    def fit_limits(self, state: State, limits: PromptLimits, max_tokens: int,
                   prompts: PromptSet | None = None) -> PromptLimits:
        return limits

    def close(self) -> None:
        pass


@pytest.mark.simulator_required
def test_a_real_episode_that_repeats_then_gains(counter_design: Any, tmp_path: Path) -> None:
    same = "```\nreset\nhold 5\n```"
    backend = ScriptedBackend([same, same, "```\nreset\nset en=1\nhold 300\n```"])
    # The measurement counts what a policy submits: without redraws the repeat reaches the simulator.
    policy = LLMPolicy(backend, format="program", redraws=0)  # type: ignore[arg-type]
    t0 = time.monotonic()
    ep = run_episode(counter_design, policy, AgentConfig(refinements=2, target=100.0, max_sim_calls=6,
                                                         sim=SimOptions(cache_dir=tmp_path / "c")))
    assert time.monotonic() - t0 < 300
    s = refinement_summary([ep.to_json()])
    assert (s["rounds"], s["repeated"], s["gained"]) == (2, 1, 1)
    assert [r["repeated"] for r in s["per_round"]] == [True, False]


def test_the_command_reads_a_folder_of_trajectories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from training.refinement import main

    traj = {"design": "d", "target": 90.0, "steps": [step(0, None, None, TB, 50.0), step(1, TB, 50.0, TB, 50.0)]}
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "trajectory.json").write_text(json.dumps(traj))
    assert main([str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["trajectories"], out["rounds"], out["repeated"], out["gained"]) == (1, 1, 1, 0)
    assert "per_round" not in out
    assert main([]) == 2


def test_eval_entries_that_run_a_model() -> None:
    from training.config import ConfigError, load_config
    from training.evaluate import policy_entry

    presets = Path(__file__).resolve().parents[2] / "training" / "presets"
    cfg = load_config(presets / "smollm2-cpu.toml", ['eval.policies=["student", "hybrid", "hybrid-base", "base@sv"]'])
    student = Path("/models/student.gguf")
    policy, options = policy_entry("hybrid", cfg, student)
    assert (policy, options["model_path"]) == ("hybrid", str(student))
    assert "format" not in options
    policy, options = policy_entry("hybrid-base", cfg, student)
    assert (policy, options["model_path"]) == ("hybrid", "smollm2-135m")
    assert policy_entry("base@sv", cfg, None)[1]["format"] == "sv"
    assert policy_entry("student", cfg, student)[1]["format"] == "program"
    assert policy_entry("heuristic", cfg, student) == ("heuristic", {"seed": 0})
    with pytest.raises(ValueError, match="needs an exported GGUF"):
        policy_entry("hybrid", cfg, None)
    with pytest.raises(ConfigError, match="hybrid-base"):
        load_config(presets / "tiny.toml", ['eval.policies=["hybrid-base"]'])
