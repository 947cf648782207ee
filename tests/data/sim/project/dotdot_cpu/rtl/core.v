`include "../rtl/config.vh"

module core (input clk, input rst_n, input [`XLEN-1:0] in, output reg [`XLEN-1:0] acc);
  always @(posedge clk or negedge rst_n)
    if (!rst_n) acc <= 0;
    else acc <= acc + in;
endmodule
