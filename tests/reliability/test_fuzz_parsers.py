"""Property fuzzing of the pure parsers: they never crash, and raise only their documented errors.

Bounded for CI: each property runs at most MAX_EXAMPLES examples and stops early after
TIME_CAP_S seconds. Executions are counted into the session figures (`fuzz_executions`).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.llm.parse import FormatError, parse_response
from sim.errors import CoverageParseError, DesignError
from sim.run.coverage import HEADER, parse_coverage, parse_waivers
from sim.run.messages import parse_messages
from sim.sandbox.guard import check_cocotb, check_sv, strip_comments, sv_unescape
from sim.suite import parse_design

MAX_EXAMPLES = 400
TIME_CAP_S = 6.0
FUZZ = settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


class Budget:
    """Counts executions; skips the remaining examples once the time cap is reached."""

    def __init__(self, figures, name: str) -> None:
        self.figures, self.name, self.start = figures, name, time.monotonic()

    def tick(self) -> bool:
        if time.monotonic() - self.start > TIME_CAP_S:
            return False
        self.figures.add("fuzz_executions")
        self.figures.add(f"fuzz_{self.name}")
        return True


# Text built from the parsers' own vocabulary finds more than uniform noise.
FRAGMENTS = st.sampled_from([
    HEADER, "\n", "C '", "' ", "\x01", "\x02", "t", "line", "page", "v_line/m", "f", "l", "n", "o", "h", "S",
    "1", "0", "-", ",", "12-3", "'", " ", "#", "\r", "%Error", "%Warning-WIDTH", ": ", "a.sv:", "3:", "4:",
    "```", "```systemverilog", "filename: tb_x.sv", "module ", "endmodule", "<think>", "</think>", "//", "/*",
    "*/", '"', "\\", "$system", "$fopen(", "$c(", '"DPI-C"', "import ", "`include", "`define", "..", "/",
    "\\056", "\\x2e", "~", "(", ")", ",", '"w"', "tb_", "\x00", "é", "\udcff",
])
TEXT = st.one_of(st.text(max_size=400), st.lists(FRAGMENTS, max_size=60).map("".join))

# Coverage records that get past the line-level checks: `C '<key>' <count>` with keys made of
# the real field names and separators, and counts that are sometimes not numbers. Uniform
# fragments almost never assemble a whole record, so the key/value and count paths need these.
KEY_PART = st.sampled_from(["\x01", "\x02", "t", "line", "branch", "page", "v_line/m", "v_toggle/", "f", "a.sv",
                            "l", "n", "o", "h", "S", "12", "3-1", "4,6-7", "x", "", "'", " "])
PAIR = st.tuples(st.sampled_from(["t", "page", "f", "l", "n", "o", "h", "S", "", "q"]),
                 st.sampled_from(["line", "branch", "v_line/m", "v_toggle/", "a.sv", "12", "0", "x", "3-1",
                                  "4,6-7", "", "'", " ", "\u0661"]))
KEY = st.one_of(st.lists(PAIR, max_size=8).map(lambda pairs: "".join(f"\x01{n}\x02{v}" for n, v in pairs)),
                st.lists(KEY_PART, max_size=24).map("".join))
RECORD = st.builds(lambda key, count: f"C '{key}' {count}", KEY,
                   st.sampled_from(["0", "7", "x", "-1", "\u0661", "\u00b2", " 3 ", "99999999999999999999"]))
RECORDS = st.lists(RECORD, min_size=1, max_size=8).map("\n".join)


@pytest.fixture(scope="module")
def fuzz_seconds(figures):
    start = time.monotonic()
    yield
    figures.note("fuzz_seconds", round(time.monotonic() - start, 2))


def test_parse_coverage_never_crashes(figures, fuzz_seconds) -> None:
    b = Budget(figures, "parse_coverage")

    @FUZZ
    @given(TEXT, st.booleans())
    def prop(text: str, with_header: bool) -> None:
        if not b.tick():
            return
        try:
            report = parse_coverage((HEADER + "\n" if with_header else "") + text, source="f.dat")
        except CoverageParseError as exc:
            assert exc.file == "f.dat"  # noqa: PT017
            assert exc.line >= 1  # noqa: PT017
        else:
            assert all(p.count >= 0 for p in report.points)

    prop()


def test_parse_coverage_records_never_crash(figures, fuzz_seconds) -> None:
    b = Budget(figures, "parse_coverage_records")

    @FUZZ
    @given(RECORDS)
    def prop(records: str) -> None:
        if not b.tick():
            return
        try:
            report = parse_coverage(HEADER + "\n" + records, source="f.dat")
        except CoverageParseError as exc:
            assert exc.file == "f.dat"  # noqa: PT017
            assert exc.line >= 2  # noqa: PT017
        else:
            assert all(p.count >= 0 and p.kind for p in report.points)

    prop()


def test_parse_waivers_never_crashes(figures, fuzz_seconds) -> None:
    b = Budget(figures, "parse_waivers")

    @FUZZ
    @given(TEXT)
    def prop(text: str) -> None:
        if b.tick():
            with contextlib.suppress(CoverageParseError):
                parse_waivers(text, "w.txt")

    prop()


def test_parse_messages_never_crashes(figures, fuzz_seconds) -> None:
    b = Budget(figures, "parse_messages")

    @FUZZ
    @given(TEXT)
    def prop(text: str) -> None:
        if b.tick():
            msgs = parse_messages(text)
            assert all(m.severity in ("error", "warning") and m.line >= 0 for m in msgs)

    prop()


def test_parse_response_only_raises_format_error(figures, fuzz_seconds) -> None:
    b = Budget(figures, "parse_response")

    @FUZZ
    @given(TEXT, st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True))
    def prop(text: str, top: str) -> None:
        if not b.tick():
            return
        try:
            tb = parse_response(text, top)
        except FormatError as exc:
            assert exc.message  # noqa: PT017
        else:
            assert tb.code.endswith("\n")
            assert tb.filename.startswith("tb_")
            assert tb.filename.endswith(".sv")
            assert "/" not in tb.filename

    prop()


def test_check_sv_never_crashes(figures, fuzz_seconds) -> None:
    b = Budget(figures, "check_sv")

    @FUZZ
    @given(TEXT)
    def prop(text: str) -> None:
        if not b.tick():
            return
        lines = text.count("\n") + 1
        assert all(1 <= v.line <= lines for v in check_sv(text))
        assert len(strip_comments(text)) == len(text)
        sv_unescape(text)

    prop()


def test_check_cocotb_never_crashes(figures, fuzz_seconds) -> None:
    b = Budget(figures, "check_cocotb")

    @FUZZ
    @given(TEXT)
    def prop(text: str) -> None:
        if b.tick():
            check_cocotb(text)

    prop()


TOML_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
DESIGN_KEYS = st.sampled_from(["top", "rtl", "resets", "human_test", "target", "include_dirs", "spec", "clocks",
                               "defines", "name", "dut_instance", "description", "source", "kind", "files"])


def test_parse_design_only_raises_design_error(figures, fuzz_seconds) -> None:
    b = Budget(figures, "parse_design")

    @FUZZ
    @given(st.dictionaries(DESIGN_KEYS, TOML_VALUES, max_size=8))
    def prop(data: dict) -> None:
        if not b.tick():
            return
        try:
            design = parse_design(data, Path("/d"))
        except DesignError as exc:
            assert "design.toml" in str(exc)  # noqa: PT017
        else:
            assert design.rtl

    prop()
