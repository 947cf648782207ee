"""The harness that interprets programs, and the final testbench that calls them.

`render_harness(t)` is built once per design: every task of the library and an interpreter
that reads `prog.txt` (`encode.py`) at run time, so a trial is a data file, never a rebuild.
`render_testbench(t, program)` is what a person keeps: only the tasks the program uses, then
the program as one call per line (`wb_write(2'h1, 32'h10, 4'hf);`). Both are assembled from
the same pieces, so a program covers exactly the same points in either. `sv_read.py` reads
a rendered testbench back into its program.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.program import sv_accessors as acc
from agent.program import sv_checks as chk
from agent.program import sv_common as c
from agent.program import sv_ifaces as ifc
from agent.program import sv_monitors as mon
from agent.program import sv_responders as rsp
from agent.program.encode import DATA_FILE, FILL_CODES, OPCODES, PARITY_CODES, only_mask
from agent.program.interfaces import Iface
from agent.program.ops import BY_NAME, Op, Program, Value, grows
from agent.program.sv_shared import share_openings
from agent.program.target import MAX_AVOID_PAIRS, Target

HARNESS_TOP = "bw_harness"
"""Module name of the program-interpreting harness."""

BEGIN_MARK = "// --- program ---"
"""Line before the program's calls in a rendered testbench."""

END_MARK = "// --- end of program ---"
"""Line after them."""

TASK_NAMES = {"corners": "bw_corners", "walk": "bw_walk"}
"""Operations that are one call without arguments."""


# ---------------------------------------------------------------------------- what a program uses


def _used(t: Target, program: Program) -> dict[str, set[str]]:
    """Scope kind -> names a program uses, plus `op` -> operation names."""
    used: dict[str, set[str]] = {"op": set()}
    for op in program.walk():
        used["op"].add(op.name)
        for arg in BY_NAME[op.name].args:
            if arg.kind.startswith("name:") and arg.kind[5:] not in ("field", "output"):
                value = op.get(arg.name)
                used.setdefault(arg.kind[5:], set()).add(str(value))
        if op.name == "loopback":
            used.setdefault("loopback", set()).add(op.word("pin"))
    return used


def _needs_palettes(program: Program) -> bool:
    # `bw_random` names the palettes whatever its `pal` share (a 0 share still compiles them).
    for op in program.walk():
        if op.name in ("corners", "random", "send") \
                or (op.name == "fill" and op.word("pattern") == "palette"):
            return True
    return False


# ---------------------------------------------------------------------------- module assembly


def _library(t: Target, used: dict[str, set[str]] | None, palettes: bool) -> list[str]:
    """Task library lines: everything (harness, `used` None) or what `used` names."""
    every = used is None
    ops = set() if used is None else used["op"]

    def want(*names: str) -> bool:
        return every or bool(ops & set(names))

    lines = c.step_task(t)
    if every or palettes:
        lines += c.palette_lines(t)
    lines += c.rng_lines(t)
    if want("reset"):
        lines += c.reset_task(t)
    if want("avoid", "toggle", "random") or every:
        lines += c.access_lines(t) if (every or ops & {"avoid", "toggle"}) else []
    if want("avoid") or every:
        lines += c.avoid_lines()
    with_avoid = every or "avoid" in ops
    if want("random"):
        lines += _random(t, with_avoid, trace=every)
    if want("corners"):
        lines += _without_avoid(c.corners_task(t), with_avoid)
    if want("walk"):
        lines += c.walk_task(t)
    if want("toggle"):
        lines += c.toggle_task()
    if every:
        lines += c.wait_task()
    groups: list[tuple[str, tuple[Iface, ...]]] = [
        ("bus", t.interfaces.buses), ("stream", t.interfaces.streams), ("sink", t.interfaces.sinks),
        ("responder", t.interfaces.responders), ("serial", t.interfaces.serials)]
    for kind, ifaces in groups:
        for iface in ifaces:
            if not every and iface.name not in (used or {}).get(kind, set()):
                continue
            if kind == "bus":
                lines += ifc.bus_tasks(t, iface, listed=every or iface.name in (used or {}).get("sweep", set()))
                continue
            lines += {"stream": ifc.stream_task, "sink": ifc.sink_lines,
                      "responder": rsp.responder_lines, "serial": ifc.serial_task}[kind](t, iface)
    ports = [name for name, _ in t.interfaces.ports if every or name in (used or {}).get("port", set())]
    if ports:
        lines += ifc.pattern_function()
    for name in ports:
        lines += ifc.port_tasks(t, name)
    return lines


