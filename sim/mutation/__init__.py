"""Mutation analysis: mutants from the AST, one batched mutant model, differential runs, reports.

The top of `sim`: may import `sim.run`, `sim.analysis`, `sim.sandbox` and the shared modules.
"""

from __future__ import annotations
