"""Pure tests of the heuristic engine: generators, renderers, steering, the search loop."""

from __future__ import annotations

import random
from collections.abc import Sequence

from agent.heuristic import generators as gn
from agent.heuristic import harness as hx
from agent.heuristic import steer as sr
from agent.heuristic import stimulus as st
from agent.heuristic.search import SearchConfig, search
from agent.heuristic.stimulus import Clock, Field, Hints, Layout, Segment, Signal, Step
from sim.analysis.interface import Condition, DesignInterface, Port
from sim.suite import Design, Reset
from sim.types import CoverageSummary, MetricSummary, SimResult, Status, UncoveredPoint


def _layout(clocked: bool = True) -> Layout:
    fields = (
        Field("rst_n", 1, reset=True, active_low=True),
        Field("en", 1),
        Field("wide", 100),
        Field("s", 8, signed=True),
        Field("arr", 4, dims=(3,)),
    )
    ports = (
        *((Signal("clk", "input", 1),) if clocked else ()),
        Signal("rst_n", "input", 1), Signal("en", "input", 1), Signal("wide", "input", 100),
        Signal("s", "input", 8, signed=True), Signal("arr", "input", 4, (3,)), Signal("q", "output", 8),
    )
    clocks = (Clock("clk", 5),) if clocked else ()
    return Layout("top", "dut", fields, clocks, ports)


def test_field_reset_polarity() -> None:
    low = Field("rst_n", 1, reset=True, active_low=True)
    high = Field("rst", 1, reset=True)
    assert (low.asserted, low.idle) == (0, 1)
    assert (high.asserted, high.idle) == (1, 0)
    steps = st.reset_steps(_layout(), 3)
    assert steps[0].values[0] == 0
    assert steps[0].cycles == 3
    assert steps[-1].values[0] == 1


def test_corner_values_widths_and_signed() -> None:
    vals = st.corner_values(8, signed=True)
    assert {0, 1, 0xFF, 0x80, 0x7F} <= set(vals)
    assert all(0 <= v <= 0xFF for v in vals)
    wide = st.corner_values(100)
    assert (1 << 100) - 1 in wide
    assert 1 << 99 in wide
    assert all(0 <= v < 1 << 100 for v in wide)


def test_palette_has_mined_constants_and_neighbours() -> None:
    pal = st.make_palette(Field("op", 4), mined=[5, 9], shared=[200])
    assert {4, 5, 6, 8, 9, 10} <= set(pal)
    assert all(0 <= v < 16 for v in pal)
    assert len(pal) <= st.MAX_PALETTE


def test_pack_unpack_roundtrip() -> None:
    f = Field("arr", 4, dims=(3,))
    assert st.unpack(f, st.pack(f, [1, 2, 15])) == (1, 2, 15)


def test_generators_are_seeded_and_in_range() -> None:
    layout = _layout()
    hints = Hints(palettes={"s": (0x80, 0x7F)}, handshake=("en",))
    gens = [
        lambda r: gn.random_segment(r, layout, 50, hints=hints, p_palette=0.5, p_hold=0.3, p_reset=0.1, max_cycles=3),
        lambda r: gn.hold_segment(r, layout, hints),
        lambda r: gn.handshake_segment(r, layout, hints, 30),
        lambda r: gn.sequence_segment(r, layout, hints, 30),
        lambda r: gn.toggle_segment(r, layout, [("wide", 99), ("s", 7)]),
    ]
    for gen in gens:
        a, b = gen(random.Random(7)), gen(random.Random(7))
        assert a == b
        assert a != gen(random.Random(8)) or len(a.steps) <= 1
        for step in a.steps:
            assert step.cycles >= 1
            for f, v in zip(layout.fields, step.values, strict=True):
                assert 0 <= v <= f.mask


def test_plain_random_keeps_reset_released() -> None:
    layout = _layout()
    seg = gn.random_segment(random.Random(1), layout, 100, reset_first=True)
    assert seg.steps[0].values[0] == 0  # asserted (active low)
    assert all(s.values[0] == 1 for s in seg.steps[2:])


