"""Which driver serves each interface in a rendered cocotb test, and the Python that builds it (pure).

An interface goes to a cocotbext driver when the extension can take its ports as they are
(the roles it requires are all there, at the widths it asserts); otherwise to the
hand-written driver that mirrors the SV task. cocotbext finds signals by attribute name,
so each extension-driven interface gets a small class presenting its ports under the
role names the extension looks up (`Iface.roles` maps role -> real port; nothing is guessed
from prefixes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from agent.program import cocotb_devices as dev
from agent.program import cocotb_drivers as drv
from agent.program import cocotb_hosts as hosts
from agent.program import cocotb_responders as rsp
from agent.program import sv_i2c
from agent.program.cocotb_lib import MEMORY, PORTS, hex_tuple, py_tuple
from agent.program.i2c import addresses_host
from agent.program.iface import DRIVEN_ROLES
from agent.program.interfaces import (
    FIELD_ROLE,
    Iface,
    stream_payload_roles,
)
from agent.program.sv_ahb import size_code
from agent.program.sv_responders import (
    decode_order,
    split_byte_strobes,
    split_requests,
    split_writes,
)
from agent.program.target import SPLIT_QUEUE, Target

AXIL_ROLES = ("awaddr", "awvalid", "awready", "wdata", "wvalid", "wready", "bvalid", "bready", "araddr", "arvalid",
              "arready", "rdata", "rvalid", "rready")
"""Ports cocotbext-axi's AxiLiteBus requires."""

AXIL_OPTIONAL = ("awprot", "wstrb", "bresp", "arprot", "rresp")
"""Ports AxiLiteBus takes when present."""

AXI_ROLES = (*AXIL_ROLES, "awid", "awlen", "awsize", "awburst", "wlast", "bid", "arid", "arlen", "arsize", "arburst",
             "rid", "rlast")
"""Ports cocotbext-axi's AxiBus requires."""

AXI_OPTIONAL = ("awlock", "awcache", "awprot", "awqos", "wstrb", "bresp", "arlock", "arcache", "arprot", "arqos", "rresp")
"""Ports AxiBus takes when present (and recognised)."""

FIXED_WIDTHS = {"awprot": 3, "arprot": 3, "bresp": 2, "rresp": 2, "awlen": 8, "arlen": 8, "awsize": 3, "arsize": 3,
                "awburst": 2, "arburst": 2, "awlock": 1, "arlock": 1, "awcache": 4, "arcache": 4, "awqos": 4,
                "arqos": 4, "wlast": 1, "rlast": 1}
"""Widths cocotbext-axi asserts for these AXI ports (valid/ready: 1)."""

APB_ROLES = {"addr": "paddr", "sel": "psel", "enable": "penable", "write": "pwrite", "wdata": "pwdata",
             "strb": "pstrb", "ready": "pready", "rdata": "prdata"}
"""Our APB roles -> the signals cocotbext-axi's ApbBus requires."""

STREAM_ATTRS = {"data": "tdata", "valid": "tvalid", "ready": "tready", "last": "tlast", "keep": "tkeep", "id": "tid",
                "dest": "tdest", "user": "tuser"}
"""Our stream roles -> AxiStreamBus signal names (tstrb has none: the test drives it)."""

AXIL_EXTRAS = (("awlen", 0), ("awsize", -1), ("awburst", 1), ("awid", 0), ("wlast", 1), ("arlen", 0),
               ("arsize", -1), ("arburst", 1), ("arid", 0))
"""AXI4 inputs of a slave AxiLiteMaster leaves alone, with the SV task's values (-1: the bus's size code)."""



