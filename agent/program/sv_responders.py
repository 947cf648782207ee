"""SystemVerilog for the responders: the harness answering the design's own requests.

`<iface>_respond(fill, seed, latency)` fills a memory model and switches on an `always`
process that answers one kind of request port: a valid/ready or req/ack memory, a Wishbone
master's slave, a split-transaction port (accepted now, answered later with its tag), an AXI4
master's slave (bursts, IDs), an AHB-Lite manager's memory (`sv_ahb.py`), or a device on
serial lines (`sv_i2c.py`, `sv_spi.py`). A handshake that carries no address gets a generic
responder with random latency and no memory. Answers wait 0..latency random clocks; a rough
memory (`target.ROUGH_LATENCY`) answers some transfers with an error. Values are driven with
non-blocking assignments for the next edge; the cocotb twins are in `cocotb_responders.py`.
"""

from __future__ import annotations

from agent.program import sv_ahb, sv_hosts, sv_i2c, sv_spi
from agent.program.interfaces import Iface
from agent.program.sv_common import (
    clock_of,
    long_stall,
    mem_index,
    port_bits,
    responder_off,
    rough_error,
    slow_answer,
    write_bytes,
    xorshift,
)
from agent.program.target import MEM_WORDS, ROUGH_LATENCY, SPLIT_QUEUE, Target


def _fill_task(t: Target, r: Iface, dw: int) -> list[str]:
    """`<iface>_respond(fill, seed, latency)`: fill the memory model, then answer requests.

    `fill=decode` words are random with one of the decoder's templates (an instruction's
    opcode and function fields) laid over them; without templates, the decoded fields are
    set to decoded values (the opcode always, every other field four times in five).
    """
    n = r.name
    lines: list[str] = []
    decode: list[str] = [f"bw_w = {dw}'(bw_bits({dw}));"]
    if r.templates:
        tw = 32 if r.template_lanes > 1 else dw  # one instruction per 32-bit lane, or one template per word
        masks = ", ".join(f"{tw}'h{m:x}" for m, _ in r.templates)
        values = ", ".join(f"{tw}'h{v:x}" for _, v in r.templates)
        lines += [f"localparam logic [{tw - 1}:0] BW_{n.upper()}_TM [{len(r.templates)}] = '{{{masks}}};",
                  f"localparam logic [{tw - 1}:0] BW_{n.upper()}_TV [{len(r.templates)}] = '{{{values}}};"]
        draw = f"bw_j = bw_rand() % {len(r.templates)};"
        word = f"({tw}'(bw_bits({tw})) & ~BW_{n.upper()}_TM[bw_j]) | BW_{n.upper()}_TV[bw_j];"
        # fill=idioms: a RISC-V core's loads and stores mostly from sp, aligned (`_rv_tidy`)
        lane = "bw_w[32 * bw_l +: 32]" if r.template_lanes > 1 else "bw_w[31:0]"
        tidy = f" if (bw_fill == 4) {lane} = bw_{n}_tidy({lane}, bw_rand());" if r.idioms and tw == 32 else ""
        decode = ([draw, f"bw_w = {word}{tidy}"] if r.template_lanes == 1 else
                  ["bw_w = '0;", f"for (int bw_l = 0; bw_l < {r.template_lanes}; bw_l++) begin {draw} "
                                 f"{lane} = {word}{tidy} end"])
        if tidy:
            lines += _rv_tidy(n)
    for g, (lsb, width, field_values) in enumerate(() if r.templates else decode_order(r)):
        lits = ", ".join(f"{width}'h{v:x}" for v in field_values)
        lines.append(f"localparam logic [{width - 1}:0] BW_{n.upper()}_F{g} [{len(field_values)}] = '{{{lits}}};")
        pick = f"bw_w[{lsb} +: {width}] = BW_{n.upper()}_F{g}[bw_rand() % {len(field_values)}];"
        decode.append(pick if g == len(decode_order(r)) - 1 else f"if (bw_rand() % 5 != 0) {pick}")
    # A RISC-V core's decoded memory starts with the prologue (`isa.prologue`), then random
    # words; with fill=idioms (4), with the prologue and the idioms (`isa.idioms`).
    pro, idi = r.prologue[:MEM_WORDS], r.idioms[:MEM_WORDS]
    for tag, start in (("PRO", pro), ("IDI", idi)):
        if start:
            words = ", ".join(f"{dw}'h{w:x}" for w in start)
            lines.append(f"localparam logic [{dw - 1}:0] BW_{n.upper()}_{tag} [{len(start)}] = '{{{words}}};")
    return [
        *lines,
        f"task automatic {n}_respond(input int bw_fill, input int unsigned bw_seed, input int bw_lat);",
        f"  logic [{dw - 1}:0] bw_w; int bw_j;",
        "  bw_state = bw_seed;",
        f"  for (int bw_k = 0; bw_k < {MEM_WORDS}; bw_k++) begin",
        f"    case (bw_fill) 0, 4: begin {' '.join(decode)} end 1: bw_w = {dw}'(bw_bits({dw})); 2: bw_w = '0; "
        f"default: bw_w = {dw}'(bw_k * {max(1, dw // 8)}); endcase",
        f"    bw_{n}_mem[bw_k] = bw_w;",
        "  end",
        *([f"  if (bw_fill == {0 if idi else '0 || bw_fill == 4'}) for (int bw_k = 0; bw_k < {len(pro)}; bw_k++) "
            f"bw_{n}_mem[bw_k] = BW_{n.upper()}_PRO[bw_k];"] if pro else []),
        *([f"  if (bw_fill == 4) for (int bw_k = 0; bw_k < {len(idi)}; bw_k++) bw_{n}_mem[bw_k] = BW_{n.upper()}_IDI[bw_k];"]
          if idi else []),
        _arm(n),
        "endtask",
    ]


