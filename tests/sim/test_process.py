from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from sim.sandbox.process import Limits, read_tail, run_command


def test_captures_output_and_status(tmp_path: Path) -> None:
    res = run_command([sys.executable, "-c", "print('hi'); import sys; sys.exit(3)"], cwd=tmp_path,
                      log_path=tmp_path / "log")
    assert res.returncode == 3
    assert not res.ok
    assert "hi" in res.tail


def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    # The child forks a grandchild that would outlive a plain kill of the child.
    script = (
        "import os, time, sys\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)\n"
        "time.sleep(60)\n"
    )
    pidfile = tmp_path / "grandchild.pid"
    start = time.monotonic()
    res = run_command([sys.executable, "-c", script, str(pidfile)], cwd=tmp_path, log_path=tmp_path / "log",
                      limits=Limits(timeout_s=1.0))
    assert res.timed_out
    assert time.monotonic() - start < 10
    pid = int(pidfile.read_text())
    time.sleep(0.2)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_file_size_limit_stops_floods(tmp_path: Path) -> None:
    res = run_command([sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 65536)"],
                      cwd=tmp_path, log_path=tmp_path / "log", limits=Limits(timeout_s=30, file_bytes=1 << 20))
    assert not res.ok
    assert not res.timed_out
    assert (tmp_path / "log").stat().st_size <= (1 << 20) + 4096


def test_cancel_event(tmp_path: Path) -> None:
    ev = threading.Event()
    threading.Timer(0.3, ev.set).start()
    res = run_command([sys.executable, "-c", "import time; time.sleep(30)"], cwd=tmp_path,
                      log_path=tmp_path / "log", cancel=ev)
    assert not res.ok
    assert not res.timed_out
    assert res.duration_s < 10


def test_missing_executable_is_a_result(tmp_path: Path) -> None:
    res = run_command(["/nonexistent/tool"], cwd=tmp_path, log_path=tmp_path / "log")
    assert res.returncode == 127


def test_read_tail_of_missing_file(tmp_path: Path) -> None:
    assert read_tail(tmp_path / "nope") == ""
    (tmp_path / "big").write_text("\n".join(str(i) for i in range(10000)))
    assert read_tail(tmp_path / "big", lines=2) == "9998\n9999"
    assert os.getpid()


def test_limits_never_exceed_the_inherited_hard_limit() -> None:
    import resource

    from sim.sandbox.process import clamp, planned_limits

    assert clamp(8 << 30, resource.RLIM_INFINITY) == 8 << 30
    assert clamp(8 << 30, 1 << 30) == 1 << 30
    assert clamp(1 << 20, 1 << 30) == 1 << 20
    plan, note = planned_limits(Limits(memory_bytes=1 << 30, file_bytes=None))
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    assert (resource.RLIMIT_AS, min(1 << 30, hard if hard >= 0 else 1 << 30), clamp(1 << 30, hard)) in plan
    assert (note == "") == (hard == resource.RLIM_INFINITY or hard >= 1 << 30)


LOWERED = """\
import resource, sys, tempfile
from pathlib import Path
from sim.sandbox.process import Limits, run_command
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # as `ulimit -v 3145728` would
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 30, 1 << 30))
work = Path(tempfile.mkdtemp())
res = run_command(["sh", "-c", "ulimit -v; echo ran"], cwd=work, log_path=work / "log",
                  limits=Limits(memory_bytes=8 << 30, file_bytes=4 << 30))
print(res.returncode, "ran" in res.tail, res.tail.splitlines()[-2])
print(res.limit_note)
"""


def test_a_lowered_inherited_limit_runs_and_is_said(tmp_path: Path) -> None:
    """`ulimit -v` below what a step asks for: the step runs under the lower limit and says so
    (before: `SubprocessError: Exception occurred in preexec_fn`)."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", LOWERED], capture_output=True, text=True, timeout=60, check=False,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    status, ran, limit, note = out.stdout.split(maxsplit=3)
    assert (status, ran, limit) == ("0", "True", str(3 << 20))  # ulimit -v prints KiB
    assert "inherited address-space limit (3072.0 MiB, `ulimit -v`) is below the 8192.0 MiB" in note
    assert "file-size limit (1024.0 MiB, `ulimit -f`) is below the 4096.0 MiB" in note
