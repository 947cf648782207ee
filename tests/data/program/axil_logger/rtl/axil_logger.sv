// SPDX-License-Identifier: Apache-2.0
// A test design for Benchwright: a logger that writes each sample arriving on `sample_valid`
// to the next word of a buffer over one AXI4-Lite master port, and reads the buffer's first
// word back on `readback`. Its bug, the kind core_dbg_bridge has: the write data is taken
// from the latest sample, so a sample that arrives while WVALID waits for WREADY changes WDATA
// (AXI4 A3.2.1: the payload must hold until the handshake). With short waits no second sample
// arrives in time (samples come at most every 64 clocks); only a slave that stalls for longer
// shows it.
module axil_logger (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        sample_valid,
    input  logic [7:0]  sample,
    input  logic        readback,
    output logic [7:0]  last_read,
    output logic [7:0]  written,
    output logic [7:0]  m_axi_awaddr,
    output logic        m_axi_awvalid,
    input  logic        m_axi_awready,
    output logic [31:0] m_axi_wdata,
    output logic [3:0]  m_axi_wstrb,
    output logic        m_axi_wvalid,
    input  logic        m_axi_wready,
    input  logic [1:0]  m_axi_bresp,
    input  logic        m_axi_bvalid,
    output logic        m_axi_bready,
    output logic [7:0]  m_axi_araddr,
    output logic        m_axi_arvalid,
    input  logic        m_axi_arready,
    input  logic [31:0] m_axi_rdata,
    input  logic [1:0]  m_axi_rresp,
    input  logic        m_axi_rvalid,
    output logic        m_axi_rready
);
  logic [7:0] data_q;       // the latest sample: WDATA follows it (the bug)
  logic [5:0] gap;          // samples are taken at most every 64 clocks
  logic       pending;
  assign m_axi_wdata = {24'h0, data_q};
  assign m_axi_wstrb = 4'h1;
  assign m_axi_bready = 1'b1;
  assign m_axi_rready = 1'b1;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      data_q <= 0; gap <= 0; pending <= 0; written <= 0; last_read <= 0;
      m_axi_awaddr <= 0; m_axi_awvalid <= 0; m_axi_wvalid <= 0; m_axi_araddr <= 0; m_axi_arvalid <= 0;
    end else begin
      if (gap != 0) gap <= gap + 1;
      if (sample_valid && gap == 0) begin data_q <= sample; pending <= 1; gap <= 1; end
      if (pending && !m_axi_awvalid && !m_axi_wvalid) begin
        m_axi_awvalid <= 1; m_axi_wvalid <= 1; pending <= 0;
      end
      if (m_axi_awvalid && m_axi_awready) m_axi_awvalid <= 0;
      if (m_axi_wvalid && m_axi_wready) m_axi_wvalid <= 0;
      if (m_axi_bvalid) begin written <= written + 1; m_axi_awaddr <= m_axi_awaddr + 4; end
      if (readback && !m_axi_arvalid) begin m_axi_araddr <= 0; m_axi_arvalid <= 1; end
      if (m_axi_arvalid && m_axi_arready) m_axi_arvalid <= 0;
      if (m_axi_rvalid) last_read <= m_axi_rdata[7:0];
    end
  end
endmodule
