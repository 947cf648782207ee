"""Protocol checkers in a kept testbench: the handshake rules of every interface the design drives (pure).

Where the design is the side that asks — a stream out of it, an AXI4 or AHB-Lite manager, a
Wishbone master, a memory or request/acknowledge port — it must hold a request until it is
taken and keep the request's payload stable meanwhile (AXI4 A3.2.1, AHB-Lite 3.6.1, Wishbone
B4 3.1.3). Each rule is an `always` process sampling the DUT's ports (`dut.<port>`, what the
design really sees, muxes included) right after the clock edge; reset cycles are skipped.
A violation is a **finding**, not a failure: the run goes on, and a `final` block prints one
`BW-FINDING` line per broken rule (interface, rule, first time, how often), which
`parse_findings` reads back for the report and the editor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent.program.iface import Iface, split_name
from agent.program.sv_common import clock_of, reset_active
from agent.program.target import Target

FINDING_TAG = "BW-FINDING"
"""Log lines of a broken rule: `BW-FINDING <iface> <port> <rule>: first at <t> ns (<n> times)`."""


@dataclass(frozen=True)
class Rule:
    """A request that must be held until taken, and the payload that must not change meanwhile."""

    name: str
    """What the rule says, as printed (`AW: awvalid withdrawn before awready`)."""
    request: str
    """SV expression of the request (`dut.m_axi_awvalid`)."""
    taken: str
    """SV expression that is true on an edge where the request is taken."""
    payload: tuple[str, ...] = ()
    """Ports that must hold their value while the request waits."""
    port: str = ""
    """The request's port (where an editor shows the finding)."""
    abort: str = ""
    """SV expression that ends the request lawfully, whatever its handshake ('' for none): a
    Wishbone master may drop CYC to abandon a cycle."""


@dataclass(frozen=True)
class Finding:
    """One broken rule, as a run reported it."""

    interface: str
    """The interface's program name."""
    port: str
    """The port of the request the rule is about."""
    rule: str
    """The rule (`W: wdata changed while wvalid && !wready`)."""
    first_ns: int
    """Simulation time of the first violation, in ns (the testbench's time unit)."""
    count: int
    """How many clock edges broke it."""


STREAM_PAYLOAD = ("data", "last", "keep", "strb", "id", "dest", "user")
"""Roles of a stream's payload (held while valid && !ready)."""


