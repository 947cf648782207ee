"""Interface recognition from port names, directions and widths (pure).

Ports are grouped by prefix after dropping direction decorations (`i_wb_cyc` -> `wb` +
`cyc`, `S_AXI_AWVALID` -> `s_axi` + `awvalid`, `mem_ready` -> `mem` + `ready`), and a group
whose roles and directions fit a protocol becomes an interface:

- a **bus** the design serves (the testbench is the master): Wishbone (cyc/stb/we/adr/dat/sel
  in, ack/stall/dat out), AXI4-Lite (aw/w/b/ar/r channels), APB (psel/penable/pwrite),
  AHB-Lite (`ahb.py`);
- a **responder** the testbench plays for the design's own requests: a memory interface
  (valid/req out, ready/ack in, addr out, rdata in, wdata/wstrb out), an AXI4(-Lite) master,
  a Wishbone master, an AHB-Lite manager;
- a **stream** into the design (valid in, ready out, data/last/keep/id/dest/user in) and a
  **sink** for a stream out of it (valid out, ready in);
- a **serial** input (rx, rxd, sin, ...) with its loopback partner (the design's tx) and bit
  periods mined from parameters and compared constants.

Every interface maps roles to the real port names, so the renderers never guess again.
The types and naming rules live in `iface.py`; AHB in `ahb.py`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from agent.heuristic.stimulus import Layout, Signal
from agent.program.ahb import ahb
from agent.program.i2c import i2c
from agent.program.iface import (
    AXI_ROLES,
    FIELD_ROLE,
    SERIAL_IN,
    SERIAL_OUT,
    SPLIT_DRIVEN,
    STREAM_ROLES,
    Iface,
    Interfaces,
    PortGroups,
    bare_name,
    clean_name,
    line_name,
    serial_line,
    split_name,
    stream_payload_roles,
    word_addresses,
)
from agent.program.isa import idioms, is_riscv, prologue, with_isa
from agent.program.serial_timing import serial_periods
from agent.program.spi import spi
from sim.analysis.rtl_facts import Condition
from sim.analysis.write_ports import WritePort

__all__ = ["AXI_ROLES", "FIELD_ROLE", "SERIAL_IN", "SERIAL_OUT", "SPLIT_DRIVEN", "STREAM_ROLES", "Iface", "Interfaces",
           "as_mask", "field_bits", "line_name", "one_hot_selects", "recognise", "split_name", "stream_payload_roles"]


def _wishbone(ports: PortGroups, prefix: str, mined: Mapping[str, Sequence[int]],
              lane_selects: Collection[str] = (), strobe: str = "") -> Iface | None:
    """A Wishbone slave under `prefix`; `strobe`: the group of one of its several strobes (see `_wishbone_spaces`)."""
    cyc, stb = ports.get(prefix, "cyc", "input"), ports.get(strobe or prefix, "stb", "input")
    ack = ports.get(prefix, "ack", "output")
    if stb is None or ack is None:
        return None
    roles = {"stb": stb.name, "ack": ack.name}
    if cyc is not None:
        roles["cyc"] = cyc.name
    for role, names, direction in (("we", ("we",), "input"), ("addr", ("adr", "addr", "address"), "input"),
                                   ("wdata", ("dat", "data", "wdata"), "input"), ("sel", ("sel",), "input"),
                                   ("stall", ("stall",), "output"), ("rdata", ("dat", "data", "rdata"), "output"),
                                   ("err", ("err",), "output")):
        found = ports.first(prefix, names, direction)
        if found is not None:
            roles[role] = found.name
    addr = ports.first(prefix, ("adr", "addr", "address"), "input")
    data = ports.first(prefix, ("dat", "data", "wdata"), "input")
    bits, dbits = (addr.width if addr else 0), (data.width if data else 0)
    # Wishbone addresses words: every address of a small space.
    addresses = word_addresses(bits, 8, mined.get(roles.get("addr", ""), ()))
    lanes = dbits // 8 if roles.get("sel") in lane_selects and dbits > 8 else 0
    # Byte lanes need address bits below the word for the lane (a byte address).
    lanes = lanes if lanes and bits > (lanes - 1).bit_length() else 0
    return Iface(clean_name(strobe or prefix), "wishbone", roles, dbits, bits, addresses, byte_lanes=lanes)


def _wishbone_spaces(ports: PortGroups, prefix: str, mined: Mapping[str, Sequence[int]],
                     lane_selects: Collection[str] = ()) -> list[Iface]:
    """One bus per strobe of a Wishbone slave with a strobe per address space, else [].

    ZipCPU's cores select a space by strobe (`i_wb_data_stb` for a flash's memory,
    `i_wb_ctrl_stb` for its registers) and share the cycle, address, data and acknowledge
    ports: each strobe is a bus of its own (`wb_data`, `wb_ctrl`) on the shared ports.
    """
    if not prefix or ports.get(prefix, "stb", "input") is not None or ports.get(prefix, "ack", "output") is None:
        return []
    groups = [g for g in sorted(ports.by_group) if g.startswith(prefix + "_") and ports.get(g, "stb", "input")]
    return [b for g in groups if (b := _wishbone(ports, prefix, mined, lane_selects, strobe=g)) is not None]


def _axi(ports: PortGroups, prefix: str, mined: Mapping[str, Sequence[int]]) -> Iface | None:
    """An AXI4(-Lite) slave (the design answers) or master (the design asks)."""
    slave = all(ports.get(prefix, r, "input") for r in ("awvalid", "wvalid", "arvalid")) and \
        all(ports.get(prefix, r, "output") for r in ("awready", "wready", "bvalid", "arready", "rvalid"))
    master = all(ports.get(prefix, r, "output") for r in ("awvalid", "wvalid", "arvalid")) and \
        all(ports.get(prefix, r, "input") for r in ("awready", "wready", "bvalid", "arready", "rvalid"))
    if not (slave or master):
        return None
    roles = {}
    for role in AXI_ROLES:
        found = ports.get(prefix, role, "input") or ports.get(prefix, role, "output")
        if found is not None:
            roles[role] = found.name
    addr = ports.first(prefix, ("awaddr",), "input" if slave else "output")
    data = ports.first(prefix, ("wdata",), "input" if slave else "output")
    bits, dbits = (addr.width if addr else 0), (data.width if data else 32)
    addresses = word_addresses(bits, dbits, mined.get(roles.get("awaddr", ""), ()))
    return Iface(clean_name(prefix), "axil" if slave else "axi_master", roles, dbits, bits, addresses)


def _apb(ports: PortGroups, prefix: str, mined: Mapping[str, Sequence[int]]) -> Iface | None:
    roles = {}
    for role, names, direction in (("sel", ("psel", "sel"), "input"), ("enable", ("penable", "enable"), "input"),
                                   ("write", ("pwrite", "write"), "input"), ("addr", ("paddr", "addr"), "input"),
                                   ("wdata", ("pwdata", "wdata"), "input"), ("strb", ("pstrb",), "input"),
                                   ("rdata", ("prdata", "rdata"), "output"), ("ready", ("pready",), "output"),
                                   ("slverr", ("pslverr",), "output")):
        found = ports.first(prefix, names, direction)
        if found is not None:
            roles[role] = found.name
    if not {"sel", "enable", "write"} <= set(roles) or not (roles["enable"].lower().endswith("penable")
                                                             or roles["sel"].lower().endswith("psel")):
        return None
    addr = ports.first(prefix, ("paddr", "addr"), "input")
    data = ports.first(prefix, ("pwdata", "wdata"), "input")
    bits, dbits = (addr.width if addr else 0), (data.width if data else 0)
    return Iface(clean_name(prefix), "apb", roles, dbits, bits, word_addresses(bits, dbits, mined.get(roles.get("addr", ""), ())))


MEMORY_KINDS = ("mem", "split", "axi_master", "wb_master", "ahb_master", "avalon_host", "apb_master")
"""Responders answered from a memory model: where a CPU's instructions come from."""

