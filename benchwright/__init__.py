"""The `benchwright` command: a thin dispatcher over the sim, agent, server and training packages."""

from __future__ import annotations
