"""Render a coverage report as an lcov tracefile (`.info`) for editors and genhtml.

Unlike `verilator_coverage --write-info`, which also emits toggle and expression points
as `BRDA:` entries, only *branch* points become branches here, and only *line* points
become `DA:` lines, so lcov's percentages mean what Benchwright's line/branch metrics mean.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from sim.run.coverage import CoveragePoint, CoverageReport
from sim.sandbox.outputs import write_output


def _resolve(file: str, base_dir: Path | None) -> str:
    """`file` made absolute against `base_dir` when it is relative (and a base is given)."""
    if base_dir is None or Path(file).is_absolute():
        return file
    return os.path.normpath(base_dir / file)


def _file_record(path: str, points: list[CoveragePoint]) -> list[str]:
    """The lcov lines of one source file (`SF:` ... `end_of_record`)."""
    hits: dict[int, int] = {}
    # (line, column, comment) -> max count over instances of the same branch.
    branches: dict[tuple[int, int, str], int] = {}
    for p in points:
        if p.kind == "line":
            for ln in p.lines or (p.line,):
                if ln >= 1:
                    hits[ln] = max(hits.get(ln, 0), p.count)
        elif p.kind == "branch" and p.line >= 1:
            key = (p.line, p.column, p.comment)
            branches[key] = max(branches.get(key, 0), p.count)
    out = [f"SF:{path}"]
    out.extend(f"DA:{ln},{hits[ln]}" for ln in sorted(hits))
    out.append(f"LF:{len(hits)}")
    out.append(f"LH:{sum(1 for c in hits.values() if c > 0)}")
    by_line: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    for (ln, col, comment), count in branches.items():
        by_line[ln].append((col, comment, count))
    for ln in sorted(by_line):
        arms = sorted(by_line[ln])
        reached = any(count > 0 for _, _, count in arms)
        for index, (_, _, count) in enumerate(arms):
            out.append(f"BRDA:{ln},0,{index},{count if reached else '-'}")
    out.append(f"BRF:{len(branches)}")
    out.append(f"BRH:{sum(1 for c in branches.values() if c > 0)}")
    out.append("end_of_record")
    return out


def render_lcov(report: CoverageReport, test_name: str = "benchwright", base_dir: Path | None = None) -> str:
    """The report as an lcov tracefile: one `TN:`/`SF:` record per source file, sorted by path.

    `DA:` comes from line points (each line of a point's `S` list, else its `l`; the max
    count where several points or instances share a line). `BRDA:<line>,0,<arm>,<count>`
    comes from branch points only, arms numbered per line by (column, comment); a line
    whose arms were all never taken prints `-` (block not reached). Files with neither
    line nor branch points are left out. Relative paths are resolved against `base_dir`.
    """
    by_file: dict[str, list[CoveragePoint]] = defaultdict(list)
    for p in report.points:
        if p.kind in ("line", "branch") and p.file:
            by_file[_resolve(p.file, base_dir)].append(p)
    out: list[str] = []
    for path in sorted(by_file):
        out.append(f"TN:{test_name}")
        out.extend(_file_record(path, by_file[path]))
    return "".join(f"{line}\n" for line in out)


def write_lcov(report: CoverageReport, path: Path, base_dir: Path | None = None, *, root: Path | None = None) -> Path:
    """Write `render_lcov(report)` to `path`; returns `path`.

    The folder may have been prepared by something untrusted (a run directory, a cloned
    workspace's .benchwright/), so the file is written by `sim.sandbox.outputs.write_output`:
    a symlink or FIFO planted at `path` is replaced, never written through, and no folder
    from `root` (default: `path`'s own folder, which must exist) down is followed through a
    symlink; missing folders below `root` are made.

    Raises:
        UnsafeOutputError: a directory stands at `path`, or a folder below `root` is a symlink.
    """
    if root is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    return write_output(path, render_lcov(report, base_dir=base_dir).encode("utf-8"), root=root)
