"""Hostile run-directory contents through every entry point (issue 19), real bwrap, real Verilator.

A testbench (the user's own, a cloned suite's human test, a trusted cocotb test) may leave
anything in its run directory for the host to read back. `payload.sh`, run by the testbench
at its end, plants one case under every name the host reads or copies (coverage.dat, the
logs, coverage.info, summary.json, traces, `--out` candidates): symlinks to a $HOME canary,
to /dev/zero and to a directory, a FIFO, a socket, a 200 MB sparse file, random bytes,
invalid UTF-8, a forged coverage.dat naming the canary as its source, a directory, 100 000
small files, hard links; it also starts `setsid` and `nohup` sleepers. The testbench then
stops with $fatal, so Verilator writes no coverage of its own over what was planted.

Contained means: a JSON result or a clear error within 60 s, the host process under 1 GB,
no byte of the canary in any output, log, `--out` folder or .benchwright/ file, the canary
unchanged, and no process left. Figures are recorded only after every check of a case held.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import COUNTER_RTL, lingering, requires_verilator
from test_os_sandbox import endpoint_answering

from sim.sandbox.bwrap import probe

pytestmark = [pytest.mark.simulator_required, requires_verilator, pytest.mark.slow]

SECRET = "BW-OUT-CANARY-" + uuid.uuid4().hex
"""The canary's content: it must never appear in anything the host writes or prints."""

CASES = ("symlink_home", "symlink_devzero", "symlink_dir", "fifo", "socket", "sparse", "junk", "invalid_utf8",
         "forged_coverage", "directory", "many_files", "hardlink")
"""One kind of hostile object per case, planted under every name in NAMES."""

NAMES = ("coverage.dat", "coverage.info", "run.log", "test.log", "summary.json", "results.xml", "extra.log",
         "extra.dat", "bw_trace.evil.txt")
"""What the host reads or copies from a run directory (SV runs, cocotb runs, mutation runs, --out)."""

LIMIT_S = 60.0
"""A result (or a clear error) must come within this."""

MEMORY_BYTES = 1 << 30
"""The host process must stay under this."""

PAYLOAD = r"""#!/bin/sh
# Plants one hostile case under every name the host reads back from a run directory.
CANARY='@CANARY@'
CASE=$(cat '@HERE@/case.txt')
plant() {
  n=$1
  rm -rf "$n"
  case "$CASE" in
    symlink_home) ln -s "$CANARY" "$n" ;;
    symlink_devzero) ln -s /dev/zero "$n" ;;
    symlink_dir) ln -s "$(dirname "$CANARY")" "$n" ;;
    fifo) mkfifo "$n" ;;
    socket) perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new(Local => $ARGV[0], Listen => 1) or die "socket: $!"' "$n" ;;
    sparse) truncate -s 200M "$n" ;;
    junk) head -c 1048576 /dev/urandom > "$n" ;;
    invalid_utf8) printf '# SystemC::Coverage-3\n\377\376 caf\351 \300\200 {"tests": "\377"}\n' > "$n" ;;
    forged_coverage) cp '@HERE@/forged.dat' "$n" ;;
    directory) mkdir "$n"; echo x > "$n/inside" ;;
    hardlink) ln "$CANARY" "$n" 2> /dev/null || { echo own > own.txt; ln -f own.txt "$n"; } ;;
    many_files) : > "$n" ;;
  esac
}
for n in @NAMES@; do plant "$n"; done
if [ "$CASE" = many_files ]; then seq 1 100000 | sed 's/^/f/; s/$/.log/' | xargs touch; fi
if [ '@STRAGGLE@' = yes ]; then
  setsid sleep @MARK@ > /dev/null 2>&1 < /dev/null &
  nohup sleep @MARK@ > /dev/null 2>&1 < /dev/null &
fi
exit 0
"""

TB = """\
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  always #5 clk = ~clk;
  initial begin
    repeat (3) @(negedge clk);
    rst_n = 1;
    repeat (5) @(negedge clk);
    void'($system("sh @PAYLOAD@"));
    $fatal(1, "payload planted");
  end
endmodule
"""
"""The user's testbench: plants the case, then stops before Verilator writes coverage.dat."""

