"""RTL that fits a prompt (repeats collapsed, comments dropped, the middle cut), and RTL around holes.

A big case table (a Morse or 8b/10b encoder) is hundreds of lines of one shape; the model
learns as much from three of them and a line saying how many more there are. What cannot be
condensed keeps its head (the module header and ports) and its tail (the logic written last)
and loses its middle. When the context's RTL was shortened, a follow-up round shows the
lines around the uncovered points instead, so the holes are always seen in their source.
Pure text functions: the prompt renderer reads the files and calls them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

MIN_RUN = 6
"""Consecutive lines of one shape from which a run is collapsed."""

KEEP_HEAD = 2
"""Lines kept at the start of a collapsed run (and one at its end)."""

HEAD_SHARE = 0.6
"""Share of the budget a cut file keeps from its start (the rest from its end)."""

MARKER_CHARS = 64
"""Characters kept free for the marker of a cut middle."""

_LITERAL = re.compile(r"\d+'[sS]?[bBoOdDhH][0-9a-fA-F_xXzZ?]+|'[bBoOdDhH][0-9a-fA-F_xXzZ?]+|\b\d[\d_]*\b")
_SPACE = re.compile(r"\s+")
_COMMENT_ONLY = re.compile(r"^\s*(//.*)?$")


def line_shape(line: str) -> str:
    """A line with its number literals and comment replaced, spacing collapsed: what a table row looks like."""
    code = line.split("//", 1)[0]
    return _SPACE.sub(" ", _LITERAL.sub("#", code)).strip()


def condense(text: str, min_run: int = MIN_RUN) -> str:
    """`text` with every run of `min_run` or more same-shape lines collapsed to its first and last lines.

    The collapsed lines become one comment that says how many lines of that shape were left
    out and where they were (1-based line numbers of the original text).
    """
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        shape = line_shape(lines[i])
        j = i + 1
        while j < len(lines) and shape and line_shape(lines[j]) == shape:
            j += 1
        if shape and j - i >= min_run:
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            left = j - i - KEEP_HEAD - 1
            out += lines[i: i + KEEP_HEAD]
            out.append(f"{indent}// ... {left} more lines like these (lines {i + KEEP_HEAD + 1}-{j - 1}) left out ...")
            out.append(lines[j - 1])
        else:
            out += lines[i:j]
        i = j
    return "\n".join(out)


def drop_comments(text: str) -> str:
    """`text` without its comment-only and blank lines (the `// ...` markers of `condense` stay)."""
    return "\n".join(ln for ln in text.split("\n") if not _COMMENT_ONLY.match(ln) or "// ... " in ln)


def cut_middle(text: str, budget: int) -> str:
    """The first and last lines of `text` within `budget` characters, a marker where the middle was."""
    lines = text.split("\n")
    head: list[str] = []
    used = MARKER_CHARS
    for ln in lines:
        if used + len(ln) + 1 > budget * HEAD_SHARE:
            break
        head.append(ln)
        used += len(ln) + 1
    tail: list[str] = []
    for ln in reversed(lines[len(head):]):
        if used + len(ln) + 1 > budget:
            break
        tail.append(ln)
        used += len(ln) + 1
    tail.reverse()
    gone = len(lines) - len(head) - len(tail)
    if gone <= 0:
        return text
    marker = f"// ... {gone} lines (lines {len(head) + 1}-{len(head) + gone}) left out to fit ..."
    return "\n".join([*head, marker, *tail])


def fit_text(text: str, budget: int) -> str:
    """`text` within `budget` characters: as is, condensed, without comments, then its middle cut."""
    if len(text) <= budget:
        return text
    for shorter in (condense(text), drop_comments(condense(text))):
        if len(shorter) <= budget:
            return shorter
    return cut_middle(drop_comments(condense(text)), budget)


def allot(sizes: Sequence[int], budget: int) -> list[int]:
    """Characters per file within `budget`: small files whole, the rest share what is left equally."""
    shares = [0] * len(sizes)
    left, open_ = budget, sorted(range(len(sizes)), key=lambda k: sizes[k])
    while open_:
        fair = left // len(open_)
        k = open_[0]
        if sizes[k] > fair:
            for k in open_:
                shares[k] = fair
            break
        shares[k] = sizes[k]
        left -= sizes[k]
        open_.pop(0)
    return shares


@dataclass(frozen=True)
class Excerpt:
    """Lines of one RTL file around one or more holes."""

    name: str
    """The file as the prompt names it."""
    first: int
    """1-based number of the first line shown."""
    lines: tuple[str, ...]
    """The lines, in order."""

    def text(self) -> str:
        """The lines numbered as in the file (`  87| ...`)."""
        width = len(str(self.first + len(self.lines) - 1))
        return "\n".join(f"{self.first + k:>{width}}| {ln}" for k, ln in enumerate(self.lines))


def excerpts(sources: Mapping[str, Sequence[str]], holes: Iterable[tuple[str, int]], *, around: int = 2,
             budget: int = 1500) -> list[Excerpt]:
    """The lines around each hole, windows of a file merged, in hole order until `budget` characters.

    `sources` maps a file's prompt name to its lines; `holes` are (name, 1-based line) pairs
    in the order they matter most (a hole in a file not in `sources` is skipped).
    """
    windows: dict[str, list[tuple[int, int]]] = {}
    order: list[str] = []
    used = 0
    for name, line in holes:
        lines = sources.get(name)
        if lines is None or not 1 <= line <= len(lines):
            continue
        lo, hi = max(1, line - around), min(len(lines), line + around)
        spans = windows.setdefault(name, [])
        if any(a <= lo and hi <= b for a, b in spans):
            continue
        cost = sum(len(lines[k - 1]) + 8 for k in range(lo, hi + 1))
        if used + cost > budget:
            break
        used += cost
        spans.append((lo, hi))
        if name not in order:
            order.append(name)
    out: list[Excerpt] = []
    for name in order:
        merged: list[list[int]] = []
        for lo, hi in sorted(windows[name]):
            if merged and lo <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        lines = sources[name]
        out += [Excerpt(name, lo, tuple(lines[lo - 1: hi])) for lo, hi in merged]
    return out
