"""Training designs: suite folders and JSONL RTL repositories, filtered, split and decontaminated.

A JSONL repository line is `{"id": ..., "files": {path: text} | [{"path", "content"}],
"top"?: ..., "spec"?: ..., "description"?: ...}` (the CodeV-R1 shape: an id and its files).
Each kept record is written out as a design folder (design.toml + rtl/) so the evaluator
and the agent treat it like any suite design.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sim.suite import Design, load_design, load_suite
from training.data.hdl_text import find_tops, module_graph

logger = logging.getLogger(__name__)

RTL_SUFFIXES = (".v", ".sv", ".vh", ".svh")
"""File suffixes treated as RTL in JSONL records."""

@dataclass(frozen=True)
class RepoRecord:
    """One training repository before it becomes a design folder."""

    id: str
    """Unique id (the design name)."""
    files: Mapping[str, str]
    """Relative path -> text (RTL only)."""
    top: str = ""
    """Top module if the record names it ('' to detect)."""
    spec: str = ""
    """Specification text (prompt context)."""
    description: str = ""
    """One-line description."""
    source: Mapping[str, str] = field(default_factory=dict)
    """Provenance."""

    def chars(self) -> int:
        """RTL characters in total."""
        return sum(len(t) for t in self.files.values())


def _safe_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._") or "design"


def parse_repo_line(line: str, where: str) -> RepoRecord:
    """One JSONL line -> RepoRecord (ValueError naming the line on a bad shape)."""
    data = json.loads(line)
    if not isinstance(data, dict) or "id" not in data or "files" not in data:
        raise ValueError(f"{where}: a repository line needs 'id' and 'files'")
    files = data["files"]
    if isinstance(files, list):
        files = {str(f["path"]): str(f.get("content", f.get("text", ""))) for f in files}
    if not isinstance(files, dict):
        raise ValueError(f"{where}: 'files' must be an object or a list of {{path, content}}")  # noqa: TRY004 - bad data
    rtl = {str(p): str(t) for p, t in files.items() if str(p).lower().endswith(RTL_SUFFIXES)}
    return RepoRecord(id=_safe_id(str(data["id"])), files=rtl, top=str(data.get("top") or ""),
                      spec=str(data.get("spec") or ""), description=str(data.get("description") or ""),
                      source={"jsonl": where.rsplit(":", 1)[0], "id": str(data["id"])})


def read_jsonl(path: Path) -> list[RepoRecord]:
    """All repository records of a JSONL file."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            out.append(parse_repo_line(line, f"{path}:{n}"))
    return out


def record_from_design(design: Design) -> RepoRecord:
    """A suite design as a RepoRecord (for the shared filters and decontamination)."""
    files = {}
    for p in design.rtl:
        try:
            rel = p.relative_to(design.root).as_posix()
        except ValueError:
            rel = p.name
        files[rel] = p.read_text(encoding="utf-8", errors="replace")
    return RepoRecord(id=design.name, files=files, top=design.top, description=design.description,
                      source=dict(design.source))


def length_reason(rec: RepoRecord, min_chars: int, max_chars: int, max_files: int) -> str | None:
    """`too_short` / `too_long` / `too_many_files` / `no_rtl`, or None when the record fits."""
    if not rec.files:
        return "no_rtl"
    if len(rec.files) > max_files:
        return "too_many_files"
    n = rec.chars()
    if n < min_chars:
        return "too_short"
    if n > max_chars:
        return "too_long"
    return None


def top_reason(rec: RepoRecord) -> tuple[str | None, str]:
    """(drop reason or None, the top module) by single-top detection."""
    tops = find_tops(rec.files.values())
    defined, _ = module_graph(rec.files.values())
    if not defined:
        return "no_module", ""
    if rec.top:
        return (None, rec.top) if rec.top in defined else ("top_not_defined", rec.top)
    if len(tops) != 1:
        return ("multi_top" if tops else "no_top"), ""
    return None, tops[0]


