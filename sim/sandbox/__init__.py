"""Containment: the process runner with limits, the bubblewrap sandbox, shared sessions, the static guard.

May import only the shared `sim` modules (errors, types); every other subsystem runs its tools through it.
"""

from __future__ import annotations
