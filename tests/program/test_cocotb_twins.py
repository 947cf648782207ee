"""Responders and devices rendered twice (SV testbench, cocotb test) on test designs and public
designs: both toggle alike, clean and rough (waits, errors, long stalls, other controllers)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from cocotb_twins import matched_toggles, run_public, run_twins, toggle_counts

from agent.program.target import Target
from sim.run.evaluate import SimOptions
from sim.types import Status


@pytest.fixture(scope="module")
def options(tmp_path_factory: pytest.TempPathFactory) -> SimOptions:
    return SimOptions(cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [2, 3])
def test_split_transaction_responders_match_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # Requests taken while accept is high, answered later in order with their tags; the
    # fetched words decode (`(inst & MASK) == MATCH` templates), so the CPU runs without a trap.
    # A rough data memory (latency 3) answers some requests with mem_d_error_i.
    text = f"reset 3\nrespond mem_i fill=decode seed=5\nrespond mem_d fill=decode latency={latency} seed=7\nhold 1500\n"
    sv, cocotb = run_twins("split_cpu", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["retired_o[6]:0->1"] > 0
    assert toggles["mem_d_wr_o[3]:0->1"] > 0
    assert toggles["trap_o:0->1"] == 0
    assert toggles["tag_error_o:0->1"] == 0  # every answer carried its request's tag
    assert (toggles["bus_error_o:0->1"] > 0) == (latency >= 3)



@pytest.mark.simulator_required
def test_a_64_bit_fetch_carries_any_two_instructions_in_both_renderings(options: SimOptions) -> None:
    # dual_fetch (Apache-2.0) hides its decoder behind a queue, so its memory gets the ISA's
    # encodings, one instruction per 32-bit half drawn on its own: every pair of kinds turns up
    # (a fixed pairing of templates never put an ALU operation beside a load or a branch).
    sv, cocotb = run_twins("dual_fetch", "reset 3\nrespond mem fill=decode seed=5\nhold 3000\n", options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    seen = {comment for (_file, _line, comment), n in toggle_counts(sv).items() if n > 0}
    alu, load, store, branch = 0, 1, 2, 3
    for first, second in ((alu, load), (alu, store), (alu, branch), (load, alu), (branch, alu), (alu, alu)):
        assert f"pairs[{8 * first + second}]:0->1" in seen, (first, second)
    assert sum(f"pairs[{k}]:0->1" in seen for k in range(64)) >= 40


@pytest.mark.simulator_required
def test_an_idioms_memory_starts_alike_in_both_renderings(options: SimOptions) -> None:
    # fill=idioms: the prologue, then the calls and returns of `isa.idioms` packed two to a
    # fetch word, then decoded random words drawn as fill=decode draws them.
    sv, cocotb = run_twins("dual_fetch", "reset 3\nrespond mem fill=idioms seed=5\nhold 3000\n", options)
    decoded, _ = run_twins("dual_fetch", "reset 3\nrespond mem fill=decode seed=5\nhold 3000\n", options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    assert toggle_counts(sv) != toggle_counts(decoded)  # the words after the prologue differ

@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [2, 3])
def test_ahb_lite_responder_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # A CPU on one AHB-Lite manager port: fetches and loads answered in their data phases with
    # wait states (hready low), byte stores by hsize; cocotb and SV answer cycle for cycle. A
    # rough memory (latency 3) answers some data phase ERROR, on which this CPU traps.
    text = f"reset 3\nrespond ahb fill=decode latency={latency} seed=9\nhold 1500\n"
    sv, cocotb = run_twins("ahb_cpu", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = toggle_counts(sv)
    assert toggles[("ahb_cpu.sv", 16, "HREADY:1->0")] > 0  # with wait states
    if latency < 3:
        assert toggles[("ahb_cpu.sv", 21, "retired[6]:0->1")] > 0  # 64 instructions retired through the responder
        assert toggles[("ahb_cpu.sv", 17, "HRESP:0->1")] == 0
    else:
        assert toggles[("ahb_cpu.sv", 17, "HRESP:0->1")] > 0
        assert toggles[("ahb_cpu.sv", 19, "trap:0->1")] > 0


@pytest.mark.simulator_required
def test_ahb_lite_subordinate_driver_matches_the_sv_testbench(options: SimOptions) -> None:
    # Word and byte (one strobe lane) writes, a waited register, a read, and an ERROR response.
    text = ("reset\nbus_write ahb 0x1c 0x600dcafe\nbus_write ahb 0x4 0x00ab0000 strb=0x4\nbus_read ahb 0x14\n"
            "bus_read ahb 0x40\nbus_write ahb 0x8 0x12345678 strb=0x3\n")
    sv, cocotb = run_twins("ahb_regs", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = toggle_counts(sv)
    assert toggles[("ahb_regs.sv", 19, "unlocked:0->1")] > 0
    assert toggles[("ahb_regs.sv", 20, "lane2_seen:0->1")] > 0
    assert toggles[("ahb_regs.sv", 17, "hresp_o:0->1")] > 0
    assert toggles[("ahb_regs.sv", 22, "regs[1][23]:0->1")] > 0  # 0xab on lane 2 only
    assert toggles[("ahb_regs.sv", 22, "regs[1][7]:0->1")] == 0


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_i2c_target_device_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # forencich's I2C master (MIT, the public suite's copy) under random commands: a clean device
    # acknowledges every transfer and its bytes are read back; a rough one (latency 2) also
    # stretches the clock, refuses some bytes, and another controller takes the bus.
    text = (f"reset 3\nrespond i2c fill=ramp seed=3 latency={latency}\nset prescale=2 stop_on_idle=1\n"
            "sink m_axis_data ready=100 seed=3\nsend s_axis_cmd 30 seed=5 gap=40\nsend s_axis_data 20 seed=7\n"
            "hold 30000\n")
    sv, cocotb = run_public("forencich__i2c_master", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    # Every signal but the clock toggles alike (the cocotb test ends one clock later here: the
    # sink is cocotbext's, whose last beat is taken on its own timing).
    assert {k: n for k, n in toggle_counts(cocotb).items() if "clk:" not in k[2]} == \
        {k: n for k, n in toggle_counts(sv).items() if "clk:" not in k[2]}
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["m_axis_data_tvalid:0->1"] > 0  # bytes read back from the device
    if latency == 0:
        assert toggles["missed_ack:0->1"] == 0  # every address and byte acknowledged
        assert toggles["m_axis_data_tdata[7]:0->1"] == 0  # ramp bytes from a small pointer: bit 7 stays low
    else:
        assert toggles["missed_ack:0->1"] > 0  # refusals


@pytest.mark.simulator_required
def test_the_other_i2c_controller_addressing_a_target_matches_the_sv_testbench(options: SimOptions) -> None:
    # A target that drives SDA only, at its parameter's address 0x2A: the other controller on the
    # bus writes register numbers and bytes and reads them back; cocotb and SV toggle alike.
    text = "reset 3\nrespond i2c fill=random seed=11 latency=0\nhold 40000\n"
    sv, cocotb = run_twins("i2c_regs", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["writes[0]:0->1"] > 0  # bytes stored at its own address
    assert toggles["reads[0]:0->1"] > 0  # and read back
    assert toggles["sda_oe:0->1"] > 0


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_the_other_i2c_controller_addresses_a_design_that_drives_scl_only_when_rough(options: SimOptions,
                                                                                    latency: int) -> None:
    # A design that can drive SCL (as a controller with a slave mode) is addressed at its
    # parameter's address by the other controller on a rough bus only, half of its turns.
    text = f"reset 3\nrespond i2c fill=random seed=11 latency={latency}\nhold 60000\n"
    sv, cocotb = run_twins("i2c_regs_scl", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert (toggles["writes[0]:0->1"] > 0) == (latency > 0)
    assert (toggles["reads[0]:0->1"] > 0) == (latency > 0)


@pytest.mark.simulator_required
def test_consecutive_bursts_on_a_pipelined_wishbone_match_the_sv_testbench(options: SimOptions) -> None:
    # `step` bursts on a pipelined slave are one cycle of back-to-back requests, so the slave's
    # "next address while the previous request is open" path runs; `step=0` bursts never do.
    text = "reset\nbus_burst wb 0x10 8 write=0 step=1\nhold 5\nbus_burst wb 0x20 4 seed=9 bits=32 step=1\nhold 5\n"
    toggles = matched_toggles("wb_pipe", text, options)
    assert toggles[("wb_pipe.sv", 20, "long_read:0->1")] == 1
    assert toggles[("wb_pipe.sv", 21, "long_write:0->1")] == 1
    assert toggles[("wb_pipe.sv", 19, "continued[3]:0->1")] == 1  # 7 + 3 continuations
    assert toggles[("wb_pipe.sv", 22, "held:0->1")] == 0  # back to back: the strobe never rests
    same, _ = run_twins("wb_pipe", "reset\nbus_burst wb 0x10 8 write=0\nbus_burst wb 0x20 8 seed=9\nhold 5\n", options)
    assert toggle_counts(same)[("wb_pipe.sv", 19, "continued[0]:0->1")] == 0


@pytest.mark.simulator_required
@pytest.mark.parametrize(("gap", "held"), [(15, 0), (16, 1)])
def test_a_slow_master_rests_the_strobe_inside_one_cycle_in_both_testbenches(options: SimOptions, gap: int,
                                                                              held: int) -> None:
    # `gap` idle clocks between the requests of one cycle: the slave counts each continuation
    # still (cyc held), and one after a rest of 16 clocks is `held`; 15 is one short.
    text = f"reset\nbus_burst wb 0x10 3 write=0 step=1 gap={gap}\nhold 5\nbus_burst wb 0x20 3 seed=9 bits=32 step=1 gap={gap}\n"
    toggles = matched_toggles("wb_pipe", text, options)
    assert toggles[("wb_pipe.sv", 19, "continued[2]:0->1")] == 1  # 2 + 2 continuations
    assert toggles[("wb_pipe.sv", 22, "held:0->1")] == held


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_sd_card_device_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # An SD controller over SPI: the card answers its initialisation (CMD0, CMD8, CMD55 +
    # ACMD41 until ready, CMD58), takes CMD16's block length (16 bytes) and sends blocks of
    # that length with their CRC16 (a 512-byte block fails the controller's CRC after 16); a
    # rough card (latency 2) waits longer, keeps the controller looping on ACMD41 and sends
    # CRC errors.
    # (The program ends with the card deselected: at the very last clock edge SV and cocotb
    # could otherwise differ in whether the device's process ran before the end.)
    text = (f"reset 3\nrespond spi fill=ramp seed=3 latency={latency}\nset start_read=1 block=0x21\nhold 30000\n"
            "set start_read=0\nhold 20000\n")
    sv, cocotb = run_twins("sd_spi", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["card_in:0->1"] == 1  # the device holds the slot's card detect at "present"
    assert toggles["ready:0->1"] == 1  # the card initialised
    assert toggles["v2:0->1"] == 1
    assert toggles["sdhc:0->1"] == 1
    assert toggles["block_done:0->1"] >= 1
    assert toggles["crc_ok:0->1"] >= 1  # never with 512 bytes: the CRC after 16 would be data
    if latency == 0:
        assert toggles["crc_ok:1->0"] == 0
        assert toggles["error:0->1"] == 0
        assert toggles["init_loops[1]:0->1"] == 0  # ready at the second ACMD41
    else:
        assert toggles["init_loops[1]:0->1"] == 1 or toggles["error:0->1"] == 1


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_spi_flash_device_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # A flash controller over SPI: JEDEC ID, sector erase, page program, status polling while
    # the flash is busy, read back; a rough flash (latency 2) stays busy longer and sometimes
    # reports a failed program (status bit 6).
    text = (f"reset 3\nrespond spi fill=random seed=3 latency={latency}\nset start=1 wdata=0x12345678\nhold 12000\n"
            "set start=0\nhold 3000\n")
    sv, cocotb = run_twins("spi_flash", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["id_ok:0->1"] == 1
    assert toggles["wip_seen:0->1"] == 1
    assert toggles["done:0->1"] >= 2  # the sequence ran more than once
    assert toggles["match:0->1"] == 1  # what was programmed after the erase reads back
    assert (toggles["prog_error:0->1"] > 0) == (latency > 0)


@pytest.mark.simulator_required
def test_consecutive_bursts_on_a_classic_wishbone_are_single_transactions_in_both(options: SimOptions) -> None:
    # A classic slave (no stall output) gets one transaction per address, `step` apart, in SV and cocotb alike.
    text = "reset\nbus_burst wb 0x0 4 seed=5 bits=8 step=1\nbus_burst wb 0x0 4 write=0 step=1\nhold 4\n"
    sv, cocotb = run_twins("byte_lanes", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    assert toggle_counts(sv)[("byte_lanes.sv", 15, "regs[3][0]:0->1")] + \
        toggle_counts(sv)[("byte_lanes.sv", 15, "regs[3][1]:0->1")] > 0  # the fourth register was written


def _without_ids(t: Target) -> Target:
    """`t` with its AXI responder's ID ports unrecognised: cocotbext's AxiRam needs them, so the hand responder runs."""
    responders = tuple(replace(r, roles={k: v for k, v in r.roles.items() if k not in ("awid", "arid")})
                       for r in t.interfaces.responders)
    return replace(t, interfaces=replace(t.interfaces, responders=responders))


AXI4_COPIES = """\
reset 3
respond m_axi fill=random seed=11 latency={latency}
set src=0x40 dst=0x200 len=15 wrap=0 tag=3 start=1
hold 1
set start=0
hold 200
set src=0x84 dst=0x300 len=7 wrap=1 tag=5 start=1
hold 1
set start=0
hold 200
"""
"""Two copies on the AXI4 copy engine: a 16-beat INCR burst, then an 8-beat WRAP burst from mid-block."""


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_axi4_burst_responder_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # A master's read and write bursts answered beat by beat (RLAST on the last, the burst's
    # addresses INCR and WRAP); a rough slave (latency 2) waits and answers some SLVERR.
    sv, cocotb = run_twins("axi4_copy", AXI4_COPIES.format(latency=latency), options, edit=_without_ids)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["done:0->1"] == 2  # both copies ran to their write response
    assert toggles["m_axi_rlast:0->1"] == 2  # RLAST once per read burst, with its last beat
    assert toggles["checksum[31]:0->1"] + toggles["checksum[30]:0->1"] > 0


@pytest.mark.simulator_required
def test_an_axi4_slave_drops_its_answers_when_the_design_is_reset(options: SimOptions) -> None:
    # A reset asserted by the program's inputs (not `reset`, which stops the responder) in the
    # middle of a burst: the slave resets with the design, so the copy after it gets its own
    # answers, never a read beat left over from before (picorv32_axi took such a beat for its
    # next fetch and withdrew ARVALID: a false protocol finding). Cocotb and SV alike (IDs left
    # out so the hand responder runs: this design then flags the missing RID, as before).
    text = ("reset 3\nrespond m_axi fill=random seed=11 latency=2\n"
            "set src=0x40 dst=0x200 len=15 wrap=0 tag=3 start=1\nhold 1\nset start=0\nhold 12\n"
            "set rst_n=0\nhold 2\nset rst_n=1\nhold 4\n"
            "set src=0x80 dst=0x300 len=7 wrap=0 tag=5 start=1\nhold 1\nset start=0\nhold 300\n")
    sv, cocotb = run_twins("axi4_copy", text, options, edit=_without_ids)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["done:0->1"] == 1  # the copy after the reset completed


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [2, 4])
def test_a_rough_axi4_slave_stalls_for_long_in_both_renderings(options: SimOptions, latency: int) -> None:
    # 24 copies started 400 clocks apart: a slave answering within a few clocks finishes each
    # before the next start; a rough one (latency 4) also stalls for 1,024 clocks now and then,
    # so some starts find the engine busy and are lost. Cocotb and SV alike.
    copy = "set src=0x40 dst=0x200 len=3 wrap=0 tag=1 start=1\nhold 1\nset start=0\nhold 400\n"
    text = f"reset 3\nrespond m_axi fill=random seed=11 latency={latency}\n" + copy * 24
    sv, cocotb = run_twins("axi4_copy", text, options, edit=_without_ids)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    done = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}["done:0->1"]
    assert (done < 24) == (latency == 4), done


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [1, 3])
def test_wishbone_responder_matches_the_sv_testbench(options: SimOptions, latency: int) -> None:
    # A Wishbone master's reads and write answered with stalls; a rough memory (latency 3) ends
    # some cycles with ERR instead of ACK, which this master counts.
    text = (f"reset 3\nrespond wb fill=random latency={latency} seed=13\n"
            + "".join(f"set i_start=1 i_base={base} i_count=15\nhold 1\nset i_start=0\nhold 120\n"
                      for base in (0x10, 0x40, 0x80, 0xc0)))
    sv, cocotb = run_twins("wb_sum", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["i_wb_stall:0->1"] > 0
    assert toggles["o_sum[30]:0->1"] > 0  # the random words were summed
    assert (toggles["o_errors[0]:0->1"] > 0) == (latency >= 3)
    assert toggles["o_done:0->1"] > 0


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [2, 4])
def test_a_rough_wishbone_slave_stalls_for_long_in_both_renderings(options: SimOptions, latency: int) -> None:
    # 20 sums of 4 words started 300 clocks apart: each finishes before the next start unless
    # a rough slave (latency 4) holds STALL for 1,024 clocks, which loses some starts.
    text = (f"reset 3\nrespond wb fill=random latency={latency} seed=13\n"
            + "set i_start=1 i_base=0x10 i_count=3\nhold 1\nset i_start=0\nhold 300\n" * 20)
    sv, cocotb = run_twins("wb_sum", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    done = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}["o_done:0->1"]
    assert (done < 20) == (latency == 4), done


_MID_RESETS = {
    # design: (program, its reset pulsed by the program's own inputs while answers are in flight)
    "split_cpu": ("respond mem_i fill=decode seed=5 latency=2\nrespond mem_d fill=decode latency=3 seed=7\n", "rst_i=1",
                  "rst_i=0"),
    "ahb_cpu": ("respond ahb fill=decode latency=2 seed=9\n", "HRESETn=0", "HRESETn=1"),
    "wb_sum": ("respond wb fill=random latency=4 seed=13\nset i_start=1 i_base=0x10 i_count=15\n", "i_reset=1",
               "i_reset=0"),
}


@pytest.mark.simulator_required
@pytest.mark.parametrize("design", sorted(_MID_RESETS))
def test_responders_reset_with_the_design_in_both_renderings(options: SimOptions, design: str) -> None:
    # Resets asserted by the program's inputs (not `reset`, which stops the responders) at odd
    # clocks while requests are in flight: every responder drops what it holds (a queued split
    # answer, an AHB data phase with its wait states, a long Wishbone stall) and the design runs
    # again after each; cocotb and SV alike, clock for clock (`sv_common.responder_off`).
    start, on, off = _MID_RESETS[design]
    pulses = "".join(f"hold {gap}\nset {on}\nhold {gap % 2 + 1}\nset {off}\n" for gap in (37, 53, 70, 29, 96, 41))
    sv, cocotb = run_twins(design, f"reset 3\n{start}{pulses}hold 200\n", options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)


@pytest.mark.simulator_required
@pytest.mark.parametrize("latency", [0, 2])
def test_a_pipelined_wishbone_masters_back_to_back_requests_are_each_acknowledged(options: SimOptions,
                                                                                   latency: int) -> None:
    # bad_wb (bad=0) strobes eight reads on consecutive clocks where STALL lets them through and
    # ends its cycle after eight ACKs: a responder that skipped the strobe after each ACK (a
    # classic slave's rule) left it waiting forever after five.
    text = f"reset\nrespond wb fill=random latency={latency} seed=5\nset go=1 bad=0 base=0x20\nhold 400\n"
    sv, cocotb = run_twins("bad_wb", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["o_wb_cyc:1->0"] >= 10  # cycle after cycle of eight reads completed


@pytest.mark.simulator_required
def test_an_avalon_mm_agent_is_driven_alike_in_both_renderings(options: SimOptions) -> None:
    # avalon_regs (Apache-2.0): writes to the key and limit registers wait on waitrequest, reads
    # come back two clocks later with readdatavalid; the key unlocks the limit, the counter
    # reaches it and raises irq. Cocotb and SV clock for clock.
    text = ("reset\nbus_write avs_s0_bus 0x2 0x600dcafe\nbus_write avs_s0_bus 0x3 0x20\n"
            "bus_write avs_s0_bus 0x1 0x12345678 strb=0x3\nbus_write avs_s0_bus 0x0 0x1\n"
            "bus_read avs_s0_bus 0x1\nbus_read avs_s0_bus 0x4\nhold 50\nbus_read avs_s0_bus 0x5\n")
    sv, cocotb = run_twins("avalon_regs", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["avs_s0_waitrequest:0->1"] >= 2  # the key's and the limit's writes waited
    assert toggles["avs_s0_readdatavalid:0->1"] == 3  # every read answered
    assert toggles["irq:0->1"] == 1  # unlocked, limit 0x20 reached


@pytest.mark.simulator_required
@pytest.mark.parametrize(("name", "iface", "go", "latency"), [
    ("apb_copier", "bus", "set go=1 src=0x10 dst=0x40 count=7\nhold 1\nset go=0\nhold 150\n", 2),
    ("apb_copier", "bus", "set go=1 src=0x10 dst=0x40 count=7\nhold 1\nset go=0\nhold 150\n", 3),
    ("avm_summer", "avm", "set go=1 base=0x10\nhold 1\nset go=0\nhold 150\n", 0),
    ("avm_summer", "avm", "set go=1 base=0x10\nhold 1\nset go=0\nhold 150\n", 2),
])
def test_apb_requesters_and_avalon_hosts_are_answered_alike(options: SimOptions, name: str, iface: str, go: str,
                                                            latency: int) -> None:
    # apb_copier (an APB requester: PREADY after wait states, PSLVERR one transfer in sixteen when
    # rough) and avm_summer (an Avalon-MM host: waitrequest, pipelined reads back with
    # readdatavalid) each finish three jobs; cocotb and SV clock for clock.
    sv, cocotb = run_twins(name, f"reset\nrespond {iface} fill=random seed=7 latency={latency}\n" + go * 3, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    toggles = {comment: n for (_file, _line, comment), n in toggle_counts(sv).items()}
    assert toggles["done:0->1"] == 3
    if name == "apb_copier":
        assert (toggles["errors[0]:0->1"] > 0) == (latency >= 3)  # a rough completer's PSLVERR was counted
    else:
        assert toggles["avm_readdatavalid:0->1"] >= 24  # eight reads a job, each answered


def _with_prologue(t: Target) -> Target:
    """`t` as a RISC-V core's: its memory starts with `isa.prologue` (ahb_cpu's literals do not make one)."""
    from agent.program.isa import prologue

    responders = tuple(replace(r, prologue=prologue(r.data_bits)) for r in t.interfaces.responders)
    return replace(t, interfaces=replace(t.interfaces, responders=responders))


@pytest.mark.simulator_required
def test_a_decoded_memory_starts_with_the_prologue_in_both_renderings(options: SimOptions) -> None:
    # The prologue's words are what the CPU fetches first (ahb_cpu decodes no LUI and traps on
    # it, so its run differs from the one on random decodable words); cocotb and SV alike.
    text = "reset 3\nrespond ahb fill=decode latency=0 seed=9\nhold 200\n"
    sv, cocotb = run_twins("ahb_cpu", text, options, edit=_with_prologue)
    plain, _ = run_twins("ahb_cpu", text, options)
    assert sv.status is Status.OK, sv.detail
    assert cocotb.status is Status.OK, cocotb.detail + cocotb.log_tail[-2000:]
    assert toggle_counts(cocotb) == toggle_counts(sv)
    assert toggle_counts(sv) != toggle_counts(plain)  # the first fetches differ from the random words'


@pytest.mark.simulator_required
def test_a_growing_hold_runs_as_long_in_both_renderings(options: SimOptions) -> None:
    # A CPU fetching from its memory toggles on every clock it runs: three passes of 10, 17 and
    # 24 clocks toggle alike in the SV loop and the cocotb loop, and more than three of 10.
    grown = matched_toggles("tiny_cpu", "reset\nrespond mem seed=5\nrepeat 3 {\n  hold 10 grow=7\n}\n", options)
    flat = matched_toggles("tiny_cpu", "reset\nrespond mem seed=5\nrepeat 3 {\n  hold 10\n}\n", options)
    assert sum(grown.values()) > sum(flat.values())
