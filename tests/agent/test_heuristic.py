"""Pure tests of the built-in engine: values, mining and steering, moves, the program search, blame."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from pathlib import Path

from agent.heuristic import moves
from agent.heuristic import scenarios as sc
from agent.heuristic import steer as sr
from agent.heuristic import stimulus as st
from agent.heuristic.blame import Failure, analyse_failure, summarize_failures
from agent.heuristic.config_words import mode_words
from agent.heuristic.corpus import (
    CoverSize,
    Entry,
    chained,
    chapters,
    covered_keys,
    score_weights,
    set_cover,
    weigher,
)
from agent.heuristic.engine import design_line_reader
from agent.heuristic.program_search import (
    ProgramSearch,
    ProgramSearchConfig,
    search_programs,
)
from agent.heuristic.stimulus import Clock, Field, Hints, Layout, Signal
from agent.program.encode import only_mask
from agent.program.interfaces import recognise
from agent.program.ops import Program, assigns, check
from agent.program.rng import random_steps
from agent.program.target import Target
from agent.program.text import format_program, parse_program
from sim.analysis.interface import Condition, DesignInterface, Port
from sim.run.coverage import CoveragePoint, CoverageReport
from sim.suite import Design, Reset
from sim.types import CoverageSummary, MetricSummary, SimResult, Status, UncoveredPoint


def test_field_reset_polarity() -> None:
    low = Field("rst_n", 1, reset=True, active_low=True)
    high = Field("rst", 1, reset=True)
    assert (low.asserted, low.idle) == (0, 1)
    assert (high.asserted, high.idle) == (1, 0)


def test_corner_values_widths_and_signed() -> None:
    vals = st.corner_values(8, signed=True)
    assert {0, 1, 0xFF, 0x80, 0x7F} <= set(vals)
    assert all(0 <= v <= 0xFF for v in vals)
    wide = st.corner_values(100)
    assert (1 << 100) - 1 in wide
    assert 1 << 99 in wide


def test_palette_has_mined_constants_and_neighbours() -> None:
    pal = st.make_palette(Field("op", 4), mined=[5, 9], shared=[200])
    assert {4, 5, 6, 8, 9, 10} <= set(pal)
    assert all(0 <= v < 16 for v in pal)
    assert len(pal) <= st.MAX_PALETTE


def test_pack_unpack_roundtrip() -> None:
    f = Field("arr", 4, dims=(3,))
    assert st.unpack(f, st.pack(f, [1, 2, 15])) == (1, 2, 15)


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
    design = Design("d", Path("/x"), "top", (), clocks=("clk",), resets=(Reset("rst_n", True),))
    layout = st.make_layout(design, _iface())
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


# ---------------------------------------------------------------------------- a simulator stand-in

LAYOUT = Layout("t", "dut", (Field("rst", 1, reset=True), Field("v", 4), Field("w", 8)), (Clock("clk", 5),),
                (Signal("clk", "input", 1), Signal("rst", "input", 1), Signal("v", "input", 4),
                 Signal("w", "input", 8), Signal("busy", "output", 1)))
TARGET = Target(LAYOUT, recognise(LAYOUT), {"v": (3, 7, 11), "w": (0, 0x80, 0xFF)})
GOAL = (3, 7, 11, 12)


def _values(program: Program) -> set[int]:
    """The values `v` takes: `set` ops, and every step of `random` ops (drawn as the testbench draws)."""
    seen: set[int] = set()
    values = [f.idle for f in TARGET.fields]
    for o in program.walk():
        if o.name == "set":
            values = [dict(o.args).get(f.name, values[i]) for i, f in enumerate(TARGET.fields)]  # type: ignore[misc]
            seen.add(values[1])
        elif o.name == "random":
            mask = only_mask(TARGET, o)
            steps = random_steps(TARGET.draw_fields(), values, cycles=o.num("cycles"), seed=o.num("seed"),
                                 pal=o.num("pal"), keep=o.num("keep"), maxhold=o.num("maxhold"),
                                 resets=o.num("resets"), only=[bool(mask >> i & 1) for i in range(3)],
                                 asserted=[f.asserted for f in TARGET.fields], idle=[f.idle for f in TARGET.fields])
            seen |= {v[1] for v, _ in steps}
            values = list(steps[-1][0]) if steps else values
    return seen


def _runner(calls: list[Program]):  # type: ignore[no-untyped-def]
    """Point k (one per goal value) is covered when `v` takes value k; a failure when `v` is 12 and `w` 0."""
    def run(program: Program) -> SimResult:
        calls.append(program)
        seen = _values(program)
        points = tuple(CoveragePoint("line", "/f.sv", k, 0, "", "tb.dut", "t", (), int(k in seen), f"p{k}")
                       for k in GOAL)
        cov = CoverageSummary({"line": MetricSummary(sum(p.count for p in points), len(points))})
        return SimResult(Status.OK, coverage=cov, report=CoverageReport(points))
    return run


def _spoiled_runner(calls: list[Program], goal: tuple[int, ...],
                    spoiled: Callable[[int, list[int]], bool]) -> Callable[[Program], SimResult]:
    """Point k of `goal` is covered when `v` takes value k, unless `spoiled(k, values set before)`:
    what no reset clears (a UART transmitter left busy ignores the programs after it)."""
    def run(program: Program) -> SimResult:
        calls.append(program)
        seen: list[int] = []
        for o in program.walk():
            if o.name == "set" and not spoiled(o.num("v"), seen):
                seen.append(o.num("v"))
        points = tuple(CoveragePoint("line", "/f.sv", k, 0, "", "tb.dut", "t", (), int(k in seen), f"p{k}")
                       for k in goal)
        cov = CoverageSummary({"line": MetricSummary(sum(p.count for p in points), len(points))})
        return SimResult(Status.OK, coverage=cov, report=CoverageReport(points))
    return run


def test_holes_never_open_a_file_that_a_coverage_file_names(tmp_path: Path) -> None:
    """A run's coverage.dat can name any file; the holes that steer the search carry only the text the
    evaluator's restricted reader gave its points ('' for a file outside the design)."""
    secret = tmp_path / "id_rsa"
    secret.write_text("SECRET-KEY line 1\nSECRET-KEY line 2\n")
    design_file = tmp_path / "dut.sv"

    def run(program: Program) -> SimResult:
        points = (CoveragePoint("line", str(secret), 1, 0, "", "tb.dut", "t", (), 0, "forged"),
                  CoveragePoint("line", str(design_file), 2, 0, "", "tb.dut", "t", (), 0, "real"))
        told = (UncoveredPoint("line", str(secret), 1, "", ""), UncoveredPoint("line", str(design_file), 2, "", "y = a;"))
        cov = CoverageSummary({"line": MetricSummary(0, 2)})
        return SimResult(Status.OK, coverage=cov, report=CoverageReport(points), uncovered=told)

    search = ProgramSearch(TARGET, run, hints=Hints(palettes=TARGET.palettes),
                           config=ProgramSearchConfig(seed=1, max_trials=2))
    search.run()
    assert [(Path(h.file).name, h.source) for h in search.holes()] == [("dut.sv", "y = a;"), ("id_rsa", "")]


