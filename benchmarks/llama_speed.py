"""LlamaPolicy overhead and prefix-cache benefit, measured on one GGUF and one design.

1. tokens/s of `LlamaPolicy.propose` (render + context fitting + completion + parse) vs
   `llama_cpp.Llama.create_chat_completion` called directly on the same model and prompt,
   with and without the grammar;
2. wall time of 4 agentic rounds (initial, improve coverage, fix compile, fix run) with the
   prefix KV cache kept between rounds, with it dropped (`cache=False`), and with
   llama-cpp-python's LlamaRAMCache on top.

Without --model it builds a tiny random model (no download) and converts it to Q8_0.

    python benchmarks/llama_speed.py                              # tiny h256/l4 model
    python benchmarks/llama_speed.py --model qwen3-4b-Q4_K_M.gguf --threads 8
    python benchmarks/llama_speed.py --model smollm2-135m --threads 1   # packaged short name
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from agent.llm.llama_backend import max_tokens_guard
from agent.llm.models import resolve_model
from agent.llm.policy import LlamaPolicy
from agent.llm.prompting import render_messages
from agent.policy import Budget, State
from sim.suite import Design, load_design
from sim.types import (
    CoverageSummary,
    Message,
    MetricSummary,
    SimResult,
    Status,
    UncoveredPoint,
)

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DESIGN = REPO.parent / "shared" / "benchmarks" / "public" / "forencich__uart_tx"


def build_tiny(hidden: int, layers: int, workdir: Path) -> Path:
    """A tiny random model as Q8_0 GGUF."""
    import torch

    from training.export.gguf import convert_to_gguf, quantize
    from training.sft.tiny import make_tiny_model

    torch.set_num_threads(1)
    hf = make_tiny_model(workdir / "hf", hidden=hidden, layers=layers)
    f16 = convert_to_gguf(hf, workdir / "tiny-f16.gguf", "f16")
    return quantize(f16, workdir / "tiny-Q8_0.gguf", "Q8_0")


def example_testbench(design: Design) -> str:
    """A plausible current testbench for the follow-up rounds (about 40 lines)."""
    lines = [f"module tb_{design.top};", "  logic clk = 0, rst = 1;", "  always #5 clk = ~clk;",
             f"  {design.top} {design.dut_instance} (.clk(clk), .rst(rst));", "  initial begin"]
    lines += [f"    @(posedge clk); // step {i}: drive inputs" for i in range(32)]
    lines += ["    $finish;", "  end", "endmodule"]
    return "\n".join(lines) + "\n"


def round_states(design: Design) -> list[State]:
    """s0..s3: initial, ok with holes, compile error, timeout."""
    tb = example_testbench(design)
    rtl = str(design.rtl[-1])
    holes = tuple(UncoveredPoint("branch" if i % 3 else "line", rtl, 10 + i, "if", "if (x) y <= z;")
                  for i in range(30))
    cov = CoverageSummary({"line": MetricSummary(40, 50), "branch": MetricSummary(20, 30),
                           "toggle": MetricSummary(100, 160)})
    return [
        State(design),
        State(design, tb, SimResult(Status.OK, coverage=cov, uncovered=holes), 1),
        State(design, tb, SimResult(Status.COMPILE_ERROR, messages=(
            Message("tb.sv", 7, 3, "error", "", "syntax error, unexpected ')'"),)), 2),
        State(design, tb, SimResult(Status.TIMEOUT, log_tail="tick\n" * 40, detail="no $finish"), 3),
    ]


def budget() -> Budget:
    """A budget that never runs out during the benchmark."""
    return Budget(sim_calls=100, deadline=time.monotonic() + 3600)


def throughput(model: Path, design: Design, args: argparse.Namespace) -> dict[str, Any]:
    """Completion tokens/s, direct llama_cpp vs LlamaPolicy (without and with grammar).

    Every variant keeps its KV cache, and a first untimed call puts the prompt in it, so
    the timed calls measure generation plus each path's own overhead (prompt rendering,
    context fitting, parsing for the policy), not prompt evaluation.
    """
    import llama_cpp

    state = State(design)
    messages = render_messages(state)
    direct = llama_cpp.Llama(model_path=str(model), n_ctx=args.n_ctx, n_threads=args.threads,
                             verbose=False)

    prompt_tokens = [0]

    def call_direct() -> tuple[int, float]:
        t0 = time.perf_counter()
        # The guard is the workaround any caller needs for llama-cpp-python's skipped
        # max_tokens check (see max_tokens_guard); it costs nothing measurable.
        out = direct.create_chat_completion(
            messages=messages, max_tokens=args.max_tokens, temperature=0.0, seed=0,
            logits_processor=max_tokens_guard(args.max_tokens, direct.token_eos()))
        prompt_tokens[0] = out["usage"]["prompt_tokens"]
        return out["usage"]["completion_tokens"], time.perf_counter() - t0

    policies = {
        "policy": LlamaPolicy(model, n_ctx=args.n_ctx, n_threads=args.threads,
                              max_tokens=args.max_tokens, temperature=0.0, use_grammar=False),
        "policy_grammar": LlamaPolicy(model, n_ctx=args.n_ctx, n_threads=args.threads,
                                      max_tokens=args.max_tokens, temperature=0.0),
    }

    def call_policy(name: str) -> tuple[int, float]:
        t0 = time.perf_counter()
        usage = policies[name].propose(state, budget()).usage
        return usage["completion_tokens"], time.perf_counter() - t0

    calls = {"direct": call_direct, **{n: (lambda n=n: call_policy(n)) for n in policies}}
    for call in calls.values():
        call()  # warm-up: evaluates the prompt once
    rates: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(args.repeats):  # interleaved, so machine noise hits every variant alike
        for name, call in calls.items():
            tokens, seconds = call()
            rates[name].append(tokens / seconds)
    direct.close()
    for policy in policies.values():
        policy.close()
    med = {k: statistics.median(v) for k, v in rates.items()}

    def paired(name: str) -> float:
        # Median of per-iteration ratios: robust to load that drifts during the run.
        return round(statistics.median(a / b for a, b in zip(rates[name], rates["direct"], strict=True)), 3)

    return {"tokens_per_s": {k: round(v, 1) for k, v in med.items()},
            "ratio_policy_vs_direct": paired("policy"),
            "ratio_policy_grammar_vs_direct": paired("policy_grammar"),
            "max_tokens": args.max_tokens, "prompt_tokens": prompt_tokens[0]}


def rounds(model: Path, design: Design, args: argparse.Namespace) -> dict[str, Any]:
    """Wall time of 4 rounds with the prefix cache, without it, and with LlamaRAMCache."""
    variants = {"prefix_cache": {"cache": True}, "no_cache": {"cache": False},
                "ram_cache": {"cache": True, "ram_cache_bytes": 2 << 30}}
    results: dict[str, Any] = {}
    states = round_states(design)
    for name, options in variants.items():
        walls = []
        for _ in range(args.round_repeats):
            policy = LlamaPolicy(model, n_ctx=args.n_ctx, n_threads=args.threads,
                                 max_tokens=args.round_tokens, temperature=0.0, **options)
            t0 = time.perf_counter()
            usages = [policy.propose(s, budget()).usage for s in states]
            walls.append(time.perf_counter() - t0)
            policy.close()
        results[name] = {
            "wall_s": round(statistics.median(walls), 3),
            "prompt_tokens": sum(u["prompt_tokens"] for u in usages),
            "cached_tokens": sum(u["cached_tokens"] for u in usages),
            "prompt_eval_tokens": int(sum(u["prompt_eval_tokens"] for u in usages)),
        }
    results["speedup_prefix_cache"] = round(results["no_cache"]["wall_s"] / results["prefix_cache"]["wall_s"], 2)
    return results


def main() -> None:
    """Run both measurements and print a JSON report."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="GGUF path or packaged short name (default: build a tiny one)")
    ap.add_argument("--design", type=Path, default=DEFAULT_DESIGN, help="design folder for the prompt")
    ap.add_argument("--hidden", type=int, default=256, help="tiny model hidden size")
    ap.add_argument("--layers", type=int, default=4, help="tiny model layers")
    ap.add_argument("--n-ctx", type=int, default=8192, help="context window")
    ap.add_argument("--threads", type=int, default=None, help="llama.cpp threads")
    ap.add_argument("--max-tokens", type=int, default=128, help="tokens per throughput completion")
    ap.add_argument("--round-tokens", type=int, default=64, help="tokens per agentic round")
    ap.add_argument("--repeats", type=int, default=5, help="repetitions (median reported)")
    ap.add_argument("--round-repeats", type=int, default=2, help="repetitions of the 4-round episode (0: skip)")
    ap.add_argument("--out", type=Path, help="also write the JSON report here")
    args = ap.parse_args()
    design = load_design(args.design)
    with tempfile.TemporaryDirectory() as tmp:
        model = resolve_model(args.model) if args.model else build_tiny(args.hidden, args.layers, Path(tmp))
        report = {"model": str(args.model or f"tiny qwen3 h{args.hidden} l{args.layers} Q8_0"),
                  "model_bytes": model.stat().st_size, "design": design.name,
                  "threads": args.threads, "n_ctx": args.n_ctx,
                  "throughput": throughput(model, design, args)}
        if args.round_repeats:
            report["rounds"] = rounds(model, design, args)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
