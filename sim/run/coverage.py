r"""Read, merge, restrict, waive and summarise Verilator `coverage.dat` files.

Verilator (5.05x) writes `# SystemC::Coverage-3` files: one record per line,
`C '<\x01key\x02value\x01key\x02value...>' <count>`. Keys used here: `f` file,
`l` line, `n` column, `t` type (5.05x only), `page` (`v_<type>/<design unit>`),
`o` comment, `h` instance path, `S` the lines a line/branch point stands for
(`114,116-117`). Comments may contain `'` (`32'sh9`), so the count is split off at
the *last* `' `.

Everything here is a pure function over text/values except `read_coverage` (reads a
file) and `restricted_reader` (reads the design's own files for `uncovered`).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from sim.errors import CoverageParseError
from sim.sandbox.outputs import UnsafeOutputError, read_output
from sim.types import METRICS, CoverageSummary, MetricSummary, UncoveredPoint

HEADER = "# SystemC::Coverage-3"
"""First line of every coverage.dat Verilator (and `verilator_coverage --write`) writes."""

KINDS: tuple[str, ...] = ("line", "branch", "toggle", "expr", "user")
"""Point kinds a waiver may name (METRICS plus Verilator's `user` cover points)."""

_RECORD_PREFIX = "C '"
_KEY_SEP = "\x01"
_VALUE_SEP = "\x02"
_LINES_RE = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")


@dataclass(frozen=True)
class CoveragePoint:
    """One coverage point (one `C` record) of a coverage.dat."""

    kind: str
    """Metric: `line`, `branch`, `toggle`, `expr` or `user` (the `t` key, else the `page` prefix)."""
    file: str
    """Source file as Verilator recorded it (`f`; absolute when it was given absolute paths)."""
    line: int
    """1-based line of the point (`l`; 0 when absent)."""
    column: int
    """Column of the point (`n`; 0 when absent)."""
    comment: str
    """Verilator's description (`o`): `if`, `else`, `block`, `st[1]:0->1`, `(a==0) => 1`."""
    hier: str
    """Instance path (`h`), e.g. `tb.dut`; may hold `*` where Verilator collapsed instances."""
    module: str
    """Design unit: the part of `page` after the slash (`v_line/counter` -> `counter`)."""
    lines: tuple[int, ...]
    """Lines the point stands for, expanded from `S` (`114,116-117` -> 114, 116, 117); () if absent."""
    count: int
    """Hit count."""
    key: str
    """The raw record text between the quotes, verbatim (so `render_dat` is byte-exact)."""

    @property
    def covered(self) -> bool:
        """True when the point was hit at least once."""
        return self.count >= 1


@dataclass(frozen=True)
class CoverageReport:
    """All points of one (or several merged) coverage.dat files, in file order."""

    points: tuple[CoveragePoint, ...]
    """The points, in order of first appearance."""


@dataclass(frozen=True)
class Waiver:
    """One rule of a waiver file: `<kind|*> <file-glob> <line|lo-hi|*> [comment-regex]`."""

    kind: str
    """Point kind the rule applies to, or `*` for every kind."""
    file_glob: str
    """fnmatch glob; matched against the whole path, and against the base name when it has no `/`."""
    line_lo: int
    """First line the rule covers (0 with `line_hi` 0: any line)."""
    line_hi: int
    """Last line the rule covers (inclusive; 0: any line)."""
    comment: re.Pattern[str] | None
    """Regex searched in the point's comment; None matches every comment."""
    text: str
    """The rule as written (for reports)."""
    source_line: int
    """1-based line of the rule in its waiver file."""

    def matches(self, point: CoveragePoint) -> bool:
        """True when this rule waives `point` (its `line` is the one compared)."""
        if self.kind not in ("*", point.kind):
            return False
        if not _glob_matches(self.file_glob, point.file):
            return False
        if self.line_hi and not self.line_lo <= point.line <= self.line_hi:
            return False
        return self.comment is None or self.comment.search(point.comment) is not None


def _glob_matches(glob: str, path: str) -> bool:
    """Case-sensitive fnmatch on the whole path, or on the base name for a glob without `/`."""
    if fnmatch.fnmatchcase(path, glob):
        return True
    return "/" not in glob and fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], glob)


# ---------------------------------------------------------------------------- parsing


