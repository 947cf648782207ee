"""llama-cpp-python backend: GGUF loading with clear errors, grammar, prefix KV reuse."""

from __future__ import annotations

import contextlib
import io
import logging
import struct
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.llm.completion import (
    ChatMessages,
    Completion,
    LLMError,
    MissingExtraError,
    ModelFileError,
    completion_from_openai,
)
from agent.llm.grammar import make_grammar
from agent.llm.models import gguf_metadata
from agent.llm.prompting import (
    PromptLimits,
    render_context,
    render_round,
    system_prompt,
)
from agent.policy import State

logger = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"
"""First four bytes of every GGUF file."""

MESSAGE_OVERHEAD_TOKENS = 8
"""Chat-template tokens per message (role markers, newlines), an upper estimate."""

SAFETY_TOKENS = 64
"""Slack kept free in the context for template and tokenization differences."""

FALLBACK_CHAT_FORMATS = {"gemma": "gemma", "gemma2": "gemma", "gemma3": "gemma", "qwen2": "chatml",
                         "qwen3": "chatml"}
"""llama.cpp chat format by `general.architecture`, for GGUFs without `tokenizer.chat_template`
(the Gemma 3 270M base has none; llama.cpp's own default would be Llama-2's `[INST]`)."""


def fallback_chat_format(metadata: dict[str, Any]) -> str | None:
    """The chat format to force when a GGUF has no template of its own, else None."""
    if metadata.get("tokenizer.chat_template"):
        return None
    return FALLBACK_CHAT_FORMATS.get(str(metadata.get("general.architecture", "")))


