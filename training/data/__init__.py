"""Training data: design splits and decontamination, teacher episodes, curation, worst-state sampling, records.

May import `agent`, `sim` and the shared `training` modules (config, meta, fanout).
"""

from __future__ import annotations
