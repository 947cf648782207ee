"""Why a trial failed, and which input values were in force: the `avoid` rules the search learns.

The harness prints `bw_op <k>` as it starts the k-th data-file line and `bw_s <n>` at every
step of a `random` operation, so the last markers before an error name the operation and
step that were running. Python replays the program's input values up to there (`rng.py`
draws exactly what the testbench drew) and turns the vector in force into candidate
forbidden combinations: each input that had just changed, paired with an input sitting at a
corner value (0, all ones, a 1-bit input's either value). A DUT `$fatal`, an assertion or
Verilator's DIDNOTCONVERGE with no assertion to blame all count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent.program.encode import op_lines
from agent.program.ops import Op, Program, assigns
from agent.program.rng import random_steps
from agent.program.target import MAX_AVOID_PAIRS, Target
from sim.types import SimResult

MAX_RULES = 3
"""Most avoid rules learned from one failure."""

_OP_MARK = re.compile(r"^bw_op (\d+)\b", re.M)
_STEP_MARK = re.compile(r"^bw_s (\d+)\b", re.M)
_ERROR = re.compile(r"^.*%(?:Error|Fatal)[^\n]*$", re.M)


@dataclass(frozen=True)
class Failure:
    """One failed trial."""

    reason: str
    """Short cause: `DIDNOTCONVERGE`, `$fatal: <message>`, `assertion <file:line>`, ..."""
    op_index: int | None
    """Program operation that was running (None when the log does not say)."""
    values: tuple[tuple[str, int], ...] = ()
    """The inputs in force when it failed (the changed ones and those at corner values)."""
    avoid: tuple[Op, ...] = ()
    """`avoid` rules learned from it."""
    step: int = 0
    """For a failing `random` operation: the step that was running (its earlier steps are legal)."""

    def describe(self) -> str:
        """`DIDNOTCONVERGE when start=1 and divisor=0`."""
        if not self.avoid:
            return self.reason

        def show(k: str, v: object) -> str:
            return f"{k}={v:#x}" if isinstance(v, int) and v > 9 else f"{k}={v}"

        rule = self.avoid[0]
        same_lead = [r for r in self.avoid if len(r.args) == 2 and r.args[0] == rule.args[0]]
        if len(rule.args) == 2 and len(same_lead) > 1:
            # Several inputs were at a corner with the one that changed: name them all, since
            # the run cannot tell which (start=1 with dividend=0 and divisor=0 both in force).
            return (f"{self.reason} when {show(*rule.args[0])} and "
                    f"({' or '.join(show(*r.args[1]) for r in same_lead)})")
        return f"{self.reason} when " + " and ".join(show(k, v) for k, v in rule.args)


def failure_reason(log: str) -> str:
    """A short cause from a failed run's log."""
    if "did not converge" in log or "DIDNOTCONVERGE" in log:
        return "DIDNOTCONVERGE"
    m = _ERROR.search(log)
    if m is None:
        return "runtime error"
    text = re.sub(r"^\[\d+\]\s*", "", m.group(0)).strip()
    text = re.sub(r"%(Error|Fatal)(-\w+)?:\s*", "", text)
    return text[:100]


def _line_to_op(t: Target, program: Program, line: int) -> int | None:
    """Program operation of data-file line `line` (repeats and serial bytes are several lines)."""
    seen = 0
    for k, o in enumerate(program.ops):
        seen += len(op_lines(t, o))
        if line < seen:
            return k
    return None


def _state_before(t: Target, program: Program, upto: int) -> list[int]:
    """Input values when operation `upto` starts (what Python can follow; other ops leave inputs idle)."""
    values = [f.idle for f in t.fields]
    draw = t.draw_fields()
    for o in program.ops[:upto]:
        if o.name == "reset":
            values = [f.idle for f in t.fields]
        elif o.name == "set":
            for k, v in o.args:
                if isinstance(v, int):
                    values[t.index(k)] = v
        elif o.name == "random":
            steps = _random_steps(t, o, values, draw)
            if steps:
                values = list(steps[-1][0])
    return values


def _random_steps(t: Target, o: Op, start: Sequence[int], draw: Sequence[object]) -> list[tuple[tuple[int, ...], int]]:
    from agent.program.encode import only_mask

    mask = only_mask(t, o)
    return random_steps(t.draw_fields(), start, cycles=min(o.num("cycles"), 20_000), seed=o.num("seed"),
                        pal=o.num("pal"), keep=o.num("keep"), maxhold=o.num("maxhold"), resets=o.num("resets"),
                        only=[bool(mask >> i & 1) for i in range(len(t.fields))],
                        asserted=[f.asserted for f in t.fields], idle=[f.idle for f in t.fields])


def _rules(t: Target, now: Sequence[int], before: Sequence[int], blamed: Sequence[str]) -> tuple[tuple[tuple[str, int], ...], tuple[Op, ...]]:
    """(values in force worth naming, avoid rules) from the vector at the failure and the one before."""
    data = [i for i, f in enumerate(t.fields) if not f.reset]
    changed = [i for i in data if now[i] != before[i]]
    corner = [i for i in data if now[i] in (0, t.fields[i].mask)]
    named = [i for i in data if t.fields[i].name in blamed]
    lead = named or changed
    rules: list[tuple[tuple[str, int], ...]] = []
    for i in lead:
        partners = sorted((j for j in corner if j != i), key=lambda j: (now[j] != 0, j))
        for j in partners[:MAX_RULES]:
            rules.append(((t.fields[i].name, now[i]), (t.fields[j].name, now[j])))
        if not partners:
            rules.append(((t.fields[i].name, now[i]),))
    rules = list(dict.fromkeys(rules))[:MAX_RULES]
    shown = tuple(dict.fromkeys((t.fields[i].name, now[i]) for i in [*lead, *corner][:6]))
    return shown, tuple(assigns("avoid", list(r)[:MAX_AVOID_PAIRS]) for r in rules)


def analyse_failure(t: Target, program: Program, result: SimResult, blamed: Sequence[str] = ()) -> Failure:
    """What a failed run tells: its cause, the operation running, the values in force, rules to avoid them."""
    log = result.log_tail or result.detail
    reason = failure_reason(f"{log}\n{result.detail}")
    ops = [int(m) for m in _OP_MARK.findall(log)]
    if not ops:
        return Failure(reason, None)
    k = _line_to_op(t, program, ops[-1])
    if k is None:
        return Failure(reason, None)
    before = _state_before(t, program, k)
    failing = program.ops[k]
    if failing.name == "random":
        tail = log[log.rfind(f"bw_op {ops[-1]}"):]
        marks = [int(m) for m in _STEP_MARK.findall(tail)]
        step = marks[-1] if marks else 0
        steps = _random_steps(t, failing, before, t.draw_fields())
        if steps:
            step = min(step, len(steps) - 1)
            now = list(steps[step][0])
            prev = list(steps[step - 1][0]) if step > 0 else before
            shown, rules = _rules(t, now, prev, blamed)
            return Failure(reason, k, shown, rules, step)
    if failing.name == "set":
        now = list(before)
        for name, v in failing.args:
            if isinstance(v, int):
                now[t.index(name)] = v
        shown, rules = _rules(t, now, before, blamed)
        return Failure(reason, k, shown, rules)
    if failing.name in ("hold", "wait"):
        # Inputs do not change while holding: what fails is what the last `set` put in force
        # (a long run with every enable high, a start held with a zero divisor).
        j = k - 1
        while j >= 0 and program.ops[j].name in ("hold", "wait"):
            j -= 1
        if j >= 0 and program.ops[j].name == "set":
            shown, rules = _rules(t, list(before), _state_before(t, program, j), blamed)
            return Failure(reason, k, shown, rules)
    return Failure(reason, k)


def summarize_failures(failures: Sequence[Failure]) -> list[str]:
    """`12 trials failed: DIDNOTCONVERGE when start=1 and divisor=0`, one line per distinct cause."""
    counts: dict[str, int] = {}
    for f in failures:
        key = f.describe()
        counts[key] = counts.get(key, 0) + 1
    return [f"{n} trial{'s' if n != 1 else ''} failed: {text}" for text, n in sorted(counts.items(),
                                                                                    key=lambda kv: -kv[1])]