def _expand_lines(spec: str) -> tuple[int, ...] | None:
    """`114,116-117` -> (114, 116, 117); None when malformed."""
    if not _LINES_RE.match(spec):
        return None
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        start = int(lo)
        stop = int(hi) if hi else start
        if stop < start:
            return None
        out.extend(range(start, stop + 1))
    return tuple(out)


def _parse_record(line: str, source: str, lineno: int) -> CoveragePoint:
    """Parse one `C '...' <count>` line (already known to start with `C '`)."""
    key, sep, count_text = line[len(_RECORD_PREFIX):].rpartition("' ")
    if not sep:
        raise CoverageParseError("malformed record (no closing quote and count)", source, lineno)
    count_text = count_text.strip()
    if not count_text.isascii() or not count_text.isdigit():
        raise CoverageParseError(f"count {count_text!r} is not a non-negative integer", source, lineno)
    if not key.startswith(_KEY_SEP):
        raise CoverageParseError("malformed record (key does not start with \\x01)", source, lineno)
    fields: dict[str, str] = {}
    for part in key[1:].split(_KEY_SEP):
        name, sep, value = part.partition(_VALUE_SEP)
        if not sep or not name:
            raise CoverageParseError(f"malformed record (bad key/value pair {part!r})", source, lineno)
        fields[name] = value
    page = fields.get("page", "")
    prefix, _, module = page.partition("/")
    kind = fields.get("t") or (prefix[2:] if prefix.startswith("v_") else "")
    if not kind:
        raise CoverageParseError("malformed record (neither a 't' nor a 'v_<type>/' page key)", source, lineno)
    numbers: dict[str, int] = {}
    for name in ("l", "n"):
        text = fields.get(name, "0")
        if not text.isascii() or not text.isdigit():
            raise CoverageParseError(f"malformed record ({name}={text!r} is not an integer)", source, lineno)
        numbers[name] = int(text)
    lines: tuple[int, ...] = ()
    if "S" in fields:
        expanded = _expand_lines(fields["S"])
        if expanded is None:
            raise CoverageParseError(f"malformed record (S={fields['S']!r} is not a line list)", source, lineno)
        lines = expanded
    return CoveragePoint(
        kind=kind,
        file=fields.get("f", ""),
        line=numbers["l"],
        column=numbers["n"],
        comment=fields.get("o", ""),
        hier=fields.get("h", ""),
        module=module,
        lines=lines,
        count=int(count_text),
        key=key,
    )


def parse_coverage(text: str, source: str = "") -> CoverageReport:
    """Parse a `# SystemC::Coverage-3` text (as written by a simulation or `verilator_coverage --write`).

    Blank lines and `#` comment lines are ignored; the header must be the first non-blank line.
    Raises CoverageParseError (with `source` and the 1-based line) on a missing header, a
    malformed record or a non-integer count.
    """
    points: list[CoveragePoint] = []
    seen_header = False
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.removesuffix("\r")
        if not line.strip():
            continue
        if not seen_header:
            if line.strip() != HEADER:
                raise CoverageParseError(f"missing {HEADER!r} header (not a Verilator coverage file)", source, lineno)
            seen_header = True
            continue
        if line.startswith("#"):
            continue
        if not line.startswith(_RECORD_PREFIX):
            raise CoverageParseError("malformed record (expected a line starting with \"C '\")", source, lineno)
        points.append(_parse_record(line, source, lineno))
    if not seen_header:
        raise CoverageParseError(f"missing {HEADER!r} header (empty coverage file)", source, 1)
    return CoverageReport(tuple(points))


COVERAGE_CAP = 64 << 20
"""Largest coverage.dat read (64 MiB: a few hundred thousand points; the public suite's are KBs)."""


def read_coverage(path: Path, *, root: Path | None = None, cap: int = COVERAGE_CAP) -> CoverageReport:
    """Read and parse a coverage.dat (utf-8, undecodable bytes replaced).

    The file sits in a run directory the simulation could write, so it is read through
    `sim.sandbox.outputs` (`root`: that directory, default the file's folder): a symlink,
    FIFO, device, directory, hard link or a file over `cap` is a CoverageParseError naming
    the file and why. A missing or empty file means the simulation did not finish normally
    (Verilator writes coverage.dat at `$finish`); both raise CoverageParseError naming the file.
    """
    try:
        data = read_output(path, cap, root=root)
    except FileNotFoundError:
        raise CoverageParseError(
            f"Simulation terminated abnormally: coverage file {path} not found", file=str(path)
        ) from None
    except UnsafeOutputError as exc:
        raise CoverageParseError(f"{exc.reason}; not read (a run's outputs are untrusted)", file=str(path)) from None
    except OSError as exc:
        raise CoverageParseError(f"cannot read coverage file {path}: {exc.strerror or exc}", file=str(path)) from None
    if not data.strip():
        raise CoverageParseError(
            f"Simulation terminated abnormally: coverage file {path} is empty", file=str(path)
        )
    if data.lstrip()[:len(HEADER)] != HEADER.encode():
        # Checked on the bytes: junk is refused before it is decoded into a large string.
        raise CoverageParseError(f"missing {HEADER!r} header (not a Verilator coverage file)", str(path), 1)
    return parse_coverage(data.decode("utf-8", errors="replace"), source=str(path))