def test_reproduced_means_the_same_points_not_as_many() -> None:
    from agent.heuristic.corpus import ProgramSearchResult
    from agent.heuristic.engine import reproduces

    def key(name: str, top: str) -> str:  # Verilator's record layout: \x01field\x02value
        return f"\x01f\x02/f.sv\x01l\x021\x01o\x02{name}\x01h\x02{top}.dut"

    def final(covered: set[str]) -> SimResult:
        points = tuple(CoveragePoint("line", "/f.sv", 1, 0, k, "tb_t.dut", "t", (), int(k in covered), key(k, "tb_t"))
                       for k in ("a", "b", "c"))
        return SimResult(Status.OK, report=CoverageReport(points))

    # The search ran the same DUT under its harness: another top, the same points below it.
    searched = ProgramSearchResult((), frozenset({key("a", "bw_harness"), key("b", "bw_harness")}), 3)
    assert reproduces(final({"a", "b"}), searched)
    assert not reproduces(final({"a", "c"}), searched)  # as many points, other ones
    assert not reproduces(final({"a"}), searched)
    assert not reproduces(None, searched)


def test_search_keeps_gains_covers_all_and_reproduces() -> None:
    calls: list[Program] = []
    cfg = ProgramSearchConfig(seed=1, max_trials=60)
    res = search_programs(TARGET, _runner(calls), hints=Hints(palettes=TARGET.palettes), config=cfg)
    assert res.total == len(GOAL)
    assert res.covered == len(GOAL)
    assert len(calls) == res.sim_calls <= 60
    assert all(t.gained > 0 or not t.kept or t.label.startswith(("continue", "shrink")) for t in res.trials)
    texts = [format_program(p) for p in calls]
    assert len(texts) == len(set(texts)), "a candidate was run twice"
    again = search_programs(TARGET, _runner([]), hints=Hints(palettes=TARGET.palettes), config=cfg)
    assert [e.program for e in again.entries] == [e.program for e in res.entries]
    for entry in res.entries:
        check(entry.program, TARGET.scope)
        assert entry.program.ops[0].name == "reset"