COCOTB = """\
import os
import re
import subprocess

import cocotb


@cocotb.test()
async def test_hostile(dut):
    subprocess.run(["sh", "@PAYLOAD@"], check=False)
    os._exit(3)  # no coverage.dat, results.xml or summary.json of cocotb's own
"""


@dataclass
class Rig:
    """The workspace of one entry point: a design with the payload, a canary in a private $HOME."""

    ws: Path
    """Workspace folder (also holds --out folders)."""
    design: Path
    """Design folder (design.toml, rtl/, payload.sh, case.txt, forged.dat, tb/, human_tb/)."""
    home: Path
    """The $HOME given to the process under test."""
    canary: Path
    """$HOME/canary.txt, holding SECRET."""
    cache: Path
    """Build cache shared by this entry point's runs."""
    mark: str
    """`sleep` argument of this rig's stragglers."""

    def env(self, mode: str = "require") -> dict[str, str]:
        return {**os.environ, "HOME": str(self.home), "BENCHWRIGHT_SANDBOX": mode,
                "BENCHWRIGHT_CACHE": str(self.cache)}

    def use(self, case: str) -> None:
        (self.design / "case.txt").write_text(case + "\n")

    def assert_untouched(self) -> None:
        assert self.canary.read_text() == SECRET + "\n", "the canary was changed"


def make_rig(root: Path, *, straggle: bool = True) -> Rig:
    ws = root / "ws"
    design = ws / "suite" / "counter"  # a suite of one, for `bench`
    (design / "rtl").mkdir(parents=True)
    (design / "rtl" / "counter.sv").write_text(COUNTER_RTL)
    (design / "design.toml").write_text(
        'top = "counter"\nrtl = ["rtl/counter.sv"]\nclocks = ["clk"]\n[[resets]]\nname = "rst_n"\nactive_low = true\n'
        '[human_test]\nkind = "sv"\nfiles = ["human_tb/tb_counter.sv"]\ntop = "tb_counter"\n')
    home = root / "home"
    home.mkdir()
    canary = home / "canary.txt"
    canary.write_text(SECRET + "\n")
    mark = str(8000 + uuid.uuid4().int % 1000)
    (design / "payload.sh").write_text(
        PAYLOAD.replace("@CANARY@", str(canary)).replace("@HERE@", str(design)).replace("@NAMES@", " ".join(NAMES))
        .replace("@STRAGGLE@", "yes" if straggle else "no").replace("@MARK@", mark))
    (design / "forged.dat").write_bytes(forged_coverage(canary))
    tb = TB.replace("@PAYLOAD@", str(design / "payload.sh"))
    for folder in ("tb", "human_tb"):
        (design / folder).mkdir()
        (design / folder / "tb_counter.sv").write_text(tb)
    (design / "tb" / "test_hostile.py").write_text(COCOTB.replace("@PAYLOAD@", str(design / "payload.sh")))
    return Rig(ws, design, home, canary, root / "cache", mark)


def forged_coverage(canary: Path) -> bytes:
    """A well-formed coverage.dat whose DUT points claim to be lines 1-3 of the canary file."""
    rows = ["# SystemC::Coverage-3"]
    for line in (1, 2, 3):
        key = (f"\x01t\x02line\x01page\x02v_line/counter\x01f\x02{canary}\x01l\x02{line}\x01n\x020"
               f"\x01o\x02block\x01S\x02{line}\x01h\x02tb_counter.dut")
        rows.append(f"C '{key}' 0")
    return ("\n".join(rows) + "\n").encode()


@dataclass
class Outcome:
    """What one hostile case did at one entry point."""

    seconds: float
    """Wall time of the command (or of the save's round trip)."""
    peak_rss: int
    """Peak resident memory of the host process in bytes (VmHWM)."""
    returncode: int
    """Exit status (0 for the server)."""
    answer: dict[str, Any] | None
    """The JSON result, when one came."""
    texts: list[str]
    """Everything the host printed or wrote that a user sees (stdout, stderr, --out, .benchwright/)."""


