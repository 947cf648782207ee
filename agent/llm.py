"""LLM policies: prompt -> backend -> strict parse, behind the Policy protocol.

`LlamaPolicy` runs a local GGUF through llama-cpp-python (`pip install .[llama]`),
`OpenAIPolicy` any OpenAI-compatible endpoint (`pip install .[openai]`).  Both backends
return OpenAI-shaped dicts, normalized by `completion_from_openai` into a `Completion`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from agent.parse import FormatError, parse_response
from agent.policy import Budget, Proposal, State
from agent.prompting import DEFAULT_LIMITS, PromptLimits, render_messages

logger = logging.getLogger(__name__)

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
    """`stop`, `length`, or what the backend reported."""
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

    def usage(self) -> dict[str, Any]:
        """Plain-data usage record for Proposal.usage and trajectories."""
        return {
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens, "seconds": round(self.seconds, 4),
            "finish_reason": self.finish_reason, "cost": self.cost, "model": self.model,
            "attempts": self.attempts, **({"chat_format": self.chat_format} if self.chat_format else {}),
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
                 seed: int | None, top: str) -> Completion:
        """Run one chat completion; `top` lets a backend constrain the file name."""
        ...

    def fit_limits(self, state: State, limits: PromptLimits, max_tokens: int) -> PromptLimits:
        """Shrink `limits` so the prompt for `state` fits the backend's context window."""
        ...

    def close(self) -> None:
        """Release the model or connection."""
        ...


class LLMPolicy:
    """Policy that renders the state, asks a backend, and parses the reply strictly."""

    name = "llm"
    """Registry name (overridden by subclasses)."""

    def __init__(self, backend: Backend, *, max_tokens: int = 2048, temperature: float = 0.2,
                 seed: int | None = 0, limits: PromptLimits = DEFAULT_LIMITS) -> None:
        self.backend = backend
        """Where completions come from."""
        self.max_tokens = max_tokens
        """Cap on generated tokens per reply."""
        self.temperature = temperature
        """Sampling temperature (0 = greedy)."""
        self.seed = seed
        """Sampling seed (None = backend default)."""
        self.limits = limits
        """Prompt caps before the backend's own context fitting."""
        self.calls = 0
        """Completions requested so far."""

    def propose(self, state: State, budget: Budget) -> Proposal:
        """Render s_t, query the backend, parse; a bad reply becomes `format_error`."""
        limits = self.backend.fit_limits(state, self.limits, self.max_tokens)
        messages = render_messages(state, limits)
        seed = None if self.seed is None else self.seed + self.calls
        self.calls += 1
        completion = self.backend.complete(messages, max_tokens=self.max_tokens,
                                           temperature=self.temperature, seed=seed,
                                           top=state.design.top)
        usage = {"backend": self.backend.name, **completion.usage()}
        base = Proposal(testbench="", filename=f"tb_{state.design.top}.sv",
                        response=completion.text, messages=tuple(dict(m) for m in messages),
                        usage=usage)
        try:
            parsed = parse_response(completion.text, state.design.top)
        except FormatError as exc:
            return replace(base, format_error=exc.message)
        return replace(base, testbench=parsed.code, filename=parsed.filename)

    def close(self) -> None:
        """Release the backend."""
        self.backend.close()


class LlamaPolicy(LLMPolicy):
    """A local GGUF model through llama-cpp-python (`pip install .[llama]`)."""

    name = "llama"

    def __init__(self, model_path: str | None = None, *, model: str | None = None,
                 n_ctx: int = 8192, n_threads: int | None = None, max_tokens: int = 2048,
                 temperature: float = 0.2, seed: int | None = 0, use_grammar: bool = True,
                 cache: bool = True, ram_cache_bytes: int = 0,
                 limits: PromptLimits = DEFAULT_LIMITS, verbose: bool = False) -> None:
        from agent.backends.llama_backend import LlamaBackend
        from agent.models import ModelNotInstalledError, resolve_model

        name = model_path or model
        if not name:
            raise ModelFileError("the llama policy needs model_path (a GGUF file or a short name "
                                 "such as smollm2-135m)")
        try:
            path = resolve_model(name)
        except ModelNotInstalledError as exc:
            raise ModelFileError(str(exc)) from exc
        backend = LlamaBackend(path, n_ctx=n_ctx, n_threads=n_threads, seed=seed or 0,
                               use_grammar=use_grammar, cache=cache,
                               ram_cache_bytes=ram_cache_bytes, verbose=verbose)
        super().__init__(backend, max_tokens=max_tokens, temperature=temperature, seed=seed,
                         limits=limits)


class OpenAIPolicy(LLMPolicy):
    """Any OpenAI-compatible chat endpoint (`pip install .[openai]`)."""

    name = "openai"

    def __init__(self, base_url: str | None = None, model: str = "default", *,
                 api_key_env: str = "OPENAI_API_KEY", timeout_s: float = 120.0,
                 max_retries: int = 3, backoff_s: float = 1.0, max_tokens: int = 2048,
                 temperature: float = 0.2, seed: int | None = 0,
                 limits: PromptLimits = DEFAULT_LIMITS) -> None:
        from agent.backends.openai_backend import OpenAIBackend

        backend = OpenAIBackend(base_url, model, api_key_env=api_key_env, timeout_s=timeout_s,
                                max_retries=max_retries, backoff_s=backoff_s)
        super().__init__(backend, max_tokens=max_tokens, temperature=temperature, seed=seed,
                         limits=limits)
