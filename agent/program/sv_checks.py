"""Checks in a kept testbench: what every output did in each phase, recorded once, compared on every run.

Each output of the design is folded into a 32-bit signature on every rising edge of the first
clock (a combinational design's halfway between two input changes); at the end of each phase (one kept program) the signatures are compared with the
values recorded from the run that produced the testbench's coverage, and cleared. A
difference prints one `BW-MISMATCH` line per output (the phase, the output, the recorded and
the new signature, the time); the run ends with a `BW-CHECKS` summary and, on a mismatch,
`$fatal`, so the simulation's exit status fails a regression run. Recording is the same
testbench in record mode: instead of comparing, it prints one `BW-SIG` line per phase when it
finishes (`parse_signatures` reads them back).

Reads: each plain bus read of the program's top level (not in a repeat) also gets the data it
returned beside its call (`wb_read_is(3'h2, 4, 32'h00000041)`: read number 4 must return 0x41),
and a loop reading every register of a bus's list gets each register's data beside it
(`wb_sweep_is(5, '{32'h00000041, ...})`: reads 5.. in the list's order); a read that returned X
is kept with `'x` and not compared. A difference prints
the read, the address, what came back and what the recording had. The recording run prints
every read's data in one `BW-READS` line when it finishes (`parse_reads`).

An unpacked array output is folded element by element (its value at a phase's end is its first
element's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from agent.program import sv_accessors as acc
from agent.program.sv_common import COMB_DELAY, clock_of, hexlit
from agent.program.sv_ifaces import regs_name, sweep_name, sweep_registers
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

READS_TAG = "BW-READS"
"""The log line of a recording with every checked read's data: `BW-READS <hex or x> ...`."""

MAX_READS = 128
"""Most reads a testbench checks one by one (the rest are covered by the output signatures)."""

MAX_READ_BITS = 64
"""Widest bus whose reads are checked one by one."""

_READ_LINE = re.compile(r"^(\s*)(\w+)_read\(([^,()]+)\);$")
_SWEEP_LINE = re.compile(r"^(\s*)foreach \((\w+)\[bw_i\]\) (\w+)_read\(\2\[bw_i\]\);$")
_SWEEP_IS = re.compile(r"(\w+)_sweep_is\((\d+), '\{([^{}]*)\}\);")
_SWEEP_REC = re.compile(r"(\w+)_sweep_rec\((\d+)\);")
_READ_IS = re.compile(r"(\w+)_read_is\(([^,()]+), (\d+), ([^()]*?)\);(?:  //[^\n]*)?")
_READ_REC = re.compile(r"(\w+)_read_rec\(([^,()]+), (\d+)\);")


@dataclass(frozen=True)
class Checks:
    """What a testbench checks: its outputs, and per phase their recorded signatures."""

    outputs: tuple[str, ...]
    """Outputs folded into signatures, in order."""
    expected: tuple[tuple[int, ...], ...] = ()
    """Per phase, the recorded signature of each output, then (recorded since values are) each
    output's low 32 bits at the phase's end, which a failed check prints beside its own; ()
    renders the recording form. A row of signatures only is a testbench recorded before."""
    left_out: tuple[tuple[str, str], ...] = ()
    """(output, why it is not checked)."""
    reads: tuple[int | None, ...] = ()
    """Per checked read, in testbench order, the data it returned in the recorded run (None: X)."""
    read_buses: tuple[str, ...] = ()
    """Buses whose reads are checked (their `_read_is`/`_read_rec` tasks are declared)."""
    sweep_buses: tuple[str, ...] = ()
    """Buses whose register-list reads are checked (their `_sweep_is`/`_sweep_rec` tasks are declared)."""

    @property
    def recording(self) -> bool:
        """True for the form that records instead of comparing."""
        return not self.expected

    @property
    def with_values(self) -> bool:
        """True when the rows carry the outputs' values at each phase's end (and when recording)."""
        return not self.expected or len(self.expected[0]) == 2 * len(self.outputs)


