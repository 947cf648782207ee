from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import jinja2
import pytest

from agent.llm.prompting import (
    DEFAULT_LIMITS,
    Instruction,
    PromptLimits,
    instruction_for,
    render_context,
    render_messages,
    render_prefix_messages,
    system_prompt,
)
from agent.policy import State
from sim.suite import Design
from sim.types import (
    CoverageSummary,
    Message,
    MetricSummary,
    SimResult,
    Status,
    UncoveredPoint,
)
from training.sft.tiny import CHATML_TEMPLATE

TB = "module tb_counter;\n  counter dut (.clk(clk), .rst_n(rst_n), .en(en), .q(q));\nendmodule\n"


def ok_result(design: Design) -> SimResult:
    rtl = str(design.rtl[0])
    cov = CoverageSummary({"line": MetricSummary(3, 4), "branch": MetricSummary(1, 2),
                           "toggle": MetricSummary(10, 20)})
    points = tuple(UncoveredPoint("toggle", rtl, 5, f"q[{i}]:0->1", "output logic [W-1:0] q")
                   for i in range(40))
    points += (UncoveredPoint("branch", rtl, 9, "else", "else if (en) q <= q + 1'b1;"),)
    return SimResult(Status.OK, coverage=cov, uncovered=points)


def compile_result(design: Design) -> SimResult:
    msg = Message(str(design.root / "tb_counter.sv"), 7, 3, "error", "", "syntax error, unexpected ')'")
    warn = Message(str(design.rtl[0]), 2, 1, "warning", "WIDTHTRUNC", "truncated")
    return SimResult(Status.COMPILE_ERROR, messages=(warn, msg), log_tail="%Error: tb_counter.sv:7:3",
                     detail="verilator exited with 1")


def states(design: Design) -> list[State]:
    return [
        State(design),
        State(design, TB, ok_result(design), 1),
        State(design, TB, compile_result(design), 2),
        State(design, TB, SimResult(Status.TIMEOUT, log_tail="tick\n" * 100, detail="no $finish"), 3),
        State(design, TB, SimResult(Status.RUNTIME_ERROR, log_tail="%Error: assertion"), 3),
        State(design, None, None, 1, format_error="The reply has no fenced code block."),
    ]


def chatml(messages: list[dict[str, str]]) -> str:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    return env.from_string(CHATML_TEMPLATE).render(messages=messages, add_generation_prompt=True)


def test_initial_prompt_content(counter_design: Design) -> None:
    messages = render_messages(State(counter_design))
    assert [m["role"] for m in messages] == ["system", "user"]
    system, user = messages[0]["content"], messages[1]["content"]
    for needle in ("verification engineer", "$finish", "$system", "DPI", "coverage", "instance name"):
        assert needle in system
    assert "rtl/counter.sv:\n```verilog\nmodule counter" in user
    assert "instance name `dut`" in user
    assert "filename: tb_counter.sv" in user
    assert "```systemverilog" in user
    assert "8-bit up counter with enable" in user


def test_prefix_is_byte_identical_across_rounds(counter_design: Design) -> None:
    prefix = render_prefix_messages(counter_design)
    rendered_prefix = chatml(prefix)[: -len("<|im_end|>\n<|im_start|>assistant\n")]
    for state in states(counter_design):
        messages = render_messages(state)
        assert messages[0] == prefix[0]
        assert messages[1]["content"].startswith(prefix[1]["content"])
        assert chatml(messages).startswith(rendered_prefix)


def test_spec_is_part_of_the_prefix(counter_design: Design, tmp_path: Path) -> None:
    spec = tmp_path / "spec.md"
    spec.write_text("The counter wraps at 2**W.\n", encoding="utf-8")
    design = replace(counter_design, spec=(spec,))
    context = render_context(design)
    assert "## Specification\n\nThe counter wraps at 2**W." in context
    for state in states(design):
        assert render_messages(state)[1]["content"].startswith(context)


