"""Background drivers a rendered cocotb test carries: responders, serial frames and loopbacks.

Like `cocotb_drivers.py`, each constant is the Python text of one class, copied into a test
when the program uses it. Responders run as tasks started with `cocotb.start_soon` and are
stopped by the program's next `reset`; the hand-written ones mirror the SV `always`
processes of `sv_responders.py` register for register (values are taken right after the
rising edge and driven for the next one, as the SV non-blocking assignments do).
"""

from __future__ import annotations

RESPONDER_BASE = '''

class Responder:
    """A memory model answering the design's requests on the clock until the next reset."""

    def __init__(self, bw, roles, dw, templates, fields, driven):
        self.bw = bw
        self.roles = roles
        self.dw = dw
        self.templates = templates
        self.fields = fields
        self.driven = driven
        self.shift = max(0, (dw // 8).bit_length() - 1)
        self.words = [0] * MEM_WORDS
        self.rng = Rng()
        self.latency = 0
        self.regs = {role: 0 for role in driven}
        self.task = None
        self.prologue = ()
        self.idioms = ()
        self.lanes = 1

    def start_with(self, words, idioms=()):
        """A decoded memory's first words (a RISC-V core's prologue, `isa.prologue`; with fill 4,
        the `idioms`, `isa.idioms`)."""
        self.prologue = words
        self.idioms = idioms
        return self

    def per_lane(self, lanes):
        """Each 32-bit lane of a decoded word draws its own template (two instructions per 64-bit fetch)."""
        self.lanes = lanes
        return self

    def index(self, addr):
        return (addr >> self.shift) % MEM_WORDS

    def high(self, role, default=0):
        """A design output of this interface (`default` when the design has no such port)."""
        return self.bw.port(self.roles[role]) if role in self.roles else default

    def drive(self):
        for role, value in self.regs.items():
            port = self.roles[role]
            self.bw.dut[port].value = value & MASKS[INDEX[port]]

    def start(self, fill, seed, latency):
        """`<iface>_respond(fill, seed, latency)`: fill the memory, then answer."""
        self.words = fill_memory(self.bw.rng, fill, seed, self.dw, self.templates, self.fields, self.prologue,
                                 self.lanes, self.idioms)
        self.rng.state = seed & MASK32
        self.latency = latency
        self.restart()
        self.bw.own([self.roles[r] for r in self.driven])
        self.drive()
        if self.task is None:
            self.task = cocotb.start_soon(self.run())

    def restart(self):
        pass

    def rough_error(self, draw, shift=8):
        """Whether this answer is an error: one in sixteen when rough (`sv_common.rough_error`)."""
        return self.latency >= ROUGH_LATENCY and (draw >> shift) % 16 == 0

    def start_stall(self, draw, shift, every):
        """Start a long stall one time in `every` when rough (`sv_common._start_stall`)."""
        if self.latency >= ROUGH_LATENCY and (draw >> shift) % every == 0:
            self.long = (self.latency * LONG_STALL_CLOCKS) << (draw >> 30)

    def long_stall(self, draw):
        """Count a long stall down, or start one (`sv_common.long_stall`)."""
        if self.long > 0:
            self.long -= 1
        else:
            self.start_stall(draw, 20, LONG_STALL_EVERY)

    def slow_answer(self, draw, shift):
        """Make this answer wait a long stall, one time in SLOW_ANSWER_EVERY (`sv_common.slow_answer`)."""
        self.start_stall(draw, shift, SLOW_ANSWER_EVERY)

    def stop(self):
        if self.task is not None:
            self.task.cancel()
            self.task = None
        self.regs = {role: 0 for role in self.driven}
        self.bw.release([self.roles[r] for r in self.driven])
'''
"""What every hand-written responder shares."""

