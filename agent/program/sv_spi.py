"""SystemVerilog for the SPI devices the harness plays on a controller's lines (see `spi.py`).

The lines are looked at on the falling edge of the system clock, where every testbench input
changes: a rising SPI clock shifts the data-out bit in, a falling one shifts the next bit of
the device's byte out (modes 0 and 3). After each whole byte the device's byte handler
(`bw_spi_byte`) takes it and says the next byte it sends. `cocotb_devices.SpiDevice` is the
same device in Python, draw for draw.
"""

from __future__ import annotations

from agent.program.iface import Iface
from agent.program.sv_common import clock_of, port_bits, xorshift
from agent.program.target import MEM_WORDS, Target

FLASH_ID = (0xEF, 0x40, 0x18)
"""JEDEC ID a flash answers RDID (0x9F) with: manufacturer, memory type, capacity."""

FLASH_BUSY = {"program": 64, "erase": 256, "status": 128}
"""System clocks a flash stays busy (WIP) after a page program, an erase, a status write;
times (1 + latency)."""

BLOCK = 512
"""Bytes of an SD card's data block."""

O_IDLE, O_NCR, O_R1, O_EXT, O_GAP, O_TOKEN, O_DATA, O_CRC, O_BUSY, O_DRESP = range(10)
"""What an SD card sends next: idle bytes, the wait before a response, R1, the rest of R3/R7,
the wait before a data block, its token, its bytes, its CRC16, busy bytes, a data response."""

W_NONE, W_TOKEN, W_DATA, W_CRC = range(4)
"""What an SD card takes next on a write: commands, a data token, the block's bytes, its CRC."""


def _v(r: Iface, *names: str) -> dict[str, str]:
    return {k: f"bw_{r.name}_{k}" for k in names}


def process(t: Target, r: Iface) -> list[str]:
    """The device: state, its byte handler, and the process on the lines."""
    n = r.name
    v = _v(r, "pcs", "psck", "bit", "cnt", "rx", "tx", "nxt", "idx")
    cs = r.port("cs")
    selected = f"!{cs}[0]" if cs and port_bits(t, cs) > 1 else (f"!{cs}" if cs else "1'b1")
    sck = r.port("sck")
    flash = r.kind == "spi_flash"
    state = _flash_state(r) if flash else _sd_state(r)
    handler = _flash_byte(r) if flash else _sd_byte(r)
    end = _flash_end(r) if flash else [f"task automatic bw_{n}_end(); bw_{n}_ci = 0; endtask  // a frame cut short"]
    # A flash answers nothing until it has a command; a card goes on with what it was sending.
    first = f"{v['nxt']} = 8'hff; " if flash else ""
    restart = f"bw_{n}_restart();"
    tick = f" if (bw_{n}_busy > 0) bw_{n}_busy = bw_{n}_busy - 1;" if flash else ""
    live = f"bw_{n}_live"
    return [
        f"bit {v['pcs']}, {v['psck']}, {v['bit']} = 1'b1, {live}; int {v['cnt']}, {v['idx']}; "
        f"logic [7:0] {v['rx']}, {v['tx']}, {v['nxt']};",
        *state,
        *handler,
        *end,
        # Switched on at a clock edge: `respond` is called at a falling edge, and the device
        # starts at the next one whichever process runs first.
        f"always @(posedge {clock_of(t)}) {live} <= bw_{n}_on;",
        f"always @(negedge {clock_of(t)}) begin",
        f"  if (!{live}) begin {restart} {v['pcs']} = 1'b0; {v['bit']} = 1'b1; {v['psck']} = {sck}; end",
        f"  else begin{tick}",
        f"    if (!({selected})) begin if ({v['pcs']}) bw_{n}_end(); {v['pcs']} = 1'b0; {v['bit']} = 1'b1; end",
        "    else begin",
        f"      if (!{v['pcs']}) begin {v['idx']} = 0; {v['cnt']} = 0; {first}{v['tx']} = {v['nxt']}; "
        f"{v['bit']} = {v['tx']}[7]; end  // selected: the first bit out",
        f"      else if (!{v['psck']} && {sck}) begin  // the clock rises: a bit in",
        f"        {v['rx']} = {{{v['rx']}[6:0], {r.port('mosi')}}}; {v['cnt']} = {v['cnt']} + 1;",
        f"        if ({v['cnt']} == 8) begin bw_{n}_byte(); {v['idx']} = {v['idx']} + 1; {v['cnt']} = 0; end",
        "      end",
        f"      else if ({v['psck']} && !{sck}) begin  // the clock falls: the next bit out",
        f"        if ({v['cnt']} == 0) {v['tx']} = {v['nxt']};",
        f"        {v['bit']} = {v['tx']}[7 - {v['cnt']}];",
        "      end",
        f"      {v['pcs']} = 1'b1;",
        "    end",
        f"    {v['psck']} = {sck};",
        "  end",
        f"  bw_{r.port('miso')} = {v['bit']};",
        *([f"  bw_{r.port('detect')} = 1'b1;  // a card in the slot"] if r.port("detect") else []),
        *([f"  bw_{r.port('detect_n')} = 1'b0;  // a card in the slot"] if r.port("detect_n") else []),
        "end",
    ]


