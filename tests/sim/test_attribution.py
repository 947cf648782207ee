"""DUT coverage counts every instance under the DUT, non-inlined submodules included.

The fixture (tests/data/sim/noinline) has a `no_inline_module` submodule instantiated three
times under the DUT, once more in a wrapper nothing instantiates and once in the testbench.
The independent oracle is `verilator_coverage --report hier` on the same coverage.dat.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from sim.errors import ToolNotFoundError
from sim.run.coverage import attribute, parse_coverage, read_coverage, summarize
from sim.run.evaluate import SimOptions, evaluate_files, find_testbench_top
from sim.suite import load_design
from sim.tools import Verilator, find_verilator, tool_env

DATA = Path(__file__).parents[1] / "data" / "sim" / "noinline"
REAL = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "real"
"""The cloned repositories of the shared benchmark folder, beside the checkout (as in CI)."""
ROW = re.compile(r"^\s+(\w+)\s*:\s*([\d.]+)%\s*\(\s*(\d+)/\s*(\d+)\)")


@pytest.fixture(scope="module")
def verilator() -> Verilator:
    try:
        return find_verilator()
    except ToolNotFoundError as exc:
        pytest.skip(str(exc))


def fresh_cache(tmp_path: Path) -> SimOptions:
    """Options with an empty build cache (these tests are about the flags the build gets)."""
    return SimOptions(cache_dir=tmp_path / "cache")


def hier_report(tool: Verilator, dat: Path) -> dict[str, dict[str, tuple[int, int]]]:
    """`verilator_coverage --report hier`: instance path -> metric -> (covered, total), subtree sums."""
    out = subprocess.run([str(tool.coverage), "--report", "hier", str(dat)], capture_output=True, text=True,
                         check=True, env=tool_env(tool), timeout=120).stdout
    table: dict[str, dict[str, tuple[int, int]]] = {}
    section, current = "", ""
    for line in out.splitlines():
        if line.endswith("Summary:"):
            section = line
        elif section.startswith("Hierarchy") and line.startswith("  ") and not line.startswith("    "):
            current = line.strip()
        elif section.startswith("Hierarchy") and (m := ROW.match(line)) and int(m[4]):
            table.setdefault(current, {})[m[1]] = (int(m[3]), int(m[4]))
    return table


def counts(result_coverage: object) -> dict[str, tuple[int, int]]:
    metrics = getattr(result_coverage, "metrics", {})
    return {k: (v.covered, v.total) for k, v in metrics.items()}


@pytest.mark.simulator_required
def test_every_instance_under_the_dut_counts_like_verilator_coverage(verilator: Verilator, tmp_path: Path) -> None:
    design = load_design(DATA)
    # A build cache of its own: a binary cached under another build of the code must not answer.
    result = evaluate_files(design, [DATA / "tb" / "tb_top_dual.sv"], None, options=fresh_cache(tmp_path),
                            check=False, run_dir=tmp_path / "run")
    assert result.status.value == "ok", result.detail
    assert result.coverage_dat is not None
    oracle = hier_report(verilator, result.coverage_dat)
    # The oracle's DUT entry is the subtree below tb_top_dual.dut; the wrapper nobody
    # instantiates was not elaborated (the testbench's top is given to Verilator).
    assert "tb_top_dual.dut" in oracle
    assert not any("spare" in h for h in oracle), sorted(oracle)
    assert counts(result.coverage) == oracle["tb_top_dual.dut"]
    # Each of the three non-inlined instances has points of its own.
    scopes = {p.hier for p in read_coverage(result.coverage_dat).points if p.module == "leaf"}
    assert {"tb_top_dual.dut.u_c", "tb_top_dual.dut.u_twin.u_a", "tb_top_dual.dut.u_twin.u_b"} <= scopes
    # The testbench's own copy is left out, and said so.
    assert any("tb_top_dual.model" in n and "not counted" in n for n in result.notes), result.notes
    points = result.extra["points"]
    assert isinstance(points, dict)
    assert points["kept"] + points["outside"] == points["dut_units"]
    assert points["outside"] > 0
    assert points["collapsed"] == 0


def test_collapsed_paths_are_reported_not_dropped_silently() -> None:
    # What Verilator writes without --coverage-per-instance when the DUT's core and another
    # top's core share a module: one point, path `*.core`, counts summed.
    rec = "C '\x01t\x02{t}\x01page\x02v_{t}/{u}\x01f\x02a.v\x01l\x02{l}\x01o\x02{o}\x01h\x02{h}' {c}\n"
    text = "# SystemC::Coverage-3\n" + "".join([
        rec.format(t="line", u="wrap", l=1, o="block", h="tb.dut", c=1),
        rec.format(t="line", u="core", l=5, o="block", h="*.core", c=3),
        rec.format(t="line", u="core", l=6, o="if", h="*.core", c=0),
        rec.format(t="line", u="tb", l=9, o="block", h="tb", c=1),
    ])
    split = attribute(parse_coverage(text), "wrap")
    assert split.scopes == ("tb.dut",)
    assert len(split.report.points) == 1
    assert split.collapsed == (("*.core", "core", 2),)
    assert split.counts() == {"file": 4, "dut_units": 3, "kept": 1, "outside": 0, "collapsed": 2}
    assert any("*.core" in n and "per-instance" in n for n in split.notes())
    # A file with only collapsed paths for the DUT itself still finds it (as before).
    only = text.replace("\x02tb.dut'", "\x02tb.*'")
    assert attribute(parse_coverage(only), "wrap").scopes == ("tb.*",)
    assert summarize(split.report).metrics["line"].total == 1


def test_testbench_top_is_the_module_nothing_instantiates() -> None:
    assert find_testbench_top(["module tb; dut u(); helper h(); endmodule\nmodule helper; endmodule\n"]) == "tb"
    assert find_testbench_top(["// module fake;\nmodule tb_a; endmodule\n", "module tb_b; endmodule\n"]) is None
    assert find_testbench_top(["module m; endmodule"]) == "m"
    assert find_testbench_top([""]) is None


@pytest.mark.simulator_required
def test_picorv32_axi_counts_its_core(tmp_path: Path) -> None:
    """The bug report's case: the CPU core (6,208 points) was dropped, 95.8 % instead of 69.1 %."""
    repo = REAL / "picorv32"
    if not repo.is_dir():
        pytest.skip(f"{repo} is not on this machine (the shared benchmark folder)")
    from sim.project.inputs import load_or_infer

    design = load_or_infer([repo], top="picorv32_axi")
    result = evaluate_files(design, [REAL / "reference" / "tb_picorv32_axi.sv"], None, options=fresh_cache(tmp_path),
                            check=False, run_dir=tmp_path / "run")
    assert result.status.value == "ok", result.detail
    assert result.coverage is not None
    assert abs(result.coverage.overall - 69.05) < 0.01
    points = result.extra["points"]
    assert isinstance(points, dict)
    assert points["kept"] > 7000
    assert points["collapsed"] == 0
