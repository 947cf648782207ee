"""SystemVerilog for the I2C target device the harness plays on a controller's lines (see `i2c.py`)."""

from __future__ import annotations

from agent.program.iface import Iface
from agent.program.sv_common import clock_of, xorshift
from agent.program.target import MEM_WORDS, Target


def released(r: Iface, line: str) -> str:
    """SV expression: the controller leaves `line` high (does not pull it low)."""
    value = r.port(f"{line}_o")
    if r.port(f"{line}_t"):
        off = r.port(f"{line}_t")
    elif r.port(f"{line}_oe"):
        off = f"!{r.port(f'{line}_oe')}"
    elif r.port(f"{line}_oen"):
        off = r.port(f"{line}_oen")
    else:
        return value  # a bare output: 0 pulls low
    return f"({off} || {value})" if value else off


IDLE, ADDR, ADDR_ACK, WRITE, WRITE_ACK, READ, READ_ACK, IGNORE = range(8)
"""Device states: waiting for START, address bits, its answer, written bits, their ACK,
read bits it drives, the controller's ACK of them, and a refused transfer (until STOP)."""


OTHER_MASTER = 64
"""Cycles of another controller's transfer on the bus: START (SDA low, SCL high) for the first
16, the bus held (both low) for 32, then SCL high and SDA released: STOP."""

OTHER_EVERY = 512
"""With latency > 0, another controller starts a transfer on an idle bus once in this many cycles."""

ARBITRATION_EVERY = 16
"""With latency > 0, another controller wins one address bit in this many (it sends 0 where the design sends 1)."""