def _random(t: Target, with_avoid: bool, trace: bool) -> list[str]:
    return _without_avoid(c.random_task(t, trace), with_avoid)


def _without_avoid(lines: list[str], with_avoid: bool) -> list[str]:
    """Task lines without the `bw_apply_avoid()` calls when the program learned no rule."""
    return lines if with_avoid else [line.replace(" bw_apply_avoid();", "") for line in lines
                                     if line.strip() != "bw_apply_avoid();"]


def _restricted(t: Target, used: dict[str, set[str]] | None) -> Target:
    """`t` with only the responders, sinks and loopbacks a program uses (fewer muxes and flags)."""
    if used is None:
        return t
    from dataclasses import replace

    ifs = t.interfaces
    keep = replace(ifs, responders=tuple(i for i in ifs.responders if i.name in used.get("responder", set())),
                   sinks=tuple(i for i in ifs.sinks if i.name in used.get("sink", set())),
                   serials=tuple(i if i.name in used.get("loopback", set()) else replace(i, partner="")
                                 for i in ifs.serials))
    return replace(t, interfaces=keep)


def _module(t: Target, name: str, header: Sequence[str], used: dict[str, set[str]] | None, palettes: bool,
            body: Sequence[str]) -> str:
    shell = _restricted(t, used)
    # The testbench's own code is never coverage: leaving it out keeps coverage.dat (and every
    # trial's parse) to the DUT's points.
    lines = [*header, "`timescale 1ns/1ps", f"module {name};", "  // verilator coverage_off"]
    lines += [f"  {line}" for line in c.declarations(shell)]
    lines += [f"  {line}" for line in c.instance(shell)]
    lines.append("")
    lines += [f"  {line}" for line in _library(shell, used, palettes)]
    lines.append("")
    lines += [f"  {line}" for line in body]
    lines += ["endmodule", ""]
    return "\n".join(lines)


def _init(t: Target) -> list[str]:
    """Statements at time 0: inputs idle, resets released (the program's `reset` asserts them)."""
    resets = [f"{f.name} = 1'b{f.idle};" for f in t.fields if f.reset]
    return c.idle_lines(t) + resets


def render_harness(t: Target) -> str:
    """The data-driven harness: every task, and an interpreter of `prog.txt`."""
    init = " ".join(_init(t))
    body = [
        "integer bw_fd, bw_r, bw_op, bw_k, bw_i, bw_a0, bw_a1, bw_a2, bw_a3, bw_a4, bw_a5;",
        f"logic [{c.W}-1:0] bw_x0, bw_x1, bw_x2;",
        f"int bw_af [{MAX_AVOID_PAIRS}]; logic [{c.W}-1:0] bw_av [{MAX_AVOID_PAIRS}];",
        "initial begin",
        f"  {init}",
        f'  bw_fd = $fopen("{DATA_FILE}", "r");',
        f'  if (bw_fd == 0) $fatal(1, "cannot open {DATA_FILE}");',
        "  bw_k = 0;",
        '  while ($fscanf(bw_fd, "%d", bw_op) == 1) begin',
        '    $display("bw_op %0d %0t", bw_k, $time);',
        "    case (bw_op)",
        *[f"      {line}" for line in _dispatch(t)],
        "      default: ;",
        "    endcase",
        "    bw_k++;",
        "  end",
        "  $fclose(bw_fd);",
        "  $finish;",
        "end",
    ]
    header = ["// Benchwright program harness (generated): interprets prog.txt, one operation per line."]
    # Every trial runs the protocol checkers: a rule the design breaks in any trial is a finding
    # the search keeps a witness program for (`ProgramSearch.witnesses`).
    monitors = mon.lines(t, [*((k, "") for k in t.interfaces.sinks),
                             *((r, f"bw_{r.name}_on") for r in t.interfaces.responders)])
    return _module(t, HARNESS_TOP, header, None, True, [*acc.lines(t), *monitors, *body])


