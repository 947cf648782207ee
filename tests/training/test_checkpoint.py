"""`benchwright export` on a real (tiny) local checkpoint, as a user converts a released one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_export_full_checkpoint_to_quantized_gguf(tmp_path: Path) -> None:
    import torch

    torch.set_num_threads(1)
    from training.sft.tiny import make_tiny_model

    model = make_tiny_model(tmp_path / "hf", hidden=64)
    out = tmp_path / "models" / "tiny-Q8_0.gguf"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-m", "benchwright.cli", "export", str(model), "--out", str(out),
                           "--qtype", "Q8_0", "--parity"], capture_output=True, text=True, env=env,
                          check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert out.is_file()
    assert out.read_bytes()[:4] == b"GGUF"
    from training.meta import meta_path

    assert meta_path(out).is_file()
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(out), n_ctx=128, n_threads=1, verbose=False)
    try:
        assert llm.n_vocab() > 100
    finally:
        llm.close()


def test_export_adapter_without_base_is_a_clear_error(tmp_path: Path) -> None:
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text("{}")
    proc = subprocess.run([sys.executable, "-m", "benchwright.cli", "export", str(adapter), "--out",
                           str(tmp_path / "x.gguf")], capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 2
    assert "--base" in proc.stderr
