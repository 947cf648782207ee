"""`isa.idioms`: the instructions a `fill=idioms` memory starts with, executed by a small RV32
interpreter (only what the idioms use), so each idiom is checked by what it does on a core."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.program.isa import (
    ALIAS_BITS,
    CALL_DEPTH,
    CALL_LOOPS,
    LWU,
    MAJOR_OPCODES,
    PROLOGUE_CSRS,
    RA,
    TIMER_DELAY,
    idioms,
    prologue,
)
from agent.program.target import MEM_WORDS

BIRISCV = (*MAJOR_OPCODES, *PROLOGUE_CSRS, 0x300, 0x344, 0x3A0, 0x3A1, 0x3A2, 0x180, 0xC00, 0x7C0, LWU)
"""Literals of a core like biriscv: the opcodes, the trap CSRs, mstatus, mip, its cache CSRs, satp,
cycle (biriscv decodes no mcycle), a timer compare in a custom CSR and LWU."""


SPAN = MEM_WORDS * 4
"""Bytes of a responder's memory of 32-bit words (the interpreter's)."""


def _sext(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


@dataclass
class Hart:
    """The state the interpreter keeps: registers, CSRs written, and every call and return taken."""

    x: list[int] = field(default_factory=lambda: [0] * 32)
    csr: dict[int, int] = field(default_factory=dict)
    calls: list[tuple[int, int]] = field(default_factory=list)
    returns: list[tuple[int, int]] = field(default_factory=list)
    depth: int = 0
    deepest: int = 0
    loads: list[int] = field(default_factory=list)
    left: int = 0
    """The pc the run left the idioms at (an alias of their end)."""
    fences: list[int] = field(default_factory=list)
    csr_writes: list[int] = field(default_factory=list)

    def step(self, pc: int, word: int) -> int:
        """Execute `word` at `pc`; the next pc."""
        op, rd, f3, rs1 = word & 0x7F, word >> 7 & 31, word >> 12 & 7, word >> 15 & 31
        rs2, imm_i = word >> 20 & 31, _sext(word >> 20, 12)
        nxt, value = pc + 4, None
        if op in (0x17, 0x37):  # auipc, lui
            value = (pc if op == 0x17 else 0) + (word & 0xFFFFF000)
        elif op == 0x13 and f3 in (0, 7):  # addi, andi
            value = self.x[rs1] + imm_i if f3 == 0 else self.x[rs1] & imm_i
        elif op == 0x33 and f3 == 4 and word >> 25 == 0:  # xor
            value = self.x[rs1] ^ self.x[rs2]
        elif op == 0x6F:  # jal
            off = _sext((word >> 31) << 20 | (word >> 12 & 0xFF) << 12 | (word >> 20 & 1) << 11 | (word >> 21 & 0x3FF) << 1, 21)
            value, nxt = pc + 4, pc + off
            if rd == RA:
                self._call(pc, nxt)
        elif op == 0x67:  # jalr
            value, nxt = pc + 4, (self.x[rs1] + imm_i) & ~1
            if rs1 == RA and rd == 0 and imm_i == 0:
                self.returns.append((pc, nxt))
                self.depth -= 1
            elif rd == RA:  # a call through a register
                self._call(pc, nxt)
        elif op == 0x03:  # a load (memory is not modelled: zero)
            self.loads.append(word & 0x707F)
            value = 0
        elif op == 0x63:  # beq, bne
            off = _sext((word >> 31) << 12 | (word >> 7 & 1) << 11 | (word >> 25 & 0x3F) << 5 | (word >> 8 & 0xF) << 1, 13)
            taken = (self.x[rs1] == self.x[rs2]) == (f3 == 0)
            assert f3 in (0, 1)
            nxt = pc + off if taken else pc + 4
        elif op == 0x73 and f3 in (1, 2, 3, 6):  # csrrw, csrrs, csrrc, csrrsi
            csr = word >> 20
            value = self.csr.get(csr, 0)
            operand = rs1 if f3 == 6 else self.x[rs1]
            if f3 == 1:
                self.csr[csr] = operand & 0xFFFFFFFF
            elif operand:
                self.csr[csr] = value & ~operand if f3 == 3 else value | operand
                self.csr_writes.append(csr)
        elif op == 0x0F or word == 0x12000073:  # fence, fence.i, sfence.vma
            self.fences.append(word)
        else:
            raise AssertionError(f"{word:#010x} at {pc:#x} is not an instruction the idioms use")
        if rd and value is not None:
            self.x[rd] = value & 0xFFFFFFFF
        return nxt

    def _call(self, pc: int, target: int) -> None:
        self.calls.append((pc, target))
        self.depth += 1
        self.deepest = max(self.deepest, self.depth)


def _run(instructions: tuple[int, ...], start: int) -> tuple[Hart, int]:
    """Run from `start` until the pc leaves the instructions; the hart and the steps taken.

    The memory wraps as the responders' does (1024 words): a pc in the upper bits is an alias.
    """
    hart, pc, steps = Hart(), 4 * start, 0
    while 0 <= pc % SPAN < 4 * len(instructions):
        pc = hart.step(pc, instructions[pc % SPAN // 4])
        steps += 1
        assert steps < 10_000, "the idioms do not end"
    assert pc % SPAN == 4 * len(instructions), "the idioms leave by their last instruction"
    hart.left = pc
    return hart, steps


def test_idioms_set_a_handler_enable_interrupts_and_call_and_return_in_a_loop() -> None:
    words = idioms(32, BIRISCV)
    head = len(prologue(32, BIRISCV))
    assert words[:head] == prologue(32, BIRISCV)  # the prologue first, as with fill=decode
    hart, _ = _run(words[head:], 0)
    # Interrupts: every enable bit, none delegated, mstatus.MIE; the cache CSRs written.
    assert hart.csr[0x304] == 0xFFFFFFFF
    assert hart.csr[0x303] == 0
    assert hart.csr[0x300] == 8  # MIE alone: mstatus restored after its all-ones instruction
    assert {0x3A0, 0x3A1, 0x3A2} <= set(hart.csr)
    assert hart.csr[0x7C0] == TIMER_DELAY  # the timer compare: the cycle count (0 here) plus a little
    assert hart.csr[0x344] == 0xFFFFFFFF  # every interrupt pending at once after MIE (the handler clears them)
    assert hart.csr[0x340] == 0  # mscratch all ones, then all zeros
    assert hart.loads == [LWU]
    assert hart.csr_writes.count(0x180) == 3
    assert hart.csr[0x180] == 0
    assert hart.x[2] == 0x80000000  # sp: the aligned base of fill=idioms' loads and stores
    # mtvec holds the handler, which returns past the trapping instruction (mepc + 4).
    # A misaligned mepc (a jump to an odd address traps there) comes back aligned, not forever.
    # The pending interrupts are cleared (a bit the line set stays set until software clears it).
    handler = hart.csr[0x305] // 4
    mret = words.index(0x30200073, head + handler) - head
    for mepc, back in ((0x100, 0x104), (0x102, 0x104)):
        trap = Hart(csr={0x341: mepc, 0x344: 0x800})
        for k in range(handler, mret):
            trap.step(4 * k, words[head + k])
        assert trap.csr[0x341] == back
        assert trap.csr[0x344] == 0
    # The loop: each iteration calls f1, which calls f2, ... (CALL_DEPTH deep, one more than an
    # 8-entry return-address stack); one in four starts at f2 through a register. Every call
    # returns to the instruction after it, so a return-address stack predicts each return.
    alt = len(range(CALL_LOOPS, 0, -4))  # iterations whose counter is a multiple of 4
    assert len(hart.returns) == (CALL_LOOPS - alt) * CALL_DEPTH + alt * (CALL_DEPTH - 1)
    after_call = sorted(pc + 4 for pc, _ in hart.calls)
    assert sorted(target for _, target in hart.returns) == after_call
    assert hart.deepest == CALL_DEPTH
    assert hart.depth == 0
    sites = {pc for pc, _ in hart.calls} | {pc for pc, _ in hart.returns}
    assert len({pc for pc, _ in hart.calls}) == CALL_DEPTH + 1  # the same call sites, trained (the loop has two)
    assert {pc // 4 % 2 for pc in sites} == {0, 1}  # in both halves of a two-instruction fetch
    # The loop and all after it run at an alias whose upper bits are flipped (return addresses
    # move in every bit); the memory of 64-bit words wraps at a multiple of it.
    assert all(pc & ALIAS_BITS == ALIAS_BITS for pc in sites)
    assert hart.left & ALIAS_BITS == ALIAS_BITS
    assert (ALIAS_BITS & -ALIAS_BITS) % (MEM_WORDS * 8) == 0
    assert {0x0000100F, 0x12000073} <= set(hart.fences)  # FENCE.I and SFENCE.VMA after the loop


def test_idioms_fill_whole_fetch_words_and_leave_out_what_a_core_does_not_decode() -> None:
    wide = idioms(64, BIRISCV)
    assert all(w >> 32 for w in wide)  # no zero (illegal) upper half in the last word
    narrow = idioms(32, BIRISCV)
    assert [w & 0xFFFFFFFF for w in wide] == list(narrow[::2])
    # picorv32 decodes no CSR: no CSR access at all, the calls and returns alone.
    bare = idioms(32, MAJOR_OPCODES)
    body = bare[len(prologue(32, MAJOR_OPCODES)):]
    assert all(w & 0x7F != 0x73 for w in body)
    hart, _ = _run(body, 0)
    assert hart.deepest == CALL_DEPTH
    assert hart.depth == 0
    assert 0x0000100F not in body  # FENCE.I only where a trap comes back (picorv32 halts on it)
    assert 0x12000073 not in body
    assert idioms(16, BIRISCV) == ()


def test_idioms_random_loads_and_stores_come_from_sp_aligned_to_their_size() -> None:
    from agent.program.cocotb_lib import MEMORY

    namespace: dict[str, object] = {}
    exec(compile(MEMORY, "memory.py", "exec"), namespace)  # the cocotb twin of bw_<iface>_tidy
    tidy = namespace["rv_tidy"]
    assert callable(tidy)
    lw = 0x00F5A503 | (0x7FF << 20)  # lw a0, 2047(a1): misaligned from a random base
    tidied = tidy(lw, 1)
    assert ((tidied >> 15) & 31, (tidied >> 20) & 3, tidied & 0x7F) == (2, 0, 0x03)  # lw a0, 2044(sp)
    sh = 0x00B51023 | (0x1F << 7)  # sh a1, 31(a0)
    assert ((tidy(sh, 5) >> 15) & 31, (tidy(sh, 5) >> 7) & 1) == (2, 0)  # sh a1, 30(sp)
    assert tidy(lw, 12) & ~(31 << 7) == lw & ~(31 << 7)  # one in twelve keeps its base
    assert (tidy(0x00000113, 3) >> 7) & 31 == 3  # addi sp, x0, 0 writes gp instead: sp stays aligned
    # Branches and jumps 1 to 7 instructions forward (a backward one taken again and again is a
    # loop the core never leaves); MRET (back to the last trap) a NOP.
    for word in (0x00208063, 0xFE209EE3, 0x0000006F, 0xFF9FF0EF):  # beq +0, bne -4, j +0, jal ra -8
        offset = tidy(word, 3)
        assert offset & 0x7F == word & 0x7F
        if word & 0x7F == 0x63:
            assert ((offset >> 7) & 0x1F) >> 1 in range(2, 16, 2), hex(offset)  # imm[4:1], even: 4..28 bytes
            assert offset >> 25 == 0
        else:
            assert ((offset >> 21) & 0x3FF) in range(2, 16, 2), hex(offset)  # imm[10:1]: 4..28 bytes
            assert (offset >> 7) & 31 == (word >> 7) & 31  # rd kept
    assert tidy(0x30200073, 3) == 0x00000013
    assert tidy(0x30561073, 3) == 0x34061073  # csrrw x0, mtvec, a2 -> mscratch: the handler stays


def test_a_core_without_a_csr_file_reads_the_counters_it_decodes_whole() -> None:
    # picorv32 compares RDCYCLE's upper 20 bits (20'hc0002) and RDCYCLEH's (20'hc8002); a bare
    # 0xC00 among the literals is no sign of a counter (it has one for other reasons).
    words = prologue(32, (*MAJOR_OPCODES, 0xC0002, 0xC8002))
    assert words[: len(prologue(32, MAJOR_OPCODES))] == prologue(32, MAJOR_OPCODES)
    reads = words[len(prologue(32, MAJOR_OPCODES)):]
    assert [(w >> 20, (w >> 15) & 31, (w >> 12) & 7, w & 0x7F) for w in reads] == [(0xC00, 0, 2, 0x73), (0xC80, 0, 2, 0x73)]
    assert all((w >> 7) & 31 for w in reads)  # into a register, not x0
    assert prologue(32, (*MAJOR_OPCODES, 0xC00, 0xC80)) == prologue(32, MAJOR_OPCODES)
