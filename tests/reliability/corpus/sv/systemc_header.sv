// expect: rejected systemc_
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
`systemc_imp_header
#include <cstdlib>
static int pwn = std::system("touch @SENTINEL@");
`verilog
  initial $finish;
endmodule
