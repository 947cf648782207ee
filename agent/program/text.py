"""The plain text form of a program: one operation per line, and back (an exact round trip).

    reset 3
    respond mem fill=decode seed=7
    bus_write wb 0x1 0x10
    set start=1 divisor=0x0f
    repeat 4 {
      random 200 seed=0x1f3a pal=60
    }

`format_program` writes the canonical form: required arguments positionally in spec order,
then the others as `name=value` in spec order when they differ from the default; numbers
below 10 in decimal, the rest in hex. `parse_program(format_program(p)) == canonical(p)`
for every program, and `format_program(parse_program(t)) == t` for canonical text. `#`
starts a comment. The parser also takes decimal or Verilog-style literals (`8'hff`), since
people and models write them.
"""

from __future__ import annotations

import re

from agent.program.ops import BY_NAME, Arg, Op, Program, ProgramError, Value, on_pass

INDENT = "  "
"""Indentation of one block level."""

_VERILOG_LIT = re.compile(r"^(\d+)?'[sS]?([hHdDbBoO])([0-9a-fA-F_xXzZ]+)$")
_NAME = re.compile(r"^[A-Za-z_][\w$]*$")


def number_text(value: int, hexa: bool = True) -> str:
    """Canonical number: decimal for counts and below 10, hex (`0x..`) for the rest."""
    return str(value) if not hexa or 0 <= value < 10 else hex(value)


def value_text(value: Value, hexa: bool = True) -> str:
    """Canonical text of one argument value."""
    if isinstance(value, int):
        return number_text(value, hexa)
    if isinstance(value, tuple):
        return ",".join(number_text(v, hexa) if isinstance(v, int) else str(v) for v in value)
    return value


def canonical(op: Op) -> Op:
    """`op` with required arguments first in spec order, then set named ones in spec order, no defaults."""
    spec = BY_NAME.get(op.name)
    if spec is None or spec.assigns:
        return Op(op.name, op.args, tuple(canonical(o) for o in op.body))
    given = dict(op.args)
    pairs = [(a.name, given[a.name]) for a in spec.args if a.name in given
             and (a.required or given[a.name] != a.default)]
    return Op(op.name, tuple(pairs), tuple(canonical(o) for o in op.body))


def canonical_program(program: Program) -> Program:
    """Every operation of `program` in canonical form.

    A `hold` outside any repeat lasts its first pass: its `grow` means nothing there, and goes.
    """
    return Program(tuple(canonical(on_pass(o, 0)) for o in program.ops))


def format_op(op: Op) -> str:
    """One operation's line (a `repeat` header ends with `{`)."""
    spec = BY_NAME[op.name]
    if spec.assigns:
        return " ".join([op.name, *(f"{k}={value_text(v)}" for k, v in op.args)])
    op = canonical(op)
    words = [op.name]
    given = dict(op.args)
    for k, arg in enumerate(spec.args):
        if arg.name not in given:
            continue
        text = value_text(given[arg.name], arg.hex)
        words.append(text if k < spec.n_positional else f"{arg.name}={text}")
    return " ".join(words) + (" {" if spec.block else "")


def format_lines(ops: tuple[Op, ...], depth: int = 0) -> list[str]:
    """The lines of a sequence of operations at block depth `depth`."""
    lines: list[str] = []
    for op in ops:
        lines.append(INDENT * depth + format_op(op))
        if BY_NAME[op.name].block:
            lines += format_lines(op.body, depth + 1)
            lines.append(INDENT * depth + "}")
    return lines


def format_program(program: Program) -> str:
    """The canonical text of a program (one operation per line, trailing newline)."""
    return "".join(line + "\n" for line in format_lines(canonical_program(program).ops))