def test_set_cover_picks_fewest_in_found_order() -> None:
    a = Entry(Program(), frozenset({"1", "2"}), "a", 0)
    b = Entry(Program(), frozenset({"2", "3", "4"}), "b", 1)
    c = Entry(Program(), frozenset({"1", "4"}), "c", 2)
    d = Entry(Program(), frozenset({"4"}), "d", 3)
    assert set_cover([a, b, c, d]) == (a, b)


def test_cover_size_is_computed_again_only_when_the_programs_change() -> None:
    a = Entry(Program(), frozenset({"1", "2"}), "a", 0)
    b = Entry(Program(), frozenset({"2", "3", "4"}), "b", 1)
    c = Entry(Program(), frozenset({"1", "4"}), "c", 2)
    counted = []

    def weigh(keys: frozenset[str]) -> int:
        counted.append(keys)
        return len(keys)

    size = CoverSize()
    corpus = [a, c]
    assert size(corpus, weigh) == len(set_cover(corpus)) == 2
    calls = len(counted)
    assert size(corpus, weigh) == 2
    assert len(counted) == calls  # nothing changed: no cover computed
    corpus.append(b)  # a program kept
    assert size(corpus, weigh) == len(set_cover(corpus)) == 2
    assert len(counted) > calls
    corpus[0] = Entry(Program(), frozenset({"1", "2", "3", "4"}), "a", 0)  # a program replaced by its shrunk twin
    assert size(corpus, weigh) == 1


def _points(kinds: dict[str, str]) -> list[CoveragePoint]:
    return [CoveragePoint(kind, "/f.sv", 1, 0, "", "tb.dut", "t", (), 0, key) for key, kind in kinds.items()]


def test_score_weights_follow_the_overall_mean() -> None:
    # 2 lines and 8 toggles: the overall score is (lines/2 + toggles/8) / 2, so a line is worth 4 toggles.
    kinds = {"l1": "line", "l2": "line", **{f"t{k}": "toggle" for k in range(8)}, "u": "user"}
    weights = score_weights(_points(kinds))
    assert weights["l1"] == 4 * weights["t0"]
    assert "u" not in weights  # user cover points are not in the overall score
    weigh = weigher(weights)
    assert weigh(frozenset({"l1"})) == weigh(frozenset({f"t{k}" for k in range(4)}))
    assert weigh(frozenset({"l1", "l2"})) > weigh(frozenset({f"t{k}" for k in range(7)}))


