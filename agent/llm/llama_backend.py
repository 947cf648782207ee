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
)
from agent.llm.grammar import make_grammar
from agent.llm.models import gguf_metadata
from agent.llm.program_grammar import make_llama_grammar
from agent.llm.prompting import SV_PROMPTS, PromptLimits, PromptSet, rtl_is_cut
from agent.llm.repetition import repeating
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


class TokenCounter:
    """Counts what a streamed completion sampled (prompt length, tokens) and caps the tokens.

    A streamed llama-cpp-python completion reports no usage; the logits processor sees every
    sampling step, with the whole sequence so far (the prompt on the first call).
    """

    def __init__(self, max_tokens: int, eos_token: int) -> None:
        self.prompt_tokens = 0
        """Tokens of the prompt (the sequence length at the first sampling step)."""
        self.sampled = 0
        """Sampling steps so far (generated tokens, the end-of-sequence one included)."""
        self._cap = max_tokens_guard(max_tokens, eos_token)[0]

    def processors(self) -> Any:
        """The LogitsProcessorList to pass to llama.cpp."""
        from llama_cpp.llama import LogitsProcessorList

        def count(input_ids: Any, scores: Any) -> Any:
            if self.sampled == 0:
                self.prompt_tokens = len(input_ids)
            self.sampled += 1
            return self._cap(input_ids, scores)

        return LogitsProcessorList([count])


