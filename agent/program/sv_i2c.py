"""SystemVerilog for the I2C target device the harness plays on a controller's lines (see `i2c.py`)."""

from __future__ import annotations

from agent.program.i2c import addresses_host, drives
from agent.program.iface import Iface
from agent.program.sv_common import clock_of, xorshift
from agent.program.target import MEM_WORDS, Target


def released(r: Iface, line: str) -> str:
    """SV expression: the design leaves `line` high (does not pull it low)."""
    if not drives(r.roles, line):
        return "1'b1"  # a target that never stretches the clock
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

TARGET_EVERY = 16
"""On a design that does not drive SCL (a target), the other controller starts a transfer once in
this many cycles of an idle bus, at any latency: it is the design's whole traffic."""

HOST_WAIT = 4096
"""Cycles the other controller waits for SCL to rise (the design stretching the clock while its
software answers) before it gives the transfer up and releases the lines."""

H_START, H_START_LOW, H_LOW, H_RISE, H_HIGH, H_STOP_LOW, H_STOP_RISE, H_STOP, H_END = range(1, 10)
"""The other controller's steps (0: idle): SDA falls with SCL high, SCL falls, per bit slot (the
bit put on SDA with SCL low, SCL released until it is high, SDA sampled and SCL pulled low), then
STOP (SDA low, SCL released, SDA released) and the lines let go."""


def host_start(r: Iface) -> list[str]:
    """SV: draw the other controller's transfer (its speed, direction, length, address) and start it.

    One draw: `4 << (rng % 5)` clocks per quarter bit, bit 3 read/write, 1..4 data bytes, one
    time in eight the general call address (0), one in eight a random address, else one of the
    design's own (`Iface.addresses`; a random one when none is known), and one write in two
    starts with a small register number (0..7, as a controller sets a device's register
    pointer) before the bytes of the device's memory.
    """
    n = r.name
    own = f"7'(bw_{n}_rng >> 8)"
    for i, a in reversed(list(enumerate(r.addresses))):
        own = f"(bw_{n}_rng >> 8) % {len(r.addresses)} == {i} ? 7'h{a:02x} : {own}"
    pick = f"(bw_{n}_rng >> 6) % 8 == 0 ? 7'h00 : (bw_{n}_rng >> 6) % 8 == 1 ? 7'(bw_{n}_rng >> 8) : {own}"
    return [f"{xorshift(n)} bw_{n}_hh = 4 << (bw_{n}_rng % 5); bw_{n}_hrw = bw_{n}_rng[3]; "
            f"bw_{n}_hn = 1 + (bw_{n}_rng >> 4) % 4; bw_{n}_hsr = {{{pick}, bw_{n}_hrw}};",
            f"bw_{n}_hreg = bw_{n}_rng[15] ? (bw_{n}_rng >> 16) % 8 : -1; bw_{n}_hbyte = 0; bw_{n}_hslot = 0; bw_{n}_hst = {H_START}; bw_{n}_hc = bw_{n}_hh;"]


