"""The Policy protocol every proposal source implements, and the registry that names them."""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from sim.suite import Design
from sim.types import SimResult


@dataclass(frozen=True)
class State:
    """s_t = (R, x_t, o_t): what a memoryless policy sees."""

    design: Design
    """The hardware repository R."""
    testbench: str | None = None
    """Current (best-so-far) testbench text x_t; None at s_0."""
    result: SimResult | None = None
    """Observation o_t of that testbench; None at s_0."""
    step: int = 0
    """0 for the initial generation, then 1..N for refinements."""
    format_error: str | None = None
    """Set when the previous response could not be parsed (fed back to LLM policies)."""


@dataclass
class Budget:
    """Remaining simulator calls and wall time of an episode (shared, mutable)."""

    sim_calls: int
    """Simulator calls still allowed (each build+run or harness run counts one)."""
    deadline: float
    """time.monotonic() value after which no new work may start."""
    steps_left: int = 0
    """Episode steps still to come after the current one (policies may pace themselves)."""

    def left_s(self) -> float:
        """Seconds until the deadline (may be negative)."""
        return self.deadline - time.monotonic()

    def exhausted(self) -> bool:
        """True when no simulator call or time is left."""
        return self.sim_calls <= 0 or self.left_s() <= 0

    def spend(self, n: int = 1) -> None:
        """Record n simulator calls."""
        self.sim_calls -= n


@dataclass(frozen=True)
class Proposal:
    """A policy's action: one complete regenerated testbench, plus what produced it."""

    testbench: str
    """Complete testbench source ('' when the response could not be parsed)."""
    filename: str
    """File name the policy gave it (`tb_<top>.sv`)."""
    response: str = ""
    """Raw model output, or a short engine summary for non-LLM policies."""
    messages: tuple[dict[str, str], ...] = ()
    """Prompt messages sent (chat format); empty for non-LLM policies."""
    sim_calls: int = 0
    """Simulator calls the policy made internally (already spent on the Budget)."""
    format_error: str | None = None
    """Why the response could not be parsed, if it could not."""
    usage: dict[str, Any] = field(default_factory=dict)
    """Token counts / timings reported by the backend."""
    kind: str = "sv"
    """Testbench kind: `sv` (stimulus testbench) or `cocotb`."""
    companions: dict[str, str] = field(default_factory=dict)
    """Equivalent renderings of the same stimulus (file name -> text), e.g. a cocotb test."""


class Policy(Protocol):
    """Maps a state to a complete new testbench."""

    name: str
    """Registry name of the policy."""

    def propose(self, state: State, budget: Budget) -> Proposal:
        """Return the next testbench for `state`, spending at most `budget`."""
        ...


POLICIES: dict[str, str] = {
    "heuristic": "agent.heuristic.policies:HeuristicPolicy",
    "random": "agent.heuristic.policies:RandomPolicy",
    "random-guided": "agent.heuristic.policies:GuidedRandomPolicy",
    "llama": "agent.llm.policy:LlamaPolicy",
    "openai": "agent.llm.policy:OpenAIPolicy",
    "hybrid": "agent.llm.hybrid:HybridPolicy",
}
"""Policy name -> dotted path of its class (imported only when chosen)."""


def get_policy(name: str, **options: Any) -> Policy:
    """Instantiate a policy by registry name; unknown names raise ValueError."""
    try:
        target = POLICIES[name]
    except KeyError:
        raise ValueError(f"Policy {name!r} is not in supported list: {', '.join(POLICIES)}") from None
    module_name, _, cls_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    policy: Policy = cls(**options)
    return policy
