"""Coverage audit: what every design's DUT coverage counts, measured by two checkouts.

    python benchmarks/coverage_audit.py tbs  --tbs out/audit_tbs          # testbenches, made once
    python benchmarks/coverage_audit.py measure --tbs out/audit_tbs --out out/audit_after.json
    PYTHONPATH=/tmp/old python benchmarks/coverage_audit.py measure --tbs out/audit_tbs --out out/audit_before.json
    python benchmarks/coverage_audit.py compare out/audit_before.json out/audit_after.json --md out/audit.md

Each design is scored with one fixed testbench, the same for both checkouts: its human test
(public suite), the careful reference testbench (`../shared/benchmarks/real/reference/`), or
a testbench the built-in engine wrote once at 20 simulator calls (designs with neither, the
examples). `measure` uses only APIs both checkouts have, so an older checkout on PYTHONPATH
measures the same testbenches with its own coverage filter. `compare` lists the designs whose
point totals moved and by how much.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "benchmarks"


def designs() -> list[tuple[str, str, Any]]:
    """(name, kind, handle): public designs, real designs (repo, top), examples."""
    from sim.suite import load_suite

    out: list[tuple[str, str, Any]] = [(d.name, "public", d) for d in load_suite(SHARED / "public")]
    manifest = tomllib.loads((SHARED / "real" / "real.toml").read_text())
    out += [(f"{d['repo']}/{d['top']}", "real", (d["repo"], d["top"])) for d in manifest["design"]]
    out += [(p.name, "example", p) for p in sorted((ROOT / "examples").iterdir()) if p.is_dir()]
    return out


def make_tbs(folder: Path) -> None:
    """Engine testbenches (20 calls, seed 0) for the designs with no human or reference test."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, kind, handle in designs():
        if kind == "real" or (kind == "public" and handle.human_test is not None):
            continue
        target = folder / f"{name}.sv"
        if target.is_file():
            continue
        path = handle.root if kind == "public" else handle
        out = folder / f"{name}.run"
        subprocess.run([sys.executable, "-m", "benchwright.cli", "run", str(path), "--sim-calls", "20",
                        "--rounds", "0", "--out", str(out)], check=False, capture_output=True, timeout=900)
        made = sorted(out.glob("tb_*.sv"))
        if made:
            target.write_text(made[0].read_text())
        print(f"{name}: {'ok' if made else 'no testbench'}", flush=True)


def measure_one(name: str, kind: str, handle: Any, tbs: Path) -> dict[str, Any]:
    """One design's DUT coverage with its fixed testbench."""
    from sim.run.evaluate import evaluate_files
    from sim.run.human import evaluate_human

    if kind == "real":
        from sim.project.inputs import load_or_infer

        repo, top = handle
        design = load_or_infer([SHARED / "real" / repo], top=top)
        res = evaluate_files(design, [SHARED / "real" / "reference" / f"tb_{top}.sv"], None, check=False)
    elif kind == "public" and handle.human_test is not None:
        res = evaluate_human(handle)
    else:
        from sim.project.inputs import load_or_infer

        design = handle if kind == "public" else load_or_infer([handle])
        tb = tbs / f"{name}.sv"
        if not tb.is_file():
            return {"name": name, "kind": kind, "status": "no testbench"}
        res = evaluate_files(design, [tb], None, check=False)
    cov = res.coverage
    return {"name": name, "kind": kind, "status": res.status.value,
            "overall": round(cov.overall, 2) if cov else None,
            "counts": {k: [v.covered, v.total] for k, v in cov.metrics.items()} if cov else {},
            "notes": [n for n in res.notes if "not counted" in n]}


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """A markdown table of the designs whose point totals or overall coverage moved."""
    old = {r["name"]: r for r in before}
    rows, same = [], 0
    for new in after:
        prev = old.get(new["name"])
        if prev is None or prev.get("overall") is None or new.get("overall") is None:
            continue
        t0 = sum(t for _, t in prev["counts"].values())
        t1 = sum(t for _, t in new["counts"].values())
        if t0 == t1 and prev["overall"] == new["overall"]:
            same += 1
            continue
        rows.append(f"| {new['name']} | {new['kind']} | {t0} | {t1} | {t1 - t0:+d} | {prev['overall']:.2f} | "
                    f"{new['overall']:.2f} | {new['overall'] - prev['overall']:+.2f} |")
    head = ["| design | set | points before | points after | change | overall before % | overall after % | change |",
            "|---|---|---|---|---|---|---|---|"]
    return "\n".join([*head, *rows, "", f"{same} designs unchanged (same point totals and overall coverage)."]) + "\n"


def main() -> int:
    """Entry point."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tbs")
    t.add_argument("--tbs", type=Path, required=True)
    m = sub.add_parser("measure")
    m.add_argument("--tbs", type=Path, required=True)
    m.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    c.add_argument("--md", type=Path)
    args = p.parse_args()
    if args.cmd == "tbs":
        make_tbs(args.tbs)
    elif args.cmd == "measure":
        rows = []
        for name, kind, handle in designs():
            try:
                row = measure_one(name, kind, handle, args.tbs)
            except Exception as exc:  # noqa: BLE001 - one design's failure is a row, not the end
                row = {"name": name, "kind": kind, "status": f"error: {exc}"}
            rows.append(row)
            print(f"{name:<40} {row.get('status')} {row.get('overall')}", flush=True)
        args.out.write_text(json.dumps(rows, indent=1))
    else:
        text = compare(json.loads(args.before.read_text()), json.loads(args.after.read_text()))
        if args.md:
            args.md.write_text(text)
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
