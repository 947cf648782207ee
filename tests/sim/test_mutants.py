"""Pure parts of mutation analysis: expression spans, RTL rewriting, trace comparison, reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.mutation.model import (
    MutationReport,
    Outcome,
    kill_reason,
    mark_equivalent,
    normalize_trace,
)
from sim.mutation.mutants import Mutant, Site, sample
from sim.mutation.report import mutation_json, mutation_text
from sim.mutation.rtl import TracedPort, instrument, trace_block
from sim.mutation.verilog_expr import ExprError, ExprParser, token_at, tokenize


def _spans(text: str, start: int = 0) -> tuple[list[str], ExprParser]:
    tokens = tokenize(text)
    parser = ExprParser(tokens)
    last = parser.parse_at(start)
    joined = [" ".join(t.text for t in tokens[s.first:s.last + 1]) for s in parser.spans]
    assert last == len(tokens) - 1 or tokens[last + 1].text in (";", ")")
    return joined, parser


def test_tokenize_positions_follow_verilator_columns() -> None:
    tokens = tokenize("  q <= q + 8'hFF; // c\n  x = 'b1;")
    assert [t.text for t in tokens] == ["q", "<=", "q", "+", "8'hFF", ";", "x", "=", "'b1", ";"]
    plus = tokens[3]
    assert (plus.line, plus.col) == (1, 10)
    assert token_at(tokens, 2, 3) == 6
    assert token_at(tokens, 1, 2) is None


def test_binary_spans_respect_precedence() -> None:
    spans, parser = _spans("a + b * c == d;")
    binaries = [s for s in parser.spans if s.kind == "binary"]
    texts = {parser.tokens[s.op].text: " ".join(t.text for t in parser.tokens[s.first:s.last + 1]) for s in binaries}
    assert texts == {"*": "b * c", "+": "a + b * c", "==": "a + b * c == d"}
    assert "a" in spans


def test_selects_casts_calls_and_concats_parse() -> None:
    _joined, parser = _spans("{x[W-1:0], $signed(y) >>> 2, 4'(z + 1)} & {2{m}};")
    selected = [" ".join(t.text for t in parser.tokens[s.first:s.last + 1]) for s in parser.spans if s.in_select]
    assert "W - 1" in selected  # a part-select bound must stay constant: never mutated
    free = [" ".join(t.text for t in parser.tokens[s.first:s.last + 1]) for s in parser.spans
            if s.kind == "binary" and not s.in_select]
    assert "z + 1" in free


def test_ternary_records_its_condition() -> None:
    _joined, parser = _spans("sel ? a + 1 : b;")
    cond = next(s for s in parser.spans if s.kind == "cond")
    assert cond.cond == (0, 0)
    assert parser.tokens[cond.op].text == "?"


def test_non_expression_raises() -> None:
    with pytest.raises(ExprError):
        ExprParser(tokenize("begin end")).parse_at(0)


SRC = "module m(input a, output y);\n  assign y = a + b + c;\nendmodule\n"
"""A one-line design for rewriting tests (offsets computed below)."""


def _site(text: str, needle: str, mutated: str, occurrence: int = 0) -> Site:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(needle, start + 1)
    return Site("/m.sv", start, start + len(needle), mutated, text.index("m("))


def test_instrument_nests_mutants_and_keeps_line_numbers() -> None:
    outer = Mutant(1, "operator", "/m.sv", 2, 20, "`a + b + c` -> `a + b - c`", (_site(SRC, "a + b + c", "a + b - c"),))
    inner = Mutant(2, "operator", "/m.sv", 2, 16, "`a + b` -> `a - b`", (_site(SRC, "a + b", "a - b"),))
    out = instrument({"/m.sv": SRC}, [outer, inner], "/m.sv", SRC.index("m("), [TracedPort("y")])["/m.sv"]
    assert out.count("\n") == SRC.count("\n")
    assert "((bw_mut == 1) ? (a + b - c) : (((bw_mut == 2) ? (a - b) : (a + b)) + c))" in out
    assert "int unsigned bw_mut;" in out.splitlines()[0]
    assert "$fwrite(bw_trace_fd" in out.splitlines()[2]
    fixed = instrument({"/m.sv": SRC}, [inner], "/m.sv", SRC.index("m("), [TracedPort("y")], fixed=True)["/m.sv"]
    assert "assign y = (a - b) + c;" in fixed
    assert "bw_mut" not in fixed


def test_dropped_case_arm_is_guarded() -> None:
    text = "module m(input s, output reg y);\n  always @* case (s) 1'b0: y = 1; default: y = 0; endcase\nendmodule\n"
    colon = text.index("1'b0:") + len("1'b0:")
    arm = Mutant(1, "case-arm", "/m.sv", 2, colon, "case arm dropped", (Site("/m.sv", colon, colon, "drop", text.index("m(")),))
    out = instrument({"/m.sv": text}, [arm], "/m.sv", text.index("m("), [])["/m.sv"]
    assert "1'b0: if (bw_mut != 1)  y = 1;" in out


def test_trace_block_lists_unpacked_elements() -> None:
    block = trace_block([TracedPort("q"), TracedPort("arr", (2,))])
    assert "always @(q or arr[0] or arr[1])" in block
    assert trace_block([]) == ""


def test_normalize_trace_keeps_settled_values_only() -> None:
    glitchy = {"bw_trace.t.dut.txt": "0 0\n10 1\n10 0\n10 2\n20 2\n30 3\n"}
    clean = {"bw_trace.t.dut.txt": "0 0\n10 2\n30 3\n"}
    assert normalize_trace(glitchy) == normalize_trace(clean)
    assert normalize_trace(clean) == ("bw_trace.t.dut.txt 0 0", "bw_trace.t.dut.txt 10 2", "bw_trace.t.dut.txt 30 3")


def test_kill_reason() -> None:
    base = Outcome("ok", ("f 0 0", "f 10 1"))
    assert kill_reason(base, Outcome("ok", ("f 0 0", "f 10 1"))) is None
    assert "t=10" in (kill_reason(base, Outcome("ok", ("f 0 0", "f 10 2"))) or "")
    assert "hung" in (kill_reason(base, Outcome("timeout", ())) or "")
    assert kill_reason(base, Outcome("ok", ("f 0 0",))) is not None


def _mutants(n: int) -> tuple[Mutant, ...]:
    kinds = ("operator", "condition", "constant", "stuck-at", "case-arm")
    return tuple(Mutant(i + 1, kinds[i % 5], "/x/m.sv", 10 + i, 1, f"change {i + 1}", ()) for i in range(n))


def test_sample_is_seeded_and_kind_balanced() -> None:
    many = _mutants(50)
    a, b = sample(many, 10, "d"), sample(many, 10, "d")
    assert [m.description for m in a] == [m.description for m in b]
    assert [m.id for m in a] == list(range(1, 11))
    assert {m.kind for m in a} == {"operator", "condition", "constant", "stuck-at", "case-arm"}
    assert len(sample(many, None, "d")) == 50


def test_equivalence_marking_and_score() -> None:
    muts = _mutants(4)
    weak = MutationReport("d", muts, {1: "x"})
    strong = MutationReport("d", muts, {1: "x", 2: "y"})
    weak_m, strong_m = mark_equivalent([weak, strong])
    assert strong_m.equivalent == frozenset({3, 4})
    assert strong_m.score == 100.0
    assert weak_m.score == 50.0
    assert strong_m.ratio == 50.0


def test_mutation_json_and_text_list_survivors() -> None:
    (report,) = mark_equivalent([MutationReport("d", _mutants(3), {1: "outputs differ"})])
    data = mutation_json(report)
    assert data["killed"] == 1
    assert [m["id"] for m in data["survived"]] == [2, 3]
    assert data["killed_list"][0]["why"] == "outputs differ"
    text = mutation_text(report)
    assert "m.sv:11: condition: change 2 (possibly equivalent)" in text
    assert Path(report.mutants[0].file).name in text
