"""Sessions that drive an SD card through a controller's registers: initialisation, then blocks; pure.

An SD card in SPI mode answers only commands in order (CMD0, CMD8, ACMD41 until it leaves idle)
and moves a block only for CMD17/CMD24 when the controller was told to move data; random
register writes almost never make that sequence. A controller with a register interface
takes each command as a word: the frame's first byte (`01` and the index) in the low byte,
flags above it (response kind, data transfer, direction, which FIFO). Which register and which
flags differ by design, so the sessions try each register and several flag patterns.
"""

from __future__ import annotations

from agent.heuristic.moves import trim
from agent.program.iface import Iface
from agent.program.ops import Op, Program, op
from agent.program.target import Target

FRAME_START = 0x40
"""An SD command frame's first byte is `01` then the command index: a controller that takes the
command from a register word takes it in this form (or adds the start bits itself and reads the
index from the low six bits, which the same word carries)."""

INIT_COMMANDS = (0, 8)
"""CMD0 (go idle) and CMD8 (interface condition) open the initialisation."""

ACMD41_TRIES = 3
"""CMD55 + ACMD41 pairs sent to bring the card out of idle (our card stays idle 1..4 tries)."""

READY_COMMANDS = (58,)
"""CMD58 (read the OCR) closes the initialisation."""

DETECT_HOLD = 1100
"""Cycles between the card's arrival and the first register write: controllers debounce a
card-detect input (ZipCPU's sdspi counts 1,023 cycles) and keep their slow start-up divider
until the card is present."""

COMMAND_HOLD = 1500
"""Cycles after a command without data: a frame, the wait and a five-byte response at a
divider of 1 (about 32 cycles a byte)."""

BLOCK_HOLD = 17000
"""Cycles after a data command: a 512-byte block at about 32 cycles a byte."""

FLAG_BITS = range(8, 13)
"""Bits above the index byte that controllers keep command flags in: the data commands are tried
under each alone and under each pair."""

CLEAR_BITS = 0xE000
"""Bits 13-15, set in every command word: a controller that keeps a command error sticky until
a command word clears it (ZipCPU's sdspi: bit 15) refuses to move data after one refused
command otherwise."""

PATTERNS_PER_SESSION = 8
"""Flag patterns one read session tries (one block each: eight blocks fit the program's cycle cap)."""

BLOCK_SIZES = ((3, 4), (5, 6), (7, 8))
"""Log2 of the block sizes block-size sessions configure, two per session, 8 to 256 bytes: below
a standard card's 512, each a path of a controller with a block-size field (sdspi's `lgblklen`)."""

SIZE_BYTE_HOLD = 40
"""Cycles per block byte waited after a data command in a block-size session (32 and some)."""


def flag_words(bits: int) -> list[int]:
    """Flag patterns for a data command: each bit of `FLAG_BITS` alone, then each pair (pure)."""
    flags = [1 << b for b in FLAG_BITS if b < bits]
    return flags + [a | b for i, a in enumerate(flags) for b in flags[i + 1:]]


def read_sessions(bits: int) -> list[list[int]]:
    """The flag patterns of `flag_words` in sessions of `PATTERNS_PER_SESSION` (pure)."""
    flags = flag_words(bits)
    return [flags[k:k + PATTERNS_PER_SESSION] for k in range(0, len(flags), PATTERNS_PER_SESSION)]


def write_sessions(bits: int) -> list[list[int]]:
    """Per flag bit, the patterns that carry it: that bit alone, then with each other bit (pure).

    A block write under flags the controller reads as "receive a block" hangs it: it waits for
    a data token from a card that waits for one from the controller, until a watchdog far
    beyond a program's length, and every later command of the session is refused. Within one
    session every pattern shares a bit, so when that bit is the direction bit no pattern of the
    session contradicts it.
    """
    singles = [1 << b for b in FLAG_BITS if b < bits]
    return [[s, *(s | o for o in singles if o != s)] for s in singles]


def command(bus: str, addr: int, index: int, flags: int, hold: int) -> list[Op]:
    """Write one command word, then wait for its answer."""
    return [op("bus_write", bus, addr, FRAME_START | index | flags), op("hold", hold)]


def initialisation(bus: str, addr: int, clear: int) -> list[Op]:
    """CMD0, CMD8, CMD55 + ACMD41 until ready, CMD58 through the command register at `addr`."""
    ops = [o for i in INIT_COMMANDS for o in command(bus, addr, i, clear, COMMAND_HOLD)]
    pair = (*command(bus, addr, 55, clear, COMMAND_HOLD), *command(bus, addr, 41, clear, COMMAND_HOLD))
    ops.append(Op("repeat", (("times", ACMD41_TRIES),), pair))
    return ops + [o for i in READY_COMMANDS for o in command(bus, addr, i, clear, COMMAND_HOLD)]


def size_word(lg: int, bits: int) -> int:
    """`lg` in every nibble above the low byte, the low byte 1 (a divider at its fastest) (pure).

    A configuration command that takes a block-size field from another register finds `lg`
    there wherever the field starts on a nibble boundary.
    """
    return (sum(lg << s for s in range(8, bits, 4)) | 1) & ((1 << bits) - 1)


