"""The episode loop: memoryless single-step transitions judged by the simulator (DESIGN.md 1).

s_0 = (R, none, none). Each step the policy sees only the best-so-far state and returns a
complete new testbench; the evaluator observes it; the best state is kept by the ordering
compiles > has coverage > meets target > overall (ties go to the newer). One initial
generation plus up to N refinements; stop early at the target or 100 %.
"""

from __future__ import annotations

import enum
import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent.policy import Budget, Policy, Proposal, State
from agent.program.sv_checks import summary as checks_summary
from sim.run.evaluate import SimOptions, evaluate_sv
from sim.sandbox.outputs import write_output
from sim.sandbox.process import Cancel
from sim.suite import Design
from sim.types import SimResult, Status

logger = logging.getLogger(__name__)

TRAJECTORY_FORMAT = "benchwright.trajectory/1"
"""Version tag of the trajectory JSON (training/ reads these files)."""


class EpisodeStatus(enum.StrEnum):
    """How an episode ended."""

    RUNNING = "running"
    SUBMITTED = "submitted"
    """The target (or 100 %) was reached."""
    ROUNDS_DONE = "rounds_done"
    """All refinements were used without reaching the target."""
    LIMITS_EXCEEDED = "limits_exceeded"
    """The simulator-call or wall-time budget ran out."""
    CANCELLED = "cancelled"
    ERRORED = "errored"


@dataclass(frozen=True)
class AgentConfig:
    """Limits and knobs of one episode."""

    refinements: int = 3
    """Refinement steps after the initial generation (LLM4Cov uses 3)."""
    target: float | None = None
    """Coverage target in percent; None uses the design's target."""
    max_sim_calls: int = 400
    """Hard budget on simulator calls (policy-internal harness runs included)."""
    wall_time_s: float = 600.0
    """Hard budget on wall time; no new step starts after it."""
    early_stop: bool = True
    """Stop as soon as the target is met (False: keep refining until 100 % or the budget ends)."""
    max_consecutive_format_errors: int = 3
    """Stop after this many unparseable responses in a row."""
    trajectory_dir: Path | None = None
    """Where to write trajectory.json after every step (None: not written)."""
    sim: SimOptions = field(default_factory=SimOptions)
    """Evaluator options."""


def rank(result: SimResult | None, target: float) -> tuple[bool, bool, bool, float, bool]:
    """Sort key of a state's observation: compiles > has coverage > meets target > overall > checks something.

    The last: at equal coverage, a testbench whose run compared outputs with expected values
    (a `BW-CHECKS n checks` summary, n > 0) beats one that only drives stimulus (an engine
    round that had no call left to record its checks must not replace one that did).
    """
    if result is None:
        return (False, False, False, -1.0, False)
    compiles = result.status is not Status.COMPILE_ERROR
    has_cov = result.status is Status.OK and result.coverage is not None
    overall = result.overall if has_cov else 0.0
    counted = checks_summary(result.log_tail) if has_cov else None
    return (compiles, has_cov, has_cov and overall >= target, overall, bool(counted and counted[0] > 0))


def is_better(new: SimResult, old: SimResult | None, target: float) -> bool:
    """True when `new` should replace the best state (ties go to the newer)."""
    return rank(new, target) >= rank(old, target)


def done(result: SimResult | None, target: float) -> bool:
    """True when a result meets the target or reaches 100 %."""
    ranked = rank(result, target)
    return ranked[2] or (ranked[1] and ranked[3] >= 100.0 - 1e-9)


def observation_json(result: SimResult | None) -> dict[str, Any] | None:
    """A compact JSON form of an observation for trajectories."""
    if result is None:
        return None
    return {
        "status": result.status.value,
        "overall": round(result.overall, 3) if result.coverage else None,
        "metrics": result.coverage.percents() if result.coverage else {},
        "uncovered": [asdict(p) for p in result.uncovered[:200]],
        "messages": [asdict(m) for m in result.messages[:50]],
        "detail": result.detail,
        "log_tail": result.log_tail[-4000:],
        "build_s": round(result.build_s, 3),
        "run_s": round(result.run_s, 3),
        "notes": list(result.notes),
    }


