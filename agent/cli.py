"""`benchwright run` (one episode on one design) and `benchwright bench` (a suite)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from agent.fanout.options import add_fanout_args, fanout_options, fanout_requested
from sim.errors import SimError
from sim.project.init_cli import add_input_args, design_from_args
from sim.project.inputs import load_designs
from sim.project.manifest import is_manifest, read_manifest
from sim.suite import Design

POLICY_NAMES = ("heuristic", "random", "random-guided", "llama", "openai", "hybrid")
"""Policies selectable on the command line."""


def add_policy_args(p: argparse.ArgumentParser, extra: tuple[str, ...] = ()) -> None:
    """Options shared by run and bench that choose and configure the policy."""
    p.add_argument("--policy", default="heuristic", choices=(*POLICY_NAMES, *extra),
                   help="proposal source (default: %(default)s, the built-in engine; `hybrid`: a local model's "
                        "program seeds the engine's search, --model names it)")
    p.add_argument("--model", help="GGUF file or packaged short name such as smollm2-135m "
                   "(llama; `benchwright models` lists them), or model name (openai)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (openai)")
    p.add_argument("--threads", type=int, help="CPU threads for llama.cpp")
    p.add_argument("--ctx", type=int, default=8192, help="llama.cpp context size (default: %(default)s)")
    p.add_argument("--max-tokens", type=int, default=2048, help="max tokens per response (default: %(default)s)")
    p.add_argument("--llm-format", default="auto", choices=("auto", "program", "sv"),
                   help="what an LLM writes: `program` (a stimulus program under a per-design grammar; the "
                        "testbench is rendered from it, so every reply builds), `sv` (a complete SV testbench, "
                        "as LLM4Cov), or `auto`: program for models under 7B parameters or contexts under "
                        "16k tokens, else sv (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="refinement rounds after the first (default: %(default)s)")
    p.add_argument("--sim-calls", type=int, default=400, help="simulator-call budget (default: %(default)s)")
    p.add_argument("--wall", type=float, default=600.0, help="wall-time budget in seconds (default: %(default)s)")
    p.add_argument("--objective", default="coverage", choices=("coverage", "coverage+mutation"),
                   help="what the built-in engine keeps stimulus for: new coverage points, or also "
                        "newly killed mutants (default: %(default)s)")
    p.add_argument("--mutation", action="store_true",
                   help="also report the mutation score (kill ratio) of the resulting testbench(es)")
    p.add_argument("--mutants", type=int, default=60, help="most mutants per design (default: %(default)s)")
    p.add_argument("-v", "--verbose", action="store_true", help="log to stderr")


def policy_options(args: argparse.Namespace) -> dict[str, Any]:
    """Constructor options for the chosen policy from the parsed arguments."""
    if args.policy == "llama":
        if not args.model:
            raise SimError("--policy llama needs --model PATH (a GGUF file) or a short name (smollm2-135m)")
        return {"model_path": args.model, "n_ctx": args.ctx, "n_threads": args.threads,
                "max_tokens": args.max_tokens, "seed": args.seed, "format": args.llm_format}
    if args.policy == "hybrid":
        if not args.model:
            raise SimError("--policy hybrid needs --model PATH (a GGUF file) or a short name (smollm2-135m): "
                           "its programs seed the built-in engine's search")
        return {"model_path": args.model, "n_ctx": args.ctx, "n_threads": args.threads,
                "max_tokens": args.max_tokens, "seed": args.seed}
    if args.policy == "openai":
        return {"base_url": args.base_url, "model": args.model or "default", "max_tokens": args.max_tokens,
                "seed": args.seed, "format": args.llm_format}
    if args.policy in ("heuristic", "random", "random-guided"):
        return {"seed": args.seed, "objective": args.objective, "mutation_cap": args.mutants}
    return {}


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")


def build_run_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright run` (pure)."""
    p = argparse.ArgumentParser(prog="benchwright run", description="Generate and refine a testbench for one design.")
    add_input_args(p)
    p.add_argument("--out", type=Path, help="output folder (default: benchwright-out/<design>)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--target", type=float, help="coverage target in percent (default: the design's)")
    p.add_argument("--cocotb", action="store_true",
                   help="also write the equivalent cocotb test (built-in engine) and report its coverage")
    add_policy_args(p)
    return p