def render_dat(report: CoverageReport) -> str:
    """The report in coverage.dat format (header + one `C '<key>' <count>` per point).

    `verilator_coverage` reads the result; for a parsed Verilator file it is byte-identical.
    """
    parts = [HEADER, "\n"]
    for point in report.points:
        parts.append(f"{_RECORD_PREFIX}{point.key}' {point.count}\n")
    return "".join(parts)


# ---------------------------------------------------------------------------- transforms


def merge(*reports: CoverageReport) -> CoverageReport:
    """Sum the counts of points with identical keys; points keep their order of first appearance."""
    merged: dict[str, CoveragePoint] = {}
    for report in reports:
        for point in report.points:
            prev = merged.get(point.key)
            merged[point.key] = point if prev is None else replace(prev, count=prev.count + point.count)
    return CoverageReport(tuple(merged.values()))


def _within(hier: str, scope: str) -> bool:
    """True when instance path `hier` is `scope` or below it."""
    return hier == scope or hier.startswith(scope + ".")


def is_unit_of(unit: str, module: str) -> bool:
    """True when Verilator design unit `unit` is `module` or a parameterisation of it."""
    return unit == module or unit.startswith(module + "__")


def dut_scopes(report: CoverageReport, top_module: str) -> tuple[str, ...]:
    """Instance paths of the top-most instances of design unit `top_module`, sorted; () if none.

    A point's `module` (from `page`) is the design unit whose code it belongs to and its
    `hier` the instance; paths nested inside another returned path are dropped, and so are
    collapsed paths (with `*`) when exact ones exist, since a collapsed path names no one instance.
    Parameterised instances count too: Verilator names their units `<top>__<suffix>`
    (e.g. `cc_popcount__I10`).
    """
    found = {p.hier for p in report.points if p.hier and is_unit_of(p.module, top_module)}
    # A file built without per-instance counters may hold only collapsed paths: then they are all there is.
    candidates = sorted({h for h in found if "*" not in h} or found)
    return tuple(h for h in candidates if not any(h != o and _within(h, o) for o in candidates))


def restrict(report: CoverageReport, scopes: Iterable[str]) -> CoverageReport:
    """Keep the points whose `hier` equals one of `scopes` or lies below it (`scope.`...)."""
    wanted = tuple(scopes)
    return CoverageReport(tuple(p for p in report.points if any(_within(p.hier, s) for s in wanted)))


def _may_reach(pattern: str, scope: str) -> bool:
    """True when a collapsed path such as `*.core` or `tb.*` could stand for an instance at or below `scope`."""
    literal = pattern.split("*", 1)[0]
    return literal.startswith(scope + ".") or (scope + ".").startswith(literal) or literal == scope


@dataclass(frozen=True)
class DutCoverage:
    """The points of a coverage.dat that belong to the DUT, and an account of the rest."""

    report: CoverageReport
    """Points at or below the DUT instances (what every DUT percentage is computed from)."""
    scopes: tuple[str, ...]
    """The DUT instance paths."""
    file_points: int
    """All points in the file (testbench code included)."""
    unit_points: int
    """Points in the file whose design unit has an instance under the DUT, wherever they sit."""
    outside: tuple[tuple[str, str, int], ...] = ()
    """(instance, unit, points) of DUT design units instantiated outside the DUT (the
    testbench's own copy of a submodule, a second top): not counted."""
    collapsed: tuple[tuple[str, str, int], ...] = ()
    """(collapsed path, unit, points) Verilator merged over several instances (built without
    `--coverage-per-instance`), one of which may be in the DUT: not counted, they cannot be attributed."""

    def notes(self) -> tuple[str, ...]:
        """One line per group of points left out, so nothing is dropped silently."""
        out = [f"not counted: {n} points of {unit} at {hier} (an instance outside the DUT)"
               for hier, unit, n in self.outside]
        out += [f"not counted: {n} points of {unit} under the collapsed path {hier!r} (Verilator merged "
                "several instances' counts; build with --coverage-per-instance to attribute them)"
                for hier, unit, n in self.collapsed]
        return tuple(out)

    def counts(self) -> dict[str, int]:
        """The consistency figures kept in every result: points in the file, in the DUT's units, kept."""
        return {"file": self.file_points, "dut_units": self.unit_points, "kept": len(self.report.points),
                "outside": sum(n for _, _, n in self.outside), "collapsed": sum(n for _, _, n in self.collapsed)}


