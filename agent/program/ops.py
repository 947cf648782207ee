"""The operations of a stimulus program, their arguments, and checking a program against a design.

A program is a short list of operations (`reset 3`, `bus_write wb 0x1 0x10`, `random 200 seed=7`,
`respond mem fill=decode seed=3`, `repeat 4 { ... }`). Every operation has a spec: its
positional and named arguments with kinds, defaults and ranges, and the kind of interface
it needs. Names (fields, buses, streams, write ports, ...) are checked against a `Scope`,
the design's vocabulary, so a program either fits the design or says exactly what does not.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

Value: TypeAlias = int | str | tuple[int, ...] | tuple[str, ...]
"""An argument value: a number, a name or choice, or a list of either."""

MAX_CYCLES_ARG = 1_000_000
"""Largest cycle count one operation may ask for."""


@dataclass(frozen=True)
class Arg:
    """One argument of an operation."""

    name: str
    """Argument name (also its `name=value` key in the text form)."""
    kind: str
    """`int`, `seed`, `name:<scope kind>` (a bus, stream, field, ...), `choice:a|b|c`, `ints`
    (a comma list of numbers) or `names:<scope kind>` (a comma list of names)."""
    default: Value | None = None
    """Value when omitted; None makes the argument required (and positional)."""
    lo: int = 0
    """Smallest allowed number (int kinds)."""
    hi: int = (1 << 32) - 1
    """Largest allowed number (int kinds)."""
    doc: str = ""
    """What it means (shown to language models and in the README)."""
    hex: bool = False
    """Written in hex (addresses, data, seeds) rather than decimal (counts, percentages)."""

    @property
    def required(self) -> bool:
        """True when the argument has no default (it is written positionally)."""
        return self.default is None

    @property
    def choices(self) -> tuple[str, ...]:
        """The allowed words of a `choice:` argument."""
        return tuple(self.kind.split(":", 1)[1].split("|")) if self.kind.startswith("choice:") else ()


@dataclass(frozen=True)
class OpSpec:
    """What an operation takes and needs."""

    name: str
    """Operation name (first word of its line)."""
    args: tuple[Arg, ...]
    """Arguments: required ones first, in positional order."""
    doc: str
    """One line on what it does."""
    needs: str = ""
    """Scope kind the design must have for the operation to exist (`bus`, `stream`, ...); '' always."""
    assigns: bool = False
    """True when the operation takes free `field=value` pairs (`set`, `avoid`)."""
    block: bool = False
    """True for `repeat N { ... }`."""
    background: bool = False
    """True when the operation starts something that runs until the next reset (a responder)."""
    positional: int = -1
    """How many leading arguments are written without `name=` (-1: the required ones)."""

    @property
    def n_positional(self) -> int:
        """Leading arguments written positionally."""
        return self.positional if self.positional >= 0 else sum(1 for a in self.args if a.required)


PATTERNS: tuple[str, ...] = ("ramp", "down", "ones", "checker", "walking", "recip", "palette", "random")
"""Data patterns `fill` writes through a write port."""

FILLS: tuple[str, ...] = ("decode", "random", "zero", "ramp")
"""What a responder's memory model holds: words built from the decoder's constants, random, zeros, a ramp."""

IDIOMS = "idioms"
"""A RISC-V core's memory that starts with instruction idioms random words never form (`isa.idioms`)."""

