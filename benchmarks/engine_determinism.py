"""The built-in engine's result under load: the same episode, idle and beside busy processes (issue 23).

    python benchmarks/engine_determinism.py run --load 0 --out idle.json [--calls 100] [--runs 2]
    python benchmarks/engine_determinism.py run --load 2 --out loaded.json
    python benchmarks/engine_determinism.py compare idle.json loaded.json [--md out.md]

`run` plays each design's episode (`run_engine`, seed 0, a simulator-call budget and a wall
limit far above what it needs) `--runs` times in a row while `--load` busy-looping processes
compete for the CPUs, and records coverage, covered points, simulator calls, the testbench's
hash and whether the wall limit ended it. `compare` lists every run of every file side by
side and counts the designs where any two runs differ. The engine's decisions depend only on
seed, design and call budget, so every pair should be identical; a wall-limited run is
reported as such (a stop, not a different search).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.heuristic.engine import run_engine
from agent.policy import Budget
from sim.project.inputs import load_or_infer
from sim.project.manifest import manifest_designs
from sim.suite import Design, load_design

SHARED = Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
PUBLIC_DEFAULT = (
    "cvdp__spi_fsm", "cvdp__sipo_8bit", "forencich__uart_rx", "forencich__i2c_master", "nandland__spi_master",
    "wb2axip__sfifo", "verilogeval__count_clock", "common_cells__cc_fifo",
)
"""Public designs that use the whole budget (they never reach 100 %), so every call counts."""


def _designs(suite: Path, public: Sequence[str], real: Path | None) -> list[Design]:
    out = [load_design(suite / name) for name in public]
    if real is not None:
        out += [m.design for m in manifest_designs(real, lambda repo, top: load_or_infer([repo], top=top))]
    return out


def _busy() -> None:  # pragma: no cover - a load generator
    while True:
        pass


def _episode(design: Design, calls: int, wall_s: float) -> dict[str, Any]:
    start = time.monotonic()
    tb, rep = run_engine(design, strategy="heuristic", budget=Budget(calls, start + wall_s), seed=0)
    cov = rep.final.coverage if rep.final is not None else None
    return {
        "overall": cov.overall if cov is not None else None,
        "covered": rep.search.covered if rep.search is not None else None,
        "sim_calls": rep.sim_calls,
        "tb_sha": hashlib.sha256(tb.encode()).hexdigest()[:12],
        "wall_stopped": "wall-clock limit" in rep.note,
        "seconds": round(time.monotonic() - start, 1),
    }


def cmd_run(args: argparse.Namespace) -> int:
    designs = _designs(args.suite, [n for n in args.public.split(",") if n], args.real)
    load = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(args.load)]
    for p in load:
        p.start()
    try:
        results: dict[str, list[dict[str, Any]]] = {}
        for design in designs:
            for k in range(args.runs):
                results.setdefault(design.name, []).append(_episode(design, args.calls, args.wall))
                r = results[design.name][-1]
                print(f"{design.name:<34} run {k + 1}: {r['overall']} % {r['covered']} points "
                      f"{r['sim_calls']} calls {r['tb_sha']} {r['seconds']} s", flush=True)
    finally:
        for p in load:
            p.terminate()
    args.out.write_text(json.dumps({"load": args.load, "calls": args.calls, "designs": results}, indent=1))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    files = [(p.stem, json.loads(p.read_text())) for p in args.files]
    names = list(dict.fromkeys(n for _, f in files for n in f["designs"]))
    head = [f"{stem} (load {f['load']}) #{k + 1}" for stem, f in files for k in range(len(next(iter(f["designs"].values()))))]
    lines = ["| design | " + " | ".join(head) + " | identical |", "|---" * (len(head) + 2) + "|"]
    differ = 0
    for name in names:
        runs = [r for _, f in files for r in f["designs"].get(name, [])]
        keys = {(r["overall"], r["covered"], r["sim_calls"], r["tb_sha"]) for r in runs}
        same = len(keys) == 1
        differ += not same
        cells = [f"{r['overall']} % / {r['sim_calls']} calls{' (wall)' if r['wall_stopped'] else ''}" for r in runs]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {'yes' if same else '**no**'} |")
    lines.append("")
    lines.append(f"{len(names) - differ} of {len(names)} designs identical in coverage, points, calls and testbench.")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.md is not None:
        args.md.write_text(text)
    return 1 if differ else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--suite", type=Path, default=SHARED / "public", help="the public suite folder")
    r.add_argument("--public", default=",".join(PUBLIC_DEFAULT), help="public design names (comma-separated)")
    r.add_argument("--real", type=Path, default=SHARED / "real" / "real.toml", help="a real.toml manifest")
    r.add_argument("--calls", type=int, default=100, help="simulator calls per episode")
    r.add_argument("--runs", type=int, default=2, help="episodes per design")
    r.add_argument("--load", type=int, default=0, help="busy-looping processes during the runs")
    r.add_argument("--wall", type=float, default=3600.0, help="wall limit per episode (seconds)")
    r.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("files", type=Path, nargs="+")
    c.add_argument("--md", type=Path)
    args = p.parse_args()
    return cmd_run(args) if args.cmd == "run" else cmd_compare(args)


if __name__ == "__main__":
    sys.exit(main())
