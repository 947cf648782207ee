"""Checks in a kept testbench: what every output did in each phase, recorded once, compared on every run.

Each output of the design is folded into a 32-bit signature on every rising edge of the first
clock; at the end of each phase (one kept program) the signatures are compared with the
values recorded from the run that produced the testbench's coverage, and cleared. A
difference prints one `BW-MISMATCH` line per output (the phase, the output, the recorded and
the new signature, the time); the run ends with a `BW-CHECKS` summary and, on a mismatch,
`$fatal`, so the simulation's exit status fails a regression run. Recording is the same
testbench in record mode: instead of comparing, it prints one `BW-SIG` line per phase when it
finishes (`parse_signatures` reads them back).

Left out, each with its reason: outputs that are unpacked arrays, and every output of a design
without a clock (there is no edge to sample on).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.program.sv_common import clock_of, hexlit
from agent.program.target import Target
from sim.run.commands import KEEP_COVERAGE

SIG_TAG = "BW-SIG"
"""Log lines of a recording: `BW-SIG <phase> <hex> <hex> ...` (one signature per checked output)."""

MISMATCH_TAG = "BW-MISMATCH"
"""Log lines of a check that failed."""

SUMMARY_TAG = "BW-CHECKS"
"""The last line of a checking run: `BW-CHECKS <checks> checks, <mismatches> mismatches`."""

MAX_PHASES = 40
"""Most phases a testbench records (their lines must all be in the log's last lines)."""


@dataclass(frozen=True)
class Checks:
    """What a testbench checks: its outputs, and per phase their recorded signatures."""

    outputs: tuple[str, ...]
    """Outputs folded into signatures, in order."""
    expected: tuple[tuple[int, ...], ...] = ()
    """Per phase, the recorded signature of each output; () renders the recording form."""
    left_out: tuple[tuple[str, str], ...] = ()
    """(output, why it is not checked)."""

    @property
    def recording(self) -> bool:
        """True for the form that records instead of comparing."""
        return not self.expected


def plan(t: Target) -> Checks:
    """The outputs a testbench of `t` checks, and those it leaves out with the reason."""
    if not t.layout.clocks:
        return Checks((), left_out=tuple((s.name, "the design has no clock to sample on") for s in t.layout.ports
                                         if s.direction == "output"))
    outputs, left = [], []
    for s in t.layout.ports:
        if s.direction != "output":
            continue
        if s.dims:
            left.append((s.name, "an unpacked array"))
        else:
            outputs.append(s.name)
    return Checks(tuple(outputs), left_out=tuple(left))


def lines(t: Target, checks: Checks, phases: int) -> list[str]:
    """Declarations, the sampling process, `bw_check(phase)` and `bw_checks_done()`."""
    n, p = len(checks.outputs), max(1, phases)
    if not n:
        return ["task automatic bw_check(input int bw_ph); endtask", "task automatic bw_checks_done(); endtask"]
    names = ", ".join(f'"{o}"' for o in checks.outputs)
    widths = {s.name: s.width for s in t.layout.ports}
    fold = " ".join(f"bw_sig[{i}] = bw_fold(bw_sig[{i}], {min(widths.get(o, 1), 1024)}, 1024'({o}));"
                    for i, o in enumerate(checks.outputs))
    out = [
        "// Checks: every output folded into a signature on each clock, compared per phase with the run",
        "// that produced this testbench's coverage (regenerate the testbench to accept new behaviour).",
        f"string bw_out_names [{n}] = '{{{names}}};",
        f"int unsigned bw_sig [{n}]; int bw_checks = 0, bw_mismatches = 0;",
        "function automatic int unsigned bw_fold(input int unsigned bw_s, input int bw_n, input logic [1023:0] bw_v);",
        "  for (int bw_c = 0; bw_c < bw_n; bw_c += 32) begin bw_s = (bw_s ^ bw_v[bw_c +: 32]) * 32'h01000193; "
        "bw_s ^= bw_s >> 15; end",
        "  return bw_s;",
        "endfunction",
        f"always @(posedge {clock_of(t)}) begin {fold} end",
    ]
    if checks.recording:
        return [
            *out,
            f"int unsigned bw_rec [{p}][{n}];",
            "task automatic bw_check(input int bw_ph);",
            f"  for (int bw_i = 0; bw_i < {n}; bw_i++) begin bw_rec[bw_ph][bw_i] = bw_sig[bw_i]; bw_sig[bw_i] = 0; end",
            "endtask",
            "task automatic bw_checks_done();",
            f'  for (int bw_k = 0; bw_k < {p}; bw_k++) begin $write("{SIG_TAG} %0d", bw_k); '
            f'for (int bw_i = 0; bw_i < {n}; bw_i++) $write(" %h", bw_rec[bw_k][bw_i]); $write("\\n"); end',
            "endtask",
        ]
    rows = ", ".join("'{" + ", ".join(hexlit(32, v) for v in row) + "}" for row in checks.expected)
    return [
        *out,
        f"localparam int unsigned BW_EXPECT [{p}][{n}] = '{{{rows}}};",
        "task automatic bw_check(input int bw_ph);",
        f"  for (int bw_i = 0; bw_i < {n}; bw_i++) begin",
        "    bw_checks++;",
        "    if (bw_sig[bw_i] != BW_EXPECT[bw_ph][bw_i]) begin",
        "      bw_mismatches++;",
        f'      $display("{MISMATCH_TAG} phase %0d: output %s differs from the recorded run (signature %h, was %h) '
        'at %0t", bw_ph + 1, bw_out_names[bw_i], bw_sig[bw_i], BW_EXPECT[bw_ph][bw_i], $time);',
        "    end",
        "    bw_sig[bw_i] = 0;",
        "  end",
        "endtask",
        "task automatic bw_checks_done();",
        f'  $display("{SUMMARY_TAG} %0d checks, %0d mismatches", bw_checks, bw_mismatches);',
        "  // Under Benchwright the run finishes (its coverage is kept) and the lines above are the verdict.",
        f'  if (bw_mismatches > 0 && !$test$plusargs("{KEEP_COVERAGE}")) '
        '$fatal(1, "%0d of %0d checks failed", bw_mismatches, bw_checks);',
        "endtask",
    ]


def read_checks(tb_text: str) -> Checks | None:
    """The checks a testbench carries (its outputs and recorded signatures), or None when it has none."""
    names = re.search(r"string bw_out_names \[\d+\] = '\{(.*)\};", tb_text)
    rows = re.search(r"localparam int unsigned BW_EXPECT \[\d+\]\[\d+\] = '\{(.*)\};", tb_text)
    if names is None or rows is None:
        return None
    outputs = tuple(re.findall(r'"([^"]+)"', names.group(1)))
    expected = tuple(tuple(int(v, 16) for v in re.findall(r"32'h([0-9a-fA-F]+)", row))
                     for row in re.findall(r"'\{([^{}]*)\}", rows.group(1)))
    if not expected or any(len(row) != len(outputs) for row in expected):
        return None
    return Checks(outputs, expected)


def swap(tb_text: str, t: Target, old: Checks, new: Checks) -> str | None:
    """`tb_text` with its check block rendered for `new` instead of `old` (None when the block was edited by hand)."""
    count = len(old.expected)
    block = "\n".join(f"  {line}" for line in lines(t, old, count))
    if block not in tb_text:
        return None
    return tb_text.replace(block, "\n".join(f"  {line}" for line in lines(t, new, count)), 1)


def mismatched_outputs(log: str) -> dict[str, str]:
    """Output -> its first mismatch line (without the tag), from a checking run's log."""
    out: dict[str, str] = {}
    for line in mismatches(log):
        m = re.search(r"output (\S+) differs", line)
        if m:
            out.setdefault(m.group(1), line)
    return out


def parse_signatures(log: str, phases: int, outputs: int) -> tuple[tuple[int, ...], ...] | None:
    """The recorded signatures of a recording run's log, or None when a phase's line is missing or malformed."""
    found: dict[int, tuple[int, ...]] = {}
    for line in log.splitlines():
        m = re.match(rf"^{SIG_TAG} (\d+)((?: [0-9a-fA-F]{{8}})*)\s*$", line.strip())
        if m:
            values = tuple(int(v, 16) for v in m.group(2).split())
            if len(values) == outputs:
                found[int(m.group(1))] = values
    if any(k not in found for k in range(phases)):
        return None
    return tuple(found[k] for k in range(phases))


def summary(log: str) -> tuple[int, int] | None:
    """(checks, mismatches) of a checking run's log, or None when it printed no summary."""
    for line in reversed(log.splitlines()):
        m = re.search(rf"{SUMMARY_TAG} (\d+) checks, (\d+) mismatches", line)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def mismatches(log: str) -> list[str]:
    """The mismatch lines of a checking run's log, without their tag."""
    return [line.split(MISMATCH_TAG, 1)[1].strip() for line in log.splitlines() if MISMATCH_TAG in line]


def phase_count(programs: int) -> int:
    """How many phases a testbench of this many programs records (at least one, at most `MAX_PHASES`)."""
    return min(MAX_PHASES, max(1, programs))
