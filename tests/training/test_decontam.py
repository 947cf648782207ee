from __future__ import annotations

import numpy as np
import pytest

from training.data.decontam import (
    code_tokens,
    decontaminate,
    f1_upper_bound,
    lcs_length,
    lcs_length_naive,
    rouge_l_f1,
)

COUNTER = "module counter(input clk, output reg [7:0] q);\n  always @(posedge clk) q <= q + 1;\nendmodule\n"


def test_tokens_split_identifiers_numbers_and_punctuation() -> None:
    assert code_tokens("assign y = a & 8'hFF; // note") == ["assign", "y", "=", "a", "&", "8'hFF", ";", "/", "/", "note"]
    assert code_tokens("x /* c */ y", strip_comments=True) == ["x", "y"]


@pytest.mark.parametrize(("a", "b", "n"), [
    ("", "abc", 0), ("abc", "abc", 3), ("abcbdab", "bdcaba", 4), ("aaaa", "aa", 2), ("xyz", "abc", 0),
], ids=["empty", "equal", "classic", "repeats", "disjoint"])
def test_lcs_known_values(a: str, b: str, n: int) -> None:
    assert lcs_length(list(a), list(b)) == n
    assert lcs_length_naive(list(a), list(b)) == n


def test_bit_parallel_lcs_matches_dynamic_programme_on_random_sequences() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = [str(x) for x in rng.integers(0, 5, size=int(rng.integers(0, 40)))]
        b = [str(x) for x in rng.integers(0, 5, size=int(rng.integers(0, 40)))]
        assert lcs_length(a, b) == lcs_length_naive(a, b) == lcs_length(b, a)


def test_rouge_l_f1_values() -> None:
    toks = code_tokens(COUNTER)
    assert rouge_l_f1(toks, toks) == pytest.approx(1.0)
    assert rouge_l_f1(toks, []) == 0.0
    # LCS 2 of lengths 4 and 2: P = 0.5, R = 1, F1 = 2/3
    assert rouge_l_f1(list("abcd"), list("bd")) == pytest.approx(2 / 3)
    assert f1_upper_bound(4, 2) == pytest.approx(2 / 3)


def test_decontaminate_drops_at_threshold_and_reports_match() -> None:
    renamed = COUNTER.replace("counter", "cnt8")
    train = {
        "copy": {"a.sv": COUNTER},
        "renamed": {"b.sv": renamed, "c.sv": "module other; endmodule"},
        "fresh": {"d.sv": "module fifo #(parameter W=4)(input logic clk, rst, push, pop); logic [W-1:0] m; endmodule"},
    }
    report = decontaminate(train, {"ev/counter.sv": COUNTER}, threshold=0.5)
    assert report.kept == ["fresh"]
    assert set(report.dropped) == {"copy", "renamed"}
    assert report.dropped["copy"].f1 == 1.0
    assert report.dropped["renamed"].train_file == "b.sv"
    assert report.counts() == {"kept": 1, "dropped": 2}
    # A threshold above the renamed copy's F1 keeps it.
    f1 = rouge_l_f1(code_tokens(renamed), code_tokens(COUNTER))
    assert f1 < 1.0
    assert "renamed" in decontaminate(train, {"ev/counter.sv": COUNTER}, threshold=f1 + 1e-3).kept
