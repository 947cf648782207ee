// SPDX-License-Identifier: Apache-2.0
// A tiny APB register block for Benchwright's editor test of "Accept new behaviour"
// (flow 7 of editors/vscode/scripts/e2e.mjs). It is locked until the key 32'h600DCAFE is
// written to KEY (0xC); then A (0x0) and B (0x4) take writes and read back, SUM (0x8, read
// only) reads A + B, and `carry` says that the sum overflowed 32 bits.
module apb_adder (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        psel,
  input  logic        penable,
  input  logic        pwrite,
  input  logic [3:0]  paddr,
  input  logic [31:0] pwdata,
  output logic [31:0] prdata,
  output logic        pready,
  output logic        carry
);
  logic [31:0] a, b;
  logic        unlocked;
  logic [32:0] sum;

  assign sum = a + b;
  assign carry = unlocked && sum[32];
  assign pready = 1'b1;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      a <= '0; b <= '0; unlocked <= 1'b0; prdata <= '0;
    end else if (psel && !penable) begin
      if (pwrite && paddr == 4'hC && pwdata == 32'h600DCAFE) unlocked <= 1'b1;
      if (!unlocked) prdata <= '0;
      else if (pwrite && paddr == 4'h0) a <= pwdata;
      else if (pwrite && paddr == 4'h4) b <= pwdata;
      else if (!pwrite) prdata <= (paddr == 4'h0) ? a : (paddr == 4'h4) ? b : (paddr == 4'h8) ? sum[31:0] : 32'h0;
    end
  end
endmodule