def test_memoryless(counter_design: Design) -> None:
    # Same (R, x, o): same prompt, whatever the step number or how we got there.
    a = State(counter_design, TB, ok_result(counter_design), step=1)
    b = State(counter_design, TB, ok_result(counter_design), step=3)
    assert render_messages(a) == render_messages(b)
    assert render_messages(a) == render_messages(a)


@pytest.mark.parametrize(("index", "instruction", "phrase"), [
    (0, Instruction.WRITE, "Write the complete testbench"),
    (1, Instruction.IMPROVE_COVERAGE, "Improve coverage"),
    (2, Instruction.FIX_COMPILE, "Fix the compile error"),
    (3, Instruction.FIX_RUN, "Fix the run"),
    (4, Instruction.FIX_RUN, "Fix the run"),
], ids=["s0", "ok", "compile", "timeout", "runtime"])
def test_instruction_selected_by_status(counter_design: Design, index: int,
                                        instruction: Instruction, phrase: str) -> None:
    state = states(counter_design)[index]
    assert instruction_for(state) is instruction
    user = render_messages(state)[1]["content"]
    assert phrase in user
    others = {"Improve coverage", "Fix the compile error", "Fix the run"} - {phrase}
    assert not any(o in user for o in others)


def test_coverage_error_asks_to_fix_the_run(counter_design: Design) -> None:
    state = State(counter_design, TB, SimResult(Status.COVERAGE_ERROR, detail="no coverage.dat"), 1)
    assert instruction_for(state) is Instruction.FIX_RUN


def test_uncovered_report(counter_design: Design) -> None:
    user = render_messages(states(counter_design)[1])[1]["content"]
    assert "- line: 75.00 % (3/4)" in user
    assert "- branch: 50.00 % (1/2)" in user
    assert "- overall: 58.33 %" in user
    assert "# Current testbench" in user
    assert TB.strip() in user
    assert "ok: `tb_counter.sv`" in user
    # Branch points are listed before the many toggles; the list is capped.
    assert "- rtl/counter.sv:9 [branch] else | else if (en) q <= q + 1'b1;" in user
    assert user.index("[branch]") < user.index("[toggle]")
    assert f"({DEFAULT_LIMITS.max_uncovered} of 41 shown" in user
    assert user.count("[toggle]") == DEFAULT_LIMITS.max_uncovered - 1


def test_compile_errors_are_file_line_text(counter_design: Design) -> None:
    user = render_messages(states(counter_design)[2])[1]["content"]
    assert "tb_counter.sv:7: syntax error, unexpected ')'" in user
    assert "truncated" not in user.split("# Current testbench")[1]  # warnings are left out
    assert "Status: compile_error (verilator exited with 1)" in user


def test_run_log_tail_is_capped(counter_design: Design) -> None:
    user = render_messages(states(counter_design)[3])[1]["content"]
    assert "Last lines of the simulation log" in user
    assert user.count("tick") == DEFAULT_LIMITS.max_log_lines


def test_format_error_is_fed_back(counter_design: Design) -> None:
    user = render_messages(states(counter_design)[5])[1]["content"]
    assert "Your previous reply could not be used: The reply has no fenced code block." in user
    assert "There is no usable testbench yet." in user


def test_rtl_truncation_keeps_format_instructions(counter_design: Design) -> None:
    limits = PromptLimits(max_rtl_chars=120)
    context = render_context(counter_design, limits)
    assert "is truncated here" in context
    assert "## Reply format" in context
    assert "filename: tb_counter.sv" in context
    code = context.split("```verilog\n")[1].split("```")[0]
    assert len(code) <= 121


def test_testbench_truncation(counter_design: Design) -> None:
    big = TB + "// filler\n" * 1000
    state = State(counter_design, big, ok_result(counter_design), 1)
    user = render_messages(state, PromptLimits(max_testbench_chars=500))[1]["content"]
    assert "The testbench is truncated here" in user


def test_system_prompt_is_design_independent(counter_design: Design, tmp_path: Path) -> None:
    other = replace(counter_design, top="fifo", dut_instance="u_fifo")
    assert system_prompt() == render_messages(State(other))[0]["content"]
    assert "instance name `u_fifo`" in render_messages(State(other))[1]["content"]
