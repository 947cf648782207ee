"""What an interface is: port naming rules, the recognised interface, and ports grouped by prefix.

`interfaces.recognise` and the protocol recognisers (`ahb.py`) build `Iface`s from a design's
layout; the renderers read their roles. Kept apart from the recognisers so that a protocol
module can use these types without importing every other protocol.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent.heuristic.stimulus import Layout, Signal
from agent.program.ops import Scope
from sim.analysis.write_ports import WritePort

_DECOR_PREFIX = re.compile(r"^(i|o|in|out|io)_", re.IGNORECASE)
_DECOR_SUFFIX = re.compile(r"_(i|o|in|out|io)$", re.IGNORECASE)

AXI_ROLES = ("awvalid", "awready", "awaddr", "awprot", "awlen", "awsize", "awburst", "awid", "awcache",
             "awlock", "awqos", "wvalid", "wready", "wdata", "wstrb", "wlast", "bvalid", "bready", "bresp",
             "bid", "arvalid", "arready", "araddr", "arprot", "arlen", "arsize", "arburst", "arid", "arcache",
             "arlock", "arqos", "rvalid", "rready", "rdata", "rresp", "rlast", "rid")
"""Role words of AXI4 / AXI4-Lite channels (the part after the interface prefix)."""

STREAM_ROLES = ("tvalid", "tready", "tdata", "tlast", "tkeep", "tstrb", "tid", "tdest", "tuser")
"""Role words of AXI-Stream."""

SERIAL_IN = re.compile(r"(^|_)(rx|rxd|srx|sin|serial_in|uart_rx|sdi|rx_in|rx_i|din_serial)$", re.IGNORECASE)
"""Names of a serial data input (matched on the name and on its `line_name`)."""

SERIAL_OUT = re.compile(r"(^|_)(tx|txd|stx|sout|serial_out|uart_tx|sdo|tx_out|tx_o)$", re.IGNORECASE)
"""Names of a serial data output (a loopback partner)."""

_PAD_SUFFIX = re.compile(r"_(pad|pin)$", re.IGNORECASE)
"""A board-level decoration of a line's name (the 16550's `srx_pad_i`)."""


_OTHER_WAY = {"input": ("o", "out"), "output": ("i", "in")}
"""Decorations that cannot mean a port's direction: on an output, `i_` names something else
(the instruction side of a CPU: `i_ahb_haddr_o`), so it stays part of the name."""


def bare_name(name: str, direction: str = "") -> str:
    """A port name in lower case without its direction decorations: `i_wb_cyc` -> `wb_cyc`.

    With the port's `direction`, a decoration of the other direction is kept (`i_haddr` of an
    output stays `i_haddr`), and a name decorated at its end keeps its start (`i_ahb_hready_i`
    is `i_ahb_hready`).
    """
    low = name.lower()
    other = _OTHER_WAY.get(direction, ())
    tail = _DECOR_SUFFIX.search(low)
    if tail and tail.group(1) not in other:
        # One decoration is enough: after a suffix, a leading `i_` is part of the name (`i_ahb_hready_i`).
        return low[: tail.start()] if direction else _DECOR_PREFIX.sub("", low[: tail.start()])
    head = _DECOR_PREFIX.match(low)
    if head and head.group(1) not in other:
        low = low[head.end():]
    return low


def line_name(name: str) -> str:
    """A one-bit line's name without decorations, lower case: `srx_pad_i` -> `srx`, `i_uart_rx` -> `uart_rx`."""
    return _DECOR_SUFFIX.sub("", _PAD_SUFFIX.sub("", bare_name(name)))


def serial_line(name: str, pattern: re.Pattern[str]) -> bool:
    return bool(pattern.search(name) or pattern.search(line_name(name)))


def split_name(name: str, direction: str = "") -> tuple[str, str]:
    """(prefix, role) of a port name, lower case: `i_wb_cyc` -> (`wb`, `cyc`), `mem_ready` -> (`mem`, `ready`).

    `direction`: the port's, when known (see `bare_name`).
    """
    low = bare_name(name, direction)
    for role in sorted((*AXI_ROLES, *STREAM_ROLES), key=len, reverse=True):
        # Only after an underscore: `s_axi_awvalid`, but not APB's `pwdata` (which is no `p` + `wdata`).
        if low.endswith("_" + role):
            return low[: -len(role) - 1], role
    if "_" in low:
        head, _, role = low.rpartition("_")
        return head, role
    return "", low