def _read(fmt: str, *targets: str) -> str:
    return f'bw_r = $fscanf(bw_fd, "{fmt}", {", ".join(targets)});'


def _case(t: Target, index: str, ifaces: Sequence[Iface], call: str) -> str:
    arms = " ".join(f"{k}: {call.format(n=i.name)};" for k, i in enumerate(ifaces))
    return f"case ({index}) {arms} default: ; endcase" if arms else ""


def _dispatch(t: Target) -> list[str]:
    """The interpreter's case arms, one per opcode."""
    ifs = t.interfaces
    nf = max(1, len(t.fields))
    o = OPCODES
    arms = [
        f"{o['reset']}: begin {_read('%d', 'bw_a0')} bw_reset(bw_a0); end",
        f"{o['hold']}: begin {_read('%d', 'bw_a0')} bw_step(bw_a0); end",
        f"{o['set']}: begin {_read('%d', 'bw_a0')} repeat (bw_a0) begin {_read('%d %h', 'bw_i', 'bw_x0')} "
        "bw_put(bw_i, bw_x0); end end",
        f"{o['random']}: begin {_read('%d %h %d %d %d %d %h', 'bw_a0', 'bw_x0', 'bw_a1', 'bw_a2', 'bw_a3', 'bw_a4', 'bw_x1')} "
        f"bw_random(bw_a0, bw_x0[31:0], bw_a1, bw_a2, bw_a3, bw_a4, bw_x1[{nf - 1}:0]); end",
        f"{o['corners']}: bw_corners();",
        f"{o['walk']}: bw_walk();",
        f"{o['toggle']}: begin {_read('%d %d', 'bw_a0', 'bw_a1')} bw_toggle(bw_a0, bw_a1); end",
        f"{o['avoid']}: begin {_read('%d', 'bw_a0')} for (int j = 0; j < {MAX_AVOID_PAIRS}; j++) begin bw_af[j] = 0; "
        f"bw_av[j] = '0; end for (int j = 0; j < bw_a0; j++) {_read('%d %h', 'bw_af[j]', 'bw_av[j]')} "
        "bw_avoid(bw_a0, " + ", ".join(f"bw_af[{j}], bw_av[{j}]" for j in range(MAX_AVOID_PAIRS)) + "); end",
        f"{o['wait']}: begin {_read('%d %h %d', 'bw_a0', 'bw_x0', 'bw_a1')} bw_wait(bw_a0, bw_x0, bw_a1); end",
    ]
    if ifs.ports:
        writes = " ".join(f"{k}: {n}_write(bw_x0, bw_x1);" for k, (n, _) in enumerate(ifs.ports))
        fills = " ".join(f"{k}: {n}_fill(bw_a1, bw_x0[31:0]);" for k, (n, _) in enumerate(ifs.ports))
        arms += [f"{o['write']}: begin {_read('%d %h %h', 'bw_a0', 'bw_x0', 'bw_x1')} case (bw_a0) {writes} "
                 "default: ; endcase end",
                 f"{o['fill']}: begin {_read('%d %d %h', 'bw_a0', 'bw_a1', 'bw_x0')} case (bw_a0) {fills} "
                 "default: ; endcase end"]
    if ifs.buses:
        arms += [f"{o['bus_write']}: begin {_read('%d %h %h %h', 'bw_a0', 'bw_x0', 'bw_x1', 'bw_x2')} "
                 f"{_case(t, 'bw_a0', ifs.buses, '{n}_write(bw_x0, bw_x1, bw_x2)')} end",
                 f"{o['bus_read']}: begin {_read('%d %h %h', 'bw_a0', 'bw_x0', 'bw_x1')} "
                 f"{_case(t, 'bw_a0', ifs.buses, '{n}_read(bw_x0, bw_x1)')} end",
                 f"{o['bus_burst']}: begin "
                 f"{_read('%d %h %d %h %d %d %d %d', 'bw_a0', 'bw_x0', 'bw_a1', 'bw_x1', 'bw_a2', 'bw_a3', 'bw_a4', 'bw_a5')} "
                 f"{_case(t, 'bw_a0', ifs.buses, '{n}_burst(bw_x0, bw_a1, bw_x1[31:0], bw_a2[0], bw_a3, bw_a4, bw_a5)')} end"]
    if ifs.streams:
        arms.append(f"{o['send']}: begin {_read('%d %d %h %d %d', 'bw_a0', 'bw_a1', 'bw_x0', 'bw_a2', 'bw_a3')} "
                    f"{_case(t, 'bw_a0', ifs.streams, '{n}_send(bw_a1, bw_x0[31:0], bw_a2, bw_a3)')} end")
    if ifs.sinks:
        arms.append(f"{o['sink']}: begin {_read('%d %d %h', 'bw_a0', 'bw_a1', 'bw_x0')} "
                    f"{_case(t, 'bw_a0', ifs.sinks, '{n}_sink(bw_a1, bw_x0[31:0])')} end")
    if ifs.responders:
        arms.append(f"{o['respond']}: begin {_read('%d %d %h %d', 'bw_a0', 'bw_a1', 'bw_x0', 'bw_a2')} "
                    f"{_case(t, 'bw_a0', ifs.responders, '{n}_respond(bw_a1, bw_x0[31:0], bw_a2)')} end")
    if ifs.serials:
        arms.append(f"{o['serial']}: begin {_read('%d %d %h %d %d', 'bw_a0', 'bw_a1', 'bw_x0', 'bw_a2', 'bw_a3')} "
                    f"{_case(t, 'bw_a0', ifs.serials, '{n}_send(bw_a1, bw_x0[8:0], bw_a2, bw_a3)')} end")
        loops = [(k, i) for k, i in enumerate(ifs.serials) if i.partner]
        if loops:
            sets = " ".join(f"{k}: bw_{i.name}_lb = bw_a1[0];" for k, i in loops)
            arms.append(f"{o['loopback']}: begin {_read('%d %d', 'bw_a0', 'bw_a1')} case (bw_a0) {sets} "
                        "default: ; endcase end")
    return arms


