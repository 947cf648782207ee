from __future__ import annotations

import json
import re
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sim.errors import CoverageParseError, ToolNotFoundError
from sim.run.coverage import (
    HEADER,
    CoveragePoint,
    CoverageReport,
    apply_waivers,
    dut_scopes,
    merge,
    parse_coverage,
    parse_waivers,
    read_coverage,
    render_dat,
    restrict,
    restricted_reader,
    source_lines_of,
    summarize,
    uncovered,
)
from sim.tools import Verilator, find_verilator, tool_env
from sim.types import METRICS

DATA = Path(__file__).resolve().parents[1] / "data" / "sim" / "coverage"
BENCH = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public"
FIXTURE_SUITE = "/work/shared/benchmarks/public"
"""Where the suite was when the committed coverage.dat fixtures were recorded (data, not a lookup)."""
STEMS = ["fsm_seq_detector", "count_clock", "count_clock_seed7", "count_clock_merged", "bcd_adder"]
ROW = re.compile(r"^\s+(\w+)\s*:\s*([\d.]+)%\s*\(\s*(\d+)/\s*(\d+)\)")


def load(stem: str) -> CoverageReport:
    return read_coverage(DATA / f"{stem}.dat")


def expected(stem: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((DATA / f"{stem}.json").read_text())
    return doc


def as_pairs(report: CoverageReport) -> dict[str, list[int]]:
    return {k: [v.covered, v.total] for k, v in summarize(report).metrics.items()}


def counts(report: CoverageReport) -> dict[str, int]:
    return {p.key: p.count for p in report.points}


# ---------------------------------------------------------------- golden (real Verilator 5.052 files)


@pytest.mark.parametrize("stem", STEMS)
def test_summary_matches_verilator_report_summary(stem: str) -> None:
    assert as_pairs(load(stem)) == expected(stem)["summary"]


@pytest.mark.parametrize("stem", STEMS)
def test_dut_restriction_matches_verilator_hier_report(stem: str) -> None:
    report = load(stem)
    exp = expected(stem)
    scopes = dut_scopes(report, exp["top_module"])
    assert list(scopes) == exp["dut_scopes"]
    assert as_pairs(restrict(report, scopes)) == exp["dut"]


@pytest.mark.parametrize("stem", STEMS)
def test_render_dat_is_byte_exact(stem: str) -> None:
    text = (DATA / f"{stem}.dat").read_text(encoding="utf-8")
    assert render_dat(parse_coverage(text)) == text


def test_point_fields_from_real_record() -> None:
    first = load("bcd_adder").points[0]
    assert first == CoveragePoint(
        kind="line",
        file=f"{FIXTURE_SUITE}/cvdp__bcd_adder/human_tb/tb_bcd_adder.sv",
        line=20,
        column=10,
        comment="block",
        hier="tb_bcd_adder",
        module="tb_bcd_adder",
        lines=(20, 24, 25, 26, 27, 29),
        count=100,
        key=first.key,
    )
    assert first.key.startswith("\x01f\x02/")
    assert first.key.endswith("\x01h\x02tb_bcd_adder")
    assert first.covered


def test_comment_with_apostrophes_and_branch_without_lines() -> None:
    report = load("count_clock")
    exprs = [p for p in report.points if p.kind == "expr" and "32'sh9" in p.comment]
    assert exprs
    assert exprs[0].comment in {"((ss[3:0] == 32'sh9)==0) => 0", "(enable[0]==1 && (ss[3:0] == 32'sh9)==1) => 1"}
    elses = [p for p in report.points if p.kind == "branch" and p.comment == "else" and p.hier == "tb.good1"]
    assert len(elses) == 8
    assert all(p.lines == () for p in elses)


def test_kind_falls_back_to_page_prefix() -> None:
    # Verilator 5.006 writes no `t` key; the type is the `v_<type>/` page prefix.
    point = load("fsm_seq_detector").points[0]
    key = re.sub("\x01t\x02[a-z]+", "", point.key)
    assert "\x01t\x02" not in key
    parsed = parse_coverage(f"{HEADER}\nC '{key}' 3\n").points[0]
    assert (parsed.kind, parsed.module, parsed.count) == (point.kind, point.module, 3)


def test_parse_ignores_blank_and_comment_lines() -> None:
    text = (DATA / "bcd_adder.dat").read_text()
    head, *records = text.splitlines()
    noisy = "\n".join(["", head, "# a comment", "", *records[:5], "   ", "# end"]) + "\r\n"
    assert [p.key for p in parse_coverage(noisy).points] == [p.key for p in load("bcd_adder").points[:5]]


def test_header_only_file_is_an_empty_report() -> None:
    report = parse_coverage(HEADER + "\n")
    assert report.points == ()
    assert summarize(report).metrics == {}
    assert summarize(report).overall == 0.0


# ---------------------------------------------------------------- merge


def test_merge_two_real_runs_matches_verilator_write() -> None:
    a, b, oracle = load("count_clock"), load("count_clock_seed7"), load("count_clock_merged")
    merged = merge(a, b)
    assert counts(merged) == counts(oracle)
    assert counts(a) != counts(b)  # the seeds really differ
    assert [p.key for p in merged.points] == [p.key for p in a.points]  # first-appearance order
    assert summarize(merged) == summarize(oracle)


def test_merge_of_different_designs_is_a_union_in_first_appearance_order() -> None:
    a, b = load("bcd_adder"), load("fsm_seq_detector")
    merged = merge(a, b, a)
    assert [p.key for p in merged.points] == [p.key for p in a.points] + [p.key for p in b.points]
    assert all(merged.points[i].count == 2 * p.count for i, p in enumerate(a.points))
    assert merge() == CoverageReport(())


# ---------------------------------------------------------------- scopes / restrict / summarize


def test_dut_scopes_collapsed_submodule_hierarchy() -> None:
    report = load("bcd_adder")
    # Without --coverage-per-instance Verilator collapses instances of one module: `adder*`.
    hiers = {p.hier for p in report.points}
    assert "tb_bcd_adder.uut.adder*" in hiers
    assert dut_scopes(report, "four_bit_adder") == ("tb_bcd_adder.uut.adder*",)
    restricted = restrict(report, dut_scopes(report, "bcd_adder"))
    assert {p.module for p in restricted.points} == {"bcd_adder", "four_bit_adder", "full_adder"}
    assert "branch" not in summarize(restricted).metrics  # combinational: no branch points, omitted


def test_dut_scopes_missing_and_nested() -> None:
    report = load("count_clock")
    assert dut_scopes(report, "no_such_module") == ()
    assert dut_scopes(report, "TopModule") == ("tb.top_module1",)
    base = report.points[0]
    nested = CoverageReport(
        tuple(replace(base, hier=h, module="m", key=h) for h in ("tb.a.m", "tb.a", "tb.b", "tb.a.x"))
    )
    assert dut_scopes(nested, "m") == ("tb.a", "tb.b")


def test_restrict_matches_whole_path_components() -> None:
    base = load("count_clock").points[0]
    report = CoverageReport(tuple(replace(base, hier=h, key=h) for h in ("tb.good1", "tb.good10", "tb.good1.sub", "tb")))
    assert [p.hier for p in restrict(report, ["tb.good1"]).points] == ["tb.good1", "tb.good1.sub"]
    assert restrict(report, []).points == ()


def test_summarize_metric_subset_and_overall() -> None:
    report = restrict(load("count_clock"), ["tb.good1"])
    summary = summarize(report, metrics=("branch", "line"))
    assert list(summary.metrics) == ["branch", "line"]
    assert summary.overall == pytest.approx((100 * 15 / 16 + 100.0) / 2)
    full = summarize(report)
    assert tuple(full.metrics) == METRICS


# ---------------------------------------------------------------- uncovered


def test_uncovered_sorted_with_injected_source() -> None:
    report = restrict(load("count_clock"), ["tb.good1"])
    lines = [f"source line {i}  " for i in range(1, 100)]
    calls: list[str] = []

    def reader(path: str) -> list[str] | None:
        calls.append(path)
        return lines

    misses = uncovered(report, metrics=("branch", "expr"), read_source=reader)
    assert [(m.kind, m.line, m.comment) for m in misses] == [
        ("expr", 25, "(enable[0]==0) => 0"),
        ("branch", 26, "else"),
    ]
    assert all(m.source == f"source line {m.line}" and m.hier == "tb.good1" for m in misses)
    assert all(c == misses[0].file for c in calls)
    all_misses = uncovered(report, read_source=reader)
    assert [(m.file, m.line, m.kind) for m in all_misses] == sorted((m.file, m.line, m.kind) for m in all_misses)
    assert len(all_misses) == 2 + 11  # + the 11 untoggled bits


def test_uncovered_reads_disk_and_tolerates_unreadable(tmp_path: Path) -> None:
    src = tmp_path / "dut.sv"
    src.write_bytes(b"module dut;\n  if (a) b = 1;\xff\nendmodule\n")
    base = load("count_clock").points[0]
    report = CoverageReport(
        (
            replace(base, file=str(src), line=2, count=0, key="a"),
            replace(base, file=str(src), line=1, count=5, key="b"),
            replace(base, file=str(tmp_path / "gone.sv"), line=1, count=0, key="c"),
            replace(base, file=str(src), line=99, count=0, key="d"),
        )
    )
    secret = tmp_path / "secret.txt"
    secret.write_text("line one\nline two\n")
    report = CoverageReport((*report.points, replace(base, file=str(secret), line=1, count=0, key="e")))
    misses = uncovered(report, read_source=restricted_reader([src, tmp_path / "gone.sv"]))
    assert [(Path(m.file).name, m.line, m.source) for m in misses] == [
        ("dut.sv", 2, "if (a) b = 1;\ufffd"),
        ("dut.sv", 99, ""),
        ("gone.sv", 1, ""),
        ("secret.txt", 1, ""),  # named by the coverage file, but not a design file: never read
    ]
    # Points that already carry their text are served from it, with no disk access.
    src.write_text("changed on disk\n")
    again = uncovered(report, read_source=source_lines_of(misses))
    assert [(m.line, m.source) for m in again] == [(m.line, m.source) for m in misses]


def test_uncovered_real_dut_points() -> None:
    report = restrict(load("fsm_seq_detector"), ["tb_fsm_seq_detector.uut"])
    misses = uncovered(report, read_source=lambda _: None)
    assert [(m.kind, m.source) for m in misses] == [("line", "")]
    assert misses[0].file.endswith("fsm_seq_detector.sv")


# ---------------------------------------------------------------- errors


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "coverage.dat"
    with pytest.raises(CoverageParseError, match=r"terminated abnormally.*not found") as info:
        read_coverage(path)
    assert info.value.file == str(path)


@pytest.mark.parametrize("content", [b"", b"\n  \n"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "coverage.dat"
    path.write_bytes(content)
    with pytest.raises(CoverageParseError, match=r"terminated abnormally.*empty") as info:
        read_coverage(path)
    assert info.value.file == str(path)


def test_directory_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(CoverageParseError) as info:
        read_coverage(tmp_path)
    assert info.value.file == str(tmp_path)


def test_truncated_record(tmp_path: Path) -> None:
    data = (DATA / "bcd_adder.dat").read_bytes()
    lines = data.split(b"\n")
    cut = b"\n".join(lines[:10]) + b"\n" + lines[10][:40]  # killed mid-write
    path = tmp_path / "coverage.dat"
    path.write_bytes(cut)
    with pytest.raises(CoverageParseError, match="malformed record") as info:
        read_coverage(path)
    assert (info.value.file, info.value.line) == (str(path), 11)
    assert str(info.value).startswith(f"{path}:11: ")


def test_bad_count() -> None:
    text = (DATA / "bcd_adder.dat").read_text().splitlines()
    text[3] = text[3].rsplit(" ", 1)[0] + " 12x"
    with pytest.raises(CoverageParseError, match="not a non-negative integer") as info:
        parse_coverage("\n".join(text), source="cov.dat")
    assert (info.value.file, info.value.line) == ("cov.dat", 4)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("C 'no-sep' 1", "does not start"),
        ("C '\x01fnovalue' 1", "bad key/value"),
        ("C '\x01f\x02a.sv\x01l\x021' 1", "neither a 't'"),
        ("C '\x01t\x02line\x01l\x02x1' 1", "l='x1'"),
        ("C '\x01t\x02line\x01S\x025-3' 1", "S='5-3'"),
        ("X something", "expected a line"),
        ("C '\x01t\x02line' -1", "non-negative"),
    ],
)
def test_malformed_records(record: str, message: str) -> None:
    with pytest.raises(CoverageParseError, match=re.escape(message)) as info:
        parse_coverage(f"{HEADER}\n\n{record}\n", source="x.dat")
    assert info.value.line == 3


def test_binary_garbage(tmp_path: Path) -> None:
    path = tmp_path / "coverage.dat"
    path.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(CoverageParseError, match="header") as info:
        read_coverage(path)
    assert (info.value.file, info.value.line) == (str(path), 1)
    path.write_bytes(HEADER.encode() + b"\n" + bytes(range(256)))
    with pytest.raises(CoverageParseError, match="malformed") as info:
        read_coverage(path)
    assert info.value.line == 2


def test_records_without_header() -> None:
    body = (DATA / "bcd_adder.dat").read_text().split("\n", 1)[1]
    with pytest.raises(CoverageParseError, match="header") as info:
        parse_coverage(body, source="s")
    assert info.value.line == 1


def test_non_utf8_path_is_replaced_not_fatal(tmp_path: Path) -> None:
    data = (DATA / "bcd_adder.dat").read_bytes().replace(b"/human_tb/", b"/h\xe9uman_tb/")
    path = tmp_path / "coverage.dat"
    path.write_bytes(data)
    report = read_coverage(path)
    assert "/h\ufffduman_tb/" in report.points[0].file
    assert summarize(report) == summarize(load("bcd_adder"))


# ---------------------------------------------------------------- waivers


WAIVERS = """\
# waive the unreachable else of the seconds counter
branch Prob141_count_clock_ref.sv 26 ^else$
expr */rtl/Prob141_count_clock_ref.sv 20-30 enable\\[0\\]==0
* nomatch.sv *
toggle Prob141_count_clock_ref.sv 7   hh\\[[567]\\]:.*
"""


def test_parse_waivers() -> None:
    rules = parse_waivers(WAIVERS, source="w.txt")
    assert [(w.kind, w.file_glob, w.line_lo, w.line_hi, w.source_line) for w in rules] == [
        ("branch", "Prob141_count_clock_ref.sv", 26, 26, 2),
        ("expr", "*/rtl/Prob141_count_clock_ref.sv", 20, 30, 3),
        ("*", "nomatch.sv", 0, 0, 4),
        ("toggle", "Prob141_count_clock_ref.sv", 7, 7, 5),
    ]
    assert rules[2].comment is None
    assert rules[3].comment is not None
    assert rules[3].comment.pattern == "hh\\[[567]\\]:.*"


def test_apply_waivers_on_real_dut() -> None:
    report = restrict(load("count_clock"), ["tb.good1"])
    kept, waived = apply_waivers(report, parse_waivers(WAIVERS))
    assert sorted((p.kind, p.line, p.comment) for p in waived) == [
        ("branch", 26, "else"),
        ("expr", 25, "(enable[0]==0) => 0"),
        *sorted(("toggle", 7, f"hh[{i}]:{d}") for i in (5, 6, 7) for d in ("0->1", "1->0")),
    ]
    assert len(kept.points) + len(waived) == len(report.points)
    summary = summarize(kept)
    assert (summary.metrics["branch"].covered, summary.metrics["branch"].total) == (15, 15)
    assert (summary.metrics["expr"].covered, summary.metrics["expr"].total) == (19, 19)
    assert (summary.metrics["toggle"].covered, summary.metrics["toggle"].total) == (59, 64)
    # Waived points are still reported; nothing vanished.
    assert {p.key for p in kept.points} | {p.key for p in waived} == {p.key for p in report.points}
    assert apply_waivers(report, []) == (report, ())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fsm a.sv 3", "unknown coverage kind"),
        ("line a.sv", "at least"),
        ("line a.sv x", "bad line"),
        ("line a.sv 9-3", "bad line"),
        ("line a.sv 0", "bad line"),
        ("line a.sv * (unclosed", "bad comment regex"),
    ],
)
def test_bad_waivers(text: str, message: str) -> None:
    with pytest.raises(CoverageParseError, match=re.escape(message)) as info:
        parse_waivers(f"# header\n{text}\n", source="w.txt")
    assert (info.value.file, info.value.line) == ("w.txt", 2)


# ---------------------------------------------------------------- live Verilator


LIVE = [
    # (design dir, tb top, DUT module, tb files, rtl files)
    ("cvdp__fsm_seq_detector", "tb_fsm_seq_detector", "fsm_seq_detector",
     ["human_tb/tb_fsm_seq_detector.sv"], ["rtl/fsm_seq_detector.sv"]),
    ("cvdp__bcd_adder", "tb_bcd_adder", "bcd_adder", ["human_tb/tb_bcd_adder.sv"], ["rtl/bcd_adder.sv"]),
    ("verilogeval__count_clock", "tb", "RefModule",
     ["human_tb/Prob141_count_clock_test.sv"], ["rtl/Prob141_count_clock_ref.sv"]),
]


@pytest.fixture(scope="module")
def verilator() -> Verilator:
    try:
        return find_verilator()
    except ToolNotFoundError as exc:
        pytest.skip(str(exc))


def verilator_summary(tool: Verilator, dat: Path, env: dict[str, str]) -> dict[str, tuple[int, int, float]]:
    out = subprocess.run(
        [str(tool.coverage), "--report", "summary", str(dat)],
        capture_output=True, text=True, check=True, env=env, timeout=120,
    ).stdout
    return {m[1]: (int(m[3]), int(m[4]), float(m[2])) for m in map(ROW.match, out.splitlines()) if m and int(m[4])}


