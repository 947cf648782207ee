"""Interface drivers a rendered cocotb test carries: cocotbext where it fits, small hand-written ones elsewhere.

Each constant is the Python text of one driver class, copied into a test only when the
program uses an interface it serves. The hand-written drivers mirror the SV tasks and
processes of `sv_ifaces.py` (same handshakes, same random draws); the cocotbext ones
(AxiLiteMaster, ApbMaster, AxiStreamSource/Sink, AxiRam/AxiLiteRam, UartSource) keep the
program's values and draws but follow the extension's own timing. Every driver leaves the
step grid where it found it: it returns at a falling edge of the first clock.
"""

from __future__ import annotations

GUARDED = '''

async def guarded(bw, action, part, cycles):
    """Await a cocotbext transaction for at most `cycles` steps; on a timeout, flush the driver and go on."""
    try:
        await with_timeout(action, max(1, cycles) * PERIOD_NS, "ns")
    except SimTimeoutError:
        bw.dut._log.warning("no answer within %d cycles: transaction dropped", cycles)
        part.assert_reset()


def lane_runs(strobes, lanes):
    """(first, end) of each run of set strobe bits: one cocotbext write per run."""
    runs, first = [], None
    for b in range(lanes + 1):
        on = b < lanes and (strobes >> b) & 1
        if on and first is None:
            first = b
        elif not on and first is not None:
            runs.append((first, b))
            first = None
    return runs
'''
"""Timeouts and strobe runs for the cocotbext bus masters."""

WISHBONE = '''

class WishboneMaster:
    """`bus_write`/`bus_read` on a Wishbone slave (classic, or pipelined when it has a stall output)."""

    def __init__(self, bw, roles, lanes=0):
        self.bw = bw
        self.roles = roles
        self.lanes = lanes  # byte registers picked by a one-hot sel (0: sel is a byte enable)

    async def write(self, addr, data, strb):
        await self.xfer(1, addr, data, strb)

    async def read(self, addr, strb):
        await self.xfer(0, addr, 0, strb)

    async def xfer(self, w, addr, data, strb):
        bw, r = self.bw, self.roles
        if self.lanes:
            # as the SV task: every strobe set means the lane of the address, the byte on every lane
            if strb == (1 << self.lanes) - 1:
                strb = 1 << (addr % self.lanes)
            data = (data & 0xFF) * int("01" * self.lanes, 16)
        for role, value in (("cyc", 1), ("stb", 1), ("we", w), ("addr", addr), ("wdata", data), ("sel", strb)):
            if role in r:
                bw.put_name(r[role], value)
        got = accepted = False
        for _ in range(TIMEOUT):
            if got:
                break
            await bw.rise()
            if "stall" in r and not bw.port(r["stall"]):
                accepted = True
            if bw.port(r["ack"]):
                got = True
            await bw.fall()
            if "stall" in r and accepted:
                bw.put_name(r["stb"], 0)
        for role in ("cyc", "stb", "we"):
            if role in r:
                bw.put_name(r[role], 0)
        if "stall" not in r:  # a classic slave sees one idle cycle between transactions
            await bw.rise()
            await bw.fall()

    @property
    def pipelined(self):
        """A pipelined slave (it has a stall output): a consecutive burst is one cycle of requests."""
        return "stall" in self.roles

    async def pipe(self, w, addr, count, bits, step, aw, dw, gap=0):
        """`count` requests `step` apart in one cycle, `gap` idle clocks between (a pipelined slave; as the SV `_pipe` task)."""
        bw, r = self.bw, self.roles

        def data():
            return bw.rng.bits(bits) & ((1 << dw) - 1) if w else 0

        for role, value in (("cyc", 1), ("stb", 1), ("we", w), ("addr", addr), ("wdata", data() if "wdata" in r else 0),
                            ("sel", -1)):
            if role in r:
                bw.put_name(r[role], value)
        sent = acks = idle = 0
        strobe = True
        for _ in range((TIMEOUT + gap) * count):
            if acks >= count:
                break
            await bw.rise()
            accepted = strobe and not bw.port(r["stall"])
            sent += bool(accepted)
            acks += bool(bw.port(r["ack"]))
            await bw.fall()
            if accepted and sent == count:
                strobe = False
                bw.put_name(r["stb"], 0)
            elif accepted:
                bw.put_name(r["addr"], (addr + sent * step) & ((1 << aw) - 1))
                if "wdata" in r:
                    bw.put_name(r["wdata"], data())
                if gap:  # a slow master: the strobe rests once every request so far is answered
                    strobe, idle = False, gap
                    bw.put_name(r["stb"], 0)
            elif idle and acks == sent:
                idle -= 1
                if not idle:
                    strobe = True
                    bw.put_name(r["stb"], 1)
        for role in ("cyc", "stb", "we"):
            if role in r:
                bw.put_name(r[role], 0)
'''
"""Wishbone master (no cocotb extension for Wishbone is installed)."""

