"""SystemVerilog responders for requesters on APB and Avalon-MM: the design is the bus's master.

An APB requester (`psel`, `penable` out; `pready`, `prdata` in) is answered in its access
phase after 0..latency wait states (`pready` low), a rough memory (`target.ROUGH_LATENCY`)
answering one transfer in sixteen with `pslverr`. An Avalon-MM host (`read`/`write`,
`address` out; `waitrequest`, `readdata`, `readdatavalid` in) is held by `waitrequest` for
0..latency clocks; read data comes with the edge that ends the wait, or one clock later
marked by `readdatavalid`. As in `sv_responders.py`, values are driven with non-blocking
assignments for the next edge; the cocotb twins are in `cocotb_hosts.py`.
"""

from __future__ import annotations

from agent.program.iface import Iface
from agent.program.sv_common import (
    clock_of,
    mem_index,
    responder_off,
    rough_error,
    write_bytes,
    xorshift,
)
from agent.program.target import Target


def _wait_draw(n: str, waits: bool) -> str:
    """Draw the next transfer's wait states (0..latency); none where the bus has no way to wait."""
    return f"if (bw_{n}_lat > 0) begin {xorshift(n)} bw_{n}_wait = bw_{n}_rng % (bw_{n}_lat + 1); end" if waits else ""


def apb_process(t: Target, r: Iface, dw: int) -> list[str]:
    """The completer of an APB requester: one answer per access phase, after its wait states."""
    n, p = r.name, r.port
    ready = f"bw_{p('ready')}" if p("ready") else ""
    idx = mem_index(p("addr"), dw) if p("addr") else "0"
    error = rough_error(n) if p("slverr") else "1'b0"
    answer = [f"{ready} <= 1'b1;"] if ready else []
    if p("slverr"):
        answer.append(f"bw_{p('slverr')} <= {error};")
    if p("rdata"):
        answer.append(f"bw_{p('rdata')} <= bw_{n}_mem[{idx}];")
    if p("wdata") and p("write"):
        answer.append(f"if ({p('write')} && !({error})) {write_bytes(n, idx, p('wdata'), p('strb'), dw)}")
    access = f"{p('sel')} && {p('enable')}" + (f" && !{ready}" if ready else "")
    lines = [
        f"always @(posedge {clock_of(t)}) begin",
        f"  {ready} <= 1'b0;" if ready else "",
        *([f"  bw_{p('slverr')} <= 1'b0;"] if p("slverr") else []),
        f"  if ({responder_off(t, n)}) bw_{n}_wait = 0;",
        f"  else if ({access}) begin",
        f"    if (bw_{n}_wait > 0) bw_{n}_wait = bw_{n}_wait - 1;",
        f"    else begin {xorshift(n)} {' '.join(answer)} {_wait_draw(n, bool(ready))} end",
        "  end",
        "end",
    ]
    return [line for line in lines if line]


def avalon_process(t: Target, r: Iface, dw: int) -> list[str]:
    """The agent of an Avalon-MM host: `waitrequest` high until the transfer's wait states end.

    The transfer is taken at the edge where the host sees `waitrequest` low: a write lands, a
    read's data comes with it (or, with `readdatavalid`, one clock later, marked). Without
    `waitrequest` every request is taken at once.
    """
    n, p = r.name, r.port
    wait = f"bw_{p('wait')}" if p("wait") else ""
    idx = mem_index(p("addr"), dw) if p("addr") else "0"
    asked = " || ".join(p(role) for role in ("read", "write") if p(role))
    read_now = (f"bw_{p('rdata')} <= bw_{n}_mem[{idx}];" if p("rdata") and not p("rvalid") else "")
    store = (f"if ({p('write')}) {write_bytes(n, idx, p('wdata'), p('strb'), dw)}"
             if p("wdata") and p("write") else "")
    later = (f"bw_{n}_pend = {p('read')}; bw_{n}_pa = {p('addr')};" if p("rvalid") and p("read") and p("addr") else "")
    answer = " ".join(s for s in (f"{wait} <= 1'b0;" if wait else "", read_now, store, later) if s)
    taken = f"({asked}) && {wait}" if wait else asked  # waitrequest high last edge: not taken yet
    lines = [
        f"logic [{max(1, r.addr_bits) - 1}:0] bw_{n}_pa; bit bw_{n}_pend;",
        # high from the start: a host must not see a transfer taken before the agent answers it
        f"initial {wait} = 1'b1;" if wait else "",
        f"always @(posedge {clock_of(t)}) begin",
    ]
    if p("rvalid"):
        lines += [f"  bw_{p('rvalid')} <= bw_{n}_pend;" + (f" if (bw_{n}_pend) bw_{p('rdata')} <= "
                                                            f"bw_{n}_mem[{mem_index(f'bw_{n}_pa', dw)}];"
                                                            if p("rdata") else ""), f"  bw_{n}_pend = 0;"]
    lines += [
        f"  {wait} <= 1'b1;" if wait else "",
        f"  if ({responder_off(t, n)}) bw_{n}_wait = 0;",
        f"  else if ({taken}) begin",
        f"    if (bw_{n}_wait > 0) bw_{n}_wait = bw_{n}_wait - 1;",
        f"    else begin {answer} {_wait_draw(n, bool(wait))} end",
        "  end",
        "end",
    ]
    return [line for line in lines if line]
