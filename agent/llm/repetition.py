"""Detect a reply that has started repeating itself, so decoding can stop instead of running to the cap.

A small model that loses its way emits the same line (`four_bit_adder adder7;`, the
prompt's instruction paragraph, `@(posedge clk);`) until the token cap, which costs
minutes on a CPU and yields nothing usable. `repeating(text)` looks at the text generated
so far and says whether it ends in such a loop (pure; the llama backend calls it as the
reply streams in):

- the same block of lines, word for word, at least `EXACT_REPEATS` times in a row and
  `EXACT_CHARS` characters in all;
- the same block of lines once numbers are ignored, when every number only counts (`adder65;
  adder66; adder67;`, each position an arithmetic progression over the copies): a block of
  three or more lines `COUNT_COPIES` times over `COUNT_LINES` lines, a block of one or two
  lines over `LOOSE_LINES` lines (real register lists stay below). Blocks whose numbers
  carry data (a testbench's test cases: `8'd5`, `8'd7`, `8'd20`) are never a loop. Checked
  against the public suite's and the real repositories' sources and testbenches;
- a run of characters with no new line that repeats a short piece `CHAR_REPEATS` times.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

EXACT_REPEATS = 4
"""Copies of a block of lines that count as a loop."""

EXACT_CHARS = 400
"""Characters the copies must span together (short legitimate repeats stay below)."""

EXACT_MIN_LINES = 8
"""Lines the copies must span together."""

PROGRAM_CHARS = 60
"""`program=True`: characters four word-for-word copies must span (program lines are short, and
four identical operations in a row never add coverage the first did not)."""

PROGRAM_MIN_LINES = 4
"""`program=True`: lines those copies must span."""

LOOSE_LINES = 80
"""Lines of one- or two-line blocks that count up, for a loop."""

COUNT_COPIES = 12
"""Copies of a longer counting block, for a loop."""

COUNT_LINES = 60
"""Lines such copies must span."""

MAX_PERIOD_LINES = 48
"""Longest block (in lines) considered."""

CHAR_REPEATS = 8
"""Copies of a piece of a line that count as a loop."""

CHAR_MIN = 200
"""Characters such a run must span."""

MAX_PERIOD_CHARS = 64
"""Longest piece of a line considered."""

_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Loop:
    """A loop at the end of a text."""

    kind: str
    """`lines` (word for word), `lines-numbers` (numbers aside) or `chars` (within a line)."""
    period: int
    """Lines (or characters) in one copy."""
    copies: int
    """Copies in a row at the end."""
    sample: str
    """The repeated piece (first line of it, shortened)."""

    def describe(self) -> str:
        """A sentence for the step's error."""
        unit = "characters" if self.kind == "chars" else "lines"
        how = " (apart from numbers that count up)" if self.kind == "lines-numbers" else ""
        return (f"the reply started repeating itself{how}: {self.copies} copies in a row of {self.period} {unit} "
                f"like {self.sample!r}")


def _run_of_copies(items: list[str], period: int) -> int:
    """How many copies of the last `period` items end `items`, counting in whole copies."""
    n = len(items)
    k = 0
    while n - period - k - 1 >= 0 and items[n - 1 - k] == items[n - 1 - k - period]:
        k += 1
    return (k + period) // period


def _counts_only(span: list[str], period: int, copies: int) -> bool:
    """Whether every number of the repeated block steps by a constant from copy to copy."""
    rows = [[int(n) for ln in span[k * period:(k + 1) * period] for n in _DIGITS.findall(ln)]
            for k in range(copies)]
    for position in zip(*rows, strict=True):
        steps = {b - a for a, b in itertools.pairwise(position)}
        if len(steps) > 1:
            return False
    return True


def _line_loop(lines: list[str], loose: bool, min_chars: int = EXACT_CHARS,
               min_lines: int = EXACT_MIN_LINES) -> Loop | None:
    keys = [_SPACE.sub(" ", _DIGITS.sub("#", ln) if loose else ln).strip() for ln in lines]
    tail = keys[-(max(LOOSE_LINES * 2, MAX_PERIOD_LINES * COUNT_COPIES) if loose
                  else MAX_PERIOD_LINES * (EXACT_REPEATS + 1)):]
    for period in range(1, min(MAX_PERIOD_LINES, len(tail) // 2) + 1):
        copies = _run_of_copies(tail, period)
        if copies < (2 if loose else EXACT_REPEATS) or not any(tail[-period:]):
            continue  # (blank lines are not a loop)
        span = lines[len(lines) - copies * period:]
        if loose:
            # A longer period over lines that also repeat every line or two is a short block.
            short = period <= 2 or any(_run_of_copies(tail, p) * p >= len(span) for p in (1, 2))
            if len(span) < (LOOSE_LINES if short else COUNT_LINES) or (not short and copies < COUNT_COPIES):
                continue
            if not _counts_only(span, period, copies):
                continue
        elif sum(len(s) + 1 for s in span) < min_chars or len(span) < min_lines:
            continue
        sample = next((ln.strip() for ln in lines[-period:] if ln.strip()), "")
        return Loop("lines-numbers" if loose else "lines", period, copies, sample[:60])
    return None


def _char_loop(line: str) -> Loop | None:
    tail = line[-(MAX_PERIOD_CHARS * CHAR_REPEATS * 2):]
    for period in range(1, min(MAX_PERIOD_CHARS, len(tail) // 2) + 1):
        copies = _run_of_copies(list(tail), period)
        if copies >= CHAR_REPEATS and copies * period >= CHAR_MIN and tail[-period:].strip():
            return Loop("chars", period, copies, tail[-period:][:60])
    return None


def repeating(text: str, *, program: bool = False) -> Loop | None:
    """The loop `text` ends in, or None (complete lines are judged; the open line for `chars`).

    `program` judges a stimulus program: four copies of a block of lines in a row are a
    loop from `PROGRAM_CHARS` characters on.
    """
    *complete, current = text.split("\n")
    min_chars, min_lines = (PROGRAM_CHARS, PROGRAM_MIN_LINES) if program else (EXACT_CHARS, EXACT_MIN_LINES)
    if len(complete) >= min_lines:
        found = _line_loop(complete, loose=False, min_chars=min_chars, min_lines=min_lines) \
            or _line_loop(complete, loose=True)
        if found is not None:
            return found
    return _char_loop(current) if len(current) >= CHAR_MIN else None


def cut_loop(text: str, loop: Loop) -> str:
    """`text` with the loop's extra copies removed (the first copy kept)."""
    if loop.kind == "chars":
        return text[: len(text) - (loop.copies - 1) * loop.period]
    *complete, _ = text.split("\n")
    keep = complete[: len(complete) - (loop.copies - 1) * loop.period]
    return "\n".join(keep) + "\n"