# ---------------------------------------------------------------------------- a NOR flash


def _flash_state(r: Iface) -> list[str]:
    n = r.name
    v = _v(r, "cmd", "sr", "cr", "wsr", "wcr", "wel", "busy", "addr", "ptr", "nxt")
    ident = ", ".join(f"8'h{b:02x}" for b in FLASH_ID)
    return [
        f"logic [7:0] {v['cmd']}, {v['sr']}, {v['cr']}, {v['wsr']}, {v['wcr']}; bit {v['wel']}; "
        f"int {v['busy']}, {v['ptr']}; logic [23:0] {v['addr']};",
        f"localparam logic [7:0] BW_{n.upper()}_ID [3] = '{{{ident}}};",
        f"task automatic bw_{n}_restart(); {v['sr']} = '0; {v['cr']} = '0; {v['wel']} = 1'b0; {v['busy']} = 0; "
        f"{v['ptr']} = 0; {v['nxt']} = 8'hff; endtask",
        f"task automatic bw_{n}_start_busy(input int bw_base, input int bw_err);  // WIP, and an error bit once in four",
        f"  {v['wel']} = 1'b0; {v['busy']} = bw_base * (1 + bw_{n}_lat);",
        f"  if (bw_{n}_lat > 0 && bw_err > 0) begin {xorshift(n)} if (bw_{n}_rng % 4 == 0) {v['sr']}[bw_err] = 1'b1; end",
        "endtask",
    ]


def _flash_byte(r: Iface) -> list[str]:
    n = r.name
    v = _v(r, "cmd", "sr", "cr", "wsr", "wcr", "wel", "busy", "addr", "ptr", "rx", "nxt", "idx")
    cmd, idx, addr, rx, nxt = v["cmd"], v["idx"], v["addr"], v["rx"], v["nxt"]
    mem = f"bw_{n}_mem[{addr} % {MEM_WORDS}]"
    return [
        f"task automatic bw_{n}_byte();  // a JEDEC serial NOR flash",
        f"  {nxt} = 8'hff;",
        f"  if ({idx} == 0) {cmd} = {rx};",
        f"  if ({v['busy']} > 0 && {cmd} != 8'h05 && {cmd} != 8'h35 && {cmd} != 8'h9f) ;  // busy: status only",
        f"  else case ({cmd})",
        f"    8'h9f: {nxt} = BW_{n.upper()}_ID[{idx} % 3];",
        f"    8'h05: {nxt} = {{{v['sr']}[7:2], {v['wel']}, {v['busy']} > 0}};",
        f"    8'h35: {nxt} = {v['cr']};",
        f"    8'h01: begin if ({idx} == 1) {v['wsr']} = {rx}; if ({idx} == 2) {v['wcr']} = {rx}; end",
        "    8'h03, 8'h0b, 8'h02, 8'h32, 8'h20, 8'h52, 8'hd8: begin",
        f"      if ({idx} >= 1 && {idx} <= 3) {addr} = {{{addr}[15:0], {rx}}};",
        f"      if (({cmd} == 8'h03 && {idx} >= 3) || ({cmd} == 8'h0b && {idx} >= 4)) begin {nxt} = {mem}; "
        f"{addr} = {addr} + 1; end",
        f"      if (({cmd} == 8'h02 || {cmd} == 8'h32) && {idx} >= 4 && {v['wel']}) begin {mem} = {mem} & {rx}; "
        f"{addr}[7:0] = {addr}[7:0] + 1; end  // programming clears bits, within the page",
        "    end",
        f"    8'hab: if ({idx} >= 3) {nxt} = 8'h17;",
        f"    8'h90: if ({idx} >= 3) {nxt} = {idx} % 2 ? BW_{n.upper()}_ID[0] : 8'h17;",
        "    8'h06, 8'h04, 8'h30, 8'hc7, 8'h60, 8'hb9: ;",
        f"    default: begin {nxt} = bw_{n}_mem[{v['ptr']} % {MEM_WORDS}]; {v['ptr']} = {v['ptr']} + 1; end  "
        "// another device: its registers",
        "  endcase",
        "endtask",
    ]


