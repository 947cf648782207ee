"""The repetition guard: loops are found (word for word, numbers aside, within a line), real text is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.llm.repetition import cut_loop, repeating

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SUITE = Path(__file__).resolve().parents[3] / "shared" / "benchmarks" / "public"
HUMAN_TBS = sorted(SUITE.glob("*/human_tb/**/*.sv")) + sorted(SUITE.glob("*/human_tb/**/*.v"))

ADDERS = "module bcd_adder_tb;\n" + "".join(f"  four_bit_adder adder{k};\n" for k in range(100))
PARAGRAPH = ("Write the complete testbench for `bcd_adder` now. It should reach every line, both directions "
             "of every branch and every toggle of the DUT;\nthe coverage target is 90 % overall.\n")


def test_numbered_line_loop_is_found() -> None:
    loop = repeating(ADDERS)
    assert loop is not None
    assert loop.kind == "lines-numbers"
    assert "four_bit_adder" in loop.sample
    assert "repeating itself" in loop.describe()


def test_a_repeated_paragraph_is_found_early() -> None:
    text = "filename: tb.sv\n```systemverilog\n" + PARAGRAPH * 3
    loop = repeating(text)
    assert loop is None  # three copies can be real code
    text += PARAGRAPH
    loop = repeating(text)
    assert loop is not None
    assert loop.kind == "lines"
    assert loop.copies == 4
    assert loop.period == 2
    assert cut_loop(text, loop).count("Write the complete") == 1


def test_a_loop_within_one_line_is_found() -> None:
    loop = repeating("assign x = " + "a & " * 80)
    assert loop is not None
    assert loop.kind == "chars"
    assert loop.period == 4


def test_short_repeats_are_not_loops() -> None:
    tb = ("initial begin\n" + "  @(posedge clk);\n" * 4 + "  rst_n = 1;\n"
          + "".join(f"  a = 8'h{k:02x}; b = 8'h{255 - k:02x}; #10;\n" for k in range(20)) + "  $finish;\nend\n")
    assert repeating(tb) is None
    assert repeating("\n\n\n\n\n\n\n\n\n\n") is None


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*/**/*.sv"))[:20] + HUMAN_TBS, ids=lambda p: p.name)
def test_real_sources_are_not_loops(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    for end in range(200, len(text), 400):  # as the text streams in
        assert repeating(text[:end]) is None, text[:end][-300:]


def test_the_issue_21_loop_is_found() -> None:
    """SmolLM2's reply on cvdp__bcd_adder: three comment + instance blocks, counting, until the cap."""
    names = ["first", "second", "last"]
    body = "".join(f"\n// Instantiate the {names[k % 3]} full adder\nfour_bit_adder adder{k};\n" for k in range(120))
    loop = repeating("filename: tb_bcd_adder.sv\n```systemverilog\nmodule tb_bcd_adder;\n" + body)
    assert loop is not None
    assert loop.kind == "lines-numbers"
    assert loop.period == 9
    # ...found after a handful of copies, not at the cap
    first = next(k for k in range(9, len(body)) if body[k - 1] == "\n" and repeating("module t;\n" + body[:k]))
    assert body[:first].count("four_bit_adder") <= 40


def test_the_description_quotes_a_line_of_the_loop() -> None:
    loop = repeating("module t;\n" + "\n  // Write the testbench so that it reaches every line of the design now\n" * 12)
    assert loop is not None
    assert loop.sample == "// Write the testbench so that it reaches every line of the design now"[:60]


def test_programs_loop_sooner() -> None:
    """SmolLM2's base on forencich__axil_ram: one `set` line until the token cap."""
    text = "```\nset s_axil_awaddr=1\nset s_axil_wdata=1\n" + "set s_axil_rready=1\n" * 4
    assert repeating(text) is None
    loop = repeating(text, program=True)
    assert loop is not None
    assert loop.sample == "set s_axil_rready=1"
    assert repeating("```\nreset\nhold 1\nhold 1\nhold 1\n", program=True) is None  # 3 copies, 21 characters
