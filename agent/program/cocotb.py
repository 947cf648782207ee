"""A stimulus program as a self-contained cocotb 2.x test: the Python twin of `sv.render_testbench`.

`render_cocotb(t, program)` writes one module with one `@cocotb.test()` named `test_<top>`:
the design's fields and palettes as tables, the runtime of `cocotb_lib.py` (the same
xorshift32 draws, values written at the falling edge of the first clock), the drivers the
program's interfaces need (`cocotb_ifaces.py` picks cocotbext-axi / cocotbext-uart where
they fit, hand-written ones elsewhere), then the program as one awaited call per line.
Programs made of reset/hold/set/random/corners/walk/toggle/avoid/wait/write/fill apply the
same stimulus cycle for cycle as the SV testbench; drivers from an extension keep the
values but follow the extension's timing. The text passes `sim.sandbox.guard.check_cocotb`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.heuristic.stimulus import COMB_STEP_NS, Field
from agent.program import cocotb_checks
from agent.program import sv_checks as chk
from agent.program.cocotb_ifaces import DriverPlan, plans
from agent.program.cocotb_lib import CORE, hex_tuple, py_tuple, section
from agent.program.encode import FILL_CODES, PARITY_CODES, only_mask
from agent.program.ops import BY_NAME, Op, Program, grows
from agent.program.sv_ifaces import PATTERN_CODES
from agent.program.target import (
    LONG_STALL_CLOCKS,
    LONG_STALL_EVERY,
    MAX_AVOID,
    MAX_AVOID_PAIRS,
    MEM_WORDS,
    ROUGH_LATENCY,
    SLOW_ANSWER_EVERY,
    TIMEOUT,
    Target,
)
from agent.program.text import format_program

INDENT = "    "
"""One level of Python indentation."""

METHODS = '''
    def driver(self, name):
        """The driver of an interface, built on first use (nothing drives its ports before)."""
        if name not in self.drivers:
            self.drivers[name] = make_driver(self, name)
        return self.drivers[name]

    def background(self, key, *args):
        """(Re)start a background driver (a sink, a responder) until the next reset."""
        self.stop(key)
        self.driver(key).start(*args)
        self.start(key, self.driver(key))

    async def bus_write(self, bus, addr, data, strb):
        """`bus_write`: one write transaction (address, data and strobes cut to the bus's widths)."""
        aw, dw, sw = BUSES[bus]
        await self.driver(bus).write(addr & ((1 << aw) - 1), data & ((1 << dw) - 1), strb & ((1 << sw) - 1))

    async def bus_read(self, bus, addr, strb=-1):
        """`bus_read`: one read transaction (every strobe set unless `strb` picks lanes, as the SV task)."""
        aw, _, sw = BUSES[bus]
        await self.driver(bus).read(addr & ((1 << aw) - 1), strb & ((1 << sw) - 1))

    async def bus_burst(self, bus, addr, count, seed, write, bits, step=0, gap=0):
        """`bus_burst`: `count` transactions on one address (or `step` apart), `gap` idle clocks between; writes carry `bits` seeded random bits."""
        self.rng.state = seed & MASK32
        aw, dw, _ = BUSES[bus]
        driver = self.driver(bus)
        if step and hasattr(driver, "pipelined") and driver.pipelined:  # one cycle of requests, as the SV task
            await driver.pipe(write, addr, count, bits, step, aw, dw, gap)
            return
        for i in range(count):
            if i and gap:
                await self.step(gap)
            at = (addr + i * step) & ((1 << aw) - 1)
            if write:
                await self.bus_write(bus, at, self.rng.bits(bits), -1)
            else:
                await self.bus_read(bus, at)

    async def send(self, stream, beats, seed, gap, lane):
        """`send`: one packet of seeded beats into a stream input."""
        await self.driver(stream).send(beats, seed, gap, lane)

    def sink(self, stream, ready, seed):
        """`sink`: answer a stream output with a randomly throttled ready."""
        self.background(stream, ready, seed)

    def respond(self, iface, fill, seed, latency):
        """`respond`: answer the design's requests from a memory model."""
        self.background(iface, fill, seed, latency)

    async def serial(self, pin, period, data, parity, stop):
        """`serial`: UART frames into a serial input (`period` steps per bit)."""
        await self.driver(pin).send(period, data, parity, stop)

    def loopback(self, pin, on):
        """`loopback`: the design's serial output onto its serial input (or not)."""
        key = "loopback:" + pin
        if not on:
            self.stop(key)
        elif key not in self.active:
            self.background(key)

    async def write(self, port, addr, data):
        """`write`: one write through a discovered write port."""
        await self.driver("port:" + port).write(addr, data)

    async def fill(self, port, code, seed):
        """`fill`: every entry of a write port written with a pattern."""
        await self.driver("port:" + port).fill(code, seed)
'''
"""Bench methods of the operations that go through a driver (appended to the Bench class)."""


def _used(program: Program) -> dict[str, set[str]]:
    """Scope kind -> names the program uses; `op` -> operation names; `output` -> outputs waited on."""
    used: dict[str, set[str]] = {"op": set()}
    for op in program.walk():
        used["op"].add(op.name)
        for arg in BY_NAME[op.name].args:
            if arg.kind.startswith("name:") and arg.kind[5:] != "field":
                used.setdefault(arg.kind[5:], set()).add(str(op.get(arg.name)))
        if op.name == "loopback":
            used.setdefault("loopback", set()).add(op.word("pin"))
    return used


def _elements(f: Field) -> tuple[tuple[int, ...], ...]:
    """Index tuples of an unpacked field's elements, in the order of its flat bits (as `sv_common._unpack`)."""
    out = []
    for k in range(f.count):
        idx, rest = [], k
        for d in reversed(f.dims):
            idx.append(rest % d)
            rest //= d
        out.append(tuple(reversed(idx)))
    return tuple(out)


def _design(t: Target, used: dict[str, set[str]]) -> list[str]:
    """The design's tables: widths, clocks, fields, palettes, outputs and bus widths."""
    lay = t.layout
    serial = {i.port("pin") for i in t.interfaces.serials}
    period = 2 * lay.clocks[0].half_period if lay.clocks else COMB_STEP_NS
    lines = [f"W = {t.max_bits}  # width of the SV testbench's value carrier (BW_W)",
             f"PERIOD_NS = {period}  # one step: " + ("a period of the first clock" if lay.clocks else
                                                      "a delay (the design has no clock)"),
             f"CLOCK = {lay.clocks[0].name if lay.clocks else ''!r}",
             f"CLOCKS = {py_tuple((c.name, 2 * c.half_period) for c in lay.clocks)}  # (port, period ns)",
             f"TIMEOUT = {TIMEOUT}  # cycles a handshake waits before the test moves on",
             f"MEM_WORDS = {MEM_WORDS}  # words of a responder's memory model",
             f"ROUGH_LATENCY = {ROUGH_LATENCY}  # a bus memory's latency from which it answers some errors",
             f"LONG_STALL_EVERY, LONG_STALL_CLOCKS, SLOW_ANSWER_EVERY = {LONG_STALL_EVERY}, {LONG_STALL_CLOCKS}, "
             f"{SLOW_ANSWER_EVERY}  # a rough slave's long stalls",
             f"MAX_AVOID = {MAX_AVOID}", "",
             "# (port, element width, unpacked dims, is a reset, asserted value, value at power-up)",
             "FIELDS = ("]
    for f in t.fields:
        start = f.idle if f.reset else (1 if f.name in serial else 0)
        lines.append(f"    ({f.name!r}, {f.width}, {py_tuple(f.dims)}, {f.reset}, {f.asserted if f.reset else 0}, "
                     f"{start}),")
    lines.append(")")
    arrays = {f.name: _elements(f) for f in t.fields if f.dims}
    lines.append(f"ELEMENTS = {arrays!r}  # unpacked fields: element indices, lowest flat bits first")
    lines.append("PALETTES = {  # field index -> the design's interesting values (random, corners)")
    for i, f in enumerate(t.fields):
        pal = t.palette(f)
        if len(pal) <= 8:
            lines += [f"    {i}: {hex_tuple(pal)},  # {f.name}"] if pal else []
            continue
        lines.append(f"    {i}: (  # {f.name}")
        lines += ["        " + ", ".join(hex(v) for v in pal[k:k + 8]) + "," for k in range(0, len(pal), 8)]
        lines.append("    ),")
    lines.append("}")
    lines.append(f"SERIAL_PINS = {py_tuple(i for i, f in enumerate(t.fields) if f.name in serial)}")
    outputs = {n: b for n, b in t.outputs() if n in used.get("output", set())}
    lines.append(f"OUTPUTS = {outputs!r}  # outputs `wait` watches -> bits")
    buses = {b.name: (max(1, b.addr_bits), max(1, b.data_bits), max(1, b.data_bits // 8))
             for b in t.interfaces.buses if b.name in used.get("bus", set())}
    lines.append(f"BUSES = {buses!r}  # bus -> (address, data, strobe) bits")
    return lines


def _factory(found: Sequence[DriverPlan]) -> list[str]:
    lines = ["", "", "def make_driver(bw, name):", '    """The driver of one interface of this design."""']
    if any("(dut)" in p.factory for p in found):
        lines.append("    dut = bw.dut")
    for p in found:
        lines += [f"    if name == {p.key!r}:", f"        return {p.factory}"]
    lines += ["    raise KeyError(name)"]
    return lines


def _imports(used: dict[str, set[str]], found: Sequence[DriverPlan], checked: bool = False) -> list[str]:
    triggers = {"ClockCycles", "FallingEdge", "RisingEdge", "Timer"} | ({"ReadOnly"} if checked else set())
    texts = "".join(text for p in found for text in p.texts)
    if "with_timeout(" in texts:
        triggers |= {"SimTimeoutError", "with_timeout"}
    if "ValueChange(" in texts:
        triggers.add("ValueChange")
    lines = ["import math", ""]
    if any(p.extension for p in found):
        lines = ["import logging", *lines]
    names = ", ".join(sorted(triggers))
    wrapped = names if len(names) < 60 else "(\n    " + ",\n    ".join(sorted(triggers)) + ",\n)"
    lines += ["import cocotb", "from cocotb.clock import Clock", f"from cocotb.triggers import {wrapped}"]
    modules: dict[str, set[str]] = {}
    for p in found:
        for item in p.imports:
            module, name = item.split(" ")
            modules.setdefault(module, set()).add(name)
    lines += [f"from {m} import {', '.join(sorted(names))}" for m, names in sorted(modules.items())]
    return lines


# ---------------------------------------------------------------------------- the program


def _lit(value: int) -> str:
    return str(value) if value < 10 else hex(value)


def op_py(t: Target, op: Op) -> str:
    """One operation as one line of Python (a `repeat` header is a `for` line)."""
    n = op.name
    if n in ("reset", "hold"):
        return f"await bw.{n}({op.num('cycles')})"
    if n in ("set", "avoid"):
        pairs = [(k, v) for k, v in op.args if isinstance(v, int)][: MAX_AVOID_PAIRS if n == "avoid" else None]
        return f"bw.{n}({{{', '.join(f'{k!r}: {_lit(v)}' for k, v in pairs)}}})"
    if n == "random":
        return (f"await bw.random({op.num('cycles')}, {hex(op.num('seed'))}, pal={op.num('pal')}, "
                f"keep={op.num('keep')}, maxhold={op.num('maxhold')}, resets={op.num('resets')}, "
                f"only={hex(only_mask(t, op))})")
    if n in ("corners", "walk"):
        return f"await bw.{n}()"
    if n == "toggle":
        return f"await bw.toggle({op.word('field')!r}, {op.num('bit')})"
    if n == "wait":
        return f"await bw.wait({op.word('output')!r}, {_lit(op.num('value'))}, timeout={op.num('timeout')})"
    if n == "write":
        return f"await bw.write({op.word('port')!r}, {_lit(op.num('addr'))}, {_lit(op.num('data'))})"
    if n == "fill":
        return (f"await bw.fill({op.word('port')!r}, {PATTERN_CODES[op.word('pattern')]}, {hex(op.num('seed'))})  "
                f"# {op.word('pattern')}")
    if n == "bus_write":
        return (f"await bw.bus_write({op.word('bus')!r}, {_lit(op.num('addr'))}, {_lit(op.num('data'))}, "
                f"{_lit(op.num('strb'))})")
    if n == "bus_read":
        lanes = "" if op.num("strb") == 0xFF else f", {_lit(op.num('strb'))}"  # every lane: the default
        return f"await bw.bus_read({op.word('bus')!r}, {_lit(op.num('addr'))}{lanes})"
    if n == "bus_burst":
        step = f", {op.num('step')}" if op.num("step") or op.num("gap") else ""
        step += f", {op.num('gap')}" if op.num("gap") else ""
        return (f"await bw.bus_burst({op.word('bus')!r}, {_lit(op.num('addr'))}, {op.num('count')}, "
                f"{hex(op.num('seed'))}, {op.num('write')}, {op.num('bits')}{step})")
    if n == "send":
        return (f"await bw.send({op.word('stream')!r}, {op.num('beats')}, {hex(op.num('seed'))}, {op.num('gap')}, "
                f"{op.num('lane')})")
    if n == "sink":
        return f"bw.sink({op.word('stream')!r}, {op.num('ready')}, {hex(op.num('seed'))})"
    if n == "respond":
        return (f"bw.respond({op.word('iface')!r}, {FILL_CODES[op.word('fill')]}, {hex(op.num('seed'))}, "
                f"{op.num('latency')})  # fill={op.word('fill')}")
    if n == "serial":
        data = op.get("data")
        assert isinstance(data, tuple)
        return (f"await bw.serial({op.word('pin')!r}, {op.num('period')}, {hex_tuple(int(b) for b in data)}, "
                f"{PARITY_CODES[op.word('parity')]}, {op.num('stop')})  # parity={op.word('parity')}")
    if n == "loopback":
        return f"bw.loopback({op.word('pin')!r}, {op.num('on')})"
    if n == "repeat":
        return f"for _ in range({op.num('times')}):"
    raise ValueError(f"no cocotb form for {n!r}")


INSTANT = frozenset({"set", "avoid", "sink", "respond", "loopback"})
"""Operations that take no clock: no check after them (their effect shows in the next one's)."""


def _op_line(t: Target, op: Op, depth: int, pass_var: str | None) -> str:
    """`op_py`, with a growing hold's pass counter (`pass_var`, as `sv._op_line`) and a counting loop."""
    if op.name == "hold" and op.num("grow") and pass_var is not None:
        return f"await bw.hold({op.num('cycles')} + {op.num('grow')} * {pass_var})"
    if op.name == "repeat" and grows(op.body):
        return f"for bw_p{depth} in range({op.num('times')}):"
    return op_py(t, op)


def program_py(t: Target, ops: Sequence[Op], depth: int = 1, checked: bool = False,
               pass_var: str | None = None) -> list[str]:
    """The program's calls, one operation per line (repeat bodies indented).

    `checked`: after each top-level operation that takes clocks, `checks.after(k, text)`.
    `pass_var`: the pass counter of the repeat these operations are the block of.
    """
    lines: list[str] = []
    for k, op in enumerate(ops):
        lines.append(INDENT * depth + _op_line(t, op, depth, pass_var))
        if op.name == "repeat":
            lines += program_py(t, op.body, depth + 1, pass_var=f"bw_p{depth}" if grows(op.body) else None)
        if checked and op.name not in INSTANT:
            what = format_program(Program((op,))).splitlines()[0].rstrip(" {")
            lines.append(INDENT * depth + f"checks.after({k}, {what!r})")
    return lines


def cocotb_test_name(top: str) -> str:
    """`test_<top>` as a Python identifier."""
    return "test_" + re.sub(r"\W", "_", top)


def render_cocotb(t: Target, program: Program, *, title: str = "", checked: bool = True) -> str:
    """The program as a cocotb test module (`test_<top>.py`): the same stimulus as `render_testbench`.

    `checked`: with the checks of `cocotb_checks` in their recording form (`with_expected`
    fills in what a run recorded); a design without a clock gets none.
    """
    used = _used(program)
    found = plans(t, used)
    plan = chk.plan(t, accessors=False) if checked else chk.Checks(())
    checked = bool(plan.outputs)
    top = t.layout.top
    text = format_program(program).splitlines()
    head = [f'"""cocotb test for {top}: {title or "a stimulus program found by the Benchwright engine"}.',
            "",
            f"The same program as tb_{top}.sv, written for cocotb 2.x: the same seeded values, applied at",
            "the falling edge of the first clock. Generated by Benchwright.",
            "Interface drivers: " + (", ".join(sorted({p.extension or "hand-written" for p in found})) or "none") + ".",
            '"""', ""]
    lines = [*head, *_imports(used, found, checked), section("the design"), *_design(t, used)]
    if checked:
        lines += ["", *cocotb_checks.tables(plan, {s.name for s in t.layout.ports if s.dims})]
    lines += [section("runtime: random source, field values, operations") + CORE.rstrip("\n")]
    if found:
        lines.append(METHODS.rstrip("\n"))  # more methods of CORE's `Bench`
    if checked:
        lines.append(cocotb_checks.RUNTIME.rstrip("\n"))
    texts: list[str] = []
    for p in found:
        texts += [x for x in p.texts if x not in texts]
    if found:
        lines.append(section("drivers") + "\n\n\n".join(x.strip("\n") for x in texts))
        lines += [line for p in found for line in p.prelude]
        lines += _factory(found)
    body = [
        "", "", "@cocotb.test()", f"async def {cocotb_test_name(top)}(dut):",
        '    """Run the program (its text form below, one call per operation)."""',
        *[f"    # {line}" for line in text],
        "    for name, period in CLOCKS:",
        '        Clock(dut[name], period, unit="ns").start(start_high=False)',
    ]
    if any(p.extension and p.extension != "UartSource" for p in found):
        body.append('    logging.getLogger("cocotb.bw").setLevel(logging.WARNING)  # cocotbext-axi logs every beat')
    body += ["    bw = Bench(dut)", "    bw.power_up()"]
    if checked:
        body += ["    checks = Checks(dut, bw.clock)", "    cocotb.start_soon(checks.sample())"]
    body += ["    # --- program ---", *program_py(t, program.ops, checked=checked), "    # --- end of program ---"]
    if checked:
        body.append("    checks.done()")
    return "\n".join([*lines, *body]) + "\n"