# ---------------------------------------------------------------------------- the final testbench


def _lit(bits: int, value: int) -> str:
    return c.hexlit(max(1, bits), value)


def _seed(value: int) -> str:
    return f"32'h{value:x}"


def op_sv(t: Target, op: Op) -> str:
    """One operation as one line of SV calls (a `repeat` header is `repeat (n) begin`)."""
    n = op.name
    ifs = t.interfaces
    if n == "reset":
        return f"bw_reset({op.num('cycles')});"
    if n == "hold":
        return f"bw_step({op.num('cycles')});"
    if n == "set":
        return " ".join(f"{t.handle(t.fields[t.index(k)])} = {_lit(t.fields[t.index(k)].bits, int(v))};"
                        for k, v in op.args if isinstance(v, int))
    if n == "random":
        nf = max(1, len(t.fields))
        return (f"bw_random({op.num('cycles')}, {_seed(op.num('seed'))}, {op.num('pal')}, {op.num('keep')}, "
                f"{op.num('maxhold')}, {op.num('resets')}, {nf}'b{only_mask(t, op):0{nf}b});")
    if n in TASK_NAMES:
        return f"{TASK_NAMES[n]}();"
    if n == "toggle":
        return f"bw_toggle({t.index(op.word('field'))}, {op.num('bit')});  // {op.word('field')}[{op.num('bit')}]"
    if n == "avoid":
        pairs = [(t.index(k), int(v)) for k, v in op.args if isinstance(v, int)][:MAX_AVOID_PAIRS]
        padded = pairs + [(0, 0)] * (MAX_AVOID_PAIRS - len(pairs))
        text = " ".join(f"{k}={v:#x}" for k, v in op.args)
        return f"bw_avoid({len(pairs)}, " + ", ".join(f"{i}, 'h{v:x}" for i, v in padded) + f");  // {text}"
    if n == "wait":
        bits = dict(t.outputs())[op.word("output")]
        return (f"for (int t = 0; t < {op.num('timeout')} && {op.word('output')} != {_lit(bits, op.num('value'))}; "
                "t++) bw_step(1);")
    if n == "write":
        wp = ifs.write_port(op.word("port"))
        aw = max(1, c.port_bits(t, wp.address)) if wp.address else 1
        dw = max(1, min(wp.width, max((b for _, _, b in wp.data), default=1)))
        return f"{op.word('port')}_write({_lit(aw, op.num('addr'))}, {_lit(dw, op.num('data'))});"
    if n == "fill":
        return f"{op.word('port')}_fill({ifc.PATTERN_CODES[op.word('pattern')]}, {_seed(op.num('seed'))});  " \
               f"// {op.word('pattern')}"
    if n in ("bus_write", "bus_read", "bus_burst"):
        bus = ifs.named(op.word("bus"))
        seed = _seed(op.num("seed")) if n == "bus_burst" else ""
        return _bus_call(bus, op, _lit(max(1, bus.addr_bits), op.num("addr")), seed)
    if n == "send":
        return f"{op.word('stream')}_send({op.num('beats')}, {_seed(op.num('seed'))}, {op.num('gap')}, {op.num('lane')});"
    if n == "sink":
        return f"{op.word('stream')}_sink({op.num('ready')}, {_seed(op.num('seed'))});"
    if n == "respond":
        return (f"{op.word('iface')}_respond({FILL_CODES[op.word('fill')]}, {_seed(op.num('seed'))}, "
                f"{op.num('latency')});  // fill={op.word('fill')}")
    if n == "serial":
        data = op.get("data")
        assert isinstance(data, tuple)
        return " ".join(f"{op.word('pin')}_send({op.num('period')}, {_lit(9, int(b))}, "
                        f"{PARITY_CODES[op.word('parity')]}, {op.num('stop')});" for b in data)
    if n == "loopback":
        return f"bw_{op.word('pin')}_lb = 1'b{op.num('on')};  // loopback"
    if n == "repeat":
        return f"repeat ({op.num('times')}) begin"
    raise ValueError(f"no SV form for {n!r}")


