"""Program-format stage 0: the built-in engine as the teacher, its programs as SFT targets.

One job per (design, seed): the engine searches within a simulator budget, and its final
program (cut to the longest prefix the design's grammar admits: what the student can ever
write) is the teacher's answer. The records are LLM4Cov transitions in program mode:

- `direct`: s_0 (the design, no program) -> the teacher's program;
- `refine`: an intermediate state (a prefix of the program: up to one of its chapters, each
  of which starts at a `reset`, or up to an operation spread over its length; run through
  the design's harness for its coverage holes) -> the teacher's program, which keeps that
  prefix and adds what reaches the holes.

The stage driver picks the intermediate states with worst-state-prioritized sampling
(`training.data.sampler`) over every seed's states of a design, then curates as stage 0
always does (compiles, gains, floor), keeping up to `per_design` records per design.
Observations come from the harness (one build per design, then a data file per program),
which covers exactly what the rendered testbench covers.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.data.curate import Obs
from training.data.sampler import SampledState, select_all
from training.fanout import fan_out

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProgramJob:
    """One teacher run on one design."""

    design_dir: str
    """Design folder."""
    seed: int
    """Engine seed."""
    key: str
    """Key prefix (`s0`, `s1`, ...)."""
    sim_calls: int
    """Teacher's simulator budget."""
    wall_time_s: float
    """Teacher's wall budget."""
    limits: Any = None
    """agent.llm.prompting.PromptLimits of the records' prompts."""
    search_pairs: int = 0
    """Refinement pairs taken from the run's own search (training.data.search_pairs; 0: none)."""
    prefix_states: bool = True
    """Offer prefixes of the final program as intermediate states."""
    max_reply_chars: int = 0
    """Records with a longer reply are dropped, the teacher's program cut at a chapter to fit
    where it can (0: no cap)."""
    min_gain: float = 1.0
    """Overall points a search child must add to its parent."""


MAX_STATES = 6
"""Intermediate states (prefixes) run per teacher program, before worst-state sampling."""


def chapter_starts(program: Any) -> list[int]:
    """Indexes of the operations after which a chapter ends (every later `reset`)."""
    return [i for i, o in enumerate(program.ops) if o.name == "reset" and i > 0]


def state_ends(program: Any, most: int = MAX_STATES) -> list[int]:
    """Lengths of the proper prefixes used as intermediate states: chapter ends first, then spread."""
    n = len(program.ops)
    spread = [round(n * k / (most + 1)) for k in range(1, most + 1)]
    ends = list(dict.fromkeys([*chapter_starts(program), *(e for e in spread if 0 < e < n)]))
    return sorted(ends[:most])


def fit_to_grammar(program: Any, grammar: Any, max_chars: int = 0) -> Any | None:
    """The longest prefix of `program` at a chapter boundary that the grammar admits (None: none).

    With `max_chars`, the longest such prefix whose reply is at most that long, when one is.
    """
    from agent.llm.program_grammar import reply_text
    from agent.program.ops import Program
    from agent.program.text import format_program

    admitted = None
    for end in [len(program.ops), *reversed(chapter_starts(program))]:
        prefix = Program(program.ops[:end])
        text = reply_text(format_program(prefix))
        if prefix.ops and grammar.admits(text):
            if max_chars <= 0 or len(text) <= max_chars:
                return prefix
            admitted = admitted or prefix
    return admitted


def _error(design: str, key: str, text: str) -> dict[str, Any]:
    return {"design": design, "key": f"{design}/{key}/error", "error": text}


