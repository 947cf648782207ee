"""Interface recognition from port names and directions (pure; port lists of real designs)."""

from __future__ import annotations

from port_layouts import layout

from agent.program.interfaces import (
    as_mask,
    line_name,
    one_hot_selects,
    recognise,
    split_name,
    stream_payload_roles,
)
from agent.program.sv_responders import split_requests, split_writes
from sim.analysis.rtl_facts import Condition

WBUART = layout("wbuart", ">i_clk >i_reset >i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[32] >i_wb_sel[4] "
                "<o_wb_stall <o_wb_ack <o_wb_data[32] >i_uart_rx <o_uart_tx >i_cts_n <o_rts_n <o_uart_rx_int",
                {"i_reset": False}, "i_clk")
AXILUART = layout("axiluart", ">S_AXI_ACLK >S_AXI_ARESETN >S_AXI_AWVALID <S_AXI_AWREADY >S_AXI_AWADDR[4] "
                  ">S_AXI_AWPROT[3] >S_AXI_WVALID <S_AXI_WREADY >S_AXI_WDATA[32] >S_AXI_WSTRB[4] <S_AXI_BVALID "
                  ">S_AXI_BREADY <S_AXI_BRESP[2] >S_AXI_ARVALID <S_AXI_ARREADY >S_AXI_ARADDR[4] >S_AXI_ARPROT[3] "
                  "<S_AXI_RVALID >S_AXI_RREADY <S_AXI_RDATA[32] <S_AXI_RRESP[2] >i_uart_rx <o_uart_tx",
                  {"S_AXI_ARESETN": True}, "S_AXI_ACLK")
PICORV32 = layout("picorv32", ">clk >resetn <trap <mem_valid <mem_instr >mem_ready <mem_addr[32] <mem_wdata[32] "
                  "<mem_wstrb[4] >mem_rdata[32] <pcpi_valid <pcpi_insn[32] >pcpi_wr >pcpi_rd[32] >pcpi_wait "
                  ">pcpi_ready >irq[32] <eoi[32] <trace_valid <trace_data[36]", {"resetn": True})
PICORV32_AXI = layout("picorv32_axi", ">clk >resetn <trap <mem_axi_awvalid >mem_axi_awready <mem_axi_awaddr[32] "
                      "<mem_axi_wvalid >mem_axi_wready <mem_axi_wdata[32] <mem_axi_wstrb[4] >mem_axi_bvalid "
                      "<mem_axi_bready <mem_axi_arvalid >mem_axi_arready <mem_axi_araddr[32] >mem_axi_rvalid "
                      "<mem_axi_rready >mem_axi_rdata[32] >irq[32]", {"resetn": True})
AXIS_SWITCH = layout("axis_switch", ">clk >rst >s_axis_tdata[32] >s_axis_tkeep[4] >s_axis_tvalid[4] "
                     "<s_axis_tready[4] >s_axis_tlast[4] >s_axis_tdest[12] <m_axis_tdata[32] <m_axis_tvalid[4] "
                     ">m_axis_tready[4] <m_axis_tlast[4]", {"rst": False})
UART16550 = layout("uart_top", ">wb_clk_i >wb_rst_i >wb_adr_i[5] >wb_dat_i[32] <wb_dat_o[32] >wb_we_i >wb_stb_i "
                   ">wb_cyc_i <wb_ack_o >wb_sel_i[4] <int_o <stx_pad_o >srx_pad_i <rts_pad_o >cts_pad_i "
                   "<dtr_pad_o >dsr_pad_i >ri_pad_i >dcd_pad_i", {"wb_rst_i": False}, "wb_clk_i")
UE_RISCV = layout("riscv_core", ">clk_i >rst_i >mem_d_data_rd_i[32] >mem_d_accept_i >mem_d_ack_i >mem_d_error_i "
                  ">mem_d_resp_tag_i[11] >mem_i_accept_i >mem_i_valid_i >mem_i_error_i >mem_i_inst_i[32] >intr_i "
                  ">reset_vector_i[32] >cpu_id_i[32] <mem_d_addr_o[32] <mem_d_data_wr_o[32] <mem_d_rd_o "
                  "<mem_d_wr_o[4] <mem_d_cacheable_o <mem_d_req_tag_o[11] <mem_d_invalidate_o <mem_d_writeback_o "
                  "<mem_d_flush_o <mem_i_rd_o <mem_i_flush_o <mem_i_invalidate_o <mem_i_pc_o[32]",
                  {"rst_i": False}, "clk_i")
OBI_CORE = layout("obi_core", ">clk_i >rst_ni <instr_req_o >instr_gnt_i >instr_rvalid_i <instr_addr_o[32] "
                  ">instr_rdata_i[32] >instr_err_i <data_req_o >data_gnt_i >data_rvalid_i <data_we_o <data_be_o[4] "
                  "<data_addr_o[32] <data_wdata_o[32] >data_rdata_i[32] >data_err_i", {"rst_ni": True}, "clk_i")
APB = layout("apb_regs", ">pclk >presetn >psel >penable >pwrite >paddr[8] >pwdata[32] <prdata[32] <pready",
             {"presetn": True}, "pclk")


def test_split_name_drops_direction_decorations() -> None:
    assert split_name("i_wb_cyc") == ("wb", "cyc")
    assert split_name("S_AXI_AWVALID") == ("s_axi", "awvalid")
    assert split_name("mem_axi_rdata") == ("mem_axi", "rdata")
    assert split_name("s_axis_tvalid") == ("s_axis", "tvalid")
    assert split_name("data_o") == ("", "data")


def test_wishbone_slave_and_its_uart_pin() -> None:
    ifs = recognise(WBUART, params={"INITIAL_SETUP": 25})
    (wb,) = ifs.buses
    assert (wb.name, wb.kind) == ("wb", "wishbone")
    assert wb.roles["stb"] == "i_wb_stb"
    assert wb.roles["rdata"] == "o_wb_data"
    assert wb.roles["stall"] == "o_wb_stall"
    assert wb.addresses == (0, 1, 2, 3)
    assert wb.data_bits == 32
    (rx,) = ifs.serials
    assert (rx.name, rx.port("pin"), rx.partner) == ("uart_rx", "i_uart_rx", "o_uart_tx")
    assert rx.periods[0] == 25
    assert ifs.scope(WBUART).has("loopback")


def _case(text: str, constants: tuple[int, ...], signals: tuple[str, ...] = ()) -> Condition:
    return Condition("uart_wb.v", 263, 3, "case", signals, constants, text)


def test_a_16550_gets_its_pad_lines_and_byte_registers_on_lanes() -> None:
    # freecores/uart16550 (32-bit bus): `srx_pad_i` is its serial input, and `case (wb_sel_is)`
    # on a registered copy of `wb_sel_i` picks the byte register: sel is part of the address.
    selects = one_hot_selects([_case("wb_sel_is", (1, 2, 4, 8, 15))],
                              {"wb_sel_is": ("wb_rst_i", "wb_sel_i")}, ["wb_rst_i"])
    assert selects == {"wb_sel_i"}
    ifs = recognise(UART16550, lane_selects=selects)
    (wb,) = ifs.buses
    assert (wb.byte_lanes, wb.addresses[:8]) == (4, tuple(range(8)))
    (rx,) = ifs.serials
    assert (rx.name, rx.port("pin"), rx.partner) == ("srx", "srx_pad_i", "stx_pad_o")
    assert line_name("srx_pad_i") == "srx"
    assert line_name("i_uart_rx") == "uart_rx"
    # wbuart32's sel is a byte enable: no case decodes it
    assert recognise(WBUART).buses[0].byte_lanes == 0


def test_only_a_one_hot_case_on_one_input_makes_lanes() -> None:
    assert one_hot_selects([_case("i_wb_sel", (1, 2, 4, 8), ("i_wb_sel",))], {}) == {"i_wb_sel"}
    # a state machine's case (values not one-hot), a subject built from two inputs
    assert one_hot_selects([_case("state", (0, 1, 2, 3, 4))], {"state": ("i_go",)}) == set()
    assert one_hot_selects([_case("mix", (1, 2, 4, 8))], {"mix": ("i_sel", "i_addr")}) == set()


def test_axi_lite_slave_with_byte_addresses() -> None:
    ifs = recognise(AXILUART)
    (bus,) = ifs.buses
    assert (bus.kind, bus.name) == ("axil", "s_axi")
    assert set(bus.addresses) == {0, 4, 8, 12}
    assert bus.roles["bresp"] == "S_AXI_BRESP"


def test_cpu_memory_is_answered_not_streamed() -> None:
    ifs = recognise(PICORV32, templates={"mem_rdata": (((0, 7, 0x13), (12, 3, 0)),)})
    kinds = {i.name: i.kind for i in ifs.all()}
    assert kinds["mem"] == "mem"
    mem = ifs.named("mem")
    assert mem.driven == ("mem_ready", "mem_rdata")
    assert mem.templates == (as_mask(((0, 7, 0x13), (12, 3, 0))),)
    assert kinds["pcpi"] == "sink"  # pcpi_valid out / pcpi_ready in, no address: a handshake to answer
    assert not ifs.buses
    assert not ifs.streams


def test_split_transaction_ports_are_answered_with_their_tags() -> None:
    # ultraembedded's riscv_core: `mem_d_data_rd_i` would split into `mem_d_data` + `rd`.
    ifs = recognise(UE_RISCV)
    by_name = {r.name: r for r in ifs.responders}
    data, fetch = by_name["mem_d"], by_name["mem_i"]
    assert (data.kind, fetch.kind) == ("split", "split")
    assert {r: data.port(r) for r in ("request", "accept", "resp", "rdata", "wdata", "wstrb", "tag", "rtag", "err")} == {
        "request": "mem_d_rd_o", "accept": "mem_d_accept_i", "resp": "mem_d_ack_i", "rdata": "mem_d_data_rd_i",
        "wdata": "mem_d_data_wr_o", "wstrb": "mem_d_wr_o", "tag": "mem_d_req_tag_o", "rtag": "mem_d_resp_tag_i",
        "err": "mem_d_error_i"}
    assert (fetch.port("addr"), fetch.port("resp"), fetch.port("rdata")) == ("mem_i_pc_o", "mem_i_valid_i", "mem_i_inst_i")
    assert set(data.driven) == {"mem_d_accept_i", "mem_d_ack_i", "mem_d_data_rd_i", "mem_d_resp_tag_i", "mem_d_error_i"}
    # A data port answers cache maintenance too; a fetch port answers reads only.
    assert split_requests(data) == ("request", "wstrb", "flush", "invalidate", "writeback")
    assert split_requests(fetch) == ("request",)
    assert (ifs.streams, ifs.sinks) == ((), ())


