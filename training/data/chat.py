"""Chat records for SFT, rendered by the inference prompt code, and assistant-only loss masks.

A record is `{"messages": [system, (prior turns...), user, assistant], ...metadata}`; the
prompt part comes from `agent.llm.prompting.render_messages` (what `LlamaPolicy` sends) and the
assistant turn from `agent.llm.parse.format_response` (what `parse_response` accepts and the
GBNF grammar produces).  Tokenization goes through the model's own chat template; the loss
mask covers exactly the tokens each assistant turn adds (its content and end-of-turn token).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.llm.parse import format_response, parse_response
from agent.llm.prompting import DEFAULT_LIMITS, PromptLimits, render_messages
from agent.policy import State
from sim.suite import Design
from sim.types import SimResult

IGNORE_INDEX = -100
"""Label of tokens that carry no loss (PyTorch cross-entropy's ignore_index)."""

Messages = Sequence[Mapping[str, str]]
"""Chat messages as `{"role", "content"}` mappings."""

RenderIds = Callable[[list[dict[str, str]], bool], list[int]]
"""(messages, add_generation_prompt) -> token ids through a chat template."""


def prompt_messages(design: Design, testbench: str | None = None, result: SimResult | None = None,
                    step: int = 0, format_error: str | None = None,
                    limits: PromptLimits = DEFAULT_LIMITS) -> list[dict[str, str]]:
    """The prompt of state s_t exactly as the inference loop renders it."""
    return render_messages(State(design, testbench, result, step, format_error), limits)


def assistant_turn(testbench: str, top: str, filename: str | None = None) -> str:
    """The assistant reply for a testbench, in the one format the parser accepts.

    Raises agent.llm.parse.FormatError when the testbench could never be parsed back
    (e.g. it contains a line with three backticks), so no unlearnable record is written.
    """
    text = format_response(filename or f"tb_{top}.sv", testbench)
    parsed = parse_response(text, top)
    if parsed.code.rstrip() != testbench.rstrip():
        raise ValueError(f"reply for {top} does not round-trip through parse_response")
    return text


def make_record(messages: Messages, assistant: str, **meta: Any) -> dict[str, Any]:
    """A chat record: prompt messages + the assistant turn, plus metadata fields."""
    msgs = [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]
    if not msgs or msgs[-1]["role"] != "user":
        raise ValueError(f"a record's prompt must end with a user turn, got roles {[m['role'] for m in msgs]}")
    return {"messages": [*msgs, {"role": "assistant", "content": assistant}], **meta}


@dataclass(frozen=True)
class Example:
    """One tokenized training sequence."""

    input_ids: list[int]
    """Token ids of the whole conversation."""
    labels: list[int]
    """Same length; IGNORE_INDEX everywhere but assistant tokens."""

    @property
    def n_trained(self) -> int:
        """Tokens that carry loss."""
        return sum(1 for x in self.labels if x != IGNORE_INDEX)


def assistant_spans(messages: Messages, render: RenderIds) -> tuple[list[int], list[tuple[int, int]]]:
    r"""Token ids of the conversation and the [start, end) span each assistant turn adds.

    The span of assistant turn i runs from the end of the rendered prompt before it (with
    the generation prompt, i.e. `<|im_start|>assistant\n`) to the end of the conversation
    rendered through turn i.  Raises ValueError when the template is not prefix-stable.
    """
    msgs = [dict(m) for m in messages]
    full = render(msgs, False)
    spans: list[tuple[int, int]] = []
    for i, m in enumerate(msgs):
        if m["role"] != "assistant":
            continue
        before = render(msgs[:i], True)
        through = render(msgs[: i + 1], False)
        if full[: len(before)] != before or full[: len(through)] != through:
            raise ValueError(f"chat template is not prefix-stable at turn {i}: cannot mask the loss")
        spans.append((len(before), len(through)))
    return full, spans


def mask_labels(input_ids: Sequence[int], spans: Sequence[tuple[int, int]]) -> list[int]:
    """Labels that equal the ids inside the spans and IGNORE_INDEX elsewhere."""
    labels = [IGNORE_INDEX] * len(input_ids)
    for start, end in spans:
        if not 0 <= start <= end <= len(input_ids):
            raise ValueError(f"span [{start}, {end}) outside a sequence of {len(input_ids)} tokens")
        labels[start:end] = list(input_ids[start:end])
    return labels


def build_example(messages: Messages, render: RenderIds) -> Example:
    """Tokenize a record and mask everything but its assistant turns."""
    ids, spans = assistant_spans(messages, render)
    if not spans:
        raise ValueError("record has no assistant turn")
    return Example(ids, mask_labels(ids, spans))


def hf_render(tokenizer: Any) -> RenderIds:
    """A RenderIds for a transformers tokenizer with a chat template."""

    def render(messages: list[dict[str, str]], add_generation_prompt: bool) -> list[int]:
        if not messages:
            return []
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=add_generation_prompt)
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])

    return render
