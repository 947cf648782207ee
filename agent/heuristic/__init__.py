"""The built-in coverage-directed engine: a data-driven harness, seeded stimulus generators,
a greedy coverage-directed search, and the `heuristic` / `random` policies."""

from __future__ import annotations