def build_and_run(tool: Verilator, case: tuple[str, str, str, list[str], list[str]], work: Path,
                  env: dict[str, str]) -> Path:
    design, tb_top, _, tb_files, rtl = case
    root = BENCH / design
    if not root.is_dir():
        pytest.skip(f"benchmark {root} not available")
    files = [str(root / f) for f in [*tb_files, *rtl]]
    if design == "verilogeval__count_clock":  # its tb compares RefModule with a TopModule
        top_copy = work / "TopModule.sv"
        top_copy.write_text((root / rtl[0]).read_text().replace("module RefModule", "module TopModule"))
        files.append(str(top_copy))
    subprocess.run(
        [str(tool.verilator), "--binary", "--timing", "--coverage", "-Wno-fatal", "-Wno-lint", "-Wno-style",
         "--top-module", tb_top, *files, "-Mdir", str(work / "obj")],
        cwd=work, env=env, check=True, capture_output=True, timeout=600,
    )
    subprocess.run([str(work / "obj" / f"V{tb_top}")], cwd=work, env=env, check=True, capture_output=True, timeout=120)
    return work / "coverage.dat"


@pytest.mark.simulator_required
@pytest.mark.parametrize("case", LIVE, ids=[c[0] for c in LIVE])
def test_live_restricted_summary_agrees_with_verilator_coverage(
    verilator: Verilator, case: tuple[str, str, str, list[str], list[str]], tmp_path: Path
) -> None:
    env = tool_env(verilator)
    dat = build_and_run(verilator, case, tmp_path, env)
    report = read_coverage(dat)
    scopes = dut_scopes(report, case[2])
    assert scopes
    restricted = restrict(report, scopes)
    assert 0 < len(restricted.points) < len(report.points)
    out = tmp_path / "dut.dat"
    out.write_text(render_dat(restricted), encoding="utf-8")
    oracle = verilator_summary(verilator, out, env)
    ours = summarize(restricted)
    assert set(oracle) == set(ours.metrics)
    for metric, (covered, total, percent) in oracle.items():
        mine = ours.metrics[metric]
        assert (mine.covered, mine.total) == (covered, total), metric
        assert abs(mine.percent - percent) <= 0.1, metric
    oracle_overall = sum(p for _, _, p in oracle.values()) / len(oracle)
    assert abs(ours.overall - oracle_overall) <= 0.1
    # The whole file agrees too.
    whole = verilator_summary(verilator, dat, env)
    assert {k: (c, t) for k, (c, t, _) in whole.items()} == {
        k: (v.covered, v.total) for k, v in summarize(report).metrics.items()
    }


@pytest.mark.simulator_required
def test_live_merge_agrees_with_verilator_write(verilator: Verilator, tmp_path: Path) -> None:
    env = tool_env(verilator)
    dat = build_and_run(verilator, LIVE[2], tmp_path, env)
    second = tmp_path / "seed3.dat"
    subprocess.run(
        [str(tmp_path / "obj" / "Vtb"), "+verilator+seed+3", f"+verilator+coverage+file+{second}"],
        cwd=tmp_path, env=env, check=True, capture_output=True, timeout=120,
    )
    oracle = tmp_path / "merged.dat"
    subprocess.run([str(verilator.coverage), "--write", str(oracle), str(dat), str(second)],
                   env=env, check=True, capture_output=True, timeout=120)
    assert counts(merge(read_coverage(dat), read_coverage(second))) == counts(read_coverage(oracle))
