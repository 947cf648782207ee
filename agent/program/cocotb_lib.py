"""The Python runtime a rendered cocotb test carries: the random source, field values, steps and the core operations.

The text below is copied into every test `cocotb.py` renders (a generated test is one
self-contained file, and the sandbox guard allows no imports of ours). It mirrors the SV
task library of `sv_common.py` statement for statement: the same xorshift32 draws in the
same order (`rng.py`), values written at the falling edge of the first clock, field values
kept as the testbench's variables hold them, so a program applies the same stimulus in
either testbench. The text obeys `sim.sandbox.guard.check_cocotb`: no reflection, no
private attributes but `_log`/`_name`/`_path`.
"""

from __future__ import annotations

from collections.abc import Iterable

CORE = '''
MASK32 = 0xFFFFFFFF
BITS = tuple(width * math.prod(dims) for _, width, dims, _, _, _ in FIELDS)
MASKS = tuple((1 << b) - 1 for b in BITS)
INDEX = {f[0]: i for i, f in enumerate(FIELDS)}
RESETS = tuple(i for i, f in enumerate(FIELDS) if f[3])


class Rng:
    """xorshift32 (13, 17, 5): `bw_rand()` of the SV testbench, bit for bit."""

    def __init__(self, seed=1):
        self.state = seed & MASK32

    def next(self):
        """Advance and return the new state."""
        s = self.state
        s ^= (s << 13) & MASK32
        s ^= s >> 17
        s ^= (s << 5) & MASK32
        self.state = s
        return s

    def bits(self, width):
        """`bw_bits(w)`: 1-3 set bits 15 % of the time (fields over 4 bits), else `width` uniform bits."""
        if width > 4 and self.next() % 100 < 15:
            value = 0
            for _ in range(1 + self.next() % 3):
                value |= 1 << (self.next() % width)
            return value
        value = 0
        for k in range(0, width, 32):
            value |= self.next() << k
        return value & ((1 << width) - 1)


def draw_step(rng, values, only, pal, keep, resets):
    """One step of `bw_random`: each chosen field keeps, takes a palette value or draws bits."""
    for i, f in enumerate(FIELDS):
        if f[3] or not (only >> i) & 1:
            continue
        r = rng.next() % 100
        if r < keep:
            continue
        palette = PALETTES.get(i, ())
        if palette and r < keep + pal:
            values[i] = palette[rng.next() % len(palette)]
        else:
            values[i] = rng.bits(BITS[i])
    if resets > 0 and RESETS:
        r = rng.next() % 1000
        for i in RESETS:
            values[i] = FIELDS[i][4] if r < resets else FIELDS[i][5]


def draw_hold(rng, maxhold):
    """Cycles one random step lasts."""
    return 1 + rng.next() % maxhold if maxhold > 1 else 1


def pattern(rng, code, k, count, bits):
    """`bw_pattern`: entry k of `count` written by `fill` with pattern `code`, as a `bits`-bit value."""
    m = (1 << bits) - 1
    span = count - 1 if count > 1 else 1
    full = (1 << W) - 1
    if count == 1 and code in (0, 1, 5):
        return (1 << (bits - 1)) & full
    if code == 0:
        return (k * m // span) & full
    if code == 1:
        return ((span - k) * m // span) & full
    if code == 2:
        return m & full
    if code == 3:
        return (int("01" * W, 2) if k % 2 else int("10" * W, 2)) & m & full
    if code == 4:
        return (1 << (k % bits)) & full
    if code == 5:
        return ((m + 1) // (k + 1)) & full
    return rng.bits(bits)


def read(handle):
    """An output's value as an unsigned number (None while it is X or Z)."""
    try:
        return int(handle.value)
    except ValueError:
        return None


class Bench:
    """The DUT as the program drives it: field values as the SV testbench's variables hold them.

    A field driven by a background process (a responder, a sink, a loopback) is *owned*: the
    program still changes its value, as the SV testbench changes the variable behind a mux,
    but only the process drives the port until the next reset.
    """

    def __init__(self, dut):
        self.dut = dut
        self.handles = [dut[f[0]] for f in FIELDS]
        self.clock = dut[CLOCK] if CLOCK else None
        self.values = [f[5] for f in FIELDS]
        self.applied = [None] * len(FIELDS)
        self.owned = set()
        self.rng = Rng()
        self.avoids = []
        self.drivers = {}
        self.active = {}

    # -- values

    def apply(self, i):
        """Write field i's value to the DUT unless a process owns it or it is already there."""
        value = self.values[i]
        if i in self.owned or self.applied[i] == value:
            return
        self.applied[i] = value
        name, width, dims = FIELDS[i][:3]
        if not dims:
            self.handles[i].value = value
            return
        for k, index in enumerate(ELEMENTS[name]):
            element = self.handles[i]
            for j in index:
                element = element[j]
            element.value = (value >> (k * width)) & ((1 << width) - 1)

    def put(self, i, value):
        """`bw_put(i, v)`: set field i (truncated to its width)."""
        self.values[i] = value & MASKS[i]
        self.apply(i)

    def put_name(self, name, value):
        """Set a field by port name."""
        self.put(INDEX[name], value)

    def get_name(self, name):
        """A field's value by port name."""
        return self.values[INDEX[name]]

    def port(self, name):
        """A port's current value on the DUT (0 while it is X or Z)."""
        return read(self.dut[name]) or 0

    def in_reset(self):
        """Whether some reset input of the DUT is asserted now (`sv_common.reset_active`)."""
        return any(read(self.handles[i]) == FIELDS[i][4] for i in RESETS)

    def set(self, pairs):
        """`set`: field = value for each pair; they hold until changed."""
        for name, value in pairs.items():
            self.put_name(name, value)

    def idle(self):
        """Every data input back to 0 (serial inputs idle high); resets untouched."""
        for i, f in enumerate(FIELDS):
            if not f[3]:
                self.put(i, MASKS[i] if i in SERIAL_PINS else 0)

    def power_up(self):
        """Time 0: inputs idle, resets released (the program's `reset` asserts them)."""
        for i in range(len(FIELDS)):
            self.apply(i)

    def sync(self, names):
        """Take the values a driver left on these inputs as the fields' values (as SV tasks leave them)."""
        for name in names:
            i = INDEX.get(name)
            if i is None or i in self.owned:
                continue
            value = read(self.handles[i]) if not FIELDS[i][2] else None
            if value is None:
                self.applied[i] = None
            else:
                self.values[i] = self.applied[i] = value

    # -- time

    async def step(self, n=1):
        """`bw_step(n)`: n falling edges of the first clock (n delays without a clock)."""
        if n <= 0:
            return
        if self.clock is None:
            await Timer(PERIOD_NS * n, unit="ns")
        elif n == 1:
            await FallingEdge(self.clock)
        else:
            await ClockCycles(self.clock, n, FallingEdge)

    async def rise(self):
        """The next rising edge (half a step without a clock)."""
        if self.clock is None:
            await Timer(PERIOD_NS // 2 or 1, unit="ns")
        else:
            await RisingEdge(self.clock)

    async def fall(self):
        """The next falling edge (half a step without a clock)."""
        if self.clock is None:
            await Timer(PERIOD_NS - (PERIOD_NS // 2 or 1) or 1, unit="ns")
        else:
            await FallingEdge(self.clock)

    # -- background processes

    def own(self, names):
        """Let a background process drive these inputs."""
        for name in names:
            if name in INDEX:
                self.owned.add(INDEX[name])

    def release(self, names):
        """Give these inputs back to the program (the DUT sees the fields' values again)."""
        for name in names:
            i = INDEX.get(name)
            if i is not None and i in self.owned:
                self.owned.discard(i)
                self.applied[i] = None
                self.apply(i)

    def start(self, key, driver):
        """Mark a background driver as running (stopped by the next reset)."""
        self.active[key] = driver

    def stop(self, key):
        """Stop one background driver."""
        driver = self.active.pop(key, None)
        if driver is not None:
            driver.stop()

    # -- operations

    async def reset(self, cycles):
        """`reset`: background processes off, data idle, resets asserted for `cycles`, then released."""
        for key in list(self.active):
            self.stop(key)
        self.idle()
        for i in RESETS:
            self.put(i, FIELDS[i][4])
        await self.step(cycles)
        for i in RESETS:
            self.put(i, FIELDS[i][5])
        await self.step(1)

    async def hold(self, cycles):
        """`hold`: keep every input for some cycles."""
        await self.step(cycles)

    def apply_avoid(self):
        """Break every recorded `avoid` combination by stepping its first field's value."""
        for fields, values in self.avoids:
            if all(self.values[f] == v for f, v in zip(fields, values, strict=True)):
                self.put(fields[0], values[0] + 1)

    def avoid(self, pairs):
        """`avoid`: random values never make this combination (at most MAX_AVOID rules)."""
        if len(self.avoids) < MAX_AVOID:
            self.avoids.append((tuple(INDEX[n] for n in pairs), tuple(pairs.values())))

    async def random(self, cycles, seed, pal, keep, maxhold, resets, only):
        """`random`: seeded values on the fields in the `only` mask (bit i: field i)."""
        self.rng.state = seed & MASK32
        for _ in range(cycles):
            draw_step(self.rng, self.values, only, pal, keep, resets)
            for i in range(len(FIELDS)):
                self.apply(i)
            self.apply_avoid()
            await self.step(draw_hold(self.rng, maxhold))

    async def corners(self):
        """`corners`: each data input through its palette with the others idle; then all ones, all zeros."""
        for i, f in enumerate(FIELDS):
            if f[3] or not PALETTES.get(i):
                continue
            for value in PALETTES[i]:
                self.put(i, value)
                self.apply_avoid()
                await self.step(1)
            self.put(i, 0)
        for i, f in enumerate(FIELDS):
            if not f[3]:
                self.put(i, MASKS[i])
        await self.step(2)
        self.idle()
        await self.step(2)

    async def walk(self):
        """`walk`: walking ones, then walking zeros, over every data input at once."""
        data = [i for i, f in enumerate(FIELDS) if not f[3]]
        width = min(64, max([BITS[i] for i in data], default=0))
        for inv in (0, 1):
            for b in range(width):
                for i in data:
                    self.put(i, ((1 << b) if b < BITS[i] else 0) ^ (MASKS[i] if inv else 0))
                await self.step(1)

    async def toggle(self, name, bit):
        """`toggle`: one input bit high for a step, then low for a step."""
        i = INDEX[name]
        self.put(i, self.values[i] | (1 << bit))
        await self.step(1)
        self.put(i, self.values[i] & ~(1 << bit))
        await self.step(1)

    async def wait(self, name, value, timeout):
        """`wait`: step until an output equals a value, or `timeout` steps."""
        target = value & ((1 << OUTPUTS[name]) - 1)
        handle = self.dut[name]
        for _ in range(timeout):
            if read(handle) == target:
                break
            await self.step(1)
'''
"""Random source, field values, steps and the operations every design has (`reset` ... `wait`)."""