def _channels(i: Iface) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(label, request role, taken role, payload roles) per channel the design drives.

    A vector of streams (one valid bit per lane) is left out: one lane may move while another waits.
    """
    if i.kind == "sink" and i.lanes == 1:
        return [("", "valid", "ready", STREAM_PAYLOAD)]
    if i.kind == "axi_master":
        return [("AW", "awvalid", "awready", ("awaddr", "awlen", "awsize", "awburst", "awid", "awprot")),
                ("W", "wvalid", "wready", ("wdata", "wstrb", "wlast")),
                ("AR", "arvalid", "arready", ("araddr", "arlen", "arsize", "arburst", "arid", "arprot"))]
    if i.kind in ("mem", "reqack"):
        return [("", "valid", "ready", ("addr", "wdata", "wstrb", "we"))]
    if i.kind == "wb_master" and not i.port("stall"):  # classic cycles: held until ack
        return [("", "stb", "ack", ("addr", "we", "wdata", "sel"))]
    if i.kind == "wb_master":  # pipelined (B4 5.2): a request STALL holds back stays as it is
        return [("", "stb", "!stall", ("addr", "we", "wdata", "sel"))]
    if i.kind == "apb_master":  # an access phase holds its transfer until PREADY (APB 3.1)
        return [("", "enable", "ready", ("sel", "addr", "write", "wdata", "strb"))]
    if i.kind == "avalon_host":  # a transfer waitrequest holds back keeps its signals (Avalon 3.5.1)
        return [("read", "read", "!wait", ("addr", "strb")), ("write", "write", "!wait", ("addr", "wdata", "strb"))]
    return []


MASTER_KINDS = ("axi_master", "wb_master", "ahb_master", "apb_master", "avalon_host", "mem")
"""Bus masters whose requests may be forwarded from an input of the same protocol."""


def forwards(t: Target, i: Iface, request: str) -> bool:
    """Whether the design also takes `request`s of this protocol on its inputs (an arbiter, an interconnect).

    Its request then follows inputs the testbench drives at random, not the protocol, and a
    payload that moves is the testbench's doing (wbarbiter's o_adr): no rule for it.
    """
    if i.kind not in MASTER_KINDS:
        return False
    own = set(i.roles.values())
    role = split_name(i.port(request), "output")[1]
    return any(split_name(f.name, "input")[1] == role for f in t.fields if f.name not in own)


def rules(t: Target, i: Iface) -> list[Rule]:
    """The rules the design's side of interface `i` must keep."""
    inst = t.layout.instance
    out: list[Rule] = []
    for label, request, taken, payload in _channels(i):
        if not i.port(request) or not i.port(taken.lstrip("!")) or forwards(t, i, request):
            continue
        head = f"{label}: " if label else ""
        # `!stall`: the request is taken on an edge where STALL is low
        negated = taken.startswith("!")
        name = i.port(taken.lstrip("!"))
        req, ack = f"{inst}.{i.port(request)}", f"{'!' if negated else ''}{inst}.{name}"
        waiting = f"{i.port(request)} && {name}" if negated else f"{i.port(request)} && !{name}"
        before = f"while {name}" if negated else f"before {name}"
        # A Wishbone master may end a cycle by dropping CYC (B4 3.1.3): never a withdrawn request.
        abort = f"!{inst}.{i.port('cyc')}" if i.kind == "wb_master" and i.port("cyc") else ""
        out.append(Rule(f"{head}{i.port(request)} withdrawn {before}", req, ack, (), i.port(request), abort))
        kept = tuple(i.port(r) for r in payload if i.port(r))
        if kept:
            out.append(Rule(f"{head}{'/'.join(kept)} changed while {waiting}", req, ack, kept, i.port(request), abort))
    if i.kind == "ahb_master" and i.port("htrans") and i.port("hready"):
        # A transfer extended by HREADY low keeps its address and control (AHB-Lite 3.6.1).
        trans, ready = f"{inst}.{i.port('htrans')}", f"{inst}.{i.port('hready')}"
        control = tuple(i.port(r) for r in ("htrans", "addr", "hwrite", "hsize", "hburst") if i.port(r))
        out.append(Rule("address phase changed while HREADY was low", f"{trans}[1]", ready, control, i.port("htrans")))
    return out


def _upstream(t: Target, i: Iface) -> list[tuple[str, str, tuple[str, ...]]]:
    """(valid, ready, payload ports) of the single-lane streams into the design, for a stream out of it.

    A design that passes an input stream through by wires (axis_adapter at equal widths) forwards
    what the testbench's random steps do to it, breaches included: an output breach at an edge
    where an input stream broke the same rule is the testbench's doing, not a finding. A FIFO's
    breach at such an edge goes unreported too — rare, and never a false alarm.
    """
    if i.kind != "sink":
        return []
    return [(s.port("valid"), s.port("ready"), tuple(p for r in STREAM_PAYLOAD if (p := s.port(r))))
            for s in t.interfaces.streams if s.lanes == 1 and s.port("valid") and s.port("ready")]


