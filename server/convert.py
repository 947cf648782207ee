"""Pure converters from Benchwright values to LSP values (`lsp_*`) and report text.

Nothing here touches the server, the event loop or the disk: every function takes
values and returns values, so each is unit-tested on its own.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from agent.program import sv_checks as chk
from agent.program import sv_monitors as mon
from server import protocol as p
from server.lint import LintMessage
from sim.mutation.mutants import Mutant
from sim.run.coverage import CoveragePoint, CoverageReport, is_unit_of
from sim.types import SimResult, UncoveredPoint

MAX_HINT_ITEMS = 4
"""Uncovered points named in one hint diagnostic (the rest are counted)."""

MAX_REPORT_HOLES = 60
"""Uncovered points listed in the markdown report."""

SURVIVING_MUTANT_CODE = "surviving-mutant"
"""Diagnostic code of a hint on a line whose mutants the testbench does not kill."""

WARN_URL = "https://verilator.org/warn/{tag}"
"""Where a Verilator warning tag is documented."""

_WORD = re.compile(r"[A-Za-z_0-9$`']+")


def uri_of(path: Path | str) -> str:
    """A file URI spelled the way VS Code spells it."""
    uri = from_fs_path(str(path))
    return uri if uri is not None else Path(path).as_uri()


def line_range(lines: Sequence[str], line0: int) -> types.Range:
    """The non-blank extent of 0-based line `line0` (an empty range past the end)."""
    text = lines[line0] if 0 <= line0 < len(lines) else ""
    start = len(text) - len(text.lstrip())
    return types.Range(types.Position(line0, start), types.Position(line0, len(text.rstrip())))


def message_range(lines: Sequence[str], line: int, column: int, width: int) -> types.Range:
    """0-based range of a 1-based (line, column) message whose caret marks `width` chars.

    Without a column the whole line is marked; without a width, the word at the column.
    """
    line0 = max(line - 1, 0)
    if column <= 0:
        return line_range(lines, line0)
    text = lines[line0] if line0 < len(lines) else ""
    start = min(column - 1, len(text))
    if width > 0:
        end = start + width
    else:
        word = _WORD.match(text, start)
        end = word.end() if word else start + 1
    return types.Range(types.Position(line0, start), types.Position(line0, max(min(end, len(text)), start)))


def lsp_lint_diagnostics(messages: Iterable[LintMessage], path: Path, lines: Sequence[str]) -> list[types.Diagnostic]:
    """Diagnostics for `path`: its own messages, plus other files' errors pinned to line 1."""
    out = []
    for lm in messages:
        m = lm.message
        own = bool(m.file) and Path(m.file).resolve() == path.resolve()
        if not own and m.severity != "error":
            continue
        if own:
            rng, text = message_range(lines, m.line, m.column, lm.width), m.text
        else:
            where = f"{m.file}:{m.line}: " if m.file else ""
            rng, text = line_range(lines, 0), f"{where}{m.text}"
        out.append(types.Diagnostic(
            range=rng, message=text, source=p.DIAGNOSTIC_SOURCE_LINT, code=m.tag or None,
            code_description=types.CodeDescription(href=WARN_URL.format(tag=m.tag)) if m.tag else None,
            severity=types.DiagnosticSeverity.Error if m.severity == "error" else types.DiagnosticSeverity.Warning,
        ))
    return out


def lsp_hint_diagnostics(uncovered: Iterable[UncoveredPoint], path: Path, lines: Sequence[str],
                         design: str) -> list[types.Diagnostic]:
    """One hint per source line of `path` that holds uncovered points."""
    by_line: dict[int, list[UncoveredPoint]] = defaultdict(list)
    for point in uncovered:
        if point.file and Path(point.file).resolve() == path.resolve() and point.line >= 1:
            by_line[point.line].append(point)
    out = []
    for line, points in sorted(by_line.items()):
        named = ", ".join(f"{q.kind} `{q.comment}`" for q in points[:MAX_HINT_ITEMS])
        more = f" (+{len(points) - MAX_HINT_ITEMS} more)" if len(points) > MAX_HINT_ITEMS else ""
        out.append(types.Diagnostic(
            range=line_range(lines, line - 1), message=f"Not covered: {named}{more}",
            severity=types.DiagnosticSeverity.Hint, source=p.DIAGNOSTIC_SOURCE_COVERAGE, code=p.UNCOVERED_CODE,
            data={"design": design, "kinds": sorted({q.kind for q in points})},
        ))
    return out


