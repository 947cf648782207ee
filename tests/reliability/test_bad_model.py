"""Bad models and endpoints: corrupt GGUF, a model that says nothing or garbage, OpenAI 500/timeout."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent.llm.completion import Completion, EndpointError, ModelFileError
from agent.llm.policy import LLMPolicy
from agent.loop import AgentConfig, EpisodeStatus, run_episode
from agent.policy import Budget, State


@pytest.mark.parametrize("how", ["random", "empty", "magic_only", "directory"])
def test_corrupt_gguf_is_a_model_file_error(how: str, tmp_path: Path, figures) -> None:
    pytest.importorskip("llama_cpp")
    from agent.llm.policy import LlamaPolicy

    figures.add("bad_input_tried")
    path = tmp_path / "model.gguf"
    if how == "random":
        path.write_bytes(bytes(random.Random(1).randrange(256) for _ in range(1 << 16)))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "magic_only":
        path.write_bytes(b"GGUF" + bytes(60))
    else:
        path.mkdir()
    with pytest.raises(ModelFileError) as err:
        LlamaPolicy(str(path), n_ctx=512, n_threads=1)
    assert str(path) in str(err.value)
    assert any(s in str(err.value) for s in ("not a valid GGUF model", "not a file"))
    figures.add("bad_input_handled")


def test_truncated_real_gguf_is_a_model_file_error(tiny_gguf: Path, tmp_path: Path, figures) -> None:
    from agent.llm.policy import LlamaPolicy

    figures.add("bad_input_tried")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_gguf.read_bytes()[: tiny_gguf.stat().st_size // 2])
    with pytest.raises(ModelFileError, match="not a valid GGUF model"):
        LlamaPolicy(str(cut), n_ctx=512, n_threads=1)
    figures.add("bad_input_handled")


class ScriptedBackend:
    """A deterministic double: replies from a list (the model that says nothing or garbage)."""

    name = "scripted"

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.calls = 0

    def complete(self, messages, *, max_tokens, temperature, seed, top, grammar=None) -> Completion:
        reply = self.replies[self.calls % len(self.replies)]
        self.calls += 1
        return Completion(text=reply)

    def fit_limits(self, state, limits, max_tokens, prompts=None):
        return limits

    def close(self) -> None:
        pass


GARBAGE = ["", "   \n", "\x00\x01\x02 binary", "<think>never ends", "```python\nprint(1)\n```",
           "```systemverilog\nmodule tb;\n", "filename: ../../etc/passwd\n```sv\nmodule tb; endmodule\n```",
           "".join(chr(random.Random(5).randrange(32, 0x2FFF)) for _ in range(3000))]


@pytest.mark.parametrize("reply", GARBAGE, ids=[f"g{i}" for i in range(len(GARBAGE))])
def test_garbage_reply_is_a_format_error(reply: str, counter, figures) -> None:
    figures.add("bad_input_tried")
    policy = LLMPolicy(ScriptedBackend([reply]))
    proposal = policy.propose(State(counter), Budget(sim_calls=5, deadline=time.monotonic() + 30))
    assert proposal.testbench == ""
    assert proposal.format_error
    assert "tb_counter.sv" in proposal.format_error or "think" in proposal.format_error
    figures.add("bad_input_handled")


def test_episode_with_a_model_that_says_nothing_stops_cleanly(counter, tmp_path: Path, figures) -> None:
    figures.add("bad_input_tried")
    backend = ScriptedBackend(["", "garbage"])
    config = AgentConfig(refinements=5, max_sim_calls=10, wall_time_s=30, trajectory_dir=tmp_path / "traj")
    episode = run_episode(counter, LLMPolicy(backend), config)
    assert episode.status is EpisodeStatus.LIMITS_EXCEEDED
    assert backend.calls == config.max_consecutive_format_errors
    assert episode.best_testbench is None
    assert (tmp_path / "traj" / "trajectory.json").is_file()
    figures.add("bad_input_handled")


class Stub:
    """A loopback OpenAI endpoint that answers 500 or hangs; counts requests."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.requests = 0
        self.release = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                stub.requests += 1
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if stub.mode == "hang":
                    stub.release.wait(10)  # bounded: the server never outlives the test
                body = b'{"error": {"message": "boom"}}'
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub(request: pytest.FixtureRequest) -> Iterator[Stub]:
    s = Stub(request.param)
    yield s
    s.close()


@pytest.mark.parametrize(("stub", "needle"), [("500", "HTTP 500 after 2 attempts"), ("hang", "timed out after 0.5 s")],
                         indirect=["stub"], ids=["http-500", "timeout"])
def test_openai_endpoint_failure_is_a_clear_error(stub: Stub, needle: str, counter, figures) -> None:
    pytest.importorskip("openai")
    from agent.llm.policy import OpenAIPolicy

    figures.add("bad_input_tried")
    policy = OpenAIPolicy(stub.url, "m", timeout_s=0.5, max_retries=1, backoff_s=0.01)
    start = time.monotonic()
    with pytest.raises(EndpointError) as err:
        policy.propose(State(counter), Budget(sim_calls=5, deadline=time.monotonic() + 30))
    assert needle in str(err.value)
    assert stub.url in str(err.value)
    assert stub.requests == 2
    assert time.monotonic() - start < 10
    policy.close()
    figures.add("bad_input_handled")
