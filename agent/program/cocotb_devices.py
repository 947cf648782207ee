"""Devices on a design's lines in a rendered cocotb test: an I2C target, an SPI NOR flash, an SD card.

The Python text of `I2cTarget`, the twin of `sv_i2c.process`, and of `SpiDevice`, the twin of
`sv_spi.process` (same states, same random draws in the same order, same edges: the SPI device
looks at the lines on each falling clock edge and starts on the falling edge after `respond`).
No cocotb extension for SPI is installed (cocotbext-spi's devices have their own timing and no
SD card).
"""

from __future__ import annotations

from agent.program import sv_spi

I2C_RESP = '''

class I2cTarget(Responder):
    """A target device on the design's I2C lines, with another controller when latency > 0 (the SV process)."""

    IDLE, ADDR, ADDR_ACK, WRITE, WRITE_ACK, READ, READ_ACK, IGNORE = range(8)

    H_START, H_START_LOW, H_LOW, H_RISE, H_HIGH, H_STOP_LOW, H_STOP_RISE, H_STOP, H_END = range(1, 10)
    hosting, addresses = False, ()

    def rules(self, other, every, arbitration):
        """Another controller's transfer length, how rarely it starts one, how rarely it wins a bit."""
        self.other, self.every, self.arbitration = other, every, arbitration
        return self

    def host(self, addresses, target_every, wait):
        """The other controller makes whole transfers, to the design's own `addresses` or a random one."""
        self.hosting, self.addresses, self.target_every, self.wait = True, tuple(addresses), target_every, wait
        return self

    def restart(self):
        self.regs["scl_in"] = self.regs["sda_in"] = 1  # an idle bus
        self.st, self.cnt, self.ptr, self.hold, self.om, self.sr = self.IDLE, 0, 0, 0, 0, 0
        self.rw = self.nak = self.first = 0
        self.dscl = self.dsda = self.pscl = self.psda = 1
        self.hst, self.hc, self.hh, self.hw, self.hslot, self.hbyte, self.hn = 0, 0, 4, 0, 0, 0, 1
        self.hrw = self.hack = self.hsr = 0
        self.hreg = -1

    def released(self, line):
        """The design leaves `line` high (as `sv_i2c.released`)."""
        if not self.drives(line):
            return 1  # a target that never stretches the clock
        value = self.high(line + "_o") if line + "_o" in self.roles else None
        if line + "_t" in self.roles:
            off = self.high(line + "_t")
        elif line + "_oe" in self.roles:
            off = int(not self.high(line + "_oe"))
        elif line + "_oen" in self.roles:
            off = self.high(line + "_oen")
        else:
            return value
        return int(off or value) if value is not None else off

    def byte(self):
        return self.words[self.ptr % MEM_WORDS] & 0xFF

    async def run(self):
        bw, q = self.bw, self.regs
        while True:
            await bw.rise()
            rough = self.latency > 0
            scl = int(self.released("scl") and self.dscl)
            sda = int(self.released("sda") and self.dsda)
            if self.hold > 0:
                self.hold -= 1
                if self.hold == 0:
                    self.dscl = 1
            idle = self.st == self.IDLE and scl and sda
            if not self.hosting:
                if idle and self.om == 0 and rough and self.rng.next() % self.every == 0:
                    self.om = self.other
            elif self.drives("scl"):  # a controller with a slave mode: half the other controller's turns address it
                if self.hst == 0 and idle and self.om == 0 and rough and self.rng.next() % self.every == 0:
                    if self.rng.next() % 2 == 0:
                        self.om = self.other
                    else:
                        self.host_start()
            elif self.hst == 0 and idle and self.rng.next() % self.target_every == 0:
                self.host_start()
            if self.hst:
                self.host_step(scl, sda)
            elif self.om > 0:
                self.om -= 1
                self.dsda = int(self.om == 0)
                self.dscl = int(not (16 <= self.om < 48))
                if self.om == 0:
                    self.st = self.IDLE
            elif self.pscl and scl and self.psda and not sda:
                self.st, self.cnt, self.dsda = self.ADDR, 0, 1
            elif self.pscl and scl and not self.psda and sda:
                self.st, self.dsda = self.IDLE, 1
            elif not self.pscl and scl:
                if self.st in (self.ADDR, self.WRITE):
                    self.sr = ((self.sr << 1) | sda) & 0xFF
                    self.cnt += 1
                elif self.st == self.READ_ACK:
                    self.nak = sda
            elif self.pscl and not scl:
                self.fall(rough)
            self.pscl, self.psda = scl, sda
            q["scl_in"] = int(self.released("scl") and self.dscl)
            q["sda_in"] = int(self.released("sda") and self.dsda)
            self.drive()

    def drives(self, line):
        """Whether the design has an output on `line` (as `i2c.drives`)."""
        return any(f"{line}_{r}" in self.roles for r in ("o", "t", "oe", "oen"))

    def host_start(self):
        """Draw the other controller's transfer and start it (`sv_i2c.host_start`)."""
        r = self.rng.next()
        self.hh, self.hrw, self.hn = 4 << (r % 5), r >> 3 & 1, 1 + (r >> 4) % 4
        self.hreg = (r >> 16) % 8 if r >> 15 & 1 else -1
        pick = (r >> 6) % 8
        if pick == 0:
            address = 0  # the general call
        elif pick == 1 or not self.addresses:
            address = r >> 8 & 0x7F
        else:
            address = self.addresses[(r >> 8) % len(self.addresses)]
        self.hsr = (address << 1 | self.hrw) & 0xFF
        self.hbyte, self.hslot, self.hst, self.hc = 0, 0, self.H_START, self.hh

    def host_step(self, scl, sda):
        """One clock of the other controller's transfer (`sv_i2c.host_step`)."""
        if self.hc > 0:
            self.hc -= 1
            return
        st, sending = self.hst, self.hbyte == 0 or not self.hrw
        if st == self.H_START:
            self.dsda, self.hc, self.hst = 0, self.hh, self.H_START_LOW
        elif st == self.H_START_LOW:
            self.dscl, self.hc, self.hslot, self.hst = 0, self.hh, 0, self.H_LOW
        elif st == self.H_LOW:
            if self.hslot < 8:
                self.dsda = self.hsr >> (7 - self.hslot) & 1 if sending else 1
            else:
                self.dsda = 1 if sending else int(self.hbyte == self.hn)
            self.hc, self.hw, self.hst = self.hh, 0, self.H_RISE
        elif st in (self.H_RISE, self.H_STOP_RISE):
            self.dscl = 1
            if scl:
                self.hc, self.hst = self.hh, st + 1
            else:
                self.hw += 1
                if self.hw > self.wait:
                    self.hst = self.H_END
        elif st == self.H_HIGH:
            if self.hslot < 8:
                if not sending:
                    self.hsr = (self.hsr << 1 | sda) & 0xFF
            elif sending:
                self.hack = int(not sda)
            self.dscl, self.hc, self.hslot, self.hst = 0, self.hh, self.hslot + 1, self.H_LOW
            if self.hslot == 9:
                self.hslot = 0
                if (sending and not self.hack) or self.hbyte == self.hn:
                    self.hst = self.H_STOP_LOW
                else:
                    self.hbyte += 1
                    if not self.hrw:
                        first = self.hbyte == 1 and self.hreg >= 0
                        self.hsr = self.hreg if first else self.words[self.hbyte % MEM_WORDS] & 0xFF
        elif st == self.H_STOP_LOW:
            self.dsda, self.hc, self.hw, self.hst = 0, self.hh, 0, self.H_STOP_RISE
        elif st == self.H_STOP:
            self.dsda, self.hc, self.hst = 1, self.hh, self.H_END
        else:
            self.dscl = self.dsda = 1
            self.hst, self.st = 0, self.IDLE

    def draw_nak(self, rough):
        self.nak = int(rough and self.rng.next() % 8 == 0)

    def fall(self, rough):
        """SCL fell: the device drives its next bit (the SV `case`)."""
        st = self.st
        if st == self.ADDR:
            if self.cnt == 8:
                self.rw = self.sr & 1
                self.draw_nak(rough)
                self.dsda, self.st = self.nak, self.ADDR_ACK
            elif rough and self.rng.next() % self.arbitration == 0:
                self.dsda, self.om, self.st = 0, 47, self.IGNORE
        elif st == self.ADDR_ACK:
            if self.nak:
                self.st, self.dsda = self.IGNORE, 1
            elif self.rw:
                self.st, self.cnt, self.sr = self.READ, 0, self.byte()
                self.dsda = self.sr >> 7 & 1
            else:
                self.st, self.cnt, self.first, self.dsda = self.WRITE, 0, 1, 1
        elif st == self.WRITE:
            if self.cnt == 8:
                if self.first:
                    self.ptr = self.sr
                else:
                    self.words[self.ptr % MEM_WORDS] = self.sr
                    self.ptr += 1
                self.first = 0
                self.draw_nak(rough)
                self.dsda, self.st = self.nak, self.WRITE_ACK
        elif st == self.WRITE_ACK:
            self.dsda, self.cnt = 1, 0
            self.st = self.IGNORE if self.nak else self.WRITE
        elif st == self.READ:
            self.cnt += 1
            if self.cnt == 8:
                self.dsda, self.st = 1, self.READ_ACK
            else:
                self.dsda = self.sr >> (7 - self.cnt) & 1
        elif st == self.READ_ACK:
            if self.nak:
                self.st, self.dsda = self.IGNORE, 1
            else:
                self.ptr += 1
                self.sr, self.cnt, self.st = self.byte(), 0, self.READ
                self.dsda = self.sr >> 7 & 1
        if self.st not in (self.IDLE, self.IGNORE) and rough:
            self.hold = self.rng.next() % (4 * self.latency + 1)
            if self.hold > 0:
                self.dscl = 0
'''
"""I2C target device (`sv_i2c.process`; cocotbext-i2c's I2cMemory has its own timing and no other controller)."""

