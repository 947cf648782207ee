"""Evaluator speed vs a bare Verilator invocation of the same build (ratios, same process).

    python benchmarks/sim_speed.py [--designs a,b,c]

For each design (with an SV human test) it measures, in this order:
  bare      `verilator --binary --timing --coverage` into a fresh dir, ccache disabled (baseline)
  cold      our evaluate (guard + build + run + coverage), empty build cache, ccache disabled
  ccache    our evaluate, empty build cache, warm ccache (a new checkout / new cache dir)
  cached    our evaluate again: content-hash cache hit (no build at all)
  tb-only   the testbench changed by one comment line: rebuild through ccache
and one cocotb design for `cocotb rerun` (DUT built once, a changed test module re-run).
Times are wall seconds on this machine; ratios are against `bare`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from sim.run.commands import BuildSpec, verilator_build
from sim.run.evaluate import SimOptions, evaluate_files
from sim.run.human import verilogeval_copy
from sim.sandbox.process import run_commands
from sim.suite import load_design
from sim.tools import find_verilator, tool_env

PUBLIC = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "public"
DEFAULT = ("cvdp__fsm_seq_detector", "verilogeval__count_clock", "nandland__spi_master")


def timed(fn):  # type: ignore[no-untyped-def]
    """(seconds, result) of calling fn."""
    t = time.monotonic()
    out = fn()
    return time.monotonic() - t, out


def main() -> int:
    """Print one table row per design and measurement."""
    p = argparse.ArgumentParser()
    p.add_argument("--designs", default=",".join(DEFAULT))
    args = p.parse_args()
    tool = find_verilator()
    work = Path(tempfile.mkdtemp(prefix="bw-speed-"))
    print(f"{'design':<28} {'step':<14} {'seconds':>8} {'ratio':>7}")
    for name in args.designs.split(","):
        design = load_design(PUBLIC / name)
        test = design.human_test
        assert test is not None and test.kind == "sv", name
        tb_files = list(test.files)
        gen = verilogeval_copy(design, "\n".join(p.read_text() for p in tb_files))
        gen_paths = []
        for fname, text in gen.items():
            gp = work / name / fname
            gp.parent.mkdir(parents=True, exist_ok=True)
            gp.write_text(text)
            gen_paths.append(gp)
        spec = BuildSpec(sources=(*design.rtl, *tb_files, *gen_paths), top=test.top, include_dirs=design.include_dirs)
        env = tool_env(tool)
        env.pop("OBJCACHE", None)
        bare_dir = work / name / "bare"
        bare_dir.mkdir(parents=True, exist_ok=True)
        bare, bare_res = timed(lambda: run_commands(verilator_build(tool.verilator, spec, bare_dir), cwd=work,
                                                    log_path=work / "bare.log", env=env))
        assert bare_res[-1].ok, bare_res[-1].tail
        rows = [("bare", bare)]
        os.environ["CCACHE_DISABLE"] = "1"
        opts = SimOptions(cache_dir=work / name / "cache-cold")
        cold, r = timed(lambda: evaluate_files(design, tb_files, test.top, options=opts, generated=gen, check=False))
        del os.environ["CCACHE_DISABLE"]
        rows.append(("cold", cold))
        # Warm ccache first (one build), then measure a new build cache dir against it.
        evaluate_files(design, tb_files, test.top, options=SimOptions(cache_dir=work / name / "cache-warmup"),
                       generated=gen, check=False)
        opts = SimOptions(cache_dir=work / name / "cache-ccache")
        warm, _ = timed(lambda: evaluate_files(design, tb_files, test.top, options=opts, generated=gen, check=False))
        rows.append(("ccache", warm))
        hit, r2 = timed(lambda: evaluate_files(design, tb_files, test.top, options=opts, generated=gen, check=False))
        assert r2.cached and r2.overall == r.overall
        rows.append(("cached", hit))
        changed = work / name / "changed_tb" / tb_files[0].name
        changed.parent.mkdir(parents=True, exist_ok=True)
        changed.write_text(tb_files[0].read_text() + "\n// changed\n")
        tb2 = [changed, *tb_files[1:]]
        tbonly, _ = timed(lambda: evaluate_files(design, tb2, test.top, options=opts, generated=gen, check=False))
        rows.append(("tb-only", tbonly))
        for step, secs in rows:
            print(f"{name:<28} {step:<14} {secs:>8.2f} {secs / bare:>6.2f}x", flush=True)
    # cocotb: DUT built once, a changed test re-runs without rebuilding.
    from sim.run.cocotb import evaluate_cocotb

    design = load_design(PUBLIC / "cocotb__counter")
    assert design.human_test is not None
    files = [p for p in design.human_test.files if p.suffix == ".py"]
    opts = SimOptions(cache_dir=work / "cocotb-cache")
    first, _ = timed(lambda: evaluate_cocotb(design, design.human_test.top, files, options=opts, trusted=True))  # type: ignore[union-attr]
    edited = work / "cocotb" / files[0].name
    edited.parent.mkdir(parents=True, exist_ok=True)
    edited.write_text(files[0].read_text() + "\n# changed\n")
    rerun, r3 = timed(lambda: evaluate_cocotb(design, design.human_test.top, [edited], options=opts, trusted=True))  # type: ignore[union-attr]
    assert r3.cached
    print(f"{'cocotb__counter':<28} {'cocotb build+test':<14} {first:>8.2f} {1.0:>6.2f}x")
    print(f"{'cocotb__counter':<28} {'cocotb rerun':<14} {rerun:>8.2f} {rerun / first:>6.2f}x (vs its first run)")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
