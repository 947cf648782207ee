"""An I2C target on a design's SCL/SDA lines: recognised from the line ports, played by the harness (pure).

A design that is an I2C controller (master) drives its lines open-drain through a value and an
enable per line (`scl_o`/`scl_t` as Xilinx's IOBUF, `scl_pad_o`/`scl_padoen_o` as OpenCores,
`scl_oe`, or a bare `scl_o` that pulls low when 0) and reads them back on inputs (`scl_i`,
`sda_pad_i`). The harness plays a device on the bus: the line is the wired AND of the
controller's and the device's drive, and the device

- acknowledges its address (any address: a bus full of devices) and every byte written; the
  first byte of a write sets its register pointer, the next ones are stored from there (as an
  EEPROM or a sensor's register file);
- answers reads with bytes of its memory (the `respond` fill) from the pointer on, until the
  controller does not acknowledge;
- with `latency` > 0, stretches the clock (holds SCL low 0..4*latency cycles after SCL falls)
  and refuses one address or byte in eight (NAK), so the controller's error paths run too.

Another controller shares the bus (`sv_i2c.host`): on a controller with `latency` > 0 it makes
transfers of its own, and where the design can be addressed (a target, or a controller with a
slave mode) it addresses the design: START, an address byte (one of the design's own addresses,
`target_addresses`, the general call or a random one), one to four bytes written or read
(acknowledged until the last), STOP, waiting while the design stretches SCL. A design that drives only SDA (a target with
no clock stretching) is still recognised; then the other controller is the whole bus traffic.

The lines are sampled on the system clock (the controller's timing is a prescaled multiple of
it) and driven for the next clock, as every responder does (`sv_i2c.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from agent.heuristic.stimulus import Layout
from agent.program.iface import Iface
from sim.analysis.rtl_facts import Condition

LINES = ("scl", "sda")
"""The two I2C lines."""

ENABLES = ("t", "oe", "oen")
"""How a line's enable reads: `t` high releases (a tristate), `oe` high drives, `oen` low drives."""


def _output_role(low: str) -> str:
    """`o` (the value), or the enable kind, of an output on a line, by its name."""
    if re.search(r"(padoen|oen|oe_n|en_n)", low):
        return "oen"
    if re.search(r"(_t|_tri|tristate)(_o|_out)?$", low):
        return "t"
    if re.search(r"(_oe|_en|enable|_drive)(_o|_out)?$", low):
        return "oe"
    return "o"


ADDRESS_PARAM = re.compile(r"(addr|adr|address|dev_?id|slave_?id)", re.IGNORECASE)
"""Parameter names of a device address (`DEFAULT_SLAVE_ADDR`, `I2C_ADR`, `DEV_ID`)."""

_ADDRESS_COMPARE = re.compile(r"(==|!=)\s*7'[sS]?[dhbo]")
"""A condition that compares something with a 7-bit literal (`rx_addr[7:1] == 7'h50`)."""


def target_addresses(params: Mapping[str, int], conditions: Iterable[Condition]) -> tuple[int, ...]:
    """The 7-bit addresses the design may answer to as an I2C target, first found first; pure.

    Elaborated parameters named like an address (a slave-address register's reset value,
    `DEFAULT_SLAVE_ADDR = 7'h7E`) and the 7-bit literals the design compares with (a fixed
    address, `addr[7:1] == 7'h50`).
    """
    out = [v for name, v in params.items() if ADDRESS_PARAM.search(name) and 0 < v < 0x80]
    out += [c.constants[0] for c in conditions if _ADDRESS_COMPARE.search(c.text) and len(c.constants) == 1]
    return tuple(dict.fromkeys(v for v in out if 0 < v < 0x80))


def i2c(layout: Layout, taken: set[str], addresses: Sequence[int] = ()) -> Iface | None:
    """The design's I2C lines as a bus to play a device and another controller on (kind `i2c`), else None.

    Roles: `scl_in`, `sda_in` (the inputs the harness drives), `scl_o`, `sda_o` (values),
    and `scl_t`/`scl_oe`/`scl_oen` (enables; the same for sda). Each line needs one 1-bit
    input; SDA needs at least one 1-bit output, SCL none (a target that never stretches the
    clock). `addresses`: the design's own target addresses (`target_addresses`).
    """
    roles: dict[str, str] = {}
    for s in sorted(layout.ports, key=lambda s: s.name):
        low = s.name.lower()
        line = next((x for x in LINES if x in re.split(r"[^a-z0-9]", low)), None)
        if line is None or s.width != 1 or s.dims or s.name in taken:
            continue
        role = f"{line}_in" if s.direction == "input" else f"{line}_{_output_role(low)}"
        roles.setdefault(role, s.name)
    if any(f"{line}_in" not in roles for line in LINES) or not drives(roles, "sda"):
        return None
    return Iface("i2c", "i2c", roles, 8, addresses=tuple(addresses))


def drives(roles: Mapping[str, str], line: str) -> bool:
    """Whether the design has an output on `line` (a value or an enable)."""
    return any(f"{line}_{r}" in roles for r in ("o", *ENABLES))


def addresses_host(r: Iface) -> bool:
    """Whether the other controller makes whole transfers (an address, data, STOP) on these lines.

    It does where the design can be addressed: its own addresses are known, or it is a target.
    """
    return bool(r.addresses) or not drives(r.roles, "scl")