def _rv_tidy(n: str) -> list[str]:
    """`bw_<n>_tidy(word, draw)`: a RISC-V instruction of a fill=idioms memory, made to run on.

    Random loads and stores take a random base register, so most are misaligned and trap
    before they reach memory. Eleven in twelve are made to use sp (which the idioms set to an
    aligned address) with an offset aligned to their size, as compiled code does; no
    instruction writes sp. Random branches and jumps go anywhere, and a backward one the core
    keeps taking is a loop it never leaves (a run then covers nothing after its first few
    thousand clocks): they jump forward by 1 to 7 instructions, as a random-instruction
    generator's do. MRET and SRET (back to the last trap, behind) become NOPs, and a CSR access
    to mtvec goes to mscratch instead (mtvec keeps the idioms' handler: pointed at random words
    holding an ECALL, every trap would come back to it). The cocotb twin is `cocotb_lib.rv_tidy`.
    """
    return [
        f"function automatic logic [31:0] bw_{n}_tidy(input logic [31:0] bw_i, input int unsigned bw_r);",
        "  logic [31:0] bw_o; logic [2:0] bw_low;",
        "  bw_o = bw_i; bw_low = 3'((1 << bw_i[13:12]) - 1);",
        "  if ((bw_i[6:0] == 7'h03 || bw_i[6:0] == 7'h23) && bw_r % 12 != 0) begin",
        "    bw_o[19:15] = 5'd2;",
        "    if (bw_i[6:0] == 7'h03) bw_o[22:20] = bw_o[22:20] & ~bw_low; else bw_o[9:7] = bw_o[9:7] & ~bw_low;",
        "  end",
        "  if (bw_i[6:0] == 7'h63) begin bw_o[31:25] = '0; bw_o[8:7] = '0; if (bw_o[11:9] == 0) bw_o[9] = 1'b1; end",
        "  if (bw_i[6:0] == 7'h6f) begin bw_o[31:25] = '0; bw_o[21:12] = '0; if (bw_o[24:22] == 0) bw_o[22] = 1'b1; end",
        "  if (bw_i == 32'h30200073 || bw_i == 32'h10200073) bw_o = 32'h00000013;",
        "  if (bw_i[6:0] == 7'h73 && bw_i[14:12] != 0 && bw_i[31:20] == 12'h305) bw_o[31:20] = 12'h340;",
        "  if (bw_i[6:0] != 7'h23 && bw_i[6:0] != 7'h63 && bw_o[11:7] == 5'd2) bw_o[11:7] = 5'd3;",
        "  return bw_o;",
        "endfunction",
    ]


