"""SystemVerilog tasks and background processes for the recognised interfaces.

Buses the design serves get `<bus>_write(addr, data, strb)` / `<bus>_read(addr)` that drive
a transaction and wait for its handshake (closed loop, with a timeout); streams get
`<stream>_send(beats, seed, gap, lane)`; sinks and loopbacks run as `always` processes
switched on by `<sink>_sink(...)` and cleared by `bw_reset` (the responders answering the
design's own requests are in `sv_responders.py`). Handshakes are sampled right after the clock edge (before the design's
non-blocking updates land), inputs change at the negedge, as everywhere in the testbench.
"""

from __future__ import annotations

from agent.program import sv_ahb
from agent.program.interfaces import FIELD_ROLE, Iface, stream_payload_roles
from agent.program.sv_common import (
    assigns,
    clock_of,
    hexlit,
    palette_of,
    port_bits,
)
from agent.program.target import TIMEOUT, Target

# ---------------------------------------------------------------------------- buses the design serves


SWEEP_REGISTERS = 8
"""Registers a sweep visits: the first of a bus's discovered addresses (what scenarios configure)."""

MIN_SWEEP = 3
"""Fewest registers worth a loop (two calls read as well as a loop line and its list)."""


def sweep_registers(bus: Iface) -> tuple[int, ...]:
    """The register addresses a loop over the bus visits, in the order scenarios use them."""
    return bus.addresses[:SWEEP_REGISTERS]


def sweep_name(bus: Iface) -> str:
    """The SV constant listing `sweep_registers(bus)`."""
    return regs_name(bus.name)


def regs_name(bus: str) -> str:
    """The SV constant listing the sweep registers of the bus called `bus`."""
    return f"BW_{bus.upper()}_REGS"


