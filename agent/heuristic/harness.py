"""Pure SystemVerilog renderers: the data-driven harness, its stim file, the final testbench.

The harness is built once per design and reads `stim.txt` at run time: one line per step,
`<cycles> <field0> <field1> ...` with every field in hex (flattened for unpacked arrays).
Values are applied at the negedge of the first clock (a combinational design gets a delay
instead), so the DUT samples them at the next active edge. The replay testbench holds the
same steps in an initialised array of a packed struct, so it needs no file at all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.heuristic.stimulus import (
    COMB_STEP_NS,
    Clock,
    Field,
    Layout,
    Segment,
    Signal,
    Step,
)
from sim.analysis.interface import DesignInterface
from sim.suite import Design

STIM_FILE = "stim.txt"
"""Name of the stimulus file the harness reads from its run directory."""

HARNESS_TOP = "bw_harness"
"""Module name of the data-driven harness."""

HALF_PERIODS = (5, 7, 11, 13, 17, 19, 23)
"""Half periods (ns) given to the clocks, in order: distinct so multi-clock designs see drift."""

COMB_DELAY = COMB_STEP_NS
"""Delay (ns) per step of a combinational design."""


def make_layout(design: Design, iface: DesignInterface) -> Layout:
    """The harness layout of a design: every non-clock input is a field, in port order."""
    clocks = set(iface.clocks) | {p.name for p in iface.ports if p.is_clock}
    resets = dict(iface.resets)
    fields: list[Field] = []
    ports: list[Signal] = []
    for p in iface.ports:
        width = max(1, p.width)
        ports.append(Signal(p.name, p.direction, width, tuple(p.unpacked), p.signed))
        if p.direction != "input" or p.name in clocks:
            continue
        is_reset = p.name in resets or p.is_reset
        low = resets.get(p.name, bool(p.reset_active_low))
        fields.append(Field(p.name, width, tuple(p.unpacked), p.signed, is_reset, low if is_reset else False))
    ordered = [c for c in iface.clocks if c in clocks] + sorted(clocks - set(iface.clocks))
    clock_list = tuple(Clock(name, HALF_PERIODS[i % len(HALF_PERIODS)]) for i, name in enumerate(ordered))
    return Layout(design.top, design.dut_instance, tuple(fields), clock_list, tuple(ports))


def hex_digits(bits: int) -> int:
    """Hex digits needed for `bits` bits."""
    return max(1, (bits + 3) // 4)


def _range(width: int) -> str:
    """`[w-1:0] ` or '' for one bit."""
    return f"[{width - 1}:0] " if width > 1 else ""


def _dims(dims: Sequence[int]) -> str:
    """` [a][b]` unpacked dimensions (C-style sizes)."""
    return "".join(f" [{d}]" for d in dims)


def _declare(s: Signal) -> str:
    """Declaration of the testbench variable connected to a port."""
    sign = "signed " if s.signed else ""
    return f"  logic {sign}{_range(s.width)}{s.name}{_dims(s.dims)};"


def _element_index(dims: Sequence[int], flat: int) -> str:
    """`[i][j]` of the flat (row-major) element number `flat`."""
    idx = []
    for d in reversed(dims):
        idx.append(flat % d)
        flat //= d
    return "".join(f"[{i}]" for i in reversed(idx))


def _unpack_lines(f: Field, src: str | None, indent: str) -> list[str]:
    """Statements copying a flattened value `src` into the unpacked field `f` (zeros for None)."""
    if len(f.dims) == 1:
        value = "'0" if src is None else f"{src}[bw_i*{f.width} +: {f.width}]"
        return [f"{indent}for (int bw_i = 0; bw_i < {f.dims[0]}; bw_i++) {f.name}[bw_i] = {value};"]
    return [f"{indent}{f.name}{_element_index(f.dims, k)} = "
            + ("'0" if src is None else f"{src}[{k * f.width} +: {f.width}]") + ";"
            for k in range(f.count)]


def _clock_lines(layout: Layout) -> list[str]:
    """Clock declarations and generators."""
    lines = []
    for c in layout.clocks:
        lines.append(f"  logic {c.name} = 1'b0;")
        lines.append(f"  always #{c.half_period} {c.name} = ~{c.name};")
    return lines


def _instance_lines(layout: Layout) -> list[str]:
    """The DUT instance with named port connections (parameters at their defaults)."""
    conns = [f"    .{s.name}({s.name})" for s in layout.ports]
    return [f"  {layout.top} {layout.instance} (", ",\n".join(conns), "  );"]


def _wait(layout: Layout, count: str) -> str:
    """Statement waiting `count` steps: clock negedges, or a delay without clock."""
    if layout.combinational:
        return f"repeat ({count}) #{COMB_DELAY};"
    return f"repeat ({count}) @(negedge {layout.clocks[0].name});"


def render_harness(layout: Layout) -> str:
    """The data-driven harness: reads `stim.txt` step by step, $finish at end of file."""
    declared = {c.name for c in layout.clocks}
    lines = [
        "// Benchwright stimulus harness (generated): reads stim.txt, one step per line:",
        "//   <cycles> " + " ".join(f"<{f.name}:{f.bits}b hex>" for f in layout.fields),
        "`timescale 1ns/1ps",
        f"module {HARNESS_TOP};",
        *_clock_lines(layout),
        *[_declare(s) for s in layout.ports if s.name not in declared],
    ]
    flats = {f.name: f"bw_flat_{f.name}" for f in layout.fields if f.dims}
    lines += [f"  logic [{f.bits - 1}:0] {flats[f.name]};" for f in layout.fields if f.dims]
    lines += ["  integer bw_fd, bw_r, bw_cycles;", *_instance_lines(layout), "  initial begin"]
    for f in layout.fields:
        if f.dims:
            lines += _unpack_lines(f, None, "    ")
        else:
            lines.append(f"    {f.name} = {f.bits}'d{f.idle};")
    fmt = " ".join(["%d", *["%h"] * len(layout.fields)])
    args = ", ".join(["bw_cycles", *[flats.get(f.name, f.name) for f in layout.fields]])
    lines += [
        f'    bw_fd = $fopen("{STIM_FILE}", "r");',
        f'    if (bw_fd == 0) $fatal(1, "cannot open {STIM_FILE}");',
        "    forever begin",
        f'      bw_r = $fscanf(bw_fd, "{fmt}\\n", {args});',
        f"      if (bw_r != {len(layout.fields) + 1}) break;",
    ]
    for f in layout.fields:
        if f.dims:
            lines += _unpack_lines(f, flats[f.name], "      ")
    lines += [
        f"      {_wait(layout, 'bw_cycles')}",
        "    end",
        "    $fclose(bw_fd);",
        "    $finish;",
        "  end",
        "endmodule",
        "",
    ]
    return "\n".join(lines)


def render_stim(layout: Layout, steps: Sequence[Step]) -> str:
    """The `stim.txt` text for `steps` (fields as fixed-width hex)."""
    widths = [hex_digits(f.bits) for f in layout.fields]
    out = []
    for step in steps:
        fields = " ".join(f"{v:0{w}x}" for v, w in zip(step.values, widths, strict=True))
        out.append(f"{step.cycles} {fields}" if fields else str(step.cycles))
    return "\n".join(out) + "\n"


def _literal(bits: int, value: int) -> str:
    """A sized hex literal."""
    return f"{bits}'h{value:0{hex_digits(bits)}x}"


def render_replay(layout: Layout, segments: Sequence[Segment], *, title: str = "",
                  notes: Sequence[str] = ()) -> str:
    """A self-contained stimulus testbench that replays `segments` exactly as the harness did.

    The steps live in an initialised array of a packed struct (one named member per
    input), which keeps the testbench short to compile even with thousands of steps.
    """
    declared = {c.name for c in layout.clocks}
    nsteps = sum(len(s.steps) for s in segments)
    tb = f"tb_{layout.top}"
    lines = [
        f"// Testbench for {layout.top}: {title or 'stimulus found by the Benchwright heuristic engine'}",
        *[f"// {n}" for n in notes],
        "// Every row of STIM is applied for `cycles` cycles at the negedge of the clock.",
        "`timescale 1ns/1ps",
        f"module {tb};",
        *_clock_lines(layout),
        *[_declare(s) for s in layout.ports if s.name not in declared],
        *_instance_lines(layout),
        "",
        "  typedef struct packed {",
        "    logic [31:0] cycles;",
        *[f"    logic {'signed ' if f.signed and not f.dims else ''}[{f.bits - 1}:0] {f.name};"
          for f in layout.fields],
        "  } step_t;",
        "",
        f"  localparam int NSTEPS = {max(1, nsteps)};",
        "  step_t STIM [NSTEPS] = '{",
    ]
    rows: list[str] = []
    first = 0
    for seg in segments:
        rows.append(f"    // steps {first}..{first + len(seg.steps) - 1}: {seg.label}")
        first += len(seg.steps)
        for step in seg.steps:
            vals = ", ".join([f"32'd{step.cycles}",
                              *[_literal(f.bits, v) for f, v in zip(layout.fields, step.values, strict=True)]])
            rows.append(f"    {{{vals}}},")
    if nsteps == 0:
        rows.append("    {32'd1" + "".join(f", {_literal(f.bits, f.idle)}" for f in layout.fields) + "},")
    # The last row carries no trailing comma.
    last = max(i for i, r in enumerate(rows) if not r.lstrip().startswith("//"))
    rows[last] = rows[last].rstrip(",")
    lines += rows
    lines += ["  };", "", "  initial begin", "    for (int k = 0; k < NSTEPS; k++) begin"]
    for f in layout.fields:
        if f.dims:
            lines += _unpack_lines(f, f"STIM[k].{f.name}", "      ")
        else:
            lines.append(f"      {f.name} = STIM[k].{f.name};")
    lines += [f"      {_wait(layout, 'STIM[k].cycles')}", "    end", "    $finish;", "  end", "endmodule", ""]
    return "\n".join(lines)


def render_cocotb(layout: Layout, segments: Sequence[Segment]) -> str:
    """The equivalent cocotb test (cocotb 2 API): the same steps, applied at the falling edge."""
    names = [f.name for f in layout.fields]
    rows = [f"    ({s.cycles}, ({', '.join(hex(v) for v in s.values)}{',' if len(s.values) == 1 else ''}))"
            for seg in segments for s in seg.steps]
    lines = [
        f'"""cocotb test for {layout.top}: replays the Benchwright heuristic stimulus."""',
        "",
        "import cocotb",
        "from cocotb.clock import Clock",
        "from cocotb.triggers import FallingEdge, Timer",
        "",
        f"FIELDS = {names!r}",
        "STEPS = [",
        *[r + "," for r in rows],
        "]",
        "",
        "",
        "def _handles(dut):",
        "    # Direct attribute access only: generated tests may not use getattr().",
        "    return {" + ", ".join(f"{n!r}: dut.{n}" for n in names) + "}",
        "",
        "",
        "def _assign(handle, value, width, count):",
        "    if count == 1:",
        "        handle.value = value",
        "    else:",
        "        for i in range(count):",
        "            handle[i].value = (value >> (i * width)) & ((1 << width) - 1)",
        "",
        "",
        "@cocotb.test()",
        f"async def test_{layout.top}(dut):",
        "    \"\"\"Apply every step for its cycle count.\"\"\"",
    ]
    for c in layout.clocks:
        lines.append(f'    cocotb.start_soon(Clock(dut.{c.name}, {2 * c.half_period}, unit="ns").start())')
    meta = [(f.width, f.count) for f in layout.fields]
    lines += [
        f"    meta = {meta!r}",
        "    handles = _handles(dut)",
        "    for cycles, values in STEPS:",
        "        for name, value, (width, count) in zip(FIELDS, values, meta):",
        "            _assign(handles[name], value, width, count)",
        "        for _ in range(cycles):",
    ]
    if layout.combinational:
        lines.append(f'            await Timer({COMB_DELAY}, unit="ns")')
    else:
        lines.append(f"            await FallingEdge(dut.{layout.clocks[0].name})")
    return "\n".join(lines) + "\n"


_SEGMENT_RE = re.compile(r"^\s*// steps \d+\.\.\d+: (?P<label>.*)$")
_ROW_RE = re.compile(r"^\s*\{(?P<body>32'd\d+(?:\s*,\s*\d+'h[0-9a-fA-F]+)*)\},?\s*$")
_LIT_RE = re.compile(r"(\d+)'h([0-9a-fA-F]+)")


def parse_replay(text: str, layout: Layout) -> tuple[Segment, ...] | None:
    """The segments of a testbench `render_replay` wrote for this layout; None otherwise.

    This lets a refinement step continue from the best testbench so far instead of
    starting over (the state carries only the testbench text). Any mismatch with the
    layout (a hand-edited file, another design, another policy's testbench) gives None.
    """
    if f"module tb_{layout.top};" not in text or "step_t STIM [NSTEPS]" not in text:
        return None
    segments: list[Segment] = []
    label, steps = "", list[Step]()
    widths = [f.bits for f in layout.fields]
    for line in text.splitlines():
        seg = _SEGMENT_RE.match(line)
        if seg:
            if steps:
                segments.append(Segment(label, tuple(steps)))
            label, steps = seg.group("label"), []
            continue
        row = _ROW_RE.match(line)
        if not row or not label:
            continue
        cycles_text, *rest = [p.strip() for p in row.group("body").split(",")]
        lits = [_LIT_RE.fullmatch(p) for p in rest]
        if len(lits) != len(widths) or any(m is None or int(m.group(1)) != w for m, w in zip(lits, widths, strict=True)):
            return None
        values = tuple(int(m.group(2), 16) for m in lits if m is not None)
        steps.append(Step(values, max(1, int(cycles_text.split("'d")[1]))))
    if steps:
        segments.append(Segment(label, tuple(steps)))
    return tuple(segments) or None
