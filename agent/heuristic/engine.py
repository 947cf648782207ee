"""One engine episode step: build the program harness once, search, render, verify (`run_engine`).

The policies in `policies` share the harness, the search loop and the budget; they differ in what they
know. `heuristic` mines constants, recognises the design's interfaces (buses, streams,
memory requests, serial pins, write ports), steers by the uncovered points and learns from
failed runs; `random` runs uniform random programs (independent runs, the best one kept) and
`random-guided` keeps every uniform random program that covers something new. The result
is a testbench of task calls (`agent.program.sv`), plus the same program as a cocotb test.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent.heuristic import chain, scenarios
from agent.heuristic import steer as sr
from agent.heuristic.blame import summarize_failures
from agent.heuristic.corpus import (
    CoverSize,
    ProgramSearchResult,
    chain_starts,
    chapters,
    covered_keys,
)
from agent.heuristic.final_tb import MAX_TB_LINES, fit_lines, render_final, tb_lines
from agent.heuristic.program_search import ProgramSearch, ProgramSearchConfig
from agent.heuristic.spec_hints import mine_spec
from agent.heuristic.stimulus import Hints, make_layout
from agent.policy import Budget
from agent.program import sv_checks as chk
from agent.program.encode import DATA_FILE, encode
from agent.program.i2c import target_addresses
from agent.program.interfaces import one_hot_selects, recognise
from agent.program.ops import Program
from agent.program.serial_timing import command_bytes, counter_limits, wide_operands
from agent.program.sv import HARNESS_TOP, render_harness, render_testbench
from agent.program.sv_read import parse_testbench
from agent.program.target import Target
from agent.program.text import format_program
from sim.analysis.interface import DesignInterface, read_interface
from sim.errors import DesignError
from sim.run.coverage import restricted_reader, top_free_key
from sim.run.evaluate import BuiltTestbench, SimOptions, build_sv, evaluate_sv
from sim.suite import Design
from sim.types import SimResult, Status, UncoveredPoint

logger = logging.getLogger(__name__)

MIN_SHARE = 20
"""Fewest simulator calls one propose() may plan for (when the budget allows)."""

FINAL_RESERVE_S = 25.0
"""Seconds kept back from the deadline for building and running the final testbench."""

OBJECTIVES: tuple[str, ...] = ("coverage", "coverage+mutation")
"""What the engine keeps stimulus for: new coverage points, or also newly killed mutants."""

COVERAGE_SHARE = 0.85
"""With the mutation objective: most of the simulator calls the coverage search gets first."""

ASSEMBLY_CALLS = 16
"""Simulator calls held back to chain the kept programs into the final one (one per program).
Since a hold shares its line, the 400-line fit keeps 12-14 programs of a UART's cover; with 12
calls the chain ran out before them (16: wbuart seed 1 92.29 -> 92.69, seed 2 92.81 -> 93.17,
uart_top and wbqspiflash unchanged). The moves and a put-back get theirs on top (`chain.reserve`)."""

SHRINK_SHARE = 0.15
"""Share of a proposal's simulator calls held back for shrinking the programs when the
testbench would be longer than MAX_TB_LINES (otherwise the search gets them too)."""

SEED_LABEL = "scenario seeded program"
"""Trial label of the programs `run_engine(seeds=...)` plays as openings (gains reported under it)."""

TIMEOUT_RETRY = 3.0
"""A trial that hits its time limit runs once more with this many times the limit before it
counts as a timeout (a loaded machine must not change which programs are kept)."""


@dataclass(frozen=True)
class EngineReport:
    """What one engine run did (summarised in `Proposal.response`)."""

    strategy: str
    """`heuristic` or `random`."""
    search: ProgramSearchResult | None
    """The search (None when the harness could not be built)."""
    final: SimResult | None
    """The final testbench's own observation."""
    sim_calls: int
    """Simulator calls spent (trials + the final check)."""
    wall_s: float
    """Seconds the engine ran."""
    reproduced: bool
    """True when the final testbench covered exactly the points (the same set) its programs covered in the search."""
    note: str = ""
    """Why something did not work, or why the search stopped early ('' when all went well)."""
    cocotb: str = ""
    """The same program as a cocotb test ('' when there is none)."""
    mutation: str = ""
    """With the `coverage+mutation` objective: what the mutation phase did ('' otherwise)."""
    program: Program = field(default_factory=Program)
    """The final program (its text form is in `program_text`)."""

    @property
    def program_text(self) -> str:
        """The final program in its plain text form."""
        return format_program(self.program)

    def summary(self) -> str:
        """A few lines for `Proposal.response` and logs."""
        if self.search is None:
            return f"{self.strategy} engine: {self.note}"
        s = self.search
        cov = (
            self.final.coverage
            if self.final is not None and self.final.coverage is not None
            else None
        )
        pct = (
            f"overall {cov.overall:.2f}% ("
            + ", ".join(f"{k} {v:.1f}%" for k, v in cov.percents().items())
            + ")"
            if cov
            else f"{s.covered}/{s.total} points in the search"
        )
        lines = [
            f"{self.strategy} engine: {len(s.trials)} trials, {len(s.entries)} programs kept "
            f"({len(self.program)} operations); {pct}; {self.sim_calls} sim calls, {self.wall_s:.1f} s"
        ]
        moves = ", ".join(
            f"{k} +{v}"
            for k, v in sorted(s.move_gains.items(), key=lambda kv: -kv[1])[:6]
        )
        if moves:
            lines.append(f"gains by move: {moves}")
        lines += summarize_failures(s.failures)
        if self.final is not None and not self.reproduced:
            lines.append(
                "note: the testbench run alone covered other points than its programs did in the search"
            )
        if self.mutation:
            lines.append(f"mutation objective: {self.mutation}")
        if self.note:
            lines.append(f"note: {self.note}")
        return "\n".join(lines)


