"""Data stages: stage-0 curation, student state sampling, stage-1/2 corrective synthesis.

Every job below is a module-level function of one picklable job, so `training.fanout`
can run it in a process pool or on Ray; each returns plain data, and the stage drivers
(`run_stage0`, `run_sample`, `run_synth`) curate, write `data.jsonl` (chat records) and a
`meta.json` with the counts after each filter.

    benchwright train stage0 --config training/presets/tiny.toml --out runs/tiny
    benchwright train sample --stage 1 --config training/presets/tiny.toml --out runs/tiny
    benchwright train stage1 --config training/presets/tiny.toml --out runs/tiny --ray auto
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from training.data.curate import (
    Obs,
    write_curated,
)
from training.data.sampler import SampledState, select_all
from training.fanout import fan_out

logger = logging.getLogger(__name__)


# --- jobs (run in workers) ----------------------------------------------------------


@dataclass(frozen=True)
class PolicySpec:
    """A policy by registry name and constructor options (picklable)."""

    name: str
    """Registry name (`heuristic`, `llama`, `openai`, ...)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Constructor options."""

    def with_seed(self, seed: int) -> PolicySpec:
        """The same policy with another seed."""
        return PolicySpec(self.name, {**self.options, "seed": seed})


@dataclass(frozen=True)
class EpisodeJob:
    """One episode of a policy on one design (stage 0 and state sampling)."""

    design_dir: str
    """Design folder."""
    policy: PolicySpec
    """Who writes the testbenches."""
    key: str
    """Prefix of the candidate / state keys (`mode/sample`)."""
    refinements: int
    """Refinement rounds (0: direct mode)."""
    max_sim_calls: int
    """Simulator budget."""
    wall_time_s: float
    """Wall budget."""
    target: float | None = None
    """Target override."""
    limits: Any = None
    """agent.llm.prompting.PromptLimits for rendering non-LLM prompts (None: the defaults)."""
    compact: bool = False
    """Rewrite replay testbenches compactly in records (training.data.compact)."""
    fmt: str = "sv"
    """Record format: `sv` (the testbench is the answer) or `program` (its program is)."""


@dataclass(frozen=True)
class FixJob:
    """Corrective proposals from one sampled state (stages 1/2)."""

    design_dir: str
    """Design folder."""
    state_key: str
    """Key of the sampled state."""
    testbench: str
    """x_t of the state (re-simulated to recover o_t); '' for a format-error state."""
    policy: PolicySpec
    """Transition model (teacher in stage 1, student in stage 2)."""
    samples: int
    """Proposals (seeds policy.seed + k)."""
    max_sim_calls: int
    """Simulator budget per proposal."""
    wall_time_s: float
    """Wall budget per proposal."""
    target: float | None = 100.0
    """Target (100: a state already at its design's target still gets a fix)."""
    limits: Any = None
    """agent.llm.prompting.PromptLimits for rendering non-LLM prompts (None: the defaults)."""
    format_error: str = ""
    """For a format-error state: the parser's message the next prompt carries."""
    compact: bool = False
    """Rewrite replay testbenches compactly in records (training.data.compact)."""
    fmt: str = "sv"
    """Record format: `sv` or `program`."""
    max_reply_chars: int = 0
    """Program format: a fix whose reply is longer has no usable answer (0: no cap)."""


def _make_policy(spec: PolicySpec) -> Any:
    from agent.policy import get_policy

    return get_policy(spec.name, **spec.options)


def _close(policy: Any) -> None:
    close = getattr(policy, "close", None)
    if callable(close):
        close()


class ProgramRecords:
    """Program-format records of one design: prompts in program mode, programs as answers."""

    def __init__(self, design: Any, limits: Any, max_reply_chars: int = 0) -> None:
        from agent.heuristic.engine import make_target
        from agent.llm.program_grammar import program_grammar
        from agent.llm.program_prompting import ProgramPrompts
        from sim.analysis.interface import read_interface

        self.target, _ = make_target(design, read_interface(design), "heuristic")
        self.grammar = program_grammar(self.target)
        self.prompts = ProgramPrompts(self.target)
        self.limits = limits
        self.max_reply_chars = max_reply_chars

    def messages(self, design: Any, tb: str | None, result: Any, step: int, fmt_error: str | None) -> list[dict[str, str]]:
        """The program-mode prompt of a state."""
        from agent.llm.prompting import messages_for
        from agent.policy import State

        return messages_for(self.prompts, State(design, tb, result, step, fmt_error), self.limits)

    def answer(self, tb: str) -> tuple[str, str]:
        """(reply, program text) for a testbench we rendered, cut to what the grammar admits; ('', '') otherwise.

        With `max_reply_chars`, cut at a chapter to fit where it can; a longer reply is no answer.
        """
        from agent.llm.program_grammar import reply_text
        from agent.program.sv_read import parse_testbench
        from agent.program.text import canonical_program, format_program
        from training.data.programs import fit_to_grammar

        program = parse_testbench(tb, self.target)
        fitted = fit_to_grammar(canonical_program(program), self.grammar, self.max_reply_chars) \
            if program is not None else None
        if fitted is None:
            return "", ""
        text = format_program(fitted)
        reply = reply_text(text)
        if self.max_reply_chars > 0 and len(reply) > self.max_reply_chars:
            return "", ""
        return reply, text


def episode_candidates(design: Any, policy: Any, config: Any, key: str,
                       initial: tuple[str, Any] | None = None, limits: Any = None,
                       format_error: str | None = None, compact: bool = False,
                       fmt: str = "sv", max_reply_chars: int = 0) -> list[dict[str, Any]]:
    """Run one episode and return every step as a candidate transition (plain data).

    The prompt of each step is rebuilt from the state the loop showed the policy (the
    best-so-far testbench and its live SimResult), with the same renderer as inference;
    LLM policies report the exact messages they sent and those are used instead.
    With `compact`, replay testbenches (the heuristic teacher's) appear in the rebuilt
    prompt and in the assistant turn in their compact, equivalent form. With
    `fmt="program"` prompts are program-mode prompts and the answer is the program of the
    proposed testbench (cut to what the design's grammar admits; none for a testbench that
    is not a program).
    """
    from agent.llm.parse import FormatError
    from agent.llm.prompting import DEFAULT_LIMITS
    from agent.loop import run_episode
    from training.data.chat import assistant_turn, prompt_messages
    from training.data.compact import compact_or_same

    shown = compact_or_same if compact else (lambda text: text)

    limits = limits or DEFAULT_LIMITS
    programs = ProgramRecords(design, limits, max_reply_chars) if fmt == "program" else None
    prev_tb, prev_res = initial if initial is not None else (None, None)
    prev_fmt: str | None = format_error or None
    out: list[dict[str, Any]] = []

    def on_step(rec: Any, ep: Any) -> None:
        nonlocal prev_tb, prev_res, prev_fmt
        if programs is not None:
            messages = list(rec.messages) or programs.messages(design, prev_tb, prev_res, rec.step, prev_fmt)
        else:
            messages = list(rec.messages) or prompt_messages(design, shown(prev_tb), prev_res, rec.step, prev_fmt,
                                                             limits)
        assistant, tb = "", rec.testbench
        if tb.strip() and programs is not None:
            assistant, tb = programs.answer(tb)
        elif tb.strip():
            try:
                assistant = assistant_turn(shown(tb) or tb, design.top)
            except (FormatError, ValueError) as exc:
                logger.info("%s %s/t%d: unrenderable reply: %s", design.name, key, rec.step, exc)
                tb = ""
        out.append({
            "design": design.name, "key": f"{design.name}/{key}/t{rec.step}", "step": rec.step,
            "prev": _prev_json(prev_res),
            "new": _obs_json(rec.observation), "messages": messages, "assistant": assistant,
            "testbench": tb, "state_testbench": prev_tb, "format_error": rec.format_error or "",
            "proposed": rec.testbench,
        })
        prev_fmt = rec.format_error or (None if rec.testbench.strip() else "the response contained no testbench")
        if rec.accepted:
            prev_tb, prev_res = ep.best_testbench, ep.best_result

    try:
        run_episode(design, policy, config, on_step=on_step, initial=initial)
    except Exception as exc:  # a worker boundary: one bad episode must not end the stage
        logger.warning("%s %s: episode failed: %s", design.name, key, exc, exc_info=True)
        out.append({"design": design.name, "key": f"{design.name}/{key}/error", "error": f"{type(exc).__name__}: {exc}"})
    return out


def _prev_json(result: Any) -> dict[str, Any] | None:
    obs = Obs.from_result(result)
    return obs.to_json() if obs is not None else None


def _obs_json(observation: dict[str, Any] | None) -> dict[str, Any] | None:
    obs = Obs.from_json(observation)
    if obs is not None and obs.passing and observation and observation.get("overall") is None:
        obs = Obs("coverage_error")
    return obs.to_json() if obs is not None else None


def teacher_episode(job: EpisodeJob) -> list[dict[str, Any]]:
    """Worker: one teacher episode -> candidate transitions."""
    from agent.loop import AgentConfig
    from sim.suite import load_design

    design = load_design(Path(job.design_dir))
    policy = _make_policy(job.policy)
    cfg = AgentConfig(refinements=job.refinements, target=job.target, max_sim_calls=job.max_sim_calls,
                      wall_time_s=job.wall_time_s)
    try:
        return episode_candidates(design, policy, cfg, job.key, limits=job.limits, compact=job.compact, fmt=job.fmt)
    finally:
        _close(policy)


def student_rollout(job: EpisodeJob) -> list[dict[str, Any]]:
    """Worker: one student episode -> the states it visited (testbench + status + overall)."""
    cands = teacher_episode(job)
    out: list[dict[str, Any]] = [c for c in cands if "error" in c]
    for c in cands:
        if "error" in c:
            continue
        if c["proposed"].strip() and c["new"] is not None:
            out.append({"design": c["design"], "key": c["key"], "testbench": c["proposed"],
                        "status": c["new"]["status"], "overall": c["new"]["overall"]})
        elif c["format_error"]:
            # An unparseable reply is a failing state too: the state the student is in is
            # "my last reply had the wrong shape", and the fix teaches it the shape.
            out.append({"design": c["design"], "key": c["key"], "testbench": "", "status": "format_error",
                        "overall": 0.0, "format_error": c["format_error"]})
    return out


def fix_state(job: FixJob) -> list[dict[str, Any]]:
    """Worker: re-simulate a sampled state, then `samples` one-step proposals from it."""
    from agent.loop import AgentConfig
    from sim.run.evaluate import evaluate_sv
    from sim.suite import load_design

    design = load_design(Path(job.design_dir))
    initial = None
    if job.testbench.strip():
        initial = (job.testbench, evaluate_sv(design, job.testbench, tb_name=f"tb_{design.top}.sv"))
    out: list[dict[str, Any]] = []
    base_seed = int(job.policy.options.get("seed", 0))
    for k in range(job.samples):
        policy = _make_policy(job.policy.with_seed(base_seed + k))
        cfg = AgentConfig(refinements=0, target=job.target, max_sim_calls=job.max_sim_calls,
                          wall_time_s=job.wall_time_s)
        try:
            out += episode_candidates(design, policy, cfg, f"{job.state_key.split('/', 1)[-1]}/fix{k}",
                                      initial=initial, limits=job.limits, format_error=job.format_error,
                                      compact=job.compact, fmt=job.fmt, max_reply_chars=job.max_reply_chars)
        finally:
            _close(policy)
    return out


# --- stage drivers --------------------------------------------------------------------


def teacher_spec(teacher: Any) -> PolicySpec:
    """The teacher policy of a `TeacherConfig`."""
    if teacher.policy == "openai":
        return PolicySpec("openai", {"base_url": teacher.base_url or None, "model": teacher.model or "default",
                                     "max_tokens": teacher.max_tokens, "temperature": teacher.temperature,
                                     "seed": teacher.seed})
    if teacher.policy == "llama":
        return PolicySpec("llama", {"model_path": teacher.model, "n_threads": 1, "max_tokens": teacher.max_tokens,
                                    "temperature": teacher.temperature, "seed": teacher.seed})
    return PolicySpec(teacher.policy, {"seed": teacher.seed})


def student_spec(gguf: Path, pipeline: Any, seed: int = 0, limits: Any = None, fmt: str = "sv") -> PolicySpec:
    """The student GGUF as a llama policy (sampling settings from `PipelineConfig`)."""
    options: dict[str, Any] = {"model_path": str(gguf), "n_ctx": pipeline.student_n_ctx, "n_threads": 1,
                               "max_tokens": pipeline.student_max_tokens,
                               "temperature": pipeline.student_temperature, "seed": seed, "format": fmt}
    if limits is not None:
        options["limits"] = limits
    return PolicySpec("llama", options)


def pick_designs(designs: list[Any], limit: int, seed: int) -> list[Any]:
    """At most `limit` of the designs (0: all), drawn with `seed`, in name order."""
    if not limit or len(designs) <= limit:
        return designs
    import numpy as np

    picks = set(np.random.default_rng(seed).choice(len(designs), size=limit, replace=False).tolist())
    return [d for k, d in enumerate(designs) if k in picks]


def _designs(data_dir: Path) -> list[Any]:
    from sim.suite import load_suite

    return load_suite(data_dir / "train")


def run_stage0(cfg: Any, run_dir: Path, *, workers: int, ray: str = "") -> dict[str, Any]:
    """Stage 0: teacher trajectories (direct and agentic) on the training designs, curated."""
    from training.meta import write_dir_meta

    if cfg.prompt.format == "program":
        from training.data.programs import run_program_stage0

        return run_program_stage0(cfg, run_dir, workers=workers, ray=ray)
    t0 = time.monotonic()
    st = cfg.stage0
    spec = teacher_spec(cfg.teacher)
    # Each mode gets its own seeds: a deterministic teacher would otherwise repeat itself.
    jobs = [EpisodeJob(str(d.root), spec.with_seed(cfg.teacher.seed + 1000 * m + k), f"{mode}/s{k}",
                       0 if mode == "direct" else st.refinements, st.max_sim_calls, st.wall_time_s, st.target,
                       cfg.prompt.limits(), cfg.prompt.compact_targets)
            for d in _designs(run_dir / "data") for m, mode in enumerate(st.modes) for k in range(st.samples)]
    raw = [c for part in fan_out(teacher_episode, jobs, workers=workers, ray_address=ray) for c in part]
    out = run_dir / "stage0"
    report = write_curated(raw, out, "stage0", st.min_gain, st.floor)
    report["seconds"] = round(time.monotonic() - t0, 1)
    report["teacher"] = {"name": spec.name, "options": spec.options}
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    write_dir_meta(out, "stage0", config=_cfg(cfg), inputs=[run_dir / "data" / "designs.json"], report=report)
    return report


def run_sample(cfg: Any, run_dir: Path, stage: int, gguf: Path, *, workers: int, ray: str = "") -> dict[str, Any]:
    """Student rollouts on the training designs, then worst-state-prioritized selection."""
    from training.meta import write_dir_meta

    t0 = time.monotonic()
    st = cfg.sample
    limits = cfg.prompt.limits()
    fmt = cfg.prompt.format
    jobs = [EpisodeJob(str(d.root), student_spec(gguf, cfg.pipeline, st.seed + k, limits, fmt), f"sample/s{k}",
                       st.refinements, st.max_sim_calls, st.wall_time_s, st.target, limits, fmt=fmt)
            for d in pick_designs(_designs(run_dir / "data"), st.max_designs, st.seed + stage)
            for k in range(st.samples)]
    rows = [s for part in fan_out(student_rollout, jobs, workers=workers, ray_address=ray) for s in part]
    errors = [r["error"] for r in rows if "error" in r]
    states = [SampledState(**r) for r in rows if "error" not in r]
    picks = select_all(states, seed=st.seed + 1000 * stage, margin=st.median_margin)
    out = run_dir / f"sample{stage}"
    out.mkdir(parents=True, exist_ok=True)
    with (out / "states.jsonl").open("w", encoding="utf-8") as fh:
        for s in states:
            fh.write(json.dumps(vars(s)) + "\n")
    selected = [s for group in picks.values() for s in group]
    with (out / "selected.jsonl").open("w", encoding="utf-8") as fh:
        for s in selected:
            fh.write(json.dumps(vars(s)) + "\n")
    report = {
        "stage": f"sample{stage}", "student": str(gguf), "episodes": len(jobs), "episodes_failed": len(errors),
        "errors": errors[:20], "states": len(states),
        "failing_states": sum(not s.passing for s in states), "passing_states": sum(s.passing for s in states),
        "designs_with_states": len(picks), "selected": len(selected),
        "selected_failing": sum(not s.passing for s in selected),
        "mean_overall_passing": round(sum(s.overall for s in states if s.passing) / max(1, sum(s.passing for s in states)), 2),
        "seconds": round(time.monotonic() - t0, 1),
    }
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    write_dir_meta(out, f"sample{stage}", config=_cfg(cfg), inputs=[gguf], report=report)
    return report


def run_synth(cfg: Any, run_dir: Path, stage: int, policy: PolicySpec, *, workers: int,
              ray: str = "") -> dict[str, Any]:
    """Stage 1 (teacher) / 2 (student): fixes from the selected states, curated."""
    from training.meta import write_dir_meta

    t0 = time.monotonic()
    st = cfg.stage1 if stage == 1 else cfg.stage2
    roots = {d.name: str(d.root) for d in _designs(run_dir / "data")}
    sel_path = run_dir / f"sample{stage}" / "selected.jsonl"
    selected = [json.loads(line) for line in sel_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    jobs = [FixJob(roots[s["design"]], s["key"], s["testbench"], policy.with_seed(st.seed), st.samples,
                   st.max_sim_calls, st.wall_time_s, st.target, cfg.prompt.limits(), s.get("format_error", ""),
                   cfg.prompt.compact_targets, fmt=cfg.prompt.format, max_reply_chars=st.max_reply_chars)
            for s in selected if s["design"] in roots]
    raw = [c for part in fan_out(fix_state, jobs, workers=workers, ray_address=ray) for c in part]
    out = run_dir / f"stage{stage}"
    report = write_curated(raw, out, f"stage{stage}", st.min_gain, st.floor, per_design=st.per_design)
    report.update(seconds=round(time.monotonic() - t0, 1), states=len(jobs),
                  policy={"name": policy.name, "options": {k: v if isinstance(v, str | int | float | None) else repr(v)
                                                           for k, v in policy.options.items()}})
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    write_dir_meta(out, f"stage{stage}", config=_cfg(cfg), inputs=[sel_path], report=report)
    return report


def _cfg(cfg: Any) -> dict[str, Any]:
    from training.config import to_dict

    return to_dict(cfg)