HAND = '''

class HandMaster:
    """`bus_write`/`bus_read` as one `xfer(w, addr, data, strb)` (the SV task's `<bus>_xfer`)."""

    def __init__(self, bw, roles):
        self.bw = bw
        self.roles = roles

    async def write(self, addr, data, strb):
        await self.xfer(1, addr, data, strb)

    async def read(self, addr, strb):
        await self.xfer(0, addr, 0, strb)
'''
"""What the hand-written APB and Avalon-MM masters share."""

APB = '''

class ApbHandMaster(HandMaster):
    """`bus_write`/`bus_read` on an APB slave: setup step, then enable until pready."""

    async def xfer(self, w, addr, data, strb):
        bw, r = self.bw, self.roles
        for role, value in (("sel", 1), ("enable", 0), ("write", w), ("addr", addr), ("wdata", data), ("strb", strb)):
            if role in r:
                bw.put_name(r[role], value)
        await bw.step(1)
        bw.put_name(r["enable"], 1)
        done = False
        for _ in range(TIMEOUT):
            if done:
                break
            await bw.rise()
            done = bool(bw.port(r["ready"])) if "ready" in r else True
            await bw.fall()
        for role in ("sel", "enable", "write"):
            if role in r:
                bw.put_name(r[role], 0)
'''
"""APB master for slaves cocotbext-axi's ApbMaster cannot drive (no pstrb or pready, odd widths)."""

AHB = '''

class AhbHandMaster:
    """`bus_write`/`bus_read` on an AHB-Lite subordinate: address phase, then data phase until hreadyout."""

    def __init__(self, bw, roles, lanes, size):
        self.bw = bw
        self.roles = roles
        self.lanes = lanes  # bytes per data word
        self.size = size  # hsize of a whole word

    async def write(self, addr, data, strb):
        await self.xfer(1, addr, data, strb)

    async def read(self, addr, strb):
        await self.xfer(0, addr, 0, strb)

    async def ready(self):
        got = False
        for _ in range(TIMEOUT):
            if got:
                break
            await self.bw.rise()
            got = bool(self.bw.port(self.roles["hreadyout"]))
            await self.bw.fall()

    async def xfer(self, w, addr, data, strb):
        bw, r = self.bw, self.roles
        size = self.size
        full = (1 << self.lanes) - 1
        if self.lanes > 1 and strb != full and strb and strb & (strb - 1) == 0:
            # as the SV task: one strobe lane alone is a byte transfer at that lane's address
            size, addr = 0, (addr & ~(self.lanes - 1)) | (strb.bit_length() - 1)
        for role, value in (("hsel", 1), ("htrans", 2), ("addr", addr), ("hwrite", w), ("hsize", size),
                            ("hburst", 0), ("hprot", 3), ("hmastlock", 0), ("hready", 1)):
            if role in r:
                bw.put_name(r[role], value)
        await self.ready()
        for role, value in (("htrans", 0), ("wdata", data)):
            if role in r:
                bw.put_name(r[role], value)
        await self.ready()
        for role in ("hsel", "hwrite"):
            if role in r:
                bw.put_name(r[role], 0)
'''
"""AHB-Lite manager (the SV task's phases; no cocotb extension for AHB is installed)."""