def write_design(rec: RepoRecord, top: str, out_root: Path) -> Design:
    """Materialize a RepoRecord as a design folder and load it."""
    root = out_root / rec.id
    rtl_paths = []
    for rel, text in rec.files.items():
        dest = root / "rtl" / Path(rel).name if Path(rel).is_absolute() or ".." in Path(rel).parts else root / "rtl" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
        rtl_paths.append(dest.relative_to(root).as_posix())
    # Headers are included, not compiled.
    compiled = [p for p in rtl_paths if not p.endswith((".vh", ".svh"))]
    lines = [f"name = {json.dumps(rec.id)}", f"top = {json.dumps(top)}", f"rtl = {json.dumps(compiled)}",
             f"include_dirs = {json.dumps(sorted({str(Path(p).parent) for p in rtl_paths}))}",
             f"description = {json.dumps(rec.description)}"]
    if rec.spec:
        (root / "spec").mkdir(parents=True, exist_ok=True)
        (root / "spec" / "spec.md").write_text(rec.spec, encoding="utf-8")
        lines.append('spec = ["spec/spec.md"]')
    lines.append("\n[source]")
    lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in rec.source.items()]
    (root / "design.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_design(root)


def matches(name: str, patterns: Sequence[str]) -> bool:
    """True when `name` matches any fnmatch pattern."""
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def split_held_out(names: Sequence[str], patterns: Sequence[str], fraction: float, seed: int) -> tuple[list[str], list[str]]:
    """(train, held_out): named patterns first, else a seeded `fraction` of the names."""
    names = sorted(names)
    if patterns:
        held = [n for n in names if matches(n, patterns)]
    else:
        k = round(fraction * len(names))
        rng = np.random.default_rng(seed)
        held = sorted(str(x) for x in rng.choice(names, size=k, replace=False)) if k else []
    held_set = set(held)
    return [n for n in names if n not in held_set], held


@dataclass
class DataReport:
    """Counts after each filter (what the closing note reports)."""

    counts: dict[str, int] = field(default_factory=dict)
    """Step -> designs left after it."""
    dropped: Counter[str] = field(default_factory=Counter)
    """Reason -> designs dropped."""
    decontam: dict[str, Any] = field(default_factory=dict)
    """Dropped design -> its closest evaluation file and F1."""
    train: list[str] = field(default_factory=list)
    """Training designs."""
    held_out: list[str] = field(default_factory=list)
    """Held-out designs."""

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        return {"counts": self.counts, "dropped": dict(self.dropped), "decontam": self.decontam,
                "train": self.train, "held_out": self.held_out}


def prepare(cfg: Any, out_dir: Path) -> DataReport:
    """Load, filter, split and decontaminate; write `out_dir/train/` and `out_dir/heldout/` suites.

    `cfg` is a `training.config.DataConfig`.  Suite designs are linked (symlinks), JSONL
    designs are materialized.
    """
    from training.data.decontam import decontaminate

    report = DataReport()
    train_dir, held_dir, repo_dir = out_dir / "train", out_dir / "heldout", out_dir / "repos"
    for folder in (train_dir, held_dir):
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            if old.is_symlink():
                old.unlink()
    suite_designs: dict[str, Design] = {}
    for suite in cfg.suites:
        for d in load_suite(Path(suite)):
            suite_designs[d.name] = d
    records: dict[str, tuple[RepoRecord, Design | None]] = {
        name: (record_from_design(d), d) for name, d in suite_designs.items()}
    for path in cfg.jsonl:
        for rec in read_jsonl(Path(path)):
            if rec.id in records:
                report.dropped["duplicate_id"] += 1
                continue
            records[rec.id] = (rec, None)
    for repo in getattr(cfg, "repos", []):
        for d in repo_module_designs(Path(repo), out_dir / "modules", report):
            if d.name in records:
                report.dropped["duplicate_id"] += 1
                continue
            records[d.name] = (record_from_design(d), d)
    report.counts["loaded"] = len(records)

    # Held-out designs are chosen before filtering so the split does not depend on the filters.
    train_names, held = split_held_out(list(records), cfg.held_out, cfg.held_out_fraction, cfg.seed)
    report.held_out = held
    report.counts["held_out"] = len(held)
    keep = [n for n in train_names if (not cfg.include or matches(n, cfg.include)) and not matches(n, cfg.exclude)]
    report.dropped["name_filter"] += len(train_names) - len(keep)
    report.counts["after_name_filter"] = len(keep)

    survivors: list[str] = []
    for name in keep:
        reason = length_reason(records[name][0], cfg.min_chars, cfg.max_chars, cfg.max_files)
        if reason:
            report.dropped[reason] += 1
        else:
            survivors.append(name)
    report.counts["after_length_filter"] = len(survivors)

    tops: dict[str, str] = {}
    single: list[str] = []
    for name in survivors:
        rec, design = records[name]
        reason, top = top_reason(rec)
        if design is not None and reason in ("multi_top", "no_top"):
            reason, top = None, design.top  # a suite's design.toml names its top
        if reason:
            report.dropped[reason] += 1
            continue
        tops[name] = top
        single.append(name)
    report.counts["after_single_top"] = len(single)

    evaluation: dict[str, str] = {}
    for name in held:
        for fname, text in records[name][0].files.items():
            evaluation[f"{name}/{fname}"] = text
    for suite in cfg.eval_suites:
        for ev in load_suite(Path(suite)):
            for fname, text in record_from_design(ev).files.items():
                evaluation[f"{ev.name}/{fname}"] = text
    dec = decontaminate({n: records[n][0].files for n in single}, evaluation, cfg.rouge_threshold)
    report.dropped["decontaminated"] += len(dec.dropped)
    report.decontam = {k: vars(v) for k, v in dec.dropped.items()}
    report.counts["after_decontam"] = len(dec.kept)

    final: list[str] = []
    for name in dec.kept:
        rec, design = records[name]
        if design is None:
            try:
                design = write_design(rec, tops[name], repo_dir)
            except (OSError, ValueError) as exc:
                report.dropped["unloadable"] += 1
                logger.warning("%s: cannot write a design folder: %s", name, exc)
                continue
        if cfg.verify_top_with_verilator and not _verilator_ok(design):
            report.dropped["verilator_top"] += 1
            continue
        _link(design, train_dir / name)
        final.append(name)
    for name in held:
        rec, design = records[name]
        if design is None:
            _, top = top_reason(rec)
            design = write_design(rec, top, repo_dir)
        _link(design, held_dir / name)
    report.train = final
    report.counts["train"] = len(final)
    (out_dir / "designs.json").write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
    return report


def repo_module_designs(repo: Path, out_root: Path, report: DataReport) -> list[Design]:
    """The modules of a cloned repository that build on their own, as designs (cached in `out_root`).

    Enumerating them parses every source file with Verilator (minutes for a large
    repository), so the result is kept in `out_root/<repo>.json` and reused while the
    repository's sources are unchanged.
    """
    from training.data.repos import candidate_files, module_designs

    stamp = [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in candidate_files(repo)]
    marker = out_root / f"{repo.name}.json"
    cached = json.loads(marker.read_text(encoding="utf-8")) if marker.is_file() else None
    if cached is None or cached.get("stamp") != stamp or not all((out_root / n).is_dir() for n in cached["designs"]):
        found = module_designs(repo, out_root)
        cached = {"stamp": stamp, "designs": found.designs, "dropped": dict(found.dropped), "errors": found.errors}
        out_root.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps(cached, indent=1) + "\n", encoding="utf-8")
    for reason, n in cached["dropped"].items():
        report.dropped[f"repo_module_{reason}"] += n
    report.counts[f"repo_modules:{repo.name}"] = len(cached["designs"])
    return [load_design(out_root / n) for n in cached["designs"]]


def _link(design: Design, dest: Path) -> None:
    if dest.is_symlink() or dest.exists():
        return
    dest.symlink_to(design.root, target_is_directory=True)


def _verilator_ok(design: Design) -> bool:
    """True when Verilator elaborates the design with its top (exact single-top check)."""
    from sim.analysis.interface import read_interface
    from sim.errors import SimError

    try:
        read_interface(design)
    except SimError as exc:
        logger.info("%s: Verilator cannot elaborate top %s: %s", design.name, design.top, exc)
        return False
    return True
