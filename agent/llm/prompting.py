"""Render LLM4Cov-style chat prompts from a state (templates in agent/llm/prompts/*.j2).

The prompt for step t depends on s_t only (memoryless).  The system message and the
RTL/spec context are the same for every round of a design and form a byte-identical
prefix of every round's prompt, so llama.cpp can keep their KV cache between rounds.
Training renders its SFT data with these same functions.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import jinja2

from agent.llm.rtl_fit import allot, excerpts, fit_text
from agent.policy import State
from sim.suite import Design
from sim.types import METRICS, SimResult, Status, UncoveredPoint


class Instruction(enum.StrEnum):
    """What the round asks the model to do."""

    WRITE = "write"
    """s_0: write the first testbench."""
    IMPROVE_COVERAGE = "improve_coverage"
    """The testbench ran: reach the uncovered points."""
    FIX_COMPILE = "fix_compile"
    """The testbench did not compile (or the guard rejected it)."""
    FIX_RUN = "fix_run"
    """It compiled but the run failed: timeout, runtime error, no coverage written."""


# By value, so a status the sim layer adds or drops (e.g. `rejected`) needs no change here.
_FIX_COMPILE = frozenset(s for s in Status if s.value in {"compile_error", "rejected"})
_FIX_RUN = frozenset(s for s in Status if s.value in {"runtime_error", "timeout", "coverage_error"})


@dataclass(frozen=True)
class PromptLimits:
    """Caps that keep a prompt inside a model's context window."""

    max_rtl_chars: int = 60_000
    """RTL characters in the context (files past the cap are cut, last one marked)."""
    max_spec_chars: int = 16_000
    """Specification characters in the context."""
    max_testbench_chars: int = 24_000
    """Characters of the current testbench shown in a follow-up."""
    max_uncovered: int = 30
    """Uncovered points listed in a follow-up."""
    max_errors: int = 20
    """Compile messages listed in a follow-up."""
    max_log_lines: int = 40
    """Log lines shown for a failed run."""
    max_view_items: int = 200
    """Items of each list of the program format's interface summary (inputs, outputs, constants)."""
    op_docs: bool = True
    """Program format: say what each operation does beside its syntax (False: the syntax only,
    the last thing given up to fit a small context; the grammar still holds every reply to it)."""
    max_excerpt_chars: int = 1500
    """Characters of RTL shown around the listed uncovered points in a follow-up, when the
    context's RTL was shortened to fit (0: none)."""
    excerpt_lines: int = 2
    """Lines shown before and after each uncovered point in those excerpts."""
    metric_order: tuple[str, ...] = field(default=("line", "branch", "expr", "toggle"))
    """Order in which uncovered points are listed (the first kinds are the most telling)."""


DEFAULT_LIMITS = PromptLimits()
"""Limits for a context of about 32k tokens."""


@cache
def _env() -> jinja2.Environment:
    """The template environment (package data, StrictUndefined)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("agent.llm", "prompts"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_template(name: str, **values: Any) -> str:
    """Render one template of agent/llm/prompts/ (StrictUndefined)."""
    return _env().get_template(name).render(**values)


def instruction_for(state: State) -> Instruction:
    """Pick the round's instruction from the state's observation."""
    if state.result is None:
        return Instruction.WRITE
    if state.result.status in _FIX_COMPILE:
        return Instruction.FIX_COMPILE
    if state.result.status in _FIX_RUN:
        return Instruction.FIX_RUN
    return Instruction.IMPROVE_COVERAGE


def display_path(path: str | Path, design: Design) -> str:
    """A path as the prompt shows it: relative to the design folder where possible."""
    p = Path(path)
    try:
        return p.relative_to(design.root).as_posix()
    except ValueError:
        return p.name if p.is_absolute() else p.as_posix()


MIN_FILE_CHARS = 200
"""A file allotted fewer characters than this is left out (a name and a marker) rather than cut."""


def read_rtl(design: Design) -> list[tuple[str, str]]:
    """(prompt name, text) of each RTL file in compile order ('// (could not read ...)' on an error)."""
    out = []
    for path in design.rtl:
        try:
            text = path.read_text(encoding="utf-8", errors="replace").rstrip("\n")
        except OSError as exc:
            text = f"// (could not read {path.name}: {exc.strerror})"
        out.append((display_path(path, design), text))
    return out


def rtl_is_cut(design: Design, budget: int) -> bool:
    """Whether the design's RTL is longer than `budget` characters (the context shortens it)."""
    return sum(len(text) for _, text in read_rtl(design)) > budget


