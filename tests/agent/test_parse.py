from __future__ import annotations

import pytest

from agent.llm.parse import (
    FormatError,
    ParsedTB,
    format_response,
    parse_response,
    strip_think,
)

TB = "module tb_counter;\n  counter dut (.clk(clk));\n  initial $finish;\nendmodule"


def reply(body: str = TB, lang: str = "systemverilog", filename: str | None = "tb_counter.sv") -> str:
    head = f"filename: {filename}\n" if filename is not None else ""
    return f"{head}```{lang}\n{body}\n```\n"


@pytest.mark.parametrize("lang", ["systemverilog", "verilog", "sv", "", "SystemVerilog"],
                         ids=["systemverilog", "verilog", "sv", "bare", "case"])
def test_accepted_fence_languages(lang: str) -> None:
    parsed = parse_response(reply(lang=lang), "counter")
    assert parsed == ParsedTB("tb_counter.sv", TB + "\n")


def test_filename_optional_defaults_to_top() -> None:
    assert parse_response(reply(filename=None), "counter").filename == "tb_counter.sv"


@pytest.mark.parametrize("line", [
    "filename: tb_x.sv", "Filename: tb_x.sv", "**filename:** `tb_x.sv`", "filename:tb_x.sv",
    "  filename: tb_x.sv  ",
], ids=["plain", "capital", "markdown", "nospace", "padded"])
def test_filename_variants(line: str) -> None:
    text = f"{line}\n```systemverilog\n{TB}\n```"
    assert parse_response(text, "counter").filename == "tb_x.sv"


@pytest.mark.parametrize("name", ["counter_tb.sv", "tb_counter.v", "tb_counter", "../tb_x.sv",
                                  "tb counter.sv"],
                         ids=["suffix", "dotv", "noext", "path", "space"])
def test_bad_filename_rejected(name: str) -> None:
    with pytest.raises(FormatError, match=r"tb_<name>\.sv"):
        parse_response(reply(filename=name), "counter")


def test_prose_around_block_is_ignored() -> None:
    text = "Here is the testbench.\n\n" + reply() + "\nIt toggles every bit.\n"
    assert parse_response(text, "counter").code == TB + "\n"


def test_crlf_line_endings() -> None:
    assert parse_response(reply().replace("\n", "\r\n"), "counter").code == TB + "\n"


@pytest.mark.parametrize(("text", "match"), [
    ("no code at all", "no fenced code block"),
    ("", "no fenced code block"),
    (TB, "no fenced code block"),
    (reply() + reply(), "2 fenced code blocks"),
    ("```systemverilog\n\n\n```", "empty"),
    ("```systemverilog\n```", "empty"),
    (reply(body="initial $finish;"), "no `module`"),
    (reply(body="// module tb;\nendmodule"), "no `module`"),
    (reply(body="module tb;\n  initial $finish;"), "no `endmodule`"),
    (reply(body="module tb;\n/* endmodule */"), "no `endmodule`"),
    ("filename: tb_counter.sv\n```systemverilog\n" + TB, "not closed"),
    ("```python\nprint(1)\n```", "not SystemVerilog"),
    ("filename: tb_a.sv\nfilename: tb_b.sv\n```sv\n" + TB + "\n```", "several files"),
    ("<think>\nlet me think about it", "inside a <think>"),
], ids=["prose", "empty-reply", "bare-code", "two-blocks", "blank-block", "empty-block",
        "no-module", "module-in-comment", "no-endmodule", "endmodule-in-comment", "unclosed",
        "python", "two-filenames", "unterminated-think"])
def test_rejections(text: str, match: str) -> None:
    with pytest.raises(FormatError, match=match) as info:
        parse_response(text, "counter")
    # Every message is corrective: it restates the required format for the design.
    assert "filename: tb_counter.sv" in info.value.message or "think" in info.value.message
    assert str(info.value) == info.value.message


def test_think_sections_are_stripped() -> None:
    text = "<think>\nmaybe ```python\nx\n``` first\n</think>\n" + reply()
    assert parse_response(text, "counter").code == TB + "\n"


def test_stray_closing_think_tag() -> None:
    # Qwen3 templates can put <think> in the prompt: the reply then starts mid-thought.
    text = "reasoning with ``` fences\n</think>\n\n" + reply()
    assert parse_response(text, "counter").filename == "tb_counter.sv"


def test_strip_think_keeps_text() -> None:
    assert strip_think("a<think>b</think>c") == "ac"


def test_filename_inside_block_is_not_a_filename() -> None:
    body = "// filename: counter_tb.sv\n" + TB
    parsed = parse_response(reply(body=body, filename=None), "counter")
    assert parsed.filename == "tb_counter.sv"
    assert parsed.code.startswith("// filename")


def test_backticks_inside_code_are_fine() -> None:
    body = "`define W 8\nmodule tb_counter;\n  initial $display(\"``\");\nendmodule"
    assert parse_response(reply(body=body), "counter").code == body + "\n"


def test_indented_fence() -> None:
    text = "filename: tb_counter.sv\n  ```systemverilog\n" + TB + "\n  ```\n"
    assert parse_response(text, "counter").code == TB + "\n"


def test_code_is_normalised_to_one_trailing_newline() -> None:
    text = "```sv\n\n" + TB + "\n\n\n```"
    assert parse_response(text, "counter").code == TB + "\n"


def test_format_response_round_trip() -> None:
    text = format_response("tb_counter.sv", TB + "\n\n")
    assert text == f"filename: tb_counter.sv\n```systemverilog\n{TB}\n```\n"
    assert parse_response(text, "counter") == ParsedTB("tb_counter.sv", TB + "\n")


def test_format_error_is_a_value_error() -> None:
    assert issubclass(FormatError, ValueError)
