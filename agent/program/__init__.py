"""Stimulus programs: the operations, their text form, interface recognition and the SV/cocotb renderers.

Pure code with no simulator import (DESIGN.md §4): the built-in engine searches over these
programs and a language model writes them; both import this package, never the reverse.
"""

from __future__ import annotations