def vm_hwm(pid: int) -> int:
    """Peak resident set of a live process in bytes, 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_measured(argv: list[str], env: dict[str, str], cwd: Path) -> Outcome:
    """Run a CLI, sampling its peak memory until it exits; killed (and failed) past LIMIT_S."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL)
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.wait(0.02):
            peak = max(peak, vm_hwm(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"no answer within {LIMIT_S:.0f} s: {argv}")
    finally:
        stop.set()
        sampler.join()
    seconds = time.monotonic() - start
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    answer = None
    with contextlib.suppress(ValueError):
        answer = json.loads(stdout)
    return Outcome(seconds, peak, proc.returncode, answer if isinstance(answer, dict) else None, [stdout, stderr])


def folder_text(folder: Path) -> list[str]:
    """Every regular file under `folder` (not following symlinks), decoded leniently."""
    if not folder.is_dir():
        return []
    return [p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]


def assert_contained(rig: Rig, outcome: Outcome, where: str) -> None:
    """Every containment check of one case; raises on the first that fails."""
    assert outcome.seconds < LIMIT_S, f"{where}: {outcome.seconds:.1f} s"
    assert outcome.peak_rss < MEMORY_BYTES, f"{where}: host memory peaked at {outcome.peak_rss >> 20} MiB"
    said = "\n".join(outcome.texts)
    assert outcome.answer is not None or "benchwright" in said, f"{where}: neither JSON nor a clear error: {said[-2000:]}"
    assert SECRET[-32:] not in said, f"{where}: the canary reached an output"
    rig.assert_untouched()
    assert lingering(f"sleep {rig.mark}", timeout_s=3.0) == [], f"{where}: a process outlived its run"
    assert lingering(str(rig.ws), timeout_s=1.0) == [], f"{where}: a process outlived its run"


REASONS = {"symlink_home": "is a symbolic link", "symlink_devzero": "is a symbolic link",
           "symlink_dir": "is a symbolic link", "fifo": "is a named pipe (FIFO)", "socket": "is a socket",
           "sparse": "is 200.0 MiB, over the 64.0 MiB cap", "junk": "header", "invalid_utf8": "malformed record",
           "directory": "is a directory", "many_files": "is empty", "hardlink": "hard links (a run's own outputs have one)"}
"""What the result must say about coverage.dat in each case (the forged one is read)."""

PARSER_CASES = ("junk", "invalid_utf8")
"""Cases whose coverage.dat is a regular file that the parser, not the safe reader, turns down."""

LOG_REASONS = {case: REASONS[case] for case in ("symlink_home", "symlink_devzero", "symlink_dir", "fifo", "socket",
                                                 "directory", "hardlink")}
"""What the result must say about the run's log where the case leaves no regular file there (a sparse or
junk log is a regular file: its tail is read, bounded)."""


def said_of(outcome: Outcome) -> str:
    return json.dumps(outcome.answer) + "\n".join(outcome.texts)


def refused(said: str, name: str, reason: str) -> bool:
    """Whether the output names the file `name` and the reason it was not used (per file, not a summary)."""
    return re.search(rf'{re.escape(name)}(?::\d+)?: [^"\n]*{re.escape(reason)}', said) is not None


def layer_of(outcome: Outcome, canary: Path, case: str) -> str:
    """Which layer answered the case, from what the result says about coverage.dat itself.

    Another file's refusal (the `--out` copy's "not copied: run.log: ...") is no evidence that
    coverage.dat was read safely: only coverage.dat's own reason is.
    """
    said = said_of(outcome)
    if "rejected before building" in said:
        return "guard"
    forged = [p for p in (outcome.answer or {}).get("uncovered", []) if p.get("file") == str(canary)]
    if forged:  # the forged coverage.dat was read: its "source" lines must not have been
        return "source-reader" if all(p.get("source") == "" for p in forged) else "LEAKED SOURCE"
    if case in REASONS and refused(said, "coverage.dat", REASONS[case]):
        return "parser" if case in PARSER_CASES else "safe-read"
    return "run ended (nothing read)"


EXPECTED = dict.fromkeys(CASES, "safe-read") | {"junk": "parser", "invalid_utf8": "parser",
                                                    "forged_coverage": "source-reader"}
"""The layer that must answer each case where the result is a `sim --json` object with --out."""


SERVER_EXPECTED = EXPECTED | {"forged_coverage": "run ended (nothing read)"}
"""The layers a save in the editor must show: coverage.dat's reason in the output channel, as the sim CLI
says it. The forged file's points reach no source text (the payload carries none, and hints are only
made for the design's open files), so that case shows no layer of its own."""


def assert_reason(case: str, outcome: Outcome, where: str, logs: tuple[str, ...] = ()) -> None:
    """The result names coverage.dat, and each of `logs` the host read, with the exact reason each was not used."""
    said = said_of(outcome)
    if case in REASONS:
        assert refused(said, "coverage.dat", REASONS[case]), f"{where}: coverage.dat: {said[-3000:]}"
    for log in logs if case in LOG_REASONS else ():
        assert refused(said, log, LOG_REASONS[case]), f"{where}: {log}: {said[-3000:]}"


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    if not probe().available:
        pytest.fail(f"bubblewrap namespaces must work on this machine: {probe().reason}")
    made = make_rig(tmp_path)
    yield made
    made.assert_untouched()


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "benchwright.cli", *args]