def lsp_mutant_diagnostics(survived: Iterable[Mutant], path: Path, lines: Sequence[str], design: str,
                           equivalent: frozenset[int] = frozenset()) -> list[types.Diagnostic]:
    """One hint per source line of `path` whose mutants the testbench did not kill."""
    by_line: dict[int, list[Mutant]] = defaultdict(list)
    for m in survived:
        if Path(m.file).resolve() == path.resolve() and m.line >= 1:
            by_line[m.line].append(m)
    out = []
    for line, mutants in sorted(by_line.items()):
        named = "; ".join(m.description + (" (possibly equivalent)" if m.id in equivalent else "")
                          for m in mutants[:MAX_HINT_ITEMS])
        more = f" (+{len(mutants) - MAX_HINT_ITEMS} more)" if len(mutants) > MAX_HINT_ITEMS else ""
        out.append(types.Diagnostic(
            range=line_range(lines, line - 1), message=f"Mutant survives (a bug here goes unnoticed): {named}{more}",
            severity=types.DiagnosticSeverity.Hint, source=p.DIAGNOSTIC_SOURCE_COVERAGE, code=SURVIVING_MUTANT_CODE,
            data={"design": design, "mutants": [m.id for m in mutants]},
        ))
    return out


def _points(report: CoverageReport | None, metrics: Sequence[str]) -> list[CoveragePoint]:
    return [q for q in (report.points if report is not None else ()) if q.kind in metrics]


def lsp_coverage_params(result: SimResult, *, design: str, top: str, root: Path, testbench: Path | None,
                        version: int | None, target: float, metrics: Sequence[str],
                        lcov_path: Path | None, testbench_source: str = "") -> p.CoverageParams:
    """The `benchwright/coverage` payload of one simulation."""
    cov = result.coverage
    summary = p.SummaryParams(
        overall=round(cov.overall, 2) if cov is not None else None, target=target,
        metrics={k: p.MetricParams(v.covered, v.total, round(v.percent, 2)) for k, v in cov.metrics.items()}
        if cov is not None else {})
    by_file: dict[str, list[p.PointParams]] = defaultdict(list)
    for q in _points(result.report, metrics):
        if q.file:
            path = Path(q.file) if Path(q.file).is_absolute() else root / q.file
            by_file[uri_of(path)].append(p.PointParams(q.line, q.kind, q.count, q.comment))
    files = [p.FileParams(uri, sorted(points, key=lambda q: (q.line, q.kind))) for uri, points in sorted(by_file.items())]
    return p.CoverageParams(
        design=design, top=top, root_uri=uri_of(root), testbench_uri=uri_of(testbench) if testbench else None,
        version=version, status=result.status.value, detail=result.detail, summary=summary,
        holes=len(result.uncovered), files=files, lcov_path=str(lcov_path) if lcov_path else None,
        build_seconds=round(result.build_s, 3), run_seconds=round(result.run_s, 3), testbench_source=testbench_source)


def module_summary(report: CoverageReport | None, module: str, metrics: Sequence[str]) -> tuple[dict[str, float], int]:
    """(metric -> percent, uncovered count) of the points of design unit `module`."""
    points = [q for q in _points(report, metrics) if is_unit_of(q.module, module)]
    percents = {}
    for metric in metrics:
        mine = [q for q in points if q.kind == metric]
        if mine:
            percents[metric] = 100.0 * sum(1 for q in mine if q.covered) / len(mine)
    return percents, sum(1 for q in points if not q.covered)


def lens_title(percents: dict[str, float], holes: int) -> str:
    """`line 87 % · branch 70 % · toggle 64 % · 12 holes · Improve coverage`."""
    parts = [f"{metric} {pct:.0f} %" for metric, pct in percents.items()]
    parts.append(f"{holes} hole{'' if holes == 1 else 's'}")
    parts.append("Improve coverage")
    return " · ".join(parts)


def lsp_code_lenses(modules: Iterable[tuple[str, int]], report: CoverageReport | None, metrics: Sequence[str],
                    uri: str) -> list[types.CodeLens]:
    """A lens above each module of the document that has coverage points."""
    out = []
    for name, line0 in modules:
        percents, holes = module_summary(report, name, metrics)
        if not percents:
            continue
        out.append(types.CodeLens(
            range=types.Range(types.Position(line0, 0), types.Position(line0, 0)),
            command=types.Command(title=lens_title(percents, holes), command=p.IMPROVE_COVERAGE, arguments=[uri])))
    return out


