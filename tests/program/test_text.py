"""The program text form: an exact round trip, and clear errors for programs that do not fit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.program.ops import SPECS, Op, Program, ProgramError, Scope, check, op
from agent.program.text import (
    canonical_program,
    format_program,
    parse_number,
    parse_program,
)

SCOPE = Scope(
    fields={"rst_n": 1, "en": 1, "addr": 8, "data": 32, "wide": 70},
    outputs={"busy": 1, "q": 16},
    names={"bus": ("wb",), "responder": ("mem",), "stream": ("s_axis",), "sink": ("m_axis",),
           "serial": ("uart_rx",), "loopback": ("uart_rx",), "port": ("table",)},
)

EXAMPLE = """\
reset
respond mem seed=7
bus_write wb 1 0x10
bus_read wb 2
bus_read wb 3 strb=2
set en=1 addr=0x7f
random 200 0x1f3a pal=60 only=en,addr
repeat 4 {
  serial uart_rx 25 0x55,0x1ff parity=even
  hold 100
}
wait busy 0 timeout=50
avoid en=1 addr=0
"""


def test_example_round_trips_exactly() -> None:
    program = parse_program(EXAMPLE)
    assert format_program(program) == EXAMPLE
    check(program, SCOPE)
    assert [o.name for o in program.ops][:3] == ["reset", "respond", "bus_write"]
    assert program.ops[7].body[0].get("data") == (0x55, 0x1FF)
    assert program.ops[4].get("strb") == 2


def _value(arg_kind: str, draw: st.DrawFn) -> object:
    if arg_kind in ("int", "seed"):
        return draw(st.integers(1, 200))
    if arg_kind == "ints":
        return tuple(draw(st.lists(st.integers(0, 0x1FF), min_size=1, max_size=4)))
    if arg_kind.startswith("choice:"):
        return draw(st.sampled_from(arg_kind.split(":", 1)[1].split("|")))
    kind = arg_kind.split(":", 1)[1]
    names = tuple(SCOPE.fields) if kind == "field" else tuple(SCOPE.outputs) if kind == "output" \
        else SCOPE.names[kind]
    if arg_kind.startswith("names:"):
        return tuple(draw(st.lists(st.sampled_from(names), max_size=3, unique=True)))
    return draw(st.sampled_from(names))


@st.composite
def operations(draw: st.DrawFn, depth: int = 0) -> Op:
    spec = draw(st.sampled_from([s for s in SPECS if not s.block or depth == 0]))
    if spec.assigns:
        names = draw(st.lists(st.sampled_from(sorted(SCOPE.fields)), min_size=1, max_size=3, unique=True))
        return Op(spec.name, tuple((n, draw(st.integers(0, 1))) for n in names))
    args = [(a.name, _value(a.kind, draw)) for a in spec.args if a.required or draw(st.booleans())]
    body = tuple(draw(st.lists(operations(depth + 1), min_size=1, max_size=3))) if spec.block else ()
    return Op(spec.name, tuple(args), body)


@settings(max_examples=200, deadline=None)
@given(st.lists(operations(), max_size=8))
def test_any_program_round_trips(ops: list[Op]) -> None:
    program = Program(tuple(ops))
    text = format_program(program)
    assert parse_program(text) == canonical_program(program)
    assert format_program(parse_program(text)) == text


@pytest.mark.parametrize(("text", "message"), [
    ("jump 3", "unknown operation 'jump'"),
    ("hold", "missing cycles"),
    ("hold x", "is not a number"),
    ("random 10 0x1 colour=3", "no argument 'colour'"),
    ("repeat 2 {\n hold 1\n", "not closed"),
    ("}", "closes no block"),
    ("repeat 2", "needs a block"),
    ("set en", "field=value"),
])
def test_parse_errors_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ProgramError, match=message):
        parse_program(text)


@pytest.mark.parametrize(("text", "message"), [
    ("set enable=1", "'enable' is not an input"),
    ("set addr=0x100", "fits 8 bits"),
    ("bus_write apb 1 2", "'apb': not a bus of this design"),
    ("toggle addr 9", "has 8 bits"),
    ("random 5 0x1 pal=101", "0..100"),
    ("wait ready 1", "not a output"),
])
def test_programs_that_do_not_fit_the_design_are_refused(text: str, message: str) -> None:
    with pytest.raises(ProgramError, match=message):
        check(parse_program(text), SCOPE)


def test_operations_a_design_lacks_are_refused() -> None:
    bare = Scope(fields={"a": 4})
    with pytest.raises(ProgramError, match="no bus"):
        check(parse_program("bus_read wb 0"), bare)
    assert "bus_write" not in {s.name for s in bare.available()}
    assert {"reset", "random", "set"} <= {s.name for s in bare.available()}


def test_numbers_in_the_forms_people_write() -> None:
    assert [parse_number(t) for t in ("12", "0x1f", "0b101", "8'hff", "'d3", "4'b1_0_1_0", "16'hx")] == \
        [12, 31, 5, 255, 3, 10, 0]
    with pytest.raises(ValueError, match="negative"):
        parse_number("-1")


def test_builder_takes_positional_then_named() -> None:
    assert op("reset", 5) == Op("reset", (("cycles", 5),))
    assert op("bus_write", "wb", 1, 2, strb=3).get("strb") == 3
    with pytest.raises(ProgramError):
        op("hold", 1, 2)