AVALON = '''

class AvalonHandMaster(HandMaster):
    """`bus_write`/`bus_read` on an Avalon-MM agent: read or write until waitrequest lets it through."""

    async def xfer(self, w, addr, data, strb):
        bw, r = self.bw, self.roles
        for role, value in (("cs", 1), ("addr", addr), ("write", w), ("read", 1 - w), ("wdata", data),
                            ("strb", strb), ("burst", 1)):
            if role in r:
                bw.put_name(r[role], value)
        done = False
        for _ in range(TIMEOUT):
            if done:
                break
            await bw.rise()
            done = not bw.port(r["wait"]) if "wait" in r else True
            await bw.fall()
        for role in ("cs", "write", "read"):
            if role in r:
                bw.put_name(r[role], 0)
        if w or "rdata" not in r:
            return
        if "rvalid" in r:  # the read's data comes later, marked by readdatavalid
            for _ in range(TIMEOUT):
                await bw.rise()
                valid = bw.port(r["rvalid"])
                await bw.fall()
                if valid:
                    break
        elif "wait" not in r:  # a registered agent without wait states: the data one clock later
            await bw.rise()
            await bw.fall()
'''
"""Avalon-MM host (the SV task's steps; no cocotb extension for Avalon is installed)."""

AXIL = '''

class AxiLiteHandMaster:
    """`bus_write`/`bus_read` on an AXI4-Lite slave cocotbext-axi cannot drive (odd widths or missing ports)."""

    def __init__(self, bw, roles, size):
        self.bw = bw
        self.roles = roles
        self.size = size

    def put(self, role, value):
        if role in self.roles:
            self.bw.put_name(self.roles[role], value)

    def high(self, role):
        port = self.roles.get(role)
        if port is None:
            return False
        return bool(self.bw.get_name(port) if port in INDEX else self.bw.port(port))

    async def write(self, addr, data, strb):
        await self.xfer(1, addr, data, strb)

    async def read(self, addr, strb):
        await self.xfer(0, addr, 0, strb)

    async def xfer(self, w, addr, data, strb):
        bw = self.bw
        for role, value in (("awprot", 0), ("awlen", 0), ("awsize", self.size), ("awburst", 1), ("awid", 0),
                            ("wlast", 1), ("arprot", 0), ("arlen", 0), ("arsize", self.size), ("arburst", 1),
                            ("arid", 0)):
            self.put(role, value)
        if w:
            for role, value in (("awvalid", 1), ("awaddr", addr), ("wvalid", 1), ("wdata", data), ("wstrb", strb),
                                ("bready", 1)):
                self.put(role, value)
        else:
            for role, value in (("arvalid", 1), ("araddr", addr), ("rready", 1)):
                self.put(role, value)
        addressed = written = not w
        done = False
        for _ in range(TIMEOUT):
            if done:
                break
            await bw.rise()
            if w:
                addressed = addressed or (self.high("awvalid") and self.high("awready"))
                written = written or (self.high("wvalid") and self.high("wready"))
                done = self.high("bvalid") and self.high("bready")
            else:
                addressed = addressed or (self.high("arvalid") and self.high("arready"))
                done = self.high("rvalid") and self.high("rready")
            await bw.fall()
            if w and addressed:
                self.put("awvalid", 0)
            if w and written:
                self.put("wvalid", 0)
            if not w and addressed:
                self.put("arvalid", 0)
        for role in ("awvalid", "wvalid", "bready", "arvalid", "rready"):
            self.put(role, 0)
'''
"""AXI4-Lite master mirroring the SV task (the fallback for AxiLiteMaster)."""

