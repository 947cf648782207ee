"""Pure converters: message ranges, lint output, coverage payloads, lenses, edits, reports."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from server import convert
from server.lint import LintMessage, parse_lint_output
from server.settings import CONVERTER
from sim.run.coverage import CoveragePoint, CoverageReport
from sim.types import (
    CoverageSummary,
    Message,
    MetricSummary,
    SimResult,
    Status,
    UncoveredPoint,
)

LOG = """\
%Warning-WIDTHTRUNC: /shadow/abc/w.sv:2:12: Operator ASSIGNW expects 2 bits on the Assign RHS, but ...
                                   : ... note: In instance 'm'
    2 |   assign y = a;
      |            ^
                     ... For warning description see https://verilator.org/warn/WIDTHTRUNC?v=5.052
%Error: /real/other.sv:3:3: syntax error, unexpected assign, expecting ',' or ';'
    3 |   assign b = a;
      |   ^~~~~~
%Error: Exiting due to 1 error(s)
"""


def point(kind: str, line: int, count: int, module: str = "m", comment: str = "") -> CoveragePoint:
    return CoveragePoint(kind, "/real/w.sv", line, 1, comment or kind, "tb.dut", module, (line,), count, f"{kind}{line}")


def test_parse_lint_output_maps_shadows_and_reads_carets() -> None:
    msgs = parse_lint_output(LOG, {"/shadow/abc/w.sv": Path("/real/w.sv")})
    assert [(m.message.file, m.message.line, m.message.tag, m.width) for m in msgs] == [
        ("/real/w.sv", 2, "WIDTHTRUNC", 1), ("/real/other.sv", 3, "", 6)]


def test_lint_diagnostics_ranges_and_foreign_errors() -> None:
    lines = ["module m(input [3:0] a, output [1:0] y);", "  assign y = a;", "endmodule"]
    msgs = parse_lint_output(LOG, {"/shadow/abc/w.sv": Path("/real/w.sv")})
    diags = convert.lsp_lint_diagnostics(msgs, Path("/real/w.sv"), lines)
    assert [(d.range.start.line, d.range.start.character, d.range.end.character) for d in diags] == [(1, 11, 12),
                                                                                                     (0, 0, 40)]
    assert diags[0].code == "WIDTHTRUNC"
    assert diags[0].severity == types.DiagnosticSeverity.Warning
    assert diags[1].severity == types.DiagnosticSeverity.Error
    assert diags[1].message.startswith("/real/other.sv:3: syntax error")
    assert {d.source for d in diags} == {"verilator"}


def test_message_range_without_caret_marks_the_word_or_line() -> None:
    lines = ["  wire foo_bar = 1;"]
    assert convert.message_range(lines, 1, 8, 0) == types.Range(types.Position(0, 7), types.Position(0, 14))
    assert convert.message_range(lines, 1, 0, 0) == types.Range(types.Position(0, 2), types.Position(0, 19))
    assert convert.message_range(lines, 5, 3, 2).start.line == 4  # past the end: clamped, no crash


def test_own_warnings_only_for_this_file() -> None:
    other = LintMessage(Message("/x/other.sv", 1, 1, "warning", "UNUSED", "unused"), 1)
    assert convert.lsp_lint_diagnostics([other], Path("/real/w.sv"), ["x"]) == []


def result_with(points: list[CoveragePoint]) -> SimResult:
    report = CoverageReport(tuple(points))
    metrics = {}
    for kind in ("line", "branch", "toggle"):
        mine = [q for q in points if q.kind == kind]
        if mine:
            metrics[kind] = MetricSummary(sum(q.covered for q in mine), len(mine))
    unc = tuple(UncoveredPoint(q.kind, q.file, q.line, q.comment, "src") for q in points if not q.covered)
    return SimResult(status=Status.OK, coverage=CoverageSummary(metrics), uncovered=unc, report=report,
                     build_s=1.23456, run_s=0.01)


def test_coverage_params_are_camel_case_and_complete() -> None:
    result = result_with([point("line", 3, 1), point("line", 4, 0), point("branch", 4, 0, comment="if"),
                          point("toggle", 1, 2), point("user", 9, 0)])
    params = convert.lsp_coverage_params(result, design="d", top="m", root=Path("/real"), testbench=Path("/real/tb.sv"),
                                         version=3, target=90.0, metrics=("line", "branch", "toggle"),
                                         lcov_path=Path("/ws/.benchwright/coverage/d.info"))
    data = CONVERTER.unstructure(params)
    assert data["rootUri"] == "file:///real"
    assert data["testbenchUri"] == "file:///real/tb.sv"
    assert data["summary"]["metrics"]["line"] == {"covered": 1, "total": 2, "percent": 50.0}
    assert data["summary"]["overall"] == round((50 + 0 + 100) / 3, 2)
    assert data["holes"] == 3  # the `user` point is not scored, but it is uncovered
    assert data["files"] == [{"uri": "file:///real/w.sv", "points": [
        {"line": 1, "kind": "toggle", "count": 2, "comment": "toggle"},
        {"line": 3, "kind": "line", "count": 1, "comment": "line"},
        {"line": 4, "kind": "branch", "count": 0, "comment": "if"},
        {"line": 4, "kind": "line", "count": 0, "comment": "line"}]}]
    assert data["buildSeconds"] == 1.235
    assert data["lcovPath"] == "/ws/.benchwright/coverage/d.info"
    assert set(data) == {"design", "top", "rootUri", "testbenchUri", "version", "status", "detail", "summary",
                         "holes", "files", "lcovPath", "buildSeconds", "runSeconds", "testbenchSource"}


def test_lens_title_and_per_module_lenses() -> None:
    assert convert.lens_title({"line": 87.4, "branch": 70.0, "toggle": 64.2}, 12) == \
        "line 87 % · branch 70 % · toggle 64 % · 12 holes · Improve coverage"
    assert convert.lens_title({"line": 100.0}, 1).endswith("1 hole · Improve coverage")
    report = CoverageReport((point("line", 3, 1, "top"), point("line", 9, 0, "sub__W4"), point("toggle", 9, 1, "sub__W4")))
    lenses = convert.lsp_code_lenses([("top", 0), ("sub", 7), ("unused", 20)], report, ("line", "toggle"), "file:///x.sv")
    assert [(ln.range.start.line, ln.command.title if ln.command else "") for ln in lenses] == [
        (0, "line 100 % · 0 holes · Improve coverage"), (7, "line 0 % · toggle 100 % · 1 hole · Improve coverage")]


def test_hints_group_points_per_line() -> None:
    unc = [UncoveredPoint("toggle", "/real/w.sv", 2, f"a[{i}]:0->1", "") for i in range(6)]
    unc.append(UncoveredPoint("line", "/elsewhere.sv", 2, "block", ""))
    hints = convert.lsp_hint_diagnostics(unc, Path("/real/w.sv"), ["", "  input a,"], "d")
    assert len(hints) == 1
    assert hints[0].range == types.Range(types.Position(1, 2), types.Position(1, 10))
    assert hints[0].message.endswith("(+2 more)")
    assert hints[0].severity == types.DiagnosticSeverity.Hint
    actions = convert.lsp_code_actions(hints, "file:///real/w.sv")
    assert actions[0].command is not None
    assert actions[0].command.arguments == ["file:///real/w.sv"]
    assert convert.lsp_code_actions([], "file:///real/w.sv") == []


def test_testbench_edit_creates_or_replaces() -> None:
    create = convert.lsp_testbench_edit("file:///t.sv", "new\n", None, None)
    assert create.document_changes is not None
    assert isinstance(create.document_changes[0], types.CreateFile)
    replace = convert.lsp_testbench_edit("file:///t.sv", "new\n", "a\nbé\n", 4)
    assert replace.document_changes is not None
    (edit,) = replace.document_changes
    assert isinstance(edit, types.TextDocumentEdit)
    assert edit.text_document.version == 4
    assert edit.edits[0].range == types.Range(types.Position(0, 0), types.Position(2, 0))
    assert convert.end_of("ab\ncd😀") == types.Position(1, 4)


def test_report_markdown() -> None:
    text = convert.report_markdown(result_with([point("line", 3, 1), point("line", 4, 0)]), design="d",
                                   testbench=Path("/t.sv"), target=90)
    assert "| line | 1 | 2 | 50.0 % |" in text
    assert "below" in text
    assert "`w.sv:4` line" in text
    assert "No simulation yet" in convert.report_markdown(None, design="d", testbench=None, target=90)


def test_mutant_hints_one_per_line_of_this_file() -> None:
    from sim.mutation.mutants import Mutant

    rtl = Path("/w/rtl/m.sv")
    survived = [Mutant(1, "operator", str(rtl), 3, 5, "`a + b` -> `a - b`", ()),
                Mutant(2, "stuck-at", str(rtl), 3, 1, "`y` stuck at 0", ()),
                Mutant(3, "constant", "/w/rtl/other.sv", 3, 1, "constant", ())]
    lines = ["module m;", "", "  assign y = a + b;", "endmodule"]
    (diag,) = convert.lsp_mutant_diagnostics(survived, rtl, lines, "m", frozenset({2}))
    assert diag.severity == types.DiagnosticSeverity.Hint
    assert diag.code == convert.SURVIVING_MUTANT_CODE
    assert diag.range.start.line == 2
    assert "`a + b` -> `a - b`; `y` stuck at 0 (possibly equivalent)" in diag.message
    assert diag.data == {"design": "m", "mutants": [1, 2]}


def test_failed_checks_and_findings_are_warnings_at_the_ports() -> None:
    from pathlib import Path

    from server.convert import lsp_check_diagnostics

    rtl = ["module m (", "  input  logic clk,", "  output logic m_valid,", "  output logic [7:0] m_data,",
           "  output logic unlocked", ");", "endmodule"]
    log = ("BW-MISMATCH phase 1: output unlocked differs from the recorded run (signature 0, was 7) at 40\n"
           "BW-FINDING m m_valid m_data changed while m_valid && !m_ready: first at 205 (12 times)\n")
    diags = lsp_check_diagnostics(log, rtl, "m", Path("tb/tb_m.sv"))
    by_code = {d.code: d for d in diags}
    assert by_code["check-mismatch"].range.start.line == 4
    assert "tb_m.sv recorded another behaviour" in by_code["check-mismatch"].message
    assert by_code["protocol-finding"].range.start.line == 2
    assert "m_data changed while m_valid && !m_ready (first at 205 ns, 12 times)" in by_code["protocol-finding"].message
    assert lsp_check_diagnostics("nothing", rtl, "m", None) == []
    # A failed read is said at its bus's data port, which the testbench's xfer task names.
    rtl = ["module m (", "  input  logic clk,", "  output logic [31:0] hrdata_o", ");", "endmodule"]
    log = ("BW-MISMATCH phase 1: output hrdata_o differs from the recorded run (signature 1, was 2) at 40\n"
           "BW-MISMATCH read 2: ahb_read(08) returned ffff3501, the recorded run 0000cafe, at 170\n")
    (read,) = lsp_check_diagnostics(log, rtl, "m", Path("tb_m.sv"), "  if (bw_got && !bw_w) bw_ahb_got = hrdata_o;")
    assert read.range.start.line == 2
    assert "read 2: ahb_read(08) returned ffff3501, the recorded run 0000cafe" in read.message
    (signature,) = lsp_check_diagnostics(log, rtl, "m", Path("tb_m.sv"))  # without the testbench's text
    assert "signature 1, was 2" in signature.message
    # A checked accessor of the design (a function it marks public) is said at its declaration.
    rtl = ["module m (input logic clk);", "  function [31:0] get_register; /*verilator public*/", "endmodule"]
    log = "BW-MISMATCH phase 2: output u_rf.REGFILE.get_register(0..31) differs from the recorded run (signature 1, was 2) at 40\n"
    (accessor,) = lsp_check_diagnostics(log, rtl, "m", Path("tb_m.sv"))
    assert accessor.range.start.line == 1


def test_a_failed_check_points_at_its_operation_in_the_testbench() -> None:
    from pathlib import Path

    from server.convert import check_origin, lsp_check_diagnostics

    tb_text = "\n".join([
        "module tb;",                                                         # 0
        "  initial begin",                                                    # 1
        "    // --- program ---",                                             # 2
        "    // program 1 (trial 3, scenario bus registers): +40 points",     # 3
        "    bus_write(4'h0, 32'h00000001, 4'hf);",                           # 4
        "    bus_read_is(4'h0, 0, 32'h00000001);",                            # 5
        "    bus_sweep_is(1, '{32'h00000001, 32'h00000016, 32'h00000017});",  # 6
        "    bw_check(0);",                                                   # 7
        "",                                                                   # 8
        "    // program 2 (trial 0, scenario stimulus): +4 points",           # 9
        "    bw_random(40, 32'h629f6fbf, 40, 60, 4, 0, 6'b111110);",          # 10
        "    // --- end of program ---",
        "    bw_check(1); bw_checks_done();",
        "  end",
        "endmodule",
    ])
    tb = Path("/ws/tb/tb_m.sv")

    def at(why: str) -> tuple[int, str] | None:
        where = check_origin(why, tb, tb_text)
        if where is None:
            return None
        assert where.location.uri == tb.as_uri()
        return where.location.range.start.line, where.message

    assert at("read 1: bus_read(0) returned 00000002, the recorded run 00000001, at 90") == \
        (5, "read 1: the recorded run returned 32'h00000001")
    assert at("read 3: bus_read(4) returned 00000015, the recorded run 00000016, at 120") == \
        (6, "read 3: the recorded run returned 32'h00000016")  # the second read of the sweep
    assert at("read 5: bus_read(4) returned 0, the recorded run 1, at 1") is None  # no such read
    assert at("phase 1: output y differs from the recorded run (signature 1, was 2) at 40") == \
        (3, "phase 1 starts here: program 1 (trial 3, scenario bus registers): +40 points")
    assert at("phase 2: output y differs from the recorded run (signature 1, was 2) at 400") == \
        (9, "phase 2 starts here: program 2 (trial 0, scenario stimulus): +4 points")
    assert at("phase 3: output y differs from the recorded run (signature 1, was 2) at 400") is None

    # In the diagnostics: the read at the data port, the phase at the other output, each with its place.
    rtl = ["module m (", "  input  logic clk,", "  output logic [31:0] prdata,", "  output logic carry", ");"]
    log = ("BW-MISMATCH read 3: bus_read(4) returned 00000015, the recorded run 00000016, at 120\n"
           "BW-MISMATCH phase 2: output carry differs from the recorded run (signature 1, was 2) at 400\n")
    diags = lsp_check_diagnostics(log, rtl, "m", tb, tb_text + "\n    if (ok) bw_bus_got = prdata;")
    related = {d.range.start.line: [(r.location.range.start.line, r.message) for r in d.related_information or []]
               for d in diags}
    assert related == {2: [(6, "read 3: the recorded run returned 32'h00000016")],
                       3: [(9, "phase 2 starts here: program 2 (trial 0, scenario stimulus): +4 points")]}
    (plain,) = lsp_check_diagnostics(log, rtl[:2] + rtl[3:], "m", None)  # without a testbench: no place
    assert plain.related_information is None