def test_obi_ports_write_on_we_not_on_byte_enables() -> None:
    # OBI (ibex, cv32e40p): req held until gnt, rvalid later; byte enables are set on reads too.
    ifs = recognise(OBI_CORE)
    by_name = {r.name: r for r in ifs.responders}
    data, instr = by_name["data"], by_name["instr"]
    assert (data.kind, instr.kind) == ("split", "split")
    assert (data.port("accept"), data.port("resp"), data.port("wstrb"), data.port("we")) == (
        "data_gnt_i", "data_rvalid_i", "data_be_o", "data_we_o")
    assert split_requests(data) == ("request",)
    assert (split_writes(data), split_writes(instr)) == ("we", "")


def test_axi_master_gets_a_responder() -> None:
    ifs = recognise(PICORV32_AXI)
    (resp,) = ifs.responders
    assert (resp.kind, resp.name) == ("axi_master", "mem_axi")
    assert set(resp.driven) >= {"mem_axi_awready", "mem_axi_rvalid", "mem_axi_rdata"}


def test_stream_vectors_are_lanes() -> None:
    ifs = recognise(AXIS_SWITCH)
    (src,) = ifs.streams
    (sink,) = ifs.sinks
    assert (src.name, src.lanes, src.roles["dest"]) == ("s_axis", 4, "s_axis_tdest")
    assert (sink.name, sink.driven) == ("m_axis", ("m_axis_tready",))


def test_command_ports_beside_a_handshake_travel_with_each_beat() -> None:
    i2c = layout("i2c_master", ">clk >rst >s_axis_cmd_address[7] >s_axis_cmd_start >s_axis_cmd_read "
                 ">s_axis_cmd_write >s_axis_cmd_write_multiple >s_axis_cmd_stop >s_axis_cmd_valid <s_axis_cmd_ready "
                 ">s_axis_data_tdata[8] >s_axis_data_tvalid <s_axis_data_tready >s_axis_data_tlast >prescale[16]",
                 {"rst": False})
    cmd, data = recognise(i2c).streams
    assert [cmd.roles[r] for r in stream_payload_roles(cmd)] == [
        "s_axis_cmd_address", "s_axis_cmd_read", "s_axis_cmd_start", "s_axis_cmd_stop", "s_axis_cmd_write",
        "s_axis_cmd_write_multiple"]
    assert stream_payload_roles(data) == ("data",)  # tdata and tlast only; prescale has no prefix


def test_apb_slave() -> None:
    (bus,) = recognise(APB).buses
    assert (bus.kind, bus.roles["enable"], bus.roles["ready"]) == ("apb", "penable", "pready")


def test_avalon_mm_agents_are_recognised_by_avalons_own_names() -> None:
    qsys = layout("avalon_regs", ">clk >reset >avs_s0_address[3] >avs_s0_read >avs_s0_write >avs_s0_writedata[32] "
                  ">avs_s0_byteenable[4] <avs_s0_readdata[32] <avs_s0_readdatavalid <avs_s0_waitrequest <irq",
                  {"reset": False}, "clk")
    (bus,) = recognise(qsys).buses
    assert (bus.kind, bus.name, bus.addresses) == ("avalon", "avs_s0_bus", tuple(range(8)))  # word addresses
    assert (bus.roles["wait"], bus.roles["rvalid"], bus.roles["strb"]) == (
        "avs_s0_waitrequest", "avs_s0_readdatavalid", "avs_s0_byteenable")
    bare = layout("timer", ">clk >reset_n >chipselect >address[2] >write >writedata[16] <readdata[16] <irq",
                  {"reset_n": True}, "clk")
    (bus,) = recognise(bare).buses
    assert (bus.kind, bus.name, bus.roles["cs"], bus.data_bits) == ("avalon", "bus", "chipselect", 16)
    # A read/write pair without Avalon's data names is no Avalon agent (a RAM's ports, say).
    ram = layout("ram", ">clk >read >write >address[4] >din[8] <dout[8]", {}, "clk")
    assert not [b for b in recognise(ram).buses if b.kind == "avalon"]


def test_apb_requesters_and_avalon_hosts_are_answered() -> None:
    bridge = layout("bridge", ">clk >rstn <psel <penable <pwrite <paddr[16] <pwdata[32] >prdata[32] >pready >pslverr",
                    {"rstn": True}, "clk")
    (apb,) = recognise(bridge).responders
    assert (apb.kind, apb.roles["ready"], apb.roles["slverr"], apb.addr_bits) == ("apb_master", "pready", "pslverr", 16)
    dma = layout("dma", ">clk >reset <avm_m0_address[32] <avm_m0_read <avm_m0_write <avm_m0_writedata[32] "
                 "<avm_m0_byteenable[4] >avm_m0_readdata[32] >avm_m0_waitrequest >avm_m0_readdatavalid", {"reset": False},
                 "clk")
    (host,) = recognise(dma).responders
    assert (host.kind, host.name, host.roles["wait"], host.roles["rvalid"]) == (
        "avalon_host", "avm_m0", "avm_m0_waitrequest", "avm_m0_readdatavalid")
    assert not recognise(dma).buses


