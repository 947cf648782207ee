"""What the engine recognised on a design, for `report.md` and `result.json` (pure).

Every interface with its protocol, the side the design plays and its ports by role, and every
handshake-like pair of ports that no interface claimed (an output held until an input answers,
`*_req`/`*_ack`, `*_vld`/`*_rdy`, or the other way round): those get only what random stimulus
and the generic search give them, so a user knows where the engine is blind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent.heuristic.stimulus import Layout
from agent.program.iface import Interfaces, PortGroups

PROTOCOLS: Mapping[str, str] = {
    "wishbone": "Wishbone", "axil": "AXI4-Lite", "apb": "APB", "ahb": "AHB-Lite", "avalon": "Avalon-MM",
    "mem": "memory request (valid/ready)", "reqack": "request/acknowledge (no address)",
    "split": "split-transaction memory", "axi_master": "AXI4", "wb_master": "Wishbone", "ahb_master": "AHB-Lite", "apb_master": "APB",
    "avalon_host": "Avalon-MM", "i2c": "I2C (a target device on the lines)",
    "spi_flash": "SPI (a NOR flash on the lines)", "sd": "SPI (an SD card in SPI mode on the lines)",
    "stream": "valid/ready stream", "sink": "valid/ready stream", "serial": "UART serial line",
}
"""Interface kind -> the protocol's name as a user knows it."""

SIDES: Mapping[str, str] = {
    "buses": "design serves it (the testbench drives transfers)",
    "responders": "design asks (the testbench answers)",
    "streams": "into the design", "sinks": "out of the design (the testbench drives ready)",
    "serials": "serial input (the testbench sends frames)",
}
"""Group of `Interfaces` -> which side of the protocol the design plays."""

REQUEST_WORDS = ("req", "request", "valid", "vld", "start", "stb", "strobe", "go", "cmd")
"""Last words of a port that asks."""

ANSWER_WORDS = ("ack", "ready", "rdy", "gnt", "grant", "done", "accept")
"""Last words of a port that answers."""


def interface_rows(ifs: Interfaces) -> list[dict[str, Any]]:
    """One row per recognised interface: name, kind, protocol, side, ports by role."""
    rows = []
    for group in SIDES:
        for i in getattr(ifs, group):
            rows.append({"name": i.name, "kind": i.kind, "protocol": PROTOCOLS.get(i.kind, i.kind),
                         "side": SIDES[group], "ports": dict(i.roles)})
    return rows


def unrecognised_handshakes(layout: Layout, ifs: Interfaces) -> list[dict[str, str]]:
    """Request/answer port pairs under one prefix that no recognised interface claimed.

    `asks`: the design's output requests and its input answers (the testbench would have to
    answer); `answers`: the other way round (the testbench would have to ask).
    """
    claimed = {p for i in ifs.all() for p in i.roles.values()}
    groups = PortGroups(layout)
    found = []
    for prefix, ports in sorted(groups.by_group.items()):
        one_bit = {key: s for key, s in ports.items() if s.width == 1 and s.name not in claimed}
        for ask_dir, answer_dir, side in (("output", "input", "asks"), ("input", "output", "answers")):
            asks = [s for w in REQUEST_WORDS if (s := one_bit.get(f"{w}:{ask_dir}")) is not None]
            answers = [s for w in ANSWER_WORDS if (s := one_bit.get(f"{w}:{answer_dir}")) is not None]
            if asks and answers:
                found.append({"prefix": prefix, "request": asks[0].name, "answer": answers[0].name, "side": side})
    return found


def markdown(rows: Sequence[Mapping[str, Any]], loose: Sequence[Mapping[str, str]]) -> list[str]:
    """The report's "Interfaces" section."""
    lines = ["## Interfaces", ""]
    if not rows:
        lines.append("No standard interface recognised: the inputs are driven as plain fields.")
    else:
        lines += ["| name | protocol | side | ports |", "|---|---|---|---|"]
        for r in rows:
            ports = ", ".join(f"{role}=`{port}`" for role, port in r["ports"].items())
            lines.append(f"| `{r['name']}` | {r['protocol']} (`{r['kind']}`) | {r['side']} | {ports} |")
    if loose:
        lines += ["", "Handshakes no protocol claimed (driven as plain inputs, answered by nothing):", ""]
        for h in loose:
            who = "the design asks on" if h["side"] == "asks" else "the design answers on"
            lines.append(f"- {who} `{h['request']}` / `{h['answer']}`")
    return [*lines, ""]
