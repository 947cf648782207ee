"""Merged checkpoint -> GGUF -> quantized GGUF, parity checks, and `benchwright export`.

May import the shared `training` modules (config, meta); never `training.data` or `training.sft`.
"""

from __future__ import annotations
