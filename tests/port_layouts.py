"""Layouts from port lists as `benchwright sim` prints them, for pure tests (no simulator).

Importable from any test module: pytest puts `tests/` (the folder of the top conftest.py)
on `sys.path`.
"""

from __future__ import annotations

from agent.heuristic.stimulus import Clock, Field, Layout, Signal


def layout(top: str, ports: str, resets: dict[str, bool], clock: str = "clk") -> Layout:
    """`>name[w]` inputs and `<name[w]` outputs; `resets` maps each reset to active-low."""
    signals: list[Signal] = []
    fields: list[Field] = []
    for item in ports.split():
        direction = "input" if item[0] == ">" else "output"
        name, _, width = item[1:].partition("[")
        bits = int(width.rstrip("]") or 1)
        signals.append(Signal(name, direction, bits))
        if direction == "input" and name != clock:
            fields.append(Field(name, bits, (), False, name in resets, resets.get(name, False)))
    return Layout(top, "dut", tuple(fields), (Clock(clock, 5),), tuple(signals))
