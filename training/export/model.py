"""Merged HF checkpoint -> GGUF -> quantized GGUF, with an HF-vs-GGUF parity check.

Uses training.export.gguf (the vendored llama.cpp converter and llama_cpp's quantizer); each GGUF
gets a `<file>.meta.json`, and the export directory a `meta.json` with the parity result.

    benchwright train export --stage 2 --config training/presets/tiny.toml --out runs/tiny
    python -m training.export.gguf parity runs/tiny/sft2/merged runs/tiny/export2/student-f32.gguf
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


class ParityError(RuntimeError):
    """The GGUF does not reproduce the HF model (tokens differ or logits are too far apart)."""


def export_model(merged_dir: Path, out_dir: Path, export: Any, *, name: str = "student",
                 config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Convert, quantize and check one merged checkpoint; returns paths, sizes and parity."""
    from training.export.gguf import check_parity, convert_to_gguf, quantize
    from training.meta import write_dir_meta

    t0 = time.monotonic()
    out_dir.mkdir(parents=True, exist_ok=True)
    raw = convert_to_gguf(merged_dir, out_dir / f"{name}-{export.outtype}.gguf", outtype=export.outtype)
    final = raw
    if export.qtype:
        final = quantize(raw, out_dir / f"{name}-{export.qtype}.gguf", export.qtype, nthread=export.threads)
    summary: dict[str, Any] = {
        "merged": str(merged_dir), "gguf": str(raw), "quantized": str(final),
        "gguf_bytes": raw.stat().st_size, "quantized_bytes": final.stat().st_size,
        "outtype": export.outtype, "qtype": export.qtype,
    }
    if export.parity:
        # Parity is checked on the unquantized file: quantization error is expected, a
        # conversion bug (wrong tokenizer, transposed tensor) is not.
        parity = check_parity(merged_dir, raw, n_threads=export.threads)
        summary["parity"] = parity
        ok = parity["tokens_equal"] and parity["max_logit_diff"] <= export.parity_tol
        summary["parity_ok"] = bool(ok)
        if not ok:
            raise ParityError(f"GGUF {raw} vs {merged_dir}: tokens_equal={parity['tokens_equal']}, "
                              f"max |logit diff|={parity['max_logit_diff']:.3g} > tol {export.parity_tol}")
    summary["seconds"] = round(time.monotonic() - t0, 2)
    write_dir_meta(out_dir, "export", config=config, inputs=[merged_dir / "model.safetensors"], export=summary,
                   quantization=export.qtype or export.outtype)
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary
