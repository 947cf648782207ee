"""Instruction templates of RISC-V (RV32I, M, Zicsr), for a CPU whose decoder the netlist hides (pure).

A CPU's fetch port is answered with words built from the decoder's own compares when the
netlist traces them to the read-data input (`interfaces.recognise`'s templates). Deep
front ends (a fetch queue, a decompressor, a second pipeline stage) break that trace, and
random words are then mostly illegal: the core traps on the first fetch. A design whose
literals include most of RISC-V's major opcodes is such a core, and its fetch port gets the
encodings below instead: each a (mask, match) pair as the ISA manual's opcode tables give
them, the operand fields left random.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

MAJOR_OPCODES = (0x03, 0x0F, 0x13, 0x17, 0x23, 0x33, 0x37, 0x63, 0x67, 0x6F, 0x73)
"""RV32I's major opcodes (LOAD, MISC-MEM, OP-IMM, AUIPC, STORE, OP, LUI, BRANCH, JALR, JAL, SYSTEM)."""

MIN_OPCODES = 8
"""Major opcodes among a design's literals that make it a RISC-V core."""

FEW_TEMPLATES = 8
"""A fetch port with fewer mined templates than this gets the ISA's instead."""

_F3 = 0x707F
"""funct3 + opcode."""

_R = 0xFE00707F
"""funct7 + funct3 + opcode."""


def _rv32() -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = [(0x7F, 0x37), (0x7F, 0x17), (0x7F, 0x6F), (_F3, 0x67)]  # LUI AUIPC JAL JALR
    out += [(_F3, 0x63 | f3 << 12) for f3 in (0, 1, 4, 5, 6, 7)]  # branches
    out += [(_F3, 0x03 | f3 << 12) for f3 in (0, 1, 2, 4, 5)]  # loads
    out += [(_F3, 0x23 | f3 << 12) for f3 in (0, 1, 2)]  # stores
    out += [(_F3, 0x13 | f3 << 12) for f3 in (0, 2, 3, 4, 6, 7)]  # ADDI SLTI SLTIU XORI ORI ANDI
    out += [(_R, 0x13 | 1 << 12), (_R, 0x13 | 5 << 12), (_R, 0x13 | 5 << 12 | 0x20 << 25)]  # SLLI SRLI SRAI
    out += [(_R, 0x33 | f3 << 12) for f3 in range(8)]  # ADD SLL SLT SLTU XOR SRL OR AND
    out += [(_R, 0x33 | 0x20 << 25), (_R, 0x33 | 5 << 12 | 0x20 << 25)]  # SUB SRA
    out += [(_R, 0x33 | f3 << 12 | 1 << 25) for f3 in range(8)]  # MUL .. REMU
    out += [(_F3, 0x0F), (0xFFFFFFFF, 0x00000073), (0xFFFFFFFF, 0x00100073)]  # FENCE ECALL EBREAK
    out += [(_F3, 0x73 | f3 << 12) for f3 in (1, 2, 3, 5, 6, 7)]  # CSRRW .. CSRRCI
    out += [(0xFFFFFFFF, 0x30200073), (0xFFFFFFFF, 0x10500073)]  # MRET WFI
    return tuple(out)


RV32 = _rv32()
"""(mask, match) of every RV32IM + Zicsr instruction (and MRET, WFI)."""


def is_riscv(literals: Collection[int]) -> bool:
    """Whether a design's literals name most of RISC-V's major opcodes."""
    return sum(op in literals for op in MAJOR_OPCODES) >= MIN_OPCODES


def with_isa(mined: Sequence[tuple[int, int]], width: int,
             literals: Collection[int]) -> tuple[tuple[tuple[int, int], ...], int]:
    """(templates, lanes) of a responder's decoded memory.

    The mined templates over the whole word; or, when they are few and the design is a RISC-V
    core, the ISA's, one per 32-bit lane of the word (two instructions per 64-bit fetch).
    """
    if len(mined) >= FEW_TEMPLATES or not is_riscv(literals) or width < 32:
        return tuple(mined), 1
    return RV32, width // 32