def lsp_code_actions(diagnostics: Iterable[types.Diagnostic], uri: str) -> list[types.CodeAction]:
    """"Improve coverage for this module" for uncovered-line hints, "Accept new behaviour" for failed checks."""
    ours = [d for d in diagnostics if d.source == p.DIAGNOSTIC_SOURCE_COVERAGE]
    hints = [d for d in ours if d.code == p.UNCOVERED_CODE]
    failed = [d for d in ours if d.code == p.MISMATCH_CODE]
    actions = []
    if failed:
        actions.append(types.CodeAction(
            title="Accept new behaviour (record the testbench's checks again)", kind=types.CodeActionKind.QuickFix,
            diagnostics=failed, command=types.Command(title="Accept new behaviour", command=p.ACCEPT_BEHAVIOUR,
                                                      arguments=[uri])))
    if hints:
        actions.append(types.CodeAction(
            title="Improve coverage for this module", kind=types.CodeActionKind.QuickFix, diagnostics=hints,
            command=types.Command(title="Improve coverage", command=p.IMPROVE_COVERAGE, arguments=[uri])))
    return actions


def lsp_port_diagnostics(messages: Mapping[str, str], lines: Sequence[str], design: str, code: str,
                         related: Mapping[str, types.DiagnosticRelatedInformation] | None = None
                         ) -> list[types.Diagnostic]:
    """One warning per port named in `messages` (port -> message), on the line that declares it in `lines`.

    A checked accessor (`u_rf.get_register(0..31)`) is said at its function's declaration. `related` (port -> a place elsewhere, e.g. the testbench's operation) rides along as related information.
    """
    out = []
    for name, message in messages.items():
        func = re.match(r"(?:\w+\.)*(\w+)\(", name)
        declares = rf"\bfunction\b.*\b{func.group(1)}\b" if func else rf"\b(output|input)\b.*\b{re.escape(name)}\b"
        at = next((k for k, text in enumerate(lines) if re.search(declares, text)), None)
        if at is None:
            continue
        where = (related or {}).get(name)
        out.append(types.Diagnostic(
            range=line_range(lines, at), severity=types.DiagnosticSeverity.Warning, message=message,
            source=p.DIAGNOSTIC_SOURCE_COVERAGE, code=code, data={"design": design, "port": name},
            related_information=[where] if where is not None else None))
    return out


_CHECKED_READ = re.compile(r"\b\w+_read_is\([^,()]+, (\d+), ([^()]*?)\);")
_CHECKED_SWEEP = re.compile(r"\b\w+_sweep_is\((\d+), '\{([^{}]*)\}\);")
_PHASE_END = re.compile(r"\bbw_check\((\d+)\);")


def _read_origin(k: int, lines: Sequence[str]) -> tuple[int, str] | None:
    """The line of checked read `k` (0-based: a `_read_is` call, or the register sweep holding it) and its recorded value."""
    for n, text in enumerate(lines):
        one = _CHECKED_READ.search(text)
        if one is not None and int(one.group(1)) == k:
            return n, one.group(2).strip()
        sweep = _CHECKED_SWEEP.search(text)
        if sweep is not None:
            values = sweep.group(2).split(",")
            if 0 <= k - int(sweep.group(1)) < len(values):
                return n, values[k - int(sweep.group(1))].strip()
    return None


def _phase_start(k: int, lines: Sequence[str]) -> int | None:
    """The first line of phase `k` (1-based): after `bw_check(k-2);` (or the program's start), before `bw_check(k-1);`."""
    ends = {int(m.group(1)): n for n, text in enumerate(lines) if (m := _PHASE_END.search(text)) is not None}
    begin = next((n for n, text in enumerate(lines) if text.strip() == "// --- program ---"), None) if k == 1 \
        else ends.get(k - 2)
    end = ends.get(k - 1)
    if begin is None or end is None:
        return None
    return next((n for n in range(begin + 1, end) if lines[n].strip()), None)


