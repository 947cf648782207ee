"""LLM policies: prompt -> backend -> strict parse, behind the Policy protocol.

`LlamaPolicy` runs a local GGUF through llama-cpp-python (`pip install .[llama]`),
`OpenAIPolicy` any OpenAI-compatible endpoint (`pip install .[openai]`).  Both backends
return OpenAI-shaped dicts, normalized by `completion_from_openai` into a `Completion`.

Two reply formats (`format=`): `sv`, LLM4Cov's complete testbench, and `program`, a
stimulus program (agent.program) under a per-design grammar that the policy renders into
the testbench itself, so every reply builds. `auto` picks `program` for small models and
small contexts and `sv` for large ones (`choose_format`). The policies default to `sv`;
`benchwright run`/`bench` (`--llm-format`) and the language server (`benchwright.policy.format`)
default to `auto`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from agent.llm.completion import Backend, Completion, ModelFileError
from agent.llm.parse import FormatError, parse_response
from agent.llm.prompting import DEFAULT_LIMITS, SV_PROMPTS, PromptLimits, messages_for
from agent.policy import Budget, Proposal, State
from sim.errors import SimError
from sim.suite import Design

logger = logging.getLogger(__name__)

FORMATS = ("auto", "program", "sv")
"""Reply formats an LLM policy can be asked for."""

SV_MIN_PARAMS = 7e9
"""`auto`: models with fewer parameters write programs (a 4B model's full testbench takes many
minutes per proposal on a laptop CPU; a 135M model's never builds)."""

SV_MIN_CTX = 16384
"""`auto`: contexts smaller than this write programs (a testbench reply needs thousands of tokens)."""


def choose_format(requested: str, backend: Any) -> tuple[str, str]:
    """(format, why) for a backend: `requested` unless it is `auto`."""
    if requested not in FORMATS:
        raise ValueError(f"LLM format {requested!r} is not in supported list: {', '.join(FORMATS)}")
    if requested != "auto":
        return requested, "requested"
    params = getattr(backend, "n_params", None)
    n_ctx = getattr(backend, "n_ctx", None)
    if params is None and n_ctx is None:
        return "sv", "auto: an endpoint of unknown size (a large model is assumed)"
    if isinstance(n_ctx, int) and n_ctx < SV_MIN_CTX:
        return "program", f"auto: context {n_ctx} < {SV_MIN_CTX} tokens"
    if isinstance(params, int) and params < SV_MIN_PARAMS:
        return "program", f"auto: {params / 1e9:.2g}B parameters < {SV_MIN_PARAMS / 1e9:g}B"
    return "sv", "auto: a large model with a large context"


class LLMPolicy:
    """Policy that renders the state, asks a backend, and parses the reply strictly."""

    name = "llm"
    """Registry name (overridden by subclasses)."""

    def __init__(self, backend: Backend, *, max_tokens: int = 2048, temperature: float = 0.2,
                 seed: int | None = 0, limits: PromptLimits = DEFAULT_LIMITS, format: str = "sv",
                 redraws: int = 2) -> None:
        self.backend = backend
        """Where completions come from."""
        self.redraws = redraws
        """Program mode: replies drawn again (at REDRAW_TEMPERATURE) when a refinement's reply is the
        program it was shown; the last one is taken whatever it is."""
        self.format, self.format_reason = choose_format(format, backend)
        """`program` or `sv` (resolved from `auto`), and why."""
        self._targets: dict[tuple[Any, ...], Any] = {}
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
        if self.format == "program":
            try:
                target = self.target(state.design)
            except SimError as exc:
                logger.warning("%s: program mode needs the design's interface (%s); writing SV instead",
                               state.design.name, exc)
                return self._propose_sv(state, note=f"program mode unavailable: {exc}")
            return self._propose_program(state, target)
        return self._propose_sv(state)

    def _complete(self, state: State, messages: list[dict[str, str]], grammar: str | None = None,
                  temperature: float | None = None) -> Completion:
        seed = None if self.seed is None else self.seed + self.calls
        self.calls += 1
        return self.backend.complete(messages, max_tokens=self.max_tokens,
                                     temperature=self.temperature if temperature is None else temperature,
                                     seed=seed, top=state.design.top, grammar=grammar)

    def _propose_sv(self, state: State, note: str = "") -> Proposal:
        """LLM4Cov's format: the reply is the complete testbench."""
        limits = self.backend.fit_limits(state, self.limits, self.max_tokens, prompts=SV_PROMPTS)
        messages = messages_for(SV_PROMPTS, state, limits)
        completion = self._complete(state, messages)
        usage = {"backend": self.backend.name, "format": "sv", **completion.usage(),
                 **({"format_note": note} if note else {})}
        base = Proposal(testbench="", filename=f"tb_{state.design.top}.sv",
                        response=completion.text, messages=tuple(dict(m) for m in messages),
                        usage=usage)
        try:
            parsed = parse_response(completion.text, state.design.top)
        except FormatError as exc:
            return replace(base, format_error=_with_stop(exc.message, completion))
        return replace(base, testbench=parsed.code, filename=parsed.filename)

    def target(self, design: Design) -> Any:
        """The design as programs see it (cached per design; reads the interface with Verilator)."""
        key = (design.name, design.top, design.rtl)
        if key not in self._targets:
            from agent.heuristic.engine import make_target
            from sim.analysis.interface import read_interface

            self._targets[key], _ = make_target(design, read_interface(design), "heuristic")
        return self._targets[key]

    def _propose_program(self, state: State, target: Any) -> Proposal:
        """Program mode: the reply is a stimulus program; the testbench is rendered from it."""
        from agent.llm.program_grammar import program_grammar
        from agent.llm.program_parse import parse_program_reply
        from agent.llm.program_prompting import ProgramPrompts
        from agent.program.sv import render_testbench
        from agent.program.text import canonical_program

        prompts = ProgramPrompts(target)
        limits = self.backend.fit_limits(state, self.limits, self.max_tokens, prompts=prompts)
        messages = messages_for(prompts, state, limits)
        shown = _shown_program(state, target)
        grammar = program_grammar(target).gbnf
        redrawn = 0
        while True:
            # A refinement that writes the program it was shown again spends a simulator call on
            # what is already known: draw again, hotter, a few times before accepting it.
            again = redrawn > 0
            completion = self._complete(state, messages, grammar=grammar,
                                        temperature=max(self.temperature, REDRAW_TEMPERATURE) if again else None)
            usage = {"backend": self.backend.name, "format": "program", **completion.usage(),
                     **({"repeats_redrawn": redrawn} if shown is not None else {})}
            base = Proposal(testbench="", filename=f"tb_{state.design.top}.sv", response=completion.text,
                            messages=tuple(dict(m) for m in messages), usage=usage)
            text = completion.text
            if completion.finish_reason == "repetition":
                from agent.llm.repetition import cut_loop, repeating

                loop = repeating(text, program=True)
                text = cut_loop(text, loop) if loop is not None else text  # one copy of the loop is enough
            try:
                parsed = parse_program_reply(text, target.scope,
                                             cut=completion.finish_reason in ("length", "repetition"))
            except FormatError as exc:
                return replace(base, format_error=_with_stop(exc.message, completion))
            if shown is None or canonical_program(parsed.program) != shown or redrawn >= self.redraws:
                break
            redrawn += 1
        notes = [n for n in (parsed.note, completion.stopped) if n]
        model = completion.model or self.backend.name
        tb = render_testbench(target, parsed.program, title=f"a stimulus program written by {model}",
                              notes=notes)
        usage.update(program_ops=sum(1 for _ in parsed.program.walk()), **({"salvaged": parsed.note}
                                                                          if parsed.note else {}))
        return replace(base, testbench=tb, usage=usage)

    def close(self) -> None:
        """Release the backend."""
        self.backend.close()


REDRAW_TEMPERATURE = 0.9
"""Sampling temperature of a reply drawn again because the first repeated the program shown."""


def _shown_program(state: State, target: Any) -> Any:
    """The program of the state's testbench when it is one we rendered (None at s_0 or for foreign text)."""
    if not state.testbench:
        return None
    from agent.program.sv_read import parse_testbench

    return parse_testbench(state.testbench, target)


def _with_stop(message: str, completion: Completion) -> str:
    """A parse error, prefixed with why decoding was stopped early (the repetition guard)."""
    if not completion.stopped:
        return message
    return (f"Decoding was stopped after {completion.completion_tokens} tokens because {completion.stopped}. "
            + message)


class LlamaPolicy(LLMPolicy):
    """A local GGUF model through llama-cpp-python (`pip install .[llama]`)."""

    name = "llama"

    def __init__(self, model_path: str | None = None, *, model: str | None = None,
                 n_ctx: int = 8192, n_threads: int | None = None, max_tokens: int = 2048,
                 temperature: float = 0.2, seed: int | None = 0, use_grammar: bool = True,
                 cache: bool = True, ram_cache_bytes: int = 0,
                 limits: PromptLimits = DEFAULT_LIMITS, verbose: bool = False, format: str = "sv",
                 guard: bool = True) -> None:
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
                               ram_cache_bytes=ram_cache_bytes, verbose=verbose, guard=guard)
        super().__init__(backend, max_tokens=max_tokens, temperature=temperature, seed=seed,
                         limits=limits, format=format)


class OpenAIPolicy(LLMPolicy):
    """Any OpenAI-compatible chat endpoint (`pip install .[openai]`)."""

    name = "openai"

    def __init__(self, base_url: str | None = None, model: str = "default", *,
                 api_key_env: str = "OPENAI_API_KEY", timeout_s: float = 120.0,
                 max_retries: int = 3, backoff_s: float = 1.0, max_tokens: int = 2048,
                 temperature: float = 0.2, seed: int | None = 0,
                 limits: PromptLimits = DEFAULT_LIMITS, format: str = "sv") -> None:
        from agent.llm.openai_backend import OpenAIBackend

        backend = OpenAIBackend(base_url, model, api_key_env=api_key_env, timeout_s=timeout_s,
                                max_retries=max_retries, backoff_s=backoff_s)
        super().__init__(backend, max_tokens=max_tokens, temperature=temperature, seed=seed,
                         limits=limits, format=format)