def attribute(report: CoverageReport, top_module: str) -> DutCoverage:
    """Split a coverage report into the DUT's points and the groups of DUT-unit points left out.

    The DUT is every top-most instance of `top_module`. A point counts when its instance
    path is at or below one of them; with per-instance counters (`--coverage-per-instance`,
    which Benchwright builds with) every point carries its own instance's path, so a
    submodule Verilator did not inline is counted once per instance under the DUT. Points of
    the DUT's design units elsewhere (a testbench's own copy, another top) and points whose
    path Verilator collapsed over several instances (`*.core`, from files built without
    per-instance counters) are listed, not counted.
    """
    scopes = dut_scopes(report, top_module)
    kept = tuple(p for p in report.points if any(_within(p.hier, s) for s in scopes))
    units = {p.module for p in kept}
    outside: dict[tuple[str, str], int] = {}
    collapsed: dict[tuple[str, str], int] = {}
    unit_points = len(kept)
    for p in report.points:
        if any(_within(p.hier, s) for s in scopes):
            continue
        if "*" in p.hier and any(_may_reach(p.hier, s) for s in scopes):
            collapsed[(p.hier, p.module)] = collapsed.get((p.hier, p.module), 0) + 1
            unit_points += 1
        elif p.module in units:
            outside[(p.hier, p.module)] = outside.get((p.hier, p.module), 0) + 1
            unit_points += 1
    return DutCoverage(CoverageReport(kept), scopes, len(report.points), unit_points,
                       tuple((h, u, n) for (h, u), n in sorted(outside.items())),
                       tuple((h, u, n) for (h, u), n in sorted(collapsed.items())))


def summarize(report: CoverageReport, metrics: Iterable[str] = METRICS) -> CoverageSummary:
    """Covered/total per metric, in `metrics` order (covered = count >= 1).

    Metrics with no points at all (e.g. branch in a purely combinational design) are
    omitted, so they neither count as 100 % nor drag the overall mean down.
    """
    result: dict[str, MetricSummary] = {}
    for metric in metrics:
        points = [p for p in report.points if p.kind == metric]
        if points:
            result[metric] = MetricSummary(covered=sum(1 for p in points if p.covered), total=len(points))
    return CoverageSummary(result)


def restricted_reader(files: Iterable[Path], folders: Iterable[Path] = ()) -> Callable[[str], list[str] | None]:
    """A source reader for `uncovered` that reads only `files` and files under `folders` (once each).

    A point's file name comes from coverage.dat, which a run could have forged: a point "in"
    ~/.ssh/id_rsa must not bring that file's lines into a result. Any other name gets no text.
    """
    allowed = {str(p) for p in files} | {str(Path(p).resolve()) for p in files}
    roots = tuple(Path(d).resolve() for d in folders)
    cache: dict[str, list[str] | None] = {}

    def read(path: str) -> list[str] | None:
        if path not in cache:
            lines: list[str] | None = None
            try:
                real = Path(path).resolve()
                if path in allowed or str(real) in allowed or any(real.is_relative_to(d) for d in roots):
                    lines = real.read_bytes().decode("utf-8", errors="replace").splitlines()
            except OSError:
                lines = None
            cache[path] = lines
        return cache[path]

    return read


def top_free_key(key: str) -> str:
    """A point's key with its instance path made relative to the top (`tb.dut.u` -> `dut.u`).

    The same DUT point under two testbench tops (the engine's harness, the final testbench)
    then has one key; every other field (file, line, column, kind, comment) is kept.
    """
    fields = key.split("\x01")
    for i, part in enumerate(fields):
        name, sep, value = part.partition("\x02")
        if sep and name == "h":
            fields[i] = f"h\x02{value.partition('.')[2] or value}"
    return "\x01".join(fields)