def rtl_files(design: Design, budget: int) -> list[dict[str, Any]]:
    """RTL files in compile order within a character budget (agent.llm.rtl_fit shortens them).

    Small files stay whole and the others share the rest; a shortened file has its repeated
    lines collapsed, then its comments dropped, then its middle cut (`truncated` counts the
    characters left out).
    """
    files = read_rtl(design)
    shares = allot([len(text) for _, text in files], budget)
    out: list[dict[str, Any]] = []
    for (name, text), share in zip(files, shares, strict=True):
        if len(text) <= share:
            out.append({"name": name, "text": text, "truncated": 0})
        elif share < MIN_FILE_CHARS:
            out.append({"name": name, "text": "// (left out to fit the context window)", "truncated": len(text)})
        else:
            shown = fit_text(text, share)
            out.append({"name": name, "text": shown, "truncated": max(1, len(text) - len(shown))})
    return out


def hole_excerpts(design: Design, points: list[UncoveredPoint], limits: PromptLimits) -> list[dict[str, Any]]:
    """The RTL around the listed holes, when the context's RTL was shortened (else none)."""
    if limits.max_excerpt_chars <= 0 or not points or not rtl_is_cut(design, limits.max_rtl_chars):
        return []
    sources = {name: text.split("\n") for name, text in read_rtl(design)}
    holes = [(display_path(p.file, design), p.line) for p in points]
    return [{"name": e.name, "first": e.first, "text": e.text()}
            for e in excerpts(sources, holes, around=limits.excerpt_lines, budget=limits.max_excerpt_chars)]


def system_prompt() -> str:
    """The system message (the same for every design and round)."""
    return render_template("system.j2").strip()


def render_context(design: Design, limits: PromptLimits = DEFAULT_LIMITS) -> str:
    """The unchanging part of the user turn: RTL, spec, instance name, reply format."""
    spec = design.spec_text(limits.max_spec_chars).strip()
    return render_template(
        "context.j2", top=design.top, description=design.description,
        files=rtl_files(design, limits.max_rtl_chars), spec=spec,
        instance=design.dut_instance,
    )


def _point_key(p: UncoveredPoint, order: tuple[str, ...]) -> tuple[int, str, int]:
    """Sort uncovered points by metric priority, then location."""
    rank = order.index(p.kind) if p.kind in order else len(order)
    return (rank, p.file, p.line)


def result_view(result: SimResult, design: Design, limits: PromptLimits) -> dict[str, Any]:
    """Plain data for the simulation-result section of refine.j2."""
    errors = [
        f"{display_path(m.file, design) if m.file else '<unknown>'}:{m.line}: "
        f"{m.text}{f' [{m.tag}]' if m.tag else ''}"
        for m in sorted(result.messages, key=lambda m: m.severity != "error")
        if m.severity == "error"
    ][: limits.max_errors]
    log_tail = ""
    if result.status is not Status.OK and (not errors or result.status in _FIX_RUN):
        log_tail = "\n".join(result.log_tail.rstrip().splitlines()[-limits.max_log_lines:])
    metrics: list[dict[str, Any]] = []
    overall = ""
    uncovered: list[dict[str, Any]] = []
    excerpts_shown: list[dict[str, Any]] = []
    if result.status is Status.OK and result.coverage is not None:
        names = [m for m in METRICS if m in result.coverage.metrics]
        names += [m for m in result.coverage.metrics if m not in names]
        for name in names:
            s = result.coverage.metrics[name]
            metrics.append({"name": name, "percent": f"{s.percent:.2f}",
                            "covered": s.covered, "total": s.total})
        overall = f"{result.coverage.overall:.2f}"
        points = sorted(result.uncovered, key=lambda p: _point_key(p, limits.metric_order))
        shown = points[: limits.max_uncovered]
        uncovered = [
            {"file": display_path(p.file, design), "line": p.line, "kind": p.kind,
             "comment": p.comment, "source": p.source.strip()}
            for p in shown
        ]
        excerpts_shown = hole_excerpts(design, shown, limits)
    return {
        "status": result.status.value, "errors": errors,
        "status_line": result.status.value + (f" ({result.detail})" if result.detail else ""),
        "log_tail": log_tail,
        "log_kind": "build" if result.status in _FIX_COMPILE else "simulation",
        "metrics": metrics, "overall": overall, "uncovered": uncovered, "excerpts": excerpts_shown,
        "n_uncovered": len(result.uncovered),
    }


