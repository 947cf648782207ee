"""Cocotb twins of `sv_hosts.py`: responders for a design that is an APB requester or an Avalon-MM host.

Each constant is the Python text of one class, copied into a test that uses it (see
`cocotb_responders.py`); values are taken right after the rising edge and driven for the next
one, draw for draw as the SV processes.
"""

from __future__ import annotations

APB_RESP = '''

class ApbResponder(Responder):
    """An APB requester's completer: one answer per access phase after 0..latency wait states, some PSLVERR when rough."""

    def restart(self):
        self.wait = 0

    async def run(self):
        bw, r, q = self.bw, self.roles, self.regs
        while True:
            await bw.rise()
            answered = q.get("ready", 0)
            for role in ("ready", "slverr"):
                if role in q:
                    q[role] = 0
            if bw.in_reset():
                self.wait = 0
            elif self.high("sel") and self.high("enable") and not answered:
                if self.wait > 0:
                    self.wait -= 1
                else:
                    self.rng.next()
                    bad = "slverr" in r and self.rough_error(self.rng.state)
                    if "ready" in q:
                        q["ready"] = 1
                    if "slverr" in q:
                        q["slverr"] = int(bad)
                    index = self.index(self.high("addr"))
                    if "rdata" in q:
                        q["rdata"] = self.words[index]
                    if "wdata" in r and "write" in r and self.high("write") and not bad:
                        write_bytes(self.words, index, self.high("wdata"), self.high("strb") if "strb" in r else None,
                                    self.dw)
                    if "ready" in r and self.latency > 0:
                        self.wait = self.rng.next() % (self.latency + 1)
            self.drive()
'''
"""APB completer (cocotbext-axi's ApbSlave has no wait states we can draw alike)."""

AVALON_RESP = '''

class AvalonResponder(Responder):
    """An Avalon-MM host's agent: waitrequest for 0..latency clocks, read data at the end (or later, with readdatavalid)."""

    def restart(self):
        self.wait = 0
        self.pend, self.pend_addr = False, 0
        if "wait" in self.regs:  # high from the start: no transfer is taken before it is answered
            self.regs["wait"] = 1

    async def run(self):
        bw, r, q = self.bw, self.roles, self.regs
        while True:
            await bw.rise()
            if "rvalid" in q:
                q["rvalid"] = int(self.pend)
                if self.pend and "rdata" in q:
                    q["rdata"] = self.words[self.index(self.pend_addr)]
                self.pend = False
            held = q.get("wait", 0)
            if "wait" in q:
                q["wait"] = 1
            asked = self.high("read") or self.high("write")
            if bw.in_reset():
                self.wait = 0
            elif asked and ("wait" not in q or held):
                if self.wait > 0:
                    self.wait -= 1
                else:
                    if "wait" in q:
                        q["wait"] = 0
                    index = self.index(self.high("addr"))
                    if "rdata" in q and "rvalid" not in q:
                        q["rdata"] = self.words[index]
                    if "wdata" in r and "write" in r and self.high("write"):
                        write_bytes(self.words, index, self.high("wdata"), self.high("strb") if "strb" in r else None,
                                    self.dw)
                    if "rvalid" in q and "read" in r and "addr" in r:
                        self.pend, self.pend_addr = bool(self.high("read")), self.high("addr")
                    if "wait" in q and self.latency > 0:
                        self.wait = self.rng.next() % (self.latency + 1)
            self.drive()
'''
"""Avalon-MM agent (no cocotb extension for Avalon is installed)."""