AVALON_ROLES: tuple[tuple[str, str, str], ...] = (
    ("addr", "address", "input"), ("read", "read", "input"), ("write", "write", "input"),
    ("wdata", "writedata", "input"), ("rdata", "readdata", "output"), ("wait", "waitrequest", "output"),
    ("rvalid", "readdatavalid", "output"), ("strb", "byteenable", "input"), ("cs", "chipselect", "input"),
    ("burst", "burstcount", "input"), ("resp", "response", "output"),
)
"""Our Avalon-MM agent roles: (role, the signal's Avalon name, its direction at the agent)."""


def _avalon(ports: PortGroups, prefix: str, mined: Mapping[str, Sequence[int]]) -> Iface | None:
    """An Avalon-MM agent (slave) the design serves: `address`, `read`/`write` in.

    Avalon's own `readdata`/`writedata` names tell it from any read/write pair, whatever the
    prefix (`avs_s0_`).
    """
    roles = {}
    for role, name, direction in AVALON_ROLES:
        found = ports.get(prefix, name, direction)
        if found is not None:
            roles[role] = found.name
    if "addr" not in roles or not {"read", "write"} & set(roles) or not {"wdata", "rdata"} & set(roles):
        return None
    addr, data = ports.get(prefix, "address", "input"), ports.get(prefix, "writedata", "input")
    read = ports.get(prefix, "readdata", "output")
    bits = addr.width if addr else 0
    dbits = data.width if data else (read.width if read else 32)
    # An agent's address counts words (Avalon's default `addressUnits`): every one is a register.
    # `avs_s0_bus`, not `avs_s0`: the task `avs_s0_write` would clash with the port of that name.
    name = f"{clean_name(prefix)}_bus" if prefix else clean_name(prefix)
    return Iface(name, "avalon", roles, dbits, bits, word_addresses(bits, 8, mined.get(roles["addr"], ())))


