"""Program mode of the LLM policy with a scripted backend: format choice, prompts, rendering, cut replies."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent.llm.completion import Completion
from agent.llm.policy import LLMPolicy, choose_format
from agent.llm.prompting import PromptLimits, PromptSet
from agent.loop import AgentConfig, run_episode
from agent.policy import Budget, State
from agent.program.sv_read import parse_testbench
from agent.program.text import format_program
from sim.run.evaluate import SimOptions
from sim.suite import Design
from sim.types import Status

sys.path.insert(0, str(Path(__file__).resolve().parent))

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "traffic_light"


@dataclass
class ScriptedBackend:
    """A Backend that answers from a list and records what it was asked."""

    replies: list[Completion]
    n_params: int | None = 135_000_000
    n_ctx: int | None = 8192
    name: str = "scripted"
    asked: list[dict[str, Any]] = field(default_factory=list)

    def complete(self, messages: Sequence[Any], *, max_tokens: int, temperature: float, seed: int | None,
                 top: str, grammar: str | None = None) -> Completion:
        self.asked.append({"messages": list(messages), "grammar": grammar, "top": top, "temperature": temperature})
        return self.replies.pop(0)

    def fit_limits(self, state: State, limits: PromptLimits, max_tokens: int,
                   prompts: PromptSet | None = None) -> PromptLimits:
        self.asked.append({"prompts": prompts.name if prompts else "sv"})
        return limits

    def close(self) -> None:
        pass


def budget() -> Budget:
    return Budget(sim_calls=10, deadline=time.monotonic() + 600)


@dataclass
class _Sized:
    n_params: int | None
    n_ctx: int | None


@pytest.mark.parametrize(("backend", "expected"), [
    (_Sized(135_000_000, 8192), "program"),
    (_Sized(4_000_000_000, 32768), "program"),   # a 4B model: programs (minutes per SV reply on a CPU)
    (_Sized(32_000_000_000, 8192), "program"),   # a small context: programs
    (_Sized(32_000_000_000, 32768), "sv"),
    (object(), "sv"),                            # an endpoint of unknown size
])
def test_auto_picks_program_for_small_models_and_contexts(backend: Any, expected: str) -> None:
    assert choose_format("auto", backend)[0] == expected
    assert choose_format("sv", backend) == ("sv", "requested")
    with pytest.raises(ValueError, match="not in supported list"):
        choose_format("verilog", backend)


@pytest.mark.simulator_required
def test_program_reply_becomes_our_testbench(counter_design: Design) -> None:
    reply = "```\nreset\nset en=1\nhold 20\nrandom 50 0x2a\n```"
    backend = ScriptedBackend([Completion(reply, completion_tokens=20)])
    policy = LLMPolicy(backend, format="program")  # type: ignore[arg-type]
    proposal = policy.propose(State(counter_design), budget())
    assert proposal.format_error is None
    assert proposal.usage["format"] == "program"
    assert proposal.usage["program_ops"] == 4
    assert "module tb_counter" in proposal.testbench
    assert f"counter {counter_design.dut_instance}" in proposal.testbench
    program = parse_testbench(proposal.testbench, policy.target(counter_design))
    assert program is not None
    assert format_program(program) == "reset\nset en=1\nhold 20\nrandom 50 0x2a\n"
    asked = backend.asked[-1]
    assert asked["grammar"]
    assert 'root ::= "```\\n"' in asked["grammar"]
    assert '"en="' in asked["grammar"]
    assert "bogus" not in asked["grammar"]
    user = asked["messages"][1]["content"]
    assert "Inputs the program drives (bits): rst_n (1 bit, reset, active low), en (1 bit)" in user
    assert "Write the stimulus program for `counter` now" in user
    assert backend.asked[0] == {"prompts": "program"}


@pytest.mark.simulator_required
def test_refinement_shows_the_current_program_and_its_holes(counter_design: Design, tmp_path: Path) -> None:
    first = Completion("```\nreset\nhold 5\n```")
    second = Completion("```\nreset\nset en=1\nhold 300\n```")
    backend = ScriptedBackend([first, second])
    policy = LLMPolicy(backend, format="program")  # type: ignore[arg-type]
    ep = run_episode(counter_design, policy, AgentConfig(refinements=1, target=100.0, max_sim_calls=4,
                                                         sim=SimOptions(cache_dir=tmp_path / "c")))
    assert [s.observation["status"] for s in ep.steps] == ["ok", "ok"]  # type: ignore[index]
    assert ep.steps[1].observation["overall"] > ep.steps[0].observation["overall"]  # type: ignore[index]
    user = backend.asked[-1]["messages"][1]["content"]
    assert "This is the current program (the best one so far)" in user
    assert "```\nreset\nhold 5\n```" in user
    assert "Uncovered points" in user


@pytest.mark.simulator_required
def test_a_refinement_that_repeats_the_program_shown_is_drawn_again(counter_design: Design) -> None:
    shown = "```\nreset\nset en=1\nhold 20\n```"
    backend = ScriptedBackend([Completion(shown)])
    policy = LLMPolicy(backend, format="program", temperature=0.2)  # type: ignore[arg-type]
    first = policy.propose(State(counter_design), budget())
    assert "repeats_redrawn" not in first.usage  # s_0 shows no program
    state = State(counter_design, testbench=first.testbench, step=1)
    # Written the same apart from spacing and a comment-free hex form: still a repeat.
    backend.replies += [Completion("```\nreset\nset en=0x1\nhold 20\n```"), Completion("```\nreset\nhold 90\n```")]
    proposal = policy.propose(state, budget())
    program = parse_testbench(proposal.testbench, policy.target(counter_design))
    assert program is not None
    assert format_program(program) == "reset\nhold 90\n"
    assert proposal.usage["repeats_redrawn"] == 1
    assert [a["temperature"] for a in backend.asked if "temperature" in a][-2:] == [0.2, 0.9]
    # A model that only ever repeats: the last draw is taken, after `redraws` more tries.
    backend.replies += [Completion(shown)] * 3
    stuck = policy.propose(state, budget())
    assert parse_testbench(stuck.testbench, policy.target(counter_design)) == \
        parse_testbench(first.testbench, policy.target(counter_design))
    assert stuck.usage["repeats_redrawn"] == 2
    assert not backend.replies


@pytest.mark.simulator_required
def test_a_cut_reply_keeps_its_complete_lines(counter_design: Design) -> None:
    looped = "```\nreset\nrepeat 3 {\n  set en=1\n  hold 2\n  set en=0\n  ho"
    backend = ScriptedBackend([Completion(looped, finish_reason="repetition",
                                          stopped="the reply started repeating itself")])
    policy = LLMPolicy(backend, format="program")  # type: ignore[arg-type]
    proposal = policy.propose(State(counter_design), budget())
    assert proposal.format_error is None
    program = parse_testbench(proposal.testbench, policy.target(counter_design))
    assert program is not None
    assert format_program(program) == "reset\nrepeat 3 {\n  set en=1\n  hold 2\n  set en=0\n}\n"
    assert "cut short" in proposal.usage["salvaged"]


@pytest.mark.simulator_required
def test_a_looping_program_keeps_one_copy_of_the_loop(counter_design: Design) -> None:
    looped = "```\nreset\nset en=1\n" + "hold 20\nset en=0\n" * 5
    backend = ScriptedBackend([Completion(looped, finish_reason="repetition",
                                          stopped="the reply started repeating itself")])
    policy = LLMPolicy(backend, format="program")  # type: ignore[arg-type]
    proposal = policy.propose(State(counter_design), budget())
    program = parse_testbench(proposal.testbench, policy.target(counter_design))
    assert program is not None
    assert format_program(program) == "reset\nset en=1\nhold 20\nset en=0\n"


def test_sv_reply_stopped_by_the_guard_says_so(counter_design: Design) -> None:
    looped = "filename: tb_counter.sv\n```systemverilog\nmodule tb_counter;\n" + "  counter c0;\n" * 90
    backend = ScriptedBackend([Completion(looped, finish_reason="repetition", completion_tokens=400,
                                          stopped="the reply started repeating itself (apart from numbers)")])
    policy = LLMPolicy(backend, format="sv")  # type: ignore[arg-type]
    proposal = policy.propose(State(counter_design), budget())
    assert proposal.testbench == ""
    assert proposal.format_error is not None
    assert proposal.format_error.startswith("Decoding was stopped after 400 tokens because the reply started "
                                            "repeating itself")
    assert proposal.usage["format"] == "sv"


def test_stream_reader_stops_a_looping_reply() -> None:
    """The llama backend's stream loop: a looping reply is left early and the generator closed."""
    from agent.llm.llama_backend import LlamaBackend

    consumed = [0]
    closed = [False]

    def chunks() -> Iterator[dict[str, Any]]:
        try:
            yield {"choices": [{"delta": {"content": "module tb;\n"}, "finish_reason": None}]}
            for k in range(5000):
                consumed[0] += 1
                yield {"choices": [{"delta": {"content": f"  four_bit_adder adder{k};\n"}, "finish_reason": None}]}
            yield {"choices": [{"delta": {}, "finish_reason": "length"}]}
        finally:
            closed[0] = True

    backend = object.__new__(LlamaBackend)
    backend.guard = True
    pieces: list[str] = []
    finish, stopped = backend._read_stream(chunks(), pieces)
    assert finish == "repetition"
    assert "repeating itself" in stopped
    assert consumed[0] < 100
    assert closed[0]
    backend.guard = False
    consumed[0] = 0
    assert backend._read_stream(chunks(), [])[0] == "length"
    assert consumed[0] == 5000