def test_harness_reads_every_field() -> None:
    text = hx.render_harness(_layout())
    assert '$fopen("stim.txt", "r")' in text
    assert '$fscanf(bw_fd, "%d %h %h %h %h %h\\n", bw_cycles, rst_n, en, wide, s, bw_flat_arr)' in text
    assert "always #5 clk = ~clk;" in text
    assert "logic signed [7:0] s;" in text
    assert "logic [3:0] arr [3];" in text
    assert "arr[bw_i] = bw_flat_arr[bw_i*4 +: 4];" in text
    assert "top dut (" in text
    assert "$finish;" in text
    assert "@(negedge clk)" in text


def test_harness_combinational_uses_delay() -> None:
    text = hx.render_harness(_layout(clocked=False))
    assert "always #" not in text
    assert f"#{hx.COMB_DELAY};" in text


def test_stim_lines_fixed_width_hex() -> None:
    layout = _layout()
    line = hx.render_stim(layout, [Step((1, 0, (1 << 100) - 1, 0x80, 0xABC), 4)]).strip()
    parts = line.split()
    assert parts[0] == "4"
    assert parts[3] == "f" * 25
    assert parts[4] == "80"
    assert parts[5] == "abc"


def test_replay_is_self_contained() -> None:
    layout = _layout()
    segs = [Segment("reset", st.reset_steps(layout, 2)), Segment("one", (Step((1, 1, 5, 0xFF, 0x123), 3),))]
    text = hx.render_replay(layout, segs)
    assert "$fopen" not in text
    assert "stim.txt" not in text
    assert "localparam int NSTEPS = 3;" in text
    assert "100'h0000000000000000000000005" in text
    assert "// steps 2..2: one" in text
    assert text.count("},") == 2  # the last row has no trailing comma
    assert "module tb_top;" in text
    assert "top dut (" in text
    assert "$finish;" in text


def test_parse_toggle() -> None:
    assert sr.parse_toggle("data[3]:0->1") == ("data", 3)
    assert sr.parse_toggle("en:1->0") == ("en", 0)
    assert sr.parse_toggle("(a==0) => 1") is None


def _iface() -> DesignInterface:
    ports = (
        Port("clk", "input", 1, 0, 0, False, is_clock=True),
        Port("rst_n", "input", 1, 0, 0, False, is_reset=True, reset_active_low=True),
        Port("op", "input", 4, 3, 0, False),
        Port("y", "output", 8, 7, 0, False),
    )
    cond = Condition("/rtl/a.sv", 12, 5, "if", ("op",), (9,), "op == 9")
    return DesignInterface("top", ports, clocks=("clk",), resets=(("rst_n", True),),
                           constants={"op": (9,), "*": (9, 200)}, conditions=(cond,))


def test_make_layout_and_mining() -> None:
    design = Design("d", __import__("pathlib").Path("/x"), "top", (), clocks=("clk",), resets=(Reset("rst_n", True),))
    layout = hx.make_layout(design, _iface())
    assert [f.name for f in layout.fields] == ["rst_n", "op"]
    assert layout.fields[0].reset
    assert layout.fields[0].active_low
    assert layout.clocks == (Clock("clk", 5),)
    hints = sr.mine_hints(layout, _iface())
    assert {8, 9, 10} <= set(hints.palettes["op"])
    hole = UncoveredPoint("branch", "/rtl/a.sv", 13, "if", "")
    steered = sr.steer(hints, layout, _iface(), [hole, UncoveredPoint("toggle", "/rtl/a.sv", 2, "op[2]:0->1", "")])
    assert set(steered.focus["op"]) == {8, 9, 10}
    assert steered.toggles == (("op", 2),)


