"""Sandbox-escape corpus: hostile SV and cocotb testbenches are rejected or killed, never escape.

Each case in corpus/sv and corpus/cocotb declares its expectation on its first line:
`expect: rejected <text>` (refused before anything is built or run by the static guard; the
reason names <text>) or `expect: status <s1|s2> [text]` (built and run, then stopped by a
limit). Every generated-testbench case runs twice: with the OS sandbox required and with it
forced off, and the layer that contained it (the guard or the limits) must be the same in
both. The SV cases also run as the user's own testbench (no guard) with the sandbox
required: then bubblewrap is the layer, and for the cases aimed at the jail, running them
with neither guard nor sandbox shows the escape the sandbox stopped. `Jail.check` (no file
changed outside the run directory, no sentinel, no process left) runs in the test body;
figures are counted only after it and every other check passed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CORPUS, Jail, requires_verilator, snapshot

from sim.run.evaluate import SimOptions, evaluate_files, evaluate_sv
from sim.sandbox.bwrap import SandboxMode, probe

pytestmark = [pytest.mark.simulator_required, requires_verilator]

MODES = [SandboxMode.REQUIRE, SandboxMode.OFF]
"""Generated testbenches run with the sandbox required and forced off: the guard and limits hold alone."""

ESCAPING = ("c_embed", "dpi_import_system", "dpi_import_via_macro", "fopen_absolute", "fopen_computed_no_mode",
            "fopen_macro_name", "fopen_overwrite_victim_rplus", "fopen_parent", "fopen_parent_octal_escape",
            "system", "system_token_paste")
"""Cases aimed at the jail's sentinel or victim that do escape without guard and sandbox
(systemc_header is aimed too, but without `--sc` Verilator ignores the C++ block)."""


@pytest.fixture(autouse=True)
def _bwrap_works() -> None:
    if not probe().available:
        pytest.fail(f"bubblewrap namespaces must work on this machine: {probe().reason}")

SV_CASES = sorted((CORPUS / "sv").glob("*.sv"))
COCOTB_CASES = sorted((CORPUS / "cocotb").glob("*.txt"))  # .txt: kept away from the Python linters


def expectation(path: Path) -> tuple[str, set[str], str]:
    """(kind, statuses, needle) from the case's first line."""
    first = path.read_text().splitlines()[0]
    m = re.match(r"^(?://|#) expect: (rejected|status) ?(\S*) ?(.*)$", first)
    assert m, f"{path.name}: first line must be an `expect:` line"
    if m.group(1) == "rejected":
        return "rejected", {"compile_error"}, f"{m.group(2)} {m.group(3)}".strip()
    return "status", set(m.group(2).split("|")), m.group(3).strip()


def instantiate(path: Path, jail: Jail) -> str:
    """The case's text with its targets filled in (all outside the run directory)."""
    return (path.read_text()
            .replace("@SENTINEL@", str(jail.sentinel))
            .replace("@REL_OCTAL@", "./\\056\\056/" + jail.sentinel.name)
            .replace("@REL@", "../" + jail.sentinel.name)
            .replace("@VICTIM_REL@", "../" + jail.victim.name)
            .replace("@BASE@", str(jail.base)))


def options(cache: Path, mode: SandboxMode = SandboxMode.REQUIRE) -> SimOptions:
    return SimOptions(run_timeout_s=3.0, file_bytes=1 << 20, run_memory_bytes=512 << 20, cache_dir=cache,
                      sandbox=mode)


