"""The OS sandbox as the wall, through every entry point, with the guard out of the way.

The user's own testbench (`benchwright sim --tb`, the language server's on-save run, a
trusted cocotb suite) is not guarded at all, and a generated testbench may read files by
a computed name, which the guard allows. Here real bubblewrap namespaces must contain
them: nothing is written outside the run directory, canary files placed in $HOME, in an
/etc-like system folder and beside the design never reach any output, no connection to a
listener on 127.0.0.1 is accepted, and no process outlives its run (or a SIGKILLed server).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import COUNTER_RTL, lingering, requires_verilator

from sim.sandbox.bwrap import SandboxMode, probe

pytestmark = [pytest.mark.simulator_required, requires_verilator]

SECRET = "BW-CANARY-" + uuid.uuid4().hex
"""Content of every canary file: it must never appear in any output."""

COUNTER_PORTS = "logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;\n  counter dut (.*);\n  always #5 clk = ~clk;"

HOSTILE_SV = """\
module tb_counter;
  {ports}
  string name, line;
  integer fd, r;
  logic [7:0] mem [0:63];
  task automatic leak(input string path);
    fd = $fopen(path, "r");
    if (fd != 0) begin r = $fgets(line, fd); $display("LEAKED %s", line); $fclose(fd); end
    else $display("unreadable %s", path);
  endtask
  initial begin
    {system}
    $sformat(name, "%s/%s", "{home}", "canary.txt");
    leak(name);
    $sformat(name, "%s", "{etc_canary}");
    leak(name);
    $sformat(name, "%s", "{neighbour_canary}");
    leak(name);
    $sformat(name, "%s", "{etc_canary}");
    $readmemh(name, mem);
    $display("MEM %h%h%h%h", mem[0], mem[1], mem[2], mem[3]);
    repeat (3) @(negedge clk);
    rst_n = 1;
    repeat (5) @(negedge clk);
    $finish;
  end
