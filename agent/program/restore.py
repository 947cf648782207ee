"""Writes that put power-up-only registers back after every reset (pure).

A register that only an `initial` statement sets (sim.analysis.power_up) keeps through a reset
what the last program wrote. Programs are judged one at a time from power-up and then run one
after another in the final testbench, each after its own reset: wbuart's `uart_setup` (baud rate
and frame format) written at random by one program made the next send and expect frames at the
wrong rate, and the chained testbench lost a third of what the programs had covered alone. The
reset therefore writes such a register's power-up value back through the bus, where that is
safe: a word of at least `MIN_BITS` bits that the bus writes from its write data, and the only
storage the bus writes at that address (a control register that starts a command is not one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent.program.interfaces import Interfaces
from agent.program.ops import Op, op
from sim.analysis.write_ports import WritePort

MIN_BITS = 8
"""Narrowest register restored: a configuration word, not a flag that a write clears or sets."""

ADDRESS_ROLES = ("addr", "awaddr", "paddr", "haddr", "address")
"""Bus roles that carry the write address."""


def restore_ops(interfaces: Interfaces, write_ports: Sequence[WritePort], power_up: Mapping[str, int]) -> tuple[Op, ...]:
    """`bus_write` operations that give each restorable register its power-up value (see the module docstring)."""
    out: list[Op] = []
    for bus in interfaces.buses:
        address_port = {bus.port(r) for r in ADDRESS_ROLES} - {""}
        data_port = bus.port("wdata")
        on_bus = [w for w in write_ports if w.address in address_port and w.addresses]
        for storage, value in power_up.items():
            ports = [w for w in on_bus if w.storage == storage]
            if not ports or ports[0].width < MIN_BITS or value >= 1 << max(1, bus.data_bits):
                continue
            addresses = {w.addresses[0] for w in ports}
            if len(addresses) != 1:
                continue
            (addr,) = addresses
            if {w.storage for w in on_bus if w.addresses[0] == addr} != {storage}:
                continue  # something else shares the address: a write there may do more
            strobes = {bus.port(r) for r in ("wstrb", "strb", "sel")}
            if not all(d[0] == data_port for w in ports for d in w.data if d[0] not in strobes):
                continue
            out.append(op("bus_write", bus.name, addr, value))
    return tuple(out)
