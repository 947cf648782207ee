`include "../../rtl/config.vh"
// A board wrapper around a vendor primitive nobody ships: Verilator rejects it.
module top_fpga (input clk_pin, input rst_n, input [`XLEN-1:0] sw, output [`XLEN-1:0] led);
  wire clk;
  IBUFG u_ibuf (.I(clk_pin), .O(clk));
  soc u_soc (.clk(clk), .rst_n(rst_n), .in(sw), .out(led));
endmodule
