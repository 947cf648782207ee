"""`Target`: one design as programs see it (its inputs, recognised interfaces and palettes), with SV names.

Every renderer (harness, testbench, data file, cocotb) and the search read the same
Target, so a field index, a palette or an interface means the same thing everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agent.heuristic.stimulus import Field, Layout
from agent.program.interfaces import Iface, Interfaces
from agent.program.ops import Scope
from agent.program.rng import DrawField

MEM_WORDS = 1024
"""Words in a responder's memory model (addresses alias modulo this)."""

SPLIT_QUEUE = 8
"""Requests a split-transaction responder holds between acceptance and answer (it stops
accepting one short of this)."""

TIMEOUT = 1000
"""Cycles a bus or stream handshake waits before giving up (the run goes on)."""

ROUGH_LATENCY = 3
"""A bus memory answered with at least this latency also answers some transfers with an error
(AXI SLVERR, AHB ERROR); below it every answer is OKAY, so a CPU runs long programs."""

LONG_STALL_EVERY = 4096
"""A rough AXI4 or Wishbone slave (latency >= `ROUGH_LATENCY`) starts a long stall once in this
many clocks: it takes nothing and answers nothing for `latency * LONG_STALL_CLOCKS` clocks times
1, 2, 4 or 8, so a master's request waits across whole transfers of its other interfaces (UART
bytes queueing while a write response is late: WDATA must still hold)."""

SLOW_ANSWER_EVERY = 16
"""A rough AXI4 slave also makes one write response in this many, and one read burst's data,
wait a long stall (a slow posted write: the master's next requests queue behind it)."""

LONG_STALL_CLOCKS = 256
"""Clocks of a long stall per unit of latency, before its random factor (768..32,768 at latencies 3..16)."""

MAX_AVOID = 16
"""Most `avoid` rules a testbench keeps."""

MAX_AVOID_PAIRS = 4
"""Most field=value pairs in one `avoid` rule."""


@dataclass(frozen=True)
class Target:
    """A design's stimulus vocabulary."""

    layout: Layout
    """Driven inputs, clocks and every port."""
    interfaces: Interfaces = field(default_factory=Interfaces)
    """Recognised buses, responders, streams, sinks, serial pins and write ports."""
    palettes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Field -> interesting values (flattened width), used by `random` and `corners`."""

    @property
    def scope(self) -> Scope:
        """The names programs may use."""
        return self.interfaces.scope(self.layout)

    @property
    def fields(self) -> tuple[Field, ...]:
        """Driven inputs, in index order."""
        return self.layout.fields

    def index(self, name: str) -> int:
        """Index of field `name` (KeyError when none)."""
        found = self.layout.index(name)
        if found is None:
            raise KeyError(name)
        return found

    def handle(self, f: Field) -> str:
        """The SV variable a field's value is written to (a flat copy for unpacked arrays)."""
        return f"bw_flat_{f.name}" if f.dims else f.name

    @property
    def max_bits(self) -> int:
        """Width of the SV value carrier: the widest field or output, rounded up to 32 bits."""
        widest = max([*(f.bits for f in self.fields), *(s.width for s in self.layout.ports), 1])
        return max(32, -(-widest // 32) * 32)

    def draw_fields(self) -> tuple[DrawField, ...]:
        """What `rng.random_steps` needs per field (arrays draw uniformly, without a palette)."""
        return tuple(DrawField(f.bits, self.palette(f), f.reset) for f in self.fields)

    def palette(self, f: Field) -> tuple[int, ...]:
        """A field's palette as the testbench holds it.

        None for arrays and 1-bit inputs (both values are as likely as a palette would make them).
        """
        return () if f.dims or f.bits == 1 else tuple(self.palettes.get(f.name, ()))

    def outputs(self) -> tuple[tuple[str, int], ...]:
        """(name, bits) of every output, in port order (the index `wait` uses)."""
        return tuple((s.name, s.width) for s in self.layout.ports if s.direction == "output" and not s.dims)

    def iface_index(self, kind: str, name: str) -> int:
        """Position of an interface among those of its scope kind (the data file's number)."""
        groups: dict[str, tuple[Iface, ...]] = {
            "bus": self.interfaces.buses, "responder": self.interfaces.responders,
            "stream": self.interfaces.streams, "sink": self.interfaces.sinks, "serial": self.interfaces.serials,
        }
        return [i.name for i in groups[kind]].index(name)

    def port_index(self, name: str) -> int:
        """Position of a write port."""
        return [n for n, _ in self.interfaces.ports].index(name)
