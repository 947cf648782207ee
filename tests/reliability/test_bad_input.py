"""Bad input for sim/ and the model backends: each gives a clear error (tested text), never a crash."""

from __future__ import annotations

import os
import random
import stat
import threading
import time
from pathlib import Path

import pytest
from conftest import COUNTER_RTL, REPO, children_of, lingering, requires_verilator

from sim.errors import CoverageParseError, DesignError, ToolNotFoundError
from sim.run.coverage import parse_coverage, read_coverage
from sim.run.evaluate import SimOptions, evaluate_files, evaluate_sv
from sim.suite import load_design
from sim.tools import find_verilator

GOOD_TB = """module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  always #5 clk = ~clk;
  initial begin repeat (2) @(negedge clk); rst_n = 1; repeat (20) @(negedge clk); $finish; end
endmodule
"""


def opts(cache: Path, **kw) -> SimOptions:
    return SimOptions(run_timeout_s=10.0, cache_dir=cache, **kw)


# -- testbench text ------------------------------------------------------------------

BAD_TBS = {
    "malformed": ("module tb_counter; initial begin $display(\"x\" endmodule\n", "syntax error"),
    "truncated": (GOOD_TB[: len(GOOD_TB) // 2], "syntax error"),
    "binary": (bytes(random.Random(7).randrange(256) for _ in range(4096)).decode("latin-1"), "declares no module"),
    "non_utf8": ("module tb_counter; // caf\xe9 \udcff\n" + GOOD_TB.split("\n", 1)[1], None),
    "missing_include": ('`include "no_such_header.svh"\n' + GOOD_TB, "no_such_header.svh"),
    "unknown_module": (GOOD_TB.replace("counter dut", "no_such_module dut"), "no_such_module"),
    "empty": ("", "declares no module"),
}


@requires_verilator
@pytest.mark.simulator_required
@pytest.mark.parametrize("name", list(BAD_TBS))
def test_bad_testbench_is_a_clear_compile_error(name: str, counter, rel_cache: Path, figures) -> None:
    text, needle = BAD_TBS[name]
    figures.add("bad_input_tried")
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    result = evaluate_sv(counter, text, options=opts(rel_cache))
    if name in ("binary", "empty"):
        # No testbench module at all (the seeded junk has none either): refused before building,
        # never judged as the DUT on its own.
        assert result.status.value == "compile_error", (result.status, result.detail)
        assert needle in result.detail, result.detail
        assert [m.tag for m in result.messages] == ["BENCHWRIGHT-NOTB"]
        assert result.build_s == 0.0
    elif name == "non_utf8":
        assert result.status.value == "ok", result.detail  # replaced bytes in a comment are harmless
    else:
        assert result.status.value == "compile_error", (result.status, result.detail)
        assert result.detail
        assert needle in result.detail + " ".join(m.text for m in result.messages), result.detail
    figures.add("bad_input_handled")


@requires_verilator
@pytest.mark.simulator_required
def test_ten_megabyte_testbench_is_judged_without_crashing(counter, rel_cache: Path, figures) -> None:
    figures.add("bad_input_tried")
    filler = ("// " + "x" * 96 + "\n") * (10_000_000 // 100)
    start = time.monotonic()
    result = evaluate_sv(counter, filler + "module tb_counter; garbage here; endmodule\n", options=opts(rel_cache))
    assert result.status.value == "compile_error"
    assert "tb_counter.sv:100001:" in result.detail  # the right line of the 10 MB file
    assert time.monotonic() - start < 60
    figures.add("bad_input_handled")


@requires_verilator
@pytest.mark.simulator_required
def test_unknown_top_is_a_coverage_error(counter, rel_cache: Path, figures) -> None:
    from dataclasses import replace

    figures.add("bad_input_tried")
    result = evaluate_sv(replace(counter, top="not_the_top"), GOOD_TB, options=opts(rel_cache))
    assert result.status.value == "coverage_error"
    assert "no coverage points belong to module 'not_the_top'" in result.detail
    figures.add("bad_input_handled")


@requires_verilator
@pytest.mark.simulator_required
def test_non_utf8_testbench_file_on_disk(counter, rel_cache: Path, tmp_path: Path, figures) -> None:
    figures.add("bad_input_tried")
    tb = tmp_path / "tb_counter.sv"
    tb.write_bytes(b"// \xff\xfe\xc3\x28 not utf-8\n" + GOOD_TB.encode())
    result = evaluate_files(counter, [tb], "tb_counter", options=opts(rel_cache))
    assert result.status.value == "ok", result.detail
    figures.add("bad_input_handled")


# -- design.toml ----------------------------------------------------------------------

@pytest.mark.parametrize(("content", "needle"), [
    pytest.param(b"top = \n", "invalid TOML", id="syntax"),
    pytest.param(b"\xff\xfe top = 'x'\n", "invalid TOML", id="non-utf8"),
    pytest.param(b"rtl = ['a.sv']\n", "missing required key 'top'", id="no-top"),
    pytest.param(b"top = 'x'\nrtl = ['missing.sv']\n", "RTL file(s) not found", id="missing-rtl"),
    pytest.param(b"top = 3\nrtl = ['a.sv']\n", "key 'top' must be str", id="wrong-type"),
    pytest.param(bytes(range(256)) * 4, "invalid TOML", id="binary"),
])
def test_bad_design_toml_is_a_design_error(content: bytes, needle: str, tmp_path: Path, figures) -> None:
    figures.add("bad_input_tried")
    (tmp_path / "design.toml").write_bytes(content)
    with pytest.raises(DesignError, match=r"design\.toml") as err:
        load_design(tmp_path)
    assert needle in str(err.value)
    figures.add("bad_input_handled")


# -- coverage.dat ---------------------------------------------------------------------

def _real_dat() -> str:
    dats = sorted((REPO / "tests" / "data" / "sim").rglob("*.dat"))
    assert dats, "tests/data/sim holds real coverage.dat files"
    return dats[0].read_bytes().decode("utf-8", "replace")


@pytest.mark.parametrize("how", ["truncated_mid_record", "garbage", "bad_count", "no_header", "binary"])
def test_corrupt_coverage_dat_names_file_and_line(how: str, tmp_path: Path, figures) -> None:
    figures.add("bad_input_tried")
    real = _real_dat()
    text = {
        "truncated_mid_record": real[: int(len(real) * 0.6)].rsplit("' ", 1)[0],
        "garbage": real.split("\n", 1)[0] + "\nthis is not a record\n",
        "bad_count": real.replace("' 0\n", "' -3\n", 1) if "' 0\n" in real else real + "C '\x01t\x02line' x\n",
        "no_header": "\n".join(real.splitlines()[1:]),
        "binary": bytes(random.Random(3).randrange(256) for _ in range(2048)).decode("latin-1"),
    }[how]
    dat = tmp_path / "coverage.dat"
    dat.write_text(text, encoding="utf-8", errors="surrogateescape")
    with pytest.raises(CoverageParseError) as err:
        read_coverage(dat)
    assert str(dat) in str(err.value)
    assert err.value.line >= 1
    figures.add("bad_input_handled")


def test_missing_and_empty_coverage_dat(tmp_path: Path, figures) -> None:
    for name, make in (("missing", None), ("empty", "")):
        figures.add("bad_input_tried")
        dat = tmp_path / f"{name}.dat"
        if make is not None:
            dat.write_text(make)
        with pytest.raises(CoverageParseError, match="Simulation terminated abnormally"):
            read_coverage(dat)
        figures.add("bad_input_handled")
    assert parse_coverage(_real_dat()).points


# -- Verilator itself -----------------------------------------------------------------

def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    (path.parent / "verilator_coverage").write_text("#!/bin/sh\nexit 0\n")
    (path.parent / "verilator_coverage").chmod(0o755)
    return path


@pytest.mark.parametrize(("body", "needle"), [
    pytest.param(None, "Verilator not found at", id="missing"),
    pytest.param('echo "Verilator 4.210 2021-07-07 rev v4.210"\n', "is too old (need >= 5.036)", id="too-old"),
    pytest.param('echo "hello, I am not verilator"\n', "not a Verilator version", id="wrong-program"),
    pytest.param("exit 3\n", "not a Verilator version", id="silent-failure"),
])
def test_bad_verilator_is_a_clear_error(body: str | None, needle: str, tmp_path: Path, counter, figures) -> None:
    figures.add("bad_input_tried")
    path = tmp_path / "bin" / "verilator"
    path.parent.mkdir()
    if body is not None:
        _script(path, body)
    with pytest.raises(ToolNotFoundError) as err:
        evaluate_sv(counter, GOOD_TB, options=SimOptions(verilator_path=str(path), cache_dir=tmp_path / "c"))
    assert needle in str(err.value)
    assert "benchwright.sim.verilatorPath" in str(err.value)  # names the setting to fix
    figures.add("bad_input_handled")


HANGING = ('case "$1" in --version) echo "Verilator 5.052 2026-09-05 rev v5.052";; '
           '*) echo "building $$" >&2; sleep 299.731 & sleep 299.731;; esac\n')


def test_verilator_killed_mid_build_by_timeout(tmp_path: Path, counter, figures) -> None:
    figures.add("bad_input_tried")
    (tmp_path / "bin").mkdir()
    path = _script(tmp_path / "bin" / "verilator", HANGING)
    # Earlier tests in the same process may keep a shared sandbox session alive (it idles
    # out later): only children this build started must be gone.
    before = set(children_of(os.getpid()))
    start = time.monotonic()
    result = evaluate_sv(counter, GOOD_TB, options=SimOptions(verilator_path=str(path), build_timeout_s=1.0,
                                                              cache_dir=tmp_path / "c"))
    assert time.monotonic() - start < 15
    # The guard's `verilator -E` is the first command to hang here; either way the group is killed.
    assert result.status.value == "timeout", result.detail
    assert "did not finish within 1 s" in result.detail
    assert lingering(str(tmp_path)) == []
    assert lingering("sleep 299.731") == []
    assert set(children_of(os.getpid())) - before == set()
    figures.add("bad_input_handled")


def test_verilator_killed_mid_build_by_cancel(tmp_path: Path, counter, figures) -> None:
    from sim.run.evaluate import build

    figures.add("bad_input_tried")
    (tmp_path / "bin").mkdir()
    path = _script(tmp_path / "bin" / "verilator", HANGING)
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    result = build(counter, (), None, options=SimOptions(verilator_path=str(path), cache_dir=tmp_path / "c"),
                   generated={"tb_counter.sv": GOOD_TB}, cancel=cancel)
    assert time.monotonic() - start < 10
    assert not hasattr(result, "exe")
    assert "cancelled" in result.log_tail
    assert lingering("sleep 299.731") == []
    figures.add("bad_input_handled")
    find_verilator.cache_clear()


@requires_verilator
@pytest.mark.simulator_required
def test_lowered_inherited_memory_limit_runs_or_says_why(tmp_path: Path, figures) -> None:
    """`ulimit -v` below the 8 GiB a build asks for: it runs under the lower limit and says so on stderr;
    far below, the build fails with that limit named in the error (never a preexec_fn traceback)."""
    import json
    import subprocess
    import sys

    figures.add("bad_input_tried")
    design = tmp_path / "counter"
    (design / "rtl").mkdir(parents=True)
    (design / "rtl" / "counter.sv").write_text(COUNTER_RTL)
    (design / "design.toml").write_text('top = "counter"\nrtl = ["rtl/counter.sv"]\nclocks = ["clk"]\n')
    (tmp_path / "tb.sv").write_text(GOOD_TB)

    def sim(kib: int, **env: str) -> subprocess.CompletedProcess[str]:
        cmd = f"ulimit -v {kib}; exec {sys.executable} -m benchwright.cli sim {design} --tb {tmp_path / 'tb.sv'} --json"
        return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=300, check=False,
                              env={**os.environ, "BENCHWRIGHT_CACHE": str(tmp_path / f"cache-{kib}"), **env})

    roomy = sim(3 << 20)  # 3 GiB
    assert roomy.returncode == 0, roomy.stderr
    assert json.loads(roomy.stdout)["status"] == "ok"
    assert "inherited address-space limit (3072.0 MiB, `ulimit -v`) is below the 8192.0 MiB" in roomy.stderr
    assert "preexec_fn" not in roomy.stderr
    tight = sim(100 << 10, CCACHE_DISABLE="1")  # 100 MiB: the C++ compiler cannot run
    assert "preexec_fn" not in tight.stderr
    answer = json.loads(tight.stdout)
    assert answer["status"] == "compile_error", answer
    assert "inherited address-space limit (100.0 MiB, `ulimit -v`)" in answer["detail"], answer["detail"]
    assert "expr coverage disabled" not in " ".join(answer["notes"])  # the limit's crash is not blamed on expr
    figures.add("bad_input_handled")
