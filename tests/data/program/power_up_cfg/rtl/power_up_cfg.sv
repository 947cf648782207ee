// SPDX-License-Identifier: Apache-2.0
// A test design for Benchwright: registers behind a Wishbone slave, as FPGA-minded RTL writes
// them. `cfg` (a tick period, as a UART's baud setting) has a power-up value from an `initial`
// statement and no reset: a reset leaves it as last written. `ctrl` resets; `flag` is a
// one-bit register with a power-up value and no reset; `go` shares its address with `cmd`.
// `o_ticks` counts ticks of `cfg` cycles each, `o_match` rises when `cfg` holds its power-up value.
module power_up_cfg (
    input  logic        i_clk,
    input  logic        i_reset,
    input  logic        i_wb_cyc,
    input  logic        i_wb_stb,
    input  logic        i_wb_we,
    input  logic [1:0]  i_wb_addr,
    input  logic [15:0] i_wb_data,
    output logic        o_wb_ack,
    output logic [15:0] o_wb_data,
    output logic [7:0]  o_ticks,
    output logic        o_match
);
  logic [15:0] cfg;
  logic [7:0]  ctrl;
  logic        flag;
  logic [7:0]  cmd;
  logic        go;
  logic [15:0] count;
  initial cfg = 16'h0019;
  initial flag = 1'b1;
  initial cmd = 8'h00;
  initial go = 1'b0;

  always_ff @(posedge i_clk)
    if (i_wb_stb && i_wb_we && i_wb_addr == 2'd0) cfg <= i_wb_data;

  always_ff @(posedge i_clk)
    if (i_reset) ctrl <= 8'h0;
    else if (i_wb_stb && i_wb_we && i_wb_addr == 2'd1) ctrl <= i_wb_data[7:0];

  always_ff @(posedge i_clk)
    if (i_wb_stb && i_wb_we && i_wb_addr == 2'd2) flag <= i_wb_data[0];

  always_ff @(posedge i_clk)
    if (i_wb_stb && i_wb_we && i_wb_addr == 2'd3) begin cmd <= i_wb_data[7:0]; go <= i_wb_data[15]; end

  always_ff @(posedge i_clk)
    if (i_reset) begin count <= '0; o_ticks <= '0; end
    else if (count >= cfg) begin count <= '0; o_ticks <= o_ticks + 8'd1; end
    else count <= count + 16'd1;

  always_ff @(posedge i_clk) begin
    o_wb_ack <= i_wb_stb && !o_wb_ack;
    case (i_wb_addr)
      2'd0: o_wb_data <= cfg;
      2'd1: o_wb_data <= {8'h0, ctrl};
      2'd2: o_wb_data <= {15'h0, flag};
      default: o_wb_data <= {go, 7'h0, cmd};
    endcase
  end

  assign o_match = cfg == 16'h0019;
endmodule
