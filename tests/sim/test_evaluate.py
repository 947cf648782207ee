"""Real-Verilator tests of the evaluator: every status, the cache, the guard, fallbacks."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sim.run.evaluate import SimOptions, build_sv, evaluate_sv, tb_top_name
from sim.run.human import evaluate_human
from sim.suite import load_design
from sim.types import Status

pytestmark = pytest.mark.simulator_required

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "traffic_light"
PUBLIC = ROOT.parent / "shared" / "benchmarks" / "public"

EXAMPLE_TB = (EXAMPLE / "tb" / "tb_traffic_light.sv").read_text()
GOOD_TB = EXAMPLE_TB.replace(
    "    repeat (60) @(negedge clk);\n",
    "    repeat (40) @(negedge clk);\n    ped_req = 1;\n    repeat (40) @(negedge clk);\n",
)
"""The example's own testbench, with the pedestrian button pressed half-way."""


@pytest.fixture
def options(tmp_path: Path) -> SimOptions:
    return SimOptions(cache_dir=tmp_path / "cache", run_timeout_s=20)


@pytest.fixture(scope="module")
def design():  # type: ignore[no-untyped-def]
    return load_design(EXAMPLE)


def test_ok_run_reports_dut_coverage(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    res = evaluate_sv(design, GOOD_TB, options=options)
    assert res.status is Status.OK, res.detail
    assert res.coverage is not None
    assert set(res.coverage.metrics) == {"line", "branch", "toggle", "expr"}
    assert 30 < res.overall < 100
    # Only DUT points: every uncovered point is in the RTL file, never in the testbench.
    assert res.uncovered
    assert all(p.file.endswith("traffic_light.sv") for p in res.uncovered)
    assert res.lcov is None or res.lcov.suffix == ".info"


def test_rebuild_is_cached(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    first = evaluate_sv(design, GOOD_TB, options=options)
    start = time.monotonic()
    second = evaluate_sv(design, GOOD_TB, options=options)
    assert second.cached
    assert not first.cached
    assert second.overall == first.overall
    assert time.monotonic() - start < 2.0


def test_syntax_error_is_compile_error_with_line(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    broken = GOOD_TB.replace("always #5 clk = ~clk;", "always #5 clk = ~clk")
    res = evaluate_sv(design, broken, options=options)
    assert res.status is Status.COMPILE_ERROR
    err = next(m for m in res.messages if m.severity == "error")
    assert err.file == "tb_traffic_light.sv"
    lines = GOOD_TB.splitlines()
    always_line = lines.index("  always #5 clk = ~clk;") + 1
    # Verilator reports the first token after the missing ';' (the next non-blank line).
    next_token_line = next(n for n in range(always_line + 1, len(lines) + 1) if lines[n - 1].strip())
    assert err.line == next_token_line
    assert "expecting ';'" in err.text


def test_missing_finish_is_timeout_within_limit(design, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tb = GOOD_TB.replace("    $finish;\n", "")
    opts = SimOptions(cache_dir=tmp_path / "cache", run_timeout_s=2)
    start = time.monotonic()
    res = evaluate_sv(design, tb, options=opts)
    assert res.status is Status.TIMEOUT
    assert "$finish" in res.detail
    assert time.monotonic() - start - res.build_s < 6


def test_system_call_is_rejected_before_building(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    tb = GOOD_TB.replace("$finish;", '$system("touch /tmp/pwned"); $finish;')
    res = evaluate_sv(design, tb, options=options)
    assert res.status is Status.COMPILE_ERROR
    assert res.messages[0].tag == "BENCHWRIGHT-GUARD"
    assert res.build_s == 0
    assert not (options.cache_dir or Path("/nonexistent")).joinpath("builds").exists()


def test_fatal_is_runtime_error(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    tb = GOOD_TB.replace("$finish;", '$fatal(1, "checker failed");')
    res = evaluate_sv(design, tb, options=options)
    assert res.status is Status.RUNTIME_ERROR
    assert res.detail


def test_tb_without_dut_is_coverage_error(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    res = evaluate_sv(design, "module tb; initial $finish; endmodule\n", options=options)
    assert res.status is Status.COVERAGE_ERROR
    assert "instantiate" in res.detail


def test_display_flood_is_contained(design, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tb = "module tb; initial forever begin $display(\"%0200d\", 1); #1; end endmodule\n"
    opts = SimOptions(cache_dir=tmp_path / "cache", run_timeout_s=20, file_bytes=2 << 20)
    res = evaluate_sv(design, tb, options=opts)
    assert res.status in (Status.RUNTIME_ERROR, Status.TIMEOUT)


def test_harness_runs_many_times_from_one_build(design, options: SimOptions) -> None:  # type: ignore[no-untyped-def]
    tb = GOOD_TB.replace("ped_req = 1;", 'begin integer f, v; f = $fopen("stim.txt", "r"); '
                         'void\'($fscanf(f, "%d", v)); ped_req = v[0]; night_mode = v[1]; end')
    built = build_sv(design, tb, options=options)
    assert not isinstance(built, type(None))
    assert hasattr(built, "run"), getattr(built, "detail", "")
    a = built.run(files={"stim.txt": "0\n"})  # type: ignore[union-attr]
    b = built.run(files={"stim.txt": "3\n"})  # type: ignore[union-attr]
    assert a.status is Status.OK
    assert b.status is Status.OK
    assert b.overall != a.overall


def test_tb_top_name() -> None:
    assert tb_top_name("// module fake;\nmodule   tb_x #(1) ();\nendmodule") == "tb_x"
    assert tb_top_name("no modules here") is None


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="shared/benchmarks/public not present")
def test_verilogeval_human_test_gets_reference_copy(tmp_path: Path) -> None:
    design = load_design(PUBLIC / "verilogeval__count_clock")
    res = evaluate_human(design, SimOptions(cache_dir=tmp_path / "cache"))
    assert res.status is Status.OK, res.detail
    assert res.overall > 80
    # Scored on the RefModule instance only, not on the renamed TopModule copy.
    assert all("TopModule" not in p.file for p in res.uncovered)


def test_a_flag_derived_in_code_rebuilds(design, options: SimOptions, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The cache keys on the command Verilator gets, not on the options it came from: a release of
    this code that derives one flag differently (here: per-instance coverage dropped) rebuilds."""
    from sim.run import commands

    first = evaluate_sv(design, GOOD_TB, options=options)
    assert first.status is Status.OK, first.detail
    monkeypatch.setattr(commands, "coverage_args", lambda metrics: ["--coverage-line", "--coverage-toggle"])
    second = evaluate_sv(design, GOOD_TB, options=options)
    assert second.status is Status.OK, second.detail
    assert not second.cached
    assert "--coverage-per-instance" not in second.extra["build_argv"]
    monkeypatch.undo()
    third = evaluate_sv(design, GOOD_TB, options=options)
    assert third.cached  # the first binary is still there, under its own key


def test_the_build_key_names_the_tool_binaries(tmp_path: Path) -> None:
    """Two installations of one Verilator version (another path, a rebuilt binary) never share a build."""
    from sim.run.cache import build_key
    from sim.run.commands import BuildSpec
    from sim.tools import Verilator, tool_fingerprint

    def install(name: str) -> Verilator:
        bin_dir = tmp_path / name / "bin"
        bin_dir.mkdir(parents=True)
        for exe in ("verilator", "verilator_bin", "verilator_coverage"):
            (bin_dir / exe).write_text("#!/bin/sh\n")
        return Verilator(bin_dir / "verilator", bin_dir / "verilator_coverage", (5, 52), "Verilator 5.052")

    src = tmp_path / "a.sv"
    src.write_text("module a; endmodule\n")
    spec = BuildSpec(sources=(src,), top="a")
    one, two = install("one"), install("two")
    keys = {build_key(spec, ["verilator", "--binary"], tool_fingerprint(t)) for t in (one, two)}
    assert len(keys) == 2
    before = build_key(spec, ["verilator", "--binary"], tool_fingerprint(one))
    (one.bin_dir / "verilator_bin").write_text("#!/bin/sh\n# rebuilt\n")
    assert build_key(spec, ["verilator", "--binary"], tool_fingerprint(one)) != before
    assert build_key(spec, ["verilator", "--binary", "-DX"], tool_fingerprint(one)) != build_key(
        spec, ["verilator", "--binary"], tool_fingerprint(one))


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="shared/benchmarks/public not present")
def test_cocotb_human_test_and_rerun_without_rebuild(tmp_path: Path) -> None:
    design = load_design(PUBLIC / "cocotb__counter")
    opts = SimOptions(cache_dir=tmp_path / "cache")
    first = evaluate_human(design, opts)
    assert first.status is Status.OK, first.detail + first.log_tail[-800:]
    assert first.overall > 50
    second = evaluate_human(design, opts)
    assert second.cached
    assert second.overall == first.overall


def test_cli_json_matches_library(design, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    tb = tmp_path / "tb_traffic_light.sv"
    tb.write_text(GOOD_TB)
    proc = subprocess.run([sys.executable, "-m", "benchwright.cli", "sim", str(EXAMPLE), "--tb", str(tb), "--json"],
                          capture_output=True, text=True, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) >= {"status", "coverage", "uncovered", "build_s", "run_s", "errors"}
    lib = evaluate_sv(design, GOOD_TB)
    assert data["coverage"]["overall"] == pytest.approx(lib.overall, abs=0.01)
    assert data["coverage"]["metrics"] == lib.coverage.percents()  # type: ignore[union-attr]


def test_metric_that_crashes_verilator_is_dropped_and_reported(design, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A Verilator internal error under expression coverage: rebuild without it, say so, remember it."""
    from sim.tools import find_verilator

    real = find_verilator().verilator
    fake = tmp_path / "bin" / "verilator"
    fake.parent.mkdir()
    # Behaves like a Verilator whose expression-coverage pass crashes on this design.
    fake.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do if [ "$a" = "--coverage-expr" ]; then '
        'echo "%Error: Internal Error: V3Coverage.cpp:123: expression coverage broke" >&2; exit 1; fi; done\n'
        f'exec "{real}" "$@"\n'
    )
    fake.chmod(0o755)
    (tmp_path / "bin" / "verilator_coverage").symlink_to(real.parent / "verilator_coverage")
    find_verilator.cache_clear()
    opts = SimOptions(cache_dir=tmp_path / "cache", verilator_path=str(fake))
    try:
        res = evaluate_sv(design, GOOD_TB, options=opts)
        assert res.status is Status.OK, res.detail
        assert res.coverage is not None
        assert "expr" not in res.coverage.metrics
        assert any("expr coverage disabled" in n for n in res.notes)
        # Remembered per design: the next build skips the crashing metric straight away.
        again = evaluate_sv(design, GOOD_TB.replace("40", "41"), options=opts)
        assert any("expr coverage disabled" in n for n in again.notes)
        assert "--coverage-expr" not in again.extra["build_argv"]  # type: ignore[operator]
    finally:
        find_verilator.cache_clear()


@pytest.mark.parametrize(
    "tb",
    [
        pytest.param("", id="empty"),
        pytest.param("/* unterminated comment\n", id="only-comment"),
        pytest.param("module traffic_light; endmodule\n", id="redefines-dut"),
    ],
)
def test_text_without_a_testbench_module_is_a_compile_error(design, options: SimOptions, tb: str) -> None:  # type: ignore[no-untyped-def]
    res = evaluate_sv(design, tb, options=options)
    assert res.status is Status.COMPILE_ERROR
    assert "instantiates traffic_light" in res.detail
    assert res.build_s == 0


def test_waiver_file_in_design_folder_is_applied_and_listed(tmp_path: Path) -> None:
    import shutil

    work = tmp_path / "tl"
    shutil.copytree(EXAMPLE, work)
    design = load_design(work)
    opts = SimOptions(cache_dir=tmp_path / "cache")
    (work / "coverage.waivers").unlink()
    plain = evaluate_sv(design, GOOD_TB, options=opts)
    (work / "coverage.waivers").write_text("# the FSM default arm\nline traffic_light.sv 48 ^case$\n")
    waived = evaluate_sv(design, GOOD_TB, options=opts)
    assert waived.coverage is not None
    assert plain.coverage is not None
    assert waived.coverage.metrics["line"].total == plain.coverage.metrics["line"].total - 1
    assert any(n.startswith("waived: line") and n.endswith(":48 case") for n in waived.notes)
    (work / "coverage.waivers").write_text("line traffic_light.sv notaline\n")
    broken = evaluate_sv(design, GOOD_TB, options=opts)
    assert broken.status is Status.COVERAGE_ERROR
    assert "waiver file" in broken.detail
    assert ":1:" in broken.detail


def test_the_build_cache_stays_under_its_bound_least_recently_used_first(
        design, options: SimOptions, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # Three testbenches, each its own build; with a bound of two and a half builds, building the
    # third removes the least recently used one (the first was used again, so the second goes).
    from sim.run.cache import MAX_SIZE_ENV, SIZE_FILE

    tbs = [GOOD_TB.replace("repeat (40) @(negedge clk);\n    ped_req = 1;",
                           f"repeat ({40 + k}) @(negedge clk);\n    ped_req = 1;", 1) for k in range(3)]
    first = evaluate_sv(design, tbs[0], options=options)
    second = evaluate_sv(design, tbs[1], options=options)
    builds = sorted(p.parent for p in (options.cache_dir or Path()).glob("*/ok"))
    assert len(builds) == 2
    one = int((builds[0] / SIZE_FILE).read_text())
    assert one > 0
    time.sleep(0.05)
    again = evaluate_sv(design, tbs[0], options=options)  # the first build is used again: now the newest
    assert again.cached
    monkeypatch.setenv(MAX_SIZE_ENV, str(2.5 * one / (1 << 30)))
    evaluate_sv(design, tbs[2], options=options)
    left = sorted(p.parent.name for p in (options.cache_dir or Path()).glob("*/ok"))
    assert len(left) == 2
    assert evaluate_sv(design, tbs[0], options=options).cached  # kept: used recently
    assert not evaluate_sv(design, tbs[1], options=options).cached  # removed: rebuilt
    assert first.overall == again.overall
    assert second.status is Status.OK
    # An unreadable bound keeps the default rather than emptying the cache.
    monkeypatch.setenv(MAX_SIZE_ENV, "ten")
    from sim.run.cache import DEFAULT_MAX_GB, max_cache_bytes
    assert max_cache_bytes() == int(DEFAULT_MAX_GB * (1 << 30))