def test_an_interconnect_that_forwards_requests_gets_no_rules_for_them() -> None:
    from agent.program.sv_monitors import rules
    from agent.program.target import Target

    # wb2axip's wbarbiter passes a request of i_a_/i_b_ (which random inputs drive) on to o_:
    # a payload that moves while stalled is then the testbench's doing, not the design's.
    ports = (">i_clk >i_reset >i_a_cyc >i_a_stb >i_a_we >i_a_adr[32] >i_a_dat[32] >i_a_sel[4] <o_a_ack <o_a_stall "
             "<o_a_err <o_cyc <o_stb <o_we <o_adr[32] <o_dat[32] <o_sel[4] >i_ack >i_stall >i_err >i_data[32]")
    arbiter = layout("wbarbiter", ports, {"i_reset": False}, "i_clk")
    t = Target(arbiter, recognise(arbiter))
    (master,) = t.interfaces.responders
    assert master.kind == "wb_master"
    assert rules(t, master) == []
    # A master that makes its own requests keeps its rules.
    summer = layout("wb_sum", ">i_clk >i_reset >i_start <o_wb_cyc <o_wb_stb <o_wb_we <o_wb_addr[8] <o_wb_data[32] "
                    "<o_wb_sel[4] >i_wb_stall >i_wb_ack >i_wb_data[32]", {"i_reset": False}, "i_clk")
    t = Target(summer, recognise(summer))
    assert [r.name for r in rules(t, t.interfaces.responders[0])] == [
        "o_wb_stb withdrawn while i_wb_stall", "o_wb_addr/o_wb_we/o_wb_data/o_wb_sel changed while o_wb_stb && i_wb_stall"]


def test_as_mask_lays_fields_over_each_other() -> None:
    assert as_mask(((0, 7, 0x33), (12, 3, 5), (25, 7, 0x20))) == (0xFE00707F, 0x40005033)


UART_CMD = layout("uart_cmd", ">clk >rst_n >rx <tx <wr_o <wr_addr_o[3] <wr_data_o[8] <err_o <cmds_o[8]", {"rst_n": True})


def cond(text: str, *constants: int, kind: str = "if") -> Condition:
    return Condition("/rtl/uart_cmd.sv", 1, 1, kind, (), constants, text)


# The elaborated conditions of tests/data/program/uart_cmd (CLK_FREQ / UART_SPEED = 128 clocks a bit).
UART_CMD_CONDITIONS = (
    cond("rx_state == 2'd1", 1, kind="case_item"), cond("rx_tick == 16'd63", 63), cond("rx_tick == 16'd127", 127),
    cond("rx_bit == 3'd7", 7), cond("rx_tick == 16'd127", 127), cond("tx_tick == 16'd127", 127),
    cond("tx_bit == 4'd9", 9), cond("p_state == 2'd0", 0, kind="case_item"),
    cond("rx_byte == 8'd87", 87, kind="case_item"), cond("rx_byte == 8'd82", 82, kind="case_item"),
    cond("rx_byte == 8'd83", 83, kind="case_item"), cond("rx_byte > 8'd7", 7), cond("rx_byte > 8'd7", 7),
)


def test_a_bit_period_set_by_parameters_comes_from_the_counter_compares() -> None:
    """`CLK_FREQ / UART_SPEED` names no period, and the mined constants are full of command bytes: the
    limit the bit counters are compared with (127, three times; the half bit 63 once) gives 128 first."""
    from agent.program.serial_timing import counter_limits

    assert counter_limits(UART_CMD_CONDITIONS) == (127, 63)
    found = recognise(UART_CMD, params={"CLK_FREQ": 12_800_000, "UART_SPEED": 100_000, "TICKS": 128},
                      constants={"*": (0, 1, 2, 3, 7, 8, 9, 63, 82, 83, 87, 127, 128)},
                      counters=counter_limits(UART_CMD_CONDITIONS))
    assert found.serials[0].periods[:2] == (128, 64)
    # ultraembedded's dbg_bridge hands `(CLK_FREQ / UART_SPEED) - 1` to its UART through a port, whose
    # counter counts down to 0: no compare shows the period, the parameters do.
    bridge = recognise(UART_CMD, params={"CLK_FREQ": 14_745_600, "UART_SPEED": 115_200, "AXI_ID": 0})
    assert bridge.serials[0].periods[0] == 128
    # A parameter named like a period still wins (the counters are not consulted then).
    named = recognise(UART_CMD, params={"CLKS_PER_BIT": 16}, counters=(127,))
    assert named.serials[0].periods[0] == 16