PORTS = '''

class WritePort:
    """A discovered write port: enables, an address input and data slices held for `hold` steps."""

    def __init__(self, bw, spec):
        self.bw = bw
        self.enable, self.address, self.data, self.idle, self.hold, self.addresses, self.aw, self.dw = spec

    async def write(self, addr, data):
        """`<port>_write(a, d)`: one write, then the enables back to idle."""
        bw = self.bw
        data &= (1 << self.dw) - 1
        for name, value in self.enable:
            bw.put_name(name, value)
        if self.address:
            bw.put_name(self.address, addr & ((1 << self.aw) - 1))
        for name, lsb, bits in self.data:
            mask = (1 << bits) - 1
            if BITS[INDEX[name]] > bits:
                bw.put_name(name, (bw.get_name(name) & ~(mask << lsb)) | ((data & mask) << lsb))
            else:
                bw.put_name(name, data & mask)
        await bw.step(self.hold)
        for name, value in self.idle:
            bw.put_name(name, value)

    async def fill(self, code, seed):
        """`<port>_fill(pattern, seed)`: every address written with a pattern."""
        self.bw.rng.state = seed & MASK32
        for k, addr in enumerate(self.addresses):
            await self.write(addr, pattern(self.bw.rng, code, k, len(self.addresses), self.dw))
'''
"""Write ports (`write`, `fill`)."""

