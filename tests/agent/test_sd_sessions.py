"""The SD-card sessions' pure parts: flag patterns, their sessions, the initialisation sequence."""

from __future__ import annotations

from port_layouts import layout

from agent.heuristic import sd_sessions as sd
from agent.heuristic.moves import fits
from agent.program.interfaces import recognise
from agent.program.ops import Program, check
from agent.program.target import Target
from agent.program.text import format_program


def test_flag_words_are_each_bit_then_each_pair_above_the_index_byte() -> None:
    words = sd.flag_words(32)
    assert words[:5] == [0x100, 0x200, 0x400, 0x800, 0x1000]
    assert len(words) == 5 + 10
    assert len(set(words)) == 15
    assert all(w & 0xFF == 0 and bin(w).count("1") in (1, 2) for w in words)
    assert sd.flag_words(8) == []  # an 8-bit register has no bits above its index byte


def test_read_sessions_cover_every_pattern_once_within_the_session_size() -> None:
    sessions = sd.read_sessions(32)
    assert sorted(w for s in sessions for w in s) == sorted(sd.flag_words(32))
    assert all(len(s) <= sd.PATTERNS_PER_SESSION for s in sessions)


def test_every_write_session_shares_one_bit_so_a_direction_bit_is_never_contradicted() -> None:
    sessions = sd.write_sessions(32)
    assert len(sessions) == 5
    for s in sessions:
        assert all(w & s[0] for w in s)  # the session's bit is in every pattern
        assert len(s) == 5
    # ZipCPU sdspi's block write (FIFO bit 11 + write bit 10) is in the bit-10 session, whose
    # patterns never ask for a read (bit 11 without bit 10), which would hang the controller.
    assert 0xC00 in sessions[2]
    assert 0x800 not in sessions[2]


def test_initialisation_is_cmd0_cmd8_then_app_command_pairs_then_cmd58() -> None:
    ops = sd.initialisation("wb", 0, sd.CLEAR_BITS)
    text = format_program(Program(tuple(ops)))
    assert text.index("0xe040") < text.index("0xe048") < text.index("repeat 3") < text.index("0xe07a")
    pair = ops[4]
    assert pair.name == "repeat"
    assert [o.num("data") for o in pair.body if o.name == "bus_write"] == [0xE077, 0xE069]  # CMD55, ACMD41


def test_a_byte_wide_command_register_still_gets_one_plain_block_read_and_write() -> None:
    soc = layout("sdc", ">clk >rst >wb_cyc_i >wb_stb_i >wb_we_i >wb_adr_i[2] >wb_dat_i[8] <wb_dat_o[8] <wb_ack_o "
                 "<sd_sck <sd_cs_n <sd_mosi >sd_miso", {"rst": False})
    t = Target(soc, recognise(soc))
    (card,) = [r for r in t.interfaces.responders if r.kind == "sd"]
    sessions = sd.sd_command_sessions(t, card)
    assert len(sessions) == 2 * 4  # a read and a write per guess of the command register (4 addresses)
    for _, program in sessions:
        check(program, t.scope)
        assert fits(t, program)
        words = [o.num("data") for o in program.ops if o.name == "bus_write"]
        assert all(w < 0x100 for w in words)  # no flag or clear bits on an 8-bit register


def test_size_words_carry_the_size_in_every_nibble_above_a_fastest_divider() -> None:
    assert sd.size_word(3, 32) == 0x3333_3301
    assert sd.size_word(8, 16) == 0x8801
    assert (sd.size_word(5, 32) >> 16) & 0xF == 5  # sdspi's block-size field at bit 16


def test_block_size_sessions_read_at_every_size_after_the_configuration_command() -> None:
    # ZipCPU sdspi's shape: 32-bit Wishbone registers, a configuration command (0xC0) among the
    # words its decoder compares with; every size from 8 to 256 bytes is read under each flag.
    soc = layout("sdspi", ">clk >rst >i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[32] >i_wb_sel[4] "
                 "<o_wb_ack <o_wb_stall <o_wb_data[32] <o_cs_n <o_sck <o_mosi >i_miso", {"rst": False})
    plain = Target(soc, recognise(soc))
    (card,) = [r for r in plain.interfaces.responders if r.kind == "sd"]
    assert sd.block_size_sessions(plain, card) == []  # no configuration command: no sizes to set
    t = Target(soc, recognise(soc), {"i_wb_data": (0, 0xC0, 0x40, 0xC1)})  # sdspi mines two
    sessions = sd.block_size_sessions(t, card)
    assert len(sessions) == len(sd.BLOCK_SIZES) * 4  # per pair of sizes and guess of the command register
    sizes = set()
    for _, program in sessions:
        check(program, t.scope)
        assert fits(t, program)
        words = [o.num("data") for o in program.ops if o.name == "bus_write"]
        reads = [w for w in words if w & 0x7F == 0x51]  # CMD17 frames
        assert len(reads) == 2 * 5  # two sizes, each under the five single flag bits
        assert all(bin(w & 0x1F00).count("1") == 1 for w in reads)
        for lg in range(3, 9):
            if sd.size_word(lg, 32) in words:
                sizes.add(lg)
                at = words.index(sd.size_word(lg, 32))
                assert 0xC0 in words[at:]  # the configuration command loads it
    assert sizes == set(range(3, 9))