@pytest.mark.simulator_required
def test_program_episode_on_a_suite_design_simulates(tmp_path: Path) -> None:
    from sim.suite import load_design

    design = load_design(EXAMPLE)
    backend = ScriptedBackend([Completion("```\nreset\ncorners\nrandom 200 0x2a\n```")])
    policy = LLMPolicy(backend, format="program")  # type: ignore[arg-type]
    ep = run_episode(design, policy, AgentConfig(refinements=0, max_sim_calls=2,
                                                 sim=SimOptions(cache_dir=tmp_path / "c")))
    assert ep.steps[0].observation is not None
    assert ep.steps[0].observation["status"] == Status.OK.value
    assert ep.steps[0].observation["overall"] > 30


def test_interface_summary_names_what_programs_may_use() -> None:
    from test_program_grammar import make_target

    from agent.llm.program_prompting import ProgramPrompts, interface_view
    from sim.suite import Design

    target = make_target()
    view = interface_view(target)
    assert "rst_n (1 bit, reset, active low)" in view["inputs"]
    assert "data (12 bits)" in view["inputs"]
    assert view["clocks"] == ["clk"]
    assert any(i.startswith("`wb`: a Wishbone bus the design serves (address 4 bits; data 32 bits") for i in
               view["interfaces"])
    assert view["constants"] == ["data: 0xabc, 0x123"]  # corners (every 3-bit value, 0) are left out
    ops = "\n".join(view["ops"])
    assert "`reset [CYCLES]`" in ops
    assert "`bus_write BUS ADDR DATA [strb=255]`" in ops
    assert "(BUS: wb)" in ops
    assert "send" not in ops
    assert "fill" not in ops
    assert view["example"] == "reset\nset en=1\nhold 4\nrandom 100 0x2a"
    design = Design(name="d", root=Path("/nonexistent"), top="dut", rtl=())
    prompts = ProgramPrompts(target)
    text = prompts.context(design, PromptLimits()) + prompts.round(State(design), PromptLimits())
    assert "## Interface" in text
    assert "## Operations" in text
    assert "Write the stimulus program for `dut` now" in text
    assert "{{" not in text
    assert "{%" not in text