def test_a_parser_gets_the_bytes_it_compares_with() -> None:
    from agent.program.serial_timing import command_bytes

    # Command bytes, then the address limit and the first value past it; counters and states are left out.
    assert command_bytes(UART_CMD_CONDITIONS) == (87, 82, 83, 7, 8)
    # One case item for two commands (dbg_bridge's REQ_WRITE / REQ_READ): both are commands.
    assert command_bytes([cond("rx_data_w == 8'd16 | 8'd17", 16, 17, kind="case_item")]) == (16, 17)
    assert recognise(UART_CMD, commands=(87, 82)).serials[0].words == (87, 82)
    # dbg_bridge decides on addresses it assembles from received bytes: those values go with the commands.
    from agent.program.serial_timing import wide_operands

    bridge = [cond("(state_q == 4'd8) & (mem_addr_q == 32'hf0000000)", 8, 0xF0000000),
              cond("(state_q == 4'd8) & (mem_addr_q == 32'hf0000004)", 8, 0xF0000004),
              cond("rx_tick == 16'h007f", 0x7F), cond("state_q == 16'h0100", 0x100)]
    assert wide_operands(bridge) == (0xF0000000, 0xF0000004)  # counters and states left out
    found = recognise(UART_CMD, commands=(16, 17), wide=(0xF0000000,)).serials[0]
    assert (found.words, found.addresses) == ((16, 17), (0xF0000000,))
    assert recognise(UART_CMD, wide=(0xF0000000,)).serials[0].addresses == ()  # no parser, no addresses
    # A UART behind a bus is configured and fed through the bus: its bytes are data, not commands.
    assert recognise(WBUART, commands=(87, 82)).serials[0].words == ()


def test_ahb_lite_is_recognised_on_either_side_whatever_the_prefix_or_case() -> None:
    cpu = layout("cpu", ">HCLK >HRESETn <HADDR[32] <HTRANS[2] <HWRITE <HSIZE[3] <HBURST[3] <HPROT[4] "
                 "<HWDATA[32] >HREADY >HRESP >HRDATA[32] <trap", {"HRESETn": False}, "HCLK")
    (r,) = recognise(cpu).responders
    assert (r.name, r.kind, r.data_bits, r.addr_bits) == ("ahb", "ahb_master", 32, 32)
    assert r.driven == ("HREADY", "HRESP", "HRDATA")
    assert (r.port("addr"), r.port("wdata"), r.port("rdata")) == ("HADDR", "HWDATA", "HRDATA")
    dual = layout("soc", ">clk >rst_n <i_ahb_htrans_o[2] <i_ahb_haddr_o[32] >i_ahb_hready_i >i_ahb_hrdata_i[32] "
                  "<d_ahb_htrans_o[2] <d_ahb_haddr_o[32] <d_ahb_hwrite_o <d_ahb_hwdata_o[32] >d_ahb_hready_i "
                  ">d_ahb_hrdata_i[32]", {"rst_n": True})
    assert sorted((r.name, r.kind) for r in recognise(dual).responders) == [("d_ahb", "ahb_master"),
                                                                              ("i_ahb", "ahb_master")]
    # A peripheral: htrans/haddr in; a simple one says ready on an output called hready.
    per = layout("per", ">clk >rst_n >s_hsel >s_haddr[12] >s_htrans[2] >s_hwrite >s_hwdata[32] <s_hready "
                 "<s_hrdata[32]", {"rst_n": True})
    (b,) = recognise(per).buses
    assert (b.name, b.kind, b.port("hreadyout"), b.addresses[:3]) == ("s", "ahb", "s_hready", (0, 4, 8))
    small = layout("regs", ">clk >rst_n >hsel >haddr[8] >htrans[2] >hwrite >hwdata[32] >hready <hreadyout "
                   "<hrdata[32]", {"rst_n": True})
    assert len(recognise(small).buses[0].addresses) == 64  # every word of a 256-byte space
    # One-bit htrans is no AHB (a valid/ready port called `trans` is something else).
    odd = layout("odd", ">clk >rst_n <htrans <haddr[8] >hready >hrdata[8]", {"rst_n": True})
    assert not [i for i in recognise(odd).all() if i.kind.startswith("ahb")]


def test_the_interface_report_names_sides_and_handshakes_no_protocol_claimed() -> None:
    from agent.program.iface_report import (
        interface_rows,
        markdown,
        unrecognised_handshakes,
    )

    lay = layout("mix", ">clk >rst_n >i_wb_cyc >i_wb_stb >i_wb_we >i_wb_adr[4] >i_wb_dat[32] <o_wb_ack "
                 "<o_wb_dat[32] <cal_req >cal_ack >start <done <dma_vld >dma_rdy[2]", {"rst_n": True})
    ifs = recognise(lay)
    rows = interface_rows(ifs)
    kinds = {r["name"]: (r["protocol"], r["side"]) for r in rows}
    assert kinds["wb"] == ("Wishbone", "design serves it (the testbench drives transfers)")
    # cal_req/cal_ack is answered by the generic request/acknowledge responder (claimed);
    # start in, done out is a handshake the design answers that no protocol claims; dma_rdy is
    # two bits wide (no handshake).
    assert kinds["cal"][0] == "request/acknowledge (no address)"
    assert unrecognised_handshakes(lay, ifs) == [{"prefix": "", "request": "start", "answer": "done", "side": "answers"}]
    lay2 = layout("odd", ">clk >rst_n <x_req >x_gnt[2] >y_start <y_ack", {"rst_n": True})
    loose2 = unrecognised_handshakes(lay2, recognise(lay2))
    assert loose2 == [{"prefix": "y", "request": "y_start", "answer": "y_ack", "side": "answers"}]
    text = "\n".join(markdown(interface_rows(recognise(lay2)), loose2))
    assert "the design answers on `y_start` / `y_ack`" in text


