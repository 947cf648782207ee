"""The built-in coverage-directed engine.

Opening scenarios and seeded moves (`scenarios`, `moves`), the search over stimulus programs
(`program_search`, `corpus`), failure learning (`blame`), steering, and the `heuristic` /
`random` policies (`policies`) built on one episode step (`engine.run_engine`).
"""

from __future__ import annotations
