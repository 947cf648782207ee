"""Benchwright offline training pipeline (curation, sampling, LoRA SFT, GGUF export)."""

from __future__ import annotations