def _flash_end(r: Iface) -> list[str]:
    """What a flash does when the chip select rises: a write enable, a status write, a program, an erase."""
    n = r.name
    v = _v(r, "cmd", "sr", "cr", "wsr", "wcr", "wel", "busy", "addr", "idx")
    cmd, idx, wel = v["cmd"], v["idx"], v["wel"]
    b = FLASH_BUSY
    return [
        f"task automatic bw_{n}_end();",
        f"  if ({idx} >= 1 && {v['busy']} == 0) case ({cmd})",
        f"    8'h06: {wel} = 1'b1;",
        f"    8'h04: {wel} = 1'b0;",
        f"    8'h30: {v['sr']}[6:5] = 2'b00;  // clear the error bits",
        f"    8'h01: if ({wel} && {idx} >= 2) begin {v['sr']}[7:2] = {v['wsr']}[7:2]; if ({idx} >= 3) "
        f"{v['cr']} = {v['wcr']}; bw_{n}_start_busy({b['status']}, 0); end",
        f"    8'h02, 8'h32: if ({wel} && {idx} >= 5) bw_{n}_start_busy({b['program']}, 6);",
        f"    8'h20, 8'h52, 8'hd8: if ({wel} && {idx} == 4) begin",
        f"      for (int bw_e = 0; bw_e < 16; bw_e++) bw_{n}_mem[({v['addr']} + bw_e) % {MEM_WORDS}] = 8'hff;",
        f"      bw_{n}_start_busy({b['erase']}, 5);",
        "    end",
        f"    8'hc7, 8'h60: if ({wel} && {idx} == 1) bw_{n}_start_busy({b['erase']}, 5);",
        "    default: ;",
        "  endcase",
        "endtask",
    ]


# ---------------------------------------------------------------------------- an SD card in SPI mode


def _sd_state(r: Iface) -> list[str]:
    n = r.name
    v = _v(r, "cmd", "arg", "ci", "idle", "app", "tries", "oph", "ocnt", "r1", "ext", "extn", "dlen", "multi",
           "wst", "wcnt", "multiw", "crc", "ptr", "dresp", "nxt", "blen")
    return [
        f"logic [5:0] {v['cmd']}; logic [31:0] {v['arg']}, {v['ext']}; logic [7:0] {v['r1']}, {v['dresp']}; "
        f"logic [15:0] {v['crc']};",
        f"int {v['ci']}, {v['tries']}, {v['oph']}, {v['ocnt']}, {v['extn']}, {v['dlen']}, {v['wst']}, {v['wcnt']}, "
        f"{v['ptr']}, {v['blen']}; bit {v['idle']}, {v['app']}, {v['multi']}, {v['multiw']};",
        f"task automatic bw_{n}_restart(); {v['blen']} = {BLOCK}; {v['idle']} = 1'b1; {v['app']} = 1'b0; {v['tries']} = 1; "
        f"{v['oph']} = {O_IDLE}; {v['wst']} = {W_NONE}; {v['ci']} = 0; {v['multi']} = 1'b0; {v['dlen']} = 0; "
        f"{v['nxt']} = 8'hff; endtask",
        f"function automatic int bw_{n}_draw(input int bw_m);  // 0..bw_m-1 when rough, else 0",
        f"  if (bw_{n}_lat == 0) return 0;",
        f"  {xorshift(n)}",
        f"  return bw_{n}_rng % bw_m;",
        "endfunction",
        *_sd_exec(r),
    ]


