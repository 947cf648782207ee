r"""`benchwright train <stage>`: the offline pipeline, one command per stage, each with --config.

Stage outputs live in fixed folders of one run directory (`--out`), each with a meta.json:
data/ (train + heldout suites), stage0/, sft0/, export0/, sample1/, stage1/, sft1/,
export1/, sample2/, stage2/, sft2/, export2/, eval/, and summary.json for the pipeline.

    # CPU, whole tiny pipeline (heuristic teacher, tiny student), then use the model
    benchwright train pipeline --config training/presets/tiny.toml --out runs/tiny
    benchwright run ../shared/benchmarks/public/cvdp__gray_to_binary --policy llama \\
        --model runs/tiny/export2/student-Q8_0.gguf
    # one stage at a time; simulations on a Ray cluster
    benchwright train data   --config training/presets/qwen3-4b.toml --out runs/q4b
    benchwright train stage0 --config training/presets/qwen3-4b.toml --out runs/q4b --ray auto
    benchwright train sft --stage 0 --config training/presets/qwen3-4b.toml --out runs/q4b --dry-run
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger("training")

STAGES = ("data", "stage0", "sample", "stage1", "stage2", "sft", "export", "eval", "pipeline")
"""Subcommands."""


def build_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright train` (pure)."""
    p = argparse.ArgumentParser(prog="benchwright train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=STAGES, help="stage to run")
    p.add_argument("--config", type=Path, required=True, help="preset TOML (training/presets/*.toml)")
    p.add_argument("--out", type=Path, required=True, help="run directory (every stage reads/writes here)")
    p.add_argument("--stage", type=int, default=None, help="sft/export: 0, 1 or 2; sample: 1 or 2")
    p.add_argument("--model", type=Path, help="eval/sample: GGUF to use instead of the run's latest export")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override a config value (TOML syntax), repeatable")
    p.add_argument("--ray", default=None, help="Ray address for simulations (`auto`, `ray://h:10001`, `local`)")
    p.add_argument("--workers", type=int, default=None, help="local process-pool size (default: pipeline.workers)")
    p.add_argument("--from", dest="from_stage", help="pipeline: start at this stage (e.g. sft1)")
    p.add_argument("--until", help="pipeline: stop after this stage")
    p.add_argument("--dry-run", action="store_true",
                   help="validate config, data and the SFT memory estimate without loading weights or simulating")
    p.add_argument("-v", "--verbose", action="store_true", help="log INFO to stderr")
    return p


# --- stage runners ------------------------------------------------------------------------


class Run:
    """One pipeline run: config, run directory, fan-out settings."""

    def __init__(self, cfg: Any, out: Path, workers: int, ray: str) -> None:
        self.cfg = cfg
        """The TrainConfig."""
        self.out = out
        """Run directory."""
        self.workers = workers
        """Process-pool size."""
        self.ray = ray
        """Ray address ('' for the pool)."""

    def cfg_dict(self) -> dict[str, Any]:
        """The config as plain data."""
        from training.config import to_dict

        return to_dict(self.cfg)

    def base_model(self) -> Path:
        """The student's base checkpoint (the tiny model is created on first use)."""
        if self.cfg.model.kind == "path":
            return Path(self.cfg.model.path)
        base = self.out / "base"
        if self.cfg.model.kind == "gguf":
            if not (base / "config.json").is_file():
                from training.sft.gguf_base import dequantize_to_hf

                dequantize_to_hf(self.cfg.model.gguf, base, threads=self.cfg.sft.threads)
            return base
        if not (base / "config.json").is_file():
            from training.sft.tiny import make_tiny_model

            m = self.cfg.model
            make_tiny_model(base, arch=m.arch, hidden=m.hidden, layers=m.layers, vocab_size=m.vocab_size, seed=m.seed)
        return base

    def gguf(self, stage: int) -> Path:
        """The quantized GGUF of export stage `stage`."""
        e = self.cfg.export
        path = self.out / f"export{stage}" / f"student-{e.qtype or e.outtype}.gguf"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no exported student for stage {stage} (run `export --stage {stage}`)")
        return path

    def latest_gguf(self) -> Path | None:
        """The newest exported student GGUF, if any."""
        for stage in (2, 1, 0):
            try:
                return self.gguf(stage)
            except FileNotFoundError:
                continue
        return None

    # each returns a small summary dict

    def data(self) -> dict[str, Any]:
        """Load, filter, split, decontaminate."""
        from training.data.designs import prepare
        from training.meta import write_dir_meta

        out = self.out / "data"
        report = prepare(self.cfg.data, out)
        write_dir_meta(out, "data", config=self.cfg_dict(), inputs=[], report=report.to_json())
        return {"counts": report.counts, "dropped": dict(report.dropped)}

    def stage0(self) -> dict[str, Any]:
        """Teacher trajectories, curated."""
        from training.data.synth import run_stage0

        return _brief(run_stage0(self.cfg, self.out, workers=self.workers, ray=self.ray))

    def sample(self, stage: int, model: Path | None = None) -> dict[str, Any]:
        """Student rollouts + worst-state selection."""
        from training.data.synth import run_sample

        return run_sample(self.cfg, self.out, stage, model or self.gguf(stage - 1), workers=self.workers,
                          ray=self.ray)

    def synth(self, stage: int, model: Path | None = None) -> dict[str, Any]:
        """Corrective transitions from the selected states."""
        from training.data.synth import run_synth, student_spec, teacher_spec

        if stage == 1:
            spec = teacher_spec(self.cfg.teacher)
        else:
            spec = student_spec(model or self.gguf(1), self.cfg.pipeline, limits=self.cfg.prompt.limits(),
                                fmt=self.cfg.prompt.format)
        return _brief(run_synth(self.cfg, self.out, stage, spec, workers=self.workers, ray=self.ray))

    def sft(self, stage: int, dry_run: bool = False) -> dict[str, Any]:
        """LoRA SFT of stage `stage` from the previous checkpoint."""
        from training.sft import train as sft

        data = [self.out / f"stage{stage}" / "data.jsonl"]
        if dry_run:
            return sft.dry_run(self.cfg.model, self.cfg.sft, data)
        base = self.base_model() if stage == 0 else self.out / f"sft{stage - 1}" / "merged"
        if not (base / "config.json").is_file():
            raise FileNotFoundError(f"{base}: no checkpoint to start stage {stage} from")
        summary = sft.train_stage(base, data, self.out / f"sft{stage}", self.cfg.sft, stage=f"sft{stage}",
                                  config=self.cfg_dict())
        return {k: summary.get(k) for k in ("examples", "dropped_too_long", "steps", "trained_tokens", "loss_first",
                                            "loss_last", "params_changed", "total_params", "skipped", "seconds")}

    def export(self, stage: int) -> dict[str, Any]:
        """GGUF + quantization + parity."""
        from training.export.model import export_model

        s = export_model(self.out / f"sft{stage}" / "merged", self.out / f"export{stage}", self.cfg.export,
                         config=self.cfg_dict())
        parity = s.get("parity") or {}
        return {"quantized": s["quantized"], "quantized_bytes": s["quantized_bytes"], "gguf_bytes": s["gguf_bytes"],
                "parity_ok": s.get("parity_ok"), "max_logit_diff": parity.get("max_logit_diff"),
                "tokens_equal": parity.get("tokens_equal")}

    def eval(self, model: Path | None = None) -> dict[str, Any]:
        """Student vs teacher on the held-out split."""
        from training.evaluate import run_eval

        data = run_eval(self.cfg, self.out, model or self.latest_gguf())
        return {k: v["summary"] for k, v in data.items() if isinstance(v, dict)}


def _brief(report: dict[str, Any]) -> dict[str, Any]:
    keep = ("candidates", "designs", "kept", "episodes_failed", "reasons", "after_each_rule", "states", "mean_overall_kept", "seconds")
    return {k: report[k] for k in keep if k in report}


def run_named(run: Run, name: str, model: Path | None = None) -> dict[str, Any]:
    """Run a pipeline stage by its name (`sft1`, `export2`, `sample1`, ...)."""
    if name in ("data", "stage0", "eval"):
        return run.eval(model) if name == "eval" else getattr(run, name)()
    for prefix in ("sample", "stage", "sft", "export"):
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            n = int(name[len(prefix):])
            if prefix == "sample":
                return run.sample(n, model)
            if prefix == "stage":
                return run.synth(n, model)
            return run.sft(n) if prefix == "sft" else run.export(n)
    raise ValueError(f"unknown pipeline stage {name!r}")


def pipeline(run: Run, stages: list[str], dry_run: bool = False) -> dict[str, Any]:
    """Run stages in order, timing each; write summary.json after every stage."""
    summary: dict[str, Any] = {"config": run.cfg.source, "stages": {}, "seconds": {}}
    path = run.out / "summary.json"
    if path.is_file():
        old = json.loads(path.read_text(encoding="utf-8"))
        summary["stages"], summary["seconds"] = old.get("stages", {}), old.get("seconds", {})
    t_all = time.monotonic()
    if dry_run:
        summary["dry_run"] = {"data": run.data()}
        for n in range(3):
            summary["dry_run"][f"sft{n}"] = run.sft(n, dry_run=True)
        acc = Path(__file__).parent / "presets" / "accelerate_multigpu.yaml"
        summary["dry_run"]["accelerate_config"] = str(acc) if acc.is_file() else "missing"
        return summary
    for name in stages:
        t0 = time.monotonic()
        logger.info("=== %s", name)
        summary["stages"][name] = run_named(run, name)
        summary["seconds"][name] = round(time.monotonic() - t0, 1)
        logger.info("%s done in %.1f s: %s", name, summary["seconds"][name], json.dumps(summary["stages"][name]))
        path.write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    summary["total_seconds"] = round(time.monotonic() - t_all, 1)
    final = run.latest_gguf()
    if final is not None:
        summary["student_gguf"] = str(final)
        summary["student_gguf_bytes"] = final.stat().st_size
    base = run.out / "base" / "meta.json"
    if base.is_file():
        summary["student_params"] = json.loads(base.read_text(encoding="utf-8")).get("params")
    path.write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    return summary


def _select(stages: list[str], start: str | None, until: str | None) -> list[str]:
    for name in (start, until):
        if name is not None and name not in stages:
            raise ValueError(f"stage {name!r} is not in pipeline.stages {stages}")
    i = stages.index(start) if start else 0
    j = stages.index(until) + 1 if until else len(stages)
    return stages[i:j]


def main(argv: list[str] | None = None) -> int:
    """Entry point of `benchwright train`."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from training.config import ConfigError, load_config, log_config

    try:
        cfg = load_config(args.config, args.overrides)
    except ConfigError as exc:
        sys.stderr.write(f"benchwright train: {exc}\n")
        return 2
    log_config(cfg)
    args.out.mkdir(parents=True, exist_ok=True)
    run = Run(cfg, args.out.resolve(), args.workers or cfg.pipeline.workers,
              cfg.pipeline.ray if args.ray is None else args.ray)
    needs_stage = {"sft": (0, 1, 2), "export": (0, 1, 2), "sample": (1, 2)}
    if args.command in needs_stage and args.stage not in needs_stage[args.command]:
        sys.stderr.write(f"benchwright train {args.command}: --stage must be one of {needs_stage[args.command]}\n")
        return 2
    try:
        if args.command == "pipeline":
            result = pipeline(run, _select(list(cfg.pipeline.stages), args.from_stage, args.until), args.dry_run)
        elif args.command == "sft":
            result = run.sft(args.stage, dry_run=args.dry_run)
        elif args.command == "export":
            result = run.export(args.stage)
        elif args.command == "sample":
            result = run.sample(args.stage, args.model)
        elif args.command in ("stage1", "stage2"):
            result = run.synth(int(args.command[-1]), args.model)
        elif args.command == "eval":
            result = run.eval(args.model)
        else:
            result = getattr(run, args.command)()
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        logger.debug("%s failed", args.command, exc_info=True)
        sys.stderr.write(f"benchwright train {args.command}: {exc}\n")
        return 1
    sys.stdout.write(json.dumps(result, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
