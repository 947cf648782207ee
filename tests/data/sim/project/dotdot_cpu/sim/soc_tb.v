`include "../rtl/config.vh"
`timescale 1ns/1ps

module soc_tb;
  reg clk = 0, rst_n = 0;
  reg  [`XLEN-1:0] in = 0;
  wire [`XLEN-1:0] out;
  soc dut (.clk(clk), .rst_n(rst_n), .in(in), .out(out));
  always #5 clk = ~clk;
  initial begin
    #12 rst_n = 1;
    in = 3;
    repeat (4) @(negedge clk);
    $finish;
  end
endmodule
