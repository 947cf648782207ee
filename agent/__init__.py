"""Benchwright agent: the LLM4Cov-style episode loop, policies, prompts and bench."""

from __future__ import annotations
