"""`hybrid`: the model writes a program, the engine searches from it (a model-seeded search).

Each step asks the language model for a stimulus program (program mode, under the design's
grammar) and hands its chapters to the built-in engine as openings, played right after the
engine's own first one (one simulator call each, from the same budget: with a single trial
the engine plays its own, as it would alone); kept, they are parents like any other program,
and the search goes on from all of them. The proposal is the engine's testbench.
Its usage says what the model brought: the points the model's programs reached first (that
the state's testbench had not), the kept programs that are the model's and the points only
they cover, named; a point a child of a model program reached later is counted as the
engine's (the search keeps no lineage).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent.llm.completion import Backend, LLMError
from agent.llm.policy import LlamaPolicy, LLMPolicy
from agent.llm.prompting import DEFAULT_LIMITS, PromptLimits
from agent.policy import Budget, Proposal, State
from sim.run.coverage import CoveragePoint
from sim.run.evaluate import SimOptions
from sim.types import SimResult, Status

MAX_POINTS_LISTED = 20
"""Points from the model's programs named in the usage record (the count is always whole)."""


@dataclass(frozen=True)
class Attribution:
    """What the model's programs covered in one step, against the state and the final cover."""

    seeded: int
    """Programs the model contributed (its reply's chapters)."""
    first: frozenset[str]
    """Points the model's programs reached before any program run earlier in this step (the
    state's chapters, the engine's first opening); the engine may have reached them later."""
    only: frozenset[str]
    """Points of the final cover that only the model's kept programs cover (what the testbench
    would lose without them)."""
    engine: frozenset[str]
    """Points of the final cover that neither the state's testbench nor the model's programs reached."""
    kept_programs: int
    """The model's programs among the kept ones (the final testbench's chapters)."""
    names: dict[str, str]
    """Point key -> `file:line [kind] comment`, for the points above."""


def point_name(p: CoveragePoint) -> str:
    """A point as a person reads it: `traffic_light.sv:14 [toggle] walk:0->1`."""
    return f"{Path(p.file).name}:{p.line} [{p.kind}] {p.comment}"


def attribute(ran: Sequence[tuple[Any, SimResult]], state: Sequence[Any], seeds: Sequence[Any],
              kept: Sequence[tuple[str, frozenset[str]]], seed_label: str) -> Attribution:
    """Split the final cover's points by where they were reached (pure).

    `ran` is every (program, result) the engine ran, in order: the state's chapters (`state`),
    the engine's first opening, the seeds, then the search; `kept` is (label, covered points)
    of each kept program.
    """
    from agent.heuristic.corpus import covered_keys

    def union(programs: Sequence[Any]) -> frozenset[str]:
        return frozenset().union(*(covered_keys(r) for p, r in ran
                                   if r.status == Status.OK and any(p == q for q in programs)))

    before, model = union(state), union(seeds)
    seed_runs = [k for k, (p, _) in enumerate(ran) if any(p == q for q in seeds)]
    # Runs before the first seed's: the state's chapters and the engine's first opening.
    earlier = frozenset().union(*(covered_keys(r) for _, r in ran[:seed_runs[0]] if r.status == Status.OK)) \
        if seed_runs else model
    final = frozenset().union(*(keys for _, keys in kept))
    by_model = frozenset().union(*(keys for label, keys in kept if label == seed_label))
    by_others = frozenset().union(*(keys for label, keys in kept if label != seed_label))
    names = {p.key: point_name(p) for _, r in ran if r.report is not None for p in r.report.points}
    return Attribution(len(seeds), model - earlier, by_model - by_others, final - before - model,
                       sum(1 for label, _ in kept if label == seed_label), names)


class HybridPolicy:
    """A model-seeded engine search (`--policy hybrid`)."""

    name = "hybrid"
    """Registry name."""

    def __init__(self, model_path: str | None = None, *, model: str | None = None, n_ctx: int = 8192,
                 n_threads: int | None = None, max_tokens: int = 256, temperature: float = 0.2, seed: int = 0,
                 limits: PromptLimits = DEFAULT_LIMITS, sim_options: SimOptions | None = None,
                 backend: Backend | None = None, verbose: bool = False, **_options: Any) -> None:
        self.llm: LLMPolicy = (
            LLMPolicy(backend, max_tokens=max_tokens, temperature=temperature, seed=seed, limits=limits,
                      format="program") if backend is not None else
            LlamaPolicy(model_path, model=model, n_ctx=n_ctx, n_threads=n_threads, max_tokens=max_tokens,
                        temperature=temperature, seed=seed, limits=limits, verbose=verbose, format="program"))
        """The model, in program mode."""
        self.seed = seed
        """Base seed of the engine (mixed with the step, as the heuristic policy does)."""
        self.sim_options = sim_options or SimOptions()
        """Simulator options of the engine's harness."""
        self.last: Attribution | None = None
        """What the model brought in the latest step (tests, benches)."""

    def propose(self, state: State, budget: Budget) -> Proposal:
        """Ask the model for a program, then search from it within `budget`."""
        from agent.heuristic.corpus import chapters
        from agent.heuristic.engine import SEED_LABEL, run_engine
        from agent.heuristic.program_search import ProgramSearchConfig
        from agent.program.sv_read import parse_testbench

        try:
            asked = self.llm.propose(state, budget)
        except LLMError as exc:  # the engine still searches: a model that cannot answer only loses its seed
            asked = Proposal(testbench="", filename=f"tb_{state.design.top}.sv", format_error=f"model: {exc}",
                             usage={"format": "program", "model_error": str(exc)})
        target = self.llm.target(state.design)
        program = None
        if asked.format_error is None and asked.testbench:
            program = parse_testbench(asked.testbench, target)
        seeds = chapters(program) if program is not None and program.ops else ()
        previous = parse_testbench(state.testbench, target) if state.testbench else None
        seed = self.seed * 1000 + state.step
        ran: list[tuple[Any, SimResult]] = []
        tb, report = run_engine(
            state.design, strategy="heuristic", budget=budget, seed=seed,
            holes=state.result.uncovered if state.result is not None else (), options=self.sim_options,
            config=ProgramSearchConfig(seed=seed), previous=state.testbench, verify=False,
            on_trial=lambda p, r: ran.append((p, r)), seeds=seeds)
        search = report.search
        kept = [(e.label, e.covered) for e in search.entries] if search is not None else []
        got = self.last = attribute(ran, chapters(previous) if previous is not None else (), seeds, kept, SEED_LABEL)
        usage = {
            **asked.usage, "engine_trials": len(search.trials) if search else 0, "wall_s": round(report.wall_s, 3),
            "model_programs": got.seeded, "model_programs_kept": got.kept_programs,
            "model_points_first": len(got.first), "model_points_only": len(got.only), "engine_points": len(got.engine),
            "model_points_listed": sorted(got.names.get(k, k) for k in got.only)[:MAX_POINTS_LISTED],
            **({"model_format_error": asked.format_error} if asked.format_error else {}),
        }
        response = (f"{asked.response.strip()}\n\n--- engine, seeded with the model's program "
                    f"({got.seeded} chapter(s)) ---\n{report.summary()}\n"
                    f"the model's programs reached {len(got.first)} points first; {got.kept_programs} of them "
                    f"kept, covering {len(got.only)} points no other kept program covers; the engine's search "
                    f"reached {len(got.engine)} more")
        companions = {f"test_{state.design.top}.py": report.cocotb} if report.cocotb else {}
        return replace(asked, testbench=tb, response=response, sim_calls=report.sim_calls, usage=usage,
                       format_error=None, companions=companions)

    def close(self) -> None:
        """Release the model."""
        self.llm.close()