def teacher_programs(job: ProgramJob) -> list[dict[str, Any]]:
    """Worker: one engine run -> candidate records (direct and refine) with their states."""
    from agent.heuristic.engine import make_target, run_engine
    from agent.llm.program_grammar import program_grammar, reply_text
    from agent.llm.program_prompting import ProgramPrompts
    from agent.llm.prompting import DEFAULT_LIMITS, messages_for
    from agent.policy import Budget, State
    from agent.program.encode import DATA_FILE, encode
    from agent.program.ops import Program
    from agent.program.sv import HARNESS_TOP, render_harness, render_testbench
    from agent.program.text import canonical_program, format_program
    from sim.analysis.interface import read_interface
    from sim.errors import SimError
    from sim.run.evaluate import build_sv
    from sim.suite import load_design
    from sim.types import SimResult

    design = load_design(Path(job.design_dir))
    limits = job.limits or DEFAULT_LIMITS
    try:
        target, _ = make_target(design, read_interface(design), "heuristic")
    except SimError as exc:
        return [_error(design.name, job.key, f"interface: {exc}")]
    budget = Budget(sim_calls=job.sim_calls, deadline=time.monotonic() + job.wall_time_s)
    ran: list[tuple[Program, SimResult]] = []
    try:
        _, report = run_engine(design, strategy="heuristic", budget=budget, seed=job.seed, verify=False,
                               on_trial=lambda program, result: ran.append((program, result)))
    except Exception as exc:  # a worker boundary: one bad design must not end the stage
        logger.warning("%s %s: engine failed: %s", design.name, job.key, exc, exc_info=True)
        return [_error(design.name, job.key, f"engine: {type(exc).__name__}: {exc}")]
    if report.search is None:
        return [_error(design.name, job.key, f"engine: {report.note}")]
    grammar = program_grammar(target)
    final = canonical_program(report.program)
    teacher = fit_to_grammar(final, grammar, job.max_reply_chars)
    if teacher is None:
        return [_error(design.name, job.key, "outside_grammar: no prefix of the teacher's program fits the grammar")]
    built = build_sv(design, render_harness(target), tb_name=f"{HARNESS_TOP}.sv")
    if isinstance(built, SimResult):
        return [_error(design.name, job.key, f"harness: {built.detail}")]

    def run(program: Program) -> SimResult:
        return built.run({DATA_FILE: encode(target, program)})

    prompts = ProgramPrompts(target)
    answer = reply_text(format_program(teacher))
    new = Obs.from_result(run(teacher))
    out: list[dict[str, Any]] = [{
        "design": design.name, "key": f"{design.name}/{job.key}/direct", "kind": "direct", "prev": None,
        "new": new.to_json() if new else None, "messages": messages_for(prompts, State(design), limits),
        "assistant": answer, "testbench": format_program(teacher), "cut": len(teacher.ops) < len(final.ops)}]
    for end in state_ends(teacher) if job.prefix_states else ():
        weak = Program(teacher.ops[:end])
        observed = run(weak)
        prev = Obs.from_result(observed)
        state = State(design, render_testbench(target, weak), observed, 1)
        out.append({
            "design": design.name, "key": f"{design.name}/{job.key}/upto{end}", "kind": "refine",
            "prev": prev.to_json() if prev else None, "new": new.to_json() if new else None,
            "messages": messages_for(prompts, state, limits), "assistant": answer,
            "testbench": format_program(teacher), "state_program": format_program(weak),
            "state_status": prev.status if prev else "none", "state_overall": prev.overall if prev else 0.0})
    if job.search_pairs > 0:
        try:
            out += search_records(design, target, grammar, prompts, limits, job, ran, run)
        except Exception:  # a worker boundary: the pairs are extra, the run's other records stay
            logger.warning("%s %s: search pairs failed", design.name, job.key, exc_info=True)
    if job.max_reply_chars > 0:
        out = [d for d in out if len(d["assistant"]) <= job.max_reply_chars]
    return out


def search_records(design: Any, target: Any, grammar: Any, prompts: Any, limits: Any, job: ProgramJob,
                   ran: list[tuple[Any, Any]], run: Any) -> list[dict[str, Any]]:
    """Refine records from the search's own (parent -> child) pairs, each target minimised.

    The parent and the child run again through the records' harness (what the prompt shows
    and what the record claims are this run's, not the search's); the child is cut to the
    shortest prefix that still covers all it covered (bisection, a few runs), and dropped
    when the grammar does not admit it.
    """
    from agent.heuristic.corpus import covered_keys
    from agent.llm.program_grammar import reply_text
    from agent.llm.prompting import messages_for
    from agent.policy import State
    from agent.program.ops import Program
    from agent.program.sv import render_testbench
    from agent.program.text import format_program
    from sim.types import Status
    from training.data.search_pairs import (
        Visit,
        common_prefix,
        search_pairs,
        shortest_covering_prefix,
    )

    def op_texts(program: Program) -> tuple[str, ...]:
        return tuple(format_program(Program((o,))).rstrip("\n") for o in program.ops)

    visits = [Visit(k, op_texts(p), covered_keys(r) if r.status == Status.OK else frozenset(),
                    r.overall if r.status == Status.OK and r.coverage is not None else 0.0,
                    r.status == Status.OK and r.coverage is not None)
              for k, (p, r) in enumerate(ran)]
    out: list[dict[str, Any]] = []
    for pair in search_pairs(visits, most=job.search_pairs, min_gain=job.min_gain):
        parent, child = ran[pair.parent.index][0], ran[pair.child.index][0]
        before, after = run(parent), run(child)
        if before.status != Status.OK or after.status != Status.OK:
            continue
        need = covered_keys(after)

        def covers(n: int, ops: tuple[Any, ...] = child.ops, need: frozenset[str] = need) -> bool:
            return covered_keys(run(Program(ops[:n]))) >= need

        n = shortest_covering_prefix(child.ops, common_prefix(pair.parent.ops, pair.child.ops) + 1, covers)
        answer_program = Program(child.ops[:n])
        answer = reply_text(format_program(answer_program))
        if not grammar.admits(answer):
            continue
        prev, new = Obs.from_result(before), Obs.from_result(after)
        state = State(design, render_testbench(target, parent), before, 1)
        out.append({
            "design": design.name, "key": f"{design.name}/{job.key}/search{pair.parent.index}-{pair.child.index}",
            "kind": "search", "prev": prev.to_json() if prev else None, "new": new.to_json() if new else None,
            "messages": messages_for(prompts, state, limits), "assistant": answer,
            "testbench": format_program(answer_program), "state_program": format_program(parent),
            "state_status": prev.status if prev else "none", "state_overall": prev.overall if prev else 0.0,
            "holes": len(before.uncovered), "cut_ops": len(child.ops) - n})
    return out