def _apb_master(ports: PortGroups, prefix: str) -> Iface | None:
    """An APB requester: the design drives `psel`/`penable` and waits on `pready` (a bridge's far side)."""
    roles = {}
    for role, names, direction in (("sel", ("psel", "sel"), "output"), ("enable", ("penable",), "output"),
                                   ("write", ("pwrite", "write"), "output"), ("addr", ("paddr", "addr"), "output"),
                                   ("wdata", ("pwdata", "wdata"), "output"), ("strb", ("pstrb",), "output"),
                                   ("rdata", ("prdata", "rdata"), "input"), ("ready", ("pready",), "input"),
                                   ("slverr", ("pslverr",), "input")):
        found = ports.first(prefix, names, direction)
        if found is not None:
            roles[role] = found.name
    if not {"sel", "enable", "addr"} <= set(roles) or not roles["enable"].lower().endswith("penable"):
        return None
    addr, data = ports.first(prefix, ("paddr", "addr"), "output"), ports.first(prefix, ("pwdata", "wdata"), "output")
    return Iface(clean_name(prefix), "apb_master", roles, data.width if data else 32, addr.width if addr else 0)


def _avalon_host(ports: PortGroups, prefix: str) -> Iface | None:
    """An Avalon-MM host: the design drives `address` and `read`/`write`, the agent answers (`waitrequest`)."""
    roles = {}
    for role, name, direction in AVALON_ROLES:
        other = {"input": "output", "output": "input"}[direction]  # every direction the other way round
        found = ports.get(prefix, name, other)
        if found is not None:
            roles[role] = found.name
    if "addr" not in roles or not {"read", "write"} & set(roles) or not {"wdata", "rdata"} & set(roles):
        return None
    addr, data = ports.get(prefix, "address", "output"), ports.get(prefix, "writedata", "output")
    read = ports.get(prefix, "readdata", "input")
    dbits = data.width if data else (read.width if read else 32)
    return Iface(clean_name(prefix), "avalon_host", roles, dbits, addr.width if addr else 0)