def design_line_reader(design: Design) -> Callable[[str], list[str] | None]:
    """Read a source file a run's log names, if it is one of the design's own files.

    Logs name files as the simulator was given them, often relative to a sandbox folder that
    no longer exists, so a name matches a design file by its path suffix. The log is the run's
    output and could name anything: any other file gets no text.
    """
    files = [Path(p) for p in design.rtl]
    source = restricted_reader(files)

    def read(name: str) -> list[str] | None:
        parts = Path(name).parts
        hits = [f for f in files if parts and f.parts[-len(parts):] == parts]
        return source(str(hits[0])) if len(hits) == 1 else None

    return read


def make_target(
    design: Design, iface: DesignInterface, strategy: str
) -> tuple[Target, Hints]:
    """The design as programs see it, and the hints the search starts from."""
    layout = make_layout(design, iface)
    if strategy == "random":
        hints = sr.plain_hints(layout)
        return Target(layout, recognise(layout), hints.palettes), hints
    hints = sr.mine_hints(layout, iface, mine_spec(design.spec_text(), layout.fields))
    params = {p.name: p.value for p in iface.parameters if isinstance(p.value, int)}
    interfaces = recognise(
        layout,
        params=params,
        constants=iface.constants,
        write_ports=iface.write_ports,
        slices=iface.slices,
        templates=iface.templates,
        lane_selects=one_hot_selects(iface.conditions, iface.upstream, [name for name, _ in iface.resets]),
        counters=counter_limits(iface.conditions),
        commands=command_bytes(iface.conditions),
        wide=wide_operands(iface.conditions),
        i2c_addresses=target_addresses(params, iface.conditions),
    )
    return Target(layout, interfaces, hints.palettes), hints


def _placeholder_tb(design: Design, iface: DesignInterface | None, note: str) -> str:
    """A minimal testbench used when nothing better could be produced (`note` says why, on comment lines)."""
    # A note may quote a tool's multi-line output: each of its lines stays a comment.
    lines = [line for line in note.splitlines() if line.strip()] or ["no testbench"]
    if iface is None:
        comments = "".join(f"// {line}\n" for line in lines)
        return (
            f"{comments}module tb_{design.top};\n  {design.top} {design.dut_instance} ();\n"
            "  initial #100 $finish;\nendmodule\n"
        )
    target, _ = make_target(design, iface, "random")
    return render_testbench(target, Program(), title=lines[0], notes=lines[1:])


