"""Setup discovery on real designs: which storage the inputs can write, and how (needs Verilator)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.analysis.interface import read_interface
from sim.suite import load_design

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO.parent / "shared" / "benchmarks" / "public"

pytestmark = pytest.mark.simulator_required


def test_table_and_decoded_registers_of_the_bundled_pipeline() -> None:
    iface = read_interface(load_design(REPO / "examples" / "recip_pipeline"))
    ports = {p.storage: p for p in iface.write_ports}
    assert set(ports) == {"recip_table", "enable", "round_up", "threshold"}
    table = ports["recip_table"]
    assert (table.kind, table.depth, table.width) == ("memory", 256, 16)
    assert table.enable == (("cfg_we", 1),)
    assert table.idle == (("cfg_we", 0),)
    assert table.address == "cfg_addr"
    # `!cfg_addr[8]` guards the table: every listed address keeps bit 8 clear.
    assert table.addresses == tuple(range(256))
    assert table.data == (("cfg_wdata", 0, 16),)
    # CONTROL and THRESHOLD sit behind `cfg_addr == 9'h100 / 9'h101`.
    assert ports["enable"].kind == "register"
    assert ports["enable"].addresses == (0x100,)
    assert ports["enable"].data == (("cfg_wdata", 0, 1),)
    assert ports["round_up"].data == (("cfg_wdata", 1, 1),)
    assert ports["threshold"].addresses == (0x101,)
    # Tables come first: a setup phase writes them before the registers that enable the datapath.
    assert iface.write_ports[0].storage == "recip_table"


def test_upstream_inputs_reach_registers_two_stages_back() -> None:
    iface = read_interface(load_design(REPO / "examples" / "recip_pipeline"))
    # recip2 <= recip_table[max1]: the table's write port and the pixel inputs feed it.
    assert {"cfg_wdata", "cfg_addr", "cfg_we", "r", "g", "b"} <= set(iface.upstream["recip2"])
    # v1 <= valid_in && enable: one stage.
    assert "valid_in" in iface.upstream["v1"]
    assert "r" not in iface.upstream["v1"]


@pytest.mark.skipif(not SUITE.is_dir(), reason="public benchmark suite not present")
def test_dual_port_ram_has_two_write_ports_and_a_fifo_none() -> None:
    ram = read_interface(load_design(SUITE / "cvdp__sram_fd"))
    by_address = {p.address: p for p in ram.write_ports}
    assert set(by_address) == {"a_addr", "b_addr"}
    assert dict(by_address["a_addr"].enable) == {"a_we": 1, "ce": 1}
    assert by_address["a_addr"].data == (("a_wdata", 0, 8),)
    assert len(by_address["a_addr"].addresses) == by_address["a_addr"].depth
    # A FIFO's storage is indexed by its own pointers: nothing to set up from outside.
    fifo = read_interface(load_design(SUITE / "common_cells__cc_fifo"))
    assert fifo.write_ports == ()


@pytest.mark.skipif(not SUITE.is_dir(), reason="public benchmark suite not present")
def test_axi_lite_ram_write_is_solved_through_its_combinational_handshake() -> None:
    # mem[awaddr >> 2][8*i +: 8] <= wdata[8*i +: 8] under `if (mem_wr_en && wstrb[i])`, where an
    # always @* sets mem_wr_en when awvalid && wvalid && (!bvalid || bready) && ...
    iface = read_interface(load_design(SUITE / "forencich__axil_ram"))
    (port,) = [p for p in iface.write_ports if p.storage == "mem"]
    assert port.kind == "memory"
    assert port.address == "s_axil_awaddr"
    assert dict(port.enable) == {"s_axil_awvalid": 1, "s_axil_wvalid": 1, "s_axil_bready": 1, "s_axil_wstrb": 0xF}
    assert port.data == (("s_axil_wdata", 0, 32),)
    # Word addresses: the index is awaddr >> 2, so entries sit 4 bytes apart; 16384 entries
    # are too many to write each time, so 256 spread over the array plus the last one.
    assert all(a % 4 == 0 for a in port.addresses)
    assert port.depth == 16384
    assert len(port.addresses) == 257
    assert (port.addresses[0], port.addresses[-1]) == (0, 4 * 16383)
    # The handshake re-arms through internal registers: each write is held two cycles.
    assert port.hold == 2