def decode_order(r: Iface) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
    """Decoded fields in the order a word is built.

    Wide ones first (narrow ones refine them), the field with the most values (the opcode)
    last so nothing overwrites it; fields inside the opcode's bits are dropped.
    """
    if not r.slices:
        return ()
    primary = max(r.slices, key=lambda s: (len(s[2]), -s[0]))
    lo, hi = primary[0], primary[0] + primary[1]
    rest = [s for s in r.slices if s is not primary and not (lo <= s[0] and s[0] + s[1] <= hi)]
    return (*sorted(rest, key=lambda s: (-s[1], s[0])), primary)


def _state(n: str, dw: int, memory: bool = True) -> list[str]:
    timing = f"int unsigned bw_{n}_rng = 32'd1; int bw_{n}_lat = 0; int bw_{n}_wait = 0;"
    return [f"logic [{dw - 1}:0] bw_{n}_mem [{MEM_WORDS}];", timing] if memory else [timing]


def _handshake_task(r: Iface) -> list[str]:
    """`<iface>_respond(fill, seed, latency)` of a handshake with no address.

    No memory to fill (the fill is unused): only the answer's timing and the random read data, if any.
    """
    n = r.name
    return [f"task automatic {n}_respond(input int bw_fill, input int unsigned bw_seed, input int bw_lat);",
            _arm(n), "endtask"]


def _arm(n: str) -> str:
    """The line of `<iface>_respond` that seeds the answers' timing and switches the responder on."""
    return f"  bw_{n}_rng = bw_seed; bw_{n}_lat = bw_lat; bw_{n}_wait = 0; bw_{n}_on = 1'b1;"


def responder_lines(t: Target, r: Iface) -> list[str]:
    """Memory model, `<iface>_respond`, and the process answering the design's requests."""
    kind = r.kind
    dw = max(8, r.data_bits or 32)
    if kind == "axi_master":
        return [*_state(r.name, dw), *_fill_task(t, r, dw), *_axi_process(t, r, dw)]
    if kind == "wb_master":
        return [*_state(r.name, dw), *_fill_task(t, r, dw), *_wb_process(t, r, dw)]
    if kind == "i2c":  # a device on the lines: its memory holds bytes
        return [*_state(r.name, 8), *_fill_task(t, r, 8), *sv_i2c.process(t, r)]
    if kind in ("spi_flash", "sd"):  # a device on the lines: a flash's or a card's bytes
        return [*_state(r.name, 8), *_fill_task(t, r, 8), *sv_spi.process(t, r)]
    if kind == "ahb_master":
        return [*_state(r.name, dw), *_fill_task(t, r, dw), *sv_ahb.responder_process(t, r, dw)]
    if kind == "apb_master":
        return [*_state(r.name, dw), *_fill_task(t, r, dw), *sv_hosts.apb_process(t, r, dw)]
    if kind == "avalon_host":
        return [*_state(r.name, dw), *_fill_task(t, r, dw), *sv_hosts.avalon_process(t, r, dw)]
    if kind == "split":
        return [*_state(r.name, dw), *_fill_task(t, r, dw), *_split_process(t, r, dw)]
    if kind == "reqack":  # a handshake that carries no address (a power-up request): never a memory
        return [*_state(r.name, dw, memory=False), *_handshake_task(r), *_mem_process(t, r, dw)]
    return [*_state(r.name, dw), *_fill_task(t, r, dw), *_mem_process(t, r, dw)]