def sandbox_note(result, mode: SandboxMode) -> None:  # type: ignore[no-untyped-def]
    """The result says whether the OS sandbox was in force (so a layer is never claimed silently)."""
    off = [n for n in result.notes if n.startswith("no OS sandbox")]
    if result.detail.startswith("rejected before building"):
        return  # refused before any build: no sandbox involved either way
    assert bool(off) == (mode is SandboxMode.OFF), result.notes


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("case", SV_CASES, ids=[p.stem for p in SV_CASES])
def test_hostile_sv_is_contained(case: Path, mode: SandboxMode, counter, jail: Jail, rel_cache: Path,
                                 figures) -> None:
    kind, statuses, needle = expectation(case)
    figures.add(f"hostile_sv_tried_{mode.value}")
    result = evaluate_sv(counter, instantiate(case, jail), options=options(rel_cache, mode), run_dir=jail.run)
    assert result.status.value in statuses, (result.status, result.detail, result.log_tail[-2000:])
    if kind == "rejected":  # layer: the static guard, whatever the sandbox
        assert result.detail.startswith("rejected before building"), result.detail
        assert result.build_s == 0.0
        assert result.run_s == 0.0
        assert all(m.tag == "BENCHWRIGHT-GUARD" for m in result.messages)
    else:  # layer: the limits (wall clock, file size, memory), which hold without the sandbox too
        assert not result.detail.startswith("rejected"), result.detail
    if needle:
        assert needle in result.detail, result.detail
    if result.status.value == "timeout":
        assert result.run_s < options(rel_cache).run_timeout_s + 5
    sandbox_note(result, mode)
    jail.check()
    figures.add(f"hostile_sv_contained_{mode.value}")
    figures.add(f"hostile_sv_layer_{'guard' if kind == 'rejected' else 'limits'}_{mode.value}")


@pytest.mark.parametrize("case", SV_CASES, ids=[p.stem for p in SV_CASES])
def test_hostile_sv_as_the_users_own_testbench(case: Path, counter, jail: Jail, rel_cache: Path, figures) -> None:
    """No guard (the user's file, `sim --tb`, the server on save): the OS sandbox is the wall."""
    kind, statuses, _ = expectation(case)
    tb = jail.base / "tb" / "tb_counter.sv"
    tb.parent.mkdir()
    tb.write_text(instantiate(case, jail))
    jail.snapshot = snapshot(jail.base, skip=(jail.run,))  # the testbench file itself is ours
    figures.add("hostile_sv_unguarded_tried")
    result = evaluate_files(counter, [tb], None, options=options(rel_cache), check=False, run_dir=jail.run)
    assert not result.detail.startswith("rejected"), result.detail
    if kind == "status":
        assert result.status.value in statuses, (result.status, result.detail)
    jail.check()
    figures.add("hostile_sv_unguarded_contained")
    if case.stem in ESCAPING:
        figures.add("hostile_sv_unguarded_layer_sandbox")


@pytest.mark.parametrize("case", [p for p in SV_CASES if p.stem in ESCAPING], ids=ESCAPING)
def test_without_guard_and_sandbox_the_escape_happens(case: Path, counter, rel_cache: Path, tmp_path: Path) -> None:
    """What the layer above stopped: the same text, unguarded and unsandboxed, reaches the jail."""
    base = tmp_path / "target"
    (base / "run").mkdir(parents=True)
    target = Jail(base, base / "run", base / "sentinel.txt", base / "victim.txt")
    target.victim.write_text("precious\n")
    tb = base / "tb_counter.sv"
    tb.write_text(instantiate(case, target))
    evaluate_files(counter, [tb], None, options=options(rel_cache, SandboxMode.OFF), check=False,
                   run_dir=target.run)
    escaped = target.sentinel.exists() or target.victim.read_text() != "precious\n"
    assert escaped, f"{case.stem} did not escape even without guard and sandbox: the corpus case is too weak"


COCOTB_BUILD = {"done": False}


