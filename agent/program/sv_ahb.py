"""SystemVerilog for AHB-Lite: the body of `<bus>_xfer` for a subordinate, the responder process for a manager.

A transfer has an address phase (`htrans` NONSEQ with the address and control) and, once
`hready` is high at a clock edge, a data phase (write data out, read data back) that lasts
until `hready` is high again. As elsewhere, handshakes are sampled right after the clock edge
and inputs change at the negedge; the responder drives its inputs with non-blocking
assignments for the next edge.
"""

from __future__ import annotations

from agent.program.iface import Iface
from agent.program.sv_common import (
    assigns,
    clock_of,
    mem_index,
    port_bits,
    responder_off,
    rough_error,
    write_bytes,
    xorshift,
)
from agent.program.target import TIMEOUT, Target

NONSEQ, IDLE = "2'b10", "2'b00"
"""HTRANS codes the subordinate driver uses (a single transfer, then nothing)."""


def size_code(data_bits: int) -> int:
    """HSIZE of a whole data word (2 for 32 bits)."""
    return max(0, (max(8, data_bits) // 8).bit_length() - 1)


def bus_body(t: Target, b: Iface) -> list[str]:
    """`<bus>_xfer(w, a, d, s)` on an AHB-Lite subordinate: address phase, then the data phase.

    AHB-Lite has no write strobes: a strobe of one lane makes a byte transfer (`hsize` 0) at
    that lane's address, anything else a whole word. `hready` into the subordinate stays
    high (the bus has no other subordinate whose wait states it would carry), and the data
    phase shows `htrans` IDLE so nothing new starts while it lasts.
    """
    clk, r = clock_of(t), b.port
    aw, sw = max(1, b.addr_bits), max(1, b.data_bits // 8)
    def wait_ready(sample: str = "") -> str:
        return (f"  bw_got = 1'b0; for (int bw_t = 0; bw_t < {TIMEOUT} && !bw_got; bw_t++) begin "
                f"@(posedge {clk}); bw_got = {r('hreadyout')};{sample} @(negedge {clk}); end")

    # the read data is taken at the edge that ends the data phase
    got = f" bw_{b.name}_got = {r('rdata')};" if r("rdata") else ""
    read = f" if (bw_got && !bw_w){got}" if got else ""
    lanes = (f"  if (bw_s != '1 && $onehot(bw_s)) for (int bw_b = 0; bw_b < {sw}; bw_b++) "
             f"if (bw_s[bw_b]) begin bw_z = 3'd0; bw_ad = (bw_a & ~{aw}'({sw - 1})) | {aw}'(bw_b); end")
    address = assigns([(r("hsel"), "1'b1"), (r("htrans"), NONSEQ), (r("addr"), "bw_ad"), (r("hwrite"), "bw_w"),
                       (r("hsize"), f"{port_bits(t, r('hsize'))}'(bw_z)" if r("hsize") else ""),
                       (r("hburst"), "'0"), (r("hprot"), f"{port_bits(t, r('hprot'))}'(3)" if r("hprot") else ""),
                       (r("hmastlock"), "1'b0"), (r("hready"), "1'b1")])
    return [
        f"  logic [2:0] bw_z; logic [{aw - 1}:0] bw_ad; bit bw_got;",
        f"  bw_z = 3'd{size_code(b.data_bits)}; bw_ad = bw_a;",
        *([lanes] if sw > 1 else []),
        f"  {address}",
        wait_ready(),
        "  // the data phase: the write data, and no next transfer",
        "  " + assigns([(r("htrans"), IDLE), (r("wdata"), "bw_d")]),
        wait_ready(read),
        "  " + assigns([(r("hsel"), "1'b0"), (r("hwrite"), "1'b0")]),
    ]


def responder_process(t: Target, r: Iface, dw: int) -> list[str]:
    """The memory model's answers to an AHB-Lite manager, one transfer per data phase.

    On a clock edge with `hready` high the data phase on the bus ends (a write lands in
    memory by `hsize` and the address's low bits) and the address phase on the bus becomes the
    next data phase, which lasts 0..latency wait states; its read data is driven for the edge
    that ends it. A rough memory (`sv_common.rough_error`) answers one data phase in
    sixteen ERROR, in the protocol's two cycles (HRESP high with HREADY low, then with HREADY
    high); an errored write does not land.
    """
    n, p = r.name, r.port
    aw, sw = max(1, r.addr_bits), max(1, dw // 8)
    low = max(0, (sw - 1).bit_length())
    ready, rdata = f"bw_{p('hready')}", f"bw_{p('rdata')}"
    if p("hsize") and sw > 1:
        strobes = (f"bw_{n}_ws = ({p('hsize')} >= {low}) ? '1 : {sw}'((({sw + 1})'(1) << (1 << {p('hsize')})) - 1) "
                   f"<< {p('addr')}[{low - 1}:0];")
    else:
        strobes = f"bw_{n}_ws = '1;"
    write = write_bytes(n, mem_index(f"bw_{n}_da", dw), p("wdata"), f"bw_{n}_ws", dw) if p("wdata") else ""
    hwrite = p("hwrite") or "1'b0"
    # bw_<n>_err: 2 in an ERROR's first cycle, 1 in its second, 0 otherwise (only with an hresp port)
    error = (f" if ({rough_error(n)}) begin bw_{n}_err = 2; bw_{n}_wait = 0; end"
             if p("hresp") else "")
    return [
        f"logic [{aw - 1}:0] bw_{n}_da; logic [{sw - 1}:0] bw_{n}_ws; bit bw_{n}_dv, bw_{n}_dw; int bw_{n}_err;",
        f"always @(posedge {clock_of(t)}) begin",
        f"  if ({responder_off(t, n)}) begin bw_{n}_dv = 1'b0; bw_{n}_err = 0; bw_{n}_wait = 0; {ready} <= 1'b1; end",
        "  else begin",
        f"    if ({ready}) begin",
        *([f"      if (bw_{n}_dv && bw_{n}_dw && bw_{n}_err == 0) {write}"] if write else []),
        f"      bw_{n}_dv = {p('htrans')}[1]; bw_{n}_da = {p('addr')}; bw_{n}_dw = {hwrite}; {strobes}",
        f"      bw_{n}_wait = 0; bw_{n}_err = 0;",
        f"      if (bw_{n}_dv && bw_{n}_lat > 0) begin {xorshift(n)} bw_{n}_wait = bw_{n}_rng % (bw_{n}_lat + 1);{error} end",
        f"    end else if (bw_{n}_wait > 0) bw_{n}_wait = bw_{n}_wait - 1;",
        f"    else if (bw_{n}_err == 2) bw_{n}_err = 1;",
        f"    {ready} <= !bw_{n}_dv || (bw_{n}_wait == 0 && bw_{n}_err != 2);",
        *([f"    if (bw_{n}_dv && !bw_{n}_dw) {rdata} <= bw_{n}_mem[{mem_index(f'bw_{n}_da', dw)}];"]
          if p("rdata") else []),
        *([f"    bw_{p('hresp')} <= bw_{n}_err != 0;"] if p("hresp") else []),
        "  end",
        "end",
    ]
