`timescale 1ns/1ps
module tb_blinky;
  reg clk = 0, rst = 1;
  wire led;
  blinky dut (.clk(clk), .rst(rst), .led(led));
  always #5 clk = ~clk;
  initial begin
    #12 rst = 0;
    repeat (40) @(negedge clk);
    $finish;
  end
endmodule