def test_set_cover_by_weight_takes_the_line_first() -> None:
    weigh = weigher(score_weights(_points({"l1": "line", "l2": "line", **{f"t{k}": "toggle" for k in range(8)}})))
    z = Entry(Program(), frozenset({"t1", "t2", "t3"}), "z", 0)
    x = Entry(Program(), frozenset({"t0", "t1", "t2", "t3"}), "x", 1)
    y = Entry(Program(), frozenset({"l1", "t0"}), "y", 2)
    # by count the four toggles come first and the line is added for l1; by the score the
    # line comes first and the earliest program covering the other toggles completes it
    assert set_cover([z, x, y]) == (x, y)
    assert set_cover([z, x, y], weigh) == (z, y)


def test_mode_words_take_every_pair_of_mode_bits_both_ways() -> None:
    for seed in range(5):
        words = mode_words(random.Random(seed), 32, 25)
        assert len(words) == 6
        assert all(w & 0xFFFFFF == 25 for w in words)  # the divider below stays as given
        for i, j in itertools.combinations(range(24, 32), 2):
            assert {(w >> i & 1, w >> j & 1) for w in words} == {(0, 0), (0, 1), (1, 0), (1, 1)}
    # a 2-bit field (a UART's data bits) sees all four values; random bytes often miss one
    assert {w >> 28 & 3 for w in mode_words(random.Random(9), 32, 25)} == {0, 1, 2, 3}


def test_shrink_drops_operations_that_add_nothing() -> None:
    calls: list[Program] = []
    search = ProgramSearch(TARGET, _runner(calls), hints=Hints(), config=ProgramSearchConfig(seed=3))
    long = parse_program("reset\nset v=3\nhold 5\nset w=0x80\nset v=7\nhold 2\nset v=3\nhold 9\n")
    search._record("test", search.runner(long), long, None)
    removed = search.shrink(lambda: False)
    (entry,) = search.corpus
    assert removed > 0
    assert len(entry.program) < len(long)
    assert entry.covered == frozenset({"p3", "p7"})
    assert {o.name for o in entry.program.ops} >= {"set"}


def test_assemble_chains_programs_that_add_points() -> None:
    search = ProgramSearch(TARGET, _runner([]), hints=Hints(), config=ProgramSearchConfig(seed=3))
    one = Entry(parse_program("reset\nset v=3\n"), frozenset({"p3"}), "a", 0)
    same = Entry(parse_program("reset\nset v=3\nhold 1\n"), frozenset({"p3"}), "b", 1)
    two = Entry(parse_program("reset\nset v=7\n"), frozenset({"p7"}), "c", 2)
    program, kept, last = search.assemble([one, same, two], lambda keep: False)
    assert [e.label for _, e in kept] == ["a", "c"]
    assert [at for at, _ in kept] == [0, 2]
    assert last is not None
    assert covered_keys(last) == frozenset({"p3", "p7"})
    assert chapters(program) == (one.program, two.program)


def test_assemble_spends_no_call_past_its_stop() -> None:
    calls: list[Program] = []
    search = ProgramSearch(TARGET, _runner(calls), hints=Hints(), config=ProgramSearchConfig(seed=3))
    one = Entry(parse_program("reset\nset v=3\n"), frozenset({"p3"}), "a", 0)
    same = Entry(parse_program("reset\nset v=3\nhold 1\n"), frozenset({"p3"}), "b", 1)
    two = Entry(parse_program("reset\nset v=7\n"), frozenset({"p7"}), "c", 2)
    # "same" adds nothing after the chain, so it would also be tried before it: not once
    # the stop says the calls left belong to the final check.
    search.assemble([one, same, two], lambda keep: len(calls) >= 2)
    assert len(calls) == 2