@dataclass(frozen=True)
class DriverPlan:
    """How the test drives one interface, write port or loopback."""

    key: str
    """Name `Bench.driver` knows it by (`s_axi`, `port:mem`, `loopback:rx`)."""
    factory: str
    """Python expression building the driver from `bw` and `dut`."""
    texts: tuple[str, ...] = ()
    """Runtime texts the driver needs (constants of the driver modules), in order."""
    imports: tuple[str, ...] = ()
    """`from cocotbext... import ...` names it needs, as (module, name) joined by a space."""
    prelude: tuple[str, ...] = ()
    """Module-level lines it needs (the class presenting its ports to cocotbext)."""
    extension: str = ""
    """The cocotbext class that drives it ('' when the driver is hand-written)."""


def bits_of(t: Target, port: str) -> int:
    """Packed width of a port (0 when the design has none of that name)."""
    return next((s.width for s in t.layout.ports if s.name == port), 0)


def _fits(t: Target, iface: Iface, roles: Sequence[str]) -> bool:
    """Every role is there, and those with widths cocotbext asserts have them."""
    for role in roles:
        if role not in iface.roles:
            return False
        want = 1 if role.endswith(("valid", "ready")) else FIXED_WIDTHS.get(role)
        if want is not None and bits_of(t, iface.roles[role]) != want:
            return False
    return True


