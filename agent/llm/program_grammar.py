"""A GBNF grammar per design that admits only stimulus programs that fit it (program mode).

Generated from the design's `Target`: the operations its scope supports, its field,
output, bus, stream and write-port names, literals sized to each field's width, counts
within each argument's range (tighter than `agent.program.ops` where a small model could
ask for a run that never ends), and the canonical argument order of `format_program`. A
reply the grammar admits parses with `parse_program` and passes `check(program, scope)`,
so with llama.cpp every program-mode reply builds.

The language is regular (one level of `repeat`), so every rule is also written as a Python
regular expression (`ProgramGrammar.regex`): tests and the training data check texts
against exactly the language the GBNF admits, with no model in the loop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from agent.program.interfaces import Iface
from agent.program.ops import BY_NAME, FILLS, PATTERNS
from agent.program.target import Target

MAX_LINES = 24
"""Most top-level lines of a program (a `repeat` block counts one)."""

MAX_BLOCK_LINES = 6
"""Most lines inside a `repeat` block."""

MAX_REPEAT = 8
"""Most iterations of a `repeat` block (the spec allows 1000; a loop of long runs would time out)."""

MAX_CYCLES_DIGITS = 5
"""Cycle counts have at most this many decimal digits (<= 99999; the spec allows 10**6)."""

MAX_PAIRS = 8
"""Most field=value pairs of one `set` or `avoid`."""

MAX_LIST = 8
"""Most names in `only=` and bytes in `serial`."""

FENCE = "```"
"""The program is one fenced block: the opening fence, its lines, the closing fence."""


@dataclass(frozen=True)
class E:
    """One grammar expression, written both as GBNF and as a Python regular expression."""

    gbnf: str
    """GBNF text."""
    rx: str
    """Python `re` text of the same language."""


def lit(text: str) -> E:
    """A literal string."""
    return E(json.dumps(text), re.escape(text))


def cls(chars: str) -> E:
    """A character class body such as `0-9a-f`."""
    return E(f"[{chars}]", f"[{chars}]")


def seq(*parts: E) -> E:
    """Concatenation."""
    parts = tuple(p for p in parts if p.gbnf)
    if len(parts) == 1:
        return parts[0]
    return E(" ".join(p.gbnf for p in parts), "".join(p.rx for p in parts))


def alt(*parts: E) -> E:
    """Alternation (duplicates dropped, order kept)."""
    unique = list(dict.fromkeys(parts))
    if len(unique) == 1:
        return unique[0]
    return E("(" + " | ".join(p.gbnf for p in unique) + ")", "(?:" + "|".join(p.rx for p in unique) + ")")


def rep(part: E, lo: int, hi: int) -> E:
    """`lo` to `hi` repetitions."""
    if hi == 0:
        return E("", "")
    if lo == hi == 1:
        return part
    if (lo, hi) == (0, 1):
        return E(f"({part.gbnf})?", f"(?:{part.rx})?")
    return E(f"({part.gbnf}){{{lo},{hi}}}", f"(?:{part.rx}){{{lo},{hi}}}")


def opt(part: E) -> E:
    """Zero or one."""
    return rep(part, 0, 1)


# ---------------------------------------------------------------------------- numbers


def _digit(lo: str, hi: str) -> E:
    return lit(lo) if lo == hi else cls(f"{lo}-{hi}")


def _same_length(lo: str, hi: str) -> list[E]:
    """Decimal numbers from `lo` to `hi`, both written with the same number of digits."""
    if len(lo) == 1:
        return [_digit(lo, hi)]
    if lo[0] == hi[0]:
        return [seq(lit(lo[0]), alt(*_same_length(lo[1:], hi[1:])))]
    rest = len(lo) - 1
    out: list[E] = []
    first, last = int(lo[0]), int(hi[0])
    if set(lo[1:]) != {"0"}:
        out.append(seq(lit(lo[0]), alt(*_same_length(lo[1:], "9" * rest))))
        first += 1
    top = last if set(hi[1:]) == {"9"} else last - 1
    if first <= top:
        out.append(seq(_digit(str(first), str(top)), rep(cls("0-9"), rest, rest)))
    if top < last:
        out.append(seq(lit(hi[0]), alt(*_same_length("0" * rest, hi[1:]))))
    return out


def decimal(lo: int, hi: int) -> E:
    """Decimal numbers `lo`..`hi` without leading zeros."""
    if lo < 0 or hi < lo:
        raise ValueError(f"bad range {lo}..{hi}")
    parts: list[E] = []
    for digits in range(len(str(lo)), len(str(hi)) + 1):
        a = max(lo, 10 ** (digits - 1) if digits > 1 else 0)
        b = min(hi, 10**digits - 1)
        if a <= b:
            parts += _same_length(str(a), str(b))
    return alt(*parts)


def sized(bits: int) -> E:
    """A value that fits `bits` bits, in canonical form: a decimal digit, or `0x` and hex digits."""
    bits = max(1, bits)
    if bits < 4:
        return decimal(0, (1 << bits) - 1)
    n = -(-bits // 4)
    top = (1 << (bits - 4 * (n - 1))) - 1
    top_digit = cls(f"0-{top}") if top < 10 else cls("0-9a-f")  # top is 0, 1, 3, 7 or 15
    hexa = seq(top_digit, rep(cls("0-9a-f"), n - 1, n - 1))
    shorter = rep(cls("0-9a-f"), 1, n - 1) if n > 1 else None
    return alt(cls("0-9"), seq(lit("0x"), alt(shorter, hexa) if shorter else hexa))


SEED = alt(cls("1-9"), seq(lit("0x"), cls("1-9a-f"), rep(cls("0-9a-f"), 0, 7)))
"""A non-zero 32-bit seed."""

MAX_COUNT = 10**MAX_CYCLES_DIGITS - 1
"""Largest cycle count, timeout or bit period the grammar writes."""


def count(op: str, arg: str, cap: int = MAX_COUNT) -> E:
    """A decimal argument in the range its spec allows (`agent.program.ops`), at most `cap`."""
    spec = next(a for a in BY_NAME[op].args if a.name == arg)
    return decimal(spec.lo, min(spec.hi, cap))


def choice(words: Iterable[str]) -> E:
    """One of some words."""
    return alt(*(lit(w) for w in words))


def named(name: str, value: E) -> E:
    """An optional ` name=value`."""
    return opt(seq(lit(f" {name}="), value))


# ---------------------------------------------------------------------------- the grammar


@dataclass
class ProgramGrammar:
    """The grammar of one design's programs: GBNF rules and the equivalent regular expression."""

    target: Target
    """The design as programs see it."""
    rules: dict[str, E] = field(default_factory=dict)
    """Rule name -> expression (GBNF rule names are [a-z0-9-])."""

    def rule(self, name: str, expr: E) -> E:
        """Define a rule and return a reference to it."""
        self.rules[name] = expr
        return E(name, f"(?:{expr.rx})")

    @cached_property
    def gbnf(self) -> str:
        """The GBNF text (`root` first)."""
        self._build()
        return "".join(f"{name} ::= {expr.gbnf}\n" for name, expr in self.rules.items())

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """A compiled regular expression that fully matches exactly the replies the GBNF admits."""
        self._build()
        return re.compile(self.rules["root"].rx)

    def admits(self, reply: str) -> bool:
        """Whether a reply is in the language (the whole text)."""
        return self.regex.fullmatch(reply) is not None

    def _build(self) -> None:
        if "root" in self.rules:
            return
        t = self.target
        scope = t.scope
        fields = list(scope.fields)
        field_name = self.rule("field", choice(fields)) if fields else None
        ops: list[E] = [self.rule("reset", seq(lit("reset"), opt(seq(lit(" "), count("reset", "cycles"))))),
                        self.rule("hold", seq(lit("hold "), count("hold", "cycles")))]
        if fields:
            pairs = [seq(lit(f"{f.name}="), sized(f.bits)) for f in t.fields]
            pair = self.rule("pair", alt(*pairs))
            ops.append(self.rule("set", seq(lit("set"), rep(seq(lit(" "), pair), 1, MAX_PAIRS))))
            assert field_name is not None
            only = seq(field_name, rep(seq(lit(","), field_name), 0, min(MAX_LIST, len(fields)) - 1))
            ops.append(self.rule("random", seq(
                lit("random "), count("random", "cycles"), lit(" "), SEED, named("pal", count("random", "pal")),
                named("keep", count("random", "keep")), named("maxhold", count("random", "maxhold")),
                named("resets", count("random", "resets")), named("only", only))))
            ops += [self.rule("corners", lit("corners")), self.rule("walk", lit("walk"))]
            ops.append(self.rule("toggle", seq(lit("toggle "), alt(
                *(seq(lit(f"{f.name} "), decimal(0, min(f.bits, 4096) - 1)) for f in t.fields)))))
            ops.append(self.rule("avoid", seq(lit("avoid"), rep(seq(lit(" "), pair), 1, 4))))
        outs = [(name, bits) for name, bits in t.outputs() if bits <= 64]
        if outs:
            ops.append(self.rule("wait", seq(lit("wait "), alt(*(seq(lit(f"{n} "), sized(b)) for n, b in outs)),
                                             named("timeout", count("wait", "timeout")))))
        ops += self._interface_ops()
        op_rule = self.rule("op", alt(*ops))
        block = seq(lit("repeat "), count("repeat", "times", MAX_REPEAT), lit(" {\n"),
                    rep(seq(lit("  "), op_rule, lit("\n")), 1, MAX_BLOCK_LINES), lit("}\n"))
        line = self.rule("line", alt(seq(op_rule, lit("\n")), self.rule("block", block)))
        # `root` first, for a reader of the GBNF (llama.cpp finds it by name).
        self.rules = {"root": seq(lit(FENCE + "\n"), rep(line, 1, MAX_LINES), lit(FENCE)), **self.rules}

    def _interface_ops(self) -> list[E]:
        t = self.target
        ifs = t.interfaces
        ops: list[E] = []
        if ifs.ports:
            writes = []
            for name, wp in ifs.ports:
                aw = next((s.width for s in t.layout.ports if s.name == wp.address), 1) if wp.address else 1
                dw = max(1, min(wp.width, max((b for _, _, b in wp.data), default=1)))
                writes.append(seq(lit(f"{name} "), sized(aw), lit(" "), sized(dw)))
            ops.append(self.rule("write", seq(lit("write "), alt(*writes))))
            ops.append(self.rule("fill", seq(lit("fill "), choice(n for n, _ in ifs.ports),
                                             named("pattern", choice(p for p in PATTERNS if p != "ramp")),
                                             named("seed", SEED))))
        if ifs.buses:
            writes = [seq(lit(f"{b.name} "), sized(max(1, b.addr_bits)), lit(" "), sized(max(1, b.data_bits)),
                          named("strb", sized(max(1, min(8, b.data_bits // 8))))) for b in ifs.buses]
            reads = [seq(lit(f"{b.name} "), sized(max(1, b.addr_bits)),
                         named("strb", sized(max(1, min(8, b.data_bits // 8))))) for b in ifs.buses]
            ops.append(self.rule("bus-write", seq(lit("bus_write "), alt(*writes))))
            ops.append(self.rule("bus-read", seq(lit("bus_read "), alt(*reads))))
        if ifs.streams:
            ops.append(self.rule("send", seq(lit("send "), alt(*(self._send(s) for s in ifs.streams)))))
        if ifs.sinks:
            ops.append(self.rule("sink", seq(lit("sink "), choice(s.name for s in ifs.sinks),
                                             named("ready", count("sink", "ready")), named("seed", SEED))))
        if ifs.responders:
            ops.append(self.rule("respond", seq(lit("respond "), choice(r.name for r in ifs.responders),
                                                named("fill", choice(f for f in FILLS if f != "decode")),
                                                named("seed", SEED), named("latency", count("respond", "latency")))))
        if ifs.serials:
            byte = sized(9)
            frames = seq(byte, rep(seq(lit(","), byte), 0, MAX_LIST - 1))
            ops.append(self.rule("serial", seq(
                lit("serial "), choice(s.name for s in ifs.serials), lit(" "), count("serial", "period"), lit(" "),
                frames, named("parity", choice(("even", "odd"))), named("stop", count("serial", "stop")))))
            looped = [s.name for s in ifs.serials if s.partner]
            if looped:
                ops.append(self.rule("loopback", seq(lit("loopback "), choice(looped), named("on", count("loopback", "on")))))
        return ops

    @staticmethod
    def _send(s: Iface) -> E:
        lanes = named("lane", count("send", "lane", s.lanes - 1)) if s.lanes > 1 else E("", "")
        return seq(lit(f"{s.name} "), count("send", "beats"), named("seed", SEED), named("gap", count("send", "gap")),
                   lanes)


def program_grammar(target: Target) -> ProgramGrammar:
    """The grammar of `target`'s programs."""
    return ProgramGrammar(target)


def reply_text(program_text: str) -> str:
    """The reply the grammar produces for a program's canonical text (what SFT targets are)."""
    return f"{FENCE}\n{program_text.rstrip(chr(10))}\n{FENCE}"


def outside(grammar: ProgramGrammar, texts: Sequence[str]) -> list[int]:
    """Indexes of program texts whose replies the grammar does not admit."""
    return [k for k, text in enumerate(texts) if not grammar.admits(reply_text(text))]


def make_llama_grammar(gbnf: str) -> Any:
    """A `llama_cpp.LlamaGrammar` from GBNF text (needs the `llama` extra)."""
    from llama_cpp.llama_grammar import LlamaGrammar

    return LlamaGrammar.from_string(gbnf, verbose=False)
