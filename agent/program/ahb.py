"""AHB-Lite (and AHB5's single-manager form) recognised from port names and directions (pure).

An AHB port is found by its `h`-prefixed role words whatever the prefix, suffix or case
(`HTRANS`, `ahb_htrans_o`, `m_ahb_haddr`). Which side the design plays comes from the
directions, which is what the netlist says the design drives:

- a **manager** (a CPU's bus port: `htrans`/`haddr` out, `hready` in) gets a responder, a
  memory model that answers each transfer in its data phase with 0..latency wait states
  (`hready` low), read data, and narrow writes by `hsize` and the address's low bits;
- a **subordinate** (a peripheral: `htrans`/`haddr` in, `hreadyout` — or `hready` — out) is
  driven by `<bus>_write`/`<bus>_read` tasks: an address phase, then a data phase until the
  design's ready; a one-lane strobe makes a byte transfer (`hsize` 0) at that lane's address.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent.program.iface import Iface, PortGroups, clean_name, word_addresses

MANAGER_OUT = ("htrans", "haddr", "hwrite", "hsize", "hburst", "hprot", "hmastlock", "hwdata")
"""Port words a manager drives (the subordinate's inputs but `hsel`)."""

MANAGER_IN = ("hready", "hresp", "hrdata")
"""Port words a manager samples."""

SHARED_ROLES = {"haddr": "addr", "hwdata": "wdata", "hrdata": "rdata"}
"""Port words that play the roles every bus and memory has, under those roles' names (so the
search's data palettes, address lists and instruction templates find them as on any bus)."""


def _role(word: str) -> str:
    return SHARED_ROLES.get(word, word)


def ahb(ports: PortGroups, prefix: str, mined: Mapping[str, Sequence[int]]) -> Iface | None:
    """An AHB-Lite manager port (kind `ahb_master`) or subordinate port (kind `ahb`), else None."""
    name = clean_name(prefix) if prefix else "ahb"
    trans_out, trans_in = ports.get(prefix, "htrans", "output"), ports.get(prefix, "htrans", "input")
    addr_out, addr = ports.get(prefix, "haddr", "output"), ports.get(prefix, "haddr", "input")
    if trans_out is not None and trans_out.width == 2 and addr_out is not None:
        ready = ports.get(prefix, "hready", "input")
        if ready is None or ready.width != 1:
            return None
        roles = {_role(r): s.name for r in MANAGER_OUT if (s := ports.get(prefix, r, "output")) is not None}
        roles |= {_role(r): s.name for r in MANAGER_IN if (s := ports.get(prefix, r, "input")) is not None}
        data = ports.get(prefix, "hrdata", "input") or ports.get(prefix, "hwdata", "output")
        return Iface(name, "ahb_master", roles, data.width if data else 32, addr_out.width)
    if trans_in is None or trans_in.width != 2 or addr is None:
        return None
    # A subordinate says it is ready on `hreadyout`; a simple one on an output called `hready`.
    done = ports.get(prefix, "hreadyout", "output") or ports.get(prefix, "hready", "output")
    if done is None or done.width != 1:
        return None
    roles = {"hreadyout": done.name}
    roles |= {_role(r): s.name for r in (*MANAGER_OUT, "hsel", "hready") if (s := ports.get(prefix, r, "input")) is not None}
    roles |= {_role(r): s.name for r in ("hresp", "hrdata") if (s := ports.get(prefix, r, "output")) is not None}
    data = ports.get(prefix, "hwdata", "input") or ports.get(prefix, "hrdata", "output")
    bits, dbits = addr.width, (data.width if data else 32)
    return Iface(name, "ahb", roles, dbits, bits, _addresses(bits, dbits, mined.get(roles["addr"], ())))


SMALL_SPACE_WORDS = 64
"""A subordinate whose address space holds at most this many words gets every word address."""


def _addresses(addr_bits: int, data_bits: int, mined: Sequence[int]) -> tuple[int, ...]:
    """Every word of a small register space (a peripheral decoding 8 address bits has 64 words), after the mined ones."""
    byte_bits = (max(1, data_bits // 8) - 1).bit_length()
    return word_addresses(addr_bits, data_bits, mined, small_bits=(SMALL_SPACE_WORDS - 1).bit_length() + byte_bits)
