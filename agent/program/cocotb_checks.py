"""Checks in a cocotb test: what the outputs did during each operation, recorded once, compared on every run.

The cocotb twin of `sv_checks`. Every output of the design is folded into a 32-bit signature
at each rising edge of the first clock, read once the edge's updates have settled
(`ReadOnly`); a combinational design's halfway between two input changes. After each top-level operation of the program, the fold of all outputs during
that operation is compared with the recorded run (a mismatch names the operation, so the
first one tells where behaviour changed); at the end each output's own signature over the
whole run is compared (a mismatch names the output). Mismatches print `BW-MISMATCH` lines and
the summary `BW-CHECKS <n> checks, <m> mismatches` (the tags of `sv_checks`, which parses
them), and the test fails.

Recording is the same test with `EXPECTED = None`: it prints one `BW-SIG-OPS` and one
`BW-SIG-OUTPUTS` line instead of comparing; `with_expected` writes the values it printed into
the text. The values are the cocotb run's own (the SV testbench samples before the edge's
updates, so its signatures differ), and outputs left out of the SV checks are left out here.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from agent.program.sv_checks import MISMATCH_TAG, SUMMARY_TAG, Checks

OPS_TAG = "BW-SIG-OPS"
"""Log line of a recording: the signature of the outputs during each operation, in order."""

OUTPUTS_TAG = "BW-SIG-OUTPUTS"
"""Log line of a recording: each checked output's signature over the whole run."""

RECORDING = "EXPECTED = None  # recording: this run prints the signatures instead of comparing them"
"""The line of a recording test that `with_expected` replaces."""

RUNTIME = f'''

class Checks:
    """Every checked output folded into signatures at each rising edge of the first clock (settled values)."""

    def __init__(self, dut, clock):
        self.dut = dut
        self.clock = clock
        self.handles = [dut[name] for name in CHECKED]
        self.widths = [len(h) for h in self.handles]
        self.during = 0
        self.each = [0] * len(CHECKED)
        self.recorded = []
        self.checks = self.mismatches = 0

    @staticmethod
    def fold(sig, value, width):
        """FNV-style fold of a value, 32 bits at a time (`bw_fold` of the SV checks)."""
        for k in range(0, max(1, width), 32):
            sig = ((sig ^ ((value >> k) & MASK32)) * 0x01000193) & MASK32
            sig ^= sig >> 15
        return sig

    async def sample(self):
        """Fold every output at each rising edge once its updates have settled (without a clock,
        halfway between two input changes)."""
        if self.clock is None:
            await Timer(PERIOD_NS // 2 or 1, unit="ns")
        while True:
            if self.clock is None:
                await ReadOnly()
            else:
                await RisingEdge(self.clock)
                await ReadOnly()
            self.fold_all()
            if self.clock is None:
                await Timer(PERIOD_NS, unit="ns")

    def fold_all(self):
        """Fold each output's value now into its signature and into the operation's."""
        for k, handle in enumerate(self.handles):
            value = read(handle) or 0
            self.each[k] = self.fold(self.each[k], value, self.widths[k])
            self.during = self.fold(self.during, value, self.widths[k])

    def after(self, k, what):
        """After operation k (`what`, its text): compare what the outputs did during it with the recording."""
        sig, self.during = self.during, 0
        if EXPECTED is None:
            self.recorded.append(sig)
            return
        n, self.checks = self.checks, self.checks + 1  # the n-th check: EXPECTED[0][n]
        was = EXPECTED[0][n] if n < len(EXPECTED[0]) else None
        if sig != was:
            self.mismatches += 1
            self.dut._log.error(f"{MISMATCH_TAG} operation {{k + 1}} ({{what}}): the outputs differ from the recorded "
                                f"run (signature {{sig:08x}}, was {{was if was is None else f'{{was:08x}}'}}) "
                                f"at {{now_ns()}} ns")

    def done(self):
        """The verdict: each output's signature over the run, the summary; the test fails on a mismatch."""
        if EXPECTED is None:
            self.dut._log.info("{OPS_TAG} " + " ".join(f"{{s:08x}}" for s in self.recorded))
            self.dut._log.info("{OUTPUTS_TAG} " + " ".join(f"{{s:08x}}" for s in self.each))
            return
        for k, name in enumerate(CHECKED):
            self.checks += 1
            if self.each[k] != EXPECTED[1][k]:
                self.mismatches += 1
                self.dut._log.error(f"{MISMATCH_TAG} output {{name}} differs from the recorded run "
                                    f"(signature {{self.each[k]:08x}}, was {{EXPECTED[1][k]:08x}})")
        self.dut._log.info(f"{SUMMARY_TAG} {{self.checks}} checks, {{self.mismatches}} mismatches")
        assert self.mismatches == 0, f"{{self.mismatches}} of {{self.checks}} checks failed"


def now_ns():
    """The simulation time in ns."""
    return int(cocotb.utils.get_sim_time("ns"))
'''
"""The runtime of the checks (needs `CHECKED`, `EXPECTED`, `MASK32`, `PERIOD_NS`, `read` and the triggers)."""


def tables(checks: Checks, arrays: Collection[str] = ()) -> list[str]:
    """`CHECKED` (the outputs, in order), what is left out and why, and `EXPECTED` in its recording form.

    `arrays`: unpacked array outputs, left to the SV testbench's checks (here one handle per element).
    """
    checked = [o for o in checks.outputs if o not in arrays]
    names = ", ".join(repr(o) for o in checked)
    lines = [f"CHECKED = ({names}{',' if len(checked) == 1 else ''})"]
    lines += [f"# not checked: {name} ({why})" for name, why in checks.left_out]
    lines += [f"# not checked: {name} (an unpacked array: the SV testbench checks it)" for name in checks.outputs
              if name in arrays]
    return [*lines, RECORDING]


def _hexes(log: str, tag: str) -> tuple[int, ...] | None:
    lines = re.findall(rf"{tag}((?: [0-9a-f]{{8}})*)\s*$", log, flags=re.MULTILINE)
    return tuple(int(v, 16) for v in lines[-1].split()) if lines else None


def with_expected(text: str, log: str) -> str | None:
    """The recording test `text` with the signatures its run printed in `log` (None: none printed)."""
    ops, outputs = _hexes(log, OPS_TAG), _hexes(log, OUTPUTS_TAG)
    if ops is None or outputs is None or RECORDING not in text:
        return None
    def rows(values: tuple[int, ...]) -> str:
        body = ", ".join(f"0x{v:08x}" for v in values)
        return f"({body}{',' if len(values) == 1 else ''})"
    expected = (f"EXPECTED = (  # recorded by Benchwright: (the outputs during each operation, each output over the run)\n"
                f"    {rows(ops)},\n    {rows(outputs)},\n)")
    return text.replace(RECORDING, expected, 1)