def _mem_responder(ports: PortGroups, prefix: str) -> Iface | None:
    """valid/req out + ready/ack in (+ addr out, rdata in, wdata/wstrb out): answer from a memory."""
    valid = ports.first(prefix, ("valid", "req", "request", "vld", "en"), "output")
    ready = ports.first(prefix, ("ready", "ack", "gnt", "rdy", "done"), "input")
    if valid is None or ready is None or valid.width != 1 or ready.width != 1:
        return None
    roles = {"valid": valid.name, "ready": ready.name}
    for role, names, direction in (("addr", ("addr", "address", "adr"), "output"),
                                   ("rdata", ("rdata", "data", "rdat", "dat", "din", "rd"), "input"),
                                   ("wdata", ("wdata", "wdat", "dout", "wd"), "output"),
                                   ("wstrb", ("wstrb", "be", "sel", "wmask", "strb"), "output"),
                                   ("we", ("we", "write", "wr", "wen"), "output"),
                                   ("instr", ("instr", "ifetch", "fetch"), "output")):
        found = ports.first(prefix, names, direction)
        if found is not None:
            roles[role] = found.name
    rdata = ports.first(prefix, ("rdata", "data", "rdat", "dat", "din", "rd"), "input")
    addr = ports.first(prefix, ("addr", "address", "adr"), "output")
    kind = "mem" if rdata is not None and addr is not None else "reqack"
    return Iface(clean_name(prefix) or "mem", kind, roles, rdata.width if rdata else 0, addr.width if addr else 0)


SPLIT_ACCEPT = ("accept", "gnt", "grant", "req_ready", "cmd_ready")
"""Names of the input that takes a split-transaction request (the port is found by it)."""

SPLIT_ROLES = (("request", ("rd", "req", "request", "read", "valid", "vld"), "output"),
               ("accept", SPLIT_ACCEPT, "input"),
               ("resp", ("ack", "valid", "resp_valid", "rsp_valid", "rvalid"), "input"),
               ("addr", ("addr", "pc", "address", "adr"), "output"),
               ("rdata", ("data_rd", "rdata", "rd_data", "inst", "instr", "insn", "resp_data", "data"), "input"),
               ("wdata", ("data_wr", "wdata", "wr_data", "data"), "output"),
               ("wstrb", ("wr", "wstrb", "be"), "output"),
               ("we", ("we", "wr_en", "write"), "output"),
               ("tag", ("req_tag", "tag", "id"), "output"),
               ("rtag", ("resp_tag", "rsp_tag", "tag", "id"), "input"),
               ("err", ("error", "err", "resp_error"), "input"),
               ("flush", ("flush",), "output"), ("invalidate", ("invalidate",), "output"),
               ("writeback", ("writeback",), "output"))
"""Split-transaction port roles -> names after the interface's prefix (`mem_d_data_rd_i` -> `data_rd`)."""

def _split_responder(layout: Layout, prefix: str) -> Iface | None:
    """A split-transaction memory port: a request taken while `accept` is high, answered later.

    The request (`rd`/`req`, or any write strobe when there is no `we`) is accepted on a clock
    where the design asserts it and the responder's `accept` is high; a later clock raises the
    response valid (`ack`, `valid`, `rvalid`) with the read word and the request's tag echoed
    (ultraembedded's `mem_i_*`/`mem_d_*` ports; OBI's `req`/`gnt`/`rvalid`, whose byte enables
    are set on reads too, so its `we` says what writes). Roles are the whole rest of the name after the prefix, since
    `split_name` would cut `data_rd` in two.
    """
    found: dict[str, Signal] = {}
    under: dict[tuple[str, str], Signal] = {}
    for s in layout.ports:
        low = bare_name(s.name, s.direction)
        if low.startswith(prefix + "_"):
            under[(low[len(prefix) + 1:], s.direction)] = s
    for role, names, direction in SPLIT_ROLES:
        hit = next((under[(n, direction)] for n in names if (n, direction) in under), None)
        if hit is not None and hit not in found.values():
            found[role] = hit
    one_bit = all(found[r].width == 1 for r in ("request", "accept", "resp", "we") if r in found)
    if not {"request", "accept", "resp", "addr"} <= set(found) or not one_bit or \
            not {"rdata", "wdata"} & set(found):
        return None
    data = found.get("rdata") or found["wdata"]
    return Iface(clean_name(prefix), "split", {r: s.name for r, s in found.items()}, data.width, found["addr"].width)