def each_case(rig: Rig, figures: Any, entry: str, command: Any, reasons: bool = True,
              logs: tuple[str, ...] = ()) -> dict[str, str]:
    """Run every case through `command(case) -> Outcome`; check it, then count it; case -> layer.

    `logs`: the logs this entry point reads back, each of which must be named with its reason.
    """
    layers: dict[str, str] = {}
    for case in CASES:
        rig.use(case)
        figures.add(f"hostile_outputs_tried_{entry}")
        outcome = command(case)
        assert_contained(rig, outcome, f"{entry}/{case}")
        if reasons:
            assert_reason(case, outcome, f"{entry}/{case}", logs)
        layers[case] = layer_of(outcome, rig.canary, case)
        figures.add(f"hostile_outputs_contained_{entry}")
        figures.note(f"hostile_outputs_peak_mib_{entry}_{case}", outcome.peak_rss >> 20)
    figures.note(f"hostile_outputs_layers_{entry}", layers)
    return layers


# -- the entry points -------------------------------------------------------------------


def sim_cli(rig: Rig, case: str, mode: str = "require", *extra: str, tb: str = "tb/tb_counter.sv") -> Outcome:
    out = rig.ws / f"out-{case}"
    outcome = run_measured(cli("sim", str(rig.design), "--tb", str(rig.design / tb), "--json", "--out", str(out),
                               *extra), rig.env(mode), rig.ws)
    outcome.texts += folder_text(out)
    return outcome


def test_sim_tb(rig: Rig, figures) -> None:
    layers = each_case(rig, figures, "sim_tb", lambda case: sim_cli(rig, case), logs=("run.log",))
    assert layers == EXPECTED


def test_sim_tb_with_the_sandbox_off(tmp_path: Path, figures) -> None:
    """The host-side layer on its own: the run is not contained (a setsid'd process is not even
    tried, see the README), but nothing it leaves behind is followed, blocks or is copied out."""
    rig = make_rig(tmp_path, straggle=False)
    layers = each_case(rig, figures, "sim_tb_sandbox_off", lambda case: sim_cli(rig, case, "off"), logs=("run.log",))
    # Without the sandbox the hard link to the canary succeeds: only the link count refuses it.
    assert layers == EXPECTED


def test_mutation_run(rig: Rig, figures) -> None:
    layers = each_case(rig, figures, "mutation",
                       lambda case: sim_cli(rig, case, "require", "--mutation", "--mutants", "3"))
    assert layers == EXPECTED