def test_i2c_controller_lines_are_recognised_in_every_open_drain_style() -> None:
    from agent.program.sv_i2c import released

    xilinx = layout("x", ">clk >rst >scl_i <scl_o <scl_t >sda_i <sda_o <sda_t", {"rst": False})
    (r,) = recognise(xilinx).responders
    assert (r.kind, r.driven) == ("i2c", ("scl_i", "sda_i"))
    assert released(r, "scl") == "(scl_t || scl_o)"
    opencores = layout("oc", ">wb_clk_i >wb_rst_i >scl_pad_i <scl_pad_o <scl_padoen_o >sda_pad_i <sda_pad_o "
                       "<sda_padoen_o", {"wb_rst_i": False}, "wb_clk_i")
    (r,) = recognise(opencores).responders
    assert released(r, "sda") == "(sda_padoen_o || sda_pad_o)"
    oe = layout("oe", ">clk >rst_n >i2c_scl_i <i2c_scl_oe >i2c_sda_i <i2c_sda_oe", {"rst_n": True})
    (r,) = recognise(oe).responders
    assert released(r, "scl") == "!i2c_scl_oe"
    bare = layout("b", ">clk >rst_n >scl_in <scl_out >sda_in <sda_out", {"rst_n": True})
    (r,) = recognise(bare).responders
    assert released(r, "sda") == "sda_out"
    # An SPI controller's sclk/sdi/sdo is no I2C bus; nor is a design with SCL but no SDA.
    spi = layout("s", ">clk >rst_n <sclk <sdo >sdi <cs_n", {"rst_n": True})
    assert not [i for i in recognise(spi).all() if i.kind == "i2c"]
    half = layout("h", ">clk >rst_n >scl_i <scl_o <sda_o", {"rst_n": True})
    assert not [i for i in recognise(half).all() if i.kind == "i2c"]


def test_an_i2c_target_is_recognised_with_its_own_addresses() -> None:
    from agent.program.i2c import addresses_host, target_addresses
    from agent.program.sv_i2c import released

    # A target drives SDA only; the other controller addresses it at any latency.
    target = layout("t", ">clk >rst_n >scl_i >sda_i <sda_oe <reg0[8]", {"rst_n": True})
    (r,) = recognise(target, i2c_addresses=(0x2A,)).responders
    assert (r.kind, r.addresses, released(r, "scl"), released(r, "sda")) == ("i2c", (0x2A,), "1'b1", "!sda_oe")
    assert addresses_host(r)
    # A controller is addressed only where its own addresses are known (a slave mode).
    xilinx = layout("x", ">clk >rst >scl_i <scl_o <scl_t >sda_i <sda_o <sda_t", {"rst": False})
    assert not addresses_host(recognise(xilinx).responders[0])
    assert addresses_host(recognise(xilinx, i2c_addresses=(0x7E,)).responders[0])
    # Addresses: parameters named like one (a slave-address register's reset value) and the
    # 7-bit literals the design compares with; never counters, widths or 8-bit values.
    conditions = (Condition("/a.v", 3, 1, "if", (), (0x50,), "sr[7:1] == 7'h50"),
                  Condition("/a.v", 4, 1, "if", (), (0x3F,), "cnt == 8'h3f"),
                  Condition("/a.v", 5, 1, "if", (), (0x50,), "adr_q != 7'd80"))
    params = {"DEFAULT_SLAVE_ADDR": 0x7E, "WIDTH": 8, "I2C_ADR": 0x200, "DEV_ID": 0x1D}
    assert target_addresses(params, conditions) == (0x7E, 0x1D, 0x50)


def test_check_records_are_read_back_exactly_and_refused_when_incomplete() -> None:
    from agent.program import sv_checks as chk

    log = "noise\nBW-SIG 0 0000abcd 00000000\nBW-SIG 1 ffffffff 12345678\n- tb.sv:9: Verilog $finish\n"
    assert chk.parse_signatures(log, 2, 2) == ((0xABCD, 0), (0xFFFFFFFF, 0x12345678))
    assert chk.parse_signatures(log, 3, 2) is None  # a phase is missing
    assert chk.parse_signatures(log, 2, 3) is None  # a line has the wrong number of outputs
    # A design's own `$write` without a newline (biriscv prints through a CSR) can precede a
    # record on its line: it still reads back (the riscv_core testbench had lost its checks).
    printed = "noise\nBBBW-SIG 0 0000abcd 00000000\nBW-SIG 1 ffffffff 12345678\nBW-READS 0000002a x\n"
    assert chk.parse_signatures(printed, 2, 2) == ((0xABCD, 0), (0xFFFFFFFF, 0x12345678))
    assert chk.parse_reads("B" + printed.splitlines()[-1]) == (0x2A, None)
    run = "BW-MISMATCH phase 2: output o differs from the recorded run (signature 1, was 2) at 40\nBW-CHECKS 6 checks, 1 mismatches\n"
    assert chk.summary(run) == (6, 1)
    assert chk.summary("nothing") is None
    assert chk.mismatches(run) == ["phase 2: output o differs from the recorded run (signature 1, was 2) at 40"]
    assert chk.phase_count(0) == 1
    assert chk.phase_count(100) == chk.MAX_PHASES
    # Rows carry the values at each phase's end after the signatures; a testbench recorded
    # before they were (signatures only) still reads back, and is checked as it was.
    assert chk.parse_signatures("BW-SIG 0 00000001 00000002 00000003 00000004\n", 1, 2) == ((1, 2, 3, 4),)
    assert chk.Checks(("a", "b"), expected=((1, 2, 3, 4),)).with_values
    assert not chk.Checks(("a", "b"), expected=((1, 2),)).with_values
    names = 'string bw_out_names [2] = \'{"a", "b"};'
    def table(rows: str) -> str:
        return f"{names}\nlocalparam int unsigned BW_EXPECT [2][4] = \'{{{rows}}};\n"
    new = chk.read_checks(table("'{32'h1, 32'h2, 32'h3, 32'h4}, '{32'h5, 32'h6, 32'h7, 32'h8}"))
    assert new is not None
    assert new.expected == ((1, 2, 3, 4), (5, 6, 7, 8))
    old = chk.read_checks(table("'{32'h1, 32'h2}, '{32'h5, 32'h6}"))
    assert old is not None
    assert old.expected == ((1, 2), (5, 6))
    assert chk.read_checks(table("'{32'h1, 32'h2}, '{32'h5, 32'h6, 32'h7, 32'h8}")) is None  # rows of two kinds


