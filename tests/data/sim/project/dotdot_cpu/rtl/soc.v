`include "../rtl/config.vh"

module soc (input clk, input rst_n, input [`XLEN-1:0] in, output [`XLEN-1:0] out);
  core u_core (.clk(clk), .rst_n(rst_n), .in(in), .acc(out));
endmodule
