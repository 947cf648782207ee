"""SystemVerilog pieces every program testbench shares: declarations, the DUT instance, the task library.

The harness (which interprets a program from a data file) and the final testbench (which
calls the same tasks in order) are assembled from these pieces by `sv.py`, so the two
apply exactly the same stimulus. Values are applied at the negedge of the first clock
(a combinational design waits `COMB_DELAY` ns per step instead); random values come from
`bw_rand()`, the xorshift32 of `rng.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.heuristic.stimulus import COMB_STEP_NS, Field, Signal
from agent.program.target import (
    LONG_STALL_CLOCKS,
    LONG_STALL_EVERY,
    MAX_AVOID,
    MAX_AVOID_PAIRS,
    MEM_WORDS,
    ROUGH_LATENCY,
    SLOW_ANSWER_EVERY,
    Target,
)

COMB_DELAY = COMB_STEP_NS
"""Nanoseconds per step of a design without a clock."""

W = "BW_W"
"""Name of the localparam holding the value carrier's width."""


def hexlit(bits: int, value: int) -> str:
    """A sized hex literal (`8'h0a`)."""
    return f"{bits}'h{value & ((1 << bits) - 1):0{max(1, (bits + 3) // 4)}x}"


def vrange(bits: int) -> str:
    """`[bits-1:0] ` or '' for one bit."""
    return f"[{bits - 1}:0] " if bits > 1 else ""


def port_bits(t: Target, port: str) -> int:
    """Packed width of a design port (1 when the design has none of that name)."""
    return next((s.width for s in t.layout.ports if s.name == port), 1)


def clock_of(t: Target) -> str:
    """The design's first clock ('' for a design without one)."""
    return t.layout.clocks[0].name if t.layout.clocks else ""


def assigns(pairs: Sequence[tuple[str, str]]) -> str:
    """Blocking assignments `port = value;` for the pairs whose port exists (is not '')."""
    return " ".join(f"{p} = {v};" for p, v in pairs if p)


def rough_error(n: str, shift: int = 8) -> str:
    """SV condition: responder `n` answers this transfer with an error (one in sixteen when rough).

    A memory answered with `ROUGH_LATENCY` or more is rough; the draw is its generator's current
    state shifted by `shift` (two answers of one clock use different bits).
    """
    return f"(bw_{n}_lat >= {ROUGH_LATENCY} && (bw_{n}_rng >> {shift}) % 16 == 0)"


def _start_stall(n: str, shift: int, every: int) -> str:
    """SV statement: a rough responder `n` starts a long stall one time in `every`.

    The draw is its generator's state shifted by `shift`; the stall lasts `latency *
    LONG_STALL_CLOCKS` clocks times 1, 2, 4 or 8 (bits 30-31).
    """
    return (f"if (bw_{n}_lat >= {ROUGH_LATENCY} && (bw_{n}_rng >> {shift}) % {every} == 0) "
            f"bw_{n}_long = (bw_{n}_lat * {LONG_STALL_CLOCKS}) << (bw_{n}_rng >> 30);")


def long_stall(n: str) -> str:
    """SV statement: count down responder `n`'s long stall, or start one (once in `LONG_STALL_EVERY`).

    The draw uses bits from 20 up, which no other answer of the clock uses.
    """
    return f"if (bw_{n}_long > 0) bw_{n}_long = bw_{n}_long - 1; else {_start_stall(n, 20, LONG_STALL_EVERY)}"


def slow_answer(n: str, shift: int) -> str:
    """SV statement: a rough responder `n` makes this answer wait one of its long stalls.

    One time in `SLOW_ANSWER_EVERY` (a write response, a read's data); the draw is the state
    shifted by `shift`. The stall holds every later answer of the same clock too.
    """
    return _start_stall(n, shift, SLOW_ANSWER_EVERY)


def xorshift(n: str) -> str:
    """One xorshift32 step of interface `n`'s own generator (`bw_<n>_rng`), as `rng.py` draws."""
    return f"bw_{n}_rng ^= bw_{n}_rng << 13; bw_{n}_rng ^= bw_{n}_rng >> 17; bw_{n}_rng ^= bw_{n}_rng << 5;"


