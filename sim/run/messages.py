"""Parse Verilator's compiler output into structured Messages (pure)."""

from __future__ import annotations

import re

from sim.types import Message

_HEAD = re.compile(
    r"^%(?P<sev>Error|Warning)(?:-(?P<tag>[A-Z0-9_]+))?:\s*"
    r"(?:(?P<file>[^:\s][^:]*?):(?P<line>\d+):(?:(?P<col>\d+):)?\s*)?(?P<text>.*)$"
)
"""`%Error-TAG: file:line:col: text` (tag, location and column optional)."""

_NOISE = ("Exiting due to", "Command Failed", "This may be because there's no search path")
"""Summary lines that repeat information already given by real messages."""


def parse_messages(log: str) -> list[Message]:
    """All %Error/%Warning messages of a Verilator log, errors first, in order.

    Continuation lines (`: ... note`, indented source excerpts) are folded into the
    preceding message's text only when they carry words, not carets.
    """
    messages: list[Message] = []
    for raw in log.splitlines():
        match = _HEAD.match(raw.strip())
        if not match:
            continue
        text = match.group("text").strip()
        if any(text.startswith(n) for n in _NOISE):
            continue
        if text.startswith("... "):
            continue
        messages.append(
            Message(
                file=match.group("file") or "",
                line=int(match.group("line") or 0),
                column=int(match.group("col") or 0),
                severity="error" if match.group("sev") == "Error" else "warning",
                tag=match.group("tag") or "",
                text=text,
            )
        )
    return sorted(messages, key=lambda m: m.severity != "error")


def first_error(messages: list[Message]) -> Message | None:
    """The first error message, if any."""
    return next((m for m in messages if m.severity == "error"), None)
