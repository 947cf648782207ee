from __future__ import annotations

from pathlib import Path

import pytest

from training.config import ConfigError, load_config, parse_set

PRESETS = Path(__file__).resolve().parents[2] / "training" / "presets"


@pytest.mark.parametrize("name", ["tiny", "qwen3-4b"])
def test_presets_load(name: str) -> None:
    cfg = load_config(PRESETS / f"{name}.toml")
    assert cfg.name == name
    assert "sft.lora_r" in cfg.overridden
    assert all(Path(p).is_absolute() for p in cfg.data.suites + cfg.data.jsonl)


def test_qwen_preset_is_the_gpu_recipe() -> None:
    cfg = load_config(PRESETS / "qwen3-4b.toml")
    assert cfg.sft.bf16
    assert cfg.sft.gradient_checkpointing
    assert cfg.export.qtype == "Q4_K_M"
    assert (PRESETS / "accelerate_multigpu.yaml").is_file()


def test_unknown_keys_and_bad_types_fail_with_the_value(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[sft]\nlora_rank = 8\n")
    with pytest.raises(ConfigError, match=r"sft\.lora_rank"):
        load_config(bad)
    bad.write_text('[sft]\nlora_r = "eight"\n')
    with pytest.raises(ConfigError, match="eight"):
        load_config(bad)
    bad.write_text('[export]\nqtype = "Q3_XXL"\n')
    with pytest.raises(ConfigError, match="Q3_XXL"):
        load_config(bad)


def test_set_overrides() -> None:
    assert parse_set("sft.lr=1e-3") == {"sft": {"lr": 1e-3}}
    assert parse_set("teacher.policy=openai") == {"teacher": {"policy": "openai"}}
    cfg = load_config(PRESETS / "tiny.toml", ["sft.lora_r=4", 'data.include=["a"]'])
    assert cfg.sft.lora_r == 4
    assert cfg.data.include == ["a"]
    with pytest.raises(ConfigError):
        parse_set("novalue")