def process(t: Target, r: Iface) -> list[str]:
    """The device: line values, START/STOP, bits sampled when SCL rises and driven when it falls.

    With latency > 0 there is also another controller on the bus: it starts transfers of its
    own on an idle bus (the design must wait for its STOP) and wins arbitration on address bits
    (it pulls SDA low while the design sends a 1; it then finishes with a STOP).
    """
    n = r.name
    v = {k: f"bw_{n}_{k}" for k in ("st", "cnt", "sr", "rw", "nak", "ptr", "first", "hold", "dscl", "dsda", "pscl",
                                     "psda", "scl", "sda", "om")}
    st, cnt, sr, nak, ptr, om = v["st"], v["cnt"], v["sr"], v["nak"], v["ptr"], v["om"]
    dscl, dsda, rough = v["dscl"], v["dsda"], f"bw_{n}_lat > 0"
    draw_nak = f"{xorshift(n)} {nak} = {rough} && bw_{n}_rng % 8 == 0;"
    mem = f"bw_{n}_mem[{ptr} % {MEM_WORDS}]"
    lines = f"{v['scl']} = {released(r, 'scl')} && {dscl}; {v['sda']} = {released(r, 'sda')} && {dsda};"
    return [
        f"int {st} = {IDLE}, {cnt} = 0, {ptr} = 0, {v['hold']} = 0, {om} = 0; logic [7:0] {sr};",
        f"bit {v['rw']}, {nak}, {v['first']}, {dscl} = 1, {dsda} = 1, {v['pscl']} = 1, {v['psda']} = 1, "
        f"{v['scl']}, {v['sda']};",
        f"always @(posedge {clock_of(t)}) begin",
        f"  if (!bw_{n}_on) begin {st} = {IDLE}; {dscl} = 1; {dsda} = 1; {v['pscl']} = 1; {v['psda']} = 1; "
        f"{v['hold']} = 0; {om} = 0; bw_{r.port('scl_in')} <= 1'b1; bw_{r.port('sda_in')} <= 1'b1; end  // an idle bus",
        "  else begin",
        f"    {lines}",
        f"    if ({v['hold']} > 0) begin {v['hold']} = {v['hold']} - 1; if ({v['hold']} == 0) {dscl} = 1; end",
        f"    if ({st} == {IDLE} && {om} == 0 && {rough} && {v['scl']} && {v['sda']}) begin {xorshift(n)} "
        f"if (bw_{n}_rng % {OTHER_EVERY} == 0) {om} = {OTHER_MASTER}; end",
        f"    if ({om} > 0) begin  // another controller's transfer: START, the bus held, STOP",
        f"      {om} = {om} - 1; {dsda} = {om} == 0; {dscl} = !({om} >= 16 && {om} < 48);",
        f"      if ({om} == 0) {st} = {IDLE};",
        "    end",
        f"    else if ({v['pscl']} && {v['scl']} && {v['psda']} && !{v['sda']}) begin {st} = {ADDR}; {cnt} = 0; "
        f"{dsda} = 1; end  // START",
        f"    else if ({v['pscl']} && {v['scl']} && !{v['psda']} && {v['sda']}) begin {st} = {IDLE}; "
        f"{dsda} = 1; end  // STOP",
        f"    else if (!{v['pscl']} && {v['scl']}) begin  // SCL rises: sample",
        f"      if ({st} == {ADDR} || {st} == {WRITE}) begin {sr} = {{{sr}[6:0], {v['sda']}}}; {cnt} = {cnt} + 1; end",
        f"      else if ({st} == {READ_ACK}) {nak} = {v['sda']};",
        "    end",
        f"    else if ({v['pscl']} && !{v['scl']}) begin  // SCL falls: drive",
        f"      case ({st})",
        f"        {ADDR}: if ({cnt} == 8) begin {v['rw']} = {sr}[0]; {draw_nak} {dsda} = {nak}; {st} = {ADDR_ACK}; end",
        f"          else if ({rough}) begin {xorshift(n)} if (bw_{n}_rng % {ARBITRATION_EVERY} == 0) begin "
        f"{dsda} = 0; {om} = 47; {st} = {IGNORE}; end end  // the other controller wins this bit",
        f"        {ADDR_ACK}: if ({nak}) begin {st} = {IGNORE}; {dsda} = 1; end",
        f"          else if ({v['rw']}) begin {st} = {READ}; {cnt} = 0; {sr} = {mem}; {dsda} = {sr}[7]; end",
        f"          else begin {st} = {WRITE}; {cnt} = 0; {v['first']} = 1; {dsda} = 1; end",
        f"        {WRITE}: if ({cnt} == 8) begin",
        f"          if ({v['first']}) {ptr} = {sr}; else begin {mem} = {sr}; {ptr} = {ptr} + 1; end",
        f"          {v['first']} = 0; {draw_nak} {dsda} = {nak}; {st} = {WRITE_ACK};",
        "        end",
        f"        {WRITE_ACK}: begin {dsda} = 1; {cnt} = 0; {st} = {nak} ? {IGNORE} : {WRITE}; end",
        f"        {READ}: begin {cnt} = {cnt} + 1; if ({cnt} == 8) begin {dsda} = 1; {st} = {READ_ACK}; end "
        f"else {dsda} = {sr}[7 - {cnt}]; end",
        f"        {READ_ACK}: if ({nak}) begin {st} = {IGNORE}; {dsda} = 1; end",
        f"          else begin {ptr} = {ptr} + 1; {sr} = {mem}; {cnt} = 0; {dsda} = {sr}[7]; {st} = {READ}; end",
        "        default: ;",
        "      endcase",
        f"      if ({st} != {IDLE} && {st} != {IGNORE} && {rough}) begin {xorshift(n)} "
        f"{v['hold']} = bw_{n}_rng % (4 * bw_{n}_lat + 1); if ({v['hold']} > 0) {dscl} = 0; end",
        "    end",
        f"    {v['pscl']} = {v['scl']}; {v['psda']} = {v['sda']};",
        f"    bw_{r.port('scl_in')} <= {released(r, 'scl')} && {dscl}; "
        f"bw_{r.port('sda_in')} <= {released(r, 'sda')} && {dsda};",
        "  end",
        "end",
    ]