def test_assemble_takes_the_program_that_adds_most_next_and_skips_near_copies() -> None:
    calls: list[Program] = []
    search = ProgramSearch(TARGET, _runner(calls), hints=Hints(), config=ProgramSearchConfig(seed=3))
    big = Entry(parse_program("reset\nset v=3\nset v=7\n"), frozenset({"p3", "p7"}), "big", 0)
    near = Entry(parse_program("reset\nset v=7\nset v=3\nhold 1\n"), frozenset({"p3", "p7"}), "near", 1)
    small = Entry(parse_program("reset\nset v=11\n"), frozenset({"p11"}), "small", 2)
    # By size the near-copy came second and took the last call; by what each adds, the small
    # program with a point of its own is next and the near-copy costs no call at all.
    _, kept, last = search.assemble([big, near, small], lambda keep: len(calls) >= 2)
    assert [e.label for _, e in kept] == ["big", "small"]
    assert len(calls) == 2
    assert last is not None
    assert covered_keys(last) == frozenset({"p3", "p7", "p11"})


def test_assemble_moves_the_first_program_last_when_it_spoils_what_follows() -> None:
    # A program that sets v=7 leaves what no reset clears: a later v=11 covers nothing (as a
    # UART transmitter left busy at a random baud ignores the programs after it).
    calls: list[Program] = []
    run = _spoiled_runner(calls, (3, 5, 7, 11, 12), lambda v, seen: v == 11 and 7 in seen)
    search = ProgramSearch(TARGET, run, hints=Hints(), config=ProgramSearchConfig(seed=3))
    spoiler = Entry(parse_program("reset\nset v=3\nset v=7\n"), frozenset({"p3", "p7"}), "spoiler", 0)
    late = Entry(parse_program("reset\nset v=11\nset v=12\n"), frozenset({"p11", "p12"}), "late", 1)
    other = Entry(parse_program("reset\nset v=5\n"), frozenset({"p5"}), "other", 2)
    # After the spoiler, "late" still adds p12 (half its points: not tried before the chain).
    _, kept, last = search.assemble([spoiler, late, other], lambda keep: False)
    assert [e.label for _, e in kept] == ["late", "other", "spoiler"]
    assert last is not None
    assert covered_keys(last) == frozenset({"p3", "p5", "p7", "p11", "p12"})
    assert len(calls) == 4
    # The move is the chain's last call, kept back from the programs still to chain.
    calls.clear()
    _, kept, _ = search.assemble([spoiler, late, other], lambda keep: len(calls) + keep >= 3)
    assert [e.label for _, e in kept] == ["late", "spoiler"]
    assert len(calls) == 3


def test_assemble_puts_a_program_past_the_cycle_cap_at_the_chain_end() -> None:
    # A closing scenario (past the cycle cap: a long rest) that spoils what follows, as a
    # transmitter left busy for 2^27 clocks does: it covers most alone, yet goes last, tried once.
    calls: list[Program] = []
    run = _spoiled_runner(calls, (3, 5, 7, 9), lambda v, seen: 9 in seen)
    search = ProgramSearch(TARGET, run, hints=Hints(), config=ProgramSearchConfig(seed=3))
    rest = Entry(parse_program("reset\nset v=3\nset v=9\nrepeat 3 {\n hold 100000\n}\n"), frozenset({"p3", "p9"}), "rest", 5)
    assert not moves.fits(TARGET, rest.program)
    first = Entry(parse_program("reset\nset v=5\n"), frozenset({"p5"}), "first", 0)
    then = Entry(parse_program("reset\nset v=7\n"), frozenset({"p7"}), "then", 1)
    _, kept, last = search.assemble([first, then, rest], lambda keep: False)
    assert [e.label for _, e in kept] == ["first", "then", "rest"]
    assert last is not None
    assert covered_keys(last) == frozenset({"p3", "p5", "p7", "p9"})
    assert chained([first, then, rest]).ops == calls[-1].ops
    # its call is kept back from the others: with one call left for the chain, it still goes last
    calls.clear()
    _, kept, _ = search.assemble([first, then, rest], lambda keep: len(calls) + keep >= 2)
    assert [e.label for _, e in kept] == ["first", "rest"]