def _split_prefixes(layout: Layout) -> list[str]:
    """Prefixes of inputs named like a split-transaction `accept` (`mem_i_accept_i` -> `mem_i`)."""
    out = []
    for s in layout.ports:
        low = bare_name(s.name, s.direction)
        for name in SPLIT_ACCEPT:
            if s.direction == "input" and s.width == 1 and low.endswith("_" + name):
                out.append(low[: -len(name) - 1])
    return sorted(set(out))


def _wb_master(ports: PortGroups, prefix: str) -> Iface | None:
    stb, ack = ports.get(prefix, "stb", "output"), ports.get(prefix, "ack", "input")
    if stb is None or ack is None:
        return None
    roles = {"stb": stb.name, "ack": ack.name}
    for role, names, direction in (("cyc", ("cyc",), "output"), ("we", ("we",), "output"),
                                   ("addr", ("adr", "addr"), "output"), ("wdata", ("dat", "data"), "output"),
                                   ("sel", ("sel",), "output"), ("stall", ("stall",), "input"),
                                   ("rdata", ("dat", "data"), "input"), ("err", ("err",), "input")):
        found = ports.first(prefix, names, direction)
        if found is not None:
            roles[role] = found.name
    data = ports.first(prefix, ("dat", "data"), "input")
    addr = ports.first(prefix, ("adr", "addr"), "output")
    return Iface(clean_name(prefix), "wb_master", roles, data.width if data else 0, addr.width if addr else 0)


def _stream(ports: PortGroups, prefix: str, into: bool) -> Iface | None:
    """A valid/ready stream into the design (`into`) or out of it."""
    d_in, d_out = ("input", "output") if into else ("output", "input")
    valid = ports.first(prefix, ("tvalid", "valid", "vld"), d_in)
    ready = ports.first(prefix, ("tready", "ready", "rdy"), d_out)
    if valid is None or ready is None:
        return None
    roles = {"valid": valid.name, "ready": ready.name}
    for role, names in (("data", ("tdata", "data", "din", "dat", "payload")), ("last", ("tlast", "last", "eop")),
                        ("keep", ("tkeep",)), ("strb", ("tstrb",)), ("id", ("tid",)), ("dest", ("tdest",)),
                        ("user", ("tuser",))):
        found = ports.first(prefix, names, d_in)
        if found is not None:
            roles[role] = found.name
    if into and prefix:
        # Other inputs under the stream's prefix travel with each beat (i2c_master's command
        # stream carries address, start, read, write, stop as separate ports, no tdata).
        taken = set(roles.values())
        extra = sorted(p.name for group in ports.by_group.values() for key, p in group.items()
                       if key.endswith(":input") and p.name.startswith(prefix) and p.name not in taken)
        roles.update({f"{FIELD_ROLE}{k}": n for k, n in enumerate(extra)})
    data = ports.first(prefix, ("tdata", "data", "din", "dat", "payload"), d_in)
    name = clean_name(prefix) or ("in" if into else "out")
    return Iface(name, "stream" if into else "sink", roles, data.width if data else 0, lanes=valid.width)


