"""A prompt that fits: RTL condensed and cut (agent.llm.rtl_fit), the RTL around the holes in a
follow-up, and `benchwright run --json` on a Morse-encoder-like design whose context needs fitting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.llm.prompting import PromptLimits, read_rtl, result_view, rtl_files
from agent.llm.rtl_fit import (
    allot,
    condense,
    cut_middle,
    excerpts,
    fit_text,
    line_shape,
)
from sim.suite import load_design
from sim.types import CoverageSummary, MetricSummary, SimResult, Status, UncoveredPoint

MORSE = {
    "A": ".-", "B": "-...", "C": "-.-.", "D": "-..", "E": ".", "F": "..-.", "G": "--.", "H": "....",
    "I": "..", "J": ".---", "K": "-.-", "L": ".-..", "M": "--", "N": "-.", "O": "---", "P": ".--.",
    "Q": "--.-", "R": ".-.", "S": "...", "T": "-", "U": "..-", "V": "...-", "W": ".--", "X": "-..-",
    "Y": "-.--", "Z": "--..", "0": "-----", "1": ".----", "2": "..---", "3": "...--", "4": "....-",
    "5": ".....", "6": "-....", "7": "--...", "8": "---..", "9": "----.", ".": ".-.-.-", ",": "--..--",
    "?": "..--..", "/": "-..-.", "-": "-....-", "(": "-.--.", ")": "-.--.-", "=": "-...-", "+": ".-.-.",
}
"""International Morse code: the table CVDP's morse_encoder implements."""


def morse_design(root: Path) -> Path:
    """A Morse encoder like CVDP's morse_encoder (a case over the ASCII code) and a long spec."""
    rows = []
    for ch, code in MORSE.items():
        bits = "".join("1" if c == "-" else "0" for c in code).rjust(6, "0")
        rows.append(f"      8'h{ord(ch):02X}: begin morse_out = 6'b{bits}; morse_length = 4'd{len(code)}; end"
                    f"  // '{ch}' is {code}")
    table = "\n".join(rows)
    rtl = f"""// A combinational Morse encoder with a registered output and a busy flag.
module morse_encoder (
  input  logic       clk,
  input  logic       rst_n,
  input  logic       valid_in,
  input  logic [7:0] ascii_in,
  output logic [5:0] code_q,
  output logic [3:0] length_q,
  output logic       unknown_q
);
  logic [5:0] morse_out;
  logic [3:0] morse_length;
  always_comb begin
    morse_out = 6'b0;
    morse_length = 4'd0;
    case (ascii_in)
{table}
      default: begin morse_out = 6'b0; morse_length = 4'd0; end
    endcase
  end
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) begin
      code_q <= '0; length_q <= '0; unknown_q <= 1'b0;
    end else if (valid_in) begin
      code_q <= morse_out;
      length_q <= morse_length;
      unknown_q <= (morse_length == 4'd0);
    end
endmodule
"""
    spec = "".join(f"- The character '{ch}' (ASCII 0x{ord(ch):02X}) is sent as `{code}`: "
                   f"{len(code)} symbols, dashes as ones, right-aligned in morse_out.\n"
                   for ch, code in MORSE.items())
    (root / "rtl").mkdir(parents=True)
    (root / "rtl" / "morse_encoder.sv").write_text(rtl)
    (root / "spec").mkdir()
    (root / "spec" / "spec.md").write_text("# morse_encoder\n\n" + spec * 2)
    (root / "design.toml").write_text('name = "morse_encoder"\ntop = "morse_encoder"\n'
                                      'rtl = ["rtl/morse_encoder.sv"]\nspec = ["spec/spec.md"]\n'
                                      'clocks = ["clk"]\n\n[[resets]]\nname = "rst_n"\nactive_low = true\n')
    return root


def test_a_table_collapses_to_its_first_and_last_rows() -> None:
    rows = [f"  8'd{k}: y = 16'h{k * 3:04x};  // row {k}" for k in range(40)]
    text = "\n".join(["module t;", "  case (x)", *rows, "  endcase", "endmodule"])
    short = condense(text)
    assert short.splitlines() == ["module t;", "  case (x)", rows[0], rows[1],
                                  "  // ... 37 more lines like these (lines 5-41) left out ...", rows[-1],
                                  "  endcase", "endmodule"]
    # the marker's line numbers are the original file's
    assert text.splitlines()[4] == rows[2]
    assert text.splitlines()[40] == rows[38]
    # five rows are not a run; blank lines never are
    assert condense("\n".join(rows[:5])) == "\n".join(rows[:5])
    assert condense("\n" * 10) == "\n" * 10
    assert line_shape("  8'hFF: q = 4'd3; // x") == line_shape("8'h0A: q   = 4'd12;")
    assert line_shape("a <= b;") != line_shape("a <= c;")