def _mem_process(t: Target, r: Iface, dw: int) -> list[str]:
    n, p = r.name, r.port
    ready = f"bw_{p('ready')}"
    answer = [f"{ready} <= 1'b1;"]
    if p("addr"):
        idx = mem_index(p("addr"), dw)
        if p("rdata"):
            answer.append(f"bw_{p('rdata')} <= bw_{n}_mem[{idx}];")
        write = write_bytes(n, idx, p("wdata"), p("wstrb"), dw) if p("wdata") else ""
        cond = f"{p('wstrb')} != 0" if p("wstrb") else (p("we") or "")
        if write and cond:
            answer.append(f"if ({cond}) {write}")
    elif p("rdata"):
        answer.append(f"bw_{p('rdata')} <= {port_bits(t, p('rdata'))}'(bw_{n}_rng);")
    return [
        f"always @(posedge {clock_of(t)}) begin",
        f"  {ready} <= 1'b0;",
        f"  if ({responder_off(t, n)}) bw_{n}_wait <= 0;",
        f"  else if ({p('valid')} && !{ready}) begin",
        f"    if (bw_{n}_wait > 0) bw_{n}_wait <= bw_{n}_wait - 1;",
        "    else begin",
        *[f"      {a}" for a in answer],
        f"      if (bw_{n}_lat > 0) begin {xorshift(n)} bw_{n}_wait <= bw_{n}_rng % (bw_{n}_lat + 1); end",
        "    end",
        "  end",
        "end",
    ]


def _wb_process(t: Target, r: Iface, dw: int) -> list[str]:
    """A Wishbone master's slave: ACK (or ERR when rough) one cycle after each strobe.

    With a `stall` port, stalls are drawn when latency > 0; a rough slave also stalls for
    hundreds of clocks now and then (`sv_common.long_stall`), holding STALL high or withholding ACK.
    """
    n, p = r.name, r.port
    ack = f"bw_{p('ack')}"
    idx = mem_index(p("addr"), dw) if p("addr") else "0"
    # A rough memory ends one cycle in sixteen with ERR instead of ACK (and stores nothing).
    bad = rough_error(n)
    lines = [f"{xorshift(n)} {ack} <= !({bad}); bw_{p('err')} <= {bad};" if p("err") else f"{ack} <= 1'b1;"]
    if p("rdata"):
        lines.append(f"bw_{p('rdata')} <= bw_{n}_mem[{idx}];")
    if p("wdata") and p("we"):
        lines.append(f"if ({p('we')}{' && !(' + bad + ')' if p('err') else ''}) "
                     f"{write_bytes(n, idx, p('wdata'), p('sel'), dw)}")
    rough = [f"if (bw_{n}_lat >= {ROUGH_LATENCY}) begin {xorshift(n)} {long_stall(n)} end"]
    stall = [f"{xorshift(n)} bw_{p('stall')} <= (bw_{n}_lat > 0) && (bw_{n}_rng % 4 == 0) || bw_{n}_long > 0;"] \
        if p("stall") else []
    cyc = f"{p('cyc')} && " if p("cyc") else ""
    # Pipelined (a STALL port): every strobe STALL lets through is a request, back to back ones
    # included. Classic: the strobe stays up until its ACK, so the edge that sees the ACK is
    # not a new request.
    accepted = f" && !bw_{p('stall')}" if p("stall") else f" && bw_{n}_long == 0 && !{ack}"
    ended = f" && !bw_{p('err')}" if p("err") and not p("stall") else ""
    return [
        f"int bw_{n}_long = 0;",
        f"always @(posedge {clock_of(t)}) begin",
        f"  {ack} <= 1'b0;" + (f" bw_{p('err')} <= 1'b0;" if p("err") else ""),
        f"  if ({responder_off(t, n)}) bw_{n}_long = 0;",
        "  else begin",
        *[f"    {s}" for s in (*rough, *stall)],
        f"    if ({cyc}{p('stb')}{accepted}{ended}) begin",
        *[f"      {s}" for s in lines],
        "    end",
        "  end",
        "end",
    ]


def split_requests(r: Iface) -> tuple[str, ...]:
    """Roles whose outputs each make a request on a split-transaction port.

    A data port (one that writes) answers every operation it accepts, cache maintenance
    included (an LSU pops its queue on each answer); a read-only port answers reads only
    (an answer on a fetch port is an instruction).
    """
    extra = ("flush", "invalidate", "writeback") if r.port("wdata") else ()
    strobes = ("wstrb",) if r.port("wdata") and not r.port("we") else ()
    return tuple(role for role in ("request", *strobes, *extra) if r.port(role))


