"""Benchwright simulator layer: Verilator builds and runs, coverage, design interfaces.

Shared vocabulary lives here (`errors`, `types`, `suite`: design.toml, `tools`: finding
Verilator) and `cli` (`benchwright sim`/`doctor`). The subsystems, bottom up: `sandbox`
(containment), `analysis` (static facts from Verilator's tree), `project` (finding the design
in a folder), `run` (builds, runs, coverage), `mutation` (mutation analysis). Nothing in
`sim` imports `agent`, `server` or `training`.
"""

from __future__ import annotations