SPI_DEVICE = '''

class SpiDevice(Responder):
    """A device on the design's SPI lines: a serial NOR flash or an SD card in SPI mode (the SV process)."""

    def setup(self, kind, flash_id, busy, block):
        """`spi_flash` or `sd`; the flash's JEDEC ID and busy times; the card's block size."""
        self.kind, self.flash_id, self.busy_times, self.block = kind, flash_id, busy, block
        return self

    def restart(self):
        self.pcs, self.bit, self.cnt, self.idx, self.rx, self.tx, self.nxt = 0, 1, 0, 0, 0, 0, 0xFF
        self.psck = self.high("sck")
        # flash
        self.cmd = self.sr = self.cr = self.wsr = self.wcr = self.wel = self.busy = self.ptr = self.addr = 0
        # card
        self.idle, self.app, self.tries, self.oph, self.wst, self.ci, self.multi, self.dlen = 1, 0, 1, 0, 0, 0, 0, 0
        self.arg = self.ext = self.extn = self.ocnt = self.wcnt = self.multiw = self.crc = self.r1 = self.dresp = 0
        self.blen = self.block
        self.put_bit()

    def put_bit(self):
        self.regs["miso"] = self.bit
        if "detect" in self.regs:  # a card in the slot
            self.regs["detect"] = 1
        if "detect_n" in self.regs:
            self.regs["detect_n"] = 0

    def draw(self, m):
        """0..m-1 when rough, else 0 (`bw_<n>_draw`)."""
        return self.rng.next() % m if self.latency > 0 else 0

    async def run(self):
        while True:
            await self.bw.fall()
            if self.kind == "spi_flash" and self.busy > 0:
                self.busy -= 1
            selected = not (self.high("cs") & 1) if "cs" in self.roles else True
            sck = self.high("sck")
            if not selected:
                if self.pcs:
                    self.end()
                self.pcs, self.bit = 0, 1
            else:
                if not self.pcs:
                    self.idx = self.cnt = 0
                    if self.kind == "spi_flash":
                        self.nxt = 0xFF
                    self.tx = self.nxt
                    self.bit = self.tx >> 7 & 1
                elif not self.psck and sck:
                    self.rx = ((self.rx << 1) | self.high("mosi")) & 0xFF
                    self.cnt += 1
                    if self.cnt == 8:
                        self.flash_byte() if self.kind == "spi_flash" else self.sd_byte()
                        self.idx += 1
                        self.cnt = 0
                elif self.psck and not sck:
                    if self.cnt == 0:
                        self.tx = self.nxt
                    self.bit = self.tx >> (7 - self.cnt) & 1
                self.pcs = 1
            self.psck = sck
            self.put_bit()
            self.drive()

    def mem(self, at):
        return self.words[at % MEM_WORDS] & 0xFF

    # ---- a NOR flash

    def set_busy(self, base, err):
        self.wel, self.busy = 0, base * (1 + self.latency)
        if self.latency > 0 and err > 0 and self.rng.next() % 4 == 0:
            self.sr |= 1 << err

    def flash_byte(self):
        cmd, idx, rx = self.cmd, self.idx, self.rx
        self.nxt = 0xFF
        if idx == 0:
            self.cmd = cmd = rx
        if self.busy > 0 and cmd not in (0x05, 0x35, 0x9F):
            return
        if cmd == 0x9F:
            self.nxt = self.flash_id[idx % 3]
        elif cmd == 0x05:
            self.nxt = (self.sr & 0xFC) | self.wel << 1 | int(self.busy > 0)
        elif cmd == 0x35:
            self.nxt = self.cr
        elif cmd == 0x01:
            if idx == 1:
                self.wsr = rx
            if idx == 2:
                self.wcr = rx
        elif cmd in (0x03, 0x0B, 0x02, 0x32, 0x20, 0x52, 0xD8):
            if 1 <= idx <= 3:
                self.addr = ((self.addr << 8) | rx) & 0xFFFFFF
            if (cmd == 0x03 and idx >= 3) or (cmd == 0x0B and idx >= 4):
                self.nxt = self.mem(self.addr)
                self.addr = (self.addr + 1) & 0xFFFFFF
            if cmd in (0x02, 0x32) and idx >= 4 and self.wel:
                self.words[self.addr % MEM_WORDS] = self.mem(self.addr) & rx
                self.addr = (self.addr & 0xFFFF00) | ((self.addr + 1) & 0xFF)
        elif cmd == 0xAB:
            if idx >= 3:
                self.nxt = 0x17
        elif cmd == 0x90:
            if idx >= 3:
                self.nxt = self.flash_id[0] if idx % 2 else 0x17
        elif cmd not in (0x06, 0x04, 0x30, 0xC7, 0x60, 0xB9):
            self.nxt = self.mem(self.ptr)
            self.ptr += 1

    def end(self):
        if self.kind != "spi_flash":
            self.ci = 0
            return
        cmd, idx, wel, b = self.cmd, self.idx, self.wel, self.busy_times
        if idx < 1 or self.busy != 0:
            return
        if cmd == 0x06:
            self.wel = 1
        elif cmd == 0x04:
            self.wel = 0
        elif cmd == 0x30:
            self.sr &= ~0x60
        elif cmd == 0x01 and wel and idx >= 2:
            self.sr = (self.wsr & 0xFC) | (self.sr & 0x03)
            if idx >= 3:
                self.cr = self.wcr
            self.set_busy(b["status"], 0)
        elif cmd in (0x02, 0x32) and wel and idx >= 5:
            self.set_busy(b["program"], 6)
        elif cmd in (0x20, 0x52, 0xD8) and wel and idx == 4:
            for e in range(16):
                self.words[(self.addr + e) % MEM_WORDS] = 0xFF
            self.set_busy(b["erase"], 5)
        elif cmd in (0xC7, 0x60) and wel and idx == 1:
            self.set_busy(b["erase"], 5)

    # ---- an SD card in SPI mode

    def sd_exec(self):
        cmd = self.cmd
        self.r1, self.extn, self.dlen = self.idle, 0, 0
        self.oph, self.ocnt = O_NCR, 1 + self.draw(8)
        if cmd == 0:
            self.idle, self.r1, self.multi, self.tries = 1, 0x01, 0, 1 + self.draw(4)
        elif cmd == 8:
            self.ext, self.extn = 0x100 | (self.arg & 0xFF), 4
        elif cmd == 55:
            pass
        elif cmd in (1, 41):
            if cmd == 1 or self.app:
                if self.tries > 0:
                    self.tries -= 1
                else:
                    self.idle = 0
                self.r1 = self.idle
            else:
                self.r1 |= 0x04
        elif cmd == 58:
            self.ext, self.extn = (0x00FF8000 if self.idle else 0xC0FF8000), 4
        elif cmd in (9, 10):
            if not self.idle:
                self.dlen, self.ptr = 16, (0 if cmd == 9 else 16)
        elif cmd == 16:  # SET_BLOCKLEN, or a parameter error
            if 1 <= self.arg <= self.block:
                if not self.idle:
                    self.blen = self.arg
            else:
                self.r1 |= 0x40
        elif cmd in (17, 18):
            if not self.idle:
                self.dlen, self.ptr, self.multi = self.blen, self.arg % MEM_WORDS, int(cmd == 18)
        elif cmd == 12:
            self.multi, self.dlen = 0, 0
        elif cmd in (24, 25):
            if not self.idle:
                self.wst, self.multiw, self.ptr = W_TOKEN, int(cmd == 25), self.arg % MEM_WORDS
        elif cmd == 13:
            self.ext, self.extn = 0, 1
        else:
            self.r1 |= 0x04
        if self.idle and cmd not in (0, 1, 8, 41, 55, 58):
            self.r1 = 0x05
        if cmd != 0 and self.draw(16) == 1:
            self.r1 |= 0x08
            self.dlen, self.wst = 0, W_NONE
        self.app = int(cmd == 55)

    def crc16(self, b):
        for e in range(7, -1, -1):
            top = (self.crc >> 15 & 1) ^ (b >> e & 1)
            self.crc = ((self.crc << 1) & 0xFFFF) ^ (0x1021 if top else 0)

    def sd_byte(self):
        rx = self.rx
        if self.wst == W_TOKEN and rx >> 6 == 1:  # a command instead of a data token: the write is given up
            self.wst = W_NONE
        if self.wst == W_TOKEN:
            if rx == 0xFE or (self.multiw and rx == 0xFC):
                self.wst, self.wcnt = W_DATA, self.blen
            elif self.multiw and rx == 0xFD:
                self.wst, self.oph, self.ocnt = W_NONE, O_BUSY, 2
        elif self.wst == W_DATA:
            self.words[self.ptr % MEM_WORDS] = rx
            self.ptr += 1
            self.wcnt -= 1
            if self.wcnt == 0:
                self.wst, self.wcnt = W_CRC, 2
        elif self.wst == W_CRC:
            self.wcnt -= 1
            if self.wcnt == 0:
                self.dresp = 0x0B if self.draw(8) == 1 else 0x05
                self.oph = O_DRESP
                self.wst = W_TOKEN if self.multiw and self.dresp == 0x05 else W_NONE
        elif self.ci == 0:
            if rx >> 6 == 1:
                self.cmd, self.ci = rx & 0x3F, 1
                if O_GAP <= self.oph <= O_CRC:  # a command frame ends a block being sent
                    self.oph, self.dlen, self.multi = O_IDLE, 0, False
        elif self.ci < 5:
            self.arg = ((self.arg << 8) | rx) & 0xFFFFFFFF
            self.ci += 1
        else:
            self.ci = 0
            self.sd_exec()
        oph = self.oph
        if oph == O_NCR:
            self.nxt = 0xFF
            self.ocnt -= 1
            if self.ocnt <= 0:
                self.oph = O_R1
        elif oph == O_R1:
            self.nxt = self.r1
            if self.extn > 0:
                self.oph = O_EXT
            elif self.dlen > 0:
                self.oph, self.ocnt = O_GAP, 1 + self.draw(8)
            else:
                self.oph = O_IDLE
        elif oph == O_EXT:
            self.nxt = self.ext >> 24 & 0xFF
            self.ext = (self.ext << 8) & 0xFFFFFFFF
            self.extn -= 1
            if self.extn == 0:
                self.oph = O_IDLE
        elif oph == O_GAP:
            self.nxt = 0xFF
            self.ocnt -= 1
            if self.ocnt <= 0:
                self.oph = O_TOKEN
        elif oph == O_TOKEN:
            if self.draw(16) == 1:
                self.nxt, self.dlen, self.multi, self.oph = 0x08, 0, 0, O_IDLE
            else:
                self.nxt, self.oph, self.ocnt, self.crc = 0xFE, O_DATA, self.dlen, 0
        elif oph == O_DATA:
            self.nxt = self.mem(self.ptr)
            self.ptr += 1
            self.crc16(self.nxt)
            self.ocnt -= 1
            if self.ocnt == 0:
                self.oph, self.ocnt = O_CRC, 2
        elif oph == O_CRC:
            if self.ocnt == 2 and self.draw(8) == 1:  # a rough card spoils one block in eight
                self.crc ^= 0x0001
            self.nxt = self.crc >> 8 if self.ocnt == 2 else self.crc & 0xFF
            self.ocnt -= 1
            if self.ocnt == 0:
                if self.multi:
                    self.oph, self.ocnt = O_GAP, 1 + self.draw(8)
                else:
                    self.oph, self.dlen = O_IDLE, 0
        elif oph == O_BUSY:
            self.nxt = 0x00
            self.ocnt -= 1
            if self.ocnt <= 0:
                self.oph = O_IDLE
        elif oph == O_DRESP:
            self.nxt, self.oph, self.ocnt = self.dresp, O_BUSY, 2 + self.draw(16)
        else:
            self.nxt = 0xFF
'''
"""SPI device (`sv_spi.process`)."""

SPI_CONSTANTS = (
    f"\nO_IDLE, O_NCR, O_R1, O_EXT, O_GAP, O_TOKEN, O_DATA, O_CRC, O_BUSY, O_DRESP = range({sv_spi.O_DRESP + 1})\n"
    f"W_NONE, W_TOKEN, W_DATA, W_CRC = range({sv_spi.W_CRC + 1})\n"
)
"""The SD card's phases, numbered as the SV process numbers them."""


def spi_setup(kind: str) -> str:
    """The `.setup(...)` call of a device of this kind."""
    return f".setup({kind!r}, {sv_spi.FLASH_ID!r}, {sv_spi.FLASH_BUSY!r}, {sv_spi.BLOCK})"
