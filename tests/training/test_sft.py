from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.config import SFTConfig, load_config
from training.data.chat import IGNORE_INDEX, Example
from training.sft.train import (
    AUTO_THREADS,
    QWEN3_4B_CONFIG,
    busy_cores,
    collate,
    epoch_order,
    lora_params,
    lr_at,
    memory_estimate,
    resolve_threads,
    torch_threads,
)

PRESETS = Path(__file__).resolve().parents[2] / "training" / "presets"


def test_epoch_order_is_a_seeded_permutation() -> None:
    assert sorted(epoch_order(10, 0)) == list(range(10))
    assert epoch_order(10, 3) == epoch_order(10, 3) != epoch_order(10, 4)


def test_collate_pads_ids_labels_and_mask() -> None:
    ids, labels, mask = collate([Example([5, 6, 7], [IGNORE_INDEX, 6, 7]), Example([8], [8])], pad_id=0)
    assert ids == [[5, 6, 7], [8, 0, 0]]
    assert labels == [[IGNORE_INDEX, 6, 7], [8, IGNORE_INDEX, IGNORE_INDEX]]
    assert mask == [[1, 1, 1], [1, 0, 0]]


def test_torch_threads_auto_takes_every_core_only_when_they_are_idle() -> None:
    assert torch_threads(AUTO_THREADS, 2, 0.1) == 2
    assert torch_threads(AUTO_THREADS, 2, 1.0) == 1  # another process on one core
    assert torch_threads(AUTO_THREADS, 2, None) == 2  # not measurable: every core
    assert torch_threads(1, 2, 0.0) == 1  # a number is taken as given
    assert torch_threads(0, 2, 2.0) == 0  # 0: torch's default
    assert load_config(PRESETS / "smollm2-cpu.toml").sft.threads == AUTO_THREADS
    assert resolve_threads(AUTO_THREADS) >= 1  # what torch.set_num_threads accepts


def test_busy_cores_sees_a_spinning_process() -> None:
    import subprocess
    import sys

    idle = busy_cores(0.5)
    if idle is None:
        pytest.skip("no /proc/stat")
    spin = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        spinning = busy_cores(0.5)
    finally:
        spin.kill()
        spin.wait()
    assert spinning is not None
    assert spinning >= 0.8  # one core held by the spinning process, whatever else runs


def test_lr_schedule() -> None:
    assert lr_at(0, 100, 1.0, 10) == pytest.approx(0.1)
    assert lr_at(9, 100, 1.0, 10) == pytest.approx(1.0)
    assert lr_at(100, 100, 1.0, 10) == pytest.approx(0.1)


def test_lora_param_count_and_memory_estimate_for_qwen3_4b() -> None:
    cfg = load_config(PRESETS / "qwen3-4b.toml").sft
    a = QWEN3_4B_CONFIG
    n = lora_params(a["hidden_size"], a["intermediate_size"], a["num_hidden_layers"], cfg.lora_r,
                    cfg.target_modules, a["num_attention_heads"], a["num_key_value_heads"], a["head_dim"])
    # r=64 on all 7 projections of 36 layers: about 132M trainable parameters
    assert 1.2e8 < n < 1.5e8
    mem = memory_estimate(a, cfg, 4.02e9, 32768)
    assert 7.0 < mem["weights_gib"] < 8.0  # bf16
    assert mem["total_gib"] < 80  # fits one 80 GB GPU with checkpointing
    no_ckpt = memory_estimate(a, SFTConfig(lora_r=64, bf16=True, gradient_checkpointing=False), 4.02e9, 32768)
    assert no_ckpt["activations_gib"] > 5 * mem["activations_gib"]


def test_train_stage_changes_weights_and_merges(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("peft")
    from training.data.chat import make_record
    from training.sft.tiny import make_tiny_model
    from training.sft.train import train_stage

    torch.set_num_threads(1)
    base = make_tiny_model(tmp_path / "base", hidden=64, layers=2)
    data = tmp_path / "data.jsonl"
    msgs = [{"role": "system", "content": "You write testbenches."}, {"role": "user", "content": "Top: counter"}]
    reply = "filename: tb_counter.sv\n```systemverilog\nmodule tb_counter;\nendmodule\n```\n"
    data.write_text("".join(json.dumps(make_record(msgs, reply, design=f"d{i}")) + "\n" for i in range(6)))
    cfg = SFTConfig(lora_r=4, lora_alpha=8, lr=1e-2, batch_size=2, max_len=512, threads=1)
    summary = train_stage(base, [data], tmp_path / "sft0", cfg, stage="sft0")
    assert summary["examples"] == 6
    assert summary["steps"] == 3
    assert summary["params_changed"]
    assert summary["loss_last"] < summary["loss_first"]
    merged = tmp_path / "sft0" / "merged"
    assert (merged / "config.json").is_file()
    assert (merged / "tokenizer.json").is_file()
    meta = json.loads((merged / "meta.json").read_text())
    assert meta["base_model"] == "tiny-qwen3-h64-l2"
    assert meta["sft"]["lora"]["r"] == 4
    assert json.loads((tmp_path / "sft0" / "adapter" / "meta.json").read_text())["stage"] == "sft0-adapter"
    # the next stage starts from the merged checkpoint; no data: copied unchanged
    again = train_stage(merged, [tmp_path / "missing.jsonl"], tmp_path / "sft1", cfg, stage="sft1")
    assert again["skipped"]
    assert (tmp_path / "sft1" / "merged" / "model.safetensors").is_file()
    assert json.loads((tmp_path / "sft1" / "merged" / "meta.json").read_text())["base_model"] == "tiny-qwen3-h64-l2"


def test_dry_run_without_weights(tmp_path: Path) -> None:
    from training.data.chat import make_record
    from training.sft.train import dry_run

    cfg = load_config(PRESETS / "qwen3-4b.toml", [f'model.path="{tmp_path / "absent"}"'])
    data = tmp_path / "data.jsonl"
    good = make_record([{"role": "user", "content": "u"}],
                       "filename: tb_x.sv\n```systemverilog\nmodule tb_x;\nendmodule\n```\n")
    bad = make_record([{"role": "user", "content": "u"}], "no code block")
    data.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    report = dry_run(cfg.model, cfg.sft, [data])
    assert report["records"] == 2
    assert report["n_problems"] == 1
    assert report["model_config"] == "built-in Qwen3-4B numbers"
    assert report["memory"]["total_gib"] > report["memory"]["weights_gib"] > 7
