"""Benchwright language server (pygls): lint, coverage on save, proposals as edits."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("benchwright")
    """The installed package version (sent as serverInfo.version)."""
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"
