"""A serial line's timing and command bytes, from elaborated parameters and the design's conditions.

Pure: parameter values and `Condition`s (sim.analysis) in, bit periods and byte values out.
`interfaces.recognise` gives them to every serial input it finds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from sim.analysis.rtl_facts import Condition

PERIOD_PARAM = re.compile(r"(clks?_?per_?bit|cpb|baud_?div|divisor|div|prescale|clk_?div|bit_?period|"
                          r"cycles_?per_?bit|setup)", re.IGNORECASE)
"""Parameter names whose value is (or contains) a serial bit period."""

CLOCK_FREQ_PARAM = re.compile(r"(clk|clock|sys|core)?_?(freq|frequency|hz|rate_?hz)$", re.IGNORECASE)
"""Parameter names of the clock's frequency (`CLK_FREQ`, `CLOCK_RATE_HZ`)."""

BAUD_PARAM = re.compile(r"(baud|speed|bps|bit_?rate)", re.IGNORECASE)
"""Parameter names of a line's rate (`UART_SPEED`, `BAUD_RATE`): the period is the frequency over it."""

DEFAULT_PERIODS = (16, 8, 4, 32, 25)
"""Bit periods tried when the design names none."""

COUNTER_NAME = re.compile(r"(tick|cnt|count|timer|baud|prescal|div|clk|cycle|sample|bit_?time)", re.IGNORECASE)
"""Names of a register that counts clocks (a bit timer: `rx_tick`, `baud_cnt`, `clk_count`)."""

_COMPARED = re.compile(r"^\s*([A-Za-z_][\w.]*)(?:\[[^\]]*\])?\s*(?:==|>=)\s*")
"""A condition that compares one signal with a value (`rx_tick == 16'd127`)."""


def counter_limits(conditions: Iterable[Condition]) -> tuple[int, ...]:
    """Values a clock counter is compared with, after elaboration (most compared first); pure.

    A bit period set by parameters (`CLK_FREQ / UART_SPEED`) is folded by then: the design's
    `rx_tick == TICKS - 1` reads `rx_tick == 16'd127` whatever the parameters are named.
    """
    counts: dict[int, int] = {}
    for c in conditions:
        m = _COMPARED.match(c.text)
        if m and COUNTER_NAME.search(m.group(1).rsplit(".", 1)[-1]) and len(c.constants) == 1 and \
                3 <= c.constants[0] <= 1 << 16:
            counts[c.constants[0]] = counts.get(c.constants[0], 0) + 1
    return tuple(sorted(counts, key=lambda v: (-counts[v], v)))


def _received(name: str) -> bool:
    """Whether a compared register may hold received data (not a clock counter, not a state register)."""
    return not COUNTER_NAME.search(name) and "state" not in name.lower()


_BYTE_COMPARE = re.compile(r"^\s*([A-Za-z_][\w.]*)(?:\[[^\]]*\])?\s*(==|!=|>=|<=|>|<)\s*8'[sS]?[dhbo]")
"""A condition that compares a byte with an 8-bit literal (`rx_byte == 8'd87`, `cmd > 8'd7`)."""


def command_bytes(conditions: Iterable[Condition]) -> tuple[int, ...]:
    """Byte values the design compares bytes with, first seen first; pure.

    A design that parses bytes (a command bridge, a debug port) decides on `rx_byte == 8'h57`
    ('W') and `addr > 8'd7`: those values, and the first value past each `>`/`<=` limit, are
    the bytes that walk its parser. Clock counters and state registers compared with 8-bit
    literals are left out (they are not received data).
    """
    out: list[int] = []
    for c in conditions:
        m = _BYTE_COMPARE.match(c.text)
        if not m or not _received(m.group(1)):
            continue
        if c.kind == "case_item" and c.constants:  # `rx_data == 8'd16 | 8'd17`: each is a command
            out += c.constants
        elif len(c.constants) == 1:
            value = c.constants[0]
            out += [value, value + 1] if m.group(2) in (">", "<=") and value < 0xFF else [value]
    return tuple(dict.fromkeys(v for v in out if 0 <= v <= 0xFF))


def serial_periods(params: Mapping[str, int], constants: Sequence[int], limits: Sequence[int] = ()) -> tuple[int, ...]:
    """Bit periods to try: parameters named like one (and their low 24 bits), then counter limits.

    Without a parameter named like a period, a clock frequency over a line rate
    (`CLK_FREQ / UART_SPEED`) and the limits a clock counter is compared with
    (`counter_limits`: a full bit is limit + 1) go first; the mined constants and the usual
    periods follow.
    """
    out: list[int] = []
    for name, value in params.items():
        if PERIOD_PARAM.search(name) and value > 0:
            for v in (value, value & 0xFFFFFF):
                if 2 <= v <= 1 << 16:
                    out.append(v)
    if not out:
        # `CLK_FREQ / UART_SPEED`, however the design then divides it (a port, a counter).
        freqs = [v for n, v in params.items() if CLOCK_FREQ_PARAM.search(n) and v > 0]
        bauds = [v for n, v in params.items() if BAUD_PARAM.search(n) and not CLOCK_FREQ_PARAM.search(n) and v > 0]
        out += [f // b for f in freqs for b in bauds if 2 <= f // b <= 1 << 16]
        out += [v + 1 for v in limits[:4]]
    out += [v + d for v in constants if 4 <= v <= 4096 for d in (1, 0)][:6]
    return tuple(dict.fromkeys([*out, *DEFAULT_PERIODS]))[:10]


_WIDE_COMPARE = re.compile(r"\b([A-Za-z_][\w.]*)(?:\[[^\]]*\])?\s*==\s*(16|24|32)'[sS]?h([0-9a-fA-F_]+)")
"""A compare of a register with a 16- to 32-bit hex literal anywhere in a condition (`mem_addr_q == 32'hf0000000`)."""


def wide_operands(conditions: Iterable[Condition]) -> tuple[int, ...]:
    """Multi-byte values a design compares registers with (a bridge's special addresses); pure.

    A parser that assembles an address from received bytes and decides on it
    (`mem_addr_q == 32'hf0000000`, a GPIO register inside a debug bridge) is reached only by
    sending those bytes; counters and state registers are left out.
    """
    out: list[int] = []
    for c in conditions:
        for name, _width, digits in _WIDE_COMPARE.findall(c.text):
            if _received(name):
                out.append(int(digits.replace("_", ""), 16))
    return tuple(dict.fromkeys(v for v in out if v > 0xFF))