def bus_tasks(t: Target, bus: Iface, *, listed: bool = True) -> list[str]:
    """`<bus>_write`, `<bus>_read` and `<bus>_burst` for one Wishbone, AXI4-Lite, APB, AHB-Lite or Avalon-MM slave.

    `listed`: also the list of its registers (`sweep_registers`) that loops of the program walk.
    """
    aw = max(1, bus.addr_bits)
    dw = max(1, bus.data_bits)
    sw = max(1, dw // 8)
    head = (f"input logic [{aw - 1}:0] bw_a, input logic [{dw - 1}:0] bw_d, input logic [{sw - 1}:0] bw_s")
    name = bus.name
    # On byte lanes the lane comes from the address unless a call names one.
    lane_default = " = '1" if bus.byte_lanes else ""
    lines = [f"task automatic {name}_write({head}{lane_default}); {name}_xfer(1'b1, bw_a, bw_d, bw_s); endtask",
             f"task automatic {name}_read(input logic [{aw - 1}:0] bw_a, input logic [{sw - 1}:0] bw_s = '1); "
             f"{name}_xfer(1'b0, bw_a, '0, bw_s); endtask",
             f"task automatic {name}_burst(input logic [{aw - 1}:0] bw_a, input int bw_n, input int unsigned bw_seed, "
             "input bit bw_w, input int bw_nbits, input int bw_stride = 0, input int bw_gap = 0);",
             "  bw_state = bw_seed;",
             *([f"  if (bw_stride != 0) begin {name}_pipe(bw_w, bw_a, bw_n, bw_nbits, bw_stride, bw_gap); return; end"]
               if _pipelined(bus) else []),
             "  for (int bw_j = 0; bw_j < bw_n; bw_j++) begin",
             "    if (bw_j > 0 && bw_gap > 0) bw_step(bw_gap);",
             f"    {name}_xfer(bw_w, bw_a + {aw}'(bw_j * bw_stride), bw_w ? {dw}'(bw_bits(bw_nbits)) : '0, '1);",
             "  end",
             "endtask"]
    body = {"wishbone": _wishbone, "axil": _axil, "apb": _apb, "ahb": sv_ahb.bus_body, "avalon": _avalon}[bus.kind](t, bus)
    if _pipelined(bus):
        lines = [*_wishbone_pipe(t, bus), *lines]
    regs = sweep_registers(bus)
    if listed and len(regs) >= MIN_SWEEP:
        values = ", ".join(hexlit(aw, a) for a in regs)
        lines.append(f"localparam logic [{aw - 1}:0] {sweep_name(bus)} [{len(regs)}] = '{{{values}}};")
    got = [f"logic [{dw - 1}:0] bw_{name}_got;  // the last read's data"] if bus.port("rdata") else []
    return [*got, f"task automatic {name}_xfer(input bit bw_w, {head});", *body, "endtask", *lines]


def got_read(bus: Iface) -> str:
    """The statement keeping a read's data in `bw_<bus>_got` (what checked reads compare; '' without read data)."""
    return f" bw_{bus.name}_got = {bus.port('rdata')};" if bus.port("rdata") else ""


def _pipelined(bus: Iface) -> bool:
    """A pipelined Wishbone slave (it has a stall output): requests may follow each other in one cycle."""
    return bus.kind == "wishbone" and bool(bus.port("stall"))


def _wishbone_pipe(t: Target, b: Iface) -> list[str]:
    """`<bus>_pipe`: `bw_n` requests at addresses `bw_step` apart in one cycle (cyc held).

    Without a gap a request is issued on every clock the slave does not stall, as a pipelined
    master's burst; with `bw_gap`, the strobe stays low for that many clocks once every request
    so far is acknowledged, as a slow master's (a controller that holds its port between words
    then takes the next one from its holding state). The cycle ends when every request is
    acknowledged (or on the timeout). This is what "the next address while the previous request
    is still open" paths of a slave need (a flash controller continuing a read without a new
    command).
    """
    clk, r = clock_of(t), b.port
    aw, dw = max(1, b.addr_bits), max(1, b.data_bits)
    data = f"bw_w ? {dw}'(bw_bits(bw_nbits)) : '0"
    return [
        f"task automatic {b.name}_pipe(input bit bw_w, input logic [{aw - 1}:0] bw_a, input int bw_n, "
        "input int bw_nbits, input int bw_step, input int bw_gap);",
        "  int bw_sent, bw_acks, bw_idle; bit bw_acc;",
        "  bw_sent = 0; bw_acks = 0; bw_idle = 0;",
        "  " + assigns([(r("cyc"), "1'b1"), (r("stb"), "1'b1"), (r("we"), "bw_w"), (r("addr"), "bw_a"),
                      (r("wdata"), data), (r("sel"), "'1")]),
        f"  for (int bw_t = 0; bw_t < ({TIMEOUT} + bw_gap) * bw_n && bw_acks < bw_n; bw_t++) begin",
        f"    @(posedge {clk}); bw_acc = {r('stb')} && !{r('stall')}; if (bw_acc) bw_sent++; if ({r('ack')}) bw_acks++;",
        f"    @(negedge {clk});",
        f"    if (bw_acc && bw_sent == bw_n) {r('stb')} = 1'b0;",
        f"    else if (bw_acc) begin {r('addr')} = bw_a + {aw}'(bw_sent * bw_step);"
        + (f" {r('wdata')} = {data};" if r("wdata") else "")
        + f" if (bw_gap > 0) begin {r('stb')} = 1'b0; bw_idle = bw_gap; end end",
        f"    else if (bw_idle > 0 && bw_acks == bw_sent) begin bw_idle--; if (bw_idle == 0) {r('stb')} = 1'b1; end",
        "  end",
        "  " + assigns([(r("cyc"), "1'b0"), (r("stb"), "1'b0"), (r("we"), "1'b0")]),
        "endtask",
    ]


def _wishbone(t: Target, b: Iface) -> list[str]:
    clk, r = clock_of(t), b.port
    pipelined = bool(r("stall"))
    sel = f"{port_bits(t, r('sel'))}'(bw_s)" if r("sel") else ""
    data, lanes = "bw_d", []
    if b.byte_lanes and sel:
        low = max(1, (b.byte_lanes - 1).bit_length())
        sel = f"(bw_s == '1) ? {port_bits(t, r('sel'))}'(1) << bw_a[{low - 1}:0] : {sel}"
        data = f"{{{b.byte_lanes}{{bw_d[7:0]}}}}"
        lanes = ["  // byte registers on lanes: sel picks the lane of the address's low bits, the byte rides every lane"]
    start = assigns([(r("cyc"), "1'b1"), (r("stb"), "1'b1"), (r("we"), "bw_w"), (r("addr"), "bw_a"), (r("wdata"), data),
                   (r("sel"), sel)])
    accept = f"if (!{r('stall')}) bw_acc = 1'b1; " if pipelined else ""
    drop = f" if (bw_acc) {r('stb')} = 1'b0;" if pipelined else ""
    return [
        *lanes,
        "  bit bw_got, bw_acc;",
        f"  {start}",
        "  bw_got = 1'b0; bw_acc = 1'b0;",
        f"  for (int bw_t = 0; bw_t < {TIMEOUT} && !bw_got; bw_t++) begin",
        f"    @(posedge {clk}); {accept}if ({r('ack')}) begin bw_got = 1'b1;{got_read(b)} end",
        f"    @(negedge {clk});{drop}",
        "  end",
        "  " + assigns([(r("cyc"), "1'b0"), (r("stb"), "1'b0"), (r("we"), "1'b0")]),
        # A classic slave may need stb low between cycles: uart16550 acks a back-to-back
        # write but writes nothing (its write strobe re-arms only on an idle cycle).
        *([] if pipelined else [f"  @(negedge {clk});"]),
    ]


def _axil(t: Target, b: Iface) -> list[str]:
    clk, r = clock_of(t), b.port
    size = max(0, (b.data_bits // 8).bit_length() - 1)
    extras = [(r("awprot"), "'0"), (r("awlen"), "'0"), (r("awsize"), f"{size}"), (r("awburst"), "2'b01"),
              (r("awid"), "'0"), (r("wlast"), "1'b1"), (r("arprot"), "'0"), (r("arlen"), "'0"),
              (r("arsize"), f"{size}"), (r("arburst"), "2'b01"), (r("arid"), "'0")]
    strb = f"{port_bits(t, r('wstrb'))}'(bw_s)" if r("wstrb") else ""
    one = "1'b1"
    write = assigns([(r("awvalid"), one), (r("awaddr"), "bw_a"), (r("wvalid"), one), (r("wdata"), "bw_d"),
                   (r("wstrb"), strb), (r("bready"), one)])
    read = assigns([(r("arvalid"), one), (r("araddr"), "bw_a"), (r("rready"), one)])
    return [
        "  bit bw_aw, bw_wd, bw_done;",
        "  bw_aw = !bw_w; bw_wd = !bw_w; bw_done = 1'b0;",
        "  " + assigns(extras),
        f"  if (bw_w) begin {write} end",
        f"  else begin {read} end",
        f"  for (int bw_t = 0; bw_t < {TIMEOUT} && !bw_done; bw_t++) begin",
        f"    @(posedge {clk});",
        f"    if (bw_w) begin if ({r('awvalid')} && {r('awready')}) bw_aw = 1'b1;"
        f" if ({r('wvalid')} && {r('wready')}) bw_wd = 1'b1; if ({r('bvalid')} && {r('bready')}) bw_done = 1'b1; end",
        f"    else begin if ({r('arvalid')} && {r('arready')}) bw_aw = 1'b1;"
        f" if ({r('rvalid')} && {r('rready')}) begin bw_done = 1'b1;{got_read(b)} end end",
        f"    @(negedge {clk});",
        f"    if (bw_w && bw_aw) {r('awvalid')} = 1'b0; if (bw_w && bw_wd) {r('wvalid')} = 1'b0;"
        f" if (!bw_w && bw_aw) {r('arvalid')} = 1'b0;",
        "  end",
        "  " + assigns([(r("awvalid"), "1'b0"), (r("wvalid"), "1'b0"), (r("bready"), "1'b0"), (r("arvalid"), "1'b0"),
                      (r("rready"), "1'b0")]),
    ]


def _apb(t: Target, b: Iface) -> list[str]:
    clk, r = clock_of(t), b.port
    ready = r("ready") or "1'b1"
    return [
        "  bit bw_done;",
        "  " + assigns([(r("sel"), "1'b1"), (r("enable"), "1'b0"), (r("write"), "bw_w"), (r("addr"), "bw_a"),
                      (r("wdata"), "bw_d"), (r("strb"), f"{port_bits(t, r('strb'))}'(bw_s)" if r("strb") else "")]),
        f"  bw_step(1); {r('enable')} = 1'b1; bw_done = 1'b0;",
        f"  for (int bw_t = 0; bw_t < {TIMEOUT} && !bw_done; bw_t++) begin @(posedge {clk}); bw_done = {ready}; "
        + (f"if (bw_done && !bw_w){got_read(b)} " if got_read(b) else "") +
        f"@(negedge {clk}); end",
        "  " + assigns([(r("sel"), "1'b0"), (r("enable"), "1'b0"), (r("write"), "1'b0")]),
    ]


def _avalon(t: Target, b: Iface) -> list[str]:
    """An Avalon-MM transfer: `read` or `write` with the address until `waitrequest` lets it through.

    Read data: with `readdatavalid`, the first beat it marks; else with `waitrequest` the data at
    the edge that ends the wait (read latency 0); else one clock after the read (latency 1,
    what a registered agent without wait states gives).
    """
    clk, r = clock_of(t), b.port
    let_through = f"!{r('wait')}" if r("wait") else "1'b1"
    got = got_read(b)
    if got and r("rvalid"):
        read = (f"  if (!bw_w) begin bw_done = 1'b0; for (int bw_t = 0; bw_t < {TIMEOUT} && !bw_done; bw_t++) begin "
                f"@(posedge {clk}); bw_done = {r('rvalid')}; if (bw_done){got} @(negedge {clk}); end end")
        taken = ""
    elif got and not r("wait"):
        read, taken = f"  if (!bw_w) begin @(posedge {clk});{got} @(negedge {clk}); end", ""
    else:
        read, taken = "", (f" if (bw_done && !bw_w){got}" if got else "")
    return [
        "  bit bw_done;",
        "  " + assigns([(r("cs"), "1'b1"), (r("addr"), "bw_a"), (r("write"), "bw_w"), (r("read"), "!bw_w"),
                      (r("wdata"), "bw_d"), (r("strb"), f"{port_bits(t, r('strb'))}'(bw_s)" if r("strb") else ""),
                      (r("burst"), f"{port_bits(t, r('burst'))}'(1)" if r("burst") else "")]),
        "  bw_done = 1'b0;",
        f"  for (int bw_t = 0; bw_t < {TIMEOUT} && !bw_done; bw_t++) begin @(posedge {clk}); bw_done = {let_through};"
        f"{taken} @(negedge {clk}); end",
        "  " + assigns([(r("cs"), "1'b0"), (r("write"), "1'b0"), (r("read"), "1'b0")]),
        *([read] if read else []),
    ]


# ---------------------------------------------------------------------------- streams


def _lane(port: str, lanes: int) -> str:
    return f"{port}[bw_lane]" if lanes > 1 else port


def stream_task(t: Target, s: Iface) -> list[str]:
    """`<stream>_send(beats, seed, gap, lane)`: one packet of random beats, last on the final one."""
    clk, r = clock_of(t), s.port
    sets = []
    for role in stream_payload_roles(s):
        port = r(role)
        bits = port_bits(t, port)
        if role in ("keep", "strb"):
            sets.append(f"{port} = '1;")
            continue
        idx = t.layout.index(port)
        pal = palette_of(t, t.fields[idx]) if idx is not None else ()
        draw = (f"{port} = BW_PAL_{idx}[bw_rand() % {len(pal)}];" if pal and role != "data"
                else f"{port} = {bits}'(bw_bits({bits}));")
        # A command field keeps its value on half the beats: repeated addresses and modes are
        # what "same target as before" branches test.
        sets.append(f"if (bw_b == 0 || bw_rand() % 2 == 0) {draw}" if role.startswith(FIELD_ROLE) else draw)
    last = f" {_lane(r('last'), s.lanes)} = (bw_b == bw_beats - 1);" if r("last") else ""
    clear_last = f" {_lane(r('last'), s.lanes)} = 1'b0;" if r("last") else ""
    valid, ready = _lane(r("valid"), s.lanes), _lane(r("ready"), s.lanes)
    return [
        f"task automatic {s.name}_send(input int bw_beats, input int unsigned bw_seed, input int bw_gap, input int bw_lane);",
        "  bit bw_acc;",
        "  bw_state = bw_seed;",
        "  for (int bw_b = 0; bw_b < bw_beats; bw_b++) begin",
        "    if (bw_gap > 0) while (bw_rand() % 100 < bw_gap) begin " + f"{valid} = 1'b0; bw_step(1); end",
        f"    {valid} = 1'b1;{last} " + " ".join(sets),
        "    bw_acc = 1'b0;",
        f"    for (int bw_t = 0; bw_t < {TIMEOUT} && !bw_acc; bw_t++) begin @(posedge {clk}); bw_acc = {ready}; "
        f"@(negedge {clk}); end",
        "  end",
        f"  {valid} = 1'b0;{clear_last}",
        "endtask",
    ]


def sink_lines(t: Target, s: Iface) -> list[str]:
    """`<sink>_sink(ready, seed)` and the process that throttles the design's ready input."""
    n, ready = s.name, s.port("ready")
    return [
        f"int unsigned bw_{n}_rng = 32'd1; int bw_{n}_p = 100;",
        f"task automatic {n}_sink(input int bw_p, input int unsigned bw_seed); bw_{n}_p = bw_p; bw_{n}_rng = bw_seed; "
        f"bw_{n}_on = 1'b1; endtask",
        f"always @(negedge {clock_of(t)}) if (bw_{n}_on) begin",
        f"  bw_{n}_rng ^= bw_{n}_rng << 13; bw_{n}_rng ^= bw_{n}_rng >> 17; bw_{n}_rng ^= bw_{n}_rng << 5;",
        f"  bw_{ready} = (bw_{n}_rng % 100 < bw_{n}_p) ? '1 : '0;",
        "end",
    ]


# ---------------------------------------------------------------------------- serial, write ports


def serial_task(t: Target, s: Iface) -> list[str]:
    """`<pin>_send(period, data, parity, stop)`: one UART frame (data > 0xff: a break; stop 0: a framing error)."""
    pin = s.port("pin")
    return [
        f"task automatic {s.name}_send(input int bw_period, input logic [8:0] bw_data, input int bw_parity, "
        "input int bw_stop);",
        f"  if (bw_data[8]) begin {pin} = 1'b0; bw_step(bw_period * 12); {pin} = 1'b1; bw_step(bw_period); return; end",
        f"  {pin} = 1'b0; bw_step(bw_period);",
        f"  for (int bw_b = 0; bw_b < 8; bw_b++) begin {pin} = bw_data[bw_b]; bw_step(bw_period); end",
        f"  if (bw_parity != 0) begin {pin} = (bw_parity == 1) ? ^bw_data[7:0] : ~^bw_data[7:0]; bw_step(bw_period); end",
        f"  if (bw_stop == 0) begin {pin} = 1'b0; bw_step(bw_period); end  // a missing stop bit",
        f"  {pin} = 1'b1; bw_step(bw_period * (bw_stop == 0 ? 1 : bw_stop));",
        "endtask",
    ]


PATTERN_CODES = {"ramp": 0, "down": 1, "ones": 2, "checker": 3, "walking": 4, "recip": 5, "palette": 6, "random": 7}
"""`fill` pattern -> the number the SV task takes."""


def pattern_function() -> list[str]:
    """`bw_pattern(p, k, count, bits)`: entry k of `count` under a `fill` pattern, as a `bits`-bit value.

    Ramps spread over the whole range, `recip` mimics a 1/k table, `checker` alternates
    0101/1010; a lone register gets its top bit (an enable set, a threshold mid-range).
    """
    wide = "(BW_W + 17)"  # parenthesised: it is pasted into casts such as `{wide}'(k)`
    return [
        "function automatic logic [BW_W-1:0] bw_pattern(input int bw_p, input int bw_k, input int bw_count,",
        "                                               input int bw_nbits);",
        f"  logic [{wide}-1:0] bw_m = {{{wide}{{1'b1}}}} >> ({wide} - bw_nbits);",
        "  int bw_span = (bw_count > 1) ? bw_count - 1 : 1;",
        "  if (bw_count == 1 && (bw_p == 0 || bw_p == 1 || bw_p == 5)) return BW_W'(1) << (bw_nbits - 1);",
        "  case (bw_p)",
        f"    0: return BW_W'({wide}'(bw_k) * bw_m / bw_span);",
        f"    1: return BW_W'({wide}'(bw_span - bw_k) * bw_m / bw_span);",
        "    2: return BW_W'(bw_m);",
        "    3: return BW_W'(((bw_k % 2) ? {BW_W{2'b01}} : {BW_W{2'b10}}) & bw_m);",
        "    4: return BW_W'(1) << (bw_k % bw_nbits);",
        "    5: return BW_W'((bw_m + 1) / (bw_k + 1));",
        "    default: return bw_bits(bw_nbits);",
        "  endcase",
        "endfunction",
    ]


def port_tasks(t: Target, name: str) -> list[str]:
    """`<port>_write(a, d)` and `<port>_fill(pattern, seed)` for one discovered write port."""
    wp = t.interfaces.write_port(name)
    aw = max(1, port_bits(t, wp.address)) if wp.address else 1
    dw = max(1, min(wp.width, max((b for _, _, b in wp.data), default=1)))
    sets = [f"{f} = {port_bits(t, f)}'({v});" for f, v in wp.enable]
    if wp.address:
        sets.append(f"{wp.address} = bw_a;")
    sets += [f"{f}[{lsb} +: {bits}] = {bits}'(bw_d);" if port_bits(t, f) > bits else f"{f} = {bits}'(bw_d);"
             for f, lsb, bits in wp.data]
    idle = [f"{f} = {port_bits(t, f)}'({v});" for f, v in wp.idle]
    addrs = wp.addresses or (0,)
    addr_list = ", ".join(f"{aw}'h{a & ((1 << aw) - 1):x}" for a in addrs)
    return [
        f"task automatic {name}_write(input logic [{aw - 1}:0] bw_a, input logic [{dw - 1}:0] bw_d);",
        f"  {' '.join(sets)} bw_step({wp.hold}); {' '.join(idle)}",
        "endtask",
        f"localparam logic [{aw - 1}:0] BW_{name.upper()}_ADDRS [{len(addrs)}] = '{{{addr_list}}};",
        f"task automatic {name}_fill(input int bw_pat, input int unsigned bw_seed);",
        f"  bw_state = bw_seed; for (int bw_k = 0; bw_k < {len(addrs)}; bw_k++) "
        f"{name}_write(BW_{name.upper()}_ADDRS[bw_k], {dw}'(bw_pattern(bw_pat, bw_k, {len(addrs)}, {dw})));",
        "endtask",
    ]