def mem_index(addr: str, dw: int) -> str:
    """The memory model's word index of a byte address (wrapping at `MEM_WORDS`)."""
    shift = max(0, (dw // 8).bit_length() - 1)
    return f"(({addr}) >> {shift}) % {MEM_WORDS}"


def write_bytes(n: str, idx: str, wdata: str, strb: str, dw: int) -> str:
    """Store `wdata` in word `idx` of `bw_<n>_mem`: the bytes `strb` enables, or the whole word without one."""
    if strb:
        return (f"for (int bw_b = 0; bw_b < {max(1, dw // 8)}; bw_b++) if ({strb}[bw_b]) "
                f"bw_{n}_mem[{idx}][8*bw_b +: 8] = {wdata}[8*bw_b +: 8];")
    return f"bw_{n}_mem[{idx}] = {wdata};"


def _decl(s: Signal) -> str:
    sign = "signed " if s.signed else ""
    dims = "".join(f" [{d}]" for d in s.dims)
    return f"logic {sign}{vrange(s.width)}{s.name}{dims}"


def declarations(t: Target) -> list[str]:
    """Clocks, one variable per port (same-typed ones share a line), flat copies of array inputs.

    Also the values responders and loopbacks drive instead of the program.
    """
    lines: list[str] = []
    for c in t.layout.clocks:
        lines.append(f"logic {c.name} = 1'b0;")
        lines.append(f"always #{c.half_period} {c.name} = ~{c.name};")
    clocks = {c.name for c in t.layout.clocks}
    groups: dict[str, list[str]] = {}
    for s in t.layout.ports:
        if s.name in clocks:
            continue
        if s.dims:
            lines.append(_decl(s) + ";")
            continue
        key = f"logic {'signed ' if s.signed else ''}{vrange(s.width)}"
        groups.setdefault(key, []).append(s.name)
    for key, names in groups.items():
        for k in range(0, len(names), 8):
            lines.append(f"{key}{', '.join(names[k:k + 8])};")
    for f in t.fields:
        if f.dims:
            lines.append(f"logic [{f.bits - 1}:0] {t.handle(f)} = '0;")
            lines += _unpack(f, t.handle(f))
    for iface in (*t.interfaces.responders, *t.interfaces.sinks):
        lines.append(f"logic bw_{iface.name}_on = 1'b0;")
        for port in iface.driven:
            s = next(p for p in t.layout.ports if p.name == port)
            lines.append(f"logic {vrange(s.width)}bw_{port} = '0;")
    for iface in t.interfaces.serials:
        if iface.partner:
            lines.append(f"logic bw_{iface.name}_lb = 1'b0;")
    return lines


def _unpack(f: Field, flat: str) -> list[str]:
    """Continuous copy of a flat value into an unpacked-array input."""
    if len(f.dims) == 1:
        return [f"always_comb for (int i = 0; i < {f.dims[0]}; i++) {f.name}[i] = {flat}[i*{f.width} +: {f.width}];"]
    lines = ["always_comb begin"]
    for k in range(f.count):
        idx, rest = [], k
        for d in reversed(f.dims):
            idx.append(rest % d)
            rest //= d
        sel = "".join(f"[{i}]" for i in reversed(idx))
        lines.append(f"  {f.name}{sel} = {flat}[{k * f.width} +: {f.width}];")
    return [*lines, "end"]


def instance(t: Target) -> list[str]:
    """The DUT, ports connected by name (`.*`), responder/loopback-driven inputs through a mux."""
    overrides: list[str] = []
    for iface in (*t.interfaces.responders, *t.interfaces.sinks):
        for port in iface.driven:
            overrides.append(f".{port}(bw_{iface.name}_on ? bw_{port} : {port})")
    for iface in t.interfaces.serials:
        if iface.partner:
            pin = iface.port("pin")
            overrides.append(f".{pin}(bw_{iface.name}_lb ? {iface.partner} : {pin})")
    if not overrides:
        return [f"{t.layout.top} {t.layout.instance} (.*);"]
    return [f"{t.layout.top} {t.layout.instance} (", "  .*,", *[f"  {o}," for o in overrides[:-1]],
            f"  {overrides[-1]}", ");"]


def step_task(t: Target) -> list[str]:
    """`bw_step(n)`: wait n steps (clock negedges, or a delay without a clock)."""
    wait = f"#{COMB_DELAY}" if t.layout.combinational else f"@(negedge {t.layout.clocks[0].name})"
    return ["task automatic bw_step(input int bw_n);", f"  repeat (bw_n) {wait};", "endtask"]


def rng_lines(t: Target) -> list[str]:
    """The xorshift32 source and `bw_bits(w)` (a few set bits sometimes, else w uniform bits)."""
    return [
        f"localparam int {W} = {t.max_bits};",
        "int unsigned bw_state = 32'd1;",
        "function automatic int unsigned bw_rand();",
        "  bw_state ^= bw_state << 13; bw_state ^= bw_state >> 17; bw_state ^= bw_state << 5;",
        "  return bw_state;",
        "endfunction",
        f"function automatic logic [{W}-1:0] bw_bits(input int bw_w);",
        f"  logic [{W}-1:0] bw_v = '0;",
        "  if (bw_w > 4) begin  // separate ifs: the draw happens only for fields wider than 4 bits",
        "    if (bw_rand() % 100 < 15) begin",
        "      repeat (1 + bw_rand() % 3) bw_v[bw_rand() % bw_w] = 1'b1;",
        "      return bw_v;",
        "    end",
        "  end",
        "  for (int bw_k = 0; bw_k < bw_w; bw_k += 32) bw_v[bw_k +: 32] = bw_rand();",
        f"  return bw_v & ({{{W}{{1'b1}}}} >> ({W} - bw_w));",
        "endfunction",
    ]


def palette_lines(t: Target) -> list[str]:
    """`BW_PAL_<i>`: the interesting values of every non-array field."""
    lines = []
    for i, f in enumerate(t.fields):
        values = palette_of(t, f)
        if f.dims or not values:
            continue
        lits = ", ".join(hexlit(f.bits, v) for v in values)
        lines.append(f"localparam logic [{f.bits - 1}:0] BW_PAL_{i} [{len(values)}] = '{{{lits}}};")
    return lines


def palette_of(t: Target, f: Field) -> tuple[int, ...]:
    """A field's palette as the testbench holds it (`Target.palette`)."""
    return t.palette(f)


def access_lines(t: Target) -> list[str]:
    """`bw_put(i, v)` / `bw_get(i)` by field index, `bw_out(i)` by output index."""
    lines = [f"task automatic bw_put(input int bw_i, input logic [{W}-1:0] bw_v);", "  case (bw_i)"]
    for i, f in enumerate(t.fields):
        lines.append(f"    {i}: {t.handle(f)} = {f.bits}'(bw_v);")
    lines += ["    default: ;", "  endcase", "endtask",
              f"function automatic logic [{W}-1:0] bw_get(input int bw_i);", "  case (bw_i)"]
    for i, f in enumerate(t.fields):
        lines.append(f"    {i}: return {W}'({t.handle(f)});")
    lines += ["    default: return '0;", "  endcase", "endfunction",
              f"function automatic logic [{W}-1:0] bw_out(input int bw_i);", "  case (bw_i)"]
    for i, (name, _) in enumerate(t.outputs()):
        lines.append(f"    {i}: return {W}'({name});")
    lines += ["    default: return '0;", "  endcase", "endfunction"]
    return lines


def _reset_fields(t: Target, asserted: bool) -> list[str]:
    return [f"{f.name} = 1'b{f.asserted if asserted else f.idle};" for f in t.fields if f.reset]


def reset_active(t: Target) -> str:
    """SV expression: some reset of the design is asserted ('' when it has none)."""
    return " || ".join(f"{f.name} == 1'b{f.asserted}" for f in t.fields if f.reset)


def responder_off(t: Target, n: str) -> str:
    """SV condition: responder `n` is off, or the design is in reset.

    A responder resets with the system: an answer in flight when a reset comes (random inputs
    may assert one) is dropped, never given to the design's first request after it.
    """
    reset = reset_active(t)
    return f"!bw_{n}_on || {reset}" if reset else f"!bw_{n}_on"


def idle_lines(t: Target) -> list[str]:
    """Every data input back to 0 (resets untouched); serial inputs idle high, as a line at rest does."""
    serial = {i.port("pin") for i in t.interfaces.serials}
    return [f"{t.handle(f)} = '{1 if f.name in serial else 0};" for f in t.fields if not f.reset]


def background_off(t: Target) -> list[str]:
    """Statements that stop every responder, sink and loopback."""
    out = [f"bw_{i.name}_on = 1'b0;" for i in (*t.interfaces.responders, *t.interfaces.sinks)]
    out += [f"bw_{i.name}_lb = 1'b0;" for i in t.interfaces.serials if i.partner]
    return out


def reset_task(t: Target) -> list[str]:
    """`bw_reset(n)`: responders off, data idle, resets asserted for n steps, then released for one."""
    body = [*background_off(t), *idle_lines(t), *_reset_fields(t, True), "bw_step(bw_n);", *_reset_fields(t, False),
            "bw_step(1);"]
    return ["task automatic bw_reset(input int bw_n);", *_pack(body), "endtask"]


def _pack(statements: Sequence[str], indent: str = "  ", width: int = 100) -> list[str]:
    """Short statements joined several per line (keeps the testbench short and readable)."""
    lines: list[str] = []
    current = ""
    for s in statements:
        if current and len(current) + len(s) + 1 > width:
            lines.append(indent + current)
            current = s
        else:
            current = f"{current} {s}" if current else s
    if current:
        lines.append(indent + current)
    return lines


def random_task(t: Target, trace: bool = False) -> list[str]:
    """`bw_random(n, seed, pal, keep, maxhold, resets, only)`: `rng.random_steps`, in SV.

    With `trace` (the harness) every step prints `bw_s <step>`, so a failing run says which
    step's values were in force (`blame.py`).
    """
    nf = max(1, len(t.fields))
    lines = [
        "task automatic bw_random(input int bw_n, input int unsigned bw_seed, input int bw_pal, input int bw_keep,",
        f"                         input int bw_maxhold, input int bw_resets, input logic [{nf - 1}:0] bw_only);",
        "  int unsigned bw_r;",
        "  bw_state = bw_seed;",
        "  for (int bw_s = 0; bw_s < bw_n; bw_s++) begin",
    ]
    for i, f in enumerate(t.fields):
        if f.reset:
            continue
        h = t.handle(f)
        draw = f"{h} = {f.bits}'(bw_bits({f.bits}));"
        pal = palette_of(t, f)
        if pal:
            draw = (f"if (bw_r < bw_keep + bw_pal) {h} = BW_PAL_{i}[bw_rand() % {len(pal)}]; "
                    f"else {h} = {f.bits}'(bw_bits({f.bits}));")
        lines.append(f"    if (bw_only[{i}]) begin bw_r = bw_rand() % 100; if (bw_r >= bw_keep) begin {draw} end end")
    resets = [f for f in t.fields if f.reset]
    if resets:
        pulse = " ".join(f"{f.name} = (bw_r < bw_resets) ? 1'b{f.asserted} : 1'b{f.idle};" for f in resets)
        lines.append(f"    if (bw_resets > 0) begin bw_r = bw_rand() % 1000; {pulse} end")
    lines += [
        "    bw_apply_avoid();",
        *(['    $display("bw_s %0d", bw_s);'] if trace else []),
        "    bw_step(bw_maxhold > 1 ? 1 + bw_rand() % bw_maxhold : 1);",
        "  end",
        "endtask",
    ]
    return lines


def corners_task(t: Target) -> list[str]:
    """`bw_corners()`: each data input through its palette with the others idle; then all ones, all zeros."""
    lines = ["task automatic bw_corners();"]
    for i, f in enumerate(t.fields):
        pal = palette_of(t, f)
        if f.reset or not pal:
            continue
        lines.append(f"  for (int bw_k = 0; bw_k < {len(pal)}; bw_k++) begin {f.name} = BW_PAL_{i}[bw_k]; bw_apply_avoid(); "
                     f"bw_step(1); end {f.name} = '0;")
    ones = [f"{t.handle(f)} = '1;" for f in t.fields if not f.reset]
    lines += [*_pack([*ones, "bw_step(2);", *idle_lines(t), "bw_step(2);"]), "endtask"]
    return lines


def walk_task(t: Target) -> list[str]:
    """`bw_walk()`: walking ones, then walking zeros, over every data input at once."""
    data = [f for f in t.fields if not f.reset]
    width = min(64, max((f.bits for f in data), default=0))
    lines = ["task automatic bw_walk();", "  for (int bw_inv = 0; bw_inv < 2; bw_inv++)",
             f"    for (int bw_b = 0; bw_b < {width}; bw_b++) begin"]
    for f in data:
        lines.append(f"      {t.handle(f)} = {f.bits}'(((bw_b < {f.bits}) ? ({W}'(1) << bw_b) : {W}'(0)) ^ "
                     f"((bw_inv != 0) ? {{{W}{{1'b1}}}} : {W}'(0)));")
    lines += ["      bw_step(1);", "    end", "endtask"]
    return lines


def toggle_task() -> list[str]:
    """`bw_toggle(i, bit)`: one input bit high for a step, then low for a step."""
    return [
        "task automatic bw_toggle(input int bw_i, input int bw_b);",
        f"  logic [{W}-1:0] bw_v;",
        "  bw_v = bw_get(bw_i); bw_v[bw_b] = 1'b1; bw_put(bw_i, bw_v); bw_step(1);",
        "  bw_v[bw_b] = 1'b0; bw_put(bw_i, bw_v); bw_step(1);",
        "endtask",
    ]


def avoid_lines() -> list[str]:
    """`bw_avoid(k, f0, v0, ...)` records a forbidden combination; `bw_apply_avoid()` breaks it.

    After each random step, a matching combination has its first field's value stepped by one.
    """
    args = ", ".join(f"input int bw_f{j}, input logic [{W}-1:0] bw_v{j}" for j in range(MAX_AVOID_PAIRS))
    stores = " ".join(f"bw_av_f[bw_av_n][{j}] = bw_f{j}; bw_av_v[bw_av_n][{j}] = bw_v{j};"
                      for j in range(MAX_AVOID_PAIRS))
    return [
        f"int bw_av_n = 0; int bw_av_k [{MAX_AVOID}]; int bw_av_f [{MAX_AVOID}][{MAX_AVOID_PAIRS}];",
        f"logic [{W}-1:0] bw_av_v [{MAX_AVOID}][{MAX_AVOID_PAIRS}];",
        f"task automatic bw_avoid(input int bw_k, {args});",
        f"  if (bw_av_n < {MAX_AVOID}) begin bw_av_k[bw_av_n] = bw_k; {stores} bw_av_n++; end",
        "endtask",
        "task automatic bw_apply_avoid();",
        "  for (int bw_a = 0; bw_a < bw_av_n; bw_a++) begin",
        "    bit bw_hit = 1'b1;",
        "    for (int bw_j = 0; bw_j < bw_av_k[bw_a]; bw_j++)",
        "      if (bw_get(bw_av_f[bw_a][bw_j]) != bw_av_v[bw_a][bw_j]) bw_hit = 1'b0;",
        "    if (bw_hit) bw_put(bw_av_f[bw_a][0], bw_av_v[bw_a][0] + 1);",
        "  end",
        "endtask",
    ]


def wait_task() -> list[str]:
    """`bw_wait(i, value, timeout)`: step until output i equals value (harness form of `wait`)."""
    return [
        f"task automatic bw_wait(input int bw_i, input logic [{W}-1:0] bw_value, input int bw_timeout);",
        "  for (int bw_t = 0; bw_t < bw_timeout && bw_out(bw_i) != bw_value; bw_t++) bw_step(1);",
        "endtask",
    ]