def one_hot_selects(conditions: Iterable[Condition], upstream: Mapping[str, tuple[str, ...]],
                    resets: Collection[str] = ()) -> frozenset[str]:
    """Inputs a case statement decodes by one-hot values, directly or through register copies.

    A 16550 on a 32-bit Wishbone bus keeps its byte registers at one word address and picks
    one by `case (wb_sel_is) 4'b0001: ... 4'b0010: ...` on a registered copy of `wb_sel_i`:
    its `sel` is part of the register address, not a byte enable. A case counts when its items
    are one-hot values (at least two; besides them only all those lanes at once) and its subject
    comes from a single input (resets aside).
    """
    out: set[str] = set()
    for c in conditions:
        one_hot = [v for v in c.constants if v > 0 and v & (v - 1) == 0]
        whole = sum(one_hot)
        # every item one lane (or all of them: uart16550 also decodes 4'b1111)
        if c.kind != "case" or len(one_hot) < 2 or any(v not in one_hot and v != whole for v in c.constants):
            continue
        inputs = set(c.signals)
        if not inputs:
            # A register copy: its inputs come from the register stages before it.
            names = [k for k in upstream if k == c.text or k.endswith("." + c.text)]
            inputs = {i for k in names for i in upstream[k]}
        inputs -= set(resets)
        if len(inputs) == 1:
            out |= inputs
    return frozenset(out)


