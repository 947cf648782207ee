"""Load and data safety against the real server: a burst of 200 saves over 20 documents,
concurrent improve-coverage commands, and a SIGKILL in the middle of an episode.

Checked: coverage is never published out of order (each notification carries the saving
document's version), one design never has two Verilator builds at once, the server's peak
RSS stays bounded, and no user file changes except through our own writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import signal
import threading
from pathlib import Path

import pytest
from conftest import children_of, lingering, requires_verilator
from lsp_session import start_session

pytestmark = [pytest.mark.e2e, pytest.mark.simulator_required, requires_verilator]

N_FILES = 20
ROUNDS = 10  # 20 documents x 10 = 200 saves
RSS_LIMIT_KB = 1 << 20  # 1 GiB


def make_design(ws: Path) -> Path:
    """A design of 20 RTL files (a top and 19 leaves) with a testbench."""
    root = ws / "multi"
    (root / "rtl").mkdir(parents=True)
    (root / "tb").mkdir()
    for i in range(1, N_FILES):
        (root / "rtl" / f"leaf{i}.sv").write_text(
            f"module leaf{i} (input logic clk, input logic d, output logic q);\n"
            f"  always_ff @(posedge clk) q <= d ^ q;\nendmodule\n")
    insts = "\n".join(f"  leaf{i} u{i} (.clk(clk), .d(d), .q(q[{i - 1}]));" for i in range(1, N_FILES))
    (root / "rtl" / "multi.sv").write_text(
        f"module multi (input logic clk, input logic d, output logic [{N_FILES - 2}:0] q);\n{insts}\nendmodule\n")
    (root / "tb" / "tb_multi.sv").write_text(
        "module tb_multi;\n  logic clk = 0, d = 0; logic [18:0] q;\n  multi dut (.*);\n  always #5 clk = ~clk;\n"
        "  initial begin repeat (4) @(negedge clk); d = 1; repeat (4) @(negedge clk); $finish; end\nendmodule\n")
    rtl = ", ".join(f'"rtl/leaf{i}.sv"' for i in range(1, N_FILES))
    (root / "design.toml").write_text(
        f'name = "multi"\ntop = "multi"\nrtl = [{rtl}, "rtl/multi.sv"]\nclocks = ["clk"]\ntarget = 99\n')
    return root


def hashes(ws: Path) -> dict[str, str]:
    """sha256 of every user file (the server's own .benchwright/ state excluded)."""
    return {str(p.relative_to(ws)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(ws.rglob("*")) if p.is_file() and ".benchwright" not in p.parts}


def server_pid() -> int:
    for pid in children_of(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"-m" in cmd and b"server" in cmd:
            return pid
    raise AssertionError("server process not found")


def vm_hwm_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


class BuildWatch:
    """Polls /proc: the most Verilator builds (distinct process groups) of one design at once."""

    def __init__(self, marker: str) -> None:
        self.marker, self.peak, self.seen = marker, 0, set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.wait(0.02):
            groups = set()
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit():
                    continue
                try:
                    cmd = (entry / "cmdline").read_bytes()
                    stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if b"--binary" in cmd and self.marker.encode() in cmd and stat[0] != "Z":
                    groups.add(int(stat[3]))  # pgrp: one per build (wrapper + verilator_bin + make)
            self.seen |= groups
            self.peak = max(self.peak, len(groups))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)


async def test_burst_of_saves_and_concurrent_improves(tmp_path: Path, rel_cache: Path, figures) -> None:
    ws = tmp_path / "ws"
    root = make_design(ws)
    before = hashes(ws)
    options = {"benchwright": {"lint": {"debounceMs": 50}, "coverage": {"hints": False},
                               "policy": {"rounds": 0, "simCalls": 6}}}
    session, stop = await start_session(ws, rel_cache, options)
    watch = BuildWatch(str(root))
    try:
        pid = server_pid()
        files = sorted((root / "rtl").glob("*.sv"))
        uris = {f: session.open(f, version=1) for f in files}
        expected = dict(before)
        last_version = 0
        for rnd in range(1, ROUNDS + 1):
            for f in files:
                text = f.read_text() + f"// save {rnd}\n"
                f.write_text(text)  # what the editor does on save
                expected[str(f.relative_to(ws))] = hashlib.sha256(text.encode()).hexdigest()
                session.change(uris[f], text, version=rnd + 1)
                session.save(uris[f])
                figures.add("load_saves")
                last_version = rnd + 1
            await asyncio.sleep(0.05)
        figures.note("load_documents", len(files))

        async def settled() -> None:
            while not (session.recorder.coverage and session.recorder.coverage[-1]["version"] == last_version):
                await asyncio.sleep(0.1)
        await asyncio.wait_for(settled(), 240)
        await asyncio.sleep(1.5)
        versions = [c["version"] for c in session.recorder.coverage]
        figures.note("load_coverage_published", len(versions))
        assert versions == sorted(versions), f"a stale result was published after a newer one: {versions}"
        assert versions[-1] == last_version
        assert session.recorder.coverage[-1]["status"] == "ok"
        assert watch.peak <= 1, f"{watch.peak} builds of one design ran at once"
        figures.note("load_builds_started", len(watch.seen))
        figures.note("load_peak_builds_per_design", watch.peak)

        # Concurrent improve-coverage commands: only the newest may finish, the others are cancelled.
        results = await asyncio.gather(*(session.command("benchwright.improveCoverage", uris[files[0]], timeout=240)
                                         for _ in range(3)))
        figures.add("load_concurrent_improves", len(results))
        finished = [r for r in results if not r["cancelled"]]
        assert len(finished) == 1, results
        assert all(r["applied"] is False for r in results if r["cancelled"])
        assert len(session.recorder.edits) <= 1
        assert watch.peak <= 1

        rss = vm_hwm_kb(pid)
        figures.note("load_server_peak_rss_kb", rss)
        assert 0 < rss < RSS_LIMIT_KB
        await asyncio.sleep(0.5)
        # No data loss: the test client never applies edits to disk, so every user file is
        # exactly what this test wrote (the server writes only under .benchwright/).
        after = hashes(ws)
        lost = sorted(k for k in expected if after.get(k) != expected[k]) + sorted(set(after) - set(expected))
        figures.add("files_lost", len(lost))
        assert lost == []
    finally:
        watch.close()
        await stop()


async def test_sigkill_mid_episode_loses_nothing(tmp_path: Path, rel_cache: Path, figures) -> None:
    import shutil

    from lsp_session import EXAMPLE

    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLE, ws / "traffic_light")
    tb = ws / "traffic_light" / "tb" / "tb_traffic_light.sv"
    before = hashes(ws)
    options = {"benchwright": {"lint": {"debounceMs": 0}, "policy": {"rounds": 3, "simCalls": 400}}}
    session, stop = await start_session(ws, rel_cache, options)
    pid = server_pid()
    rtl = ws / "traffic_light" / "rtl" / "traffic_light.sv"
    uri = session.open(rtl)
    task = asyncio.create_task(session.command("benchwright.improveCoverage", uri, timeout=120))

    async def episode_started() -> None:
        while not any(r and getattr(r[0], "title", "").startswith("Benchwright: improving")
                      for r in session.client.progress_reports.values()):
            await asyncio.sleep(0.05)
    await asyncio.wait_for(episode_started(), 60)
    await asyncio.sleep(2.0)  # inside the episode: builds and harness runs in flight
    os.kill(pid, signal.SIGKILL)
    task.cancel()
    with contextlib.suppress(Exception, asyncio.CancelledError):  # the server is gone; the client may complain
        await asyncio.wait_for(stop(), 5)
    figures.add("kill_tests")
    after = hashes(ws)
    lost = sorted(k for k in before if after.get(k) != before[k])
    partial = sorted(set(after) - set(before))
    figures.add("files_lost", len(lost) + len(partial))
    assert lost == [], "the user's testbench or RTL changed"
    assert partial == [], f"files appeared outside .benchwright/: {partial}"
    assert tb.read_text() == (EXAMPLE / "tb" / "tb_traffic_light.sv").read_text()
    traj = ws / ".benchwright" / "trajectories" / "traffic_light" / "trajectory.json"
    if traj.exists():
        json.loads(traj.read_text())  # written atomically: never half a file
    orphans = lingering(str(rel_cache), timeout_s=10.0) + lingering(str(ws), timeout_s=1.0)
    figures.note("kill_orphans_after_10s", len(orphans))
    assert orphans == [], f"processes outlived the killed server: {orphans}"
