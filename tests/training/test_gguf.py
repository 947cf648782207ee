from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.export.gguf import (
    CONVERT_ENV,
    ExportError,
    check_parity,
    convert_to_gguf,
    quantize,
)
from training.meta import meta_path, sha256_file

pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")


@pytest.fixture(scope="module")
def tiny(tiny_artifacts):  # -> tests.conftest.TinyArtifacts
    return tiny_artifacts


def read_meta(artifact: Path) -> dict:
    return json.loads(meta_path(artifact).read_text(encoding="utf-8"))


def test_tiny_model_files_and_tokenizer(tiny) -> None:
    from transformers import AutoTokenizer

    meta = json.loads((tiny.hf_dir / "meta.json").read_text())
    assert meta["arch"] == "qwen3"
    assert 50_000 < meta["params"] < 200_000
    tok = AutoTokenizer.from_pretrained(tiny.hf_dir)
    assert tok.eos_token == "<|im_end|>"
    ids = tok.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                  add_generation_prompt=True)
    assert ids == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    text = "module tb;\n  initial $finish;\nendmodule\n"
    assert tok.decode(tok(text)["input_ids"]) == text  # byte-level: lossless


def test_tokenizer_is_deterministic() -> None:
    from training.sft.tiny import make_tokenizer

    assert make_tokenizer(seed=0).get_vocab() == make_tokenizer(seed=0).get_vocab()


def test_gguf_metadata(tiny) -> None:
    from gguf import GGUFReader

    fields = GGUFReader(str(tiny.f32)).fields
    assert fields["general.architecture"].contents() == "qwen3"
    assert fields["tokenizer.ggml.pre"].contents() == "gpt-2"  # the pre-tokenizer patch
    assert fields["tokenizer.ggml.eos_token_id"].contents() == 2
    assert "<|im_start|>" in fields["tokenizer.chat_template"].contents()


def test_convert_meta(tiny) -> None:
    meta = read_meta(tiny.f32)
    assert meta["stage"] == "convert"
    assert meta["quantization"] == "F32"
    assert meta["base_model"] == "tiny-qwen3-h64-l2"
    assert meta["inputs_sha256"]["model.safetensors"] == sha256_file(tiny.hf_dir / "model.safetensors")
    assert meta["sha256"] == sha256_file(tiny.f32)
    assert meta["size_bytes"] == tiny.f32.stat().st_size


def test_convert_f16_and_quantize(tiny, tmp_path: Path) -> None:
    import llama_cpp

    f16 = convert_to_gguf(tiny.hf_dir, tmp_path / "tiny-f16.gguf", outtype="f16")
    q4 = quantize(f16, tmp_path / "tiny-Q4_K_M.gguf", "Q4_K_M", nthread=1)
    sizes = {p.name: p.stat().st_size for p in (tiny.f32, f16, tiny.q8_0, q4)}
    assert sizes["tiny-f32.gguf"] > sizes["tiny-f16.gguf"] > sizes["tiny-Q8_0.gguf"] > sizes["tiny-Q4_K_M.gguf"]
    meta = read_meta(q4)
    assert meta["quantization"] == "Q4_K_M"
    assert meta["stage"] == "quantize"
    assert meta["base_model"] == "tiny-qwen3-h64-l2"
    assert meta["inputs_sha256"] == {"tiny-f16.gguf": sha256_file(f16)}
    llm = llama_cpp.Llama(model_path=str(q4), n_ctx=128, n_threads=1, verbose=False)
    try:
        out = llm.create_completion("module", max_tokens=4, temperature=0.0)
    finally:
        llm.close()
    assert out["usage"]["completion_tokens"] > 0


def test_parity_hf_vs_gguf(tiny) -> None:
    import torch

    torch.set_num_threads(1)
    result = check_parity(tiny.hf_dir, tiny.f32)
    assert result["tokens_equal"]
    assert result["n_tokens"] > 20
    assert result["max_logit_diff"] < 1e-3
    assert result["argmax_equal"]
    assert read_meta(tiny.f32)["parity"]["max_logit_diff"] == result["max_logit_diff"]


def test_convert_rejects_non_model(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"no config\.json"):
        convert_to_gguf(tmp_path, tmp_path / "x.gguf")


def test_convert_rejects_outtype(tiny, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="outtype 'q4'"):
        convert_to_gguf(tiny.hf_dir, tmp_path / "x.gguf", outtype="q4")


def test_missing_converter_names_env_var(tiny, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONVERT_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(ExportError, match=CONVERT_ENV):
        convert_to_gguf(tiny.hf_dir, tmp_path / "x.gguf")


def test_converter_failure_is_reported(tiny, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text('{"architectures": ["NoSuchModelForCausalLM"]}')
    with pytest.raises(ExportError, match=r"converter failed \(exit"):
        convert_to_gguf(broken, tmp_path / "x.gguf")


def test_quantize_errors(tiny, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="qtype 'Q3'"):
        quantize(tiny.f32, tmp_path / "x.gguf", "Q3")
    with pytest.raises(ExportError, match="not found"):
        quantize(tmp_path / "missing.gguf", tmp_path / "x.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + bytes(100))
    with pytest.raises(ExportError, match="returned"):
        quantize(bad, tmp_path / "x.gguf")
