"""OpenAI-compatible chat backend (vLLM, llama.cpp server, ollama, OpenAI) with strict retries."""

from __future__ import annotations

import logging
import os
import time
from dataclasses import replace
from typing import Any

from agent.llm.completion import (
    ChatMessages,
    Completion,
    EndpointError,
    MissingExtraError,
    completion_from_openai,
)
from agent.llm.prompting import PromptLimits, PromptSet
from agent.llm.repetition import repeating
from agent.policy import State

logger = logging.getLogger(__name__)

RETRY_STATUS = frozenset({408, 429})
"""4xx statuses that are transient (request timeout, rate limit); every 5xx is too."""

ABORT_ERRORS = ("AuthenticationError", "PermissionDeniedError", "BadRequestError",
                "NotFoundError", "UnprocessableEntityError", "ConflictError")
"""`openai` exception classes that are never retried (the request itself is wrong)."""

TRANSIENT_ERRORS = ("APITimeoutError", "APIConnectionError", "InternalServerError", "RateLimitError")
"""`openai` exception classes retried with backoff (timeouts, connection, 5xx, 429)."""


def import_openai() -> Any:
    """Import openai or raise an error that names the extra."""
    try:
        import openai
    except ImportError as exc:
        raise MissingExtraError(
            f"the openai policy needs the openai package: install with `pip install .[openai]` "
            f"({exc})") from exc
    return openai


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible endpoint."""

    name = "openai"

    def __init__(self, base_url: str | None, model: str, *, api_key_env: str = "OPENAI_API_KEY",
                 timeout_s: float = 120.0, max_retries: int = 3, backoff_s: float = 1.0) -> None:
        openai = import_openai()
        self.base_url = base_url
        """Endpoint root, e.g. `http://127.0.0.1:8000/v1` (None: the openai package default)."""
        self.model = model
        """Model name sent with every request."""
        self.api_key_env = api_key_env
        """Environment variable holding the API key."""
        self.timeout_s = timeout_s
        """Per-request timeout."""
        self.max_retries = max_retries
        """Retries after a transient error (so at most max_retries + 1 requests)."""
        self.backoff_s = backoff_s
        """First retry delay; doubles on each further retry."""
        self._openai = openai
        self._abort = tuple(getattr(openai, n) for n in ABORT_ERRORS)
        self._transient = tuple(getattr(openai, n) for n in TRANSIENT_ERRORS)
        # Local servers need no key; a placeholder keeps the client from refusing to start,
        # and a real endpoint answers 401, which names the variable below.
        key = os.environ.get(api_key_env) or "no-key"
        # The client's own retries are off: this class decides what is transient.
        self.client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout_s,
                                    max_retries=0)
        """The `openai.OpenAI` client."""

    def _where(self) -> str:
        """Endpoint and model, for error messages."""
        return f"{self.base_url or 'default OpenAI endpoint'} (model {self.model!r})"

    def _is_transient(self, exc: Exception) -> bool:
        """Whether a failed request may succeed when repeated."""
        if isinstance(exc, self._abort):
            return False
        if isinstance(exc, self._transient):
            return True
        status = getattr(exc, "status_code", None)
        return isinstance(status, int) and (status >= 500 or status in RETRY_STATUS)

    def _fail(self, exc: Exception, attempts: int) -> EndpointError:
        """The final error for a request that will not be retried (any more)."""
        status = getattr(exc, "status_code", None)
        if isinstance(exc, self._openai.APITimeoutError):
            return EndpointError(f"{self._where()}: timed out after {self.timeout_s:g} s "
                                 f"({attempts} attempt{'s' * (attempts > 1)})")
        if isinstance(exc, self._openai.AuthenticationError):
            return EndpointError(f"{self._where()}: HTTP 401 unauthorized; set the API key in "
                                 f"${self.api_key_env}")
        if status is not None:
            return EndpointError(f"{self._where()}: HTTP {status} after {attempts} attempt"
                                 f"{'s' * (attempts > 1)}: {getattr(exc, 'message', exc)}")
        return EndpointError(f"{self._where()}: {type(exc).__name__} after {attempts} attempt"
                             f"{'s' * (attempts > 1)}: {exc}")

    def complete(self, messages: ChatMessages, *, max_tokens: int, temperature: float,
                 seed: int | None, top: str, grammar: str | None = None) -> Completion:
        """One chat completion, retrying only transient failures.

        `grammar` is not sent (endpoints differ in how they take one); a program-mode reply
        is checked by the parser instead. A reply that ran to the cap repeating itself is
        marked `repetition` (the endpoint cannot be stopped early here).
        """
        request: dict[str, Any] = {
            "model": self.model, "messages": [dict(m) for m in messages],
            "max_tokens": max_tokens, "temperature": temperature,
        }
        if seed is not None:
            request["seed"] = seed
        t0 = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self.client.chat.completions.create(**request)
            except self._openai.OpenAIError as exc:
                if not self._is_transient(exc) or attempt > self.max_retries:
                    raise self._fail(exc, attempt) from exc
                delay = self.backoff_s * 2 ** (attempt - 1)
                logger.warning("%s: %s (attempt %d), retrying in %.2f s",
                               self._where(), type(exc).__name__, attempt, delay)
                time.sleep(delay)
                continue
            completion = completion_from_openai(response.model_dump(), time.monotonic() - t0,
                                                attempts=attempt)
            loop = repeating(completion.text) if completion.finish_reason == "length" else None
            if loop is not None:
                return replace(completion, finish_reason="repetition", stopped=loop.describe())
            return completion

    def fit_limits(self, state: State, limits: PromptLimits, max_tokens: int,
                   prompts: PromptSet | None = None) -> PromptLimits:
        """The endpoint's context size is unknown here: keep the configured caps."""
        return limits

    def close(self) -> None:
        """Close the HTTP client."""
        self.client.close()
