"""`benchwright run-all REPO`: an episode for every design of a repository, one summary table.

Every top the project inference finds (or every entry of a manifest, or every design of a
suite folder) gets its own episode, on this machine or fanned out over a Ray cluster
(agent.fanout). A design that cannot be opened is a row with its reason, never a stop. The
output folder gets bench.json, bench.md and bench.png as `bench` writes them, a JUnit XML
for CI, each design's testbench and trajectory under `designs/`, and the journal that
`--resume` reads.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
from pathlib import Path

from agent.cli import add_policy_args, policy_options
from agent.fanout.options import add_fanout_args, fanout_options
from sim.errors import SimError


def build_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright run-all`."""
    p = argparse.ArgumentParser(prog="benchwright run-all",
                                description="Run an episode for every design of a repository and summarise them.")
    p.add_argument("repo", type=Path,
                   help="a repository folder (every top its inference finds, each inferred on its own), a manifest "
                        "(.toml: [[design]] repo=, top=), or a suite folder (one design folder each)")
    p.add_argument("--out", type=Path, default=Path("benchwright-out/run-all"),
                   help="output folder (default: %(default)s)")
    p.add_argument("--only", help="comma-separated design names")
    p.add_argument("--limit", type=int, help="only the first K designs that open")
    p.add_argument("--samples", type=int, default=1, help="episodes per design (default: %(default)s)")
    p.add_argument("--jobs", type=int, default=1,
                   help="designs in parallel on this machine, or the CPUs of --ray local (default: %(default)s)")
    p.add_argument("--no-early-stop", action="store_true",
                   help="keep refining after a design meets its target")
    p.add_argument("--junit", type=Path, help="also copy the JUnit XML here (it is always OUT/junit.xml)")
    add_fanout_args(p)
    add_policy_args(p, extra=("human",))
    return p


def run_all_main(argv: list[str]) -> int:
    """Entry point of `benchwright run-all`: 0 when every design ran, 1 when some have no results, 2 on bad input."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from agent.bench import BenchJob
    from agent.fanout.rows import FAILED_STATUSES, NOT_OPENED, failed_row
    from agent.fanout.runner import report_markdown, run_designs
    from sim.project.all_tops import repository_designs

    try:
        opened = repository_designs(args.repo)
        options = policy_options(args)
    except SimError as exc:
        sys.stderr.write(f"benchwright run-all: {exc}\n")
        return 2
    if args.policy == "human":
        opened = [o for o in opened if o.design is None or o.design.human_test is not None]
    if args.only:
        wanted = set(args.only.split(","))
        opened = [o for o in opened if o.name in wanted]
    if args.limit:
        runnable = [o.name for o in opened if o.design is not None][: args.limit]
        opened = [o for o in opened if o.design is None or o.name in runnable]
    jobs = [BenchJob(o.design, args.policy, options, args.samples, args.rounds, args.sim_calls, args.wall,
                     args.out / "designs", early_stop=not args.no_early_stop,
                     mutants=args.mutants if args.mutation else None, reference=o.reference)
            for o in opened if o.design is not None]
    unopened = [failed_row(o.name, o.reason, NOT_OPENED, reference=o.reference) for o in opened if o.design is None]
    sys.stderr.write(f"run-all: {len(jobs)} design(s) to run in {args.repo}"
                     f"{f', {len(unopened)} that cannot be opened' if unopened else ''}\n")
    try:
        bench = run_designs(jobs, args.out, fanout_options(args), unopened, [o.name for o in opened], "Run-all")
    except SimError as exc:  # --ray and no cluster
        sys.stderr.write(f"benchwright run-all: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    if args.junit:
        args.junit.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.out / "junit.xml", args.junit)
    sys.stdout.write(report_markdown(bench, "Run-all"))
    sys.stdout.write(f"\n-> {args.out / 'bench.json'}, {args.out / 'bench.md'}, {args.out / 'junit.xml'}\n")
    return 1 if any(r.get("status") in FAILED_STATUSES for r in bench["designs"]) else 0
