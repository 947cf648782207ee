"""HF -> GGUF export, llama.cpp quantization and an HF-vs-GGUF parity check.

Each artifact gets a `<name>.meta.json` beside it (arguments, base model, quant type,
sha256 of the inputs, git SHA).  Command lines (CPU, tiny model):

    python -m training.sft.tiny /tmp/tiny
    python -m training.export.gguf convert /tmp/tiny /tmp/tiny-f16.gguf --outtype f16
    python -m training.export.gguf quantize /tmp/tiny-f16.gguf /tmp/tiny-Q8_0.gguf --qtype Q8_0
    python -m training.export.gguf parity /tmp/tiny /tmp/tiny-f32.gguf
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from training.meta import meta_path, sha256_dir, sha256_file, write_meta

logger = logging.getLogger(__name__)

CONVERT_ENV = "BENCHWRIGHT_LLAMA_CONVERT"
"""Env var naming the directory with convert_hf_to_gguf.py, conversion/ and gguf-py/."""

OUTTYPES = ("f32", "f16", "bf16", "q8_0")
"""Output types the vendored converter writes directly."""

QTYPES: dict[str, str] = {
    "F16": "LLAMA_FTYPE_MOSTLY_F16",
    "Q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0",
    "Q6_K": "LLAMA_FTYPE_MOSTLY_Q6_K",
    "Q5_K_M": "LLAMA_FTYPE_MOSTLY_Q5_K_M",
    "Q4_K_M": "LLAMA_FTYPE_MOSTLY_Q4_K_M",
    "Q4_0": "LLAMA_FTYPE_MOSTLY_Q4_0",
}
"""Quantization name -> llama_cpp ftype constant."""

# The converter identifies a BPE pre-tokenizer by hashing how it splits a probe string and
# raises NotImplementedError for unknown hashes, which every tokenizer trained in code is.
# When the HF pre-tokenizer is exactly GPT-2's ByteLevel regex, llama.cpp's `gpt-2`
# pre-tokenizer is the same function, so fall back to it; real models (Qwen, Llama) keep
# the converter's own answer because their hash is known.
_SHIM = r"""
import json, runpy, sys
from pathlib import Path
llama_dir, model_dir, outfile, outtype = sys.argv[1:5]
sys.path.insert(0, llama_dir)
sys.argv = ["convert_hf_to_gguf.py", model_dir, "--outfile", outfile, "--outtype", outtype]
import conversion.base as base
_orig = base.TextModel.get_vocab_base_pre
def _gpt2_bytelevel(model_dir):
    try:
        pre = json.loads((Path(model_dir) / "tokenizer.json").read_text())["pre_tokenizer"]
    except (OSError, KeyError, ValueError):
        return False
    return bool(pre) and pre.get("type") == "ByteLevel" and pre.get("use_regex", True)
def get_vocab_base_pre(self, tokenizer):
    try:
        return _orig(self, tokenizer)
    except NotImplementedError:
        if not _gpt2_bytelevel(model_dir):
            raise
        print("benchwright: unknown BPE pre-tokenizer is GPT-2 ByteLevel; using 'gpt-2'",
              file=sys.stderr)
        return "gpt-2"
base.TextModel.get_vocab_base_pre = get_vocab_base_pre
runpy.run_path(str(Path(llama_dir) / "convert_hf_to_gguf.py"), run_name="__main__")
"""


class ExportError(RuntimeError):
    """Conversion, quantization or the parity check failed; the message says how."""


def _base_model(model_dir: Path) -> str:
    """The base model a directory came from, as far as its own files say."""
    for name in ("meta.json", "config.json"):
        try:
            data = json.loads((model_dir / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in ("base_model", "_name_or_path"):
            if data.get(key):
                return str(data[key])
        if name == "meta.json" and data.get("kind") == "tiny":
            return f"tiny-{data.get('arch')}-h{data.get('hidden')}-l{data.get('layers')}"
    return str(model_dir)


# --- conversion -------------------------------------------------------------------


def converter_dir() -> Path:
    """Directory of the vendored converter: $BENCHWRIGHT_LLAMA_CONVERT or <venv>/llama.cpp-convert."""
    env = os.environ.get(CONVERT_ENV)
    path = Path(env) if env else Path(sys.prefix) / "llama.cpp-convert"
    if not (path / "convert_hf_to_gguf.py").is_file():
        raise ExportError(
            f"HF->GGUF converter not found in {path} (expected convert_hf_to_gguf.py, "
            f"conversion/ and gguf-py/ from the llama-cpp-python sdist's vendor/llama.cpp; "
            f"run scripts/setup.sh or set {CONVERT_ENV})")
    return path


def convert_to_gguf(model_dir: Path | str, out_path: Path | str, outtype: str = "f16",
                    timeout_s: float = 1800.0) -> Path:
    """Convert a saved HF causal LM to GGUF with the vendored llama.cpp converter."""
    model_dir, out_path = Path(model_dir), Path(out_path)
    if outtype not in OUTTYPES:
        raise ExportError(f"outtype {outtype!r} is not one of {', '.join(OUTTYPES)}")
    if not (model_dir / "config.json").is_file():
        raise ExportError(f"{model_dir}: not a saved HF model (no config.json)")
    llama_dir = converter_dir()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-c", _SHIM, str(llama_dir), str(model_dir), str(out_path), outtype]
    t0 = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise ExportError(f"converter timed out after {timeout_s:.0f} s on {model_dir}") from None
    if proc.returncode != 0 or not out_path.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
        raise ExportError(f"converter failed (exit {proc.returncode}) on {model_dir}:\n{tail}")
    write_meta(out_path, {
        "stage": "convert", "args": {"model_dir": str(model_dir), "outtype": outtype},
        "base_model": _base_model(model_dir), "quantization": outtype.upper(),
        "inputs_sha256": sha256_dir(model_dir), "converter": str(llama_dir),
        "seconds": round(time.monotonic() - t0, 3),
    })
    return out_path


# --- quantization -----------------------------------------------------------------


def quantize(in_path: Path | str, out_path: Path | str, qtype: str = "Q8_0",
             nthread: int | None = None) -> Path:
    """Quantize a GGUF through llama.cpp's C API (`llama_model_quantize`)."""
    import ctypes

    import llama_cpp

    in_path, out_path = Path(in_path), Path(out_path)
    if qtype not in QTYPES:
        raise ExportError(f"qtype {qtype!r} is not one of {', '.join(QTYPES)}")
    if not in_path.is_file():
        raise ExportError(f"{in_path}: GGUF to quantize not found")
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, QTYPES[qtype])
    params.nthread = nthread or max(1, (os.cpu_count() or 1))
    # llama.cpp logs every tensor at INFO; keep only errors on stderr.
    logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)
    t0 = time.monotonic()
    rc = llama_cpp.llama_model_quantize(str(in_path).encode(), str(out_path).encode(),
                                        ctypes.byref(params))
    if rc != 0 or not out_path.is_file():
        raise ExportError(f"llama_model_quantize({in_path} -> {qtype}) returned {rc}")
    base: str = str(in_path)
    with contextlib.suppress(OSError, ValueError, KeyError):
        base = json.loads(meta_path(in_path).read_text(encoding="utf-8"))["base_model"]
    write_meta(out_path, {
        "stage": "quantize", "args": {"in_path": str(in_path), "qtype": qtype},
        "base_model": base, "quantization": qtype,
        "inputs_sha256": {in_path.name: sha256_file(in_path)},
        "seconds": round(time.monotonic() - t0, 3),
    })
    return out_path


