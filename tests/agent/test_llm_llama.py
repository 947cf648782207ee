from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent.llm.completion import LLMError, MissingExtraError, ModelFileError
from agent.llm.grammar import grammar_text, make_grammar
from agent.llm.parse import format_response, parse_response
from agent.llm.policy import LlamaPolicy
from agent.llm.prompting import render_context
from agent.policy import Budget, State, get_policy
from sim.suite import Design
from sim.types import CoverageSummary, MetricSummary, SimResult, Status

pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")

HEADER = "filename: tb_counter.sv\n```systemverilog\n"


def budget() -> Budget:
    return Budget(sim_calls=10, deadline=time.monotonic() + 600)


@pytest.fixture(scope="module")
def policy(tiny_gguf: Path) -> Any:
    p = LlamaPolicy(tiny_gguf, n_ctx=4096, n_threads=1, max_tokens=96, temperature=0.8)
    yield p
    p.close()


def ok_state(design: Design, step: int = 1) -> State:
    cov = CoverageSummary({"line": MetricSummary(3, 4)})
    return State(design, "module tb_counter;\nendmodule\n", SimResult(Status.OK, coverage=cov), step)


def test_registry_builds_llama_policy(tiny_gguf: Path) -> None:
    p = get_policy("llama", model_path=str(tiny_gguf), n_ctx=1024, n_threads=1)
    try:
        assert p.name == "llama"
    finally:
        p.close()  # type: ignore[attr-defined]


def test_grammar_forces_reply_shape(policy: Any, counter_design: Design) -> None:
    proposal = policy.propose(State(counter_design), budget())
    text = proposal.response
    assert text.startswith(HEADER)
    assert "```" not in text[len(HEADER):-3]
    # The tiny model's code is nonsense: either it closed the block (parseable) or it ran
    # out of tokens, which must come back as a corrective format error, not a crash.
    if proposal.format_error is None:
        assert proposal.testbench
        assert proposal.filename == "tb_counter.sv"
    else:
        assert proposal.testbench == ""
        assert "filename: tb_counter.sv" in proposal.format_error
    assert proposal.messages
    assert proposal.messages[0]["role"] == "system"
    usage = proposal.usage
    assert usage["backend"] == "llama"
    assert usage["prompt_tokens"] > 100
    assert usage["completion_tokens"] > 0
    assert usage["seconds"] > 0


def test_grammar_accepts_canonical_reply(policy: Any) -> None:
    """Teacher-force a valid reply token by token: the grammar must allow every step."""
    import numpy as np

    llm = policy.backend.llm
    target = format_response("tb_counter.sv", "module tb_counter;\n  initial $finish;\nendmodule")
    target = target.rstrip("\n")
    start: list[int] = []

    def force(input_ids: Any, scores: Any) -> Any:
        if not start:
            start.append(len(input_ids))
        done = llm.detokenize(list(input_ids[start[0]:])).decode("utf-8", "replace")
        rest = target[len(done):] if target.startswith(done) else ""
        out = np.full_like(scores, -1e9) if rest else scores
        if rest:
            out[llm.tokenize(rest.encode(), add_bos=False, special=False)[0]] = 0.0
        return out

    data = llm.create_chat_completion(
        [{"role": "user", "content": "write"}], grammar=make_grammar("counter"),
        logits_processor=[force], max_tokens=len(target) + 8, temperature=0.0)
    text = data["choices"][0]["message"]["content"]
    assert text == target
    assert parse_response(text, "counter").code.startswith("module tb_counter;")


def test_grammar_rejects_other_file_names(policy: Any) -> None:
    """The same forcing toward a wrong file name is overruled by the grammar."""

    llm = policy.backend.llm
    target = "filename: counter_tb.sv\n"
    start: list[int] = []

    def force(input_ids: Any, scores: Any) -> Any:
        if not start:
            start.append(len(input_ids))
        done = llm.detokenize(list(input_ids[start[0]:])).decode("utf-8", "replace")
        rest = target[len(done):] if target.startswith(done) else ""
        if rest:
            scores[llm.tokenize(rest.encode(), add_bos=False, special=False)[0]] += 1e4
        return scores

    data = llm.create_chat_completion(
        [{"role": "user", "content": "write"}], grammar=make_grammar("counter"),
        logits_processor=[force], max_tokens=12, temperature=0.0)
    assert data["choices"][0]["message"]["content"].startswith("filename: tb_counter")


