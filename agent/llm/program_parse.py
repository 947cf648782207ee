"""Strict parsing of a program-mode reply: one fenced block holding a program that fits the design.

Under the per-design grammar every reply parses; without one (an OpenAI-compatible
endpoint) a reply that does not is a FormatError whose message is fed back. A reply cut
short (the token cap, or the repetition guard) keeps its complete lines: an unfinished
last line is dropped, an open `repeat` block is closed, and the program says what was cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.llm.parse import FormatError, strip_think
from agent.program.ops import Program, ProgramError, Scope, check
from agent.program.text import parse_program

FORMAT_HINT = ("Reply with exactly one fenced code block (```) that holds the complete program, one operation "
               "per line, and nothing else.")
"""The one-sentence statement of the reply format."""

_FENCE_RE = re.compile(r"^ {0,3}```\s*(?P<info>[\w+-]*)\s*$")


@dataclass(frozen=True)
class ParsedProgram:
    """A program taken from a reply."""

    program: Program
    """The operations (checked against the design's scope)."""
    text: str
    """The block's text as the model wrote it (after salvaging a cut reply)."""
    note: str = ""
    """What was dropped from a cut reply ('' when nothing was)."""


def _block(text: str, cut: bool) -> tuple[str, str]:
    """The fenced block's body, and a note when an unclosed block was salvaged."""
    lines = text.replace("\r\n", "\n").split("\n")
    opens = [i for i, ln in enumerate(lines) if _FENCE_RE.match(ln)]
    if not opens:
        raise FormatError("The reply has no fenced code block. " + FORMAT_HINT)
    start = opens[0]
    close = next((i for i in opens[1:]), None)
    if close is None:
        if not cut:
            raise FormatError("The code block is not closed (no line with only ```). " + FORMAT_HINT)
        body = lines[start + 1:]
        partial = bool(body) and not text.endswith("\n")
        if partial:
            body = body[:-1]  # the unfinished last line
        return "\n".join(body), "the reply was cut short; its complete lines were used" + \
            (" (the unfinished last line was dropped)" if partial else "")
    if len(opens) > 2 and any(ln.strip() for ln in lines[close + 1:]):
        raise FormatError(f"The reply has {len(opens) // 2} code blocks; it must have exactly one. " + FORMAT_HINT)
    return "\n".join(lines[start + 1: close]), ""


def _close_blocks(body: str) -> str:
    """Close a `repeat` block left open (dropping it when it has no lines yet)."""
    lines = [ln for ln in body.split("\n") if ln.split("#", 1)[0].strip()]
    depth = 0
    opened = -1
    for k, ln in enumerate(lines):
        if ln.strip().endswith("{"):
            depth += 1
            opened = k
        elif ln.strip() == "}":
            depth -= 1
    if depth <= 0:
        return body
    if opened == len(lines) - 1:
        return "\n".join(lines[:opened])
    return "\n".join(lines + ["}"] * depth)


def parse_program_reply(text: str, scope: Scope, *, cut: bool = False) -> ParsedProgram:
    """The program of a reply, or FormatError with a corrective message.

    `cut` says the reply was stopped before it ended (token cap or repetition guard): an
    unclosed block is then salvaged instead of rejected.
    """
    body, note = _block(strip_think(text), cut)
    if cut:
        closed = _close_blocks(body)
        if closed != body:
            note = (note + "; " if note else "") + "an unclosed repeat block was closed"
            body = closed
    try:
        program = parse_program(body)
        check(program, scope)
    except ProgramError as exc:
        raise FormatError(f"The program does not fit the design: {exc}. " + FORMAT_HINT) from None
    if not program.ops:
        raise FormatError("The program is empty. " + FORMAT_HINT)
    return ParsedProgram(program, body, note)