def split_writes(r: Iface) -> str:
    """The role that says a split-transaction request writes: `we`, else the strobes ('' when neither)."""
    return "we" if r.port("we") else "wstrb" if r.port("wstrb") else ""


def split_byte_strobes(t: Target, r: Iface) -> bool:
    """Whether a split-transaction port's `wstrb` has one bit per byte (else a write takes the word)."""
    return bool(r.port("wstrb")) and port_bits(t, r.port("wstrb")) == max(8, r.data_bits or 32) // 8


def _split_process(t: Target, r: Iface, dw: int) -> list[str]:
    n, p = r.name, r.port
    aw, tw = max(1, r.addr_bits), max(1, port_bits(t, p("tag")) if p("tag") else 1)
    strb = p("wstrb") if split_byte_strobes(t, r) else ""
    asked = " || ".join(f"{p(role)} != 0" for role in split_requests(r))
    answer = [f"bw_{p('resp')} <= 1'b1;"]
    if p("rdata"):
        answer.append(f"bw_{p('rdata')} <= bw_{n}_mem[{mem_index(f'bw_{n}_qa[bw_{n}_qh]', dw)}];")
    if p("rtag"):
        answer.append(f"bw_{p('rtag')} <= {port_bits(t, p('rtag'))}'(bw_{n}_qt[bw_{n}_qh]);")
    if p("err"):  # a rough memory answers one request in sixteen with an error
        answer.append(f"bw_{p('err')} <= {rough_error(n)};")
    tag = p("tag") or "'0"
    take = [f"bw_{n}_qa[(bw_{n}_qh + bw_{n}_qn) % {SPLIT_QUEUE}] = {p('addr')};",
            f"bw_{n}_qt[(bw_{n}_qh + bw_{n}_qn) % {SPLIT_QUEUE}] = {tag};",
            f"bw_{n}_qn = bw_{n}_qn + 1;"]
    if p("wdata") and split_writes(r):
        write = write_bytes(n, mem_index(p("addr"), dw), p("wdata"), strb, dw)
        take.insert(0, f"if ({p(split_writes(r))} != 0) {write}")
    return [
        f"logic [{aw - 1}:0] bw_{n}_qa [{SPLIT_QUEUE}]; logic [{tw - 1}:0] bw_{n}_qt [{SPLIT_QUEUE}];",
        f"int bw_{n}_qh = 0, bw_{n}_qn = 0;",
        f"always @(posedge {clock_of(t)}) begin",
        f"  bw_{p('resp')} <= 1'b0;" + (f" bw_{p('err')} <= 1'b0;" if p("err") else ""),
        f"  if ({responder_off(t, n)}) begin bw_{n}_qh = 0; bw_{n}_qn = 0; bw_{n}_wait = 0; "
        f"bw_{p('accept')} <= 1'b0; end",
        "  else begin",
        "    // the oldest accepted request is answered after 0..latency waits",
        f"    if (bw_{n}_qn > 0) begin",
        f"      if (bw_{n}_wait > 0) bw_{n}_wait = bw_{n}_wait - 1;",
        "      else begin",
        *[f"        {a}" for a in answer],
        f"        bw_{n}_qh = (bw_{n}_qh + 1) % {SPLIT_QUEUE}; bw_{n}_qn = bw_{n}_qn - 1;",
        f"        if (bw_{n}_lat > 0) begin {xorshift(n)} bw_{n}_wait = bw_{n}_rng % (bw_{n}_lat + 1); end",
        "      end",
        "    end",
        f"    if (bw_{p('accept')} && ({asked})) begin",
        *[f"      {a}" for a in take],
        "    end",
        f"    {xorshift(n)}",
        f"    bw_{p('accept')} <= (bw_{n}_qn < {SPLIT_QUEUE - 1}) && (bw_{n}_lat == 0 || bw_{n}_rng % 4 != 0);",
        "  end",
        "end",
    ]


