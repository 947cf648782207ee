"""Sandbox-escape corpus: hostile SV and cocotb testbenches are rejected or killed, never escape.

Each case in corpus/sv and corpus/cocotb declares its expectation on its first line:
`expect: rejected <text>` (refused before anything is built or run; the reason names
<text>) or `expect: status <s1|s2> [text]` (built and run, then stopped by a limit).
The `jail` fixture checks afterwards that no file outside the run directory changed,
the sentinel the case aims at does not exist, and no process was left behind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CORPUS, Jail, requires_verilator

from sim.run.evaluate import SimOptions, evaluate_sv

pytestmark = [pytest.mark.simulator_required, requires_verilator]

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


def options(cache: Path) -> SimOptions:
    return SimOptions(run_timeout_s=3.0, file_bytes=1 << 20, run_memory_bytes=512 << 20, cache_dir=cache)


@pytest.mark.parametrize("case", SV_CASES, ids=[p.stem for p in SV_CASES])
def test_hostile_sv_is_contained(case: Path, counter, jail: Jail, rel_cache: Path, figures) -> None:
    kind, statuses, needle = expectation(case)
    figures.add("hostile_sv_tried")
    result = evaluate_sv(counter, instantiate(case, jail), options=options(rel_cache), run_dir=jail.run)
    assert result.status.value in statuses, (result.status, result.detail, result.log_tail[-2000:])
    if kind == "rejected":
        assert result.detail.startswith("rejected before building"), result.detail
        assert result.build_s == 0.0
        assert result.run_s == 0.0
        assert all(m.tag == "BENCHWRIGHT-GUARD" for m in result.messages)
    if needle:
        assert needle in result.detail, result.detail
    if result.status.value == "timeout":
        assert result.run_s < options(rel_cache).run_timeout_s + 5
    figures.add("hostile_sv_contained")  # reached only when the jail's checks hold too (teardown)


COCOTB_BUILD = {"done": False}


@pytest.mark.parametrize("case", COCOTB_CASES, ids=[p.stem for p in COCOTB_CASES])
def test_hostile_cocotb_is_contained(case: Path, counter, jail: Jail, rel_cache: Path, figures) -> None:
    from sim.run.cocotb import evaluate_cocotb

    kind, statuses, needle = expectation(case)
    figures.add("hostile_cocotb_tried")
    opts = SimOptions(run_timeout_s=8.0 if "timeout" in statuses else 60.0, file_bytes=1 << 20,
                      cache_dir=rel_cache)
    result = evaluate_cocotb(counter, "test_hostile", {"test_hostile.py": instantiate(case, jail)}, options=opts)
    assert result.status.value in statuses, (result.status, result.detail, result.log_tail[-3000:])
    if kind == "rejected":
        assert result.detail.startswith("rejected before running"), result.detail
        assert result.run_s == 0.0
    if needle:
        said = " ".join([result.detail, *(m.text for m in result.messages), result.log_tail])
        assert needle in said, (result.detail, result.log_tail[-3000:])
    figures.add("hostile_cocotb_contained")


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
    assert "not allowed" in result.detail or "would shadow" in result.detail
    assert not (jail.base.parent / "escape.py").exists()
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
        figures.add("hostile_cocotb_contained")
    # Inside the run directory a test may write freely.
    ok = subprocess.run([sys.executable, "-c", f"open('{jail.run / 'note.txt'}', 'w').write('x')"], env=env,
                        capture_output=True, text=True, timeout=30, check=False)
    assert ok.returncode == 0, ok.stderr