def source_lines_of(points: Iterable[UncoveredPoint]) -> Callable[[str], list[str] | None]:
    """A source reader for `uncovered` that serves only the lines `points` already carry.

    For points a restricted read has given their text once (a run's `uncovered`): reading
    them again needs no disk access at all.
    """
    known: dict[str, dict[int, str]] = {}
    for p in points:
        known.setdefault(p.file, {})[p.line] = p.source

    cache: dict[str, list[str] | None] = {}

    def read(path: str) -> list[str] | None:
        if path not in cache:
            lines = known.get(path)
            cache[path] = None if lines is None else [lines.get(n, "") for n in range(1, max(lines) + 1)]
        return cache[path]

    return read


def uncovered(
    report: CoverageReport,
    metrics: Iterable[str] = METRICS,
    *,
    read_source: Callable[[str], list[str] | None],
) -> tuple[UncoveredPoint, ...]:
    """Points of the given metrics with count 0, sorted by (file, line, kind), with their source text.

    `read_source(file)` returns the file's lines (None when unreadable): `restricted_reader`
    for a run's coverage.dat, whose file names a run could have forged, or
    `source_lines_of` for points already read. There is no default that reads any path.
    The text is stripped; '' when the line cannot be read.
    """
    wanted = set(metrics)
    misses = sorted(
        (p for p in report.points if p.kind in wanted and not p.covered),
        key=lambda p: (p.file, p.line, p.kind),
    )
    out: list[UncoveredPoint] = []
    for p in misses:
        lines = read_source(p.file) if p.file else None
        text = lines[p.line - 1].strip() if lines is not None and 1 <= p.line <= len(lines) else ""
        out.append(UncoveredPoint(kind=p.kind, file=p.file, line=p.line, comment=p.comment, source=text, hier=p.hier))
    return tuple(out)


# ---------------------------------------------------------------------------- waivers


def _parse_line_spec(spec: str) -> tuple[int, int] | None:
    """`*` -> (0, 0); `12` -> (12, 12); `10-20` -> (10, 20); None when malformed."""
    if spec == "*":
        return (0, 0)
    lo, sep, hi = spec.partition("-")
    if not lo.isdigit() or (sep and not hi.isdigit()):
        return None
    start, stop = int(lo), int(hi) if sep else int(lo)
    return (start, stop) if 1 <= start <= stop else None


def parse_waivers(text: str, source: str = "") -> list[Waiver]:
    """Parse a waiver file: one `<kind|*> <file-glob> <line|lo-hi|*> [comment-regex]` per line.

    `#` starts a comment line; blank lines are ignored. The regex is the rest of the line
    (it may contain spaces) and is searched in the point's comment. Raises
    CoverageParseError (with `source` and the line) on a bad kind, line or regex.
    """
    waivers: list[Waiver] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(None, 3)
        if len(fields) < 3:
            raise CoverageParseError(
                "waiver needs at least '<kind|*> <file-glob> <line|*>'", source, lineno
            )
        kind, glob, line_spec = fields[0], fields[1], fields[2]
        if kind != "*" and kind not in KINDS:
            raise CoverageParseError(f"unknown coverage kind {kind!r} (use one of {', '.join(KINDS)} or *)", source, lineno)
        span = _parse_line_spec(line_spec)
        if span is None:
            raise CoverageParseError(f"bad line {line_spec!r} (use N, LO-HI or *)", source, lineno)
        pattern: re.Pattern[str] | None = None
        if len(fields) == 4:
            try:
                pattern = re.compile(fields[3])
            except re.error as exc:
                raise CoverageParseError(f"bad comment regex {fields[3]!r}: {exc}", source, lineno) from None
        waivers.append(Waiver(kind, glob, span[0], span[1], pattern, line, lineno))
    return waivers


def apply_waivers(
    report: CoverageReport, waivers: Iterable[Waiver]
) -> tuple[CoverageReport, tuple[CoveragePoint, ...]]:
    """Split `report` into (kept report, waived points); waived points are to be listed, not lost."""
    rules = tuple(waivers)
    kept: list[CoveragePoint] = []
    waived: list[CoveragePoint] = []
    for point in report.points:
        (waived if any(w.matches(point) for w in rules) else kept).append(point)
    return CoverageReport(tuple(kept)), tuple(waived)