MEM = '''

class MemResponder(Responder):
    """A valid/ready (or req/ack) memory interface: ready for one cycle per request, after 0..latency waits."""

    def restart(self):
        self.wait = 0

    async def run(self):
        bw, r, q = self.bw, self.roles, self.regs
        while True:
            await bw.rise()
            ready = 0
            if bw.in_reset():  # a responder resets with the system (`sv_common.responder_off`)
                self.wait = 0
            elif self.high("valid") and not q["ready"]:
                if self.wait > 0:
                    self.wait -= 1
                else:
                    ready = 1
                    if "addr" in r:
                        index = self.index(self.high("addr"))
                        if "rdata" in q:
                            q["rdata"] = self.words[index]
                        strobes = self.high("wstrb") if "wstrb" in r else None
                        writes = strobes != 0 if "wstrb" in r else "we" in r and self.high("we")
                        if "wdata" in r and writes:
                            write_bytes(self.words, index, self.high("wdata"), strobes, self.dw)
                    elif "rdata" in q:
                        q["rdata"] = self.rng.state
                    if self.latency > 0:
                        self.wait = self.rng.next() % (self.latency + 1)
            q["ready"] = ready
            self.drive()
'''
"""Memory / req-ack responder (no cocotb extension covers a generic memory port)."""

SPLIT = '''

class SplitResponder(Responder):
    """A split-transaction port: requests taken while accept is high, answered in order after 0..latency waits."""

    def ports(self, requests, writes, byte_strobes, room):
        """The roles that make requests, the one that says a request writes, whether `wstrb` holds
        byte strobes, the queue's room."""
        self.requests = requests
        self.writes = writes
        self.byte_strobes = byte_strobes
        self.room = room
        self.queue = []
        return self

    def restart(self):
        self.wait = 0

    def stop(self):
        Responder.stop(self)
        self.queue = []

    async def run(self):
        bw, r, q = self.bw, self.roles, self.regs
        while True:
            await bw.rise()
            q["resp"] = 0
            if "err" in q:
                q["err"] = 0
            if bw.in_reset():  # requests in flight are dropped, never answered after the reset
                self.queue, self.wait, q["accept"] = [], 0, 0
                self.drive()
                continue
            if self.queue:
                if self.wait > 0:
                    self.wait -= 1
                else:
                    addr, tag = self.queue.pop(0)
                    q["resp"] = 1
                    if "rdata" in q:
                        q["rdata"] = self.words[self.index(addr)]
                    if "rtag" in q:
                        q["rtag"] = tag
                    if "err" in q:  # a rough memory answers one request in sixteen with an error
                        q["err"] = int(self.rough_error(self.rng.state))
                    if self.latency > 0:
                        self.wait = self.rng.next() % (self.latency + 1)
            if q["accept"] and any(self.high(role) for role in self.requests):
                addr = self.high("addr")
                if "wdata" in r and self.writes and self.high(self.writes):
                    write_bytes(self.words, self.index(addr), self.high("wdata"),
                                self.high("wstrb") if self.byte_strobes else None, self.dw)
                self.queue.append((addr, self.high("tag")))
            self.rng.next()
            q["accept"] = int(len(self.queue) < self.room - 1 and (self.latency == 0 or self.rng.state % 4 != 0))
            self.drive()
'''
"""Split-transaction responder (`sv_responders._split_process`, request for request)."""

WB_RESP = '''

class WishboneResponder(Responder):
    """A Wishbone master's slave: ack one cycle after each strobe (stalls drawn when latency > 0, some ERR when rough)."""

    def restart(self):
        self.long = 0

    async def run(self):
        bw, r, q = self.bw, self.roles, self.regs
        while True:
            await bw.rise()
            stalled = q.get("stall", 0)
            acked, erred = q["ack"], q.get("err", 0)
            q["ack"] = 0
            if "err" in q:
                q["err"] = 0
            if bw.in_reset():  # a long stall in progress ends with the reset
                self.long = 0
                self.drive()
                continue
            if self.latency >= ROUGH_LATENCY:
                self.long_stall(self.rng.next())
            if "stall" in q:
                q["stall"] = int(self.latency > 0 and self.rng.next() % 4 == 0 or self.long > 0)
            else:
                stalled = self.long > 0
            # pipelined: every strobe STALL lets through; classic: the edge that sees the ACK is no new request
            again = "stall" not in q and (acked or erred)
            if self.high("cyc", 1) and self.high("stb") and not stalled and not again:
                # a rough memory ends one cycle in sixteen with ERR instead of ACK (and stores nothing)
                if "err" in q:
                    self.rng.next()
                bad = "err" in q and self.rough_error(self.rng.state)
                q["ack"] = int(not bad)
                if "err" in q:
                    q["err"] = int(bad)
                index = self.index(self.high("addr")) if "addr" in r else 0
                if "rdata" in q:
                    q["rdata"] = self.words[index]
                if "wdata" in r and "we" in r and self.high("we") and not bad:
                    write_bytes(self.words, index, self.high("wdata"), self.high("sel") if "sel" in r else None,
                                self.dw)
            self.drive()
'''
"""Wishbone responder (no cocotb extension for Wishbone is installed)."""