def check_origin(why: str, testbench: Path, tb_text: str) -> types.DiagnosticRelatedInformation | None:
    """Where in the testbench a failed check's operation is (None when it cannot be found).

    A failed read (`read 3: ...`) points at the call that carries its recorded value; a failed
    phase (`phase 2: output ...`) at the first line of that phase (the comment of its program).
    """
    lines = tb_text.split("\n")
    found: tuple[int, str] | None = None
    if (read := re.match(r"read (\d+):", why)) is not None:
        k = int(read.group(1))
        if (origin := _read_origin(k - 1, lines)) is not None:
            found = (origin[0], f"read {k}: the recorded run returned {origin[1]}")
    elif (phase := re.match(r"phase (\d+):", why)) is not None:
        k = int(phase.group(1))
        if (start := _phase_start(k, lines)) is not None:
            first = lines[start].strip()
            found = (start, f"phase {k} starts here" + (f": {first[2:].strip()}" if first.startswith("//") else ""))
    if found is None:
        return None
    return types.DiagnosticRelatedInformation(
        location=types.Location(uri=uri_of(testbench), range=line_range(lines, found[0])), message=found[1])


def lsp_check_diagnostics(log: str, lines: Sequence[str], design: str, testbench: Path | None,
                          testbench_text: str = "") -> list[types.Diagnostic]:
    """What a run of a kept testbench said about the design, at the ports' declarations in one RTL file.

    Failed checks (the design changed behaviour since the recording; a failed read at its bus's
    data port, before that port's signature), each with the testbench's operation as related
    information (`check_origin`), and protocol rules the design broke while the testbench ran (findings).
    """
    tb = f" {testbench.name}" if testbench else ""
    why_by_port = {**chk.mismatched_outputs(log), **chk.mismatched_reads(log, testbench_text)}
    failed = {name: f"Check failed: {why}. The testbench{tb} recorded another behaviour; if the change is "
                    "intended, accept the new behaviour." for name, why in why_by_port.items()}
    origins = {name: where for name, why in why_by_port.items()
               if testbench is not None and (where := check_origin(why, testbench, testbench_text)) is not None}
    broken = {f.port: f"Protocol rule broken on {f.interface}: {f.rule} (first at {f.first_ns} ns, {f.count} times)"
              for f in reversed(mon.parse_findings(log))}
    return [*lsp_port_diagnostics(failed, lines, design, p.MISMATCH_CODE, origins),
            *lsp_port_diagnostics(broken, lines, design, p.FINDING_CODE)]


def end_of(text: str) -> types.Position:
    """The position just past the last character of `text` (UTF-16 columns)."""
    lines = text.split("\n")
    return types.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)


def lsp_testbench_edit(uri: str, new_text: str, old_text: str | None, version: int | None) -> types.WorkspaceEdit:
    """Create the testbench file (when `old_text` is None) or replace its whole text."""
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    whole = types.Range(types.Position(0, 0), end_of(old_text or ""))
    changes: list[types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile] = []
    if old_text is None:
        changes.append(types.CreateFile(uri=uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True)))
    changes.append(types.TextDocumentEdit(text_document=doc, edits=[types.TextEdit(range=whole, new_text=new_text)]))
    return types.WorkspaceEdit(document_changes=changes)


def report_markdown(result: SimResult | None, *, design: str, testbench: Path | None, target: float) -> str:
    """The showReport text: status, per-metric table, uncovered points."""
    if result is None:
        return f"# {design}\n\nNo simulation yet: save a file of the design to simulate it.\n"
    lines = [f"# {design}: {result.status.value}", ""]
    if testbench is not None:
        lines += [f"Testbench: `{testbench}`", ""]
    if result.detail:
        lines += [f"> {result.detail}", ""]
    cov = result.coverage
    if cov is not None:
        lines += ["| metric | covered | total | percent |", "|---|---:|---:|---:|"]
        lines += [f"| {k} | {v.covered} | {v.total} | {v.percent:.1f} % |" for k, v in cov.metrics.items()]
        verdict = "meets" if cov.overall >= target else "below"
        lines += [f"| **overall** | | | **{cov.overall:.2f} %** |", "", f"Target {target:g} %: {verdict}.", ""]
    if result.uncovered:
        lines += [f"## Uncovered points ({len(result.uncovered)})", ""]
        for q in result.uncovered[:MAX_REPORT_HOLES]:
            lines.append(f"- `{Path(q.file).name}:{q.line}` {q.kind} `{q.comment}` — `{q.source[:80]}`")
        if len(result.uncovered) > MAX_REPORT_HOLES:
            lines.append(f"- ... {len(result.uncovered) - MAX_REPORT_HOLES} more")
        lines.append("")
    lines += [f"- note: {n}" for n in result.notes]
    lines.append(f"Build {result.build_s:.2f} s{' (cached)' if result.cached else ''}, run {result.run_s:.2f} s.")
    return "\n".join(lines) + "\n"