@dataclass
class StepRecord:
    """One transition: the state the policy saw, what it said, what the simulator saw."""

    step: int
    """0 for the initial generation."""
    state_testbench: str | None
    """x_t the policy was shown."""
    state_observation: dict[str, Any] | None
    """o_t the policy was shown."""
    messages: list[dict[str, str]]
    """Prompt messages (LLM policies)."""
    response: str
    """Raw response / engine summary."""
    testbench: str
    """x_{t+1} (may be '' on a format error)."""
    format_error: str | None
    """Parse failure message, if any."""
    observation: dict[str, Any] | None
    """o_{t+1}."""
    accepted: bool
    """Whether it became the new best state."""
    sim_calls: int
    """Simulator calls this step used."""
    timings: dict[str, float]
    """Seconds spent in the policy and in the evaluator."""
    usage: dict[str, Any] = field(default_factory=dict)
    """Backend token usage."""


@dataclass
class EpisodeResult:
    """Everything an episode produced."""

    design: Design
    """The design."""
    policy: str
    """Policy name."""
    target: float
    """Coverage target used."""
    best_testbench: str | None = None
    """Best-so-far testbench."""
    best_result: SimResult | None = None
    """Its observation."""
    best_companions: dict[str, str] = field(default_factory=dict)
    """The best proposal's companion files (e.g. the equivalent cocotb test)."""
    steps: list[StepRecord] = field(default_factory=list)
    """All transitions."""
    sim_calls: int = 0
    """Simulator calls used in total."""
    wall_s: float = 0.0
    """Episode wall time."""
    status: EpisodeStatus = EpisodeStatus.RUNNING
    """How it ended."""
    error: str = ""
    """Error text when status is ERRORED."""

    @property
    def passed(self) -> bool:
        """Coverage pass: the best state meets the target."""
        return rank(self.best_result, self.target)[2]

    def curve(self) -> list[tuple[int, float]]:
        """(cumulative simulator calls, best overall so far) after each step."""
        points, calls, best = [], 0, 0.0
        for rec in self.steps:
            calls += rec.sim_calls
            obs = rec.observation
            if rec.accepted and obs and obs.get("overall") is not None and obs["status"] == "ok":
                best = max(best, float(obs["overall"]))
            points.append((calls, best))
        return points

    def to_json(self) -> dict[str, Any]:
        """The trajectory file's content."""
        return {
            "trajectory_format": TRAJECTORY_FORMAT,
            "design": self.design.name,
            "top": self.design.top,
            "policy": self.policy,
            "target": self.target,
            "status": self.status.value,
            "error": self.error,
            "sim_calls": self.sim_calls,
            "wall_s": round(self.wall_s, 3),
            "best": observation_json(self.best_result),
            "best_testbench": self.best_testbench,
            "steps": [asdict(s) for s in self.steps],
        }


def _save(result: EpisodeResult, config: AgentConfig) -> None:
    if config.trajectory_dir is None:
        return
    config.trajectory_dir.mkdir(parents=True, exist_ok=True)
    path = config.trajectory_dir / "trajectory.json"
    tmp = path.with_suffix(".tmp")
    # Never through a symlink left at the temporary name (the folder may be a cloned workspace's).
    write_output(tmp, json.dumps(result.to_json(), indent=1).encode())
    tmp.replace(path)  # atomic: a crash never leaves a half-written trajectory