def block_size_sessions(t: Target, d: Iface) -> list[tuple[str, Program]]:
    """Per bus with a configuration command, per guess of its command register and per pair of `BLOCK_SIZES`: block reads.

    After the initialisation, per size: every other register holds `size_word` and the first
    configuration command is written (a block-size field loaded from another register), then
    one block read under each single flag bit (a data read is one flag on the controllers
    seen: sdspi's FIFO bit). The card is not told the size (the controller's own software
    would send CMD16; a session has no operations to spare): it sends its block until the
    next command frame, and the controller takes what its size says. Reads only: a write
    under a flag the controller reads as "receive" hangs it until its watchdog
    (`write_sessions`).
    """
    if d.kind != "sd":
        return []
    out = []
    for bus in t.interfaces.buses:
        config = _config_words(t, bus)
        singles = [1 << b for b in FLAG_BITS if b < bus.data_bits]
        if not config or not singles:
            continue
        clear = CLEAR_BITS if bus.data_bits >= 16 else 0
        for cmd_addr in bus.addresses[:4]:
            others = [a for a in bus.addresses[:4] if a != cmd_addr]
            opening = [op("reset"), op("respond", d.name, fill="random", seed=1), op("hold", DETECT_HOLD)]
            for w in config:
                opening += [*(op("bus_write", bus.name, a, 1) for a in others), op("bus_write", bus.name, cmd_addr, w)]
            opening += initialisation(bus.name, cmd_addr, clear)
            for sizes in BLOCK_SIZES:
                ops = list(opening)
                for lg in sizes:
                    # the first configuration word only: two sizes of reads fill the operation cap
                    ops += [*(op("bus_write", bus.name, a, size_word(lg, bus.data_bits)) for a in others),
                            op("bus_write", bus.name, cmd_addr, config[0])]
                    for f in singles:
                        ops += command(bus.name, cmd_addr, 17, f | clear, SIZE_BYTE_HOLD * (1 << lg) + COMMAND_HOLD)
                name = f"{d.name} card blocks of 2^{sizes[0]}, 2^{sizes[1]} bytes through {bus.name} @{cmd_addr:#x}"
                out.append((name, trim(t, Program(tuple(ops)))))
    return out


def _config_words(t: Target, bus: Iface) -> list[int]:
    """The bus's mined control words that are not a command frame (a configuration command), at most two."""
    pal = t.palettes.get(bus.port("wdata"), ())
    return [w for w in pal if w < 0x100 and w & 0xC0 and w & 0xC0 != FRAME_START][:2]


def sd_command_sessions(t: Target, d: Iface) -> list[tuple[str, Program]]:
    """Per bus and per guess of its command register: block reads and block writes under every flag pattern.

    Each session writes every other register 1 (a clock divider at its fastest, a block
    address) before each of the bus's mined control words that are not a command frame (a
    configuration command that loads its divider from another register), initialises the
    card, then reads blocks (or fills the other registers, a FIFO, and writes blocks) under
    flag patterns (`read_sessions`, `write_sessions`), then drains and reads every register.
    Every other session on a rough card (CRC errors, error tokens).
    """
    if d.kind != "sd":
        return []
    out = []
    for bus in t.interfaces.buses:
        config = _config_words(t, bus)
        clear = CLEAR_BITS if bus.data_bits >= 16 else 0
        # A byte-wide bus has no bits above the index for flags: one block read and one write plain.
        reads, writes = read_sessions(bus.data_bits) or [[0]], write_sessions(bus.data_bits) or [[0]]
        sessions = [("reads", 17, k, chosen) for k, chosen in enumerate(reads)]
        sessions += [("writes", 24, k, chosen) for k, chosen in enumerate(writes)]
        for cmd_addr in bus.addresses[:4]:
            others = [a for a in bus.addresses[:4] if a != cmd_addr]
            for direction, index, k, chosen in sessions:
                rough = k % 2 == 1
                ops = [op("reset"), op("respond", d.name, fill="random", seed=1, latency=2 if rough else 0),
                       op("hold", DETECT_HOLD)]
                # The other registers again before each control word: a configuration command
                # may load its divider from them and then overwrite them with what it set.
                for w in (*config, None):
                    ops += [op("bus_write", bus.name, a, 1) for a in others]
                    ops += [op("bus_write", bus.name, cmd_addr, w)] if w is not None else []
                ops += initialisation(bus.name, cmd_addr, clear)
                if index == 24:  # the block the controller sends comes from its FIFO
                    ops += [op("bus_burst", bus.name, a, 128, seed=a + 1, bits=32) for a in others]
                for f in chosen:
                    ops += command(bus.name, cmd_addr, index, f | clear, BLOCK_HOLD)
                ops += command(bus.name, cmd_addr, 13, clear, COMMAND_HOLD)
                ops += [op("bus_burst", bus.name, a, 128, write=0) for a in others]
                ops += [op("bus_read", bus.name, a) for a in bus.addresses[:4]]
                name = f"{d.name} card block {direction} {k + 1} through {bus.name} @{cmd_addr:#x}"
                out.append((name + (" on a rough card" if rough else ""), trim(t, Program(tuple(ops)))))
    return out
