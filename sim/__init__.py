"""Benchwright simulator layer: Verilator builds and runs, coverage, design interfaces."""

from __future__ import annotations