def import_llama_cpp() -> Any:
    """Import llama_cpp or raise an error that names the extra."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise MissingExtraError(
            f"the llama policy needs llama-cpp-python: install with `pip install .[llama]` "
            f"({exc})") from exc
    return llama_cpp


def check_gguf_file(path: Path) -> None:
    """Raise ModelFileError unless `path` is a readable file starting with the GGUF magic."""
    if not path.exists():
        raise ModelFileError(f"model file not found: {path}")
    if not path.is_file():
        raise ModelFileError(f"model path is not a file: {path}")
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelFileError(f"cannot read model file {path}: {exc.strerror}") from exc
    if magic != GGUF_MAGIC:
        raise ModelFileError(f"not a valid GGUF model: {path} (file does not start with 'GGUF')")


def max_tokens_guard(max_tokens: int, eos_token: int) -> Any:
    """A logits processor that forces end-of-sequence once `max_tokens` tokens are out.

    llama-cpp-python 0.3.36 skips its own max_tokens check while the text ends in an
    incomplete UTF-8 sequence, so a model that keeps emitting such byte tokens (random
    weights under greedy decoding do) generates until the context is full and then fails
    in llama_decode. `create_chat_completion` takes no stopping criteria, so this guard
    works on the logits instead; it never fires while the library's own check works.
    """
    import numpy as np
    from llama_cpp.llama import LogitsProcessorList

    calls = [0]

    def guard(input_ids: Any, scores: Any) -> Any:
        calls[0] += 1
        if calls[0] <= max_tokens:
            return scores
        forced = np.full_like(scores, -np.inf)
        forced[eos_token] = 0.0
        return forced

    return LogitsProcessorList([guard])


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class LlamaBackend:
    """One loaded GGUF model; successive calls reuse the KV cache of the shared prompt prefix."""

    name = "llama"

    def __init__(self, model_path: str | Path, *, n_ctx: int = 8192, n_threads: int | None = None,
                 seed: int = 0, use_grammar: bool = True, cache: bool = True,
                 ram_cache_bytes: int = 0, verbose: bool = False) -> None:
        llama_cpp = import_llama_cpp()
        self.model_path = Path(model_path)
        """The GGUF file."""
        self.use_grammar = use_grammar
        """Constrain output with agent/tb.gbnf."""
        self.cache = cache
        """Keep the KV cache between calls (prefix reuse); False re-evaluates every prompt."""
        self.verbose = verbose
        """Let llama.cpp log to stderr after loading."""
        self._grammars: dict[str, Any] = {}
        self._limits: dict[tuple[Any, ...], PromptLimits] = {}
        check_gguf_file(self.model_path)
        params: dict[str, Any] = {}
        with contextlib.suppress(ValueError, OSError, struct.error, KeyError, ImportError):
            # A header llama.cpp would reject anyway is reported by _load below.
            params["chat_format"] = fallback_chat_format(gguf_metadata(self.model_path))
        self.llm = self._load(llama_cpp, n_ctx=n_ctx, n_threads=n_threads, seed=seed, **params)
        """The llama_cpp.Llama instance."""
        self.n_ctx: int = int(self.llm.n_ctx())
        """Context window in tokens."""
        self.chat_template: str = str(self.llm.metadata.get("tokenizer.chat_template") or "")
        """The GGUF's own chat template ('' when the file has none)."""
        self.chat_format: str = str(self.llm.chat_format or "")
        """llama.cpp's choice: `chat_template.default` renders `chat_template` with Jinja2."""
        if not self.chat_template:
            logger.warning("%s has no tokenizer.chat_template; using llama.cpp's %r format",
                           self.model_path.name, self.chat_format)
        if ram_cache_bytes > 0:
            # Saves the full state after each call; helps when one model alternates designs.
            self.llm.set_cache(llama_cpp.LlamaRAMCache(capacity_bytes=ram_cache_bytes))

    def _load(self, llama_cpp: Any, **params: Any) -> Any:
        """Construct the Llama, turning llama.cpp's failures into ModelFileError."""
        # verbose=False would make llama-cpp-python dup2 /dev/null over fds 1 and 2 while
        # loading, which can swallow a language server's JSON-RPC output on another thread.
        # Load verbosely instead, capturing the Python-level log writes into a buffer that
        # also explains a failed load.
        log = io.StringIO()
        try:
            with contextlib.redirect_stderr(log):
                llm = llama_cpp.Llama(model_path=str(self.model_path), verbose=True, **params)
        except (ValueError, RuntimeError, OSError) as exc:
            reason = [ln for ln in log.getvalue().splitlines() if "error" in ln.lower() or "fail" in ln.lower()]
            detail = "; ".join(reason[-3:]) or str(exc)
            raise ModelFileError(f"not a valid GGUF model: {self.model_path} ({detail})") from exc
        finally:
            if not self.verbose:
                logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)
        llm.verbose = self.verbose
        return llm

    def _grammar(self, top: str) -> Any:
        """The (cached) grammar for a top module."""
        if top not in self._grammars:
            self._grammars[top] = make_grammar(top)
        return self._grammars[top]

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` under the model's tokenizer."""
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _fits(self, parts: Sequence[str], budget: int) -> tuple[bool, int]:
        """Whether message texts fit in `budget` tokens, and their estimated size."""
        n = sum(self.count_tokens(p) + MESSAGE_OVERHEAD_TOKENS for p in parts) + MESSAGE_OVERHEAD_TOKENS
        return n <= budget, n

    def fit_limits(self, state: State, limits: PromptLimits, max_tokens: int) -> PromptLimits:
        """Shrink prompt caps until the prompt for `state` fits in n_ctx - max_tokens.

        The context (prefix) caps depend only on the design, so the prefix stays
        byte-identical across rounds; the round part absorbs any further shrinking.
        """
        budget = self.n_ctx - max_tokens - SAFETY_TOKENS
        if budget < 512:
            raise LLMError(
                f"n_ctx={self.n_ctx} leaves {budget} prompt tokens with max_tokens={max_tokens}; "
                f"raise n_ctx or lower max_tokens")
        design = state.design
        key = (design.name, design.rtl, design.spec, limits)
        fitted = self._limits.get(key)
        if fitted is None:
            # Keep room for a follow-up turn: a testbench as long as a reply, plus a report.
            prefix_budget = budget - min(budget // 2, max_tokens + 1024)
            fitted = limits
            system = system_prompt()
            for _ in range(12):
                ok, used = self._fits([system, render_context(design, fitted)], prefix_budget)
                if ok:
                    break
                ratio = prefix_budget / used
                if fitted.max_spec_chars > 2000:
                    fitted = replace(fitted, max_spec_chars=fitted.max_spec_chars // 2)
                else:
                    fitted = replace(fitted, max_rtl_chars=max(200, int(fitted.max_rtl_chars * ratio * 0.9)))
            else:
                raise LLMError(f"cannot fit the design context of {design.name} in n_ctx={self.n_ctx}")
            if fitted != limits:
                logger.warning("design %s: RTL/spec context truncated to %d/%d chars to fit n_ctx=%d",
                               design.name, fitted.max_rtl_chars, fitted.max_spec_chars, self.n_ctx)
            self._limits[key] = fitted
        context = render_context(design, fitted)
        system = system_prompt()
        for _ in range(12):
            ok, used = self._fits([system, context + "\n" + render_round(state, fitted)], budget)
            if ok:
                return fitted
            fitted = replace(
                fitted, max_testbench_chars=max(500, int(fitted.max_testbench_chars * 0.7)),
                max_uncovered=max(3, fitted.max_uncovered * 2 // 3),
                max_errors=max(3, fitted.max_errors * 2 // 3),
                max_log_lines=max(5, fitted.max_log_lines * 2 // 3))
        raise LLMError(f"cannot fit the round prompt of {design.name} in n_ctx={self.n_ctx}")

    def complete(self, messages: ChatMessages, *, max_tokens: int, temperature: float,
                 seed: int | None, top: str) -> Completion:
        """One chat completion; measures how many prompt tokens came from the KV cache."""
        llm = self.llm
        if not self.cache:
            llm.reset()
        previous = llm.input_ids[: llm.n_tokens].tolist()
        grammar = self._grammar(top) if self.use_grammar else None
        llama_cpp = import_llama_cpp()
        llama_cpp.llama_perf_context_reset(llm.ctx)
        t0 = time.monotonic()
        try:
            data = llm.create_chat_completion(
                messages=[dict(m) for m in messages], max_tokens=max_tokens,
                temperature=temperature, seed=seed, grammar=grammar,
                logits_processor=max_tokens_guard(max_tokens, llm.token_eos()))
        except RuntimeError as exc:  # llama_decode failures: out of KV slots, backend errors
            llm.reset()
            raise LLMError(f"llama.cpp failed on {self.model_path.name}: {exc}") from exc
        seconds = time.monotonic() - t0
        completion = completion_from_openai(data, seconds)
        if completion.completion_tokens >= max_tokens:
            completion = replace(completion, finish_reason="length")  # the guard ends in "stop"
        prompt = llm.input_ids[: completion.prompt_tokens].tolist()
        reused = common_prefix(previous, prompt)
        if reused == len(prompt) and reused:
            reused -= 1  # llama.cpp replays the last prompt token to refresh logits
        perf = llama_cpp.llama_perf_context(llm.ctx)
        timings = {"prompt_eval_ms": perf.t_p_eval_ms, "decode_ms": perf.t_eval_ms,
                   "prompt_eval_tokens": float(perf.n_p_eval), "decode_tokens": float(perf.n_eval)}
        return replace(completion, cached_tokens=reused, model=self.model_path.name,
                       timings=timings, chat_format=self.chat_format)

    def close(self) -> None:
        """Free the model and its context."""
        self.llm.close()