SPECS: tuple[OpSpec, ...] = (
    OpSpec("reset", (Arg("cycles", "int", 3, 1, 64, "cycles the resets are held asserted"),),
           "assert every reset, stop every background responder, release", positional=1),
    OpSpec("hold", (
        Arg("cycles", "int", None, 1, MAX_CYCLES_ARG, "clock cycles to wait"),
        Arg("grow", "int", 0, 0, 4096, "cycles added on each later pass of the enclosing repeat (a sweep: "
                                        "the next pass acts one phase later against the design's own rhythm)"),
    ), "keep every input as it is for some cycles"),
    OpSpec("set", (), "set inputs (`set en=1 addr=0x10`); they hold until changed", assigns=True),
    OpSpec("random", (
        Arg("cycles", "int", None, 1, MAX_CYCLES_ARG, "steps of random values"),
        Arg("seed", "seed", None, 1, (1 << 32) - 1, "seed of the generator (runs reproduce)", hex=True),
        Arg("pal", "int", 40, 0, 100, "percent of values drawn from the design's interesting constants"),
        Arg("keep", "int", 30, 0, 100, "percent of fields that keep their value in a step"),
        Arg("maxhold", "int", 1, 1, 64, "each step lasts 1..maxhold cycles"),
        Arg("resets", "int", 0, 0, 100, "per-mille chance per step of a reset pulse"),
        Arg("only", "names:field", (), doc="drive only these inputs (default: every non-reset input)"),
    ), "seeded random values on the inputs"),
    OpSpec("corners", (), "walk every input through its corner values (0, 1, all ones, one-hot, ...)"),
    OpSpec("walk", (), "walking ones then walking zeros on every input"),
    OpSpec("toggle", (Arg("field", "name:field", None), Arg("bit", "int", None, 0, 4095)),
           "raise one input bit for a cycle, then clear it"),
    OpSpec("avoid", (), "never let random values make this combination (`avoid start=1 divisor=0`)",
           assigns=True),
    OpSpec("wait", (
        Arg("output", "name:output", None, doc="the output to watch"),
        Arg("value", "int", None, 0, (1 << 64) - 1, hex=True),
        Arg("timeout", "int", 1000, 1, MAX_CYCLES_ARG, "give up after this many cycles"),
    ), "wait until an output equals a value (or the timeout)"),
    OpSpec("repeat", (Arg("times", "int", None, 1, 1000),), "run the block several times", block=True),
    OpSpec("write", (
        Arg("port", "name:port", None, doc="a write port the design has (a table or a decoded register)"),
        Arg("addr", "int", None, 0, (1 << 64) - 1, hex=True), Arg("data", "int", None, 0, (1 << 64) - 1, hex=True),
    ), "one write through a discovered write port", needs="port"),
    OpSpec("fill", (
        Arg("port", "name:port", None), Arg("pattern", "choice:" + "|".join(PATTERNS), "ramp"),
        Arg("seed", "seed", 1, 1, (1 << 32) - 1, hex=True),
    ), "write every entry of a table (or a register) with a pattern", needs="port"),
    OpSpec("bus_write", (
        Arg("bus", "name:bus", None), Arg("addr", "int", None, 0, (1 << 64) - 1, hex=True),
        Arg("data", "int", None, 0, (1 << 64) - 1, hex=True),
        Arg("strb", "int", -1 & 0xFF, 0, 0xFF, "byte enables (on a bus of byte registers on lanes, a "
                                                "16550's, every lane set means the lane of the address)"),
    ), "one write transaction on a bus the design serves (Wishbone, AXI4-Lite, APB)", needs="bus"),
    OpSpec("bus_read", (
        Arg("bus", "name:bus", None), Arg("addr", "int", None, 0, (1 << 64) - 1, hex=True),
        Arg("strb", "int", -1 & 0xFF, 0, 0xFF, "byte selects (a Wishbone slave with byte registers in a wide "
                                                "word, a 16550, picks the register by its one-hot sel)"),
    ), "one read transaction on a bus the design serves", needs="bus"),
    OpSpec("bus_burst", (
        Arg("bus", "name:bus", None), Arg("addr", "int", None, 0, (1 << 64) - 1, hex=True),
        Arg("count", "int", None, 1, 256, "transactions"), Arg("seed", "seed", 1, 1, (1 << 32) - 1, hex=True),
        Arg("write", "int", 1, 0, 1, "1: writes of seeded random data (fills a FIFO); 0: reads (drains one)"),
        Arg("bits", "int", 8, 1, 64, "random bits per written word (a byte register's payload by default; "
                                       "the bits above stay 0, where control bits often sit)"),
        Arg("step", "int", 0, 0, 64, "address increment per transaction (0: one address, a FIFO; else "
                                      "consecutive addresses, back to back in one cycle on a pipelined Wishbone)"),
        Arg("gap", "int", 0, 0, 4096, "idle clocks before each transaction after the first, once the previous ones "
                                       "are answered (with step on a pipelined Wishbone the cycle stays open: a slow "
                                       "master, which a controller holding its port between words waits for)"),
    ), "several transactions on one address, or on consecutive ones, of a bus the design serves", needs="bus"),
    OpSpec("send", (
        Arg("stream", "name:stream", None), Arg("beats", "int", None, 1, 4096),
        Arg("seed", "seed", 1, 1, (1 << 32) - 1, hex=True),
        Arg("gap", "int", 0, 0, 100, "percent of cycles with valid low between beats"),
        Arg("lane", "int", 0, 0, 63, "which valid bit, for a vector of streams"),
    ), "send a packet of beats into a stream input, waiting for ready (last on the final beat)",
        needs="stream"),
    OpSpec("sink", (
        Arg("stream", "name:sink", None), Arg("ready", "int", 100, 0, 100, "percent of cycles ready is high"),
        Arg("seed", "seed", 1, 1, (1 << 32) - 1, hex=True),
    ), "answer a stream output with ready (randomly throttled) until the next reset", needs="sink",
        background=True),
    OpSpec("respond", (
        Arg("iface", "name:responder", None), Arg("fill", "choice:" + "|".join((*FILLS, IDIOMS)), "decode"),
        Arg("seed", "seed", 1, 1, (1 << 32) - 1, hex=True),
        Arg("latency", "int", 0, 0, 16, "wait cycles before each answer (0..latency, drawn)"),
    ), "answer the design's memory or bus requests from a memory model until the next reset",
        needs="responder", background=True),
    OpSpec("serial", (
        Arg("pin", "name:serial", None), Arg("period", "int", None, 1, 1 << 24, "clock cycles per bit"),
        Arg("data", "ints", None, 0, 0x1FF, "bytes to send (comma separated; 0x100+: a break)", hex=True),
        Arg("parity", "choice:none|even|odd", "none"),
        Arg("stop", "int", 1, 0, 2, "stop bits (0: the stop bit held low, a framing error)"),
    ), "send UART frames into a serial input (start bit, data LSB first, parity, stop bits)",
        needs="serial"),
    OpSpec("loopback", (Arg("pin", "name:serial", None), Arg("on", "int", 1, 0, 1)),
           "connect a serial input to the design's own serial output (or disconnect it)",
           needs="loopback", background=True),
)
"""Every operation, in the order documentation lists them."""

