"""A program as the harness's data file: one line per operation, numbers only (pure).

The harness (`sv.py`) reads `prog.txt` with `$fscanf`: an opcode, then the operation's
arguments (decimal counts and indices, hex values). `repeat` blocks are unrolled and a
`serial` with several bytes becomes one line per byte, so the harness needs no control
flow of its own; `sv.render_testbench` keeps them as written.
"""

from __future__ import annotations

from agent.program.ops import MAX_CYCLES_ARG, Op, Program, grows, on_pass
from agent.program.sv_ifaces import PATTERN_CODES
from agent.program.target import MAX_AVOID_PAIRS, Target

DATA_FILE = "prog.txt"
"""Name of the data file the harness reads from its run directory."""

OPCODES: dict[str, int] = {
    "reset": 1, "hold": 2, "set": 3, "random": 4, "corners": 5, "walk": 6, "toggle": 7, "avoid": 8,
    "wait": 9, "write": 10, "fill": 11, "bus_write": 12, "bus_read": 13, "send": 14, "sink": 15,
    "respond": 16, "serial": 17, "loopback": 18, "bus_burst": 19,
}
"""Operation -> opcode in the data file (`repeat` has none: it is unrolled)."""

FILL_CODES = {"decode": 0, "random": 1, "zero": 2, "ramp": 3, "idioms": 4}
"""`respond fill=` -> the number `<iface>_respond` takes."""

PARITY_CODES = {"none": 0, "even": 1, "odd": 2}
"""`serial parity=` -> the number `<pin>_send` takes."""

MAX_UNROLLED = 20_000
"""Most data-file lines one program may unroll to (a nested repeat cannot blow up a trial)."""


def only_mask(t: Target, op: Op) -> int:
    """The field mask of a `random` (every non-reset field when `only` is empty)."""
    names = op.get("only")
    chosen = set(names) if isinstance(names, tuple) and names else None
    mask = 0
    for i, f in enumerate(t.fields):
        if not f.reset and (chosen is None or f.name in chosen):
            mask |= 1 << i
    return mask


def _x(value: int) -> str:
    return f"{value:x}"


def op_lines(t: Target, op: Op) -> list[str]:
    """The data-file lines of one operation (`repeat` unrolled)."""
    name = op.name
    if name == "repeat":
        if grows(op.body):  # every pass its own holds
            return [line for k in range(op.num("times")) for inner in op.body for line in op_lines(t, on_pass(inner, k))]
        body = [line for inner in op.body for line in op_lines(t, inner)]
        return body * op.num("times")
    code = OPCODES[name]
    if name in ("reset", "hold"):
        return [f"{code} {op.num('cycles')}"]
    if name in ("set", "avoid"):
        pairs = [(t.index(k), v) for k, v in op.args if isinstance(v, int)][: MAX_AVOID_PAIRS if name == "avoid" else None]
        return [f"{code} {len(pairs)} " + " ".join(f"{i} {_x(v)}" for i, v in pairs)]
    if name == "random":
        return [f"{code} {min(op.num('cycles'), MAX_CYCLES_ARG)} {_x(op.num('seed'))} {op.num('pal')} "
                f"{op.num('keep')} {op.num('maxhold')} {op.num('resets')} {_x(only_mask(t, op))}"]
    if name in ("corners", "walk"):
        return [str(code)]
    if name == "toggle":
        return [f"{code} {t.index(op.word('field'))} {op.num('bit')}"]
    if name == "wait":
        index = [n for n, _ in t.outputs()].index(op.word("output"))
        return [f"{code} {index} {_x(op.num('value'))} {op.num('timeout')}"]
    if name == "write":
        return [f"{code} {t.port_index(op.word('port'))} {_x(op.num('addr'))} {_x(op.num('data'))}"]
    if name == "fill":
        return [f"{code} {t.port_index(op.word('port'))} {PATTERN_CODES[op.word('pattern')]} {_x(op.num('seed'))}"]
    if name == "bus_write":
        return [f"{code} {t.iface_index('bus', op.word('bus'))} {_x(op.num('addr'))} {_x(op.num('data'))} "
                f"{_x(op.num('strb'))}"]
    if name == "bus_read":
        return [f"{code} {t.iface_index('bus', op.word('bus'))} {_x(op.num('addr'))} {_x(op.num('strb'))}"]
    if name == "bus_burst":
        return [f"{code} {t.iface_index('bus', op.word('bus'))} {_x(op.num('addr'))} {op.num('count')} "
                f"{_x(op.num('seed'))} {op.num('write')} {op.num('bits')} {op.num('step')} {op.num('gap')}"]
    if name == "send":
        return [f"{code} {t.iface_index('stream', op.word('stream'))} {op.num('beats')} {_x(op.num('seed'))} "
                f"{op.num('gap')} {op.num('lane')}"]
    if name == "sink":
        return [f"{code} {t.iface_index('sink', op.word('stream'))} {op.num('ready')} {_x(op.num('seed'))}"]
    if name == "respond":
        return [f"{code} {t.iface_index('responder', op.word('iface'))} {FILL_CODES[op.word('fill')]} "
                f"{_x(op.num('seed'))} {op.num('latency')}"]
    if name == "serial":
        data = op.get("data")
        assert isinstance(data, tuple)
        index = t.iface_index("serial", op.word("pin"))
        return [f"{code} {index} {op.num('period')} {_x(int(b))} {PARITY_CODES[op.word('parity')]} {op.num('stop')}"
                for b in data]
    if name == "loopback":
        return [f"{code} {t.iface_index('serial', op.word('pin'))} {op.num('on')}"]
    raise ValueError(f"no data-file form for {name!r}")


def encode(t: Target, program: Program) -> str:
    """The data file of a whole program (ValueError when unrolling it would be absurdly long)."""
    lines: list[str] = []
    for op in program.ops:
        lines += op_lines(t, op)
        if len(lines) > MAX_UNROLLED:
            raise ValueError(f"the program unrolls to more than {MAX_UNROLLED} operations")
    return "".join(line + "\n" for line in lines)
