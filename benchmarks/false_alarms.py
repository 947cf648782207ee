"""False alarms of the kept testbenches' checks: each final testbench re-run on the unchanged design (issue 33).

    benchwright bench ../shared/benchmarks/public --no-early-stop --out out/public
    python benchmarks/false_alarms.py out/public ../shared/benchmarks/public --runs 5 --load 0,2 \\
        --out benchmarks/results/false_alarms_public

The suite may also be a manifest of repositories (`../shared/benchmarks/real/real.toml`,
`benchmarks/external/external.toml`), as `bench` takes it.

Every design's best testbench of a `bench` output folder is simulated `--runs` times for each
number of busy-looping processes in `--load` (idle, and beside busy processes competing for the
CPUs); the runs of one load share a build (`--fresh-builds`: each run builds its own). A run is a false alarm when it
reports a check mismatch or a protocol finding that another run of the same testbench on the
same design does not, or when any run reports one at all: the design did not change, so every
mismatch is the checks' fault, and a finding must at least be reproducible to be believed
(reported findings are listed for judgement). Writes `<out>.md` and `<out>.json`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent.program import sv_checks as chk
from agent.program.sv_monitors import finding_key, parse_findings
from sim.project.all_tops import manifest_opened
from sim.run.evaluate import SimOptions, evaluate_sv
from sim.suite import Design, load_design


def _busy() -> None:  # pragma: no cover - a load generator
    while True:
        pass


def best_testbench(folder: Path) -> Path | None:
    """The kept testbench of one design's bench output (`designs/<name>/sample0/tb_*.sv`)."""
    found = sorted((folder / "sample0").glob("tb_*.sv"))
    return found[0] if found else None


def suite_designs(suite: Path) -> dict[str, Design]:
    """Design name -> design: a folder's design folders, or a manifest's repositories opened as `bench` opens them."""
    if suite.is_file():
        return {o.name: o.design for o in manifest_opened(suite) if o.design is not None}
    return {d.name: load_design(d) for d in sorted(suite.iterdir()) if (d / "design.toml").is_file()}


def rerun(design: Design, tb: Path, runs: int, cache_root: Path, fresh: bool = False) -> list[dict[str, Any]]:
    """`runs` simulations of `tb` on the design (`fresh`: each with its own build cache)."""
    out = []
    for k in range(runs):
        r = evaluate_sv(design, tb.read_text(), tb_name=tb.name,
                        options=SimOptions(cache_dir=cache_root / (f"{design.name}-{k}" if fresh else design.name)))
        counted = chk.summary(r.log_tail)
        out.append({"status": r.status.value, "overall": round(r.overall, 2),
                    "checks": counted[0] if counted else 0, "mismatches": counted[1] if counted else 0,
                    "mismatch_lines": chk.mismatches(r.log_tail)[:3],
                    "findings": sorted(finding_key(f) for f in parse_findings(r.log_tail))})
    return out


def verdict(runs: list[dict[str, Any]]) -> str:
    """'clean', or what went wrong across the runs of one testbench (pure)."""
    bad = []
    if any(r["status"] != "ok" for r in runs):
        bad.append("a run did not end ok: " + ", ".join(sorted({r["status"] for r in runs})))
    if any(r["mismatches"] for r in runs):
        bad.append(f"mismatches in {sum(1 for r in runs if r['mismatches'])} of {len(runs)} runs")
    if len({json.dumps(r["findings"]) for r in runs}) > 1:
        bad.append("findings differ between runs")
    elif runs and runs[0]["findings"]:
        bad.append(f"{len(runs[0]['findings'])} finding(s), the same in every run (judge them)")
    if len({r["overall"] for r in runs}) > 1:
        bad.append("coverage differs between runs")
    return "; ".join(bad) or "clean"


def table(results: dict[str, dict[str, list[dict[str, Any]]]]) -> str:
    """The markdown table: per design, per load, checks and mismatches of every run, and the verdict (pure)."""
    loads = sorted({load for per in results.values() for load in per}, key=int)
    lines = ["| design | " + " | ".join(f"load {n}: checks / mismatches per run" for n in loads)
             + " | findings | verdict |", "|---" * (len(loads) + 3) + "|"]
    clean = 0
    for name, per in sorted(results.items()):
        every = [r for load in loads for r in per.get(load, [])]
        cells = [" ".join(f"{r['checks']}/{r['mismatches']}" for r in per.get(load, [])) for load in loads]
        found = "; ".join(every[0]["findings"]) if every and every[0]["findings"] else "-"
        v = verdict(every)
        clean += v == "clean"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {found} | {v} |")
    lines += ["", f"{clean} of {len(results)} testbenches clean: no mismatch and no finding in any run."]
    return "\n".join(lines) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bench", type=Path, help="a `benchwright bench --out` folder")
    p.add_argument("suite", type=Path, help="the suite the bench ran on (design folders by name, or a manifest)")
    p.add_argument("--runs", type=int, default=5, help="runs per testbench and load (default: 5)")
    p.add_argument("--load", default="0,2", help="busy processes beside the runs, comma-separated (default: 0,2)")
    p.add_argument("--fresh-builds", action="store_true", help="every run builds the testbench again")
    p.add_argument("--only", default="", help="comma-separated design names (default: every design)")
    p.add_argument("--out", type=Path, default=Path("false_alarms"), help="output path without suffix")
    args = p.parse_args()
    only = {n for n in args.only.split(",") if n}
    folders = sorted(d for d in (args.bench / "designs").iterdir() if d.is_dir() and (not only or d.name in only))
    designs = suite_designs(args.suite)
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    with tempfile.TemporaryDirectory(prefix="bw-false-alarms-") as tmp:
        for load in (int(n) for n in args.load.split(",")):
            busy = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(load)]
            for b in busy:
                b.start()
            try:
                for folder in folders:
                    tb = best_testbench(folder)
                    if tb is None or folder.name not in designs:
                        continue
                    runs = rerun(designs[folder.name], tb, args.runs, Path(tmp) / f"load{load}", args.fresh_builds)
                    results.setdefault(folder.name, {})[str(load)] = runs
                    print(f"{folder.name:<36} load {load}: {verdict(runs)}", flush=True)
            finally:
                for b in busy:
                    b.terminate()
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=1))
    text = table(results)
    args.out.with_suffix(".md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