@pytest.mark.parametrize("mode", MODES, ids=[m.value for m in MODES])
@pytest.mark.parametrize("case", COCOTB_CASES, ids=[p.stem for p in COCOTB_CASES])
def test_hostile_cocotb_is_contained(case: Path, mode: SandboxMode, counter, jail: Jail, rel_cache: Path,
                                     figures) -> None:
    from sim.run.cocotb import evaluate_cocotb

    kind, statuses, needle = expectation(case)
    figures.add(f"hostile_cocotb_tried_{mode.value}")
    opts = SimOptions(run_timeout_s=8.0 if "timeout" in statuses else 60.0, file_bytes=1 << 20,
                      cache_dir=rel_cache, sandbox=mode)
    result = evaluate_cocotb(counter, "test_hostile", {"test_hostile.py": instantiate(case, jail)}, options=opts)
    assert result.status.value in statuses, (result.status, result.detail, result.log_tail[-3000:])
    if kind == "rejected":
        assert result.detail.startswith("rejected before running"), result.detail
        assert result.run_s == 0.0
    if needle:
        said = " ".join([result.detail, *(m.text for m in result.messages), result.log_tail])
        assert needle in said, (result.detail, result.log_tail[-3000:])
    jail.check()
    figures.add(f"hostile_cocotb_contained_{mode.value}")
    # Layers: the guard (rejected), the audit hook (its "benchwright sandbox" refusal), the limits.
    layer = "guard" if kind == "rejected" else "audit-hook" if "benchwright sandbox" in needle else "limits"
    figures.add(f"hostile_cocotb_layer_{layer}_{mode.value}")


@pytest.mark.parametrize("name", ["../escape.py", "/tmp/abs.py", "json.py", "sitecustomize.py", "cocotb.py",
                                  ".hidden.py", "sub/dir.py"])
def test_hostile_cocotb_file_names_are_refused(name: str, counter, jail: Jail, rel_cache: Path, figures) -> None:
    from sim.run.cocotb import evaluate_cocotb

    figures.add("hostile_cocotb_tried")
    body = "import cocotb\n\n@cocotb.test()\nasync def t(dut):\n    pass\n"
    files = {"test_ok.py": body, name: "x = 1\n"}
    result = evaluate_cocotb(counter, "test_ok", files, options=SimOptions(cache_dir=rel_cache))
    assert result.status.value == "compile_error", result.detail
    assert "rejected before running" in result.detail
    assert ("would shadow" if name.endswith(("json.py", "sitecustomize.py", "cocotb.py")) else "not allowed") \
        in result.detail, result.detail
    assert not (jail.base.parent / "escape.py").exists()
    jail.check()
    figures.add("hostile_cocotb_contained")


def test_sandbox_hook_refuses_os_access_in_a_real_interpreter(tmp_path: Path, jail: Jail, figures) -> None:
    """The run-time layer on its own: the sitecustomize audit hook in a plain interpreter."""
    import os
    import subprocess
    import sys

    from sim.sandbox.guard import COCOTB_AUDIT_SITE as SANDBOX_DIR

    probes = {
        "system": "import os; os.system('touch {s}')",
        "popen": "import subprocess; subprocess.run(['touch', '{s}'])",
        "fork": "import os; os.fork()",
        "socket": "import socket; socket.socket()",
        "write": "open('{s}', 'w').write('x')",
        "remove": "import os; os.remove('{v}')",
        "rename": "import os; os.rename('{v}', '{s}')",
        "ctypes": "import ctypes; ctypes.CDLL(None).system(b'touch {s}')",
        "kill": "import os; os.kill(1, 0)",
    }
    env = {**os.environ, "PYTHONPATH": str(SANDBOX_DIR), "BENCHWRIGHT_SANDBOX_ROOT": str(jail.run)}
    for name, code in probes.items():
        figures.add("hostile_cocotb_tried")
        out = subprocess.run([sys.executable, "-c", code.format(s=jail.sentinel, v=jail.victim)], env=env,
                             capture_output=True, text=True, timeout=30, check=False, cwd=jail.run)
        assert out.returncode != 0, name
        assert "benchwright sandbox" in out.stderr, (name, out.stderr)
        jail.check()
        figures.add("hostile_cocotb_contained")
    # Inside the run directory a test may write freely.
    ok = subprocess.run([sys.executable, "-c", f"open('{jail.run / 'note.txt'}', 'w').write('x')"], env=env,
                        capture_output=True, text=True, timeout=30, check=False)
    assert ok.returncode == 0, ok.stderr
