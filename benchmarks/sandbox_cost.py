"""What the OS sandbox costs: sandboxed vs unsandboxed build and run, as ratios in one script.

    python benchmarks/sandbox_cost.py [--designs a,b,c] [--builds 2] [--runs 40] [--engine-calls 60] [--busy N]

For each design (with an SV human test) it alternates the two modes so machine noise hits
both alike:
  build   a cold build (empty build cache, ccache disabled), sandbox `off` vs `require`
  run     one run of the built binary (the human test: a few ms), `off` vs `require`,
          median of --runs, the way the engine's harness runs hundreds of trials (runs of
          one binary share one long-lived sandbox: sim.sandbox.session)
  run1    the same with a caller-given run directory, i.e. one bwrap start-up per run
          (`sim --out`, human tests kept for inspection)
  engine  one built-in engine episode (heuristic policy, --engine-calls simulator calls, no
          early stop; warm build cache), the wall time a user waits for a proposal
and prints the medians and the ratio sandboxed / unsandboxed (goal: <= 1.05 build,
<= 1.2 run). The bare bubblewrap start-up (`bwrap ... true` vs `true`) is printed too,
since it is the floor of the run overhead. `--busy N` keeps N busy-looping processes running
during the run measurements (a laptop whose editor and builds compete for the cores): every
process a sandboxed run starts then also waits for a core.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from sim.run.evaluate import BuiltTestbench, SimOptions, build
from sim.run.human import verilogeval_copy
from sim.sandbox.bwrap import SandboxMode, bwrap_argv, probe
from sim.suite import load_design
from sim.types import SimResult

PUBLIC = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "public"
DEFAULT = ("cvdp__fsm_seq_detector", "verilogeval__count_clock", "nandland__spi_master")
MODES = (SandboxMode.OFF, SandboxMode.REQUIRE)


def timed_build(name: str, mode: SandboxMode, cache: Path) -> tuple[float, BuiltTestbench]:
    """Seconds of one cold build of the design's human test under `mode`."""
    design = load_design(PUBLIC / name)
    test = design.human_test
    assert test is not None and test.kind == "sv", f"{name} has no SV human test"
    gen = verilogeval_copy(design, "\n".join(p.read_text() for p in test.files))
    shutil.rmtree(cache, ignore_errors=True)
    options = SimOptions(cache_dir=cache, sandbox=mode)
    t = time.monotonic()
    built = build(design, test.files, test.top, options=options, generated=gen or None)
    took = time.monotonic() - t
    if isinstance(built, SimResult):
        raise SystemExit(f"{name}: build failed: {built.detail}")
    return took, built


def timed_runs(built: BuiltTestbench, mode: SandboxMode, runs: int, own_dir: Path | None = None) -> list[float]:
    """Wall seconds of `runs` runs of the binary (coverage parse included) under `mode`.

    With `own_dir`, each run gets a fresh directory there (no shared session).
    """
    from dataclasses import replace

    built = replace(built, options=replace(built.options, sandbox=mode))
    out = []
    for k in range(runs):
        run_dir = None if own_dir is None else own_dir / f"{mode.value}-{k}-{time.monotonic_ns()}"
        t = time.monotonic()
        res = built.run(run_dir=run_dir)
        out.append(time.monotonic() - t)
        assert res.status.value == "ok", res.detail
        if run_dir is not None:
            shutil.rmtree(run_dir, ignore_errors=True)
    return out


def timed_episode(name: str, mode: SandboxMode, calls: int, cache: Path) -> float:
    """Wall seconds of one heuristic episode with a fixed simulator budget under `mode`."""
    from agent.loop import AgentConfig, run_episode
    from agent.policy import get_policy

    design = load_design(PUBLIC / name)
    sim = SimOptions(cache_dir=cache, sandbox=mode)
    config = AgentConfig(refinements=1, max_sim_calls=calls, early_stop=False, sim=sim)
    policy = get_policy("heuristic", seed=0, sim_options=sim)
    t = time.monotonic()
    episode = run_episode(design, policy, config)
    assert episode.best_result is not None and episode.best_result.status.value == "ok"
    return time.monotonic() - t


def bwrap_floor(n: int = 40) -> tuple[float, float]:
    """Median seconds of `true` and of `true` inside the same bwrap view the runs get."""
    found = probe()
    assert found.bwrap is not None
    plain, boxed = [], []
    wrapped = bwrap_argv(found.bwrap, ["true"], cwd=Path(tempfile.gettempdir()))
    for _ in range(n):
        for argv, into in ((["true"], plain), (wrapped, boxed)):
            t = time.monotonic()
            subprocess.run(argv, check=True)
            into.append(time.monotonic() - t)
    return statistics.median(plain), statistics.median(boxed)


@contextlib.contextmanager
def busy(n: int) -> Iterator[None]:
    """`n` processes spinning on a core each for the duration of the block."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def main() -> int:
    """Print one row per design and measurement, then the bwrap floor."""
    p = argparse.ArgumentParser()
    p.add_argument("--designs", default=",".join(DEFAULT))
    p.add_argument("--builds", type=int, default=2, help="cold builds per mode and design")
    p.add_argument("--runs", type=int, default=40, help="runs per mode and design")
    p.add_argument("--engine-calls", type=int, default=60, help="simulator calls per engine episode (0: skip)")
    p.add_argument("--busy", type=int, default=0, help="busy-looping processes during the run measurements")
    args = p.parse_args()
    if not probe().available:
        raise SystemExit(f"the sandbox is not available here: {probe().reason}")
    os.environ["CCACHE_DISABLE"] = "1"  # cold builds: the compiler's work, not the cache's
    work = Path(tempfile.mkdtemp(prefix="bw-sandbox-cost-"))
    print(f"{'design':<28} {'step':<6} {'off s':>8} {'sandbox s':>10} {'ratio':>7}")
    try:
        for name in args.designs.split(","):
            build_s: dict[SandboxMode, list[float]] = {m: [] for m in MODES}
            built = None
            for _ in range(args.builds):
                for mode in MODES:
                    took, built = timed_build(name, mode, work / name / mode.value)
                    build_s[mode].append(took)
            assert built is not None
            run_s: dict[SandboxMode, list[float]] = {m: [] for m in MODES}
            run1_s: dict[SandboxMode, list[float]] = {m: [] for m in MODES}
            with busy(args.busy):
                for _ in range(args.runs // 10):
                    for mode in MODES:
                        run_s[mode] += timed_runs(built, mode, 10)
                        run1_s[mode] += timed_runs(built, mode, 10, work / name / "runs")
            engine_s: dict[SandboxMode, list[float]] = {m: [] for m in MODES}
            if args.engine_calls:
                for mode in MODES:  # a first full episode builds the harness and replays (ccache is off)
                    timed_episode(name, mode, args.engine_calls, work / name / "engine")
                for mode in MODES:
                    engine_s[mode].append(timed_episode(name, mode, args.engine_calls, work / name / "engine"))
            steps = [("build", build_s), ("run", run_s), ("run1", run1_s)] + ([("engine", engine_s)] if args.engine_calls else [])
            for step, data in steps:
                off, boxed = statistics.median(data[MODES[0]]), statistics.median(data[MODES[1]])
                print(f"{name:<28} {step:<6} {off:>8.4f} {boxed:>10.4f} {boxed / off:>7.3f}", flush=True)
        plain, boxed = bwrap_floor()
        print(f"{'(bwrap start-up floor)':<28} {'true':<6} {plain:>8.4f} {boxed:>10.4f} {boxed / plain:>7.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
