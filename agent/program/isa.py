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
    lanes = width // 32
    return tuple(sum(words[k + lane] << (32 * lane) for lane in range(lanes) if k + lane < len(words))
                 for k in range(0, len(words), lanes))