BY_NAME: dict[str, OpSpec] = {s.name: s for s in SPECS}
"""Operation name -> spec."""


@dataclass(frozen=True)
class Op:
    """One operation of a program."""

    name: str
    """Operation name (a key of BY_NAME)."""
    args: tuple[tuple[str, Value], ...] = ()
    """(argument, value) pairs; for `set`/`avoid` the pairs are (field, value)."""
    body: tuple[Op, ...] = ()
    """The block of a `repeat`."""

    def get(self, key: str) -> Value:
        """An argument's value, or its default."""
        for name, value in self.args:
            if name == key:
                return value
        spec = BY_NAME[self.name]
        for arg in spec.args:
            if arg.name == key and arg.default is not None:
                return arg.default
        raise KeyError(f"{self.name} has no argument {key!r}")

    def num(self, key: str) -> int:
        """An integer argument."""
        value = self.get(key)
        if not isinstance(value, int):
            raise TypeError(f"{self.name} {key} is not a number: {value!r}")
        return value

    def word(self, key: str) -> str:
        """A name or choice argument."""
        value = self.get(key)
        if not isinstance(value, str):
            raise TypeError(f"{self.name} {key} is not a name: {value!r}")
        return value

    def with_arg(self, key: str, value: Value) -> Op:
        """A copy with one argument set (added when it was defaulted)."""
        pairs = [(k, value if k == key else v) for k, v in self.args]
        if key not in dict(self.args):
            pairs.append((key, value))
        return Op(self.name, tuple(pairs), self.body)


def grows(body: Sequence[Op]) -> bool:
    """Whether a repeat's block holds longer on each pass (a `hold` with `grow`)."""
    return any(o.name == "hold" and o.num("grow") for o in body)


def on_pass(o: Op, k: int) -> Op:
    """`o` as pass `k` (from 0) of its enclosing repeat runs it: a hold's `grow` added k times."""
    if o.name != "hold" or not o.num("grow"):
        return o
    return Op("hold", (("cycles", o.num("cycles") + k * o.num("grow")),))


@dataclass(frozen=True)
class Program:
    """A stimulus program: operations run in order from power-up."""

    ops: tuple[Op, ...] = ()
    """The operations."""

    def walk(self) -> Iterator[Op]:
        """Every operation, blocks' bodies included, in order."""
        stack = list(reversed(self.ops))
        while stack:
            op = stack.pop()
            yield op
            stack.extend(reversed(op.body))

    def __len__(self) -> int:
        return len(self.ops)


