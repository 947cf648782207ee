"""Program-format training data: teacher programs cut to the grammar, intermediate states, repositories."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent.llm.program_grammar import program_grammar, reply_text
from agent.program.text import format_program, parse_program
from training.config import ConfigError, load_config
from training.data.curate import Candidate, Obs, Reason, curate
from training.data.programs import (
    chapter_starts,
    fit_to_grammar,
    select_refine,
    state_ends,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agent"))
from test_program_grammar import make_target

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "traffic_light"
PRESETS = ROOT / "training" / "presets"


def test_teacher_programs_are_cut_at_a_chapter_to_fit_the_grammar() -> None:
    grammar = program_grammar(make_target())
    chapter = "reset\ncorners\nrandom 150 0x2265b1f6\n"
    program = parse_program(chapter * 3)
    assert chapter_starts(program) == [3, 6]
    assert state_ends(program, most=4) == [2, 3, 4, 6]  # chapters first, then spread over the length
    assert all(0 < e < len(program.ops) for e in state_ends(program))
    short = parse_program("reset\nhold 1\n")
    assert state_ends(short) == [1]  # each prefix once, however short the program
    assert fit_to_grammar(program, grammar) == program
    # A chapter the grammar cannot take (30 lines) ends the program before it.
    long = parse_program(chapter + "reset\n" + "hold 1\n" * 30 + chapter)
    fitted = fit_to_grammar(long, grammar)
    assert fitted is not None
    assert format_program(fitted) == chapter
    assert fit_to_grammar(parse_program("hold 1\n" * 30), grammar) is None
    assert grammar.admits(reply_text(chapter))


def test_worst_state_sampling_picks_the_intermediate_states() -> None:
    def refine(key: str, overall: float, status: str = "ok") -> dict[str, object]:
        return {"design": "d", "key": f"d/{key}", "kind": "refine", "state_program": key, "state_status": status,
                "state_overall": overall}

    raw = [{"design": "d", "key": "d/s0/direct", "kind": "direct"}, refine("a", 40.0), refine("b", 55.0),
           refine("c", 70.0), refine("e", 72.0)]
    kept, offered = select_refine(raw, seed=0, margin=10.0)
    assert offered == 4
    # the direct record, the worst state (a), and the median (c: more than 10 points above a)
    assert [d["key"] for d in kept] == ["d/s0/direct", "d/a", "d/c"]


def _cand(key: str, overall: float, prompt: str, answer: str, prev: Obs | None = None) -> Candidate:
    return Candidate("d", key, prev, Obs("ok", overall, {"line": overall}),
                     ({"role": "user", "content": prompt},), answer, answer)


def test_curation_keeps_several_records_per_design_without_duplicates() -> None:
    cands = [_cand("a", 90.0, "p0", "x"), _cand("b", 90.0, "p0", "x"), _cand("c", 80.0, "p1", "x"),
             _cand("d", 70.0, "p0", "y"), _cand("e", 60.0, "p2", "z")]
    kept, reasons = curate(cands, per_design=3, floor=None)
    assert [c.key for c in kept] == ["a", "c", "d"]
    assert reasons["b"] is Reason.NOT_BEST  # same prompt and answer as a
    assert reasons["e"] is Reason.NOT_BEST  # past per_design
    assert [c.key for c in curate(cands, floor=None)[0]] == ["a"]  # LLM4Cov: one per design
    # first generations and refinements are taken in turn
    refine = [_cand("r1", 80.0, "q1", "x", prev=Obs("ok", 50.0, {"line": 50.0})),
              _cand("r2", 75.0, "q2", "w", prev=Obs("ok", 50.0, {"line": 50.0}))]
    assert [c.key for c in curate(cands + refine, per_design=3, floor=None)[0]] == ["a", "r1", "r2"]


def test_program_preset_and_eval_entries() -> None:
    cfg = load_config(PRESETS / "smollm2-cpu.toml")
    assert cfg.prompt.format == "program"
    assert all(Path(r).is_dir() for r in cfg.data.repos)
    assert "stage1" in cfg.pipeline.stages
    assert "sft1" in cfg.pipeline.stages
    load_config(PRESETS / "smollm2-cpu.toml", ['eval.policies=["base@sv", "student@program"]'])
    with pytest.raises(ConfigError, match="random@sv"):
        load_config(PRESETS / "smollm2-cpu.toml", ['eval.policies=["random@sv"]'])
    with pytest.raises(ConfigError, match=r"prompt\.format"):
        load_config(PRESETS / "smollm2-cpu.toml", ['prompt.format="verilog"'])


@pytest.mark.simulator_required
def test_repository_modules_that_build_alone(tmp_path: Path) -> None:
    from sim.suite import load_design
    from training.data.repos import module_designs

    repo = tmp_path / "myrepo"
    (repo / "rtl").mkdir(parents=True)
    (repo / "tb").mkdir()
    (repo / "rtl" / "leaf.v").write_text(
        "module leaf(input clk, input rst, input [3:0] d, output reg [3:0] q);\n"
        "  always @(posedge clk) if (rst) q <= 0; else q <= d;\nendmodule\n")
    (repo / "rtl" / "top.v").write_text(
        "module top(input clk, input [3:0] d, output [3:0] q);\n  missing u0(.clk(clk), .d(d), .q(q));\nendmodule\n")
    (repo / "tb" / "tb_leaf.v").write_text("module tb_leaf; leaf u(); initial $finish; endmodule\n")
    report = module_designs(repo, tmp_path / "out")
    assert report.designs == ["myrepo__leaf"]
    assert report.dropped["does_not_build"] == 1
    design = load_design(tmp_path / "out" / "myrepo__leaf")
    assert design.top == "leaf"
    assert design.clocks == ("clk",)
    assert [r.name for r in design.resets] == ["rst"]


@pytest.mark.simulator_required
def test_teacher_records_on_a_real_design(tmp_path: Path) -> None:
    from agent.llm.prompting import PromptLimits
    from training.data.programs import ProgramJob, teacher_programs

    job = ProgramJob(str(EXAMPLE), seed=3, key="s0", sim_calls=24, wall_time_s=300,
                     limits=PromptLimits(max_rtl_chars=1500, max_spec_chars=300))
    records = teacher_programs(job)
    assert not [r for r in records if "error" in r], records
    direct = [r for r in records if r["kind"] == "direct"]
    assert len(direct) == 1
    answer = direct[0]["assistant"]
    assert answer.startswith("```\nreset")
    assert answer.endswith("```")
    assert direct[0]["new"]["status"] == "ok"
    assert direct[0]["new"]["overall"] > 50
    user = direct[0]["messages"][1]["content"]
    assert "## Operations" in user
    assert "Write the stimulus program for `traffic_light` now" in user
    for r in records:
        if r["kind"] == "refine":
            assert r["assistant"] == answer  # the teacher's program keeps the state's prefix
            assert answer.startswith("```\n" + r["state_program"])
            assert "This is the current program" in r["messages"][1]["content"]
            assert r["prev"]["overall"] <= r["new"]["overall"]
    json.dumps(records)  # plain data for the process pool