def host_step(r: Iface) -> list[str]:
    """SV: one clock of the other controller's transfer (inside the device's clocked block)."""
    n = r.name
    h = {k: f"bw_{n}_{k}" for k in ("hst", "hc", "hh", "hw", "hslot", "hbyte", "hn", "hrw", "hsr", "hack")}
    hst, hc, hh, hw, slot, byte = h["hst"], h["hc"], h["hh"], h["hw"], h["hslot"], h["hbyte"]
    scl, sda, dscl, dsda = f"bw_{n}_scl", f"bw_{n}_sda", f"bw_{n}_dscl", f"bw_{n}_dsda"
    sending = f"({byte} == 0 || !{h['hrw']})"
    wait_high = f"if ({scl}) begin {hc} = {hh}; {hst} = {hst} + 1; end " \
                f"else begin {hw} = {hw} + 1; if ({hw} > {HOST_WAIT}) {hst} = {H_END}; end"
    return [
        f"    if ({hst} != 0) begin  // the other controller's transfer",
        f"      if ({hc} > 0) {hc} = {hc} - 1;",
        f"      else case ({hst})",
        f"        {H_START}: begin {dsda} = 0; {hc} = {hh}; {hst} = {H_START_LOW}; end",
        f"        {H_START_LOW}: begin {dscl} = 0; {hc} = {hh}; {slot} = 0; {hst} = {H_LOW}; end",
        f"        {H_LOW}: begin {dsda} = {slot} < 8 ? ({sending} ? {h['hsr']}[7 - {slot}] : 1'b1) "
        f": ({sending} ? 1'b1 : {byte} == {h['hn']}); {hc} = {hh}; {hw} = 0; {hst} = {H_RISE}; end",
        f"        {H_RISE}: begin {dscl} = 1; {wait_high} end",
        f"        {H_HIGH}: begin",
        f"          if ({slot} < 8) begin if (!{sending}) {h['hsr']} = {{{h['hsr']}[6:0], {sda}}}; end",
        f"          else if ({sending}) {h['hack']} = !{sda};",
        f"          {dscl} = 0; {hc} = {hh}; {slot} = {slot} + 1; {hst} = {H_LOW};",
        f"          if ({slot} == 9) begin {slot} = 0;",
        f"            if (({sending} && !{h['hack']}) || {byte} == {h['hn']}) {hst} = {H_STOP_LOW};",
        f"            else begin {byte} = {byte} + 1; if (!{h['hrw']}) {h['hsr']} = {byte} == 1 && bw_{n}_hreg >= 0 ? "
        f"8'(bw_{n}_hreg) : bw_{n}_mem[{byte} % {MEM_WORDS}]; end",
        "          end",
        "        end",
        f"        {H_STOP_LOW}: begin {dsda} = 0; {hc} = {hh}; {hw} = 0; {hst} = {H_STOP_RISE}; end",
        f"        {H_STOP_RISE}: begin {dscl} = 1; {wait_high} end",
        f"        {H_STOP}: begin {dsda} = 1; {hc} = {hh}; {hst} = {H_END}; end",
        f"        default: begin {dscl} = 1; {dsda} = 1; {hst} = 0; bw_{n}_st = {IDLE}; end",
        "      endcase",
        "    end",
    ]


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
    host = addresses_host(r)
    if not host:
        start = [f"    if ({st} == {IDLE} && {om} == 0 && {rough} && {v['scl']} && {v['sda']}) begin {xorshift(n)} "
                 f"if (bw_{n}_rng % {OTHER_EVERY} == 0) {om} = {OTHER_MASTER}; end"]
    elif drives(r.roles, "scl"):  # a controller with a slave mode: half the other controller's turns address it
        start = [f"    if (bw_{n}_hst == 0 && {st} == {IDLE} && {om} == 0 && {rough} && {v['scl']} && {v['sda']}) begin "
                 f"{xorshift(n)}",
                 f"      if (bw_{n}_rng % {OTHER_EVERY} == 0) begin {xorshift(n)} "
                 f"if (bw_{n}_rng % 2 == 0) {om} = {OTHER_MASTER}; else begin",
                 *host_start(r), "      end end", "    end"]
    else:  # a target: the other controller is its traffic
        start = [f"    if (bw_{n}_hst == 0 && {st} == {IDLE} && {v['scl']} && {v['sda']}) begin {xorshift(n)}",
                 f"      if (bw_{n}_rng % {TARGET_EVERY} == 0) begin", *host_start(r), "      end", "    end"]
    return [
        *([f"int bw_{n}_hst = 0, bw_{n}_hc = 0, bw_{n}_hh = 4, bw_{n}_hw = 0, bw_{n}_hslot = 0, bw_{n}_hbyte = 0, "
           f"bw_{n}_hn = 1, bw_{n}_hreg = -1; bit bw_{n}_hrw, bw_{n}_hack; logic [7:0] bw_{n}_hsr;"] if host else []),
        f"int {st} = {IDLE}, {cnt} = 0, {ptr} = 0, {v['hold']} = 0, {om} = 0; logic [7:0] {sr};",
        f"bit {v['rw']}, {nak}, {v['first']}, {dscl} = 1, {dsda} = 1, {v['pscl']} = 1, {v['psda']} = 1, "
        f"{v['scl']}, {v['sda']};",
        f"always @(posedge {clock_of(t)}) begin",
        f"  if (!bw_{n}_on) begin {st} = {IDLE}; {dscl} = 1; {dsda} = 1; {v['pscl']} = 1; {v['psda']} = 1; "
        f"{v['hold']} = 0; {om} = 0; {f'bw_{n}_hst = 0; ' if host else ''}"
        f"bw_{r.port('scl_in')} <= 1'b1; bw_{r.port('sda_in')} <= 1'b1; end  // an idle bus",
        "  else begin",
        f"    {lines}",
        f"    if ({v['hold']} > 0) begin {v['hold']} = {v['hold']} - 1; if ({v['hold']} == 0) {dscl} = 1; end",
        *start,
        *(host_step(r) if host else []),
        f"    {'else ' if host else ''}if ({om} > 0) begin  // another controller's transfer: START, the bus held, STOP",
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
