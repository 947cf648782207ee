"""LLM policies: prompt -> backend -> strict parse, behind the Policy protocol.

`LlamaPolicy` runs a local GGUF through llama-cpp-python (`pip install .[llama]`),
`OpenAIPolicy` any OpenAI-compatible endpoint (`pip install .[openai]`).  Both backends
return OpenAI-shaped dicts, normalized by `completion_from_openai` into a `Completion`.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from agent.llm.completion import Backend, ModelFileError
from agent.llm.parse import FormatError, parse_response
from agent.llm.prompting import DEFAULT_LIMITS, PromptLimits, render_messages
from agent.policy import Budget, Proposal, State

logger = logging.getLogger(__name__)


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
        from agent.llm.llama_backend import LlamaBackend
        from agent.llm.models import ModelNotInstalledError, resolve_model

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
        from agent.llm.openai_backend import OpenAIBackend

        backend = OpenAIBackend(base_url, model, api_key_env=api_key_env, timeout_s=timeout_s,
                                max_retries=max_retries, backoff_s=backoff_s)
        super().__init__(backend, max_tokens=max_tokens, temperature=temperature, seed=seed,
                         limits=limits)
