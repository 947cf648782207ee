"""Reading a testbench back: the program of a testbench `sv.render_testbench` wrote (pure).

Each call line maps back to its operation (a loop over a bus's registers unrolls into one
operation per register); comments and the phases' check calls carry no stimulus. Anything
else (a hand-edited or foreign testbench) gives None, so a caller knows it cannot continue
from that program.
"""

from __future__ import annotations

import re

from agent.program import sv_ifaces as ifc
from agent.program.encode import FILL_CODES, PARITY_CODES
from agent.program.ops import Op, Program, Value
from agent.program.sv import BEGIN_MARK, END_MARK, HOLD_JOINS
from agent.program.sv_checks import plain_reads
from agent.program.sv_shared import expand_openings
from agent.program.target import Target

_CALL = re.compile(r"(\w+)\(([^()]*)\);")
_THEN_HOLD = re.compile(r"(.*;) bw_step\((\d+)(?: \+ (\d+) \* bw_p\d+)?\);")
"""A statement with the `hold` that follows it on its line (`sv.HOLD_JOINS`); a wait's
`for (...) bw_step(1);` has no `;` before its call."""
_CHECK_CALL = re.compile(r"bw_check\(\d+\);")
_NUM = re.compile(r"^(?:\d+)?'[sS]?([hHbBdD])([0-9a-fA-F_]+)$")


def _num(text: str) -> int:
    t = text.strip()
    m = _NUM.match(t)
    if m:
        return int(m.group(2).replace("_", ""), {"h": 16, "b": 2, "d": 10}[m.group(1).lower()])
    return int(t, 0)


def _hold(cycles: str, grow: str | None) -> Op:
    """A `hold` from its rendered numbers (`grow` None or 0: a plain one)."""
    return Op("hold", (("cycles", int(cycles)),) + ((("grow", int(grow)),) if grow and int(grow) else ()))


def _args(text: str) -> list[int]:
    return [_num(a) for a in text.split(",") if a.strip()]


