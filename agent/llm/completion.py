"""What every LLM backend returns and raises: `Completion`, the error classes, `Backend`.

The backends (llama.cpp, OpenAI-compatible) and the policies import these; nothing here
imports a backend, so the policy module can pick a backend without an import circle.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent.llm.prompting import PromptLimits, PromptSet
from agent.policy import State

ChatMessages = Sequence[Mapping[str, str]]
"""Chat messages as `{"role": ..., "content": ...}` mappings."""


class LLMError(RuntimeError):
    """A model or endpoint could not produce a completion (not a format problem)."""


class ModelFileError(LLMError):
    """The GGUF file is missing, unreadable or not a valid model."""


class EndpointError(LLMError):
    """An OpenAI-compatible endpoint failed for good (4xx, or transient errors past the retries)."""


class MissingExtraError(LLMError, ImportError):
    """An optional dependency is not installed; the message names the extra."""


@dataclass(frozen=True)
class Completion:
    """One normalized chat completion, whichever backend produced it."""

    text: str
    """The assistant message's content."""
    finish_reason: str = "stop"
    """`stop`, `length`, `repetition` (the guard ended a reply that repeated itself), or what
    the backend reported."""
    prompt_tokens: int = 0
    """Tokens in the prompt."""
    completion_tokens: int = 0
    """Tokens generated."""
    cached_tokens: int = 0
    """Prompt tokens whose KV state was reused instead of evaluated."""
    seconds: float = 0.0
    """Wall time of the request."""
    cost: float = 0.0
    """Money spent, where the backend knows it (0 for local models)."""
    model: str = ""
    """Model name as the backend reports it."""
    chat_format: str = ""
    """How the prompt was templated: llama.cpp's `chat_template.default` means the GGUF's own
    `tokenizer.chat_template`; a named format (`chatml`, ...) is one llama.cpp matched it to."""
    attempts: int = 1
    """Requests made (more than one after transient errors)."""
    timings: Mapping[str, float] = field(default_factory=dict)
    """Backend-specific timings (e.g. llama.cpp prompt-eval and decode milliseconds)."""
    stopped: str = ""
    """Why the backend ended the reply early ('' when it ended by itself or at the cap)."""

    def usage(self) -> dict[str, Any]:
        """Plain-data usage record for Proposal.usage and trajectories."""
        return {
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens, "seconds": round(self.seconds, 4),
            "finish_reason": self.finish_reason, "cost": self.cost, "model": self.model,
            "attempts": self.attempts, **({"chat_format": self.chat_format} if self.chat_format else {}),
            **({"stopped": self.stopped} if self.stopped else {}),
            **{k: round(v, 3) for k, v in self.timings.items()},
        }


def completion_from_openai(data: Mapping[str, Any], seconds: float = 0.0, **extra: Any) -> Completion:
    """Normalize an OpenAI-shaped chat-completion dict (llama-cpp-python or `openai`)."""
    choices = data.get("choices") or []
    if not choices:
        raise LLMError(f"completion has no choices: {str(data)[:200]}")
    choice = choices[0]
    message = choice.get("message") or {}
    usage = data.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    fields: dict[str, Any] = {
        "text": message.get("content") or "",
        "finish_reason": choice.get("finish_reason") or "stop",
        "prompt_tokens": int(usage.get("prompt_tokens") or 0),
        "completion_tokens": int(usage.get("completion_tokens") or 0),
        "cached_tokens": int(details.get("cached_tokens") or 0),
        "seconds": seconds,
        "model": str(data.get("model") or ""),
    }
    fields.update(extra)
    return Completion(**fields)


class Backend(Protocol):
    """Something that turns chat messages into a Completion."""

    name: str
    """Short backend name for usage records (`llama`, `openai`)."""

    def complete(self, messages: ChatMessages, *, max_tokens: int, temperature: float,
                 seed: int | None, top: str, grammar: str | None = None) -> Completion:
        """Run one chat completion.

        `top` lets a backend constrain the file name; `grammar` (GBNF text) replaces the SV
        reply grammar where the backend can constrain its output.
        """
        ...

    def fit_limits(self, state: State, limits: PromptLimits, max_tokens: int,
                   prompts: PromptSet | None = None) -> PromptLimits:
        """Shrink `limits` so the prompt for `state` fits the backend's context window.

        `prompts` is the prompt format (SV when None).
        """
        ...

    def close(self) -> None:
        """Release the model or connection."""
        ...
