"""Finding the design in a folder: filelists, the HDL pre-scan, top inference, `benchwright init`.

May import `sim.analysis`, `sim.sandbox` and the shared modules, never `sim.run`.
"""

from __future__ import annotations
