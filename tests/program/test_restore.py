"""Which power-up-only registers a reset writes back, and through which bus (pure)."""

from __future__ import annotations

from port_layouts import layout

from agent.program.interfaces import recognise
from agent.program.ops import Program
from agent.program.restore import restore_ops
from agent.program.text import format_program
from sim.analysis.write_ports import WritePort

SOC = layout("soc", ">clk >rst >i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[16] <o_wb_ack <o_wb_data[16] "
             ">i_other[16]", {"rst": False})
WB = recognise(SOC)


def _port(storage: str, addr: int, width: int = 16, data: str = "i_wb_data", lsb: int = 0) -> WritePort:
    return WritePort(storage, "register", "soc.sv", 1, depth=1, width=width, enable=(("i_wb_stb", 1), ("i_wb_we", 1)),
                     idle=(("i_wb_stb", 0),), address="i_wb_addr", addresses=(addr,), data=((data, lsb, width),))


def test_a_configuration_word_alone_at_its_address_is_written_back() -> None:
    ports = (_port("cfg", 0), _port("flag", 1, width=1), _port("cmd", 2, width=8), _port("go", 2, width=1, lsb=15),
             _port("mix", 3, data="i_other"))
    power_up = {"cfg": 0x19, "flag": 1, "cmd": 0, "go": 0, "mix": 7, "internal": 3}
    ops = restore_ops(WB, ports, power_up)
    # flag: too narrow (a flag a write sets or clears); cmd: shares its address with go (a write
    # there may start something); mix: not written from the bus's data; internal: no write port.
    assert format_program(Program(ops)).strip() == "bus_write wb 0 0x19"
    assert restore_ops(WB, ports, {}) == ()


def test_a_value_wider_than_the_bus_is_not_written() -> None:
    assert restore_ops(WB, (_port("cfg", 0, width=24),), {"cfg": 1 << 20}) == ()
