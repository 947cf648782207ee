from __future__ import annotations

import pytest

from agent.llm.parse import FormatError, parse_response
from agent.llm.prompting import render_messages
from agent.policy import State
from sim.suite import Design
from sim.types import CoverageSummary, MetricSummary, SimResult, Status
from training.data.chat import (
    IGNORE_INDEX,
    assistant_spans,
    assistant_turn,
    build_example,
    make_record,
    mask_labels,
    prompt_messages,
)

TB = "module tb_counter;\n  counter dut (.clk(), .rst_n(), .en(), .q());\n  initial $finish;\nendmodule\n"


def chatml_chars(messages: list[dict[str, str]], add_generation_prompt: bool) -> list[int]:
    """A character-level 'tokenizer' over ChatML, to test masks without a model."""
    text = "".join(f"<{m['role']}>{m['content']}</>" for m in messages)
    if add_generation_prompt:
        text += "<assistant>"
    return [ord(c) for c in text]


def decode(ids: list[int]) -> str:
    return "".join(chr(i) for i in ids)


def test_prompt_is_the_inference_renderer(counter_design: Design) -> None:
    assert prompt_messages(counter_design) == render_messages(State(counter_design))
    res = SimResult(Status.OK, coverage=CoverageSummary({"line": MetricSummary(1, 2)}))
    assert prompt_messages(counter_design, TB, res, 2) == render_messages(State(counter_design, TB, res, 2))


def test_assistant_turn_round_trips_through_the_parser() -> None:
    text = assistant_turn(TB, "counter")
    assert text.startswith("filename: tb_counter.sv\n```systemverilog\n")
    assert parse_response(text, "counter").code == TB


def test_assistant_turn_refuses_unparseable_testbench() -> None:
    with pytest.raises(FormatError):
        assistant_turn("// no module here\n", "counter")
    with pytest.raises((FormatError, ValueError)):
        assistant_turn("module tb;\n```\nendmodule\n", "counter")


def test_record_shape(counter_design: Design) -> None:
    rec = make_record(prompt_messages(counter_design), assistant_turn(TB, "counter"), design="counter", gain=3.0)
    assert [m["role"] for m in rec["messages"]] == ["system", "user", "assistant"]
    assert rec["design"] == "counter"
    assert rec["gain"] == 3.0
    with pytest.raises(ValueError, match="end with a user turn"):
        make_record([{"role": "system", "content": "x"}], "reply")


def test_mask_covers_exactly_the_assistant_turn() -> None:
    msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"},
            {"role": "assistant", "content": "A1"}]
    ex = build_example(msgs, chatml_chars)
    trained = decode([t for t in ex.labels if t != IGNORE_INDEX])
    assert trained == "A1</>"  # content and end of turn; never the prompt or the role header
    assert len(ex.labels) == len(ex.input_ids)
    assert decode(ex.input_ids).endswith("<assistant>A1</>")


def test_mask_with_prior_turns_trains_every_assistant_turn() -> None:
    msgs = [{"role": "system", "content": "S"}, {"role": "user", "content": "U1"},
            {"role": "assistant", "content": "A1"}, {"role": "user", "content": "U2"},
            {"role": "assistant", "content": "A2"}]
    ids, spans = assistant_spans(msgs, chatml_chars)
    assert [decode(ids[a:b]) for a, b in spans] == ["A1</>", "A2</>"]
    labels = mask_labels(ids, spans)
    assert "U2" not in decode([t for t in labels if t != IGNORE_INDEX])


def test_mask_errors() -> None:
    with pytest.raises(ValueError, match="outside"):
        mask_labels([1, 2], [(1, 3)])
    with pytest.raises(ValueError, match="no assistant"):
        build_example([{"role": "user", "content": "U"}], chatml_chars)

    def unstable(messages: list[dict[str, str]], add_generation_prompt: bool) -> list[int]:
        ids = chatml_chars(messages, add_generation_prompt)
        return ids if add_generation_prompt else ids[::-1]

    with pytest.raises(ValueError, match="prefix-stable"):
        build_example([{"role": "user", "content": "U"}, {"role": "assistant", "content": "A"}], unstable)


def test_mask_with_the_tiny_chatml_tokenizer(counter_design: Design) -> None:
    pytest.importorskip("tokenizers")
    pytest.importorskip("transformers")
    from training.data.chat import hf_render
    from training.sft.tiny import make_tokenizer

    tok = make_tokenizer()
    rec = make_record(prompt_messages(counter_design), assistant_turn(TB, "counter"))
    ex = build_example(rec["messages"], hf_render(tok))
    trained = tok.decode([t for t in ex.labels if t != IGNORE_INDEX])
    assert trained == assistant_turn(TB, "counter") + "<|im_end|>\n"
    prompt = tok.decode(ex.input_ids[: ex.labels.index(next(t for t in ex.labels if t != IGNORE_INDEX))])
    assert prompt.endswith("<|im_start|>assistant\n")