AXIL_EXT = '''

class AxiLiteBusMaster:
    """`bus_write`/`bus_read` on an AXI4-Lite slave through cocotbext-axi's AxiLiteMaster.

    A write goes out as one AxiLiteMaster write per run of set strobe bits (its strobes come
    from the address and length); AXI4 sideband inputs the master does not drive hold what
    the SV task sets them to.
    """

    def __init__(self, bw, ports, extras, names, lanes, addr_bits):
        self.bw = bw
        self.master = AxiLiteMaster(AxiLiteBus.from_entity(ports), bw.clock)
        self.extras = extras
        self.names = names
        self.lanes = lanes
        self.space = 1 << addr_bits

    async def write(self, addr, data, strb):
        for name, value in self.extras:
            self.bw.put_name(name, value)
        base = addr - addr % self.lanes
        raw = data.to_bytes(self.lanes, "little")
        for first, end in lane_runs(strb, self.lanes):
            if base + end <= self.space:
                await guarded(self.bw, self.master.write(base + first, raw[first:end]), self.master.write_if, TIMEOUT)
        await self.bw.fall()
        self.bw.sync(self.names)

    async def read(self, addr, strb):
        for name, value in self.extras:
            self.bw.put_name(name, value)
        await guarded(self.bw, self.master.read(addr, 1), self.master.read_if, TIMEOUT)
        await self.bw.fall()
        self.bw.sync(self.names)
'''
"""AXI4-Lite master through cocotbext-axi."""

APB_EXT = '''

class ApbBusMaster:
    """`bus_write`/`bus_read` on an APB slave through cocotbext-axi's ApbMaster (one write per strobe run)."""

    def __init__(self, bw, ports, names, lanes, addr_bits):
        self.bw = bw
        self.master = ApbMaster(ApbBus.from_entity(ports), bw.clock)
        self.names = names
        self.lanes = lanes
        self.space = 1 << addr_bits

    async def write(self, addr, data, strb):
        base = addr - addr % self.lanes
        raw = data.to_bytes(self.lanes, "little")
        for first, end in lane_runs(strb, self.lanes):
            if base + end <= self.space:
                await guarded(self.bw, self.master.write(base + first, raw[first:end]), self.master, TIMEOUT)
        await self.bw.fall()
        self.bw.sync(self.names)

    async def read(self, addr, strb):
        await guarded(self.bw, self.master.read(addr, 1), self.master, TIMEOUT)
        await self.bw.fall()
        self.bw.sync(self.names)
'''
"""APB master through cocotbext-axi."""

PAYLOAD = '''

def draw_payload(rng, payload, first):
    """One beat's sideband and data values, drawn in the SV task's order (keep/strb: all ones).

    A command field (role `field<k>`) keeps its value on half the beats after the first.
    """
    values = {}
    for role, _port, bits, palette, ones in payload:
        if role.startswith("field") and not first and rng.next() % 2 != 0:
            continue
        if ones:
            values[role] = (1 << bits) - 1
        elif palette >= 0:
            values[role] = PALETTES[palette][rng.next() % len(PALETTES[palette])]
        else:
            values[role] = rng.bits(bits)
    return values
'''
"""Beat values of a `send` (shared by both stream drivers)."""

STREAM = '''

class StreamHandSource:
    """`send` into a valid/ready stream beat by beat, as the SV task does (vectors of streams, odd widths)."""

    def __init__(self, bw, roles, lanes, payload):
        self.bw = bw
        self.roles = roles
        self.lanes = lanes
        self.payload = payload

    def put_lane(self, role, lane, value):
        if role not in self.roles:
            return
        port = self.roles[role]
        if self.lanes > 1:
            value = (self.bw.get_name(port) & ~(1 << lane)) | (value << lane)
        self.bw.put_name(port, value)

    async def send(self, beats, seed, gap, lane):
        bw, r = self.bw, self.roles
        bw.rng.state = seed & MASK32
        for b in range(beats):
            if gap > 0:
                while bw.rng.next() % 100 < gap:
                    self.put_lane("valid", lane, 0)
                    await bw.step(1)
            self.put_lane("valid", lane, 1)
            self.put_lane("last", lane, int(b == beats - 1))
            for role, value in draw_payload(bw.rng, self.payload, b == 0).items():
                bw.put_name(r[role], value)
            accepted = False
            for _ in range(TIMEOUT):
                if accepted:
                    break
                await bw.rise()
                ready = bw.port(r["ready"])
                accepted = bool((ready >> lane) & 1 if self.lanes > 1 else ready)
                await bw.fall()
        self.put_lane("valid", lane, 0)
        self.put_lane("last", lane, 0)
'''
"""Stream source mirroring the SV task (the fallback for AxiStreamSource)."""