def run_episode(design: Design, policy: Policy, config: AgentConfig = AgentConfig(), *,
                cancel: Cancel | None = None, on_step: Callable[[StepRecord, EpisodeResult], None] | None = None,
                initial: tuple[str, SimResult] | None = None, reraise: bool = True) -> EpisodeResult:
    """Run one episode of `policy` on `design`.

    Args:
        design: the DUT.
        policy: the transition model.
        config: limits.
        cancel: Event-like; when set, the episode stops after killing the running simulation.
        on_step: called after each step (progress reporting).
        initial: an existing (testbench, observation) to start from instead of s_0.
        reraise: raise what stopped an episode (after recording it); False returns the episode,
            `ERRORED` with its `error`, and keeps what it reached (a command line prints it).
    """
    target = config.target if config.target is not None else design.target
    start = time.monotonic()
    budget = Budget(sim_calls=config.max_sim_calls, deadline=start + config.wall_time_s)
    episode = EpisodeResult(design=design, policy=policy.name, target=target)
    if initial is not None:
        episode.best_testbench, episode.best_result = initial
    format_errors = 0
    last_format_error: str | None = None
    try:
        for step in range(config.refinements + 1):
            if done(episode.best_result, target if config.early_stop else 100.0):
                episode.status = EpisodeStatus.SUBMITTED
                break
            if budget.exhausted():
                episode.status = EpisodeStatus.LIMITS_EXCEEDED
                break
            if cancel is not None and cancel.is_set():
                episode.status = EpisodeStatus.CANCELLED
                break
            state = State(design, episode.best_testbench, episode.best_result, step, last_format_error)
            t0 = time.monotonic()
            calls_before = budget.sim_calls
            budget.steps_left = config.refinements - step
            budget.spend(1)  # reserve the judge's call so the policy cannot use it up
            proposal: Proposal = policy.propose(state, budget)
            t1 = time.monotonic()
            observed: SimResult | None = None
            if proposal.format_error is None and proposal.testbench.strip():
                observed = evaluate_sv(design, proposal.testbench, tb_name=proposal.filename,
                                       options=config.sim, cancel=cancel)
                format_errors, last_format_error = 0, None
            else:
                budget.spend(-1)  # nothing to judge: give the reserved call back
                format_errors += 1
                last_format_error = proposal.format_error or "the response contained no testbench"
            accepted = observed is not None and is_better(observed, episode.best_result, target)
            if accepted:
                episode.best_testbench, episode.best_result = proposal.testbench, observed
                episode.best_companions = dict(proposal.companions)
            record = StepRecord(
                step=step, state_testbench=state.testbench, state_observation=observation_json(state.result),
                messages=list(proposal.messages), response=proposal.response, testbench=proposal.testbench,
                format_error=proposal.format_error, observation=observation_json(observed), accepted=accepted,
                sim_calls=calls_before - budget.sim_calls, usage=dict(proposal.usage),
                timings={"policy_s": round(t1 - t0, 3), "sim_s": round(time.monotonic() - t1, 3)},
            )
            episode.steps.append(record)
            episode.sim_calls = config.max_sim_calls - budget.sim_calls
            episode.wall_s = time.monotonic() - start
            _save(episode, config)
            if on_step is not None:
                on_step(record, episode)
            if format_errors >= config.max_consecutive_format_errors:
                episode.status = EpisodeStatus.LIMITS_EXCEEDED
                break
        else:
            episode.status = EpisodeStatus.SUBMITTED if done(episode.best_result, target) else EpisodeStatus.ROUNDS_DONE
    except Exception as exc:  # the episode boundary: record, never lose the trajectory
        episode.status, episode.error = EpisodeStatus.ERRORED, f"{type(exc).__name__}: {exc}"
        if reraise:
            logger.exception("episode on %s failed", design.name)
            raise
        # The caller reports it (a command line's JSON and report): one line, no traceback.
        logger.error("episode on %s failed: %s", design.name, episode.error)  # noqa: TRY400 (no traceback here)
    finally:
        episode.sim_calls = config.max_sim_calls - budget.sim_calls
        episode.wall_s = time.monotonic() - start
        _save(episode, config)
    return episode