def run_main(argv: list[str]) -> int:
    """Entry point of `benchwright run`; exit 0 when the best testbench simulates."""
    args = build_run_parser().parse_args(argv)
    _setup_logging(args.verbose)
    from agent.loop import AgentConfig, run_episode
    from agent.policy import get_policy
    from agent.report import episode_json, episode_markdown

    try:
        design = design_from_args(args, "benchwright run")
        policy = get_policy(args.policy, **policy_options(args))
    except (SimError, ValueError, OSError) as exc:
        sys.stderr.write(f"benchwright run: {exc}\n")
        return 2
    out = args.out or Path("benchwright-out") / design.name
    cfg = AgentConfig(refinements=args.rounds, target=args.target, max_sim_calls=args.sim_calls,
                      wall_time_s=args.wall, trajectory_dir=out)

    def on_step(rec: Any, ep: Any) -> None:
        obs = rec.observation or {}
        cov = f"{obs['overall']:.2f}%" if obs.get("overall") is not None else obs.get("status", rec.format_error or "")
        sys.stderr.write(f"step {rec.step}: {cov}{' (new best)' if rec.accepted else ''} "
                         f"[{rec.sim_calls} sim calls, {sum(rec.timings.values()):.1f} s]\n")

    try:
        # A policy that fails (a model whose context cannot hold the design, an endpoint that is
        # down) ends the episode ERRORED: the report and the JSON say why, with what was reached.
        episode = run_episode(design, policy, cfg, on_step=None if args.json else on_step, reraise=False)
    except SimError as exc:
        sys.stderr.write(f"benchwright run: {exc}\n")
        return 2
    finally:
        close = getattr(policy, "close", None)
        if callable(close):
            close()
    tb_path = None
    out.mkdir(parents=True, exist_ok=True)
    if episode.best_testbench:
        tb_path = out / f"tb_{design.top}.sv"
        tb_path.write_text(episode.best_testbench)
    found = design_interfaces(design)
    (out / "report.md").write_text(episode_markdown(episode, tb_path, found))
    data = episode_json(episode, tb_path, found)
    if args.cocotb:
        data["cocotb"] = _write_cocotb(design, episode.best_companions, out)
    mutation_text = ""
    if args.mutation and episode.best_testbench:
        from sim.mutation.report import analyse_best

        data["mutation"], mutation_text = analyse_best(design, episode.best_testbench, out, args.mutants)
    (out / "result.json").write_text(json.dumps(data, indent=1))
    if args.json:
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
    else:
        sys.stdout.write(episode_markdown(episode, tb_path, found) + mutation_text)
    return 0 if data["status"] == "ok" else 1