def test_fit_text_stays_within_budget_and_keeps_both_ends() -> None:
    lines = [f"  assign w{k} = a{k} ^ b{k * 7 % 13} & c;" for k in range(300)]
    text = "\n".join(["module big (input a, output y);", *lines, "  assign y = w0;", "endmodule"])
    for budget in (400, 1000, 5000):
        short = fit_text(text, budget)
        assert len(short) <= budget
        assert short.startswith("module big (input a, output y);")
        assert short.endswith("endmodule")
        assert "left out to fit" in short
    assert fit_text(text, len(text)) == text
    assert cut_middle("a\nb", 100) == "a\nb"


def test_allot_gives_small_files_all_and_shares_the_rest() -> None:
    assert allot([100, 5000, 300], 1000) == [100, 600, 300]
    assert allot([100, 200], 1000) == [100, 200]
    assert allot([900, 900], 1000) == [500, 500]
    assert sum(allot([10, 7000, 3000, 50], 2000)) <= 2000


def test_excerpts_merge_windows_and_stop_at_the_budget() -> None:
    src = {"a.sv": [f"line {k}" for k in range(1, 101)], "b.sv": ["x", "y"]}
    got = excerpts(src, [("a.sv", 10), ("a.sv", 12), ("b.sv", 2), ("c.sv", 1), ("a.sv", 50)], around=2,
                   budget=10_000)
    assert [(e.name, e.first, len(e.lines)) for e in got] == [("a.sv", 8, 7), ("a.sv", 48, 5), ("b.sv", 1, 2)]
    assert got[0].text().splitlines()[0] == " 8| line 8"
    small = excerpts(src, [("a.sv", 10), ("a.sv", 50)], around=2, budget=80)
    assert [(e.first, len(e.lines)) for e in small] == [(8, 5)]


def test_a_follow_up_shows_the_rtl_around_the_holes_when_the_context_is_cut(tmp_path: Path) -> None:
    design = load_design(morse_design(tmp_path / "morse"))
    (name, text), = read_rtl(design)
    assert len(text) > 4000
    line = next(k for k, ln in enumerate(text.splitlines(), 1) if "8'h51:" in ln)  # 'Q'
    hole = UncoveredPoint("line", str(design.rtl[0]), line, "block", "")
    result = SimResult(Status.OK, coverage=CoverageSummary({"line": MetricSummary(40, 60)}), uncovered=(hole,))
    cut = PromptLimits(max_rtl_chars=1500)
    files = rtl_files(design, cut.max_rtl_chars)
    assert len(files[0]["text"]) <= 1500
    assert "more lines like these" in files[0]["text"]  # the table, condensed
    assert "endmodule" in files[0]["text"]
    view = result_view(result, design, cut)
    assert view["excerpts"][0]["name"] == name
    assert f"{line}| " in view["excerpts"][0]["text"]
    assert "8'h51:" in view["excerpts"][0]["text"]
    # the whole RTL in the context: no excerpts
    assert result_view(result, design, PromptLimits())["excerpts"] == []
    assert result_view(result, design, PromptLimits(max_rtl_chars=1500, max_excerpt_chars=0))["excerpts"] == []


@pytest.mark.simulator_required
def test_morse_encoder_in_program_mode_fits_and_refines_with_excerpts(tiny_gguf: Path, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")
    from agent.cli import run_main

    root = morse_design(tmp_path / "morse_encoder")
    size = sum(len(p.read_text()) for p in [*root.glob("rtl/*"), *root.glob("spec/*")])
    assert size > 8000  # as the morse_encoder: RTL and spec are more than 8 KB
    out = tmp_path / "out"
    rc = run_main([str(root), "--policy", "llama", "--model", str(tiny_gguf), "--llm-format", "program",
                   "--max-tokens", "96", "--rounds", "1", "--target", "100", "--sim-calls", "4",
                   "--threads", "1", "--ctx", "3072", "--json", "--out", str(out)])
    result = json.loads(capsys.readouterr().out)
    assert result["error"] == "", result["error"]
    assert rc in (0, 1)
    traj = json.loads(next(out.rglob("trajectory.json")).read_text())
    steps = traj["steps"]
    assert steps[0]["observation"]["status"] == "ok"  # a grammar-bound program always builds
    for step in steps:
        assert step["usage"]["prompt_tokens"] + 96 <= 3072
        assert "more lines like these" in step["messages"][1]["content"] or "left out" in step["messages"][1]["content"]
    assert len(steps) == 2  # seed 0: the first program leaves holes (76 % when this was written)
    refine = steps[1]["messages"][1]["content"]
    assert "The RTL around those points" in refine
    # the context head is the same in both rounds (KV reuse)
    head = steps[0]["messages"][1]["content"].split("# Task")[0]
    assert refine.startswith(head.split("# Current program")[0].rstrip())