AHB_RESP = '''

class AhbResponder(Responder):
    """An AHB-Lite manager's memory: each data phase after 0..latency wait states, some ERROR when rough (the SV process)."""

    def restart(self):
        self.wait = self.error = 0
        self.phase, self.phase_addr, self.phase_write, self.phase_lanes = False, 0, False, 0
        self.regs["hready"] = 1

    async def run(self):
        bw, r, q = self.bw, self.roles, self.regs
        lanes = max(1, self.dw // 8)
        low = (lanes - 1).bit_length()
        full = (1 << lanes) - 1
        while True:
            await bw.rise()
            if bw.in_reset():  # the data phase in flight is dropped; HREADY high, as in reset
                self.phase, self.wait, self.error, q["hready"] = False, 0, 0, 1
                self.drive()
                continue
            if q["hready"]:
                # the data phase ends; the address phase on the bus becomes the next one
                if self.phase and self.phase_write and "wdata" in r and self.error == 0:
                    write_bytes(self.words, self.index(self.phase_addr), self.high("wdata"), self.phase_lanes, self.dw)
                self.phase = bool((self.high("htrans") >> 1) & 1)
                self.phase_addr, self.phase_write = self.high("addr"), bool(self.high("hwrite"))
                size = self.high("hsize")
                narrow = "hsize" in r and lanes > 1 and size < low
                self.phase_lanes = ((((1 << (1 << size)) - 1) << (self.phase_addr & (lanes - 1))) & full
                                    if narrow else full)
                self.wait = self.error = 0
                if self.phase and self.latency > 0:
                    draw = self.rng.next()
                    self.wait = draw % (self.latency + 1)
                    if "hresp" in r and self.rough_error(draw):
                        self.error, self.wait = 2, 0  # an ERROR: two cycles of HRESP
            elif self.wait > 0:
                self.wait -= 1
            elif self.error == 2:
                self.error = 1
            q["hready"] = int(not self.phase or (self.wait == 0 and self.error != 2))
            if self.phase and not self.phase_write and "rdata" in q:
                q["rdata"] = self.words[self.index(self.phase_addr)]
            if "hresp" in q:
                q["hresp"] = int(self.error != 0)
            self.drive()
'''
"""AHB-Lite responder (no cocotb extension for AHB is installed)."""