def _fake_runner(layout: Layout, goal: set[int]) -> tuple[list[int], object]:
    """A simulator stand-in: point k is covered when the last field takes value k at some step."""
    calls: list[int] = []

    def run(steps: Sequence[Step]) -> SimResult:
        calls.append(len(steps))
        seen = {s.values[-1] for s in steps} & goal
        cov = CoverageSummary({"line": MetricSummary(len(seen), len(goal))})
        missing = tuple(UncoveredPoint("line", "/f.sv", k, "", "") for k in sorted(goal - seen))
        return SimResult(Status.OK, coverage=cov, uncovered=missing)

    return calls, run


def test_search_keeps_only_gains_and_stops_at_full() -> None:
    layout = Layout("t", "dut", (Field("rst", 1, reset=True), Field("v", 4)), (Clock("clk", 5),))
    calls, run = _fake_runner(layout, {3, 7, 11})
    hints = Hints(palettes={"v": (3, 7, 11)})
    res = search(layout, run, hints=hints, config=SearchConfig(seed=1, max_trials=100))  # type: ignore[arg-type]
    assert res.result is not None
    assert res.result.coverage is not None
    assert res.result.coverage.metrics["line"].covered == 3
    assert len(calls) == res.sim_calls <= 100
    assert all(t.gained > 0 for t in res.trials if t.kept and t.index > 0)
    again = search(layout, run, hints=hints, config=SearchConfig(seed=1, max_trials=100))  # type: ignore[arg-type]
    assert again.segments == res.segments


def test_search_respects_stop_and_step_cap() -> None:
    layout = Layout("t", "dut", (Field("v", 8),), ())
    _calls, run = _fake_runner(layout, set(range(256)))
    budget = [5]

    def stop() -> bool:
        budget[0] -= 1
        return budget[0] < 0

    res = search(layout, run, hints=Hints(), config=SearchConfig(seed=0), should_stop=stop)  # type: ignore[arg-type]
    assert res.sim_calls == 5
    capped = search(layout, run, hints=Hints(), config=SearchConfig(seed=0, max_steps=300, max_trials=50))  # type: ignore[arg-type]
    assert 0 < capped.steps <= 300


def test_render_cocotb_is_valid_python() -> None:
    layout = _layout()
    segs = [Segment("reset", st.reset_steps(layout, 2))]
    text = hx.render_cocotb(layout, segs)
    compile(text, "test_top.py", "exec")
    assert "@cocotb.test()" in text
    assert "FallingEdge(dut.clk)" in text
    assert "Clock(dut.clk, 10" in text


def test_slow_segment_holds_wide_fields() -> None:
    layout = _layout()
    seg = gn.slow_segment(random.Random(3), layout, Hints(), 20)
    wide = {s.values[2] for s in seg.steps}
    assert len(wide) == 1
    assert {s.values[1] for s in seg.steps} <= {0, 1}


def test_quieten_and_step_at() -> None:
    layout = _layout()
    seg = gn.random_segment(random.Random(2), layout, 200)
    quiet = gn.quieten(random.Random(2), layout, Hints(quiet=("en",)), seg)
    assert sum(s.values[1] for s in quiet.steps) < sum(s.values[1] for s in seg.steps)
    steps = [Step(layout.idle, 2), Step(layout.idle, 3)]
    assert st.step_at(layout, steps, 0) == 0
    assert st.step_at(layout, steps, 19_999) == 0
    assert st.step_at(layout, steps, 20_000) == 1
    assert st.step_at(layout, steps, 60_000) == 2


def test_parse_replay_round_trips_render_replay() -> None:
    layout = _layout()
    a = (0, 1, (1 << 100) - 1, 0x80, 0xABC)
    b = (1, 0, 5, 0x7F, 0)
    segments = (Segment("reset", (Step(a, 3), Step(b, 1))), Segment("random", (Step(b, 2),)))
    text = hx.render_replay(layout, segments, title="t")
    assert hx.parse_replay(text, layout) == segments
    # Another layout (or a hand-written testbench) is not taken for a replay.
    assert hx.parse_replay(text.replace("8'h80", "9'h080"), layout) is None
    assert hx.parse_replay("module tb_top; endmodule", layout) is None
