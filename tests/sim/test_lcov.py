from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from sim.run.coverage import CoverageReport, read_coverage, restrict
from sim.run.lcov import render_lcov, write_lcov

DATA = Path(__file__).resolve().parents[1] / "data" / "sim" / "coverage"
REF = "/work/shared/benchmarks/public/verilogeval__count_clock/rtl/Prob141_count_clock_ref.sv"

GOLDEN_GOOD1 = f"""\
TN:benchwright
SF:{REF}
DA:21,100000
DA:22,16
DA:23,16
DA:25,9980
DA:28,1662
DA:31,166
DA:34,27
DA:37,2
DA:40,3
LF:9
LH:9
BRDA:24,0,0,99841
BRDA:24,0,1,143
BRDA:26,0,0,89861
BRDA:26,0,1,0
BRDA:29,0,0,8318
BRDA:29,0,1,89861
BRDA:32,0,0,1496
BRDA:32,0,1,98179
BRDA:35,0,0,139
BRDA:35,0,1,99675
BRDA:38,0,0,25
BRDA:38,0,1,99814
BRDA:41,0,0,2
BRDA:41,0,1,99836
BRDA:43,0,0,2
BRDA:43,0,1,99839
BRF:16
BRH:15
end_of_record
"""


def load(stem: str) -> CoverageReport:
    return read_coverage(DATA / f"{stem}.dat")


def records(text: str) -> list[list[str]]:
    out: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        current.append(line)
        if line == "end_of_record":
            out.append(current)
            current = []
    assert current == []
    return out


def test_golden_dut_instance() -> None:
    report = restrict(load("count_clock"), ["tb.good1"])
    assert render_lcov(report) == GOLDEN_GOOD1


@pytest.mark.parametrize("stem", ["fsm_seq_detector", "count_clock", "bcd_adder", "count_clock_merged"])
def test_structure(stem: str) -> None:
    report = load(stem)
    text = render_lcov(report, test_name="t1")
    assert text == render_lcov(report, test_name="t1")  # deterministic
    recs = records(text)
    paths = [r[1].removeprefix("SF:") for r in recs]
    assert paths == sorted(set(paths))
    branch_lines: dict[str, set[int]] = {}
    line_lines: dict[str, set[int]] = {}
    for p in report.points:
        target = branch_lines if p.kind == "branch" else line_lines if p.kind == "line" else None
        if target is not None:
            target.setdefault(p.file, set()).update(p.lines if p.kind == "line" and p.lines else (p.line,))
    for rec, path in zip(recs, paths, strict=True):
        assert rec[0] == "TN:t1"
        assert rec[1].startswith("SF:")
        assert Path(path).is_absolute()
        fields = {line.split(":", 1)[0] for line in rec[2:-1]}
        assert fields <= {"DA", "LF", "LH", "BRDA", "BRF", "BRH"}
        da = [tuple(map(int, line[3:].split(","))) for line in rec if line.startswith("DA:")]
        brda = [line[5:].split(",") for line in rec if line.startswith("BRDA:")]
        lf = int(next(line for line in rec if line.startswith("LF:"))[3:])
        lh = int(next(line for line in rec if line.startswith("LH:"))[3:])
        brf = int(next(line for line in rec if line.startswith("BRF:"))[4:])
        brh = int(next(line for line in rec if line.startswith("BRH:"))[4:])
        assert lf == len(da)
        assert lh == sum(1 for _, c in da if c > 0)
        assert lh <= lf
        assert brf == len(brda)
        assert brh == sum(1 for b in brda if b[3] not in ("-", "0"))
        assert brh <= brf
        assert [ln for ln, _ in da] == sorted({ln for ln, _ in da})
        # DA only for line points' lines; BRDA only where branch points are (never toggle/expr).
        assert {ln for ln, _ in da} == line_lines.get(path, set())
        assert {int(b[0]) for b in brda} == branch_lines.get(path, set())
        assert all(re.fullmatch(r"\d+|-", b[3]) for b in brda)


def test_toggle_and_expr_never_become_branches() -> None:
    report = load("bcd_adder")  # combinational: toggle + expr + line only
    text = render_lcov(report)
    assert "BRDA:" not in text
    assert all(line in ("BRF:0", "BRH:0") for line in text.splitlines() if line.startswith("BR"))
    # files with only toggle/expr points are left out
    rtl_only = restrict(report, ["tb_bcd_adder.uut"])
    assert render_lcov(rtl_only) == ""


def test_max_count_per_line_and_unreached_branches() -> None:
    base = load("count_clock").points[0]
    line = replace(base, kind="line", file="/a.sv", line=3, lines=(3, 4), comment="block")
    br = replace(base, kind="branch", file="/a.sv", line=5, lines=(5,), column=2)
    report = CoverageReport(
        (
            replace(line, count=2, key="1", hier="tb.u1"),
            replace(line, count=7, key="2", hier="tb.u2"),
            replace(line, line=4, lines=(), count=0, key="3"),
            replace(br, comment="if", count=0, key="4"),
            replace(br, comment="else", column=3, count=0, key="5"),
            replace(br, line=6, comment="if", count=0, key="6"),
            replace(br, line=6, comment="else", column=3, count=4, key="7"),
        )
    )
    assert render_lcov(report, test_name="x").splitlines() == [
        "TN:x", "SF:/a.sv", "DA:3,7", "DA:4,7", "LF:2", "LH:2",
        "BRDA:5,0,0,-", "BRDA:5,0,1,-", "BRDA:6,0,0,0", "BRDA:6,0,1,4",
        "BRF:4", "BRH:1", "end_of_record",
    ]


def test_relative_paths_resolved_against_base_dir(tmp_path: Path) -> None:
    base = load("count_clock").points[0]
    report = CoverageReport((replace(base, kind="line", file="rtl/../rtl/dut.sv", line=1, lines=(), key="k"),))
    assert f"SF:{tmp_path}/rtl/dut.sv\n" in render_lcov(report, base_dir=tmp_path)
    assert "SF:rtl/../rtl/dut.sv\n" in render_lcov(report)
    out = write_lcov(report, tmp_path / "sub" / "cov.info", base_dir=tmp_path)
    assert out == tmp_path / "sub" / "cov.info"
    assert out.read_text() == render_lcov(report, base_dir=tmp_path)
