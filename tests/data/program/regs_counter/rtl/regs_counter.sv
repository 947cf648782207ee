// SPDX-License-Identifier: Apache-2.0
// Copyright Benchwright contributors.
//
// Test design for the cocotb renderer: a counter with an enable and a mode, beside a tiny
// register file behind an AXI4-Lite slave (CTRL 0x0, LIMIT 0x4, SCRATCH 0x8, STATUS 0xC).
// The counter adds 1, 2, CTRL[7:0] or `din` per enabled cycle and wraps at LIMIT (flag).
module regs_counter (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        en,
    input  logic [1:0]  mode,
    input  logic [7:0]  din,
    output logic [7:0]  count,
    output logic        flag,
    // AXI4-Lite slave
    input  logic [3:0]  s_axil_awaddr,
    input  logic [2:0]  s_axil_awprot,
    input  logic        s_axil_awvalid,
    output logic        s_axil_awready,
    input  logic [31:0] s_axil_wdata,
    input  logic [3:0]  s_axil_wstrb,
    input  logic        s_axil_wvalid,
    output logic        s_axil_wready,
    output logic [1:0]  s_axil_bresp,
    output logic        s_axil_bvalid,
    input  logic        s_axil_bready,
    input  logic [3:0]  s_axil_araddr,
    input  logic [2:0]  s_axil_arprot,
    input  logic        s_axil_arvalid,
    output logic        s_axil_arready,
    output logic [31:0] s_axil_rdata,
    output logic [1:0]  s_axil_rresp,
    output logic        s_axil_rvalid,
    input  logic        s_axil_rready
);
  logic [31:0] ctrl, limit, scratch;
  logic [3:0]  wr_addr;
  logic        aw_seen, w_seen;
  logic [31:0] wr_data;
  logic [3:0]  wr_strb;

  function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] data, input logic [3:0] strb);
    for (int lane = 0; lane < 4; lane++) if (strb[lane]) old[8*lane +: 8] = data[8*lane +: 8];
    return old;
  endfunction

  // Write channel: address and data may come in either order; one response per write.
  assign s_axil_awready = !aw_seen && !s_axil_bvalid;
  assign s_axil_wready  = !w_seen && !s_axil_bvalid;
  assign s_axil_bresp   = (wr_addr == 4'hC) ? 2'b10 : 2'b00;  // STATUS is read-only
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      aw_seen <= 1'b0; w_seen <= 1'b0; s_axil_bvalid <= 1'b0;
      wr_addr <= '0; wr_data <= '0; wr_strb <= '0;
      ctrl <= '0; limit <= 32'hff; scratch <= '0;
    end else begin
      if (s_axil_awvalid && s_axil_awready) begin aw_seen <= 1'b1; wr_addr <= s_axil_awaddr; end
      if (s_axil_wvalid && s_axil_wready) begin w_seen <= 1'b1; wr_data <= s_axil_wdata; wr_strb <= s_axil_wstrb; end
      if (aw_seen && w_seen && !s_axil_bvalid) begin
        s_axil_bvalid <= 1'b1;
        case (wr_addr[3:2])
          2'd0: ctrl <= merge(ctrl, wr_data, wr_strb);
          2'd1: limit <= merge(limit, wr_data, wr_strb);
          2'd2: scratch <= merge(scratch, wr_data, wr_strb);
          default: ;
        endcase
      end
      if (s_axil_bvalid && s_axil_bready) begin s_axil_bvalid <= 1'b0; aw_seen <= 1'b0; w_seen <= 1'b0; end
    end
  end

  // Read channel: one read at a time.
  assign s_axil_arready = !s_axil_rvalid;
  assign s_axil_rresp   = 2'b00;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      s_axil_rvalid <= 1'b0; s_axil_rdata <= '0;
    end else if (s_axil_arvalid && s_axil_arready) begin
      s_axil_rvalid <= 1'b1;
      case (s_axil_araddr[3:2])
        2'd0: s_axil_rdata <= ctrl;
        2'd1: s_axil_rdata <= limit;
        2'd2: s_axil_rdata <= scratch;
        default: s_axil_rdata <= {23'd0, flag, count};
      endcase
    end else if (s_axil_rvalid && s_axil_rready) begin
      s_axil_rvalid <= 1'b0;
    end
  end

  // The counter.
  logic [7:0] incr;
  always_comb begin
    case (mode)
      2'd0: incr = 8'd1;
      2'd1: incr = 8'd2;
      2'd2: incr = ctrl[7:0];
      default: incr = din;
    endcase
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      count <= '0; flag <= 1'b0;
    end else if (en) begin
      if ({24'd0, count} + {24'd0, incr} >= limit) begin
        count <= '0; flag <= 1'b1;
      end else begin
        count <= count + incr; flag <= 1'b0;
      end
    end
  end

  logic unused;
  assign unused = ^{s_axil_awprot, s_axil_arprot, scratch[31:8], ctrl[31:8]};
endmodule