MEMORY = '''

def fill_memory(rng, fill, seed, dw, templates, fields, prologue=(), lanes=1, idioms=()):
    """The words a responder's memory model holds (`<iface>_respond`'s fill loop, draw for draw;
    a decoded memory then starts with the `prologue`, an idioms one (fill 4) with the `idioms`,
    or the prologue when there are none). `lanes` > 1: each 32-bit lane of a decoded word draws
    its own template (one instruction each)."""
    rng.state = seed & MASK32
    mask = (1 << dw) - 1
    words = []
    for k in range(MEM_WORDS):
        decoded = fill in (0, 4)
        if decoded and templates and lanes > 1:
            word = 0
            for lane in range(lanes):
                j = rng.next() % len(templates)
                instruction = (rng.bits(32) & ~templates[j][0]) | templates[j][1]
                if fill == 4 and idioms:
                    instruction = rv_tidy(instruction, rng.next())
                word |= instruction << (32 * lane)
        elif decoded and templates:
            j = rng.next() % len(templates)
            word = (rng.bits(dw) & ~templates[j][0]) | templates[j][1]
            if fill == 4 and idioms and dw == 32:
                word = rv_tidy(word, rng.next())
        elif decoded:
            word = rng.bits(dw)
            for g, (lsb, width, values) in enumerate(fields):
                if g == len(fields) - 1 or rng.next() % 5 != 0:
                    field_mask = ((1 << width) - 1) << lsb
                    word = (word & ~field_mask) | ((values[rng.next() % len(values)] << lsb) & field_mask)
        elif fill == 1:
            word = rng.bits(dw)
        elif fill == 2:
            word = 0
        else:
            word = k * max(1, dw // 8)
        words.append(word & mask)
    start = idioms if fill == 4 and idioms else prologue if fill in (0, 4) else ()
    words[:len(start)] = start[:MEM_WORDS]
    return words


def rv_tidy(word, draw):
    """A RISC-V instruction of a fill=idioms memory (`bw_<iface>_tidy`, draw for draw): eleven
    loads and stores in twelve from sp at an offset aligned to their size; branches and jumps
    1 to 7 instructions forward; MRET and SRET a NOP; mtvec's accesses to mscratch; no write to sp."""
    opcode = word & 0x7F
    if opcode in (0x03, 0x23) and draw % 12:
        low = (1 << ((word >> 12) & 3)) - 1
        word = (word & ~(0x1F << 15)) | (2 << 15)
        word &= ~(low << (20 if opcode == 0x03 else 7))
    if opcode == 0x63:  # imm[12|10:5] and imm[11], imm[1] cleared; imm[4:2] at least 1
        word &= ~(0x7F << 25 | 3 << 7)
        word |= 0 if (word >> 9) & 7 else 1 << 9
    if opcode == 0x6F:  # imm[20|10:5], imm[1], imm[11], imm[19:12] cleared; imm[4:2] at least 1
        word &= ~(0x7F << 25 | 0x3FF << 12)
        word |= 0 if (word >> 22) & 7 else 1 << 22
    if word in (0x30200073, 0x10200073):
        word = 0x00000013
    if opcode == 0x73 and (word >> 12) & 7 and word >> 20 == 0x305:  # mtvec keeps the handler
        word = (word & 0xFFFFF) | 0x340 << 20
    if opcode not in (0x23, 0x63) and (word >> 7) & 0x1F == 2:
        word = (word & ~(0x1F << 7)) | (3 << 7)
    return word


def write_bytes(words, index, data, strobes, dw):
    """Store `data` into word `index`, byte lanes chosen by `strobes` (None: the whole word)."""
    if strobes is None:
        words[index] = data & ((1 << dw) - 1)
        return
    for b in range(max(1, dw // 8)):
        if (strobes >> b) & 1:
            lane = 0xFF << (8 * b)
            words[index] = (words[index] & ~lane) | (data & lane)
'''
"""Responder memory models (`respond`)."""


def section(title: str) -> str:
    """A comment line that opens a part of the generated module."""
    return f"\n\n# {'-' * 8} {title}\n"


def py_tuple(items: Iterable[object]) -> str:
    """A Python tuple literal (one-element tuples keep their comma)."""
    parts = [repr(i) for i in items]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def hex_tuple(values: Iterable[int]) -> str:
    """A tuple of numbers in hex."""
    parts = [hex(v) for v in values]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