def select_refine(raw: list[dict[str, Any]], seed: int, margin: float) -> tuple[list[dict[str, Any]], int]:
    """Direct records, plus the refine records whose states worst-state sampling picks per design.

    Search states (`search`: a child that closes some of its parent's holes, minimised) are
    sampled per design first; prefix states (`refine`: a prefix of the final program, answered
    with all of it) only for designs whose search gave no pair (an engine that covers a design
    with its first program gives none). Returns (records, intermediate states offered).
    """
    picked: set[str] = set()
    covered: set[str] = set()
    offered = 0
    for kind in ("search", "refine"):
        refine = [d for d in raw if d.get("kind") == kind and d["design"] not in covered]
        offered += sum(1 for d in raw if d.get("kind") == kind)
        states = [SampledState(d["design"], d["key"], d["state_program"], d["state_status"], d["state_overall"])
                  for d in refine]
        groups = select_all(states, seed=seed, margin=margin)
        picked |= {s.key for group in groups.values() for s in group}
        covered |= {name for name, group in groups.items() if group}
    kept = [d for d in raw if d.get("kind") == "direct" or d["key"] in picked]
    return kept, offered


def run_program_stage0(cfg: Any, run_dir: Path, *, workers: int, ray: str = "") -> dict[str, Any]:
    """Stage 0 in program format: engine runs on every training design and seed, curated."""
    from sim.suite import load_suite
    from training.config import to_dict
    from training.data.curate import write_curated
    from training.meta import write_dir_meta

    t0 = time.monotonic()
    st = cfg.stage0
    jobs = [ProgramJob(str(d.root), cfg.teacher.seed + 1000 * k + 1, f"s{k}", st.max_sim_calls, st.wall_time_s,
                       cfg.prompt.limits(), search_pairs=st.search_pairs, prefix_states=st.prefix_states,
                       max_reply_chars=st.max_reply_chars, min_gain=st.min_gain)
            for d in load_suite(run_dir / "data" / "train") for k in range(st.samples)]
    raw = [c for part in fan_out(teacher_programs, jobs, workers=workers, ray_address=ray) for c in part]
    ok = [d for d in raw if "error" not in d]
    selected, offered = select_refine(ok, seed=st.seed, margin=st.median_margin)
    errors = [d for d in raw if "error" in d]
    out = run_dir / "stage0"
    report = write_curated([*selected, *errors], out, "stage0", st.min_gain, st.floor, per_design=st.per_design)
    report.update({
        "seconds": round(time.monotonic() - t0, 1), "format": "program", "jobs": len(jobs),
        "teacher": {"name": "heuristic", "sim_calls": st.max_sim_calls, "seeds": st.samples},
        "direct_candidates": sum(1 for d in ok if d["kind"] == "direct"),
        "intermediate_states": offered, "intermediate_selected": sum(1 for d in selected if d["kind"] == "refine"),
        "search_pairs": sum(1 for d in ok if d["kind"] == "search"),
        "search_selected": sum(1 for d in selected if d["kind"] == "search"),
        "reply_chars_max": max((len(d["assistant"]) for d in selected), default=0),
        "teacher_cut_to_grammar": sum(1 for d in ok if d["kind"] == "direct" and d.get("cut")),
        "error_kinds": _error_kinds(errors),
    })
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    write_dir_meta(out, "stage0", config=to_dict(cfg), inputs=[run_dir / "data" / "designs.json"], report=report)
    return report


def _error_kinds(errors: list[dict[str, Any]]) -> dict[str, int]:
    kinds: dict[str, int] = {}
    for e in errors:
        kind = str(e["error"]).split(":", 1)[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds
