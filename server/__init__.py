"""Benchwright language server (pygls): lint, coverage on save, proposals as edits."""

from __future__ import annotations
