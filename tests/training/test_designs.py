from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.suite import load_design
from training.config import DataConfig
from training.data.designs import (
    RepoRecord,
    length_reason,
    parse_repo_line,
    prepare,
    split_held_out,
    top_reason,
    write_design,
)
from training.data.hdl_text import find_tops

LEAF = "module leaf(input a, output y); assign y = ~a; endmodule\n"
TOP = "// module fake;\nmodule top(input a, output y);\n  leaf u0 (.a(a), .y(y));\nendmodule\n"
PARAM_TOP = "module top2(input a, output y);\n  leaf #(.W(1)) u_leaf (.a(a), .y(y));\nendmodule\n"


def test_find_tops_ignores_comments_and_definitions() -> None:
    assert find_tops([LEAF, TOP]) == ["top"]
    assert find_tops([LEAF, PARAM_TOP]) == ["top2"]
    assert find_tops([LEAF, TOP, PARAM_TOP]) == ["top", "top2"]
    assert find_tops([LEAF]) == ["leaf"]
    assert find_tops(["// module x;\n"]) == []


def test_top_reason() -> None:
    assert top_reason(RepoRecord("a", {"l.v": LEAF, "t.v": TOP})) == (None, "top")
    assert top_reason(RepoRecord("b", {"t.v": TOP, "p.v": PARAM_TOP, "l.v": LEAF}))[0] == "multi_top"
    assert top_reason(RepoRecord("c", {"x.v": "// nothing"}))[0] == "no_module"
    assert top_reason(RepoRecord("d", {"t.v": TOP, "p.v": PARAM_TOP, "l.v": LEAF}, top="top2")) == (None, "top2")
    assert top_reason(RepoRecord("e", {"l.v": LEAF}, top="missing"))[0] == "top_not_defined"
    # mutual instantiation: no module is left uninstantiated
    a = "module a; b ub (); endmodule\n"
    b = "module b; a ua (); endmodule\n"
    assert top_reason(RepoRecord("f", {"a.v": a, "b.v": b}))[0] == "no_top"


@pytest.mark.parametrize(("rec", "reason"), [
    (RepoRecord("a", {}), "no_rtl"),
    (RepoRecord("a", {"x.v": "m" * 10}), "too_short"),
    (RepoRecord("a", {"x.v": "m" * 5000}), "too_long"),
    (RepoRecord("a", {f"{i}.v": "m" * 50 for i in range(5)}), "too_many_files"),
    (RepoRecord("a", {"x.v": "m" * 500}), None),
], ids=["empty", "short", "long", "files", "fits"])
def test_length_filters(rec: RepoRecord, reason: str | None) -> None:
    assert length_reason(rec, min_chars=100, max_chars=4000, max_files=4) == reason


def test_jsonl_line_shapes() -> None:
    rec = parse_repo_line(json.dumps({"id": "r/1", "files": {"a.v": LEAF, "README.md": "x"}}), "f:1")
    assert rec.id == "r_1"
    assert list(rec.files) == ["a.v"]
    rec2 = parse_repo_line(json.dumps({"id": "x", "files": [{"path": "t.sv", "content": TOP}], "top": "top"}), "f:2")
    assert rec2.files == {"t.sv": TOP}
    assert rec2.top == "top"
    with pytest.raises(ValueError, match="needs 'id' and 'files'"):
        parse_repo_line(json.dumps({"files": {}}), "f:3")


def test_write_design_is_loadable(tmp_path: Path) -> None:
    d = write_design(RepoRecord("rep", {"rtl/l.v": LEAF, "t.v": TOP}, spec="Invert a."), "top", tmp_path)
    again = load_design(tmp_path / "rep")
    assert d.top == again.top == "top"
    assert len(d.rtl) == 2
    assert d.spec_text() == "Invert a."


def test_split_named_and_seeded() -> None:
    names = [f"d{i}" for i in range(10)]
    assert split_held_out(names, ["d1", "d2*"], 0.0, 0) == ([n for n in names if n not in ("d1", "d2")], ["d1", "d2"])
    train, held = split_held_out(names, [], 0.3, 5)
    assert len(held) == 3
    assert sorted(train + held) == sorted(names)
    assert split_held_out(list(reversed(names)), [], 0.3, 5) == (train, held)


def test_prepare_counts_each_filter(tmp_path: Path) -> None:
    fifo = "module fifo #(parameter W=4)(input logic clk, rst, push, pop, output logic full);\n" \
           "  logic [W-1:0] count;\n  always_ff @(posedge clk) if (rst) count <= 0; else if (push) count <= count + 1;\n" \
           "  assign full = &count;\nendmodule\n"
    lines = [
        {"id": "good", "files": {"l.v": LEAF, "t.v": TOP}},
        {"id": "multi", "files": {"t.v": TOP, "p.v": PARAM_TOP, "l.v": LEAF}},
        {"id": "short", "files": {"x.v": "module s; endmodule"}},
        {"id": "copy", "files": {"f.sv": fifo}},
        {"id": "held", "files": {"f.sv": fifo.replace("fifo", "fifo2")}},
    ]
    jsonl = tmp_path / "repos.jsonl"
    jsonl.write_text("".join(json.dumps(x) + "\n" for x in lines))
    cfg = DataConfig(jsonl=[str(jsonl)], held_out=["held"], min_chars=40)
    report = prepare(cfg, tmp_path / "out")
    assert report.counts == {"loaded": 5, "held_out": 1, "after_name_filter": 4, "after_length_filter": 3,
                             "after_single_top": 2, "after_decontam": 1, "train": 1}
    assert report.dropped == {"name_filter": 0, "too_short": 1, "multi_top": 1, "decontaminated": 1}
    assert report.decontam["copy"]["eval_file"] == "held/f.sv"
    assert load_design(tmp_path / "out" / "train" / "good").top == "top"
    assert load_design(tmp_path / "out" / "heldout" / "held").top == "fifo2"