def _excuse(n: str, inst: str, upstream: Sequence[tuple[str, str, tuple[str, ...]]], widths: dict[str, int],
            payload: bool) -> tuple[str, str, str]:
    """(declarations, condition, update) of the input streams' breaches seen by rule `n`'s process.

    Each rule keeps its own copy of the input streams' last state, in its own process: a value
    another process writes on the same clock edge would race with this one's read.
    """
    decl, cond, update = [], [], []
    for j, (valid, ready, data) in enumerate(upstream):
        x = f"{n}_x{j}"
        held = payload and bool(data)  # a withdrawn-request rule needs only the valid bit
        now = "{" + ", ".join(f"{inst}.{p}" for p in data) + "}"
        bits = sum(widths.get(p, 1) for p in data)
        decl.append(f"bit {x}_w = 0;" + (f" logic [{bits - 1}:0] {x}_d;" if held else ""))
        broke = f"!{inst}.{valid}" + (f" || {now} != {x}_d" if held else "")
        cond.append(f"({x}_w && ({broke}))")
        update.append(f"{x}_w = {inst}.{valid} && !{inst}.{ready};" + (f" {x}_d = {now};" if held else ""))
    return " ".join(decl), " || ".join(cond), " ".join(update)


def lines(t: Target, ifaces: Sequence[tuple[Iface, str]]) -> list[str]:
    """The checker processes for (interface, when) pairs, and the `final` block that prints what broke.

    `when`: an SV condition under which the rules hold ('' for always): a responder's rules only
    while the testbench answers as the protocol says (`bw_<iface>_on`); random values on its
    inputs may answer what was never asked, and a design may then drop its request rightly.
    """
    clock = clock_of(t)
    if not clock:
        return []
    reset = reset_active(t) or "1'b0"
    widths = {s.name: s.width for s in t.layout.ports}
    inst = t.layout.instance
    out: list[str] = []
    reports: list[str] = []
    k = 0
    for i, when in ifaces:
        guard = f"{reset} || !({when})" if when else reset
        for rule in rules(t, i):
            n = f"bw_pc{k}"
            k += 1
            payload = "{" + ", ".join(f"{inst}.{p}" for p in rule.payload) + "}" if rule.payload else ""
            bits = sum(widths.get(p, 1) for p in rule.payload)
            held = f"bit {n}_p = 0, {n}_a = 0; int {n}_n = 0; longint {n}_t = 0;"
            broke = f"({rule.request}) && {payload} != {n}_d" if payload else f"!({rule.request})"
            if rule.abort:
                broke = f"!({rule.abort}) && {broke}"
            decl, excused, seen = _excuse(n, inst, _upstream(t, i), widths, bool(payload))
            if excused:
                broke = f"!({excused}) && {broke}"
            out += [
                held + (f" logic [{bits - 1}:0] {n}_d;" if payload else "") + (f" {decl}" if decl else ""),
                f"always @(posedge {clock}) begin",
                f"  if ({guard}) {n}_p = 0;",
                f"  else begin if ({n}_p && !{n}_a && {broke}) begin if ({n}_n == 0) {n}_t = $time; "
                f"{n}_n++; end",
                f"    {n}_p = {rule.request}; {n}_a = {rule.taken};" + (f" {n}_d = {payload};" if payload else "")
                + (f" {seen}" if seen else "") + " end",
                "end",
            ]
            reports.append(f'  if ({n}_n > 0) $display("{FINDING_TAG} {i.name} {rule.port} {rule.name}: first at %0d ns '
                           f'(%0d times)", {n}_t, {n}_n);')
    if not reports:
        return []
    return ["// Protocol checkers: the handshake rules of the interfaces the design drives (findings, not failures).",
            *out, "final begin", *reports, "end"]


def finding_key(f: Finding) -> str:
    """One finding's identity across runs: `interface port rule` (times and counts differ)."""
    return f"{f.interface} {f.port} {f.rule}"


def parse_findings(log: str) -> list[Finding]:
    """The findings a run printed, in order."""
    out = []
    for line in log.splitlines():
        m = re.search(rf"{FINDING_TAG} (\S+) (\S+) (.+): first at (\d+)(?: ns)? \((\d+) times\)", line)
        if m:
            out.append(Finding(m.group(1), m.group(2), m.group(3), int(m.group(4)), int(m.group(5))))
    return out
