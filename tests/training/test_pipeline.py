"""The tiny pipeline end to end with a few steps: data -> stage 0 -> SFT -> GGUF -> sampling ->
stage 1 -> SFT -> GGUF -> eval, on two public designs (needs Verilator, torch, llama_cpp)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT.parent / "shared" / "benchmarks" / "public"
TRAIN = ["cvdp__gray_to_binary", "verilogeval__lfsr32"]
HELD = "cocotb__adder"


pytestmark = [
    pytest.mark.simulator_required,
    pytest.mark.skipif(not SUITE.is_dir(), reason="public benchmark suite not present"),
]

OVERRIDES = [
    f"data.suites=[{json.dumps(str(SUITE))}]", f"data.include={json.dumps(TRAIN)}", f'data.held_out=["{HELD}"]',
    'stage0.modes=["direct"]', "stage0.max_sim_calls=4", "stage1.max_sim_calls=4",
    "sample.refinements=0", "model.hidden=64", "sft.max_steps=2", "sft.lora_r=8", "sft.lora_alpha=16",
    # 48 tokens never close the code block: the student's states are all format errors.
    "pipeline.student_max_tokens=48", "pipeline.student_n_ctx=12288", "pipeline.workers=2",
    'eval.policies=["student"]', "eval.refinements=0", "eval.max_tokens=48", "eval.n_ctx=12288",
]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("peft")
    pytest.importorskip("llama_cpp")
    from training.cli import main

    out = tmp_path_factory.mktemp("tiny_run")
    stages = '["data", "stage0", "sft0", "export0", "sample1", "stage1", "sft1", "export1", "eval"]'
    rc = main(["pipeline", "--config", str(ROOT / "training" / "presets" / "tiny.toml"), "--out", str(out),
               "--set", f"pipeline.stages={stages}", *[arg for o in OVERRIDES for arg in ("--set", o)]])
    assert rc == 0
    return out


def test_counts_and_provenance(run_dir: Path) -> None:
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["stages"]["data"]["counts"]["train"] == 2
    s0 = summary["stages"]["stage0"]
    assert s0["candidates"] == 2
    assert s0["kept"] == 2  # the heuristic teacher covers >= 50 % of both
    records = [json.loads(x) for x in (run_dir / "stage0" / "data.jsonl").read_text().splitlines()]
    assert [m["role"] for m in records[0]["messages"]] == ["system", "user", "assistant"]
    assert records[0]["messages"][-1]["content"].startswith("filename: tb_")
    assert summary["stages"]["sft0"]["params_changed"]
    assert summary["stages"]["export0"]["parity_ok"]
    # the few-step student cannot close a code block in 48 tokens: every state is a format error,
    # the sampler keeps one per design and the heuristic teacher's fix from it is validated
    states = [json.loads(x) for x in (run_dir / "sample1" / "states.jsonl").read_text().splitlines()]
    assert len(states) == 2
    assert {s["status"] for s in states} == {"format_error"}
    assert summary["stages"]["sample1"]["selected"] == 2
    assert summary["stages"]["stage1"]["kept"] >= 1
    assert summary["stages"]["sft1"]["params_changed"]
    for d in ("data", "stage0", "sample1", "stage1", "sft0/merged", "sft0/adapter", "export0", "export1", "eval"):
        meta = json.loads((run_dir / d / "meta.json").read_text())
        assert meta["config"]["name"] == "tiny"
    gguf_meta = json.loads((run_dir / "export1" / "student-Q8_0.gguf.meta.json").read_text())
    assert gguf_meta["quantization"] == "Q8_0"
    comparison = json.loads((run_dir / "eval" / "comparison.json").read_text())
    assert comparison["student"]["summary"]["n"] == 1


def test_gguf_loads_as_the_llama_policy(run_dir: Path) -> None:
    from agent.policy import get_policy

    policy = get_policy("llama", model_path=str(run_dir / "export1" / "student-Q8_0.gguf"), n_ctx=4096,
                        n_threads=1, max_tokens=16)
    try:
        assert policy.name == "llama"
    finally:
        policy.close()  # type: ignore[attr-defined]


def test_stage1_fixes_a_broken_state(run_dir: Path) -> None:
    """A failing student state: the heuristic teacher's fix is validated and kept."""
    from training.cli import Run
    from training.config import load_config

    cfg = load_config(ROOT / "training" / "presets" / "tiny.toml", OVERRIDES)
    broken = "module tb_gray_to_binary;\n  gray_to_binary uut (.nope(1'b0));\n  initial $finish;\nendmodule\n"
    state = {"design": TRAIN[0], "key": f"{TRAIN[0]}/sample/s0/t0", "testbench": broken,
             "status": "compile_error", "overall": 0.0}
    (run_dir / "sample1" / "selected.jsonl").write_text(json.dumps(state) + "\n")
    report = Run(cfg, run_dir, 1, "").synth(1)
    assert report["kept"] == 1
    rec = json.loads((run_dir / "stage1" / "data.jsonl").read_text())
    assert "did not compile" in rec["messages"][1]["content"] or "compile" in rec["messages"][1]["content"]
    assert rec["gain"] > 0
