"""`benchwright watch DIR`: simulates, then re-simulates after a file change (real Verilator, watchdog)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lsp_session import requires_verilator

from server.watch import relevant

pytest.importorskip("watchdog")


def test_relevant_files() -> None:
    assert relevant("/w/d/rtl/a.sv")
    assert relevant("/w/d/design.toml")
    assert not relevant("/w/d/.benchwright/coverage/d.info")
    assert not relevant("/w/d/obj_dir/Vtop.sv")
    assert not relevant("/w/d/notes.md")


@pytest.mark.simulator_required
@requires_verilator
def test_watch_resimulates_on_change(workspace: Path, cache_dir: Path) -> None:
    design = workspace / "traffic_light"
    env = {**os.environ, "BENCHWRIGHT_CACHE": str(cache_dir)}
    proc = subprocess.Popen([sys.executable, "-m", "benchwright.cli", "watch", str(design), "--max-runs", "2",
                             "--debounce", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("traffic_light: ok"), first
        time.sleep(0.5)
        tb = design / "tb" / "tb_traffic_light.sv"
        tb.write_text(tb.read_text().replace("repeat (60)", "repeat (90)"))
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.count("traffic_light: ok") == 1  # the second summary; the first was read above
    assert "overall" in out
    assert (design / ".benchwright" / "coverage" / "traffic_light.info").is_file()