def _sd_exec(r: Iface) -> list[str]:
    """The card's answer to one command frame (R1, R3/R7's bytes, a block to send or to take)."""
    n = r.name
    v = _v(r, "cmd", "arg", "idle", "app", "tries", "oph", "ocnt", "r1", "ext", "extn", "dlen", "multi",
           "wst", "multiw", "ptr", "blen")
    cmd, idle, r1 = v["cmd"], v["idle"], v["r1"]
    return [
        f"task automatic bw_{n}_exec();",
        f"  {r1} = {{7'b0, {idle}}}; {v['extn']} = 0; {v['dlen']} = 0;",
        f"  {v['oph']} = {O_NCR}; {v['ocnt']} = 1 + bw_{n}_draw(8);",
        f"  case ({cmd})",
        f"    0: begin {idle} = 1'b1; {r1} = 8'h01; {v['multi']} = 1'b0; {v['tries']} = 1 + bw_{n}_draw(4); end",
        f"    8: begin {v['ext']} = {{20'h0, 4'h1, {v['arg']}[7:0]}}; {v['extn']} = 4; end  // R7: voltage, echo",
        "    55: ;",
        f"    1, 41: if ({cmd} == 1 || {v['app']}) begin  // initialisation: idle for the first tries",
        f"      if ({v['tries']} > 0) {v['tries']} = {v['tries']} - 1; else {idle} = 1'b0;",
        f"      {r1} = {{7'b0, {idle}}};",
        f"    end else {r1} = {r1} | 8'h04;",
        f"    58: begin {v['ext']} = {idle} ? 32'h00ff8000 : 32'hc0ff8000; {v['extn']} = 4; end  // R3: OCR",
        f"    9, 10: if (!{idle}) begin {v['dlen']} = 16; {v['ptr']} = {cmd} == 9 ? 0 : 16; end",
        f"    16: if ({v['arg']} >= 1 && {v['arg']} <= {BLOCK}) begin if (!{idle}) {v['blen']} = {v['arg']}; end "
        f"else {r1} = {r1} | 8'h40;  // SET_BLOCKLEN, or a parameter error",
        f"    17, 18: if (!{idle}) begin {v['dlen']} = {v['blen']}; {v['ptr']} = {v['arg']} % {MEM_WORDS}; "
        f"{v['multi']} = {cmd} == 18; end",
        f"    12: begin {v['multi']} = 1'b0; {v['dlen']} = 0; end",
        f"    24, 25: if (!{idle}) begin {v['wst']} = {W_TOKEN}; {v['multiw']} = {cmd} == 25; "
        f"{v['ptr']} = {v['arg']} % {MEM_WORDS}; end",
        f"    13: begin {v['ext']} = '0; {v['extn']} = 1; end  // R2's second byte",
        f"    default: {r1} = {r1} | 8'h04;  // illegal command",
        "  endcase",
        f"  if ({idle} && {cmd} != 0 && {cmd} != 1 && {cmd} != 8 && {cmd} != 41 && {cmd} != 55 && {cmd} != 58) "
        f"{r1} = 8'h05;  // before initialisation",
        f"  if ({cmd} != 0 && bw_{n}_draw(16) == 1) begin {r1} = {r1} | 8'h08; {v['dlen']} = 0; "
        f"{v['wst']} = {W_NONE}; end  // a CRC error",
        f"  {v['app']} = {cmd} == 55;",
        "endtask",
    ]