def design_interfaces(design: Design) -> dict[str, Any]:
    """What the engine recognises on `design` (interfaces, unclaimed handshakes), or why it could not tell."""
    from agent.heuristic.engine import make_target
    from agent.program import iface_report
    from sim.analysis.interface import read_interface

    try:
        target, _hints = make_target(design, read_interface(design), "heuristic")
    except (SimError, ValueError, OSError) as exc:
        return {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    return {"found": iface_report.interface_rows(target.interfaces),
            "unrecognised_handshakes": iface_report.unrecognised_handshakes(target.layout, target.interfaces)}


def _write_cocotb(design: Design, companions: dict[str, str], out: Path) -> dict[str, Any]:
    """Write the cocotb rendering of the best stimulus and simulate it (it is untrusted: guarded).

    A rendering with checks in their recording form runs twice: once to record what the
    outputs did (`cocotb_checks.with_expected` writes it into the test), then the written test
    itself, whose coverage and checks are reported.
    """
    name = f"test_{design.top}.py"
    text = companions.get(name)
    if not text:
        return {"status": "none", "detail": "this policy produced no cocotb rendering"}
    from agent.program import cocotb_checks
    from agent.program import sv_checks as chk
    from sim.run.cocotb import evaluate_cocotb

    res = evaluate_cocotb(design, name[:-3], {name: text})
    note = ""
    if cocotb_checks.RECORDING in text:
        final = cocotb_checks.with_expected(text, res.log_tail) if res.status.value == "ok" else None
        if final is None:
            note = f"no checks: the recording run ended {res.status.value} without signatures"
        else:
            text = final
            res = evaluate_cocotb(design, name[:-3], {name: text})
    (out / name).write_text(text)
    cov, counted = res.coverage, chk.summary(res.log_tail)
    sys.stderr.write(f"cocotb test {out / name}: {res.status.value}"
                     f"{f', overall {cov.overall:.2f}%' if cov else ''}"
                     f"{f', {counted[0]} checks, {counted[1]} mismatches' if counted else ''} {res.detail} {note}\n")
    return {"status": res.status.value, "overall": round(cov.overall, 2) if cov else None,
            "metrics": cov.percents() if cov else {}, "path": str(out / name), "detail": res.detail,
            "checks": counted[0] if counted else 0, "mismatches": counted[1] if counted else 0,
            **({"checks_note": note} if note else {})}


def build_bench_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright bench` (pure)."""
    p = argparse.ArgumentParser(prog="benchwright bench", description="Score a policy (or the human tests) on a suite.")
    p.add_argument("suite", nargs="*", type=Path,
                   help="suite folder (one design folder each, design.toml optional), a manifest of repositories "
                        "(real.toml: [[design]] repo=, top=, target=, reference=), a design folder, or RTL files")
    p.add_argument("-f", "--filelist", type=Path, help="one design from an EDA filelist")
    p.add_argument("--top", default="", help="top module of an inferred design (default: inferred)")
    p.add_argument("--samples", type=int, default=1, help="episodes per design (default: %(default)s)")
    p.add_argument("--jobs", type=int, default=1, help="designs in parallel (default: %(default)s)")
    p.add_argument("--limit", type=int, help="only the first K designs")
    p.add_argument("--only", help="comma-separated design names")
    p.add_argument("--no-early-stop", action="store_true",
                   help="keep refining after a design meets its target (compare policies at full budget)")
    p.add_argument("--out", type=Path, default=Path("benchwright-out/bench"), help="output folder (default: %(default)s)")
    add_policy_args(p, extra=("human",))
    add_fanout_args(p)
    return p


def bench_main(argv: list[str]) -> int:
    """Entry point of `benchwright bench`."""
    args = build_bench_parser().parse_args(argv)
    _setup_logging(args.verbose)
    from agent.bench import BenchJob, run_bench

    try:
        suite = args.suite or ([] if args.filelist else [Path()])
        designs = load_designs(suite, args.filelist, args.top,
                               warn=lambda text: sys.stderr.write(f"benchwright bench: {text}\n"))
        references = {e.name: e.reference for e in read_manifest(suite[0])} \
            if len(suite) == 1 and is_manifest(suite[0]) else {}
        options = policy_options(args)
    except SimError as exc:
        sys.stderr.write(f"benchwright bench: {exc}\n")
        return 2
    if args.policy == "human":
        designs = [d for d in designs if d.human_test is not None]
    if args.only:
        wanted = set(args.only.split(","))
        designs = [d for d in designs if d.name in wanted]
    if args.limit:
        designs = designs[: args.limit]
    jobs = [BenchJob(d, args.policy, options, args.samples, args.rounds, args.sim_calls, args.wall,
                     args.out / "designs", early_stop=not args.no_early_stop,
                     mutants=args.mutants if args.mutation else None, reference=references.get(d.name))
            for d in designs]
    if fanout_requested(args):  # --ray or --resume: agent.fanout's runner (rows kept as they finish)
        from agent.fanout.runner import run_designs

        try:
            bench = run_designs(jobs, args.out, fanout_options(args))
        except SimError as exc:  # no Ray cluster at --ray
            sys.stderr.write(f"benchwright bench: {exc}\n")
            return 2
    else:
        bench = run_bench(jobs, args.out, workers=args.jobs)
    s = bench["summary"]
    sys.stdout.write(f"{args.policy}: n={s['n']} Sim Pass {s['sim_pass']:.1f}% Cov Pass {s['cov_pass']:.1f}% "
                     f"Avg Cov {s['avg_cov']:.2f}% metrics {s['metrics']} wall {s['wall_s']:.0f}s "
                     f"(median {s['median_wall_s']:.1f}s) -> {args.out / 'bench.json'}\n")
    return 0