# --- parity -----------------------------------------------------------------------

PARITY_TEXT = ("module counter(input logic clk, input logic rst_n, output logic [7:0] q);\n"
               "  always_ff @(posedge clk) if (!rst_n) q <= 0; else q <= q + 1;\n"
               "endmodule\nWrite a complete testbench that reaches every line.")
"""Default probe text for the parity check (Verilog and English, like the prompts)."""


def check_parity(model_dir: Path | str, gguf_path: Path | str, text: str = PARITY_TEXT,
                 n_threads: int = 1) -> dict[str, Any]:
    """Compare HF and llama.cpp on `text`: token ids and last-layer logits.

    Returns `{"tokens_equal", "n_tokens", "max_logit_diff", "argmax_equal", ...}` and
    records it under `parity` in the GGUF's meta.json.
    """
    import llama_cpp
    import numpy as np
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model_dir, gguf_path = Path(model_dir), Path(gguf_path)
    tok = AutoTokenizer.from_pretrained(model_dir)
    hf_ids: list[int] = list(tok(text, add_special_tokens=False)["input_ids"])
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    model.eval()
    with torch.no_grad():
        hf_logits = model(torch.tensor([hf_ids])).logits[0].numpy()

    llm = llama_cpp.Llama(model_path=str(gguf_path), n_ctx=max(64, 2 * len(hf_ids)),
                          n_threads=n_threads, logits_all=True, verbose=False)
    try:
        gg_ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        llm.reset()
        llm.eval(hf_ids)
        gg_logits = np.asarray(llm.scores[: len(hf_ids)], dtype=np.float32)
    finally:
        llm.close()
    diff = np.abs(gg_logits - hf_logits)
    result = {
        "tokens_equal": gg_ids == hf_ids,
        "n_tokens": len(hf_ids),
        "max_logit_diff": float(diff.max()),
        "mean_logit_diff": float(diff.mean()),
        "argmax_equal": bool((gg_logits.argmax(-1) == hf_logits.argmax(-1)).all()),
        "model_dir": str(model_dir),
    }
    mp = meta_path(gguf_path)
    if mp.is_file():
        meta = json.loads(mp.read_text(encoding="utf-8"))
        meta["parity"] = result
        mp.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return result


# --- command line -------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    """Command line: convert / quantize / parity."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("convert", help="HF model dir -> GGUF")
    c.add_argument("model_dir", type=Path, help="saved HF model directory")
    c.add_argument("out_path", type=Path, help="GGUF file to write")
    c.add_argument("--outtype", default="f16", choices=OUTTYPES, help="tensor type")
    q = sub.add_parser("quantize", help="GGUF -> quantized GGUF")
    q.add_argument("in_path", type=Path, help="f16/f32 GGUF")
    q.add_argument("out_path", type=Path, help="GGUF file to write")
    q.add_argument("--qtype", default="Q8_0", choices=list(QTYPES), help="quantization")
    p = sub.add_parser("parity", help="compare HF and GGUF tokens and logits")
    p.add_argument("model_dir", type=Path, help="saved HF model directory")
    p.add_argument("gguf_path", type=Path, help="GGUF converted from it")
    args = ap.parse_args(argv)
    if args.cmd == "convert":
        print(convert_to_gguf(args.model_dir, args.out_path, args.outtype))
    elif args.cmd == "quantize":
        print(quantize(args.in_path, args.out_path, args.qtype))
    else:
        print(json.dumps(check_parity(args.model_dir, args.gguf_path), indent=2))


if __name__ == "__main__":
    main()
