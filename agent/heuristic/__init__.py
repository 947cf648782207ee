"""The built-in coverage-directed engine.

A data-driven harness, seeded stimulus generators, a greedy coverage-directed search,
and the `heuristic` / `random` policies built on them.
"""

from __future__ import annotations