def _i(imm: int, rs1: int, f3: int, rd: int, opcode: int = 0x13) -> int:
    """An I-type instruction (ADDI by default; loads, JALR and the CSR accesses share the form)."""
    return ((imm & 0xFFF) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | opcode


def _lui(upper: int, rd: int) -> int:
    """The instruction `lui rd, upper >> 12` (`upper`'s bits 12 up)."""
    return (upper & 0xFFFFF000) | (rd << 7) | 0x37


def _csrrw(csr: int, rs1: int) -> int:
    """The instruction `csrrw x0, csr, rs1`."""
    return _i(csr, rs1, 1, 0, 0x73)


def _jal(offset: int, rd: int) -> int:
    """The instruction `jal rd, offset` (offset in bytes from this instruction)."""
    o = offset & 0x1FFFFF
    return ((o >> 20) << 31) | (((o >> 1) & 0x3FF) << 21) | (((o >> 11) & 1) << 20) | (((o >> 12) & 0xFF) << 12) \
        | (rd << 7) | 0x6F


def _branch(offset: int, rs1: int, rs2: int, f3: int) -> int:
    """A conditional branch (f3: 0 BEQ, 1 BNE, ...) by offset bytes."""
    o = offset & 0x1FFF
    return ((o >> 12) << 31) | (((o >> 5) & 0x3F) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) \
        | (((o >> 1) & 0xF) << 8) | (((o >> 11) & 1) << 7) | 0x63


PROLOGUE_CSRS = (0x305, 0x340, 0x341, 0x342, 0x343, 0x304, 0x302, 0x303, 0x105, 0x140, 0x141, 0x142, 0x143, 0x104)
"""CSRs the prologue writes: mtvec, mscratch, mepc, mcause, mtval, mie, medeleg, mideleg and the
supervisor ones (stvec .. sie). Not mstatus or satp: privilege and translation stay as reset left them."""

PROLOGUE_SEED = 0x5EED
"""Seed of the prologue's immediates (fixed: the same words in every testbench and its cocotb twin)."""


def _prologue_instructions(csrs: Sequence[int] = PROLOGUE_CSRS) -> tuple[int, ...]:
    rng = random.Random(PROLOGUE_SEED)
    out: list[int] = []
    for op in ("lui", "addi", "csr", "lui", "xori", "csr"):
        if op == "csr":  # csrrw x0, csr, xN: the registers' values into the CSRs
            base = 1 if len(out) < 100 else 16
            out += [(csr << 20) | ((base + i) << 15) | (1 << 12) | 0x73 for i, csr in enumerate(csrs)]
            continue
        for rd in range(1, 32):
            if op == "lui":
                out.append((rng.getrandbits(20) << 12) | (rd << 7) | 0x37)
            else:  # addi / xori xN, xN, imm: the low bits too
                f3 = 0 if op == "addi" else 4
                out.append((rng.getrandbits(12) << 20) | (rd << 15) | (f3 << 12) | (rd << 7) | 0x13)
    return tuple(out)


PROBED_CSRS = (0x300, 0x301, 0x344, 0x100, 0x144, 0x180, 0xF11, 0xF12, 0xF13, 0xF14,
               0xC00, 0xC01, 0xC02, 0xC80, 0xC81, 0xC82, 0xB00, 0xB02, 0xB80, 0xB82)
"""CSRs the prologue reads without writing (`csrrs xN, csr, x0`): the status, ISA, pending-interrupt,
translation, ID and counter registers, each a case of a core's CSR read multiplexer."""

SWAPPED_CSRS = (0x300, 0x100, 0x344, 0x144)
"""CSRs the prologue writes a register's value into and then restores (`csrrw x31, csr, xN`,
`csrrw x0, csr, x31`): mstatus, sstatus, mip, sip, whose bits change privilege and interrupts
for the one instruction between (an interrupt taken there goes to the mtvec written before)."""


COUNTER_CSRS = (0xC00, 0xC01, 0xC02, 0xC80, 0xC81, 0xC82)
"""cycle, time, instret and their high halves: the counters a core without a CSR file may still
read (RDCYCLE, RDTIME, RDINSTRET ...), recognised by the upper 20 bits of `csrrs rd, csr, x0`
(csr << 8 | 2) among its literals: such a decoder compares the whole instruction."""


def _probe_instructions(read: Sequence[int], swapped: Sequence[int]) -> tuple[int, ...]:
    out = []
    for i, csr in enumerate(swapped):
        out += [(csr << 20) | ((1 + i) << 15) | (1 << 12) | (31 << 7) | 0x73,  # csrrw x31, csr, xN
                (csr << 20) | (31 << 15) | (1 << 12) | 0x73]  # csrrw x0, csr, x31
    out += [(csr << 20) | (2 << 12) | ((1 + i % 30) << 7) | 0x73 for i, csr in enumerate(read)]  # csrrs xN, csr, x0
    return tuple(out)


PROLOGUE = _prologue_instructions()
"""A RISC-V core's first instructions: every register loaded (LUI, ADDI), the CSRs written from
them, every register loaded again (LUI, XORI) so that each bit moves both ways, the CSRs again
from other registers. Random words then follow, as before. (`prologue` leaves out the CSRs a
design does not decode.)"""


def prologue(width: int, literals: Collection[int] = PROLOGUE_CSRS) -> tuple[int, ...]:
    """The prologue as fetch words of `width` bits (two instructions per 64-bit word; () below 32).

    It writes only the CSRs among the design's `literals`: a core that does not decode a CSR
    traps on it (picorv32 has none of them and halts on its first illegal instruction). A core
    that decodes some of them then swaps and restores the status CSRs and reads the read-only
    ones its literals name.
    """
    if width < 32:
        return ()
    csrs = tuple(c for c in PROLOGUE_CSRS if c in literals)
    words = PROLOGUE if csrs == PROLOGUE_CSRS else _prologue_instructions(csrs)
    if csrs:  # a core with a CSR file: a literal such as 0x100 elsewhere is no sign of one
        words += _probe_instructions([c for c in PROBED_CSRS if c in literals],
                                     [c for c in SWAPPED_CSRS if c in literals])
    else:  # ... but it may decode its counters' whole reads (picorv32's RDCYCLE: 20'hc0002)
        words += tuple(_i(c, 0, 2, 1 + k, 0x73) for k, c in enumerate(COUNTER_CSRS) if (c << 8 | 2) in literals)
    return _packed(words, width)


def idioms(width: int, literals: Collection[int] = PROLOGUE_CSRS) -> tuple[int, ...]:
    """The words a `fill=idioms` memory starts with: the prologue, then the idioms (() below 32 bits).

    Random instruction words almost never form a call and its return (JALR x0, 0(ra) is one
    word in 2^17), leave interrupts masked, and jump wherever mtvec points on a trap. The
    idioms that follow the prologue set a handler that returns past the trapping instruction,
    write the cache-maintenance CSRs the design decodes, run a loop of calls nested deeper than
    a return-address stack, fence, set a timer compare, and last enable every interrupt and
    make each pending once; random words follow, drawn as with `fill=decode` and tidied
    (`sv_responders._rv_tidy`).
    """
    if width < 32:
        return ()
    instructions = (*prologue(32, literals), *_idiom_instructions(literals, alias=width <= 64))
    nops = -len(instructions) % (width // 32)  # the last fetch word whole: no zero (illegal) half
    return _packed((*instructions, *(NOP,) * nops), width)


def _packed(instructions: Sequence[int], width: int) -> tuple[int, ...]:
    """32-bit instructions as fetch words of `width` bits, the first in the lowest lane."""
    lanes = width // 32
    return tuple(sum(instructions[k + lane] << (32 * lane) for lane in range(lanes) if k + lane < len(instructions))
                 for k in range(0, len(instructions), lanes))


NOP = 0x00000013
"""The instruction `addi x0, x0, 0`."""

RA, SP, T0, T1, T2, S1, A2, T3, T4 = 1, 2, 5, 6, 7, 9, 12, 28, 29
"""The registers the idioms use, by their ABI names (ra and t0 are RISC-V's link registers)."""

SAVED = 18
"""s2, the first of the registers the nested calls keep their return addresses in (s2 .. s9)."""

ALIAS_BITS = 0xFFFFE000
"""Address bits the idioms flip to run at an alias (13 up): a multiple of the responders' memory
model (`target.MEM_WORDS` = 1024 words, 8 KB of 64-bit fetch words), which wraps."""

CUSTOM_CSRS = (0x7C0, 0x7FF)
"""The machine-level custom read-write CSR numbers (the privileged spec's table)."""

CYCLE_CSRS = (0xB00, 0xC00)
"""mcycle, then cycle (its read-only shadow, which some cores decode alone: biriscv): a timer
compare is set from the first of them the design decodes."""

TIMER_DELAY = 200
"""Cycles from the idioms' write of a custom CSR (a timer compare) to the count it holds."""

CALL_LOOPS = 24
"""Iterations of the idioms' loop: enough for a branch predictor to learn its calls, its returns and
its branch taken one time in four, and to mispredict each when the loop ends."""

CALL_DEPTH = 9
"""Functions the loop's calls nest through: one more than a common return-address stack holds (8),
so every entry is written and the deepest return overflows it."""

CACHE_CSRS = (0x3A0, 0x3A1, 0x3A2)
"""Custom CSRs some cores flush, write back and invalidate their data cache through (biriscv)."""

LWU = 0x6003
"""funct3 + opcode of LWU (RV64's zero-extending word load), which some RV32 cores decode as LW."""


def _functions() -> list[int]:
    """CALL_DEPTH functions, each calling the next; the last counts in s1.

    Each keeps its return address in a register of its own (no memory: a load the data port
    answers with an error would lose it). Every second one starts with a NOP, so the call and
    return sites fall in both halves of a two-instruction fetch (both pipes of a dual-issue core).
    """
    out: list[int] = []
    for k in range(CALL_DEPTH - 1):
        out += [*(NOP,) * (k % 2),
                _i(0, RA, 0, SAVED + k),  # mv s(2+k), ra
                _jal(4 * 3, RA),  # call the next function (3 instructions on)
                _i(0, SAVED + k, 0, RA),  # mv ra, s(2+k)
                _i(0, RA, 0, 0, 0x67)]  # ret
    return [*out, _i(1, S1, 0, S1), _i(0, RA, 0, 0, 0x67)]  # addi s1, s1, 1; ret


def _call_loop() -> list[int]:
    """CALL_LOOPS calls into the nested functions; one in four through a register, one level down.

    The loop is 8 instructions, then a jump over the functions, which start 9 instructions after
    the loop's first (f1; f2 four later). The call through a register (JALR with rd = ra, no
    return) starts at f2, so each return-address stack entry also holds another function's
    return address.
    """
    functions = _functions()
    return [_i(CALL_LOOPS, 0, 0, T0),  # addi t0, x0, CALL_LOOPS
            _i(3, T0, 7, T2),  # loop: andi t2, t0, 3
            _branch(4 * 3, T2, 0, 0),  # beq t2, x0, alt (taken one iteration in four)
            _jal(4 * 7, RA),  # call f1 (9 - 2 instructions on)
            _jal(4 * 3, 0),  # j next
            0x00000E17,  # alt: auipc t3, 0
            _i(4 * 9, T3, 0, RA, 0x67),  # jalr ra, 36(t3): call f2 (13 - 4 instructions on)
            _i(-1, T0, 0, T0),  # next: addi t0, t0, -1
            _branch(-4 * 7, T0, 0, 1),  # bne t0, x0, loop
            _jal(4 * (len(functions) + 1), 0),  # j over the functions
            *functions]


def _idiom_instructions(literals: Collection[int], alias: bool = True) -> tuple[int, ...]:
    """`idioms`' instructions: a trap handler, cache maintenance, calls and returns in a loop, a timer, interrupts on.

    With `alias`, the loop and all that follows run at an alias of their addresses with bits 13
    up flipped (`ALIAS_BITS`).
    """
    csrs = {c for c in (0x300, 0x303, 0x304, 0x305, 0x341) if c in literals}
    has_handler = {0x305, 0x341} <= csrs
    out = [_i(-1, 0, 0, T1)]  # addi t1, x0, -1
    if has_handler:
        out.append(_csrrw(0x305, T1))  # mtvec all ones (interrupts are still off), then the handler's
        # A handler that returns past the trapping instruction (mepc + 4): traps taken later
        # (an interrupt, an illegal or misaligned access, ECALL) come back into the stream
        # instead of running whatever random words mtvec pointed at.
        # Aligned (andi a2, a2, -4): a jump to a misaligned address traps with that address in
        # mepc, and mepc + 4 alone would trap again forever.
        # A pending bit that stays set until software clears it (biriscv's MEIP, set by the
        # line) would trap every instruction after the first interrupt: mip is cleared.
        handler = [*([_csrrw(0x344, 0)] if 0x344 in literals else []),  # csrrw x0, mip, x0
                   _i(0x341, 0, 2, A2, 0x73),  # csrrs a2, mepc, x0
                   _i(4, A2, 0, A2),  # addi a2, a2, 4
                   _i(-4, A2, 7, A2),  # andi a2, a2, -4
                   _csrrw(0x341, A2),  # csrrw x0, mepc, a2
                   0x30200073]  # mret
        out += [0x00000617,  # auipc a2, 0
                _i(4 * 4, A2, 0, A2),  # addi a2, a2, 16: the handler, after the jump below
                _csrrw(0x305, A2),  # mtvec
                _jal(4 * (len(handler) + 1), 0),  # j over the handler
                *handler]
    out += [_csrrw(c, T1) for c in CACHE_CSRS if c in literals]
    if 0x340 in literals:  # mscratch all ones, then all zeros: every bit both ways
        out += [_csrrw(0x340, T1), _csrrw(0x340, 0)]
    out.append(_lui(0x80000000, SP))  # sp: the base of fill=idioms' loads and stores
    if LWU in literals:
        out.append(_i(0, SP, 6, T2, 0x03))  # lwu t2, 0(sp)
    if alias:
        # The same words at an address whose upper bits differ (the memory model wraps): the
        # return addresses a return-address stack keeps, and every pc after, move in those bits.
        out += [0x00000E17,  # auipc t3, 0
                _lui(ALIAS_BITS, T4),
                (T4 << 20) | (T3 << 15) | (4 << 12) | (T3 << 7) | 0x33,  # xor t3, t3, t4
                _i(4 * 4, T3, 0, 0, 0x67)]  # jr 16(t3): the next instruction, at its alias
    out += [*_call_loop(),
            0x0FF0000F]  # fence
    if has_handler:
        # FENCE.I flushes an instruction cache; a core without one may trap on it (picorv32
        # halts on an illegal instruction), so only where the handler brings it back.
        # SFENCE.VMA and a write of satp (set, then cleared) flush a TLB, or trap where there is none.
        out += [0x0000100F, 0x12000073]
        if 0x180 in literals:
            out += [_i(0x180, T1, 3, 0, 0x73), _i(0x180, T1, 2, 0, 0x73), _i(0x180, T1, 3, 0, 0x73)]  # csrrc, csrrs, csrrc
    cycle = next((c for c in CYCLE_CSRS if c in literals), None)
    if cycle is not None:
        # A custom machine CSR (0x7C0-0x7FF) the core decodes is written all ones, all zeros,
        # then the cycle count plus a little, and read back: a timer compare kept there
        # (biriscv's mtimecmp) then raises its interrupt once interrupts are on (below).
        for c in sorted(c for c in literals if CUSTOM_CSRS[0] <= c <= CUSTOM_CSRS[1]):
            out += [_csrrw(c, T1), _csrrw(c, 0),
                    _i(cycle, 0, 2, T2, 0x73),  # csrrs t2, cycle, x0
                    _i(TIMER_DELAY, T2, 0, T2),  # addi t2, t2, TIMER_DELAY
                    _csrrw(c, T2),
                    _i(c, 0, 2, T2, 0x73)]  # csrrs t2, c, x0: read back
    # Interrupts last: the handler returns past the instruction it interrupted (an interrupt
    # line held high would otherwise be taken again and again at the same place), which the
    # random words after the idioms survive and the loop above would not.
    if {0x300, 0x304} <= csrs:
        out.append(_csrrw(0x304, T1))  # every interrupt enabled
        if 0x303 in csrs:
            out.append(_csrrw(0x303, 0))  # none delegated: each taken in machine mode
        out.append(_i(0x300, 8, 6, 0, 0x73))  # csrrsi x0, mstatus, 8: MIE on
        if 0x344 in literals and has_handler:
            # Every interrupt pending at once (software, timer, external: taken by priority;
            # the handler clears them all); the NOP after is what the handler's return skips.
            out += [_i(0x344, T1, 2, 0, 0x73), NOP, NOP]  # csrrs x0, mip, t1
        if has_handler:
            # mstatus all ones for one instruction, then restored: the restore twice, since an
            # interrupt taken between returns past the first.
            out += [_i(0x300, T1, 1, 31, 0x73), _csrrw(0x300, 31), _csrrw(0x300, 31)]  # csrrw x31, mstatus, t1
    return tuple(out)