def test_grammar_text_names_the_top() -> None:
    assert grammar_text("counter").rstrip().endswith('name    ::= "counter"')
    assert "[A-Za-z_]" in grammar_text(None).splitlines()[-1]
    with pytest.raises(ValueError, match="not a Verilog identifier"):
        grammar_text('x" | "y')


def test_without_grammar_nonsense_is_a_format_error(tiny_gguf: Path, counter_design: Design) -> None:
    p = LlamaPolicy(tiny_gguf, n_ctx=4096, n_threads=1, max_tokens=32, use_grammar=False)
    try:
        proposal = p.propose(State(counter_design), budget())
    finally:
        p.close()
    assert proposal.testbench == ""
    assert proposal.format_error
    assert "tb_counter.sv" in proposal.format_error
    assert proposal.usage["completion_tokens"] > 0  # usage is recorded even on failure


def test_prefix_kv_cache_is_reused(policy: Any, counter_design: Design) -> None:
    policy.propose(State(counter_design), budget())
    second = policy.propose(ok_state(counter_design), budget())
    prefix_tokens = policy.backend.count_tokens(render_context(counter_design))
    assert second.usage["cached_tokens"] >= prefix_tokens
    assert second.usage["prompt_eval_tokens"] < second.usage["prompt_tokens"] - prefix_tokens + 16


def test_cache_off_re_evaluates(tiny_gguf: Path, counter_design: Design) -> None:
    p = LlamaPolicy(tiny_gguf, n_ctx=4096, n_threads=1, max_tokens=8, cache=False)
    try:
        p.propose(State(counter_design), budget())
        second = p.propose(ok_state(counter_design), budget())
    finally:
        p.close()
    assert second.usage["cached_tokens"] == 0
    assert second.usage["prompt_eval_tokens"] >= second.usage["prompt_tokens"] - 1


def test_long_rtl_is_truncated_to_fit_context(tiny_gguf: Path, counter_design: Design) -> None:
    big = counter_design.rtl[0].with_name("big.sv")
    big.write_text("".join(f"// register {i} holds nothing interesting\n" for i in range(3000)))
    design = replace(counter_design, rtl=(*counter_design.rtl, big))
    p = LlamaPolicy(tiny_gguf, n_ctx=3072, n_threads=1, max_tokens=64)
    try:
        first = p.propose(State(design), budget())
        second = p.propose(ok_state(design), budget())
    finally:
        p.close()
    for proposal in (first, second):
        assert proposal.usage["prompt_tokens"] + 64 <= 3072
        user = proposal.messages[1]["content"]
        assert "is truncated here" in user
        assert "## Reply format" in user
    # The truncated context is still a shared prefix of both rounds.
    head1, head2 = first.messages[1]["content"], second.messages[1]["content"]
    cut = head1.index("# Task")
    assert head2.startswith(head1[:cut])


def test_context_too_small_for_max_tokens(tiny_gguf: Path, counter_design: Design) -> None:
    p = LlamaPolicy(tiny_gguf, n_ctx=512, n_threads=1, max_tokens=256)
    try:
        with pytest.raises(LLMError, match="raise n_ctx or lower max_tokens"):
            p.propose(State(counter_design), budget())
    finally:
        p.close()


def test_missing_model_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.gguf"
    with pytest.raises(ModelFileError, match=f"model file not found: {path}"):
        LlamaPolicy(path)


def test_directory_is_not_a_model(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="not a file"):
        LlamaPolicy(tmp_path)


def test_random_bytes_are_not_a_model(tmp_path: Path) -> None:
    path = tmp_path / "random.gguf"
    path.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(ModelFileError, match=f"not a valid GGUF model: {path}"):
        LlamaPolicy(path)


