"""`benchwright export`: turn a released checkpoint into a GGUF the `llama` policy loads.

    # a full HF model (e.g. an LLM4Cov Qwen3-4B stage, or Qwen3-4B-Instruct)
    benchwright export /models/llm4cov-qwen3-4b-stage2 --out models/llm4cov-4b-Q4_K_M.gguf
    # a LoRA adapter: merged onto its base first
    benchwright export runs/q4b/sft2/adapter --base /models/Qwen3-4B-Instruct --out models/s2.gguf
    # then
    benchwright run DESIGN --policy llama --model models/llm4cov-4b-Q4_K_M.gguf

Weights are never downloaded: CHECKPOINT and --base are local directories.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from training.config import ExportConfig


def merge_adapter(adapter_dir: Path, base_dir: Path, out_dir: Path) -> Path:
    """Merge a PEFT LoRA adapter onto its base model and save the merged model + tokenizer."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.bfloat16)
    merged = PeftModel.from_pretrained(base, adapter_dir).merge_and_unload()
    merged.save_pretrained(out_dir)
    AutoTokenizer.from_pretrained(base_dir).save_pretrained(out_dir)
    return out_dir


def build_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright export` (pure)."""
    p = argparse.ArgumentParser(prog="benchwright export", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checkpoint", type=Path, help="HF model directory (config.json + weights) or a LoRA adapter")
    p.add_argument("--out", type=Path, required=True, help="GGUF file to write (its folder gets the intermediates)")
    p.add_argument("--base", type=Path, help="base model directory, required for a LoRA adapter")
    p.add_argument("--qtype", default="Q4_K_M", help="quantization (default: %(default)s; '' for none)")
    p.add_argument("--outtype", default="f16", help="converter output type (default: %(default)s)")
    p.add_argument("--parity", action="store_true",
                   help="compare HF and GGUF tokens and logits (loads the HF model in float32)")
    p.add_argument("--threads", type=int, default=2, help="threads for quantization (default: %(default)s)")
    return p


def main(argv: list[str]) -> int:
    """Convert (and merge, quantize, check) one checkpoint; prints the GGUF path."""
    args = build_parser().parse_args(argv)
    from training.export.gguf import ExportError
    from training.export.model import ParityError, export_model
    from training.meta import meta_path

    ckpt = args.checkpoint.expanduser().resolve()
    if not ckpt.is_dir():
        sys.stderr.write(f"benchwright export: {ckpt}: not a directory\n")
        return 2
    tmp: Path | None = None
    try:
        if (ckpt / "adapter_config.json").is_file():
            if args.base is None:
                sys.stderr.write(f"benchwright export: {ckpt} is a LoRA adapter; give its base model with --base DIR\n")
                return 2
            tmp = Path(tempfile.mkdtemp(prefix="bw-merge-"))
            ckpt = merge_adapter(ckpt, args.base.expanduser().resolve(), tmp)
        out = args.out.expanduser().resolve()
        cfg = ExportConfig(outtype=args.outtype, qtype=args.qtype, parity=args.parity, threads=args.threads)
        summary = export_model(ckpt, out.parent, cfg, name=out.stem)
        final = Path(summary["quantized"])
        if final != out:  # export_model names files <stem>-<type>.gguf; the user named this one
            final.replace(out)
            meta = meta_path(final)
            if meta.is_file():
                meta.replace(meta_path(out))
    except (ExportError, ParityError, OSError, ValueError) as exc:
        sys.stderr.write(f"benchwright export: {exc}\n")
        return 1
    else:
        sys.stdout.write(f"{out} ({out.stat().st_size / 2**20:.1f} MiB)\n")
        return 0
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
