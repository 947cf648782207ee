"""Decontamination: drop training designs whose files resemble any evaluation file.

ROUGE-L F1 on code tokens, with the longest common subsequence computed bit-parallel
(Allison-Dix / Hyyrö: one big-integer update per token of the candidate), so two
20k-token files compare in milliseconds without a quadratic table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_TOKEN_RE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*|\d[\w']*|'[sSdDbBhHoO]?[0-9a-fA-FxXzZ_?]+|\S")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def code_tokens(text: str, strip_comments: bool = False) -> list[str]:
    """Identifier / number / punctuation tokens of Verilog text (comments kept unless asked)."""
    if strip_comments:
        text = _COMMENT_RE.sub(" ", text)
    return _TOKEN_RE.findall(text)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (bit-parallel)."""
    if not a or not b:
        return 0
    if len(a) < len(b):
        a, b = b, a  # bits over the shorter sequence
    masks: dict[str, int] = {}
    for i, tok in enumerate(b):
        masks[tok] = masks.get(tok, 0) | (1 << i)
    full = (1 << len(b)) - 1
    v = full  # bit i set: column i is not yet matched
    for tok in a:
        m = masks.get(tok)
        if m is None:
            continue
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(b) - bin(v).count("1")


def lcs_length_naive(a: Sequence[str], b: Sequence[str]) -> int:
    """Reference O(n*m) dynamic programme (tests compare the fast one against it)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l_f1(candidate: Sequence[str], reference: Sequence[str]) -> float:
    """ROUGE-L F1 = 2PR/(P+R) with P = LCS/|candidate|, R = LCS/|reference|."""
    if not candidate or not reference:
        return 0.0
    lcs = lcs_length(candidate, reference)
    if lcs == 0:
        return 0.0
    p, r = lcs / len(candidate), lcs / len(reference)
    return 2 * p * r / (p + r)


def f1_upper_bound(n: int, m: int) -> float:
    """Largest ROUGE-L F1 two sequences of lengths n and m can have (LCS <= min(n, m))."""
    if n == 0 or m == 0:
        return 0.0
    return 2 * min(n, m) / (n + m)


@dataclass(frozen=True)
class Match:
    """The closest evaluation file of a dropped training design."""

    train_file: str
    """Training file name."""
    eval_file: str
    """Evaluation file name (`design/file`)."""
    f1: float
    """Its ROUGE-L F1."""


@dataclass
class DecontamReport:
    """What decontamination kept and dropped."""

    kept: list[str] = field(default_factory=list)
    """Training design ids kept."""
    dropped: dict[str, Match] = field(default_factory=dict)
    """Training design id -> the match that dropped it."""

    def counts(self) -> dict[str, int]:
        """{"kept": n, "dropped": m}."""
        return {"kept": len(self.kept), "dropped": len(self.dropped)}


def decontaminate(train: Mapping[str, Mapping[str, str]], evaluation: Mapping[str, str],
                  threshold: float = 0.5) -> DecontamReport:
    """Drop a training design when any of its files reaches ROUGE-L F1 >= threshold against any eval file.

    Args:
        train: design id -> {file name: text}.
        evaluation: eval file name -> text (all evaluation designs' files together).
        threshold: the F1 at or above which a design is dropped.
    """
    eval_tokens = {name: code_tokens(text) for name, text in evaluation.items()}
    report = DecontamReport()
    for design_id in sorted(train):
        hit: Match | None = None
        for fname, text in sorted(train[design_id].items()):
            toks = code_tokens(text)
            for ename, etoks in eval_tokens.items():
                # Length alone rules most pairs out before the LCS is computed.
                if f1_upper_bound(len(toks), len(etoks)) < threshold:
                    continue
                f1 = rouge_l_f1(toks, etoks)
                if f1 >= threshold:
                    hit = Match(fname, ename, round(f1, 4))
                    break
            if hit:
                break
        if hit:
            report.dropped[design_id] = hit
        else:
            report.kept.append(design_id)
    return report