def test_a_riscv_core_whose_decoder_is_hidden_gets_the_isa_encodings() -> None:
    from agent.program.isa import MAJOR_OPCODES, RV32, is_riscv, with_isa

    cpu = layout("cpu", ">clk >rst_n <HADDR[32] <HTRANS[2] <HWRITE <HWDATA[32] >HREADY >HRDATA[32]", {"rst_n": True})
    riscv = {"*": (*MAJOR_OPCODES, 5, 7)}
    (r,) = recognise(cpu, constants=riscv).responders
    assert r.templates == RV32  # no compare traced to HRDATA: the ISA's encodings
    assert (0xFE00707F, 0x02000033) in r.templates  # MUL
    assert recognise(cpu, constants={"*": (0x13, 0x33)}).responders[0].templates == ()  # not a RISC-V core
    mined = recognise(cpu, constants=riscv, templates={"HRDATA": tuple(((0, 7, v),) for v in range(10))})
    assert len(mined.responders[0].templates) == 10  # enough mined templates: they are kept
    assert is_riscv(MAJOR_OPCODES[:8])
    assert not is_riscv(MAJOR_OPCODES[:7])
    # A 64-bit fetch carries two instructions: each 32-bit half draws its own template.
    assert with_isa([], 64, MAJOR_OPCODES) == (RV32, 2)
    assert with_isa([], 32, MAJOR_OPCODES) == (RV32, 1)
    fetch = layout("cpu", ">clk >rst_n <HADDR[32] <HTRANS[2] <HWRITE <HWDATA[64] >HREADY >HRDATA[64]", {"rst_n": True})
    (wide,) = recognise(fetch, constants=riscv).responders
    assert (wide.templates, wide.template_lanes) == (RV32, 2)
    assert (r.templates, r.template_lanes) == (RV32, 1)


def test_a_riscv_cores_memory_starts_with_a_prologue_that_loads_every_register() -> None:
    from agent.program.isa import MAJOR_OPCODES, PROLOGUE, PROLOGUE_CSRS, prologue

    cpu = layout("cpu", ">clk >rst_n <HADDR[32] <HTRANS[2] <HWRITE <HWDATA[32] >HREADY >HRDATA[32]", {"rst_n": True})
    (r,) = recognise(cpu, constants={"*": (*MAJOR_OPCODES, *PROLOGUE_CSRS, 5, 7)}).responders
    assert r.prologue == PROLOGUE
    # A core that decodes no CSR (picorv32) would trap on a CSR write: registers only.
    (bare,) = recognise(cpu, constants={"*": (*MAJOR_OPCODES, 5, 7)}).responders
    assert len(bare.prologue) == 4 * 31
    assert all(w & 0x7F != 0x73 for w in bare.prologue)
    assert recognise(cpu, constants={"*": (0x13, 0x33)}).responders[0].prologue == ()  # not a RISC-V core
    opcode, rd = [w & 0x7F for w in PROLOGUE], [(w >> 7) & 0x1F for w in PROLOGUE]
    lui = [k for k, op in enumerate(opcode) if op == 0x37]
    assert sorted(rd[k] for k in lui) == sorted(list(range(1, 32)) * 2)  # every register loaded twice
    assert len({PROLOGUE[k] >> 12 for k in lui}) > 50  # ... with different values
    csrs = [w >> 20 for w, op in zip(PROLOGUE, opcode, strict=True) if op == 0x73]
    assert csrs == list(PROLOGUE_CSRS) * 2
    assert all((w >> 12) & 7 == 1 and rd == 0 for w, op, rd in zip(PROLOGUE, opcode, rd, strict=True) if op == 0x73)
    wide = prologue(64)  # two instructions per fetch word, the first in the low half
    assert len(wide) == (len(PROLOGUE) + 1) // 2
    assert (wide[0] & 0xFFFFFFFF, wide[0] >> 32) == (PROLOGUE[0], PROLOGUE[1])