def axi_next(n: str, aw: int) -> list[str]:
    """`bw_<n>_next(a, size, burst, len)`: the address of a burst's next beat (AXI4 A3.4.1).

    FIXED (0) stays, WRAP (2) wraps inside the `(len + 1) << size` bytes that hold it, INCR (1,
    and the reserved 3) moves to the next `1 << size` boundary.
    """
    return [
        f"function automatic logic [{aw - 1}:0] bw_{n}_next(input logic [{aw - 1}:0] bw_a, input int bw_size, "
        "input int bw_burst, input int bw_len);",
        f"  logic [{aw - 1}:0] bw_inc, bw_span;",
        f"  bw_inc = {aw}'(1) << bw_size; bw_span = bw_inc * {aw}'(bw_len + 1);",
        "  if (bw_burst == 0) return bw_a;",
        f"  if (bw_burst == 2) return (bw_a & ~(bw_span - {aw}'(1))) | ((bw_a + bw_inc) & (bw_span - {aw}'(1)));",
        f"  return (bw_a & ~(bw_inc - {aw}'(1))) + bw_inc;",
        "endfunction",
    ]


def _axi_process(t: Target, r: Iface, dw: int) -> list[str]:
    """The slave of an AXI4 (or AXI4-Lite) master: one write and one read burst at a time.

    A write's address is taken first (a slave may wait for AWVALID before WREADY), then one
    beat per WREADY pulse, each stored at the burst's next address, until WLAST (or the
    burst's length); the response carries the burst's ID. A read's beats follow its address
    with RLAST on the last and the ID echoed. Every handshake waits 0..latency random clocks,
    and a rough slave (`sv_common.rough_error`) answers one response in sixteen SLVERR.
    Without AWLEN/AWSIZE/AWBURST (AXI4-Lite) a burst is one beat of the bus's width. A rough
    slave also stalls every channel now and then for hundreds of clocks (`sv_common.long_stall`),
    and after one write burst or read address in sixteen (`sv_common.slow_answer`).
    """
    n, p = r.name, r.port
    aw = max(1, r.addr_bits)
    size = max(0, (dw // 8).bit_length() - 1)
    ok = f"(bw_{n}_long == 0 && (bw_{n}_lat == 0 || bw_{n}_rng % (bw_{n}_lat + 1) == 0))"
    b = {k: f"bw_{p(k)}" for k in ("awready", "wready", "bvalid", "arready", "rvalid", "rdata", "rlast", "bid", "rid")
         if p(k)}

    def field(role: str, default: str) -> str:
        return f"int'({p(role)})" if p(role) else default

    def burst(c: str) -> str:  # capture a channel's address, length, size, burst type and ID
        take = (f"bw_{n}_{c}a = {p(c + 'addr')}; bw_{n}_{c}l = {field(c + 'len', '0')}; "
                f"bw_{n}_{c}s = {field(c + 'size', str(size))}; bw_{n}_{c}b = {field(c + 'burst', '1')};")
        return take + (f" bw_{n}_{c}i = {p(c + 'id')};" if p(c + "id") else "")

    ids = ", ".join(f"bw_{n}_{c}i" for c in ("aw", "ar") if p(c + "id"))
    idw = max(1, port_bits(t, p("awid") or p("arid"))) if (p("awid") or p("arid")) else 1
    last_w = f"{p('wlast')} || " if p("wlast") else ""
    # A rough slave answers one response in sixteen SLVERR: the master's error paths.
    def bad(shift: int) -> str:
        return f"{rough_error(n, shift)} ? 2'b10 : 2'b00"

    bid = (f" {b['bid']} <= bw_{n}_awi;" if "bid" in b and p("awid") else "") + \
        (f" bw_{p('bresp')} <= {bad(8)};" if p("bresp") else "")
    rid = (f" {b['rid']} <= bw_{n}_ari;" if "rid" in b and p("arid") else "") + \
        (f" bw_{p('rresp')} <= {bad(12)};" if p("rresp") else "")
    rlast = f" {b['rlast']} <= (bw_{n}_rk == bw_{n}_arl);" if "rlast" in b else ""
    nxt = f"bw_{n}_next"
    data = f"{b['rdata']} <= bw_{n}_mem[{mem_index(f'bw_{n}_ara', dw)}]; " if "rdata" in b else ""
    store = write_bytes(n, mem_index(f"bw_{n}_awa", dw), p("wdata"), p("wstrb"), dw) if p("wdata") else ""
    return [
        *axi_next(n, aw),
        f"logic [{aw - 1}:0] bw_{n}_awa, bw_{n}_ara; int bw_{n}_awl, bw_{n}_aws, bw_{n}_awb, bw_{n}_arl, bw_{n}_ars, "
        f"bw_{n}_arb, bw_{n}_wk, bw_{n}_rk;",
        *([f"logic [{idw - 1}:0] {ids};"] if ids else []),
        f"bit bw_{n}_awg, bw_{n}_wdone, bw_{n}_arg; int bw_{n}_long = 0;",
        f"always @(posedge {clock_of(t)}) begin",
        f"  if ({responder_off(t, n)}) begin bw_{n}_awg = 0; "
        f"bw_{n}_wdone = 0; bw_{n}_arg = 0; bw_{n}_long = 0; "
        f"{b['awready']} <= 0; {b['wready']} <= 0; {b['bvalid']} <= 0; {b['arready']} <= 0; {b['rvalid']} <= 0; end",
        "  else begin",
        f"    {xorshift(n)}",
        f"    {long_stall(n)}",
        f"    {b['awready']} <= 1'b0; {b['wready']} <= 1'b0; {b['arready']} <= 1'b0;",
        f"    if ({b['awready']} && {p('awvalid')}) begin bw_{n}_awg = 1; bw_{n}_wk = 0; {burst('aw')} end",
        f"    else if (!bw_{n}_awg && {p('awvalid')} && {ok}) {b['awready']} <= 1'b1;",
        f"    if ({b['wready']} && {p('wvalid')}) begin",
        *([f"      {store}"] if store else []),
        f"      if ({last_w}bw_{n}_wk >= bw_{n}_awl) begin bw_{n}_wdone = 1; {slow_answer(n, 24)} end",
        f"      bw_{n}_awa = {nxt}(bw_{n}_awa, bw_{n}_aws, bw_{n}_awb, bw_{n}_awl); bw_{n}_wk = bw_{n}_wk + 1;",
        "    end",
        f"    else if (bw_{n}_awg && !bw_{n}_wdone && {p('wvalid')} && {ok}) {b['wready']} <= 1'b1;",
        f"    if ({b['bvalid']} && {p('bready')}) {b['bvalid']} <= 1'b0;",
        f"    else if (bw_{n}_awg && bw_{n}_wdone && !{b['bvalid']} && {ok}) begin {b['bvalid']} <= 1'b1;{bid} "
        f"bw_{n}_awg = 0; bw_{n}_wdone = 0; end",
        f"    if ({b['arready']} && {p('arvalid')}) begin bw_{n}_arg = 1; bw_{n}_rk = 0; {burst('ar')} "
        f"{slow_answer(n, 26)} end",
        f"    else if (!bw_{n}_arg && {p('arvalid')} && {ok}) {b['arready']} <= 1'b1;",
        f"    if ({b['rvalid']} && {p('rready')}) begin {b['rvalid']} <= 1'b0; "
        f"if (bw_{n}_rk > bw_{n}_arl) bw_{n}_arg = 0; end",
        f"    else if (bw_{n}_arg && !{b['rvalid']} && bw_{n}_rk <= bw_{n}_arl && {ok}) begin",
        f"      {data}{b['rvalid']} <= 1'b1;{rlast}{rid}",
        f"      bw_{n}_ara = {nxt}(bw_{n}_ara, bw_{n}_ars, bw_{n}_arb, bw_{n}_arl); bw_{n}_rk = bw_{n}_rk + 1;",
        "    end",
        "  end",
        "end",
    ]