def _lanes_fit(t: Target, iface: Iface, data_role: str, strobe_role: str) -> bool:
    """Whole bytes of data, one strobe bit per byte when there are strobes."""
    dw = bits_of(t, iface.roles[data_role])
    strobes = iface.roles.get(strobe_role)
    return dw >= 8 and dw % 8 == 0 and (strobes is None or bits_of(t, strobes) == dw // 8)


def _class_name(name: str) -> str:
    camel = "".join(part.capitalize() for part in name.split("_") if part) or "Bus"
    return ("P" + camel if camel[0].isdigit() else camel) + "Ports"


def ports_class(iface: Iface, attrs: Mapping[str, str]) -> tuple[str, ...]:
    """A class presenting an interface's ports under cocotbext's signal names (attribute -> port)."""
    name = _class_name(iface.name)
    lines = ["", "", f"class {name}:",
             f'    """{iface.name}\'s ports under the signal names cocotbext looks up (role -> port)."""', "",
             "    def __init__(self, dut):", "        self._log = dut._log", f'        self._name = "bw.{iface.name}"']
    lines += [f"        self.{attr} = dut[{port!r}]" for attr, port in attrs.items()]
    return tuple(lines)


def _inputs(t: Target, iface: Iface) -> tuple[str, ...]:
    """The interface's ports the program can drive (fields)."""
    fields = {f.name for f in t.fields}
    return tuple(p for p in iface.roles.values() if p in fields)


def _roles(iface: Iface) -> str:
    return repr(dict(iface.roles))


def bus_plan(t: Target, bus: Iface) -> DriverPlan:
    """A bus the design serves: cocotbext AxiLiteMaster/ApbMaster, or a hand-written master."""
    dw = max(1, bus.data_bits)
    if bus.kind == "axil" and _fits(t, bus, AXIL_ROLES) and _lanes_fit(t, bus, "wdata", "wstrb"):
        optional = [r for r in AXIL_OPTIONAL if r in bus.roles and _fits(t, bus, (r,))]
        attrs = {r: bus.roles[r] for r in (*AXIL_ROLES, *optional)}
        size = max(0, (dw // 8).bit_length() - 1)
        extras = tuple((bus.roles[r], size if v < 0 else v) for r, v in AXIL_EXTRAS if r in bus.roles)
        factory = (f"AxiLiteBusMaster(bw, {_class_name(bus.name)}(dut), {py_tuple(extras)}, "
                   f"{py_tuple(_inputs(t, bus))}, {dw // 8}, {max(1, bus.addr_bits)})")
        return DriverPlan(bus.name, factory, (drv.GUARDED, drv.AXIL_EXT), ("cocotbext.axi AxiLiteBus",
                                                                            "cocotbext.axi AxiLiteMaster"),
                          ports_class(bus, attrs), "AxiLiteMaster")
    if bus.kind == "apb" and all(r in bus.roles for r in APB_ROLES) and _lanes_fit(t, bus, "wdata", "strb"):
        attrs = {APB_ROLES[r]: bus.roles[r] for r in APB_ROLES}
        if "slverr" in bus.roles and bits_of(t, bus.roles["slverr"]) == 1:
            attrs["pslverr"] = bus.roles["slverr"]
        factory = (f"ApbBusMaster(bw, {_class_name(bus.name)}(dut), {py_tuple(_inputs(t, bus))}, {dw // 8}, "
                   f"{max(1, bus.addr_bits)})")
        return DriverPlan(bus.name, factory, (drv.GUARDED, drv.APB_EXT), ("cocotbext.axi ApbBus",
                                                                           "cocotbext.axi ApbMaster"),
                          ports_class(bus, attrs), "ApbMaster")
    if bus.kind == "axil":
        size = max(0, (dw // 8).bit_length() - 1)
        return DriverPlan(bus.name, f"AxiLiteHandMaster(bw, {_roles(bus)}, {size})", (drv.AXIL,))
    if bus.kind == "apb":
        return DriverPlan(bus.name, f"ApbHandMaster(bw, {_roles(bus)})", (drv.HAND, drv.APB))
    if bus.kind == "ahb":
        return DriverPlan(bus.name, f"AhbHandMaster(bw, {_roles(bus)}, {max(1, dw // 8)}, {size_code(dw)})", (drv.AHB,))
    if bus.kind == "avalon":
        return DriverPlan(bus.name, f"AvalonHandMaster(bw, {_roles(bus)})", (drv.HAND, drv.AVALON))
    lanes = f", lanes={bus.byte_lanes}" if bus.byte_lanes else ""
    return DriverPlan(bus.name, f"WishboneMaster(bw, {_roles(bus)}{lanes})", (drv.WISHBONE,))


def payload(t: Target, s: Iface) -> tuple[tuple[str, str, int, int, bool], ...]:
    """(role, port, bits, palette field index or -1, all ones) of a stream's beat values, in draw order."""
    out = []
    for role in stream_payload_roles(s):
        port = s.roles[role]
        idx = t.layout.index(port)
        pal = t.palette(t.fields[idx]) if idx is not None and role != "data" else ()
        out.append((role, port, bits_of(t, port), idx if pal and idx is not None else -1, role in ("keep", "strb")))
    return tuple(out)


def _stream_ext(t: Target, s: Iface) -> bool:
    if s.lanes != 1 or "data" not in s.roles or not _fits(t, s, ("valid", "ready")):
        return False
    if any(r.startswith(FIELD_ROLE) for r in s.roles):  # AxiStreamFrame carries no other fields
        return False
    dw = bits_of(t, s.roles["data"])
    keep = bits_of(t, s.roles["keep"]) if "keep" in s.roles else 0
    last_ok = "last" not in s.roles or bits_of(t, s.roles["last"]) == 1
    return dw > 0 and last_ok and (keep == 0 or dw % keep == 0)


def _stream_attrs(s: Iface) -> dict[str, str]:
    return {attr: s.roles[role] for role, attr in STREAM_ATTRS.items() if role in s.roles}


def _stream_options(t: Target, s: Iface) -> str:
    """`byte_lanes=1` without tkeep: one beat is one unit of any width (cocotbext needs whole bytes otherwise)."""
    return "" if "keep" in s.roles else ", byte_lanes=1"


def stream_plan(t: Target, s: Iface) -> DriverPlan:
    """A stream into the design: cocotbext AxiStreamSource, or the hand-written source (stream vectors)."""
    beat = payload(t, s)
    if _stream_ext(t, s):
        dw = bits_of(t, s.roles["data"])
        units = bits_of(t, s.roles["keep"]) if "keep" in s.roles else 1
        strobes = (s.roles["strb"],) if "strb" in s.roles else ()
        factory = (f"StreamSource(bw, {_class_name(s.name)}(dut), {py_tuple(beat)}, {py_tuple(_inputs(t, s))}, "
                   f"{units}, {dw // units}, {py_tuple(strobes)}{_stream_options(t, s)})")
        return DriverPlan(s.name, factory, (drv.GUARDED, drv.PAYLOAD, drv.STREAM_EXT),
                          ("cocotbext.axi AxiStreamBus", "cocotbext.axi AxiStreamFrame", "cocotbext.axi AxiStreamSource"),
                          ports_class(s, _stream_attrs(s)), "AxiStreamSource")
    return DriverPlan(s.name, f"StreamHandSource(bw, {_roles(s)}, {s.lanes}, {py_tuple(beat)})",
                      (drv.PAYLOAD, drv.STREAM))


def sink_plan(t: Target, s: Iface) -> DriverPlan:
    """A stream out of the design: cocotbext AxiStreamSink, or the ready throttle."""
    ready = s.roles["ready"]
    if _stream_ext(t, s):
        factory = f"StreamSink(bw, {_class_name(s.name)}(dut), {ready!r}{_stream_options(t, s)})"
        return DriverPlan(s.name, factory, (drv.SINK_EXT,), ("cocotbext.axi AxiStreamBus", "cocotbext.axi AxiStreamSink"),
                          ports_class(s, _stream_attrs(s)), "AxiStreamSink")
    return DriverPlan(s.name, f"SinkThrottle(bw, {ready!r})", (drv.SINK,))


def _memory_args(r: Iface) -> str:
    """dw, decoder templates and decoded fields of a responder's memory model."""
    dw = max(8, r.data_bits or 32)
    fields = () if r.templates else decode_order(r)
    return f"{dw}, {py_tuple(r.templates)}, {py_tuple(fields)}"


def responder_plan(t: Target, r: Iface) -> DriverPlan:
    """A request interface of the design: cocotbext AxiRam/AxiLiteRam, or a hand-written responder."""
    plan = _responder_plan(t, r)
    if r.prologue:  # every memory responder's text has `start_with`
        idioms = f", {hex_tuple(r.idioms)}" if r.idioms else ""
        plan = replace(plan, factory=f"{plan.factory}.start_with({hex_tuple(r.prologue)}{idioms})")
    if r.template_lanes > 1:  # ... and `per_lane`
        plan = replace(plan, factory=f"{plan.factory}.per_lane({r.template_lanes})")
    return plan


def _responder_plan(t: Target, r: Iface) -> DriverPlan:
    driven = tuple(role for role in DRIVEN_ROLES.get(r.kind, ()) if role in r.roles)
    base = (MEMORY, rsp.RESPONDER_BASE)
    if r.kind == "axi_master":
        full = _fits(t, r, AXI_ROLES)
        lite = not full and _fits(t, r, AXIL_ROLES) and not {"awlen", "arlen", "wlast", "rlast"} & set(r.roles)
        dw = max(8, r.data_bits or 32)
        if (full or lite) and _lanes_fit(t, r, "wdata", "wstrb") and bits_of(t, r.roles["rdata"]) == dw:
            names = (*(AXI_ROLES if full else AXIL_ROLES), *(AXI_OPTIONAL if full else AXIL_OPTIONAL))
            attrs = {n: r.roles[n] for n in names if n in r.roles and _fits(t, r, (n,))}
            ram, bus = ("AxiRam", "AxiBus") if full else ("AxiLiteRam", "AxiLiteBus")
            ports = tuple(r.roles[n] for n in driven if n in attrs)
            factory = (f"AxiRamResponder(bw, {ram}({bus}.from_entity({_class_name(r.name)}(dut)), bw.clock, "
                       f"size=MEM_WORDS * {dw // 8}), {py_tuple(ports)}, {_memory_args(r)})")
            return DriverPlan(r.name, factory, (MEMORY, rsp.AXI_RESP_EXT), (f"cocotbext.axi {bus}", f"cocotbext.axi {ram}"),
                              ports_class(r, attrs), ram)
        cls, text = "AxiHandResponder", rsp.AXI_RESP
    elif r.kind == "wb_master":
        cls, text = "WishboneResponder", rsp.WB_RESP
    elif r.kind == "ahb_master":
        cls, text = "AhbResponder", rsp.AHB_RESP
    elif r.kind == "apb_master":
        cls, text = "ApbResponder", hosts.APB_RESP
    elif r.kind == "avalon_host":
        cls, text = "AvalonResponder", hosts.AVALON_RESP
    elif r.kind == "i2c":
        rules = f"{sv_i2c.OTHER_MASTER}, {sv_i2c.OTHER_EVERY}, {sv_i2c.ARBITRATION_EVERY}"
        host = (f".host({py_tuple(r.addresses)}, {sv_i2c.TARGET_EVERY}, {sv_i2c.HOST_WAIT})"
                if addresses_host(r) else "")
        factory = f"I2cTarget(bw, {_roles(r)}, {_memory_args(r)}, {py_tuple(driven)}).rules({rules}){host}"
        return DriverPlan(r.name, factory, (*base, dev.I2C_RESP))
    elif r.kind in ("spi_flash", "sd"):
        factory = f"SpiDevice(bw, {_roles(r)}, {_memory_args(r)}, {py_tuple(driven)}){dev.spi_setup(r.kind)}"
        return DriverPlan(r.name, factory, (*base, dev.SPI_CONSTANTS, dev.SPI_DEVICE))
    elif r.kind == "split":
        factory = (f"SplitResponder(bw, {_roles(r)}, {_memory_args(r)}, {py_tuple(driven)})"
                   f".ports({py_tuple(split_requests(r))}, {split_writes(r)!r}, {split_byte_strobes(t, r)!r}, "
                   f"{SPLIT_QUEUE})")
        return DriverPlan(r.name, factory, (*base, rsp.SPLIT))
    else:
        cls, text = "MemResponder", rsp.MEM
    return DriverPlan(r.name, f"{cls}(bw, {_roles(r)}, {_memory_args(r)}, {py_tuple(driven)})", (*base, text))


def serial_plan(t: Target, s: Iface) -> DriverPlan:
    """A serial input: frames through cocotbext-uart's UartSource."""
    return DriverPlan(s.name, f"SerialPin(bw, {s.port('pin')!r})", (rsp.SERIAL,), ("cocotbext.uart UartSource",),
                      extension="UartSource")


def loopback_plan(t: Target, s: Iface) -> DriverPlan:
    """A serial input looped back from the design's serial output."""
    return DriverPlan(f"loopback:{s.name}", f"Loopback(bw, {s.port('pin')!r}, {s.partner!r})", (rsp.LOOPBACK,))


def port_plan(t: Target, name: str) -> DriverPlan:
    """A discovered write port (`write`, `fill`)."""
    wp = t.interfaces.write_port(name)
    aw = max(1, bits_of(t, wp.address)) if wp.address else 1
    dw = max(1, min(wp.width, max((b for _, _, b in wp.data), default=1)))
    spec = (wp.enable, wp.address, wp.data, wp.idle, wp.hold, wp.addresses or (0,), aw, dw)
    return DriverPlan(f"port:{name}", f"WritePort(bw, {py_tuple(spec)})", (PORTS,))


def plans(t: Target, used: Mapping[str, set[str]]) -> list[DriverPlan]:
    """The driver plans for every interface, write port and loopback a program uses."""
    ifs = t.interfaces
    out: list[DriverPlan] = []
    for kind, group, make in (("bus", ifs.buses, bus_plan), ("stream", ifs.streams, stream_plan),
                              ("sink", ifs.sinks, sink_plan), ("responder", ifs.responders, responder_plan),
                              ("serial", ifs.serials, serial_plan), ("loopback", ifs.serials, loopback_plan)):
        out += [make(t, i) for i in group if i.name in used.get(kind, set())]
    out += [port_plan(t, name) for name, _ in ifs.ports if name in used.get("port", set())]
    return out