def plan(t: Target, accessors: bool = True) -> Checks:
    """The outputs a testbench of `t` checks, and those it leaves out with the reason.

    `accessors`: also the digests of the design's own public functions (`sv_accessors`; an SV
    testbench calls them, a cocotb test cannot).
    """
    outputs = [s.name for s in t.layout.ports if s.direction == "output"]
    if accessors and clock_of(t):
        outputs += list(acc.expressions(t))
    return Checks(tuple(outputs))


def lines(t: Target, checks: Checks, phases: int) -> list[str]:
    """Declarations, the sampling process, `bw_check(phase)` and `bw_checks_done()`."""
    n, p = len(checks.outputs), max(1, phases)
    if not n:
        return ["task automatic bw_check(input int bw_ph); endtask", "task automatic bw_checks_done(); endtask"]
    names = ", ".join(f'"{o}"' for o in checks.outputs)
    widths = {s.name: s.width for s in t.layout.ports}
    dims = {s.name: s.dims for s in t.layout.ports}
    calls = acc.expressions(t)  # an accessor's digest: 32 bits
    widths.update(dict.fromkeys(calls, 32))

    def one(i: int, o: str) -> str:  # an unpacked array is folded element by element
        d = dims.get(o, ())
        loop = ", ".join(f"bw_d{k}" for k in range(len(d)))
        element = calls.get(o, o) + "".join(f"[bw_d{k}]" for k in range(len(d)))
        fold1 = f"bw_sig[{i}] = bw_fold(bw_sig[{i}], {min(widths.get(o, 1), 1024)}, 1024'({element}));"
        return f"foreach ({o}[{loop}]) {fold1}" if d else fold1

    fold = " ".join(one(i, o) for i, o in enumerate(checks.outputs))
    if checks.with_values:  # each output's low 32 bits as last sampled (an array's first element)
        fold += " " + " ".join(f"bw_now[{i}] = 32'({calls.get(o, o)}{'[0]' * len(dims.get(o, ()))});"
                               for i, o in enumerate(checks.outputs))
    out = [
        "// Checks: every output folded into a signature on each clock, compared per phase with the run",
        "// that produced this testbench's coverage (regenerate the testbench to accept new behaviour).",
        f"string bw_out_names [{n}] = '{{{names}}};",
        f"int unsigned bw_sig [{n}]; int bw_checks = 0, bw_mismatches = 0;"
        + (f" int unsigned bw_now [{n}];" if checks.with_values else ""),
        "function automatic int unsigned bw_fold(input int unsigned bw_s, input int bw_n, input logic [1023:0] bw_v);",
        "  for (int bw_c = 0; bw_c < bw_n; bw_c += 32) begin bw_s = (bw_s ^ bw_v[bw_c +: 32]) * 32'h01000193; "
        "bw_s ^= bw_s >> 15; end",
        "  return bw_s;",
        "endfunction",
        # A combinational design's inputs change every COMB_DELAY ns (`bw_step`): sampled halfway between.
        f"always @(posedge {clock_of(t)}) begin {fold} end" if clock_of(t) else
        f"initial begin #{COMB_DELAY // 2}; forever begin {fold} #{COMB_DELAY}; end end",
    ]
    out += _read_tasks(t, checks)
    if checks.recording:
        r = len(checks.reads)
        reads = [f'  $write("{READS_TAG}"); for (int bw_k = 0; bw_k < {r}; bw_k++) if (bw_read_x[bw_k]) $write(" x"); '
                 'else $write(" %h", bw_read_got[bw_k]); $write("\\n");'] if r else []
        return [
            *out,
            f"int unsigned bw_rec [{p}][{2 * n}];",
            "task automatic bw_check(input int bw_ph);",
            f"  for (int bw_i = 0; bw_i < {n}; bw_i++) begin bw_rec[bw_ph][bw_i] = bw_sig[bw_i]; "
            f"bw_rec[bw_ph][{n} + bw_i] = bw_now[bw_i]; bw_sig[bw_i] = 0; end",
            "endtask",
            "task automatic bw_checks_done();",
            *reads,
            f'  for (int bw_k = 0; bw_k < {p}; bw_k++) begin $write("{SIG_TAG} %0d", bw_k); '
            f'for (int bw_i = 0; bw_i < {2 * n}; bw_i++) $write(" %h", bw_rec[bw_k][bw_i]); $write("\\n"); end',
            "endtask",
        ]
    rows = ", ".join("'{" + ", ".join(hexlit(32, v) for v in row) + "}" for row in checks.expected)
    width = len(checks.expected[0]) if checks.expected else n
    said = (f'      $display("{MISMATCH_TAG} phase %0d: output %s differs from the recorded run (signature %h, was %h; '
            'at the phase\'s end %h, the recorded run %h) at %0t", bw_ph + 1, bw_out_names[bw_i], bw_sig[bw_i], '
            f'BW_EXPECT[bw_ph][bw_i], bw_now[bw_i], BW_EXPECT[bw_ph][{n} + bw_i], $time);' if checks.with_values else
            f'      $display("{MISMATCH_TAG} phase %0d: output %s differs from the recorded run (signature %h, was %h) '
            'at %0t", bw_ph + 1, bw_out_names[bw_i], bw_sig[bw_i], BW_EXPECT[bw_ph][bw_i], $time);')
    return [
        *out,
        f"localparam int unsigned BW_EXPECT [{p}][{width}] = '{{{rows}}};",
        "task automatic bw_check(input int bw_ph);",
        f"  for (int bw_i = 0; bw_i < {n}; bw_i++) begin",
        "    bw_checks++;",
        "    if (bw_sig[bw_i] != BW_EXPECT[bw_ph][bw_i]) begin",
        "      bw_mismatches++;",
        said,
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


def _read_tasks(t: Target, checks: Checks) -> list[str]:
    """`<bus>_read_rec(addr, k)` (recording) or `<bus>_read_is(addr, k, expected)` for each bus with checked reads."""
    count = len(checks.reads)
    if not count:
        return []
    out = [f"logic [{MAX_READ_BITS - 1}:0] bw_read_got [{count}]; bit bw_read_x [{count}];"] if checks.recording else []
    for name in checks.read_buses:
        bus = t.interfaces.named(name)
        aw, dw, got = max(1, bus.addr_bits), max(1, bus.data_bits), f"bw_{name}_got"
        if checks.recording:
            out.append(f"task automatic {name}_read_rec(input logic [{aw - 1}:0] bw_a, input int bw_k); "
                       f"{name}_read(bw_a); bw_read_got[bw_k] = {MAX_READ_BITS}'({got}); "
                       f"bw_read_x[bw_k] = $isunknown({got}); endtask")
            continue
        out += [
            f"task automatic {name}_read_is(input logic [{aw - 1}:0] bw_a, input int bw_k, input logic [{dw - 1}:0] bw_e);",
            f"  {name}_read(bw_a);",
            "  if ($isunknown(bw_e)) return;  // X in the recorded run: not compared",
            "  bw_checks++;",
            f"  if ({got} !== bw_e) begin bw_mismatches++; $display(\"{MISMATCH_TAG} read %0d: {name}_read(%h) returned "
            f"%h, the recorded run %h, at %0t\", bw_k + 1, bw_a, {got}, bw_e, $time); end",
            "endtask",
        ]
    return out + [line for name in checks.sweep_buses for line in _sweep_task(t, name, checks.recording)]


def _sweep_task(t: Target, name: str, recording: bool) -> list[str]:
    """`<bus>_sweep_rec(k)` or `<bus>_sweep_is(k, expected)`: a read of every register of the bus's list, checked."""
    bus = t.interfaces.named(name)
    regs, n, dw = sweep_name(bus), len(sweep_registers(bus)), max(1, bus.data_bits)
    if recording:
        return [f"task automatic {name}_sweep_rec(input int bw_k); "
                f"foreach ({regs}[bw_i]) {name}_read_rec({regs}[bw_i], bw_k + bw_i); endtask"]
    return [f"task automatic {name}_sweep_is(input int bw_k, input logic [{dw - 1}:0] bw_e [{n}]); "
            f"foreach ({regs}[bw_i]) {name}_read_is({regs}[bw_i], bw_k + bw_i, bw_e[bw_i]); endtask"]


def _expected(t: Target, bus: str, reads: tuple[int | None, ...], k: int) -> str:
    """Read `k`'s recorded data as a literal of the bus's width (`'x` when it was X or was not recorded)."""
    value = reads[k] if k < len(reads) else None
    return hexlit(max(1, t.interfaces.named(bus).data_bits), value) if value is not None else "'x"


def _sweep_call(t: Target, bus: str, k: int, checks: Checks) -> str:
    """The call reading bus `bus`'s register list as reads k.. (recording, or checked against `checks.reads`)."""
    if checks.recording:
        return f"{bus}_sweep_rec({k});"
    n = len(sweep_registers(t.interfaces.named(bus)))
    return f"{bus}_sweep_is({k}, '{{{', '.join(_expected(t, bus, checks.reads, k + j) for j in range(n))}}});"


def plain_reads(text: str) -> str:
    """`text` with each checked read (`_read_is`, `_read_rec`, the sweeps) written as the plain read it checks."""
    def loop(m: re.Match[str]) -> str:
        regs = regs_name(m.group(1))
        return f"foreach ({regs}[bw_i]) {m.group(1)}_read({regs}[bw_i]);"

    text = _SWEEP_REC.sub(loop, _SWEEP_IS.sub(loop, text))
    return _READ_REC.sub(r"\1_read(\2);", _READ_IS.sub(r"\1_read(\2);", text))


def checked_reads(t: Target, body: list[str], checks: Checks) -> tuple[list[str], Checks]:
    """`body` with its top-level plain bus reads as checked calls, and `checks` with the reads' count and buses.

    Reads inside a `repeat` block or a shared opening's task run more than once and keep
    their plain call (the output signatures cover them); so do reads past `MAX_READS`.
    In recording form each read's data is kept (`_read_rec`); in checking form it is
    compared with `checks.reads` (`_read_is`, `'x` where the recording saw X).
    """
    buses = {b.name: b for b in t.interfaces.buses if b.port("rdata") and b.data_bits <= MAX_READ_BITS}
    out: list[str] = []
    used: list[str] = []
    swept: list[str] = []
    depth = k = 0
    for line in body:
        m = _READ_LINE.match(line)
        if depth == 0 and m and m.group(2) in buses and k < MAX_READS:
            indent, name, addr = m.groups()
            if checks.recording:
                out.append(f"{indent}{name}_read_rec({addr}, {k});")
            else:
                out.append(f"{indent}{name}_read_is({addr}, {k}, {_expected(t, name, checks.reads, k)});")
            used.append(name)
            k += 1
            continue
        sweep = _SWEEP_LINE.match(line)
        name = sweep.group(3) if sweep else ""
        if depth == 0 and sweep and name in buses and sweep.group(2) == sweep_name(buses[name]):
            n = len(sweep_registers(buses[name]))
            if k + n <= MAX_READS:
                out.append(sweep.group(1) + _sweep_call(t, name, k, checks))
                used.append(name)
                swept.append(name)
                k += n
                continue
        text = line.strip()
        depth += text.endswith("begin") - (text == "end")
        out.append(line)
    reads = checks.reads[:k] if not checks.recording else (None,) * k
    return out, replace(checks, reads=tuple(reads) + (None,) * (k - len(reads)),
                        read_buses=tuple(dict.fromkeys(used)), sweep_buses=tuple(dict.fromkeys(swept)))


def parse_reads(log: str) -> tuple[int | None, ...]:
    """Each checked read's recorded data (None for X) from a recording run's log (() without reads)."""
    # (the tag anywhere in a line: a design's own `$write` without a newline, as biriscv's
    # simulation-control CSR prints, can precede it)
    for line in reversed(log.splitlines()):
        if READS_TAG in line:
            return tuple(None if v == "x" else int(v, 16) for v in line.split(READS_TAG, 1)[1].split())
    return ()


def read_checks(tb_text: str) -> Checks | None:
    """The checks a testbench carries (its outputs and recorded signatures), or None when it has none."""
    names = re.search(r"string bw_out_names \[\d+\] = '\{(.*)\};", tb_text)
    rows = re.search(r"localparam int unsigned BW_EXPECT \[\d+\]\[\d+\] = '\{(.*)\};", tb_text)
    if names is None or rows is None:
        return None
    outputs = tuple(re.findall(r'"([^"]+)"', names.group(1)))
    expected = tuple(tuple(int(v, 16) for v in re.findall(r"32'h([0-9a-fA-F]+)", row))
                     for row in re.findall(r"'\{([^{}]*)\}", rows.group(1)))
    if not expected or any(len(row) not in (len(outputs), 2 * len(outputs)) for row in expected) \
            or len({len(row) for row in expected}) > 1:
        return None
    reads: dict[int, int | None] = {}
    calls = sorted([(m.start(), m.group(1), int(m.group(3)), [m.group(4)], False) for m in _READ_IS.finditer(tb_text)] +
                   [(m.start(), m.group(1), int(m.group(2)), m.group(3).split(","), True)
                    for m in _SWEEP_IS.finditer(tb_text)])
    for _at, _name, k, values, _sweep in calls:
        for j, value in enumerate(values):
            reads[k + j] = None if value.strip() == "'x" else int(value.split("'h", 1)[-1], 16)
    if sorted(reads) != list(range(len(reads))):
        return None
    return Checks(outputs, expected, reads=tuple(reads[k] for k in range(len(reads))),
                  read_buses=tuple(dict.fromkeys(c[1] for c in calls)),
                  sweep_buses=tuple(dict.fromkeys(c[1] for c in calls if c[4])))


def swap(tb_text: str, t: Target, old: Checks, new: Checks) -> str | None:
    """`tb_text` with its check block rendered for `new` instead of `old` (None when the block was edited by hand)."""
    count = len(old.expected)
    block = "\n".join(f"  {line}" for line in lines(t, old, count))
    if block not in tb_text:
        return None
    text = tb_text.replace(block, "\n".join(f"  {line}" for line in lines(t, new, count)), 1)

    def call(m: re.Match[str]) -> str:  # one read's call in `new`'s form
        name, addr, k = m.group(1), m.group(2), int(m.group(3))
        if new.recording:
            return f"{name}_read_rec({addr}, {k});"
        return f"{name}_read_is({addr}, {k}, {_expected(t, name, new.reads, k)});"

    def sweep(m: re.Match[str]) -> str:  # one register-list read in `new`'s form
        return _sweep_call(t, m.group(1), int(m.group(2)), new)

    text = _SWEEP_REC.sub(sweep, _SWEEP_IS.sub(sweep, text))
    return _READ_REC.sub(call, _READ_IS.sub(call, text))


def mismatched_outputs(log: str) -> dict[str, str]:
    """Output -> its first mismatch line (without the tag), from a checking run's log."""
    out: dict[str, str] = {}
    for line in mismatches(log):
        m = re.search(r"output (\S+) differs", line)
        if m:
            out.setdefault(m.group(1), line)
    return out


def mismatched_reads(log: str, tb_text: str) -> dict[str, str]:
    """Read-data port -> its first failed read (without the tag), from a checking run's log and its testbench.

    The testbench names each bus's data port where its xfer task keeps a read (`bw_<bus>_got = <port>;`).
    """
    ports = dict(re.findall(r"bw_(\w+)_got = (\w+);", tb_text))
    out: dict[str, str] = {}
    for line in mismatches(log):
        m = re.match(r"read \d+: (\w+)_read\(", line)
        if m and m.group(1) in ports:
            out.setdefault(ports[m.group(1)], line)
    return out


def parse_signatures(log: str, phases: int, outputs: int) -> tuple[tuple[int, ...], ...] | None:
    """The recorded rows of a recording run's log, or None when a phase's line is missing or malformed.

    A row holds the phase's signatures, then (since they are recorded) the values at its end.
    """
    found: dict[int, tuple[int, ...]] = {}
    for line in log.splitlines():
        m = re.search(rf"{SIG_TAG} (\d+)((?: [0-9a-fA-F]{{8}})*)\s*$", line)  # anywhere: see parse_reads
        if m:
            values = tuple(int(v, 16) for v in m.group(2).split())
            if len(values) in (outputs, 2 * outputs):  # signatures, then (recorded since) the values
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
