"""An opening several programs of a testbench share, written once as a task (pure).

The programs a search keeps often open alike: the scenario that found them configured the
design first (a divisor latch opened, written and closed, registers set, a loopback on), and
its children keep that opening. Written out in every program it is read again and again and
spends the testbench's line budget (`engine.MAX_TB_LINES`) on repeats; as a task
(`bw_setup_1`) that each of those programs calls after its reset it is read once.
`sv_read.parse_testbench` expands the calls again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SETUP_TASK = "bw_setup_"
"""Name stem of the shared-opening tasks (`bw_setup_1`, `bw_setup_2`, ...)."""

MIN_SHARED = 3
"""Fewest statements worth a task (the task costs two lines of its own)."""

MAX_TASKS = 4
"""Most shared openings one testbench gets (a reader follows a few names, not a dozen)."""

CALL = re.compile(rf"({SETUP_TASK}\d+)\(\);")
"""A line calling a shared-opening task."""


def _plain(line: str) -> bool:
    """A statement that may move into a task: no reset, check, comment, or block of its own."""
    s = line.strip()
    return bool(s) and not s.startswith(("//", "bw_reset(", "bw_check(")) and not s.endswith("begin") and \
        s != "end" and not CALL.fullmatch(s)


def _openings(lines: Sequence[str]) -> list[tuple[int, int]]:
    """(first, end) of each program's opening: the run of plain statements after a reset."""
    out = []
    for i, line in enumerate(lines):
        if line.strip().startswith("bw_reset("):
            j = i + 1
            while j < len(lines) and _plain(lines[j]):
                j += 1
            out.append((i + 1, j))
    return out


def share_openings(lines: Sequence[str]) -> tuple[list[str], list[str]]:
    """(task declarations, the lines with each shared opening replaced by a call to its task).

    Greedy: the opening prefix that saves the most lines first (shared by n programs, k
    statements long: n * (k - 1) lines fewer, k + 2 more for the task), then the next.
    """
    body = list(lines)
    tasks: list[str] = []
    for number in range(1, MAX_TASKS + 1):
        runs = _openings(body)
        users: dict[tuple[str, ...], list[int]] = {}
        for first, end in runs:
            text = [s.strip() for s in body[first:end]]
            for k in range(MIN_SHARED, len(text) + 1):
                users.setdefault(tuple(text[:k]), []).append(first)
        if not users:
            break
        prefix, firsts = max(users.items(), key=lambda kv: (len(kv[1]) * (len(kv[0]) - 1) - len(kv[0]) - 2,
                                                             len(kv[0])))
        if len(firsts) < 2 or len(firsts) * (len(prefix) - 1) - len(prefix) - 2 <= 0:
            break
        name = f"{SETUP_TASK}{number}"
        tasks += [f"task automatic {name}();  // the opening {len(firsts)} programs share",
                  *(f"  {s}" for s in prefix), "endtask"]
        for first in reversed(firsts):
            indent = body[first][: len(body[first]) - len(body[first].lstrip())]
            body[first:first + len(prefix)] = [f"{indent}{name}();"]
    return tasks, body


def expand_openings(text: str, body: str) -> str:
    """`body` (lines of a testbench `text`) with each shared-opening call replaced by its task's statements."""
    tasks = {m.group(1): m.group(2) for m in
             re.finditer(rf"task automatic ({SETUP_TASK}\d+)\(\);[^\n]*\n(.*?)\n\s*endtask", text, re.DOTALL)}
    out = []
    for line in body.splitlines():
        m = CALL.fullmatch(line.strip())
        if m is None:
            out.append(line)
            continue
        if m.group(1) not in tasks:
            raise ValueError(f"a call of a task the testbench does not declare: {line.strip()}")
        out += tasks[m.group(1)].splitlines()
    return "\n".join(out)
