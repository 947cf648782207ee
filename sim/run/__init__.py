"""The evaluator Sim(R, x) -> o: Verilator commands, build cache, runs, coverage, lcov; cocotb tests too.

May import `sim.sandbox` and the shared modules; never `sim.project`, `sim.analysis` or `sim.mutation`.
"""

from __future__ import annotations
