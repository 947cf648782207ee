r"""LoRA supervised fine-tuning on chat records: loss on assistant tokens only, one epoch per stage.

Each stage loads the previous stage's merged checkpoint (the base model for stage 0), adds
a fresh LoRA adapter, trains one epoch on that stage's `data.jsonl`, saves the adapter,
merges it and saves the merged model; both directories get a `meta.json`.

    # CPU, tiny preset (a few seconds per stage)
    benchwright train sft --stage 0 --config training/presets/tiny.toml --out runs/tiny
    # GPUs: the same script under accelerate (DDP over 8 GPUs, bf16, gradient checkpointing)
    accelerate launch --config_file training/presets/accelerate_multigpu.yaml -m training.cli \\
        sft --stage 0 --config training/presets/qwen3-4b.toml --out runs/q4b
    # validate config, data and a memory estimate without loading weights
    benchwright train sft --stage 0 --config training/presets/qwen3-4b.toml --out runs/q4b --dry-run
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import shutil
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from training.data.chat import IGNORE_INDEX, Example

logger = logging.getLogger(__name__)


# --- pure helpers ------------------------------------------------------------------------


AUTO_THREADS = -1
"""`SFTConfig.threads` value: every core when they are idle as training starts, else one."""


def torch_threads(configured: int, cores: int, busy: float | None) -> int:
    """The torch threads for `SFTConfig.threads` (0: leave torch's default) on `cores` cores, `busy` of them in use.

    Auto (-1) takes every core only when at most half a core is busy: measured on 2 idle cores
    a SmolLM2-135M step on 1,500 tokens takes 14 s with two threads and 26 s with one, while on a
    busy box the second thread waits on the other core and each step gets several times slower.
    `busy` is None where it cannot be measured: every core then.
    """
    if configured != AUTO_THREADS:
        return max(0, configured)
    if busy is None or busy <= 0.5:
        return max(1, cores)
    return 1


def read_records(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """All chat records of some JSONL files, in file order."""
    out = []
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            rec = json.loads(line)
            if not isinstance(rec, dict) or not isinstance(rec.get("messages"), list):
                raise ValueError(f"{path}:{n}: a record needs a 'messages' list")  # noqa: TRY004 - bad data, not a bad call
            out.append(rec)
    return out


def epoch_order(n: int, seed: int) -> list[int]:
    """A seeded permutation of range(n) (nanochat-style `default_rng` shuffle)."""
    return [int(i) for i in np.random.default_rng(seed).permutation(n)]


def collate(batch: Sequence[Example], pad_id: int) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """Right-pad a batch: (input_ids, labels, attention_mask) as nested lists."""
    width = max(len(e.input_ids) for e in batch)
    ids = [e.input_ids + [pad_id] * (width - len(e.input_ids)) for e in batch]
    labels = [e.labels + [IGNORE_INDEX] * (width - len(e.labels)) for e in batch]
    mask = [[1] * len(e.input_ids) + [0] * (width - len(e.input_ids)) for e in batch]
    return ids, labels, mask


def lr_at(step: int, total: int, peak: float, warmup: int) -> float:
    """Linear warmup to `peak`, then cosine decay to 10 % of it."""
    if total <= 0:
        return peak
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def lora_params(hidden: int, intermediate: int, layers: int, r: int, targets: Sequence[str],
                heads: int, kv_heads: int, head_dim: int) -> int:
    """Trainable LoRA parameters of a Llama/Qwen-style decoder: r * (in + out) per adapted matrix."""
    q, kv = heads * head_dim, kv_heads * head_dim
    shapes = {"q_proj": (hidden, q), "k_proj": (hidden, kv), "v_proj": (hidden, kv), "o_proj": (q, hidden),
              "gate_proj": (hidden, intermediate), "up_proj": (hidden, intermediate),
              "down_proj": (intermediate, hidden)}
    return layers * sum(r * (shapes[t][0] + shapes[t][1]) for t in targets if t in shapes)


def memory_estimate(model_cfg: dict[str, Any], sft: Any, n_params: float, seq_len: int) -> dict[str, float]:
    """A per-GPU memory estimate in GiB for LoRA SFT (weights, adapter+optimizer, activations, logits)."""
    hidden = int(model_cfg["hidden_size"])
    layers = int(model_cfg["num_hidden_layers"])
    heads = int(model_cfg["num_attention_heads"])
    kv = int(model_cfg.get("num_key_value_heads", heads))
    head_dim = int(model_cfg.get("head_dim") or hidden // heads)
    vocab = int(model_cfg["vocab_size"])
    inter = int(model_cfg["intermediate_size"])
    wbytes = 2 if sft.bf16 else 4
    lora = lora_params(hidden, inter, layers, sft.lora_r, sft.target_modules, heads, kv, head_dim)
    gib = float(1 << 30)
    tokens = seq_len * sft.batch_size
    # Checkpointing keeps one hidden state per layer; without it ~16 activations of width hidden
    # (attention, MLP intermediates) per layer and token.
    per_layer = hidden * wbytes if sft.gradient_checkpointing else (12 * hidden + 4 * inter) * wbytes
    acts = tokens * layers * per_layer
    logits = tokens * vocab * 4 * 2  # fp32 logits and their gradient
    out = {
        "weights_gib": n_params * wbytes / gib,
        "lora_params": float(lora),
        "lora_and_adam_gib": lora * (4 + 4 + 8) / gib,  # fp32 weights, grads, Adam moments
        "activations_gib": acts / gib,
        "logits_gib": logits / gib,
    }
    out["total_gib"] = out["weights_gib"] + out["lora_and_adam_gib"] + out["activations_gib"] + out["logits_gib"]
    return {k: round(v, 3) for k, v in out.items()}


@contextlib.contextmanager
def _quiet_upstream() -> Iterator[None]:
    """Silence one known upstream deprecation.

    peft 0.21 reads transformers 5's deprecated `is_gradient_checkpointing`
    (FutureWarning "... use `is_activation_checkpointing`").
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`is_gradient_checkpointing` is deprecated", category=FutureWarning)
        yield


QWEN3_4B_CONFIG = {"hidden_size": 2560, "num_hidden_layers": 36, "num_attention_heads": 32,
                   "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 151936,
                   "intermediate_size": 9728}
"""Qwen3-4B's architecture numbers (its config.json), for a dry run before the weights exist."""


# --- training ----------------------------------------------------------------------------


def resolve_threads(configured: int) -> int:
    """`torch_threads` on this machine (the cores sampled for a second only for auto)."""
    busy = busy_cores() if configured == AUTO_THREADS else None
    return torch_threads(configured, os.cpu_count() or 1, busy)


def _cpu_times() -> tuple[int, int] | None:
    """(busy, total) jiffies of all cores since boot, from /proc/stat (None off Linux)."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def busy_cores(interval_s: float = 1.0) -> float | None:
    """How many cores other processes keep busy, sampled over `interval_s` (None off Linux)."""
    first = _cpu_times()
    time.sleep(interval_s)
    second = _cpu_times()
    if first is None or second is None or second[1] == first[1]:
        return None
    return (second[0] - first[0]) / (second[1] - first[1]) * (os.cpu_count() or 1)


def train_stage(base_dir: Path, data_paths: Sequence[Path], out_dir: Path, sft: Any, *,
                stage: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """One SFT stage: LoRA on `base_dir` over the records, adapter + merged model in `out_dir`.

    Returns the stage summary (steps, tokens, losses, seconds, whether weights changed).
    With no records the base model is copied unchanged and the summary says so.
    """
    import torch
    from accelerate import Accelerator  # type: ignore[import-untyped]
    from peft import LoraConfig, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from training.data.chat import build_example, hf_render
    from training.meta import write_dir_meta

    t0 = time.monotonic()
    torch.manual_seed(sft.seed)
    threads = resolve_threads(sft.threads)
    if threads:
        torch.set_num_threads(threads)
    logger.info("%s: %d torch thread(s)", stage, torch.get_num_threads())
    out_dir.mkdir(parents=True, exist_ok=True)
    merged_dir, adapter_dir = out_dir / "merged", out_dir / "adapter"
    records = read_records([p for p in data_paths if p.is_file()])
    tokenizer = AutoTokenizer.from_pretrained(base_dir)
    render = hf_render(tokenizer)

    # --- tokenize; drop (and count) records over max_len rather than cut an answer
    examples: list[Example] = []
    too_long = 0
    for rec in records:
        ex = build_example(rec["messages"], render)
        if len(ex.input_ids) > sft.max_len:
            too_long += 1
            continue
        examples.append(ex)
    summary: dict[str, Any] = {
        "stage": stage, "base": str(base_dir), "records": len(records), "examples": len(examples),
        "dropped_too_long": too_long, "trained_tokens": sum(e.n_trained for e in examples),
        "tokens": sum(len(e.input_ids) for e in examples),
    }
    if not examples:
        logger.warning("%s: no training examples (records=%d, too long=%d); copying the base model",
                       stage, len(records), too_long)
        if merged_dir.exists():
            shutil.rmtree(merged_dir)
        shutil.copytree(base_dir, merged_dir, ignore=shutil.ignore_patterns("meta.json"))
        summary.update(skipped=True, steps=0, seconds=round(time.monotonic() - t0, 2))
        write_dir_meta(merged_dir, f"{stage}-merged", config=config, inputs=data_paths, sft=summary,
                       base_model=_base_model_id(base_dir))
        return summary

    # --- model + LoRA
    accelerator = Accelerator(mixed_precision="bf16" if sft.bf16 else "no",
                              gradient_accumulation_steps=sft.grad_accum)
    model: Any = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.bfloat16 if sft.bf16 else torch.float32)
    if sft.gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.enable_input_require_grads()
    lora_cfg = LoraConfig(r=sft.lora_r, lora_alpha=sft.lora_alpha, lora_dropout=sft.lora_dropout,
                          target_modules=list(sft.target_modules), task_type="CAUSAL_LM",
                          modules_to_save=list(sft.modules_to_save) or None)
    with _quiet_upstream():
        model = get_peft_model(model, lora_cfg)
    trainable = [p for p in model.parameters() if p.requires_grad]
    n_trainable = sum(p.numel() for p in trainable)
    n_total = sum(p.numel() for p in model.parameters())
    before = [p.detach().clone() for p in trainable]
    optim = torch.optim.AdamW(trainable, lr=sft.lr, weight_decay=sft.weight_decay)
    model, optim = accelerator.prepare(model, optim)

    # --- one epoch (or `epochs`) over the shuffled examples; this process's shard under DDP
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    order = [i for e in range(sft.epochs) for i in epoch_order(len(examples), sft.seed + e)]
    order = order[accelerator.process_index::accelerator.num_processes]
    batches = [order[i:i + sft.batch_size] for i in range(0, len(order), sft.batch_size)]
    total_steps = math.ceil(len(batches) / sft.grad_accum)
    if sft.max_steps:
        total_steps = min(total_steps, sft.max_steps)
        batches = batches[: total_steps * sft.grad_accum]
    warmup = max(1, round(sft.warmup_ratio * total_steps))
    losses: list[float] = []
    model.train()
    step = 0
    for i, batch in enumerate(batches):
        ids, labels, mask = collate([examples[j] for j in batch], pad_id)
        with accelerator.accumulate(model):
            out = model(input_ids=torch.tensor(ids, device=accelerator.device),
                        attention_mask=torch.tensor(mask, device=accelerator.device),
                        labels=torch.tensor(labels, device=accelerator.device))
            accelerator.backward(out.loss)
            for group in optim.param_groups:
                group["lr"] = lr_at(step, total_steps, sft.lr, warmup)
            optim.step()
            optim.zero_grad()
        losses.append(float(out.loss.detach()))
        if (i + 1) % sft.grad_accum == 0:
            step += 1
            if step % min(10, max(1, total_steps // 10)) == 0 or step == total_steps:
                logger.info("%s step %d/%d loss %.4f", stage, step, total_steps, sum(losses[-10:]) / len(losses[-10:]))

    # --- save adapter, merge, save merged (main process only)
    accelerator.wait_for_everyone()
    unwrapped = accelerator.unwrap_model(model)
    changed = any(not torch.equal(b, p.detach().cpu().to(b.dtype)) for b, p in zip(before, trainable, strict=True))
    summary.update(
        skipped=False, steps=step, micro_batches=len(batches), trainable_params=n_trainable, total_params=n_total,
        loss_first=round(losses[0], 4) if losses else None,
        loss_last=round(sum(losses[-5:]) / len(losses[-5:]), 4) if losses else None,
        params_changed=changed, processes=accelerator.num_processes,
        lora={"r": sft.lora_r, "alpha": sft.lora_alpha, "targets": list(sft.target_modules),
              "modules_to_save": list(sft.modules_to_save)},
    )
    if accelerator.is_main_process:
        with _quiet_upstream():
            unwrapped.save_pretrained(adapter_dir)
            merged = unwrapped.merge_and_unload()
        if sft.bf16:
            merged = merged.to(torch.bfloat16)
        if merged_dir.exists():
            shutil.rmtree(merged_dir)
        merged.save_pretrained(merged_dir)
        tokenizer.save_pretrained(merged_dir)
        summary["seconds"] = round(time.monotonic() - t0, 2)
        base_id = _base_model_id(base_dir)
        write_dir_meta(adapter_dir, f"{stage}-adapter", config=config, inputs=data_paths, sft=summary,
                       base_model=base_id)
        write_dir_meta(merged_dir, f"{stage}-merged", config=config, inputs=data_paths, sft=summary,
                       base_model=base_id)
        (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def _base_model_id(model_dir: Path) -> str:
    """The original base model of a checkpoint chain (from meta.json), else the directory."""
    from training.meta import read_meta

    meta = read_meta(model_dir)
    if meta.get("base_model"):
        return str(meta["base_model"])
    if meta.get("kind") == "tiny":
        return f"tiny-{meta.get('arch')}-h{meta.get('hidden')}-l{meta.get('layers')}"
    return str(model_dir)


def dry_run(model: Any, sft: Any, data_paths: Sequence[Path]) -> dict[str, Any]:
    """Validate data (records render, replies parse) and estimate memory, without weights."""
    from agent.llm.parse import parse_response

    model_dir = Path(model.path) if model.path else None
    cfg_json = None
    if model_dir is not None and (model_dir / "config.json").is_file():
        cfg_json = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    arch = cfg_json or QWEN3_4B_CONFIG
    records = read_records([p for p in data_paths if p.is_file()])
    problems = []
    lengths = []
    tokenizer = None
    if model_dir is not None and (model_dir / "tokenizer.json").is_file():
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(model_dir)
    for n, rec in enumerate(records):
        msgs = rec["messages"]
        roles = [m["role"] for m in msgs]
        if roles[-1] != "assistant" or "user" not in roles:
            problems.append(f"record {n}: roles {roles}")
            continue
        top = str(rec.get("top") or "")
        try:
            parse_response(msgs[-1]["content"], top or "dut")
        except ValueError as exc:
            problems.append(f"record {n}: assistant turn does not parse: {exc}")
        text = "".join(m["content"] for m in msgs)
        lengths.append(len(tokenizer(text)["input_ids"]) if tokenizer is not None else math.ceil(len(text) / 3.5))
    seq = min(max(lengths, default=sft.max_len), sft.max_len)
    n_params = model.params_estimate or _params_from_arch(arch)
    return {
        "model_config": "config.json" if cfg_json else "built-in Qwen3-4B numbers",
        "records": len(records), "problems": problems[:20], "n_problems": len(problems),
        "max_tokens": max(lengths, default=0), "over_max_len": sum(1 for x in lengths if x > sft.max_len),
        "tokens_counted_by": "tokenizer" if tokenizer is not None else "chars/3.5",
        "memory": memory_estimate(arch, sft, n_params, seq), "seq_len_for_estimate": seq,
        "params": n_params,
    }


def _params_from_arch(a: dict[str, Any]) -> float:
    hidden, layers, inter = int(a["hidden_size"]), int(a["num_hidden_layers"]), int(a["intermediate_size"])
    heads = int(a["num_attention_heads"])
    kv = int(a.get("num_key_value_heads", heads))
    hd = int(a.get("head_dim") or hidden // heads)
    attn = hidden * heads * hd * 2 + hidden * kv * hd * 2
    return float(layers * (attn + 3 * hidden * inter) + int(a["vocab_size"]) * hidden)
