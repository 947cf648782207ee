"""The device scenarios' programs for a controller with a slave mode on I2C (pure)."""

from __future__ import annotations

import random

from port_layouts import layout

from agent.heuristic import device_scenarios as ds
from agent.program.interfaces import recognise
from agent.program.ops import check
from agent.program.target import Target

# freecores' i2c_master_top: eight byte registers on Wishbone (prescaler lo/hi, control, data,
# command, -, -, own address) and open-drain SCL/SDA with a slave mode.
OC_I2C = layout("i2c_master_top", ">wb_clk_i >wb_rst_i >arst_i >wb_adr_i[3] >wb_dat_i[8] <wb_dat_o[8] >wb_we_i "
                ">wb_stb_i >wb_cyc_i <wb_ack_o <wb_inta_o >scl_pad_i <scl_pad_o <scl_padoen_o >sda_pad_i "
                "<sda_pad_o <sda_padoen_o", {"wb_rst_i": False, "arst_i": True}, "wb_clk_i")


def test_serviced_sessions_write_the_service_word_to_the_registers_after_the_enabling_one_only() -> None:
    ifs = recognise(OC_I2C, i2c_addresses=(0x7E,))
    t = Target(OC_I2C, ifs)
    (device,) = [r for r in ifs.responders if r.kind == "i2c"]
    (bus,) = ifs.buses
    sessions = ds._serviced_sessions(random.Random(0), t, device, bus)
    # One per enabling register that has registers after it (the last one has none).
    assert [name.split("register ")[1] for name, _ in sessions] == [f"{a:#x} all ones" for a in range(7)]
    _name, program = sessions[2]  # the control register (enable, interrupt enable, slave enable) all ones
    check(program, t.scope)
    assert [o.name for o in program.ops][-3:] == ["bus_write", "hold", "repeat"]
    assert (program.ops[-3].num("addr"), program.ops[-3].num("data")) == (2, 0xFF)
    (rounds,) = [o for o in program.ops if o.name == "repeat"]
    assert rounds.num("times") == ds.SERVICE_ROUNDS
    writes = [(o.num("addr"), o.num("data")) for o in rounds.body if o.name == "bus_write"]
    # Each register after the control one: the service word, then 0 again; never the
    # prescaler before it, whose transient value would slow the design's line sampling.
    assert writes == [(a, w) for a in range(3, 8) for w in (ds.SERVICE_WORD, 0)]
    assert rounds.body[-1].name == "hold"