def parse_number(text: str) -> int:
    """`12`, `0x1f`, `0b101`, `8'hff`, `'d3` (underscores allowed); ValueError otherwise."""
    t = text.replace("_", "")
    m = _VERILOG_LIT.match(t)
    if m:
        base = {"h": 16, "d": 10, "b": 2, "o": 8}[m.group(2).lower()]
        digits = m.group(3).lower().replace("x", "0").replace("z", "0")
        value = int(digits, base)
        return value & ((1 << int(m.group(1))) - 1) if m.group(1) else value
    value = int(t, 0)
    if value < 0:
        raise ValueError(f"negative number {text!r}")
    return value


def _parse_value(arg: Arg, text: str, where: str) -> Value:
    """One argument value by its kind."""
    try:
        if arg.kind in ("int", "seed"):
            return parse_number(text)
        if arg.kind == "ints":
            return tuple(parse_number(t) for t in text.split(",") if t)
    except ValueError:
        raise ProgramError(f"{where}: {arg.name}={text!r} is not a number") from None
    if arg.kind.startswith("names:"):
        return tuple(t for t in text.split(",") if t)
    if not _NAME.match(text):
        raise ProgramError(f"{where}: {arg.name}={text!r} is not a name")
    return text


def parse_op(line: str, where: str = "") -> Op:
    """One operation line (without a block body; a trailing `{` is accepted)."""
    words = line.split()
    if words and words[-1] == "{":
        words = words[:-1]
    elif words and words[-1].endswith("{"):
        words[-1] = words[-1][:-1]
    if not words:
        raise ProgramError(f"{where}: empty operation")
    name, rest = words[0], words[1:]
    spec = BY_NAME.get(name)
    if spec is None:
        raise ProgramError(f"{where}: unknown operation {name!r} (known: {', '.join(BY_NAME)})")
    if spec.assigns:
        pairs: list[tuple[str, Value]] = []
        for word in rest:
            key, eq, text = word.partition("=")
            if not eq or not _NAME.match(key):
                raise ProgramError(f"{where}: {name} takes field=value pairs, not {word!r}")
            try:
                pairs.append((key, parse_number(text)))
            except ValueError:
                raise ProgramError(f"{where}: {key}={text!r} is not a number") from None
        return Op(name, tuple(pairs))
    required = list(spec.args[: spec.n_positional])
    by_name = {a.name: a for a in spec.args}
    given: dict[str, Value] = {}
    position = 0
    for word in rest:
        key, eq, text = word.partition("=")
        if eq and key in by_name:
            given[key] = _parse_value(by_name[key], text, where)
        elif eq:
            raise ProgramError(f"{where}: {name} has no argument {key!r} (known: {', '.join(by_name) or 'none'})")
        elif position < len(required):
            arg = required[position]
            given[arg.name] = _parse_value(arg, word, where)
            position += 1
        else:
            raise ProgramError(f"{where}: {name}: unexpected {word!r}")
    missing = [a.name for a in spec.args if a.required and a.name not in given]
    if missing:
        raise ProgramError(f"{where}: {name}: missing {', '.join(missing)}")
    return canonical(Op(name, tuple(given.items())))


def parse_program(text: str) -> Program:
    """Parse a program's text (blank lines and `#` comments ignored); ProgramError on the first problem."""
    stack: list[tuple[Op | None, list[Op]]] = [(None, [])]
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"line {number}"
        if line == "}":
            if len(stack) == 1:
                raise ProgramError(f"{where}: '}}' closes no block")
            header, body = stack.pop()
            assert header is not None
            stack[-1][1].append(Op(header.name, header.args, tuple(body)))
            continue
        op = parse_op(line, where)
        if BY_NAME[op.name].block:
            if not line.endswith("{"):
                raise ProgramError(f"{where}: {op.name} needs a block: '{op.name} N {{' ... '}}'")
            stack.append((op, []))
        else:
            stack[-1][1].append(op)
    if len(stack) != 1:
        raise ProgramError(f"the {stack[-1][0].name if stack[-1][0] else ''} block is not closed with '}}'")
    return Program(tuple(stack[0][1]))
