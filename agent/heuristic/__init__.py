"""The built-in coverage-directed engine.

Opening scenarios, seeded moves and edits (`scenarios`, `moves`, `edits`), the search over stimulus programs
(`program_search`, `corpus`), failure learning (`blame`), steering, and the `heuristic` /
`random` policies (`policies`) built on one episode step (`engine.run_engine`).
"""

from __future__ import annotations