AXI_RESP = '''

def axi_next(addr, size, burst, length, mask):
    """The address of a burst's next beat (`bw_<n>_next` of the SV process): FIXED, WRAP, else INCR."""
    inc = (1 << size) & mask
    span = (inc * (length + 1)) & mask
    if burst == 0:
        return addr
    if burst == 2:
        return ((addr & ~(span - 1)) | ((addr + inc) & (span - 1))) & mask
    return ((addr & ~(inc - 1)) + inc) & mask


class AxiHandResponder(Responder):
    """An AXI master's slave, one write and one read burst at a time (the SV process; for ports AxiRam cannot take)."""

    def restart(self):
        self.aw_got = self.w_done = self.ar_got = False
        self.aw = [0, 0, max(0, (self.dw // 8).bit_length() - 1), 1, 0]  # address, len, size, burst, id
        self.ar = list(self.aw)
        self.w_beat = self.r_beat = 0
        self.long = 0

    def burst(self, c):
        """A channel's address, length, size, burst type and ID as the design drives them now."""
        size = max(0, (self.dw // 8).bit_length() - 1)
        return [self.high(c + "addr"), self.high(c + "len", 0), self.high(c + "size", size),
                self.high(c + "burst", 1), self.high(c + "id", 0)]

    async def run(self):
        bw, q = self.bw, self.regs
        full = (1 << max(1, self.dw // 8)) - 1
        mask = (1 << len(bw.dut[self.roles["awaddr"]])) - 1
        while True:
            await bw.rise()
            if bw.in_reset():  # a slave resets with the system: answers in flight are dropped
                self.restart()
                for role in ("awready", "wready", "bvalid", "arready", "rvalid"):
                    q[role] = 0
                self.drive()
                continue
            draw = self.rng.next()
            self.long_stall(draw)

            pace = self.latency == 0 or draw % (self.latency + 1) == 0

            old = dict(q)
            for role in ("awready", "wready", "arready"):
                q[role] = 0
            if old["awready"] and self.high("awvalid"):
                self.aw_got, self.w_beat, self.aw = True, 0, self.burst("aw")
            elif not self.aw_got and self.high("awvalid") and pace and not self.long:
                q["awready"] = 1
            if old["wready"] and self.high("wvalid"):
                if "wdata" in self.roles:
                    write_bytes(self.words, self.index(self.aw[0]), self.high("wdata"), self.high("wstrb", full), self.dw)
                if self.high("wlast", 0) or self.w_beat >= self.aw[1]:
                    self.w_done = True
                    self.slow_answer(draw, 24)
                self.aw[0] = axi_next(self.aw[0], self.aw[2], self.aw[3], self.aw[1], mask)
                self.w_beat += 1
            elif self.aw_got and not self.w_done and self.high("wvalid") and pace and not self.long:
                q["wready"] = 1
            if old["bvalid"] and self.high("bready", 1):
                q["bvalid"] = 0
            elif self.aw_got and self.w_done and not old["bvalid"] and pace and not self.long:
                q["bvalid"] = 1
                if "bid" in q and "awid" in self.roles:
                    q["bid"] = self.aw[4]
                if "bresp" in q:
                    q["bresp"] = 2 if self.rough_error(draw) else 0
                self.aw_got = self.w_done = False
            if old["arready"] and self.high("arvalid"):
                self.ar_got, self.r_beat, self.ar = True, 0, self.burst("ar")
                self.slow_answer(draw, 26)
            elif not self.ar_got and self.high("arvalid") and pace and not self.long:
                q["arready"] = 1
            if old["rvalid"] and self.high("rready", 1):
                q["rvalid"] = 0
                if self.r_beat > self.ar[1]:
                    self.ar_got = False
            elif self.ar_got and not old["rvalid"] and self.r_beat <= self.ar[1] and pace and not self.long:
                if "rdata" in q:
                    q["rdata"] = self.words[self.index(self.ar[0])]
                if "rlast" in q:
                    q["rlast"] = int(self.r_beat == self.ar[1])
                if "rid" in q and "arid" in self.roles:
                    q["rid"] = self.ar[4]
                if "rresp" in q:
                    q["rresp"] = 2 if self.rough_error(draw, 12) else 0
                q["rvalid"] = 1
                self.ar[0] = axi_next(self.ar[0], self.ar[2], self.ar[3], self.ar[1], mask)
                self.r_beat += 1
            self.drive()
'''
"""AXI responder mirroring the SV process (the fallback for AxiRam/AxiLiteRam)."""