def test_assemble_puts_a_left_out_program_back_before_the_one_that_spoils_it() -> None:
    # "spoiler" (v=7) leaves what no reset clears, so "late" (v=11) covers nothing after it, and
    # "late" leaves state that spoils "first"'s v=6: after the chain and before it, "late" adds
    # nothing (a UART's register writes after a program that leaves its transmitter busy). Its
    # place is found by halving the chain: right after "first", before "spoiler".
    calls: list[Program] = []
    run = _spoiled_runner(calls, (3, 5, 6, 7, 8, 11),
                          lambda v, seen: (v == 11 and 7 in seen) or (v == 6 and 11 in seen))
    search = ProgramSearch(TARGET, run, hints=Hints(), config=ProgramSearchConfig(seed=3))
    first = Entry(parse_program("reset\nset v=3\nset v=5\nset v=6\n"), frozenset({"p3", "p5", "p6"}), "first", 0)
    spoiler = Entry(parse_program("reset\nset v=7\nset v=8\n"), frozenset({"p7", "p8"}), "spoiler", 1)
    late = Entry(parse_program("reset\nset v=11\n"), frozenset({"p11"}), "late", 2)
    _, kept, last = search.assemble([first, spoiler, late], lambda keep: False)
    assert [e.label for _, e in kept] == ["first", "late", "spoiler"]
    assert last is not None
    assert covered_keys(last) == frozenset({"p3", "p5", "p6", "p7", "p8", "p11"})
    # first, +spoiler, late after and before, the first moved last, one halving, the new
    # chain, the first moved last again (it is not last in the new chain)
    assert len(calls) == 8
    assert chained([first, late]).ops == calls[-3].ops
    # without the calls for a halving and the new chain, the chain stays as it was
    calls.clear()
    _, kept, _ = search.assemble([first, spoiler, late], lambda keep: len(calls) + keep >= 6)
    assert [e.label for _, e in kept] == ["first", "spoiler"]
    assert len(calls) == 5


def test_moves_are_seeded_and_fit_the_caps() -> None:
    hints = Hints(palettes=TARGET.palettes, focus={"v": (12,)}, toggles=(("w", 7),))
    for gen in moves.generators_for(TARGET):
        a = moves.GENERATORS[gen][0](random.Random(5), TARGET, hints)
        b = moves.GENERATORS[gen][0](random.Random(5), TARGET, hints)
        assert a == b, gen
        check(Program((*parse_program("reset\n").ops, *a)), TARGET.scope)
    for name, program in sc.scenarios(random.Random(2), TARGET, hints):
        assert moves.fits(TARGET, program), name
        check(program, TARGET.scope)
    big = Program(tuple(parse_program("hold 100000\n").ops * 3))
    assert not moves.fits(TARGET, big)
    grown = moves.extend(random.Random(1), TARGET, hints, parse_program("reset\n"), "random")
    assert grown.ops[0].name == "reset"
    assert len(grown) >= 2


def test_a_failure_names_the_values_in_force_and_learns_a_rule() -> None:
    program = parse_program("reset\nset v=5 w=0x10\nrandom 8 0x77 pal=0 keep=0\n")
    steps = random_steps(TARGET.draw_fields(), [0, 5, 0x10], cycles=8, seed=0x77, pal=0, keep=0, maxhold=1,
                         resets=0, only=[False, True, True], asserted=[1, 0, 0], idle=[0, 0, 0])
    log = "bw_op 0 0\nbw_op 1 40000\nbw_op 2 40000\nbw_s 0\nbw_s 1\nbw_s 2\n%Error-DIDNOTCONVERGE: NBA region did not " \
          "converge after '--converge-limit' of 10000 tries\nAborting...\n"
    failure = analyse_failure(TARGET, program, SimResult(Status.RUNTIME_ERROR, log_tail=log))
    assert failure.reason == "DIDNOTCONVERGE"
    assert failure.op_index == 2
    now, before = steps[2][0], steps[1][0]
    changed = [n for n, a, b in zip(("rst", "v", "w"), now, before, strict=True) if a != b and n != "rst"]
    assert failure.avoid, failure
    first = dict(failure.avoid[0].args)
    assert next(iter(first)) in changed
    assert all(first[k] == now[("rst", "v", "w").index(k)] for k in first)
    assert summarize_failures([failure, failure]) == [f"2 trials failed: {failure.describe()}"]
    assert failure.describe().startswith("DIDNOTCONVERGE when ")