def shrink_round(limits: PromptLimits) -> PromptLimits | None:
    """Smaller caps for a follow-up round's report (None: nothing left to shrink).

    The current program or testbench, the uncovered list, the errors and the log shrink to
    their floors first; the RTL excerpts around the holes go last (one window is about 300
    characters, kept as long as anything else can give).
    """
    floors = limits.max_testbench_chars <= 500 and limits.max_uncovered <= 3 and limits.max_errors <= 3 \
        and limits.max_log_lines <= 5
    if not floors:
        return replace(limits, max_testbench_chars=max(500, int(limits.max_testbench_chars * 0.7)),
                       max_uncovered=max(3, limits.max_uncovered * 2 // 3),
                       max_errors=max(3, limits.max_errors * 2 // 3),
                       max_log_lines=max(5, limits.max_log_lines * 2 // 3))
    if limits.max_excerpt_chars > 0:
        return replace(limits, max_excerpt_chars=int(limits.max_excerpt_chars * 0.7)
                       if limits.max_excerpt_chars >= 300 else 0)
    return None


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
                 ram_cache_bytes: int = 0, verbose: bool = False, guard: bool = True) -> None:
        llama_cpp = import_llama_cpp()
        self.model_path = Path(model_path)
        """The GGUF file."""
        self.use_grammar = use_grammar
        """Constrain output with agent/tb.gbnf."""
        self.cache = cache
        """Keep the KV cache between calls (prefix reuse); False re-evaluates every prompt."""
        self.verbose = verbose
        """Let llama.cpp log to stderr after loading."""
        self.guard = guard
        """End a reply that starts repeating itself (agent.llm.repetition) instead of decoding to the cap."""
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

    @property
    def n_params(self) -> int:
        """Parameters of the loaded model."""
        return int(import_llama_cpp().llama_model_n_params(self.llm.model))

    def _grammar(self, top: str, gbnf: str | None = None) -> Any:
        """The (cached) grammar: the SV reply shape for a top module, or GBNF text as given."""
        key = top if gbnf is None else "gbnf:" + gbnf
        if key not in self._grammars:
            self._grammars[key] = make_grammar(top) if gbnf is None else make_llama_grammar(gbnf)
        return self._grammars[key]

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` under the model's tokenizer."""
        return len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _fits(self, parts: Sequence[str], budget: int) -> tuple[bool, int]:
        """Whether message texts fit in `budget` tokens, and their estimated size."""
        n = sum(self.count_tokens(p) + MESSAGE_OVERHEAD_TOKENS for p in parts) + MESSAGE_OVERHEAD_TOKENS
        return n <= budget, n

    def _fit_context(self, prompts: PromptSet, state: State, limits: PromptLimits, budget: int,
                     max_tokens: int) -> PromptLimits:
        """Caps under which the design context fits, shrinking what matters least first.

        The specification, then the RTL (condensed, then cut; the interface summary says what a
        program may use, and a follow-up shows the RTL around the holes), then the summary's long
        lists, then the operations' descriptions (their syntax stays); room for a follow-up turn
        (a reply plus a report) is kept while anything can still shrink, and given up last.
        """
        design = state.design
        system = prompts.system()
        # A follow-up's room: the current program (up to a reply), the report, and the RTL
        # around the holes (at two or more characters a token) once the RTL is shortened.
        room = min(budget // 2, max_tokens + 1024)
        excerpt_room = min(budget // 2, room + limits.max_excerpt_chars // 2) - room
        fitted = limits
        for _ in range(40):
            extra = excerpt_room if room and rtl_is_cut(design, fitted.max_rtl_chars) else 0
            prefix_budget = budget - room - extra
            ok, used = self._fits([system, prompts.context(design, fitted)], prefix_budget)
            if ok:
                return fitted
            if fitted.max_spec_chars > 0:
                spec = fitted.max_spec_chars // 2
                fitted = replace(fitted, max_spec_chars=spec if spec >= 500 else 0)
            elif fitted.max_rtl_chars > 0:
                rtl = int(fitted.max_rtl_chars * min(0.7, prefix_budget / used))
                fitted = replace(fitted, max_rtl_chars=rtl if rtl >= 200 else 0)
            elif fitted.max_view_items > 4:
                fitted = replace(fitted, max_view_items=fitted.max_view_items // 2)
            elif fitted.op_docs and prompts.name == "program":
                fitted = replace(fitted, op_docs=False)
            elif room > 0:
                room = 0
            else:
                break
        raise LLMError(f"cannot fit the design context of {design.name} in n_ctx={self.n_ctx}, even without its "
                       f"RTL and specification (the interface summary alone is {used} tokens): raise n_ctx")

    def fit_limits(self, state: State, limits: PromptLimits, max_tokens: int,
                   prompts: PromptSet | None = None) -> PromptLimits:
        """Shrink prompt caps until the prompt for `state` fits in n_ctx - max_tokens.

        The context (prefix) caps depend only on the design, so the prefix stays
        byte-identical across rounds; the round part absorbs any further shrinking.
        `prompts` is the prompt format (SV by default).
        """
        prompts = prompts or SV_PROMPTS
        budget = self.n_ctx - max_tokens - SAFETY_TOKENS
        if budget < 512:
            raise LLMError(
                f"n_ctx={self.n_ctx} leaves {budget} prompt tokens with max_tokens={max_tokens}; "
                f"raise n_ctx or lower max_tokens")
        design = state.design
        key = (prompts.name, design.name, design.rtl, design.spec, limits)
        fitted = self._limits.get(key)
        if fitted is None:
            fitted = self._fit_context(prompts, state, limits, budget, max_tokens)
            if fitted != limits:
                logger.warning("design %s: RTL/spec context truncated to %d/%d chars to fit n_ctx=%d",
                               design.name, fitted.max_rtl_chars, fitted.max_spec_chars, self.n_ctx)
            self._limits[key] = fitted
        context = prompts.context(design, fitted)
        system = prompts.system()
        head = used = 0
        for _ in range(24):
            ok, used = self._fits([system, context + "\n" + prompts.round(state, fitted)], budget)
            if ok:
                return fitted
            head = head or self._fits([system, context], budget)[1]
            shorter = shrink_round(fitted)
            if shorter is None:
                break
            fitted = shorter
        raise LLMError(f"cannot fit the round prompt of {design.name} in n_ctx={self.n_ctx}: the design's context "
                       f"takes {head} tokens even shortened, the shortest round {used - head} more, and "
                       f"{budget} are free after max_tokens={max_tokens}: raise n_ctx or lower max_tokens")

    def complete(self, messages: ChatMessages, *, max_tokens: int, temperature: float,
                 seed: int | None, top: str, grammar: str | None = None) -> Completion:
        """One chat completion; measures how many prompt tokens came from the KV cache.

        The reply is streamed so that the repetition guard can end it as soon as it loops
        (`finish_reason` `repetition`, the loop described in `stopped`). `grammar` is GBNF
        text to constrain the reply with instead of the SV reply shape.
        """
        llm = self.llm
        if not self.cache:
            llm.reset()
        previous = llm.input_ids[: llm.n_tokens].tolist()
        constraint = self._grammar(top, grammar) if self.use_grammar else None
        llama_cpp = import_llama_cpp()
        llama_cpp.llama_perf_context_reset(llm.ctx)
        counter = TokenCounter(max_tokens, llm.token_eos())
        pieces: list[str] = []
        finish, stopped = "stop", ""
        t0 = time.monotonic()
        try:
            stream = llm.create_chat_completion(
                messages=[dict(m) for m in messages], max_tokens=max_tokens,
                temperature=temperature, seed=seed, grammar=constraint,
                logits_processor=counter.processors(), stream=True)
            finish, stopped = self._read_stream(stream, pieces, program=grammar is not None)
        except RuntimeError as exc:  # llama_decode failures: out of KV slots, backend errors
            llm.reset()
            raise LLMError(f"llama.cpp failed on {self.model_path.name}: {exc}") from exc
        seconds = time.monotonic() - t0
        generated = max(0, counter.sampled - (1 if finish == "stop" else 0))  # the end token is no text
        if generated >= max_tokens and finish != "repetition":
            finish = "length"  # the cap's guard ends in "stop"
        prompt = llm.input_ids[: counter.prompt_tokens].tolist()
        reused = common_prefix(previous, prompt)
        if reused == len(prompt) and reused:
            reused -= 1  # llama.cpp replays the last prompt token to refresh logits
        perf = llama_cpp.llama_perf_context(llm.ctx)
        timings = {"prompt_eval_ms": perf.t_p_eval_ms, "decode_ms": perf.t_eval_ms,
                   "prompt_eval_tokens": float(perf.n_p_eval), "decode_tokens": float(perf.n_eval)}
        return Completion(text="".join(pieces), finish_reason=finish, prompt_tokens=counter.prompt_tokens,
                          completion_tokens=generated, cached_tokens=reused, seconds=seconds,
                          model=self.model_path.name, chat_format=self.chat_format, timings=timings,
                          stopped=stopped)

    def _read_stream(self, stream: Any, pieces: list[str], program: bool = False) -> tuple[str, str]:
        """Collect a streamed reply into `pieces`; (finish reason, why it was stopped early).

        `program`: the reply is a stimulus program (a grammar other than the SV shape), whose
        short lines loop sooner (`repeating(program=True)`).
        """
        finish, since_check = "stop", 0
        try:
            for chunk in stream:
                choice = chunk["choices"][0]
                piece = (choice.get("delta") or {}).get("content") or ""
                if piece:
                    pieces.append(piece)
                    since_check += 1
                    # Judge at each new line (line loops), and now and then within a long line.
                    if self.guard and ("\n" in piece or since_check >= 16):
                        since_check = 0
                        loop = repeating("".join(pieces), program=program)
                        if loop is not None:
                            return "repetition", loop.describe()
                if choice.get("finish_reason"):
                    finish = str(choice["finish_reason"])
        finally:
            close = getattr(stream, "close", None)
            if callable(close):
                close()  # stops decoding when the loop was left early
        return finish, ""

    def close(self) -> None:
        """Free the model and its context."""
        self.llm.close()
