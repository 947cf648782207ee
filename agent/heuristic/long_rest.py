"""The long scenarios: a serial line's slow counters, a CPU's counters, through their upper bits (pure).

A UART's baud generator reloads from its configuration register's period field, and its
break or idle detector counts the clocks since the line last changed, up to a bound that
field sets. Their upper bits move only when the field holds a large value and the line rests
for millions of clocks; and a count-down only carries through every bit from a power of two
(from all ones it never borrows past the lowest). The careful reference testbenches of the
UARTs in the real suite (wbuart32's, AXI-Lite and Wishbone) rest their line for 2^21+ clocks
under a period of 2^23 and toggle the transmitter's break, which reloads its baud counter.

A CPU's cycle and retired-instruction counters (picorv32's `count_cycle`, `count_instr`; the
mcycle CSR) likewise move in their upper bits only in a run of a million clocks, which the
careful reference of picorv32 makes and a program under the cycle cap cannot (`long_run`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from agent.program.interfaces import Iface
from agent.program.ops import IDIOMS, Op, Program, op

FIELD_TOPS = (23, 15)
"""Top bits of the period fields tried: a 24-bit field (a 32-bit configuration register with
mode bits above, as wbuart32's) and a 16-bit one. A register narrower than the bit is skipped."""

REST_CYCLES = 2_300_000
"""Clocks the line rests: past 2^21, the bit the references' change counters reach."""

REST_STEP = 100_000
"""Clocks of one step of the rest (repeated: one line of the testbench)."""

RUN_CYCLES = 1_100_000
"""Clocks a CPU runs in `long_run`: past 2^20, the bit picorv32's reference takes its cycle
counter through (bits 17-19 both ways; 2^17 retired instructions take bit 16 of the other)."""

TOGGLE_REGISTERS = 4
"""Registers the scenario writes: the first (often the configuration) takes the power of two,
the others all ones, then zero, twice: a break or reset bit among them reloads the counters
from the field twice (a reload, a borrow through every bit, a reload)."""


def long_rest(bus: Iface, serials: Sequence[Iface], period: int, base: list[Op]) -> list[tuple[str, Program]]:
    """One program per field top: the power of two in the first register, the others toggled, a long rest.

    Past the program cycle cap on purpose (`moves.MAX_CYCLES`): the engine plays them after
    its search (`scenarios.closings`). Few lines (two loops): the final testbench has 400.
    """
    out: list[tuple[str, Program]] = []
    if not bus.addresses:
        return out
    mask = (1 << bus.register_bits) - 1
    first, *others = bus.addresses[:TOGGLE_REGISTERS]
    toggles = tuple(op("bus_write", bus.name, r, value) for value in (mask, 0) for r in others)
    for top in FIELD_TOPS:
        if top >= bus.register_bits:
            continue
        ops = [
            *base,
            op("bus_write", bus.name, first, 1 << top),
            Op("repeat", (("times", 2),), toggles),
            Op("repeat", (("times", REST_CYCLES // REST_STEP),), (op("hold", REST_STEP),)),
            # a change on the line after the rest: the change counter falls from its upper bits
            *(op("serial", s.name, period, (0x55,)) for s in serials),
            # the period back: a configuration register no reset clears (wbuart32's) would
            # otherwise slow every program the final testbench runs after this one 300,000-fold
            op("bus_write", bus.name, first, period),
        ]
        out.append((f"long rest 2^{top}", Program(tuple(ops))))
    return out


def long_run(base: Sequence[Op], cpus: Collection[str]) -> list[tuple[str, Program]]:
    """The CPUs behind the responders `cpus` run their idioms (`isa.idioms`) for RUN_CYCLES.

    The idioms' trap handler returns past what traps and their words decode, so the core keeps
    retiring instructions the whole run (picorv32 halts at an illegal instruction; with
    `fill=decode` it stopped before 2^10 of them, with the idioms it passed 2^17).
    """
    if not cpus:
        return []
    ops = [o.with_arg("fill", IDIOMS) if o.name == "respond" and o.word("iface") in cpus else o for o in base]
    run = Op("repeat", (("times", RUN_CYCLES // REST_STEP),), (op("hold", REST_STEP),))
    return [("long run", Program((*ops, run)))]