@dataclass(frozen=True)
class Iface:
    """One recognised interface: a name for programs, a protocol, and its ports by role."""

    name: str
    """Short name used in programs (`wb`, `s_axi`, `mem`, `s_axis`)."""
    kind: str
    """`wishbone`, `axil`, `apb`, `ahb`, `avalon` (buses); `mem`, `split`, `axi_master`, `wb_master`,
    `ahb_master`, `apb_master`, `avalon_host`, `reqack`, `i2c`, `spi_flash`, `sd` (responders); `stream`, `sink`, `serial`."""
    roles: Mapping[str, str]
    """Role -> port name (`cyc` -> `i_wb_cyc`)."""
    data_bits: int = 0
    """Width of the data path (0 when there is none)."""
    addr_bits: int = 0
    """Width of the address (0 when there is none)."""
    addresses: tuple[int, ...] = ()
    """Addresses worth using (every word of a small register file, else mined constants)."""
    periods: tuple[int, ...] = ()
    """Serial: bit periods to try, most likely first."""
    partner: str = ""
    """Serial: the output to loop back into this input ('' when none)."""
    lanes: int = 1
    """Streams: valid bits in the valid port (a vector of streams)."""
    slices: tuple[tuple[int, int, tuple[int, ...]], ...] = ()
    """Responders: (lsb, width, values) of the fields the design decodes its read data by; a
    `fill=decode` memory sets them to those values (an instruction set's opcodes)."""
    templates: tuple[tuple[int, int], ...] = ()
    """Responders: (mask, value) of the field combinations the decoder recognises (one per
    instruction); `fill=decode` words take one of them, random elsewhere. Preferred over slices."""
    template_lanes: int = 1
    """Responders: instructions per memory word. Above 1 the templates are one instruction's (32
    bits) and each 32-bit lane of a `fill=decode` word draws its own (a 64-bit fetch carries any
    two instructions, so a dual-issue core sees every pair of kinds); 1: one template per word."""
    words: tuple[int, ...] = ()
    """Serial: byte values the design compares what it received with (a command parser's command
    bytes and operand limits), first seen first; () when the design has none or sits on a bus."""
    prologue: tuple[int, ...] = ()
    """Responders of a RISC-V core: the words a `fill=decode` memory starts with (`isa.prologue`:
    every register written twice with random values, the trap and scratch CSRs from them)."""
    idioms: tuple[int, ...] = ()
    """Responders of a RISC-V core: the words a `fill=idioms` memory starts with (`isa.idioms`: the
    prologue, then a trap handler, interrupts on, cache maintenance, nested calls and returns in a
    loop); () elsewhere, where `fill=idioms` is `fill=decode`."""
    byte_lanes: int = 0
    """Buses: the number of byte lanes when the design decodes its one-hot `sel` into the low
    bits of a byte register's address (a 16550 on a 32-bit Wishbone bus); 0 when `sel` is a plain
    byte enable. Such a bus is driven with byte addresses: an access picks the lane of its
    address's low bits and carries its byte on every lane."""

    @property
    def register_bits(self) -> int:
        """Buses: the bits of one register (a byte on byte lanes, else the data width; at least 1)."""
        return 8 if self.byte_lanes else max(1, self.data_bits)

    def port(self, role: str) -> str:
        """The port playing `role` ('' when absent)."""
        return self.roles.get(role, "")

    @property
    def driven(self) -> tuple[str, ...]:
        """Design inputs this interface's responder drives (muxed in the harness)."""
        if self.kind == "sink":
            return (self.port("ready"),)
        return tuple(p for r in DRIVEN_ROLES.get(self.kind, ()) if (p := self.port(r)))


@dataclass(frozen=True)
class Interfaces:
    """Everything recognised on one design."""

    buses: tuple[Iface, ...] = ()
    """Buses the design serves (the testbench is the master)."""
    responders: tuple[Iface, ...] = ()
    """Request interfaces of the design the testbench answers."""
    streams: tuple[Iface, ...] = ()
    """Streams into the design."""
    sinks: tuple[Iface, ...] = ()
    """Streams out of the design (the testbench drives ready)."""
    serials: tuple[Iface, ...] = ()
    """Serial inputs."""
    ports: tuple[tuple[str, WritePort], ...] = ()
    """(program name, write port) of the discovered storage writes."""

    def all(self) -> tuple[Iface, ...]:
        """Every interface."""
        return (*self.buses, *self.responders, *self.streams, *self.sinks, *self.serials)

    def named(self, name: str) -> Iface:
        """The interface called `name` (KeyError when none)."""
        for iface in self.all():
            if iface.name == name:
                return iface
        raise KeyError(name)

    def write_port(self, name: str) -> WritePort:
        """The write port called `name`."""
        return dict(self.ports)[name]

    def scope(self, layout: Layout) -> Scope:
        """The names a program may use on this design."""
        outputs = {s.name: s.width * (1 if not s.dims else _prod(s.dims)) for s in layout.ports
                   if s.direction == "output"}
        return Scope(
            fields={f.name: f.bits for f in layout.fields},
            outputs=outputs,
            names={"bus": tuple(i.name for i in self.buses), "responder": tuple(i.name for i in self.responders),
                   "stream": tuple(i.name for i in self.streams), "sink": tuple(i.name for i in self.sinks),
                   "serial": tuple(i.name for i in self.serials),
                   "loopback": tuple(i.name for i in self.serials if i.partner),
                   "port": tuple(n for n, _ in self.ports)},
        )


