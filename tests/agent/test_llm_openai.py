from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agent.llm.completion import EndpointError, MissingExtraError
from agent.llm.policy import OpenAIPolicy
from agent.policy import Budget, State, get_policy
from sim.suite import Design

pytest.importorskip("openai", reason="needs the openai extra")

GOOD_TB = "filename: tb_counter.sv\n```systemverilog\nmodule tb_counter;\n  initial $finish;\nendmodule\n```\n"


def budget() -> Budget:
    return Budget(sim_calls=10, deadline=time.monotonic() + 600)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- llama-cpp-python's own OpenAI-compatible server on a tiny GGUF -----------------


@pytest.fixture(scope="module")
def llama_server(tiny_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` on 127.0.0.1; yields its /v1 base URL."""
    pytest.importorskip("llama_cpp.server.app", reason="needs llama-cpp-python[server] deps")
    port = free_port()
    log = (tmp_path_factory.mktemp("llama_server") / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(tiny_gguf),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "1"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}; see {log.name}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=1) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server not ready after 60 s; see {log.name}")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


def test_llama_server_end_to_end(llama_server: str, counter_design: Design) -> None:
    policy = OpenAIPolicy(llama_server, "tiny", max_tokens=48, timeout_s=60, max_retries=0)
    try:
        proposal = policy.propose(State(counter_design), budget())
    finally:
        policy.close()
    # Random weights: the reply is nonsense, so it comes back as a corrective format error.
    assert proposal.testbench == ""
    assert proposal.format_error
    assert "tb_counter.sv" in proposal.format_error
    assert proposal.response
    usage = proposal.usage
    assert usage["backend"] == "openai"
    assert usage["attempts"] == 1
    assert usage["prompt_tokens"] > 100
    assert 0 < usage["completion_tokens"] <= 48
    assert proposal.messages[1]["content"].startswith("# Design under test")


def test_registry_builds_openai_policy(llama_server: str) -> None:
    policy = get_policy("openai", base_url=llama_server, model="tiny")
    assert policy.name == "openai"
    policy.close()  # type: ignore[attr-defined]


# --- a scripted local HTTP server for the failure paths ----------------------------


@dataclass
class Script:
    """What the stub endpoint answers, request by request."""

    statuses: list[int]
    """HTTP status per request; the last one repeats. 0 = hang until released."""
    hits: int = 0
    """Requests received."""
    release: threading.Event = field(default_factory=threading.Event)
    """Set in teardown so hanging handlers return."""


def completion_body(text: str) -> bytes:
    return json.dumps({
        "id": "x", "object": "chat.completion", "created": 0, "model": "stub",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }).encode()


@pytest.fixture
def stub() -> Iterator[tuple[str, Script]]:
    script = Script(statuses=[200])

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status = script.statuses[min(script.hits, len(script.statuses) - 1)]
            script.hits += 1
            if status == 0:
                script.release.wait(10)
                return
            body = completion_body(GOOD_TB) if status == 200 else json.dumps(
                {"error": {"message": f"scripted {status}", "type": "stub"}}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        script.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


def propose(base: str, design: Design, **options: object) -> object:
    policy = OpenAIPolicy(base, "stub", backoff_s=0.01, **options)  # type: ignore[arg-type]
    try:
        return policy.propose(State(design), budget())
    finally:
        policy.close()


def test_success_parses_testbench(stub: tuple[str, Script], counter_design: Design) -> None:
    base, script = stub
    proposal = propose(base, counter_design)
    assert proposal.testbench.startswith("module tb_counter;")  # type: ignore[attr-defined]
    assert proposal.usage["prompt_tokens"] == 11  # type: ignore[attr-defined]
    assert script.hits == 1


def test_transient_5xx_is_retried(stub: tuple[str, Script], counter_design: Design) -> None:
    base, script = stub
    script.statuses = [500, 503, 200]
    proposal = propose(base, counter_design, max_retries=3)
    assert script.hits == 3
    assert proposal.usage["attempts"] == 3  # type: ignore[attr-defined]
    assert proposal.format_error is None  # type: ignore[attr-defined]


def test_5xx_past_retries_is_a_clear_error(stub: tuple[str, Script], counter_design: Design) -> None:
    base, script = stub
    script.statuses = [500]
    with pytest.raises(EndpointError, match=r"HTTP 500 after 3 attempts: .*scripted 500"):
        propose(base, counter_design, max_retries=2)
    assert script.hits == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422], ids=str)
def test_4xx_is_not_retried(stub: tuple[str, Script], counter_design: Design, status: int) -> None:
    base, script = stub
    script.statuses = [status]
    with pytest.raises(EndpointError, match=f"HTTP {status}"):
        propose(base, counter_design, max_retries=3)
    assert script.hits == 1


def test_401_names_the_key_variable(stub: tuple[str, Script], counter_design: Design) -> None:
    base, script = stub
    script.statuses = [401]
    with pytest.raises(EndpointError, match=r"\$BENCHWRIGHT_TEST_KEY"):
        propose(base, counter_design, api_key_env="BENCHWRIGHT_TEST_KEY")


def test_rate_limit_is_retried(stub: tuple[str, Script], counter_design: Design) -> None:
    base, script = stub
    script.statuses = [429, 200]
    propose(base, counter_design, max_retries=1)
    assert script.hits == 2


def test_hanging_server_times_out(stub: tuple[str, Script], counter_design: Design) -> None:
    base, script = stub
    script.statuses = [0]
    t0 = time.monotonic()
    with pytest.raises(EndpointError, match=r"timed out after 0.3 s \(2 attempts\)"):
        propose(base, counter_design, timeout_s=0.3, max_retries=1)
    assert script.hits == 2
    assert time.monotonic() - t0 < 5


def test_connection_refused_is_retried_then_fails(counter_design: Design) -> None:
    base = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    with pytest.raises(EndpointError, match="APIConnectionError after 2 attempts"):
        propose(base, counter_design, max_retries=1, timeout_s=2)


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(MissingExtraError, match=r"pip install \.\[openai\]"):
        OpenAIPolicy("http://127.0.0.1:9/v1", "m")