endmodule
"""
"""A testbench that tries to exfiltrate the canaries (computed names, as the guard allows)."""

SYSTEM_CALLS = (
    'void\'($system("echo pwned > {sentinel}; echo pwned > /tmp/{token}; echo x >> {home}/canary.txt"));\n'
    '    void\'($system("i=0; while [ $i -lt 50 ]; do sleep 7313 & i=$((i+1)); done"));'
)
"""Shell escapes for the unguarded (user-file) entry points: writes outside, a fork loop."""


@dataclass
class Canaries:
    """Where the secrets lie and what must stay untouched."""

    home: Path
    """The $HOME given to the process under test (holds canary.txt)."""
    etc: Path
    """A canary in an /etc-like system folder outside the allow-list."""
    neighbour: Path
    """A canary beside the design folder (same parent)."""
    sentinel: Path
    """A file hostile code tries to create outside the run directory."""
    token: str
    """Unique name of the /tmp file hostile code tries to create."""

    def env(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.home), "BENCHWRIGHT_SANDBOX": "require"}

    def fill(self, template: str, system: bool) -> str:
        calls = SYSTEM_CALLS.format(sentinel=self.sentinel, token=self.token, home=self.home) if system else ""
        return template.format(ports=COUNTER_PORTS, system=calls, home=self.home, etc_canary=self.etc,
                               neighbour_canary=self.neighbour)

    def assert_contained(self, *outputs: str) -> None:
        for text in outputs:
            # (A "LEAKED" line may appear: the private $HOME is writable, so the testbench can
            # read back what it wrote there itself; the canary's content never.)
            assert SECRET not in text, "a canary's content reached an output"
        assert not self.sentinel.exists(), "a file was written outside the run directory"
        assert not (Path("/tmp") / self.token).exists(), "the real /tmp was written"
        assert (self.home / "canary.txt").read_text() == SECRET + "\n", "$HOME was modified"
        assert lingering("sleep 7313", timeout_s=3.0) == [], "the fork loop outlived the run"


@pytest.fixture
def canaries(tmp_path: Path) -> Iterator[Canaries]:
    if not probe().available:
        pytest.fail(f"bubblewrap namespaces must work on this machine: {probe().reason}")
    home = tmp_path / "home"
    home.mkdir()
    (home / "canary.txt").write_text(SECRET + "\n")
    # An /etc-like system path: /etc itself where we may write (root), else /var/tmp; neither is
    # in the sandbox's view.
    system_dir = Path("/etc") if os.access("/etc", os.W_OK) else Path("/var/tmp")
    etc = system_dir / f"benchwright-canary-{uuid.uuid4().hex}"
    etc.write_text(SECRET + "\n")
    neighbour = tmp_path / "ws" / "secrets.txt"
    neighbour.parent.mkdir(parents=True, exist_ok=True)
    neighbour.write_text(SECRET + "\n")
    token = f"bw-pwned-{uuid.uuid4().hex}"
    try:
        yield Canaries(home, etc, neighbour, tmp_path / "ws" / "sentinel.txt", token)
    finally:
        etc.unlink(missing_ok=True)
        (Path("/tmp") / token).unlink(missing_ok=True)


def counter_design(ws: Path) -> Path:
    """A design folder (design.toml + rtl) inside the workspace `ws`."""
    root = ws / "counter"
    (root / "rtl").mkdir(parents=True)
    (root / "rtl" / "counter.sv").write_text(COUNTER_RTL)
    (root / "design.toml").write_text(
        'top = "counter"\nrtl = ["rtl/counter.sv"]\nclocks = ["clk"]\n'
        '[[resets]]\nname = "rst_n"\nactive_low = true\n')
    return root


def cli(*args: str, env: dict[str, str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchwright.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=timeout, check=False)


def all_text(folder: Path) -> str:
    """Every file under `folder`, decoded leniently (outputs must not carry a canary)."""
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file())


# -- entry point: `benchwright sim --tb` (the user's own file: no guard) ------------------


def test_user_testbench_via_sim_cli_is_contained(canaries: Canaries, tmp_path: Path, figures) -> None:
    design = counter_design(tmp_path / "ws")
    tb = tmp_path / "ws" / "tb_hostile.sv"
    tb.write_text(canaries.fill(HOSTILE_SV, system=True))
    out_dir = tmp_path / "ws" / "out"
    figures.add("os_sandbox_tried_sim_cli")
    done = cli("sim", str(design), "--tb", str(tb), "--json", "--out", str(out_dir), env=canaries.env(),
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # The testbench itself ran to $finish: the sandbox contained it rather than refusing it.
    assert result["status"] == "ok", result
    log = all_text(out_dir)
    assert "unreadable" in log
    canaries.assert_contained(done.stdout, done.stderr, log)
    figures.add("os_sandbox_contained_sim_cli")


# -- entry point: `benchwright run` with a generated testbench (guard passes it) ---------


@contextlib.contextmanager
def endpoint_answering(text: str) -> Iterator[str]:
    """An OpenAI-compatible endpoint on 127.0.0.1 that always answers `text`."""
    body = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "stub",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_generated_testbench_via_run_cli_is_contained(canaries: Canaries, tmp_path: Path, figures) -> None:
    pytest.importorskip("openai", reason="needs the openai extra")
    design = counter_design(tmp_path / "ws")
    reply = "filename: tb_counter.sv\n```systemverilog\n" + canaries.fill(HOSTILE_SV, system=False) + "```\n"
    out_dir = tmp_path / "ws" / "run-out"
    figures.add("os_sandbox_tried_run_cli")
    with endpoint_answering(reply) as base_url:
        done = cli("run", str(design), "--policy", "openai", "--base-url", base_url, "--model", "stub",
                   "--rounds", "0", "--out", str(out_dir), "--json", env=canaries.env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "ok", done.stdout
    outputs = all_text(out_dir)
    assert "unreadable" in outputs  # the trajectory carries the run log the model would see
    canaries.assert_contained(done.stdout, done.stderr, outputs)
    figures.add("os_sandbox_contained_run_cli")


def test_generated_testbench_via_bench_is_contained(canaries: Canaries, tmp_path: Path, figures) -> None:
    pytest.importorskip("openai", reason="needs the openai extra")
    suite = tmp_path / "ws" / "suite"
    counter_design(suite)
    reply = "filename: tb_counter.sv\n```systemverilog\n" + canaries.fill(HOSTILE_SV, system=False) + "```\n"
    out_dir = tmp_path / "ws" / "bench-out"
    figures.add("os_sandbox_tried_bench_cli")
    with endpoint_answering(reply) as base_url:
        done = cli("bench", str(suite), "--policy", "openai", "--base-url", base_url, "--model", "stub",
                   "--rounds", "0", "--out", str(out_dir), env=canaries.env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    bench = json.loads((out_dir / "bench.json").read_text())
    assert bench["summary"]["sim_pass"] == 100.0, bench["summary"]
    canaries.assert_contained(done.stdout, done.stderr, all_text(out_dir))
    figures.add("os_sandbox_contained_bench_cli")


# -- entry point: training fan-out (spawned workers evaluate through sim/) ---------------


def test_training_fan_out_is_contained(canaries: Canaries, tmp_path: Path, figures, monkeypatch) -> None:
    pytest.importorskip("openai", reason="needs the openai extra")
    from training.data.synth import EpisodeJob, PolicySpec, teacher_episode
    from training.fanout import fan_out

    design = counter_design(tmp_path / "ws")
    monkeypatch.setenv("HOME", str(canaries.home))  # spawned workers inherit the environment
    monkeypatch.setenv("BENCHWRIGHT_SANDBOX", "require")
    monkeypatch.setenv("BENCHWRIGHT_CACHE", str(tmp_path / "cache"))
    reply = "filename: tb_counter.sv\n```systemverilog\n" + canaries.fill(HOSTILE_SV, system=False) + "```\n"
    figures.add("os_sandbox_tried_training")
    with endpoint_answering(reply) as base_url:
        policy = PolicySpec("openai", {"base_url": base_url, "model": "stub"})
        jobs = [EpisodeJob(str(design), policy, f"direct/{k}", 0, 4, 120.0) for k in range(2)]
        results = fan_out(teacher_episode, jobs, workers=2)
    for candidates in results:
        assert candidates, "the episode produced no transition"
        assert "error" not in candidates[0], candidates
        assert candidates[0]["new"]["status"] == "ok", candidates[0]["new"]
        canaries.assert_contained(json.dumps(candidates))
    figures.add("os_sandbox_contained_training")


# -- entry point: a trusted cocotb suite (no audit hook): network and files --------------


COCOTB_NET = """\
import cocotb
import socket
from pathlib import Path