@dataclass(frozen=True)
class Scope:
    """The names and widths a program may use on one design."""

    fields: Mapping[str, int]
    """Driven inputs (resets included, clocks not) -> bits (flattened)."""
    outputs: Mapping[str, int] = field(default_factory=dict)
    """Outputs -> bits."""
    names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Scope kind (`bus`, `stream`, `sink`, `responder`, `serial`, `loopback`, `port`) -> names."""

    def has(self, kind: str) -> bool:
        """Whether the design has anything of a scope kind."""
        return bool(self.names.get(kind))

    def available(self) -> tuple[OpSpec, ...]:
        """The operations this design supports."""
        return tuple(s for s in SPECS if not s.needs or self.has(s.needs))


class ProgramError(ValueError):
    """A program does not fit the design (unknown operation, name, or a value out of range)."""


def _check_value(op: str, arg: Arg, value: Value, scope: Scope) -> None:
    """Raise ProgramError when `value` does not fit `arg` on this design."""
    where = f"{op} {arg.name}"
    if arg.kind in ("int", "seed"):
        if not isinstance(value, int) or not arg.lo <= value <= arg.hi:
            raise ProgramError(f"{where}={value!r}: needs a number in {arg.lo}..{arg.hi}")
    elif arg.kind == "ints":
        if not isinstance(value, tuple) or not value or not all(isinstance(v, int) and arg.lo <= v <= arg.hi
                                                                for v in value):
            raise ProgramError(f"{where}: needs a list of numbers in {arg.lo}..{arg.hi}")
    elif arg.kind.startswith("choice:"):
        if value not in arg.choices:
            raise ProgramError(f"{where}={value!r}: one of {', '.join(arg.choices)}")
    elif arg.kind.startswith(("name:", "names:")):
        kind = arg.kind.split(":", 1)[1]
        allowed = tuple(scope.fields) if kind == "field" else tuple(scope.outputs) if kind == "output" \
            else scope.names.get(kind, ())
        items = value if arg.kind.startswith("names:") else (value,)
        if not isinstance(items, tuple):
            raise ProgramError(f"{where}: needs a list of names")
        for item in items:
            if item not in allowed:
                known = ", ".join(allowed[:12]) or "none on this design"
                raise ProgramError(f"{where}={item!r}: not a {kind} of this design (known: {known})")


def check(program: Program, scope: Scope) -> None:
    """Raise ProgramError with the first problem of `program` on this design; None when it fits."""
    for op in program.walk():
        spec = BY_NAME.get(op.name)
        if spec is None:
            raise ProgramError(f"unknown operation {op.name!r} (known: {', '.join(BY_NAME)})")
        if spec.needs and not scope.has(spec.needs):
            raise ProgramError(f"{op.name}: this design has no {spec.needs}")
        if spec.assigns:
            if not op.args:
                raise ProgramError(f"{op.name}: needs at least one field=value")
            for name, value in op.args:
                bits = scope.fields.get(name)
                if bits is None:
                    raise ProgramError(f"{op.name}: {name!r} is not an input of this design")
                if not isinstance(value, int) or not 0 <= value < (1 << bits):
                    raise ProgramError(f"{op.name} {name}={value!r}: needs a number that fits {bits} bits")
            continue
        known = {a.name: a for a in spec.args}
        for name, value in op.args:
            if name not in known:
                raise ProgramError(f"{op.name}: unknown argument {name!r} (known: {', '.join(known) or 'none'})")
            _check_value(op.name, known[name], value, scope)
        for arg in spec.args:
            if arg.required and arg.name not in dict(op.args):
                raise ProgramError(f"{op.name}: missing {arg.name}")
        if op.name == "toggle" and op.num("bit") >= scope.fields[op.word("field")]:
            raise ProgramError(f"toggle {op.word('field')} {op.num('bit')}: the input has "
                               f"{scope.fields[op.word('field')]} bits")
        if spec.block and not op.body:
            raise ProgramError(f"{op.name}: the block is empty")


def op(name: str, *positional: Value, **named: Value) -> Op:
    """Build an operation from positional and named arguments (in the spec's order)."""
    spec = BY_NAME[name]
    leading = [a.name for a in spec.args[: spec.n_positional]]
    if len(positional) > len(leading):
        raise ProgramError(f"{name}: {len(positional)} positional arguments, takes {len(leading)}")
    pairs: list[tuple[str, Value]] = list(zip(leading, positional, strict=False))
    pairs += list(named.items())
    return Op(name, tuple(pairs))


def assigns(name: str, values: Mapping[str, int] | Sequence[tuple[str, int]]) -> Op:
    """A `set` or `avoid` with field=value pairs."""
    items = values.items() if isinstance(values, Mapping) else values
    return Op(name, tuple((k, int(v)) for k, v in items))