def render_round(state: State, limits: PromptLimits = DEFAULT_LIMITS) -> str:
    """The round-specific tail of the user turn (instruction and feedback)."""
    design = state.design
    instruction = instruction_for(state)
    target = f"{design.target:g}"
    if instruction is Instruction.WRITE and state.testbench is None and not state.format_error:
        return render_template("initial.j2", top=design.top, target=target)
    tb = state.testbench
    tb_cut = 0
    if tb is not None:
        tb = tb.rstrip("\n")
        if len(tb) > limits.max_testbench_chars:
            tb_cut = len(tb) - limits.max_testbench_chars
            tb = tb[: limits.max_testbench_chars]
    return render_template(
        "refine.j2", top=design.top, target=target, instruction=instruction.value,
        testbench=tb, testbench_truncated=tb_cut,
        testbench_lines=len(tb.splitlines()) if tb is not None else 0,
        tb_filename=f"tb_{design.top}.sv", format_error=state.format_error,
        result=result_view(state.result, design, limits) if state.result else None,
    )


def render_messages(state: State, limits: PromptLimits = DEFAULT_LIMITS) -> list[dict[str, str]]:
    """Chat messages for state s_t: `[system, user]`, the user turn = context + round."""
    user = render_context(state.design, limits) + "\n" + render_round(state, limits)
    return [
        {"role": "system", "content": system_prompt()},
        {"role": "user", "content": user},
    ]


def render_prefix_messages(design: Design, limits: PromptLimits = DEFAULT_LIMITS) -> list[dict[str, str]]:
    """The shared prefix as messages: the system turn and the user turn's unchanging head."""
    return [
        {"role": "system", "content": system_prompt()},
        {"role": "user", "content": render_context(design, limits)},
    ]


class PromptSet(Protocol):
    """One prompt format: the system turn, the design's unchanging context, the round's tail.

    `messages_for` renders `[system, user]`, the user turn being the context followed by the
    round; the backend's context fitting shrinks the same caps whichever format it renders.
    """

    name: str
    """`sv` (LLM4Cov's full testbench) or `program` (a stimulus program)."""

    def system(self) -> str:
        """The system message."""
        ...

    def context(self, design: Design, limits: PromptLimits) -> str:
        """The unchanging head of the user turn."""
        ...

    def round(self, state: State, limits: PromptLimits) -> str:
        """The round-specific tail of the user turn."""
        ...


class SVPrompts:
    """The SV testbench format (templates system.j2, context.j2, initial.j2, refine.j2)."""

    name = "sv"
    """Format name."""

    def system(self) -> str:
        """The system message."""
        return system_prompt()

    def context(self, design: Design, limits: PromptLimits) -> str:
        """RTL, spec, instance name, reply format."""
        return render_context(design, limits)

    def round(self, state: State, limits: PromptLimits) -> str:
        """Instruction and feedback."""
        return render_round(state, limits)


SV_PROMPTS = SVPrompts()
"""The SV format's prompts."""


def messages_for(prompts: PromptSet, state: State, limits: PromptLimits = DEFAULT_LIMITS) -> list[dict[str, str]]:
    """Chat messages of state s_t in a prompt format: `[system, user]`."""
    user = prompts.context(state.design, limits) + "\n" + prompts.round(state, limits)
    return [{"role": "system", "content": prompts.system()}, {"role": "user", "content": user}]