@cocotb.test()
async def test_escape(dut):
    for path in ("{home}/canary.txt", "{etc}", "{neighbour}"):
        try:
            print("LEAKED", Path(path).read_text())
        except OSError as exc:
            print("unreadable", path, type(exc).__name__)
    try:
        Path("{sentinel}").write_text("pwned")
    except OSError as exc:
        print("cannot write", type(exc).__name__)
    with socket.socket() as s:
        s.settimeout(3)
        try:
            s.connect(("127.0.0.1", {port}))
            print("CONNECTED")
        except OSError as exc:
            print("no connection", type(exc).__name__)
"""


def test_trusted_cocotb_has_no_network_and_no_files(canaries: Canaries, tmp_path: Path, figures,
                                                    monkeypatch) -> None:
    from sim.run.cocotb import evaluate_cocotb
    from sim.run.evaluate import SimOptions
    from sim.suite import load_design

    design = load_design(counter_design(tmp_path / "ws"))
    accepted: list[object] = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                conn, _ = listener.accept()
                accepted.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    suite = tmp_path / "ws" / "counter" / "human_tb"
    suite.mkdir()
    test = suite / "test_escape.py"
    test.write_text(COCOTB_NET.format(home=canaries.home, etc=canaries.etc, neighbour=canaries.neighbour,
                                      sentinel=canaries.sentinel, port=listener.getsockname()[1]))
    monkeypatch.setenv("HOME", str(canaries.home))
    figures.add("os_sandbox_tried_cocotb")
    try:
        result = evaluate_cocotb(design, "test_escape", [test], trusted=True,
                                 options=SimOptions(cache_dir=tmp_path / "cache", sandbox=SandboxMode.REQUIRE))
    finally:
        stop.set()
        thread.join(5)
        listener.close()
    assert result.status.value == "ok", (result.detail, result.log_tail[-3000:])
    assert accepted == [], "a connection reached the listener on 127.0.0.1"
    assert "CONNECTED" not in result.log_tail
    assert "no connection" in result.log_tail
    canaries.assert_contained(result.log_tail, result.detail)
    figures.add("os_sandbox_contained_cocotb")


# -- entry point: the language server (on-save run of the workspace's testbench) ---------


async def test_server_runs_workspace_testbench_in_the_sandbox(canaries: Canaries, tmp_path: Path,
                                                              figures) -> None:
    from lsp_session import start_session

    ws = tmp_path / "ws"
    design = counter_design(ws)
    (design / "tb").mkdir()
    (design / "tb" / "tb_counter.sv").write_text(canaries.fill(HOSTILE_SV, system=True))
    env_home = os.environ.get("HOME")
    os.environ["HOME"] = str(canaries.home)  # the server process inherits it
    os.environ["BENCHWRIGHT_SANDBOX"] = "require"
    figures.add("os_sandbox_tried_server")
    try:
        session, stop = await start_session(ws, tmp_path / "cache", {"benchwright": {"lint": {"debounceMs": 0}}})
    finally:
        os.environ.pop("BENCHWRIGHT_SANDBOX")
        if env_home is not None:
            os.environ["HOME"] = env_home
    try:
        uri = session.open(design / "rtl" / "counter.sv")
        session.save(uri)
        coverage = await session.recorder.next_coverage(1, timeout=240)
        assert coverage["status"] == "ok", coverage
        canaries.assert_contained(json.dumps(session.recorder.coverage), json.dumps(session.recorder.status),
                                  all_text(ws / ".benchwright"))
    finally:
        await stop()
    figures.add("os_sandbox_contained_server")


async def test_lint_sees_only_the_design(canaries: Canaries, tmp_path: Path, figures) -> None:
    """Lint-as-you-type runs Verilator on a cloned repository's files: inside the sandbox, an
    `include` of a file outside the design finds nothing (outside it, the file's text would come
    back in the diagnostics)."""
    from lsp_session import start_session

    ws = tmp_path / "ws"
    design = counter_design(ws)
    outside = canaries.home / "secret.vh"
    outside.write_text(f"wire {SECRET.replace('-', '_')} = 1'b0 +;\n")  # a syntax error quoting the secret
    rtl = design / "rtl" / "counter.sv"
    text = f'`include "{outside}"\n' + COUNTER_RTL
    figures.add("os_sandbox_tried_lint")
    session, stop = await start_session(ws, tmp_path / "cache", {"benchwright": {"lint": {"debounceMs": 0}}},
                                        extra_env={"HOME": str(canaries.home), "BENCHWRIGHT_SANDBOX": "require"})
    try:
        diagnostics = await session.diagnostics(session.open(rtl, text=text), version=1, timeout=60)
    finally:
        await stop()
    said = json.dumps([d.message for d in diagnostics])
    assert "Cannot find include file" in said, said
    assert SECRET.replace("-", "_") not in said
    figures.add("os_sandbox_contained_lint")


async def test_sigkilled_server_leaves_no_simulation_behind(tmp_path: Path, figures) -> None:
    from lsp_session import start_session

    ws = tmp_path / "ws"
    design = counter_design(ws)
    (design / "tb").mkdir()
    (design / "tb" / "tb_counter.sv").write_text(
        "module tb_counter;\n  " + COUNTER_PORTS + "\n  initial begin\n"
        '    void\'($system("sleep 7421 & sleep 7421"));\n    forever #1;\n  end\nendmodule\n')
    cache = tmp_path / "cache"
    session, stop = await start_session(ws, cache, {"benchwright": {"lint": {"debounceMs": 0}}})
    figures.add("os_sandbox_tried_sigkill")
    server = next(p for p in lingering_pids("-m server") if str(cache) in environ_of(p))
    try:
        session.save(session.open(design / "rtl" / "counter.sv"))

        async def simulating() -> None:
            while not lingering("sleep 7421", timeout_s=0):
                await asyncio.sleep(0.1)
        await asyncio.wait_for(simulating(), 240)
        os.kill(server, signal.SIGKILL)
    finally:
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(stop(), 5)
    left = lingering("sleep 7421", timeout_s=3.0) + lingering(str(cache), timeout_s=1.0)
    assert left == [], f"processes outlived the killed server: {left}"
    figures.add("os_sandbox_contained_sigkill")


def lingering_pids(marker: str) -> list[int]:
    return [pid for pid, _ in lingering(marker, timeout_s=0)]


def environ_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


# -- the fallback: sandbox forced off / unavailable ---------------------------------------


def test_fallback_is_stated_and_require_refuses(tmp_path: Path) -> None:
    design = counter_design(tmp_path / "ws")
    tb = tmp_path / "ws" / "tb_ok.sv"
    tb.write_text(f"module tb_counter;\n  {COUNTER_PORTS}\n  initial begin repeat (4) @(negedge clk); $finish; end\n"
                  "endmodule\n")
    base = {**os.environ, "BENCHWRIGHT_CACHE": str(tmp_path / "cache")}
    off = cli("sim", str(design), "--tb", str(tb), "--json", env={**base, "BENCHWRIGHT_SANDBOX": "off"}, cwd=tmp_path)
    assert off.returncode == 0, off.stderr
    assert any(n.startswith("no OS sandbox: turned off") for n in json.loads(off.stdout)["notes"])
    missing = {**base, "BENCHWRIGHT_BWRAP": str(tmp_path / "no-bwrap")}
    auto = cli("sim", str(design), "--tb", str(tb), "--json", env=missing, cwd=tmp_path)
    assert auto.returncode == 0, auto.stderr
    notes = json.loads(auto.stdout)["notes"]
    assert any("no OS sandbox" in n and "no-bwrap" in n for n in notes), notes
    refusing = {**missing, "BENCHWRIGHT_SANDBOX": "require", "BENCHWRIGHT_CACHE": str(tmp_path / "cache2")}
    required = cli("sim", str(design), "--tb", str(tb), "--json", env=refusing, cwd=tmp_path)
    assert required.returncode == 2, (required.stdout, required.stderr)
    assert "sandbox is required" in required.stderr
    assert not list((tmp_path / "cache2").glob("builds/*/obj")), "nothing may be built when refusing"
    doctor = cli("doctor", env={**missing, "BENCHWRIGHT_SANDBOX": "require"}, cwd=tmp_path)
    assert doctor.returncode == 1
    assert "REFUSING TO SIMULATE" in doctor.stdout
    used = cli("doctor", env=base, cwd=tmp_path)
    assert "bubblewrap namespaces" in used.stdout, used.stdout
    bad = cli("sim", str(design), "--tb", str(tb), "--json", env={**base, "BENCHWRIGHT_SANDBOX": "maybe"},
              cwd=tmp_path)
    assert bad.returncode == 2, bad.stderr
    assert "not one of auto, require, off" in bad.stderr


def test_bwrap_command_line_binds_parents_first(tmp_path: Path) -> None:
    from sim.sandbox.bwrap import bwrap_argv

    design = tmp_path / "design"
    run = design / "out" / "run"
    run.mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    argv = bwrap_argv("bwrap", ["./Vsim", "+x"], cwd=run, read_only=[design, tmp_path / "missing"], home=home)
    assert argv[:3] == ["bwrap", "--unshare-all", "--die-with-parent"]
    assert argv[-3:] == ["--", "./Vsim", "+x"]
    pairs = [(argv[i], argv[i + 1]) for i in range(len(argv) - 1)]
    assert ("--tmpfs", str(home)) in pairs
    assert ("--tmpfs", "/tmp") in pairs
    ro = argv.index("--ro-bind", argv.index(str(home)))
    assert argv[ro + 1] == str(design)
    rw = argv.index("--bind")
    assert argv[rw + 1] == str(run)
    assert rw > ro  # the writable run dir is mounted over the read-only design
    assert str(tmp_path / "missing") not in argv
    assert not any(a.startswith("/etc/shadow") for a in argv)
    assert shutil.which("bwrap") is not None