AXI_RESP_EXT = '''

class AxiRamResponder:
    """`respond` for an AXI master through cocotbext-axi's AxiRam (AxiLiteRam for AXI4-Lite).

    The memory holds the SV model's words; latency > 0 pauses the address and write-data
    channels on the cycles the SV process would not accept (the same xorshift32 draws).
    """

    def __init__(self, bw, ram, driven, dw, templates, fields):
        self.bw = bw
        self.ram = ram
        self.driven = driven
        self.dw = dw
        self.templates = templates
        self.fields = fields
        self.gates = (ram.write_if.aw_channel, ram.write_if.w_channel, ram.read_if.ar_channel)
        self.parts = (*self.gates, ram.write_if.b_channel, ram.read_if.r_channel, ram.write_if, ram.read_if)
        self.rng = Rng()
        self.latency = 0
        self.task = None
        self.prologue = ()
        self.idioms = ()
        self.lanes = 1

    def start_with(self, words, idioms=()):
        """A decoded memory's first words (a RISC-V core's prologue, `isa.prologue`; with fill 4,
        the `idioms`, `isa.idioms`)."""
        self.prologue = words
        self.idioms = idioms
        return self

    def per_lane(self, lanes):
        """Each 32-bit lane of a decoded word draws its own template (two instructions per 64-bit fetch)."""
        self.lanes = lanes
        return self

    def start(self, fill, seed, latency):
        words = fill_memory(self.bw.rng, fill, seed, self.dw, self.templates, self.fields, self.prologue,
                                 self.lanes, self.idioms)
        self.ram.write(0, b"".join(w.to_bytes(self.dw // 8, "little") for w in words))
        self.rng.state = seed & MASK32
        self.latency = latency
        self.bw.own(self.driven)
        for part in self.parts:
            part.assert_reset(False)
        if latency > 0 and self.task is None:
            self.task = cocotb.start_soon(self.throttle())

    async def throttle(self):
        while True:
            ok = self.rng.next() % (self.latency + 1) == 0
            for gate in self.gates:
                gate.pause = not ok
            await self.bw.rise()

    def stop(self):
        if self.task is not None:
            self.task.cancel()
            self.task = None
        for gate in self.gates:
            gate.pause = False
        for part in self.parts:
            part.assert_reset(True)
        self.bw.release(self.driven)
'''
"""AXI responder through cocotbext-axi."""

SERIAL = '''

class SerialPin:
    """`serial` frames through cocotbext-uart's UartSource: start bit, 8 data bits LSB first, stop bits.

    Parity rides as a ninth data bit; a break (data > 0xff: the line low for 12 bit times)
    and frames sent while a loopback drives the pin are written by hand, as the SV task does.
    """

    def __init__(self, bw, port):
        self.bw = bw
        self.port = port
        self.sources = {}
        logging.getLogger("cocotb." + bw.dut[port]._path).setLevel(logging.WARNING)

    async def send(self, period, data, parity, stop):
        bw = self.bw
        looped = INDEX[self.port] in bw.owned
        for byte in data:
            if byte > 0xFF:
                bw.put_name(self.port, 0)
                await bw.step(period * 12)
                bw.put_name(self.port, 1)
                await bw.step(period)
                continue
            bits = 9 if parity else 8
            if stop == 0 and not looped:
                # A missing stop bit (a framing error): no UART extension sends one, so by hand.
                ones = bin(byte).count("1") % 2
                line = [0, *((byte >> k) & 1 for k in range(8))]
                line += [ones if parity == 1 else 1 - ones] if parity else []
                for level in [*line, 0]:
                    bw.put_name(self.port, level)
                    await bw.step(period)
                bw.put_name(self.port, 1)
                await bw.step(period)
                continue
            if not looped:
                key = (period, bits, stop)
                if key not in self.sources:
                    # UartSource times bits as int(1e9 / baud) ns: a quarter ns over makes that exact.
                    baud = 1e9 / (period * PERIOD_NS + 0.25)
                    self.sources[key] = UartSource(bw.dut[self.port], baud=baud, bits=bits, stop_bits=stop)
                ones = bin(byte).count("1") % 2
                frame = byte | ((ones if parity == 1 else 1 - ones) << 8 if parity else 0)
                self.sources[key].write_nowait([frame])
            await bw.step(period * (1 + bits + stop))
        bw.values[INDEX[self.port]] = 1
        if not looped:
            bw.applied[INDEX[self.port]] = 1
'''
"""Serial input through cocotbext-uart."""

LOOPBACK = '''

class Loopback:
    """`loopback`: the design's serial output copied onto its serial input until turned off or reset."""

    def __init__(self, bw, pin, partner):
        self.bw = bw
        self.pin = pin
        self.partner = partner
        self.task = None

    def start(self):
        self.bw.own([self.pin])
        if self.task is None:
            self.task = cocotb.start_soon(self.run())

    async def run(self):
        source, sink = self.bw.dut[self.partner], self.bw.dut[self.pin]
        while True:
            sink.value = source.value
            await ValueChange(source)

    def stop(self):
        if self.task is not None:
            self.task.cancel()
            self.task = None
        self.bw.release([self.pin])
'''
"""Serial loopback (a wire, no extension needed)."""
