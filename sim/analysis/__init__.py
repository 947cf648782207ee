"""Static facts from Verilator's `--json-only` tree: interface, netlist, write ports, constant bits, dead points.

Pure over the tree, except `interface.read_interface` (one Verilator parse); may import `sim.sandbox` and the shared modules, never `sim.run`.
"""

from __future__ import annotations