def test_cocotb(rig: Rig, figures) -> None:
    pytest.importorskip("cocotb", reason="needs the cocotb extra")
    layers = each_case(rig, figures, "cocotb", lambda case: sim_cli(rig, case, tb="tb/test_hostile.py"))
    assert layers == EXPECTED


def test_bench_human(rig: Rig, figures) -> None:
    suite = rig.design.parent

    def bench(case: str) -> Outcome:
        out = rig.ws / f"bench-{case}"
        outcome = run_measured(cli("bench", str(suite), "--policy", "human", "--out", str(out)), rig.env(), rig.ws)
        outcome.texts += folder_text(out)
        outcome.answer = json.loads((out / "bench.json").read_text()) if (out / "bench.json").is_file() else None
        return outcome

    layers = each_case(rig, figures, "bench", bench)
    # bench.json lists no uncovered points: the forged file is read and parsed, with nothing of the
    # canary to show for it. Every other case names coverage.dat and its reason, as `sim` does.
    assert layers == EXPECTED | {"forged_coverage": "run ended (nothing read)"}, layers


def test_run_with_a_generated_testbench(rig: Rig, figures) -> None:
    pytest.importorskip("openai", reason="needs the openai extra")
    reply = "filename: tb_counter.sv\n```systemverilog\n" + (rig.design / "tb" / "tb_counter.sv").read_text() + "```\n"
    with endpoint_answering(reply) as base_url:
        def run(case: str) -> Outcome:
            out = rig.ws / f"run-{case}"
            outcome = run_measured(cli("run", str(rig.design), "--policy", "openai", "--base-url", base_url,
                                       "--model", "stub", "--rounds", "0", "--out", str(out), "--json"),
                                   rig.env(), rig.ws)
            outcome.texts += folder_text(out)
            return outcome

        layers = each_case(rig, figures, "run", run, reasons=False)
    # A generated testbench cannot plant anything: $system never gets past the guard.
    assert set(layers.values()) == {"guard"}, layers


async def test_server_on_save(rig: Rig, figures) -> None:
    from lsp_session import start_session

    # A cloned workspace may ship .benchwright/ itself: its lcov file a symlink to the canary.
    state = rig.ws / ".benchwright" / "coverage"
    state.mkdir(parents=True)
    (state / "counter.info").symlink_to(rig.canary)
    session, stop = await start_session(rig.ws, rig.cache, {"benchwright": {"lint": {"debounceMs": 0}}},
                                        extra_env={"HOME": str(rig.home), "BENCHWRIGHT_SANDBOX": "require"})
    server = next(pid for pid, _ in lingering("-m server", timeout_s=0)
                  if str(rig.cache) in Path(f"/proc/{pid}/environ").read_bytes().decode("utf-8", "replace"))
    layers: dict[str, str] = {}
    try:
        uri = session.open(rig.design / "rtl" / "counter.sv")
        for n, case in enumerate(CASES, start=1):
            rig.use(case)
            figures.add("hostile_outputs_tried_server")
            start = time.monotonic()
            logged = len(session.client.log_messages)
            session.save(uri)
            coverage = await session.recorder.next_coverage(n, timeout=LIMIT_S)
            # Only what this save said counts for its case (the server logs before it notifies).
            outcome = Outcome(time.monotonic() - start, vm_hwm(server), 0, coverage,
                              [json.dumps(coverage), json.dumps(session.recorder.status[-3:]),
                               *(m.message for m in session.client.log_messages[logged:]),
                               *folder_text(rig.ws / ".benchwright")])
            assert coverage["status"] in ("runtime_error", "coverage_error"), coverage
            assert_contained(rig, outcome, f"server/{case}")
            assert_reason(case, outcome, f"server/{case}", logs=("run.log",))
            layers[case] = layer_of(outcome, rig.canary, case)
            figures.add("hostile_outputs_contained_server")
            figures.note(f"hostile_outputs_peak_mib_server_{case}", outcome.peak_rss >> 20)
    finally:
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(stop(), 20)
    assert lingering(f"sleep {rig.mark}", timeout_s=3.0) == []
    figures.note("hostile_outputs_layers_server", layers)
    assert layers == SERVER_EXPECTED, layers