def test_a_failure_while_holding_blames_what_the_last_set_put_in_force() -> None:
    program = parse_program("reset\nset v=3\nhold 50\n")
    log = "bw_op 0 0\nbw_op 1 40000\nbw_op 2 40000\n%Error-DIDNOTCONVERGE: Active region did not converge\n"
    failure = analyse_failure(TARGET, program, SimResult(Status.RUNTIME_ERROR, log_tail=log))
    assert failure.op_index == 2
    assert failure.avoid, failure
    assert dict(failure.avoid[0].args)["v"] == 3
    assert failure.describe().startswith("DIDNOTCONVERGE when v=3")


def test_a_failure_with_several_inputs_at_a_corner_names_them_all() -> None:
    rules = (assigns("avoid", {"start": 1, "dividend": 0}), assigns("avoid", {"start": 1, "divisor": 0}))
    failure = Failure("DIDNOTCONVERGE", 2, avoid=rules)
    assert failure.describe() == "DIDNOTCONVERGE when start=1 and (dividend=0 or divisor=0)"
    assert Failure("DIDNOTCONVERGE", 2, avoid=rules[1:]).describe() == "DIDNOTCONVERGE when start=1 and divisor=0"


def test_a_log_reads_only_the_designs_own_files(tmp_path: Path) -> None:
    rtl = tmp_path / "rtl" / "unit.sv"
    rtl.parent.mkdir()
    rtl.write_text("module unit;\nendmodule\n")
    (tmp_path / "secret.txt").write_text("canary\n")
    read = design_line_reader(Design("d", tmp_path, "unit", (rtl,)))
    assert read("rtl/unit.sv") == ["module unit;", "endmodule"]  # a relative name, by path suffix
    assert read(str(rtl)) == ["module unit;", "endmodule"]
    assert read(str(tmp_path / "secret.txt")) is None
    assert read("/etc/passwd") is None


def test_a_check_on_inputs_is_stateless_one_on_state_is_not() -> None:
    lines = {"a.sv": ["always_ff @(posedge clk) begin", "  if (rst) begin busy <= 0; end",
                      "  else if (w[0]) begin", "    if (v == 4'd3) $fatal(1, \"v 3 is reserved\");",
                      "  assert (busy |-> v != 2);"]}
    fatal, asserted = "%Fatal: a.sv:4: Assertion failed: v 3 is reserved\n", "%Error: a.sv:5: Assertion failed\n"
    assert sr.inputs_only(LAYOUT, fatal, lines.get)  # the enclosing reset assigns `busy` but only reads `rst`
    assert sr.blamed_fields(LAYOUT, fatal, lines.get) == ("w", "v")  # resets are never quieted
    assert not sr.inputs_only(LAYOUT, asserted, lines.get)  # `busy` is the design's state
    assert not sr.inputs_only(LAYOUT, "%Fatal: other.sv:4: boom\n", lines.get)  # nothing read: not known


def test_a_failure_without_markers_is_still_reported() -> None:
    failure = analyse_failure(TARGET, parse_program("reset\n"),
                              SimResult(Status.RUNTIME_ERROR, log_tail="[5000] %Fatal: a.sv:3: boom\n"))
    assert failure.op_index is None
    assert failure.reason.startswith("a.sv:3: boom")