STREAM_EXT = '''

class StreamSource:
    """`send` through cocotbext-axi's AxiStreamSource: the SV task's beat values, gaps as pause cycles."""

    def __init__(self, bw, ports, payload, names, units, unit_bits, strobes, **options):
        self.bw = bw
        self.source = AxiStreamSource(AxiStreamBus.from_entity(ports), bw.clock, **options)
        self.payload = payload
        self.names = names
        self.units = units
        self.unit_bits = unit_bits
        self.strobes = strobes

    async def send(self, beats, seed, gap, lane):
        bw = self.bw
        bw.rng.state = seed & MASK32
        pauses = []
        frame = {"tdata": [], "tid": [], "tdest": [], "tuser": []}
        for b in range(beats):
            if gap > 0:
                while bw.rng.next() % 100 < gap:
                    pauses.append(True)
            pauses.append(False)
            values = draw_payload(bw.rng, self.payload, b == 0)
            for k in range(self.units):
                frame["tdata"].append((values.get("data", 0) >> (k * self.unit_bits)) & ((1 << self.unit_bits) - 1))
                for role in ("id", "dest", "user"):
                    frame["t" + role].append(values.get(role, 0))
        for port in self.strobes:
            bw.put_name(port, -1)
        self.source.set_pause_generator(iter([*pauses, False]))
        await self.source.send(AxiStreamFrame(frame["tdata"], tid=frame["tid"], tdest=frame["tdest"],
                                              tuser=frame["tuser"]))
        await guarded(bw, self.source.wait(), self.source, TIMEOUT * len(pauses))
        self.source.set_pause_generator(None)
        await bw.fall()
        bw.sync(self.names)
'''
"""AXI-Stream source through cocotbext-axi."""

SINK = '''

class SinkThrottle:
    """`sink`: ready drawn at every falling edge from the sink's own xorshift32 (the SV `always` process)."""

    def __init__(self, bw, port):
        self.bw = bw
        self.port = port
        self.rng = Rng()
        self.percent = 100
        self.level = 0
        self.task = None

    def start(self, ready, seed):
        self.percent = ready
        self.rng.state = seed & MASK32
        self.bw.own([self.port])
        self.bw.dut[self.port].value = self.level
        if self.task is None:
            self.task = cocotb.start_soon(self.run())

    async def run(self):
        handle = self.bw.dut[self.port]
        while True:
            await self.bw.fall()
            self.level = MASKS[INDEX[self.port]] if self.rng.next() % 100 < self.percent else 0
            handle.value = self.level

    def stop(self):
        if self.task is not None:
            self.task.cancel()
            self.task = None
        self.bw.release([self.port])
'''
"""Ready throttle for a stream out of the design (the fallback for AxiStreamSink)."""

SINK_EXT = '''

class StreamSink:
    """`sink` through cocotbext-axi's AxiStreamSink, paused by the SV process's xorshift32 draws."""

    def __init__(self, bw, ports, port, **options):
        self.bw = bw
        self.port = port
        self.sink = AxiStreamSink(AxiStreamBus.from_entity(ports), bw.clock, **options)
        self.rng = Rng()
        self.percent = 100

    def pauses(self):
        while True:
            yield self.rng.next() % 100 >= self.percent

    def start(self, ready, seed):
        self.percent = ready
        self.rng.state = seed & MASK32
        self.bw.own([self.port])
        self.sink.set_pause_generator(self.pauses())
        self.sink.assert_reset(False)

    def stop(self):
        self.sink.set_pause_generator(None)
        self.sink.assert_reset(True)
        self.bw.release([self.port])
'''
"""AXI-Stream sink through cocotbext-axi."""
