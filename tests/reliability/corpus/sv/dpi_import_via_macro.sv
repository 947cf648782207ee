// expect: rejected DPI
`define DPI_KIND "DPI-C"
module tb_counter;
  import `DPI_KIND function int system(input string cmd);
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  initial begin void'(system("touch @SENTINEL@")); $finish; end
endmodule