def _bus_call(bus: Iface, op: Op, addr: str, seed: str) -> str:
    """A bus operation as a call, its address and (a burst's) seed given as SV expressions."""
    if op.name == "bus_read":
        if op.num("strb") == 0xFF:  # every lane: the task's default
            return f"{bus.name}_read({addr});"
        return f"{bus.name}_read({addr}, {_lit(max(1, bus.data_bits // 8), op.num('strb'))});"
    if op.name == "bus_burst":
        what = "random writes" if op.num("write") else "reads"
        gap = op.num("gap")
        # 0, one address, and no gap: the task's defaults
        step = f", {op.num('step')}" if op.num("step") or gap else ""
        step += f", {gap}" if gap else ""
        where = f" from {op.num('step')} apart" if op.num("step") else ""
        where += f", {gap} idle clocks between" if gap else ""
        return (f"{bus.name}_burst({addr}, {op.num('count')}, {seed}, 1'b{op.num('write')}, "
                f"{op.num('bits')}{step});  // {what}{where}")
    if bus.byte_lanes and op.num("strb") == 0xFF:  # a byte register picked by the address's lane
        data = op.num("data")
        return f"{bus.name}_write({addr}, {_lit(8 if data <= 0xFF else max(1, bus.data_bits), data)});"
    d = _lit(max(1, bus.data_bits), op.num("data"))
    return f"{bus.name}_write({addr}, {d}, {_lit(max(1, bus.data_bits // 8), op.num('strb'))});"