def _sd_byte(r: Iface) -> list[str]:
    n = r.name
    v = _v(r, "cmd", "arg", "ci", "oph", "ocnt", "r1", "ext", "extn", "dlen", "multi", "wst", "wcnt", "multiw",
           "crc", "ptr", "dresp", "rx", "nxt", "blen")
    rx, nxt, oph, ocnt, wst, wcnt = v["rx"], v["nxt"], v["oph"], v["ocnt"], v["wst"], v["wcnt"]
    mem = f"bw_{n}_mem[{v['ptr']} % {MEM_WORDS}]"
    crc = v["crc"]
    return [
        f"task automatic bw_{n}_byte();  // an SD card in SPI mode: take a byte, then say the next one out",
        # A command frame instead of a data token: the host gave up the write, the card listens.
        f"  if ({wst} == {W_TOKEN} && {rx}[7:6] == 2'b01) {wst} = {W_NONE};",
        f"  if ({wst} == {W_TOKEN}) begin",
        f"    if ({rx} == 8'hfe || ({v['multiw']} && {rx} == 8'hfc)) begin {wst} = {W_DATA}; {wcnt} = {v['blen']}; end",
        f"    else if ({v['multiw']} && {rx} == 8'hfd) begin {wst} = {W_NONE}; {oph} = {O_BUSY}; {ocnt} = 2; end",
        "  end",
        f"  else if ({wst} == {W_DATA}) begin {mem} = {rx}; {v['ptr']} = {v['ptr']} + 1; {wcnt} = {wcnt} - 1; "
        f"if ({wcnt} == 0) begin {wst} = {W_CRC}; {wcnt} = 2; end end",
        f"  else if ({wst} == {W_CRC}) begin {wcnt} = {wcnt} - 1; if ({wcnt} == 0) begin",
        f"    {v['dresp']} = bw_{n}_draw(8) == 1 ? 8'h0b : 8'h05; {oph} = {O_DRESP};  // accepted, or a CRC error",
        f"    {wst} = {v['multiw']} && {v['dresp']} == 8'h05 ? {W_TOKEN} : {W_NONE};",
        "  end end",
        # A command frame while a block is being sent ends the block (a host that did not read
        # it has moved on): the card listens and sends idle bytes until it answers.
        f"  else if ({v['ci']} == 0) begin if ({rx}[7:6] == 2'b01) begin {v['cmd']} = {rx}[5:0]; {v['ci']} = 1;",
        f"    if ({oph} >= {O_GAP} && {oph} <= {O_CRC}) begin {oph} = {O_IDLE}; {v['dlen']} = 0; {v['multi']} = 1'b0; end",
        "  end end",
        f"  else if ({v['ci']} < 5) begin {v['arg']} = {{{v['arg']}[23:0], {rx}}}; {v['ci']} = {v['ci']} + 1; end",
        f"  else begin {v['ci']} = 0; bw_{n}_exec(); end  // the CRC byte ends the frame",
        f"  case ({oph})",
        f"    {O_NCR}: begin {nxt} = 8'hff; {ocnt} = {ocnt} - 1; if ({ocnt} <= 0) {oph} = {O_R1}; end",
        f"    {O_R1}: begin {nxt} = {v['r1']}; if ({v['extn']} > 0) {oph} = {O_EXT};",
        f"      else if ({v['dlen']} > 0) begin {oph} = {O_GAP}; {ocnt} = 1 + bw_{n}_draw(8); end else {oph} = {O_IDLE};",
        "    end",
        f"    {O_EXT}: begin {nxt} = {v['ext']}[31:24]; {v['ext']} = {v['ext']} << 8; {v['extn']} = {v['extn']} - 1; "
        f"if ({v['extn']} == 0) {oph} = {O_IDLE}; end",
        f"    {O_GAP}: begin {nxt} = 8'hff; {ocnt} = {ocnt} - 1; if ({ocnt} <= 0) {oph} = {O_TOKEN}; end",
        f"    {O_TOKEN}: if (bw_{n}_draw(16) == 1) begin {nxt} = 8'h08; {v['dlen']} = 0; {v['multi']} = 1'b0; "
        f"{oph} = {O_IDLE}; end  // an error token",
        f"      else begin {nxt} = 8'hfe; {oph} = {O_DATA}; {ocnt} = {v['dlen']}; {crc} = '0; end",
        f"    {O_DATA}: begin {nxt} = {mem}; {v['ptr']} = {v['ptr']} + 1; bw_{n}_crc16({nxt}); {ocnt} = {ocnt} - 1; "
        f"if ({ocnt} == 0) begin {oph} = {O_CRC}; {ocnt} = 2; end end",
        # A rough card spoils one block in eight: its CRC's last byte is off by one bit.
        f"    {O_CRC}: begin if ({ocnt} == 2 && bw_{n}_draw(8) == 1) {crc} = {crc} ^ 16'h0001;",
        f"      {nxt} = {ocnt} == 2 ? {crc}[15:8] : {crc}[7:0]; {ocnt} = {ocnt} - 1;",
        f"      if ({ocnt} == 0) begin if ({v['multi']}) begin {oph} = {O_GAP}; {ocnt} = 1 + bw_{n}_draw(8); end "
        f"else begin {oph} = {O_IDLE}; {v['dlen']} = 0; end end",
        "    end",
        f"    {O_BUSY}: begin {nxt} = 8'h00; {ocnt} = {ocnt} - 1; if ({ocnt} <= 0) {oph} = {O_IDLE}; end",
        f"    {O_DRESP}: begin {nxt} = {v['dresp']}; {oph} = {O_BUSY}; {ocnt} = 2 + bw_{n}_draw(16); end",
        f"    default: {nxt} = 8'hff;",
        "  endcase",
        "endtask",
        f"task automatic bw_{n}_crc16(input logic [7:0] bw_b);  // CRC-16/XMODEM of a block, as the card sends it",
        f"  for (int bw_e = 7; bw_e >= 0; bw_e--) {crc} = {{{crc}[14:0], 1'b0}} ^ "
        f"(({crc}[15] ^ bw_b[bw_e]) ? 16'h1021 : 16'h0);",
        "endtask",
    ]