def _line_op(t: Target, line: str) -> Op | None:
    """The operation one rendered line stands for (None when it is not one)."""
    code = line.split("//", 1)[0].strip()
    comment = line.split("//", 1)[1].strip() if "//" in line else ""
    ifs = t.interfaces
    if not code:
        return None
    if m := re.fullmatch(r"repeat \((\d+)\) begin", code):
        return Op("repeat", (("times", int(m.group(1))),))
    if m := re.fullmatch(r"for \(int (bw_p\d+) = 0; \1 < (\d+); \1\+\+\) begin", code):  # a repeat counting passes
        return Op("repeat", (("times", int(m.group(2))),))
    if m := re.fullmatch(r"bw_step\((\d+) \+ (\d+) \* bw_p\d+\);", code):
        return _hold(m.group(1), m.group(2))
    if m := re.fullmatch(r"bw_(\w+)_lb = 1'b([01]);", code):
        return Op("loopback", (("pin", m.group(1)), ("on", int(m.group(2)))))
    if m := re.fullmatch(r"for \(int t = 0; t < (\d+) && (\w+) != ([^;]+); t\+\+\) bw_step\(1\);", code):
        return Op("wait", (("output", m.group(2)), ("value", _num(m.group(3))), ("timeout", int(m.group(1)))))
    calls = _CALL.findall(code)
    if not calls:
        pairs = re.findall(r"(\w+) = ([^;]+);", code)
        if not pairs:
            return None
        fields = {t.handle(f): f.name for f in t.fields}
        return Op("set", tuple((fields[k], _num(v)) for k, v in pairs if k in fields)) if all(
            k in fields for k, _ in pairs) else None
    name, text = calls[0]
    a = _args(text)
    simple = {"bw_reset": ("reset", ("cycles",)), "bw_step": ("hold", ("cycles",))}
    if name in simple:
        op, keys = simple[name]
        return Op(op, tuple(zip(keys, a, strict=True)))
    if name == "bw_random":
        names = ("cycles", "seed", "pal", "keep", "maxhold", "resets")
        mask = a[6]
        everyone = all(mask >> i & 1 for i, f in enumerate(t.fields) if not f.reset)
        only: Value = () if everyone else tuple(f.name for i, f in enumerate(t.fields) if mask >> i & 1)
        return Op("random", (*zip(names, a[:6], strict=True), ("only", only)))
    if name in ("bw_corners", "bw_walk"):
        return Op(name[3:])
    if name == "bw_toggle":
        return Op("toggle", (("field", t.fields[a[0]].name), ("bit", a[1])))
    if name == "bw_avoid":
        pairs = [(t.fields[a[1 + 2 * j]].name, a[2 + 2 * j]) for j in range(a[0])]
        return Op("avoid", tuple(pairs))
    base, _, kind = name.rpartition("_")
    if kind == "write" and base in dict(ifs.ports):
        return Op("write", (("port", base), ("addr", a[0]), ("data", a[1])))
    if kind == "fill" and base in dict(ifs.ports):
        pattern = {v: k for k, v in ifc.PATTERN_CODES.items()}[a[0]]
        return Op("fill", (("port", base), ("pattern", pattern), ("seed", a[1])))
    if kind == "burst" and base in {b.name for b in ifs.buses}:
        return Op("bus_burst", (("bus", base), ("addr", a[0]), ("count", a[1]), ("seed", a[2]), ("write", a[3]),
                                ("bits", a[4]), ("step", a[5] if len(a) > 5 else 0),
                                ("gap", a[6] if len(a) > 6 else 0)))
    if kind in ("write", "read") and base in {b.name for b in ifs.buses}:
        bus = ifs.named(base)
        every = (1 << max(1, bus.data_bits // 8)) - 1
        if kind == "read":
            if len(a) < 2 or a[1] == every:  # all lanes: the default
                return Op("bus_read", (("bus", base), ("addr", a[0])))
            return Op("bus_read", (("bus", base), ("addr", a[0]), ("strb", a[1])))
        strb = 0xFF if len(a) < 3 or a[2] == every else a[2]  # all lanes (or a byte lane's address): the default
        return Op("bus_write", (("bus", base), ("addr", a[0]), ("data", a[1]), ("strb", strb)))
    if kind == "send" and base in {s.name for s in ifs.streams}:
        return Op("send", (("stream", base), ("beats", a[0]), ("seed", a[1]), ("gap", a[2]), ("lane", a[3])))
    if kind == "sink" and base in {s.name for s in ifs.sinks}:
        return Op("sink", (("stream", base), ("ready", a[0]), ("seed", a[1])))
    if kind == "respond" and base in {r.name for r in ifs.responders}:
        fill = {v: k for k, v in FILL_CODES.items()}[a[0]]
        return Op("respond", (("iface", base), ("fill", fill), ("seed", a[1]), ("latency", a[2])))
    if kind == "send" and base in {s.name for s in ifs.serials}:
        frames = [_args(args) for _, args in calls]
        parity = {v: k for k, v in PARITY_CODES.items()}[a[2]]
        return Op("serial", (("pin", base), ("period", a[0]), ("data", tuple(f[1] for f in frames)),
                             ("parity", parity), ("stop", a[3])))
    del comment
    return None


_LOOP = re.compile(r"(?:foreach \((\w+)\[bw_i\]\)|for \(int bw_i = (\d+); bw_i >= 0; bw_i--\)) (.*)")


def _sweep_ops(t: Target, line: str) -> list[Op] | None:
    """The operations a loop line of `_sweep` stands for (None for any other line)."""
    m = _LOOP.fullmatch(line)
    if m is None:
        return None
    call = m.group(3)
    bus = next((b for b in t.interfaces.buses if f"{ifc.sweep_name(b)}[bw_i]" in call), None)
    if bus is None:
        raise ValueError(f"a loop over no register list of this design: {line}")
    regs = ifc.sweep_registers(bus)
    order = range(len(regs)) if m.group(1) else reversed(range(int(m.group(2)) + 1))
    ops = []
    for i in order:
        text = call.replace(f"{ifc.sweep_name(bus)}[bw_i]", f"'h{regs[i]:x}")
        text = re.sub(r"(\d*'h[0-9a-fA-F]+) \+ bw_i", lambda s, i=i: f"'h{_num(s.group(1)) + i:x}", text)
        op = _line_op(t, text)
        if op is None:
            raise ValueError(f"not a loop of bus calls: {line}")
        ops.append(op)
    return ops


def parse_testbench(text: str, t: Target) -> Program | None:
    """The program of a testbench `render_testbench` wrote for this target (None for any other text)."""
    if f"module tb_{t.layout.top};" not in text or BEGIN_MARK not in text or END_MARK not in text:
        return None
    body = text.split(BEGIN_MARK, 1)[1].split(END_MARK, 1)[0]
    stack: list[list[Op]] = [[]]
    headers: list[Op] = []
    try:
        body = expand_openings(text, body)
        body = plain_reads(body)  # a checked read is the read itself (its expected value is no stimulus)
        for raw in body.splitlines():
            line = raw.strip()
            if not line or line.startswith("//") or _CHECK_CALL.fullmatch(line):  # a phase's checks: no stimulus
                continue
            swept = _sweep_ops(t, line)
            if swept is not None:
                stack[-1] += swept
                continue
            if line == "end":
                if not headers:
                    return None
                head = headers.pop()
                inner = stack.pop()
                stack[-1].append(Op(head.name, head.args, tuple(inner)))
                continue
            code, sep, comment = line.partition("  //")
            joined = _THEN_HOLD.fullmatch(code)
            op = _line_op(t, joined.group(1) + sep + comment if joined else line)
            if op is None:
                return None
            if joined:
                if op.name not in HOLD_JOINS:
                    return None
                stack[-1] += [op, _hold(joined.group(2), joined.group(3))]
                continue
            if op.name == "repeat":
                headers.append(op)
                stack.append([])
            else:
                stack[-1].append(op)
    except (ValueError, IndexError, KeyError):
        return None
    if headers:
        return None
    from agent.program.text import canonical_program

    return canonical_program(Program(tuple(stack[0])))