def test_the_prologue_swaps_back_the_status_csrs_and_reads_the_read_only_ones_a_core_decodes() -> None:
    from agent.program.isa import MAJOR_OPCODES, PROLOGUE, PROLOGUE_CSRS, prologue

    literals = (*MAJOR_OPCODES, *PROLOGUE_CSRS, 0x300, 0x344, 0xF14, 0xC01)  # mstatus, mip, mhartid, time
    words = prologue(32, literals)
    assert words[: len(PROLOGUE)] == PROLOGUE
    probes = words[len(PROLOGUE):]
    decoded = [(w >> 20, (w >> 15) & 31, (w >> 12) & 7, (w >> 7) & 31) for w in probes]  # csr, rs1, funct3, rd
    assert all(w & 0x7F == 0x73 for w in probes)
    # mstatus and mip: a register's value swapped in (the old one kept in x31), then restored.
    assert decoded[:4] == [(0x300, 1, 1, 31), (0x300, 31, 1, 0), (0x344, 2, 1, 31), (0x344, 31, 1, 0)]
    # Every probed CSR among the literals read without a write (csrrs rd, csr, x0), none other.
    assert [(c, rs1, f3) for c, rs1, f3, _ in decoded[4:]] == [(0x300, 0, 2), (0x344, 0, 2), (0xF14, 0, 2), (0xC01, 0, 2)]
    assert all(rd != 0 for *_, rd in decoded[4:])
    # A core without the CSR file (picorv32, whose literals hold 0x100 and 0x300 for other
    # reasons) would trap on the first probe: none.
    assert prologue(32, (*MAJOR_OPCODES, 0x300, 0x100, 0xC00)) == prologue(32, MAJOR_OPCODES)


def test_a_wishbone_slave_with_a_strobe_per_address_space_is_one_bus_per_strobe() -> None:
    # ZipCPU's wbqspiflash: the flash's memory on i_wb_data_stb, its registers on i_wb_ctrl_stb,
    # one cycle, address, data and acknowledge for both.
    flash = layout("wbqspiflash", ">i_clk >i_wb_cyc >i_wb_data_stb >i_wb_ctrl_stb >i_wb_we >i_wb_addr[20] "
                   ">i_wb_data[32] <o_wb_stall <o_wb_ack <o_wb_data[32] <o_qspi_sck <o_qspi_cs_n <o_qspi_mod[2] "
                   "<o_qspi_dat[4] >i_qspi_dat[4] <o_interrupt", {}, "i_clk")
    buses = {b.name: b for b in recognise(flash).buses}
    assert set(buses) == {"wb_data", "wb_ctrl"}
    assert buses["wb_data"].port("stb") == "i_wb_data_stb"
    assert buses["wb_ctrl"].port("stb") == "i_wb_ctrl_stb"
    for b in buses.values():
        assert (b.port("cyc"), b.port("addr"), b.port("ack"), b.port("stall")) == \
            ("i_wb_cyc", "i_wb_addr", "o_wb_ack", "o_wb_stall")
    # A plain slave with one strobe stays one bus.
    assert [b.name for b in recognise(WBUART).buses] == ["wb"]


def test_spi_controller_lines_get_a_flash_or_an_sd_card_by_the_design_names() -> None:
    nandland = layout("SPI_Master_With_Single_CS", ">i_Rst_L >i_Clk >i_TX_Count[2] >i_TX_Byte[8] >i_TX_DV "
                      "<o_TX_Ready <o_RX_Count[2] <o_RX_DV <o_RX_Byte[8] <o_SPI_Clk >i_SPI_MISO <o_SPI_MOSI "
                      "<o_SPI_CS_n", {"i_Rst_L": True}, "i_Clk")
    (flash,) = [r for r in recognise(nandland).responders if r.name == "spi"]
    assert flash.kind == "spi_flash"
    assert dict(flash.roles) == {"sck": "o_SPI_Clk", "miso": "i_SPI_MISO", "mosi": "o_SPI_MOSI", "cs": "o_SPI_CS_n"}
    assert flash.driven == ("i_SPI_MISO",)
    # ZipCPU's sdspi names its lines plainly; the module's name makes the device a card.
    sdspi = layout("sdspi", ">i_clk >i_reset >i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[2] >i_wb_data[32] <o_wb_stall "
                   "<o_wb_ack <o_wb_data[32] <o_cs_n <o_sck <o_mosi >i_miso <o_int", {"i_reset": False}, "i_clk")
    (card,) = [r for r in recognise(sdspi).responders if r.name == "spi"]
    assert (card.kind, card.port("cs"), card.port("sck")) == ("sd", "o_cs_n", "o_sck")
    # A quad controller's data buses are not answered (no quad device), nor are plain data lines.
    quad = layout("wbqspiflash", ">i_clk >i_wb_cyc >i_wb_stb >i_wb_we >i_wb_addr[20] >i_wb_data[32] <o_wb_ack "
                  "<o_wb_data[32] <o_qspi_sck <o_qspi_cs_n <o_qspi_mod[2] <o_qspi_dat[4] >i_qspi_dat[4]", {}, "i_clk")
    assert not [r for r in recognise(quad).responders if r.kind in ("spi_flash", "sd")]
    plain = layout("shifter", ">clk >rst >din <dout <clk_out", {"rst": False}, "clk")
    assert not recognise(plain).responders