def _sweep(t: Target, ops: Sequence[Op], k: int) -> tuple[int, str] | None:
    """The run of bus operations at `ops[k]` over every register, as one loop line (or None).

    Returns (operations the line stands for, the line). The run visits `ifc.sweep_registers`
    in order or in reverse. The same operation on every register is how scenarios configure
    and drain a device; one loop over the register list reads as that, and keeps the
    testbench short enough to hold more programs. The operations must agree in everything
    but the address, except a burst's seed, which may be a base plus the register's index in
    the list (every register gets its own data).
    """
    first = ops[k]
    if first.name not in ("bus_write", "bus_read", "bus_burst"):
        return None
    bus = t.interfaces.named(first.word("bus"))
    regs = ifc.sweep_registers(bus)
    n = len(regs)
    run = ops[k:k + n]
    if n < ifc.MIN_SWEEP or len(run) < n:
        return None
    addrs = [o.num("addr") if o.name == first.name and o.word("bus") == bus.name else -1 for o in run]
    if addrs == list(regs):
        index = list(range(n))
    elif addrs == list(reversed(regs)):
        index = list(reversed(range(n)))
    else:
        return None

    def rest(o: Op) -> tuple[Value, ...]:  # every argument but the bus, the address and the seed
        return tuple(o.get(a.name) for a in BY_NAME[o.name].args if a.name not in ("bus", "addr", "seed"))

    if any(rest(o) != rest(first) for o in run):
        return None
    seed = ""
    if first.name == "bus_burst":
        seeds = [o.num("seed") for o in run]
        base = seeds[0] - index[0]
        if len(set(seeds)) == 1:
            seed = _seed(seeds[0])
        elif base >= 1 and all(s == base + i for s, i in zip(seeds, index, strict=True)):
            seed = f"{_seed(base)} + bw_i"
        else:
            return None
    regs_name = ifc.sweep_name(bus)
    call = _bus_call(bus, first, f"{regs_name}[bw_i]", seed)
    loop = (f"foreach ({regs_name}[bw_i])" if index[0] == 0
            else f"for (int bw_i = {n - 1}; bw_i >= 0; bw_i--)")
    return n, f"{loop} {call}"


def _op_line(t: Target, op: Op, depth: int, pass_var: str | None) -> str:
    """`op_sv`, with a growing hold's pass counter and a `for` header for a repeat that needs one.

    `pass_var`: the loop variable of the repeat around `op` when that repeat counts its passes
    (a hold there with `grow` lasts longer each pass); outside one, such a hold is its first pass.
    """
    if op.name == "hold" and op.num("grow") and pass_var is not None:
        return f"bw_step({op.num('cycles')} + {op.num('grow')} * {pass_var});"
    if op.name == "repeat" and grows(op.body):
        v = f"bw_p{depth}"
        return f"for (int {v} = 0; {v} < {op.num('times')}; {v}++) begin"
    return op_sv(t, op)


