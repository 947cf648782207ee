"""A tiny causal LM and byte-level BPE tokenizer built entirely in code (no download).

Used by tests, benchmarks and the `tiny` training preset: the whole HF -> GGUF ->
llama.cpp chain runs on it in seconds.  Its outputs are nonsense by construction.

    python -m training.sft.tiny OUT_DIR [--arch qwen3] [--hidden 64] [--layers 2]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""ChatML, as Qwen2/Qwen3 use it (llama.cpp detects it as `chatml`)."""

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
"""Special tokens, in id order (0, 1, 2): pad, turn start, turn end / eos."""

ARCHS = ("qwen3", "qwen2", "llama")
"""Architectures whose whole HF -> GGUF -> llama.cpp chain was verified."""


# --- synthetic corpus -------------------------------------------------------------


def synthetic_corpus(n: int = 400, seed: int = 0) -> list[str]:
    """Verilog-ish and English-ish lines, deterministic for a seed."""
    import numpy as np

    rng = np.random.default_rng(seed)
    names = ["clk", "rst_n", "data_in", "data_out", "valid", "ready", "count", "state",
             "addr", "wdata", "rdata", "en", "sel", "q", "d", "fifo", "dut", "tb"]
    kws = ["module", "endmodule", "input", "output", "logic", "wire", "reg", "always_ff",
           "always_comb", "begin", "end", "if", "else", "case", "endcase", "assign",
           "initial", "posedge", "negedge", "$finish", "$display", "repeat", "#5", "@("]
    words = ["the", "testbench", "coverage", "write", "a", "complete", "design", "module",
             "instance", "named", "must", "reach", "every", "line", "branch", "toggle",
             "fix", "compile", "error", "improve", "uncovered", "points", "run", "file"]
    lines: list[str] = [
        "filename: tb_counter.sv", "```systemverilog", "```", "You are a verification engineer.",
        "module tb;", "endmodule", "initial begin", "$finish;", "<|im_start|>user", "<|im_end|>",
    ]
    for i in range(n):
        if i % 2:
            toks = [str(rng.choice(kws)) if rng.random() < 0.5 else str(rng.choice(names))
                    for _ in range(int(rng.integers(3, 10)))]
            lines.append("  " + " ".join(toks) + (";" if rng.random() < 0.7 else ""))
        else:
            toks = [str(rng.choice(words)) for _ in range(int(rng.integers(4, 14)))]
            lines.append(" ".join(toks).capitalize() + ".")
    return lines


# --- tokenizer and model --------------------------------------------------------------


def make_tokenizer(vocab_size: int = 512, seed: int = 0) -> Any:
    """Train a GPT-2-style byte-level BPE on the synthetic corpus and wrap it for HF."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    # Exactly GPT-2's ByteLevel pre-tokenizer, so llama.cpp's `gpt-2` pre-tokenizer matches.
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(synthetic_corpus(seed=seed), trainer=trainer)
    hf = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
        bos_token=None, unk_token=None,
    )
    hf.chat_template = CHATML_TEMPLATE
    return hf


def make_tiny_model(out_dir: Path | str, arch: str = "qwen3", hidden: int = 64,
                    layers: int = 2, vocab_size: int = 512, seed: int = 0) -> Path:
    """Create a randomly initialised `arch` model + tokenizer and save them to `out_dir`.

    Returns the directory, loadable with `AutoModelForCausalLM.from_pretrained`.
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, GenerationConfig

    if arch not in ARCHS:
        raise ValueError(f"arch {arch!r} is not one of {', '.join(ARCHS)}")
    if hidden % 16:
        raise ValueError(f"hidden={hidden} must be a multiple of 16 (head_dim 16)")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = make_tokenizer(vocab_size, seed)
    vocab = len(tokenizer)
    heads = hidden // 16
    extra: dict[str, Any] = {"head_dim": 16} if arch == "qwen3" else {}
    config = AutoConfig.for_model(
        arch, vocab_size=vocab, hidden_size=hidden, intermediate_size=2 * hidden,
        num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 2), max_position_embeddings=8192,
        tie_word_embeddings=True, bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, **extra,
    )
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config)
    model.generation_config = GenerationConfig(
        eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    n_params = sum(p.numel() for p in model.parameters())
    meta = {"kind": "tiny", "arch": arch, "hidden": hidden, "layers": layers,
            "vocab_size": vocab, "seed": seed, "params": n_params}
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> None:
    """Command line: build a tiny model into a directory."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", type=Path, help="directory to write the model into")
    ap.add_argument("--arch", default="qwen3", choices=ARCHS, help="model architecture")
    ap.add_argument("--hidden", type=int, default=64, help="hidden size (multiple of 16)")
    ap.add_argument("--layers", type=int, default=2, help="number of decoder layers")
    ap.add_argument("--vocab-size", type=int, default=512, help="BPE vocabulary budget")
    ap.add_argument("--seed", type=int, default=0, help="seed for the corpus and weights")
    args = ap.parse_args(argv)
    path = make_tiny_model(args.out_dir, args.arch, args.hidden, args.layers,
                           args.vocab_size, args.seed)
    print(path)


if __name__ == "__main__":
    main()
