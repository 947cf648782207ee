"""Reliability and security figures: runs the tests/reliability corpora and prints the numbers.

    python benchmarks/reliability_report.py [--json OUT] [-- extra pytest args]

It runs `pytest tests/reliability` (real Verilator, the real server over stdio, llama.cpp,
loopback HTTP servers), collects the figures the tests record through the `figures`
fixture (tests/reliability/conftest.py writes them to $BENCHWRIGHT_RELIABILITY_FIGURES),
and prints:

  hostile cases   tried / contained   SV (corpus/sv) and cocotb (corpus/cocotb, file names, sandbox probes)
  bad inputs      tried / handled     sim/, model, endpoint and server cases
  fuzzing         executions          hypothesis over the pure parsers (bounded: 400 examples / 6 s each)
  load            saves, documents, coverage publications, peak builds per design, server peak RSS
  files lost      must be 0           workspace hashes around the load test and a SIGKILL mid-episode

A figure is only meaningful when the run passed (exit status 0; xfails are known bugs).
The exit status is pytest's, so CI can run this script as the reliability job.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    """Run the suite and print the figures; returns pytest's exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        env = {**os.environ, "BENCHWRIGHT_RELIABILITY_FIGURES": str(out)}
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               str(REPO / "tests" / "reliability"), *args.pytest_args],
                              cwd=REPO, env=env, check=False, capture_output=True, text=True)
        wall = time.monotonic() - start
        summary = next((ln for ln in reversed(proc.stdout.splitlines()) if " in " in ln and "passed" in ln), "")
        data = json.loads(out.read_text()) if out.is_file() else {"counts": {}, "notes": {}}
    c, n = data["counts"], data["notes"]
    hostile_tried = c.get("hostile_sv_tried", 0) + c.get("hostile_cocotb_tried", 0)
    hostile_ok = c.get("hostile_sv_contained", 0) + c.get("hostile_cocotb_contained", 0)
    lines = [
        f"pytest: {summary or 'no summary'} (exit {proc.returncode}, {wall:.0f} s wall)",
        f"hostile cases tried / contained: {hostile_tried} / {hostile_ok}"
        f"  (SV {c.get('hostile_sv_tried', 0)}/{c.get('hostile_sv_contained', 0)},"
        f" cocotb {c.get('hostile_cocotb_tried', 0)}/{c.get('hostile_cocotb_contained', 0)})",
        f"bad inputs tried / handled: {c.get('bad_input_tried', 0)} / {c.get('bad_input_handled', 0)}",
        f"fuzz executions: {c.get('fuzz_executions', 0)} in {n.get('fuzz_seconds', '?')} s  ("
        + ", ".join(f"{k[5:]} {v}" for k, v in sorted(c.items()) if k.startswith("fuzz_") and k != "fuzz_executions")
        + ")",
        f"load: {c.get('load_saves', 0)} saves across {n.get('load_documents', 0)} documents,"
        f" {n.get('load_coverage_published', 0)} coverage publications (in order),"
        f" {c.get('load_concurrent_improves', 0)} concurrent improve-coverage commands,"
        f" peak builds per design {n.get('load_peak_builds_per_design', '?')},"
        f" server peak RSS {int(n.get('load_server_peak_rss_kb', 0)) / 1024:.0f} MiB",
        f"SIGKILL mid-episode: {c.get('kill_tests', 0)} run(s), orphans after 10 s: {n.get('kill_orphans_after_10s', '?')}",
        f"files lost: {c.get('files_lost', 0)}",
    ]
    print("\n".join(lines))
    if proc.returncode != 0:
        print(proc.stdout[-4000:], file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({**data, "pytest": summary, "exit": proc.returncode, "wall_s": round(wall, 1)},
                                        indent=1))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