def _trial_runner(
    built: BuiltTestbench, target: Target, sim_seed: int
) -> Callable[[Program], SimResult]:
    """`run(program)`: one harness run, retried once with a longer limit when it times out."""

    def run(program: Program) -> SimResult:
        files = {DATA_FILE: encode(target, program)}
        result = built.run(files, seed=sim_seed)
        if result.status == Status.TIMEOUT:
            longer = replace(
                built,
                options=replace(
                    built.options,
                    run_timeout_s=built.options.run_timeout_s * TIMEOUT_RETRY,
                ),
            )
            result = longer.run(files, seed=sim_seed)
        return result

    return run


def run_engine(
    design: Design,
    *,
    strategy: str,
    budget: Budget,
    seed: int = 0,
    holes: Sequence[UncoveredPoint] = (),
    options: SimOptions = SimOptions(),
    config: ProgramSearchConfig | None = None,
    previous: str | None = None,
    verify: bool = True,
    objective: str = "coverage",
    mutation_cap: int | None = None,
    on_trial: Callable[[Program, SimResult], None] | None = None,
    seeds: Sequence[Program] = (),
) -> tuple[str, EngineReport]:
    """Search programs for `design` within `budget`; the final testbench text and a report.

    `previous` is the current testbench: when it is one of the engine's own for this
    design, its programs are re-run first and the search continues from them. Each call
    spends at most an even share of the budget over the episode steps still to come
    (`budget.steps_left`), so the refinements get their turn. With `verify`, the final
    testbench is also simulated on its own (one more call); an episode skips that, since
    its loop simulates every proposal anyway. With `objective="coverage+mutation"` the
    coverage search gets part of the share and the rest goes to programs that kill the
    design's mutants (`mutation_objective.hunt`; at most `mutation_cap` mutants). `on_trial`
    sees every program the search runs and its result, in order (training reads the search's
    states from it). `seeds` (a model's programs) are played as openings right after the
    engine's first one (a budget of one trial still gets the engine's), labelled SEED_LABEL.

    The search's decisions depend only on the seed, the design and the call budget: the
    wall-clock deadline can stop it (the report says so), never steer it.
    """
    if objective not in OBJECTIVES:
        raise ValueError(
            f"objective {objective!r} is not in supported list: {', '.join(OBJECTIVES)}"
        )
    start = time.monotonic()
    try:
        iface = read_interface(design)
    except DesignError as exc:
        note = f"cannot read the design interface: {exc}"
        return _placeholder_tb(design, None, note), EngineReport(
            strategy, None, None, 0, 0.0, False, note
        )
    target, hints = make_target(design, iface, strategy)
    built = build_sv(
        design, render_harness(target), tb_name=f"{HARNESS_TOP}.sv", options=options
    )
    if isinstance(built, SimResult):
        note = f"harness build failed: {built.detail}"
        logger.warning("%s: %s", design.name, note)
        return _placeholder_tb(design, iface, note), EngineReport(
            strategy, None, None, 0, time.monotonic() - start, False, note
        )
    calls = 0
    trial = _trial_runner(built, target, 1 + seed % 0x7FFF_FFFE)

    def run(program: Program) -> SimResult:
        nonlocal calls
        calls += 1
        budget.spend(1)
        result = trial(program)
        if on_trial is not None:
            on_trial(program, result)
        return result

    reserve_s = FINAL_RESERVE_S + built.build_s
    share = max(MIN_SHARE, budget.sim_calls // (budget.steps_left + 1))
    # The recording of the final testbench's checks (one call), and its verification.
    final_calls = 2 if verify else 1
    hunting = objective == "coverage+mutation"
    coverage_share = (
        max(MIN_SHARE // 2, int(share * COVERAGE_SHARE)) if hunting else share
    )
    stopped_by_wall = False
    # The call plan: search, (shrink when the testbench would be too long), search on,
    # chain the kept programs (one call each, at most ASSEMBLY_CALLS), record the checks and verify (final_calls).
    # `stop_at` moves per phase; the calls kept for chaining follow the size of the cover.
    stop_at = coverage_share - final_calls
    search: ProgramSearch | None = None

    cover_size = CoverSize()
    # Played after the search, one call each (`scenarios.closings`), chained at the end.
    closing = scenarios.closings(target) if strategy != "random" else []

    def assembly() -> int:
        if strategy == "random" or search is None or len(search.corpus) < 2:
            return 0
        # + the moves of the first program and a put-back (`chain.reserve`), + one per closing
        # scenario (tried at the chain's end)
        programs = cover_size(search.corpus, search.weigh) + len(search.witnesses)
        return min(ASSEMBLY_CALLS, programs) + chain.reserve(programs) + len(closing)

    def should_stop() -> bool:
        nonlocal stopped_by_wall
        reserve = assembly()
        if budget.sim_calls <= final_calls + reserve or calls >= stop_at - reserve:
            return True
        if budget.left_s() <= reserve_s:
            stopped_by_wall = True
            return True
        return False

    steerer = None
    if strategy != "random":

        def steerer(h: Hints, pts: Sequence[UncoveredPoint]) -> Hints:
            return sr.steer(
                h,
                target.layout,
                iface,
                pts,
                dut_scope=f"{HARNESS_TOP}.{target.layout.instance}",
            )

        if holes:
            hints = steerer(hints, holes)

    read_lines = design_line_reader(design)

    def blame(res: SimResult) -> tuple[Sequence[str], bool]:
        return (
            sr.blamed_fields(target.layout, res.log_tail, read_lines),
            sr.inputs_only(target.layout, res.log_tail, read_lines),
        )

    cfg = config or ProgramSearchConfig(seed=seed, strategy=strategy)
    initial = parse_testbench(previous, target) if previous else None
    search = ProgramSearch(
        target,
        run,
        hints=hints,
        config=cfg,
        should_stop=should_stop,
        steerer=steerer,
        blame=blame if strategy != "random" else None,
    )
    if initial and strategy != "random":
        search.continue_from(chapters(initial))
    if seeds and strategy != "random":
        if search.openings is None:  # what the first candidate would draw, drawn now
            search.openings = scenarios.scenarios(search.rng, target, search.hints)
        at = min(1, len(search.openings))
        search.openings[at:at] = [(SEED_LABEL.removeprefix("scenario "), p) for p in seeds]
    # Search, but hold some calls back in case the programs need shrinking to stay readable,
    # and one per closing scenario (played after the search: its course stays its own).
    end = stop_at
    stop_at = end - len(closing) - (int(coverage_share * SHRINK_SHARE) if strategy != "random" else 0)
    search.run()
    stop_at = end - len(closing)
    if (
        strategy != "random"
        and tb_lines(target, search.result(), design) > MAX_TB_LINES
    ):
        search.shrink(should_stop)
    if tb_lines(target, search.result(), design) <= MAX_TB_LINES:
        search.run()
    stop_at = end
    for name, program in closing:
        if search.complete() or should_stop():
            break
        search.play(f"scenario {name}", program)
    before_fit = search.result()
    result = fit_lines(target, before_fit, design, search.weigh)
    logger.debug(
        "cover: %s; after fitting %d lines: %s",
        [(e.label, len(e.covered)) for e in before_fit.entries],
        MAX_TB_LINES,
        [(e.label, len(e.covered)) for e in result.entries],
    )
    program = result.program
    starts = tuple(chain_starts(result.entries))
    if strategy != "random" and len(result.entries) > 1:
        # Judged alone, the programs must also add up when they run one after another.
        program, kept, assembled = search.assemble(
            result.entries,
            lambda keep: (
                budget.sim_calls <= final_calls + keep or calls >= coverage_share - final_calls - keep
            ),
        )
        if not program.ops:  # every chained run failed (timeouts on a loaded machine): the cover unchained
            program = result.program
        elif assembled is not None and assembled.coverage is not None:
            result = replace(result, entries=tuple(e for _, e in kept), keys=covered_keys(assembled))
            starts = tuple(at for at, _ in kept)
    hunted = ""
    if hunting:
        from agent.heuristic.mutation_objective import mutation_phase

        def hunt_stop() -> bool:
            return (
                budget.sim_calls <= final_calls
                or budget.left_s() <= reserve_s
                or calls >= share - final_calls
            )

        def count() -> None:
            nonlocal calls
            calls += 1
            budget.spend(1)

        program, hunted = mutation_phase(
            design,
            target,
            program,
            hints=hints,
            steerer=steerer,
            seed=seed,
            options=options,
            cap=mutation_cap,
            should_stop=hunt_stop,
            count=count,
        )
    def render(checks: chk.Checks | None) -> str:
        return render_final(target, result, program, strategy, design, starts, checks)

    tb, recording, checked = render(None), None, "no checks: no simulator call left to record them"
    # The share is a plan, the budget the limit: a search whose programs and witnesses used its
    # whole share (a refinement round's) still records its checks with a call of the budget's,
    # or an episode's later testbench of equal coverage would replace one that checks.
    if budget.sim_calls > (1 if verify else 0):
        calls += 1
        budget.spend(1)
        tb, recording, checked = with_checks(design, render, target, chk.phase_count(len(result.entries)), options)
    final: SimResult | None = None
    note = (
        "stopped by the wall-clock limit before the simulator-call budget was spent"
        if stopped_by_wall
        else ""
    )
    if verify and budget.sim_calls > 0:
        calls += 1
        budget.spend(1)
        final = evaluate_sv(design, tb, tb_name=f"tb_{design.top}.sv", options=options)
        if chk.mismatches(final.log_tail) and recording is not None:
            # The same stimulus answered differently twice: nothing here can be checked.
            checked = "no checks: two runs of the same testbench differed (" + chk.mismatches(final.log_tail)[0] + ")"
            tb, final = render(None), recording
        if final.status != Status.OK:
            note = f"final testbench: {final.status.value}: {final.detail}"
    if checked:
        note = f"{note}; {checked}" if note else checked
    reproduced = reproduces(final, result)
    cocotb = _cocotb(target, program)
    report = EngineReport(
        strategy,
        result,
        final,
        calls,
        time.monotonic() - start,
        reproduced,
        note,
        cocotb,
        hunted,
        program,
    )
    return tb, report


def reproduces(final: SimResult | None, result: ProgramSearchResult) -> bool:
    """Whether the final testbench's own run covered exactly the points its programs covered.

    The same points, not just as many: a testbench that loses one branch and gains another
    toggle did not reproduce its search.
    """
    if final is None or final.report is None:
        return False
    # The final testbench's top is not the search harness's: compare keys below the top.
    return {top_free_key(k) for k in covered_keys(final)} == {top_free_key(k) for k in result.keys}


def with_checks(
    design: Design,
    render: Callable[[chk.Checks | None], str],
    target: Target,
    phases: int,
    options: SimOptions,
) -> tuple[str, SimResult | None, str]:
    """(testbench with its checks, the recording run, note): record every output's signatures, then render them.

    One simulator call (the recording). Without an output to check (every one an unpacked
    array), or when the recording fails, the testbench is rendered without checks and the note
    says why.
    """
    plan = chk.plan(target)
    if not plan.outputs:
        why = plan.left_out[0][1] if plan.left_out else "the design has no outputs"
        return render(None), None, f"no checks: {why}"
    rec = evaluate_sv(design, render(plan), tb_name=f"tb_{design.top}.sv", options=options)
    values = chk.parse_signatures(rec.log_tail, phases, len(plan.outputs)) if rec.status == Status.OK else None
    if values is None:
        return render(None), rec, f"no checks: the recording run ended {rec.status.value} without signatures"
    return render(replace(plan, expected=values, reads=chk.parse_reads(rec.log_tail))), rec, ""


def _cocotb(target: Target, program: Program) -> str:
    """The program as a cocotb test ('' when the renderer cannot express it)."""
    if not program.ops:
        return ""
    try:
        from agent.program.cocotb import render_cocotb
    except ImportError:
        return ""
    return render_cocotb(target, program)