@pytest.mark.parametrize("keep", [0.5, 0.05, 24 / 228_000], ids=["half", "header", "magic"])
def test_truncated_gguf_is_not_a_model(tiny_gguf: Path, tmp_path: Path, keep: float) -> None:
    data = tiny_gguf.read_bytes()
    path = tmp_path / "truncated.gguf"
    path.write_bytes(data[: max(8, int(len(data) * keep))])
    with pytest.raises(ModelFileError, match=f"not a valid GGUF model: {path}"):
        LlamaPolicy(path, n_ctx=256)


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(MissingExtraError, match=r"pip install \.\[llama\]"):
        LlamaPolicy(tmp_path / "m.gguf")


def test_max_tokens_holds_on_incomplete_utf8(policy: Any) -> None:
    """llama-cpp-python skips max_tokens while the text ends mid UTF-8; our guard does not."""
    import numpy as np

    from agent.llm.llama_backend import max_tokens_guard

    llm = policy.backend.llm
    lead = next(t for t in range(llm.n_vocab()) if llm.detokenize([t]) == b"\xe0")

    def force_lead_byte(input_ids: Any, scores: Any) -> Any:
        out = np.full_like(scores, -1e9)
        out[lead] = 0.0
        return out

    data = llm.create_chat_completion(
        [{"role": "user", "content": "x"}], max_tokens=16, temperature=0.0,
        logits_processor=[force_lead_byte, *max_tokens_guard(16, llm.token_eos())])
    # 16 tokens, then the forced end-of-sequence (without the guard: llama_decode fails
    # once the context is full)
    assert data["usage"]["completion_tokens"] == 16


def _big_case_table(root: Path) -> Path:
    """A design folder whose RTL (a 256-entry case table) and spec are too big for a small context."""
    rows = "\n".join(f"      8'd{k}: code = 16'h{(k * 40503) & 0xFFFF:04x};  // symbol {k}" for k in range(256))
    rtl = (f"module table_enc (input logic clk, input logic rst, input logic [7:0] sym, input logic go,\n"
           f"                  output logic [15:0] code_o, output logic busy);\n  logic [15:0] code;\n"
           f"  always_comb begin\n    case (sym)\n{rows}\n      default: code = 16'h0;\n    endcase\n  end\n"
           f"  always_ff @(posedge clk) if (rst) begin code_o <= '0; busy <= 1'b0; end\n"
           f"    else if (go) begin code_o <= code; busy <= ~busy; end\nendmodule\n")
    (root / "rtl").mkdir(parents=True)
    (root / "rtl" / "table_enc.sv").write_text(rtl)
    (root / "spec").mkdir()
    (root / "spec" / "spec.md").write_text("The encoder maps each symbol to its code word.\n" * 200)
    (root / "design.toml").write_text('name = "table_enc"\ntop = "table_enc"\nrtl = ["rtl/table_enc.sv"]\n'
                                      'spec = ["spec/spec.md"]\nclocks = ["clk"]\n\n[[resets]]\nname = "rst"\n'
                                      'active_low = false\n')
    return root


@pytest.mark.simulator_required
def test_a_design_too_big_for_the_context_still_gives_a_json_result(tiny_gguf: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from agent.cli import run_main

    design = _big_case_table(tmp_path / "table_enc")
    assert len((design / "rtl" / "table_enc.sv").read_text()) > 10_000
    common = [str(design), "--policy", "llama", "--model", str(tiny_gguf), "--llm-format", "program",
              "--max-tokens", "128", "--rounds", "0", "--sim-calls", "2", "--threads", "1", "--json"]
    # 2048 tokens: the spec and the RTL are left out, the interface summary and operations fit.
    run_main([*common, "--ctx", "2048", "--out", str(tmp_path / "fits")])
    fits = json.loads(capsys.readouterr().out)
    assert fits["error"] == ""
    assert fits["rounds"] == 1
    # 640 tokens cannot hold a prompt at all: a JSON result that says so, never a traceback.
    assert run_main([*common, "--ctx", "640", "--out", str(tmp_path / "small")]) == 1
    captured = capsys.readouterr()
    small = json.loads(captured.out)
    assert small["episode"] == "errored"
    assert "LLMError" in small["error"]
    assert "n_ctx" in small["error"]
    assert "Traceback" not in captured.err
    assert "stopped with an error" in (tmp_path / "small" / "report.md").read_text()