def recognise(layout: Layout, *, params: Mapping[str, int] | None = None,
              constants: Mapping[str, Sequence[int]] | None = None,
              write_ports: Sequence[WritePort] = (),
              slices: Mapping[str, tuple[tuple[int, int, tuple[int, ...]], ...]] | None = None,
              templates: Mapping[str, tuple[tuple[tuple[int, int, int], ...], ...]] | None = None,
              lane_selects: Collection[str] = (), counters: Sequence[int] = (),
              commands: Sequence[int] = (), wide: Sequence[int] = (),
              i2c_addresses: Sequence[int] = ()) -> Interfaces:
    """Every interface of a design, from its layout, parameter values and mined constants.

    `lane_selects`: inputs the design decodes by one-hot values (`one_hot_selects`); a Wishbone
    `sel` among them makes its bus one of byte registers on lanes (`Iface.byte_lanes`).
    `counters`: the values clock counters are compared with (`counter_limits`), for bit periods.
    `commands`: the byte values the design compares bytes with (`command_bytes`); a serial input
    of a design with no bus to configure it (a command bridge) gets them as its `words`.
    `wide`: the multi-byte values the design compares registers with (`wide_operands`); such a
    serial input gets them as its `addresses`.
    `i2c_addresses`: the design's own I2C target addresses (`i2c.target_addresses`).
    """
    ports = PortGroups(layout)
    mined = constants or {}
    buses: list[Iface] = []
    responders: list[Iface] = []
    streams: list[Iface] = []
    sinks: list[Iface] = []
    taken: set[str] = set()

    def claim(iface: Iface | None, into: list[Iface]) -> None:
        if iface is None or any(p in taken for p in iface.roles.values()):
            return
        names = {i.name for i in (*buses, *responders, *streams, *sinks)}
        if iface.name in names:
            iface = replace(iface, name=f"{iface.name}{len(names)}")
        taken.update(iface.roles.values())
        into.append(iface)

    for prefix in sorted(ports.by_group):
        claim(_axi(ports, prefix, mined), buses)
        claim(ahb(ports, prefix, mined), buses)
    for iface in list(buses):
        if iface.kind in ("axi_master", "ahb_master"):
            buses.remove(iface)
            responders.append(iface)
    for prefix in sorted(ports.by_group):
        claim(_wishbone(ports, prefix, mined, lane_selects), buses)
        spaces = _wishbone_spaces(ports, prefix, mined, lane_selects)
        for space in spaces if not any(p in taken for b in spaces for p in b.roles.values()) else ():
            buses.append(space)  # the spaces share their ports: claimed together
        taken.update(p for b in spaces for p in b.roles.values())
        claim(_wb_master(ports, prefix), responders)
        claim(_apb(ports, prefix, mined), buses)
        claim(_avalon(ports, prefix, mined), buses)
        claim(_apb_master(ports, prefix), responders)
        claim(_avalon_host(ports, prefix), responders)
    claim(i2c(layout, taken, i2c_addresses), responders)
    claim(spi(layout, taken), responders)
    # A memory interface (valid/ready plus an address out and read data in) before streams:
    # picorv32's mem_valid/mem_ready would otherwise read as a stream out of the design.
    for prefix in _split_prefixes(layout):
        claim(_split_responder(layout, prefix), responders)
    for prefix in sorted(ports.by_group):
        found = _mem_responder(ports, prefix)
        if found is not None and found.kind == "mem":
            claim(found, responders)
    for prefix in sorted(ports.by_group):
        claim(_stream(ports, prefix, True), streams)
        claim(_stream(ports, prefix, False), sinks)
    for prefix in sorted(ports.by_group):
        claim(_mem_responder(ports, prefix), responders)
    values = [*(mined.get("*", ()) if "*" in mined else ())]
    period_list = serial_periods(params or {}, values, counters)
    outputs = [s for s in layout.ports if s.direction == "output" and s.width == 1 and serial_line(s.name, SERIAL_OUT)]
    serials: list[Iface] = []
    for f in layout.fields:
        if f.width != 1 or f.reset or f.name in taken or not serial_line(f.name, SERIAL_IN):
            continue
        partner = min(outputs, key=lambda s: _distance(s.name, f.name)).name if outputs else ""
        serials.append(Iface(clean_name(line_name(f.name)), "serial", {"pin": f.name}, periods=period_list,
                             partner=partner, words=() if buses else tuple(commands),
                             addresses=() if buses or not commands else tuple(wide)))
    names = {f.name for f in layout.fields}
    bus_ports = {p for b in buses for p in b.roles.values()}
    # Registers behind a recognised bus's decoder are written with bus transactions instead.
    usable = [p for p in write_ports if p.address in names | {""} and all(n in names for n, _ in p.enable)
              and any(d[0] in names for d in p.data)
              and not ({p.address, *(n for n, _ in p.enable), *(d[0] for d in p.data)} & bus_ports)]
    port_names: list[tuple[str, WritePort]] = []
    for p in usable:
        base = clean_name(p.storage.replace(".", "_"))
        name = base if base not in dict(port_names) else f"{base}_{len(port_names)}"
        port_names.append((name, p))
    decoded = slices or {}
    known = templates or {}
    # A RISC-V core whose decoder the netlist hides behind its front end gets the ISA's encodings.
    literals = set(mined.get("*", ()))
    riscv = is_riscv(literals)
    cpu_memories = {r.name for r in responders if riscv and r.port("rdata") and r.kind in MEMORY_KINDS}
    responders = [replace(r, slices=decoded.get(r.port("rdata"), ()),
                          prologue=prologue(r.data_bits, literals) if r.name in cpu_memories else (),
                          idioms=idioms(r.data_bits, literals) if r.name in cpu_memories else ())
                  for r in responders]
    for k, r in enumerate(responders):
        decoded_by, lanes = with_isa([as_mask(t) for t in known.get(r.port("rdata"), ())], r.data_bits, literals)
        responders[k] = replace(r, templates=decoded_by, template_lanes=lanes) if r.port("rdata") else \
            replace(r, templates=())
    return Interfaces(tuple(buses), tuple(responders), tuple(streams), tuple(sinks), tuple(serials),
                      tuple(port_names))


def as_mask(template: Sequence[tuple[int, int, int]]) -> tuple[int, int]:
    """(mask, value) of a template's (lsb, width, value) fields."""
    mask = value = 0
    for lsb, width, v in template:
        field_mask = ((1 << width) - 1) << lsb
        mask |= field_mask
        value = (value & ~field_mask) | ((v << lsb) & field_mask)
    return mask, value


def _distance(a: str, b: str) -> int:
    """How different two names are once tx/rx are ignored (pairs `o_uart_tx` with `i_uart_rx`)."""
    def norm(s: str) -> str:
        return re.sub(r"(tx|rx|txd|rxd|sout|sin|sdo|sdi)", "", line_name(s))
    x, y = norm(a), norm(b)
    return 0 if x == y else 1 + abs(len(x) - len(y))


def field_bits(iface: Iface, role: str, layout: Layout) -> int:
    """Width of the port playing `role` (0 when absent)."""
    name = iface.port(role)
    for s in layout.ports:
        if s.name == name:
            return s.width
    return 0