def program_sv(t: Target, ops: Sequence[Op], depth: int = 1, *, comments: dict[int, str] | None = None,
               before: dict[int, str] | None = None, pass_var: str | None = None) -> list[str]:
    """The program's calls, one operation per line (blocks indented).

    The same bus operation on every register is one loop line (`_sweep`). `comments`: a
    comment line before an operation (by index); `before`: a statement before that (a check).
    `pass_var`: the pass counter of the repeat these operations are the block of (`_op_line`).
    """
    lines: list[str] = []
    pad = "  " * depth
    comments = comments or {}
    before = before or {}
    k = 0
    while k < len(ops):
        op = ops[k]
        if k in before:
            lines.append(f"{pad}{before[k]}")
        if k in comments:
            lines.append(f"{pad}// {comments[k]}")
        sweep = _sweep(t, ops, k)
        if sweep is not None and not any(j in comments or j in before for j in range(k + 1, k + sweep[0])):
            lines.append(pad + sweep[1])
            k += sweep[0]
            continue
        line = _op_line(t, op, depth, pass_var)
        after = ops[k + 1] if k + 1 < len(ops) else None
        if after is not None and after.name == "hold" and op.name in HOLD_JOINS and k + 1 not in comments \
                and k + 1 not in before:
            line = _then_hold(line, _op_line(t, after, depth, pass_var))
            k += 1
        lines.append(pad + line)
        if op.name == "repeat":
            lines += program_sv(t, op.body, depth + 1, pass_var=f"bw_p{depth}" if grows(op.body) else None)
            lines.append(pad + "end")
        k += 1
    return lines


HOLD_JOINS = frozenset({"set", "random", "toggle", "write", "fill", "bus_write", "bus_burst", "send", "sink",
                        "respond", "serial", "loopback", "corners", "walk"})
"""Operations a following `hold` joins on one line ("do this, then let it run"): serial frames,
bursts and random runs are nearly always followed by one, and two lines each spent a quarter
of a serial device's testbench. Not a read (a checked read keeps a line of its own), a reset,
a wait, a loop or a block."""


def _then_hold(line: str, hold: str) -> str:
    """`line` with the `hold` call after its statements, before its comment."""
    code, sep, comment = line.partition("  //")
    return f"{code} {hold}{sep}{comment}"


def render_testbench(t: Target, program: Program, *, title: str = "", notes: Sequence[str] = (),
                     phases: Sequence[tuple[int, str]] = (), checks: chk.Checks | None = None) -> str:
    """The testbench a person keeps: the tasks the program uses, then its calls.

    `phases` are (operation index, comment) pairs: a comment line before that operation
    (what each part of the program reaches). `checks`: compare (or record) every output's
    signature at the end of each phase (`sv_checks.py`), and check the handshake rules of the
    interfaces the design drives (`sv_monitors.py`).
    """
    used = _used(t, program)
    count = chk.phase_count(len(phases))
    # Each phase ends where the next begins; phases past the last recorded one fold into it.
    ends = {at: f"bw_check({k - 1});" for k, (at, _) in enumerate(phases) if 0 < k < count} if checks else {}
    body_lines = program_sv(t, program.ops, comments=dict(phases), before=ends)
    # A bus's register list is declared only when a loop walks it.
    used["sweep"] = {b.name for b in t.interfaces.buses
                     if any(f"{ifc.sweep_name(b)}[bw_i]" in line for line in body_lines)}
    init = " ".join(_init(_restricted(t, used)))
    done = [f"  bw_check({count - 1}); bw_checks_done();"] if checks else []
    shared, body_lines = share_openings(body_lines)
    if checks is not None:
        body_lines, checks = chk.checked_reads(t, body_lines, checks)
    body = [*shared, "initial begin", f"  {init}", f"  {BEGIN_MARK}", *body_lines, f"  {END_MARK}", *done,
            "  $finish;", "end"]
    header = [f"// Testbench for {t.layout.top}: {title or 'a stimulus program found by the Benchwright engine'}",
              *[f"// {n}" for n in notes]]
    if checks is not None:
        answered = [(r, f"bw_{r.name}_on") for r in t.interfaces.responders if r.name in used.get("responder", set())]
        monitors = mon.lines(t, [*((k, "") for k in t.interfaces.sinks), *answered])
        body = [*chk.lines(t, checks, count), *monitors, "", *body]
        header += [f"// not checked: {name} ({why})" for name, why in checks.left_out]
    # Called with or without checks: the kept testbench covers what the search measured.
    body = [*acc.lines(t), *body]
    return _module(t, f"tb_{t.layout.top}", header, used, _needs_palettes(program), body)
