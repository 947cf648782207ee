`include "blinky_cfg.vh"

module blinky (input clk, input rst, output led);
  reg [`BLINK_BITS-1:0] count;
  always @(posedge clk)
    if (rst) count <= 0;
    else count <= count + 1'b1;
  assign led = count[`BLINK_BITS-1];
endmodule