def _prod(dims: Sequence[int]) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


def word_addresses(addr_bits: int, data_bits: int, mined: Sequence[int], small_bits: int = 7) -> tuple[int, ...]:
    """Every word address of a small register space, else the mined ones (then a few spread).

    `small_bits`: the widest address of a space that counts as small.
    """
    step = max(1, data_bits // 8)
    mask = (1 << addr_bits) - 1
    if addr_bits <= small_bits:
        # Word addressed (Wishbone) or byte addressed (AXI/APB): all of a small space either way.
        words = list(range(0, 1 << addr_bits, step if addr_bits > 2 and step > 1 else 1))
        return tuple(dict.fromkeys([*(m & mask for m in mined), *words]))[:64]
    return tuple(dict.fromkeys([*(m & mask for m in mined), 0, step, 2 * step, 3 * step]))[:64]


def clean_name(name: str) -> str:
    """A program name from a prefix (`S_AXI` -> `s_axi`, '' -> `bus`)."""
    low = re.sub(r"\W", "_", name.lower()).strip("_")
    return low or "bus"


class PortGroups:
    """Ports grouped by (prefix, role) with directions and widths."""

    def __init__(self, layout: Layout) -> None:
        self.by_group: dict[str, dict[str, Signal]] = {}
        """Prefix -> role -> port."""
        reset_names = {f.name for f in layout.fields if f.reset}
        clocks = {c.name for c in layout.clocks}
        for s in layout.ports:
            if s.name in reset_names or s.name in clocks:
                continue
            prefix, role = split_name(s.name, s.direction)
            self.by_group.setdefault(prefix, {})[role + ":" + s.direction] = s

    def get(self, prefix: str, role: str, direction: str) -> Signal | None:
        return self.by_group.get(prefix, {}).get(f"{role}:{direction}")

    def first(self, prefix: str, roles: Sequence[str], direction: str) -> Signal | None:
        for role in roles:
            found = self.get(prefix, role, direction)
            if found is not None:
                return found
        return None


SPLIT_DRIVEN = ("accept", "resp", "rdata", "rtag", "err")
"""Inputs a split-transaction responder drives (`err` high on some answers of a rough memory)."""

DRIVEN_ROLES: Mapping[str, tuple[str, ...]] = {
    "mem": ("ready", "rdata"), "reqack": ("ready", "rdata"), "split": SPLIT_DRIVEN,
    "wb_master": ("ack", "stall", "rdata", "err"),
    "axi_master": ("awready", "wready", "bvalid", "bresp", "arready", "rvalid", "rdata", "rresp", "rlast", "bid", "rid"),
    "ahb_master": ("hready", "hresp", "rdata"),
    "apb_master": ("ready", "rdata", "slverr"),
    "avalon_host": ("wait", "rdata", "rvalid"),
    "i2c": ("scl_in", "sda_in"),
    "spi_flash": ("miso",), "sd": ("miso", "detect", "detect_n"),
}
"""Responder kind -> the roles of the design inputs its responder drives (present ones only)."""

DEVICE_KINDS = ("i2c", "spi_flash", "sd")
"""Responders that are devices on lines the design also reads as plain inputs: a scenario runs
both with and without the device (random lines reach a controller's other-master paths, the
device its transfers), so they are not started in the background and their lines stay side
inputs for the search."""


FIELD_ROLE = "field"
"""Role prefix of a stream's other per-beat inputs (`field0`, `field1`, ... in name order)."""


def stream_payload_roles(s: Iface) -> tuple[str, ...]:
    """A stream's per-beat roles in draw order: data and AXI sidebands, then its other fields."""
    named = tuple(r for r in ("data", "keep", "strb", "id", "dest", "user") if r in s.roles)
    fields = sorted((r for r in s.roles if r.startswith(FIELD_ROLE)), key=lambda r: int(r[len(FIELD_ROLE):]))
    return (*named, *fields)
