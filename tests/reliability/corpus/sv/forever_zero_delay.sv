// expect: status timeout
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q; int spin = 0;
  counter dut (.*);
  initial forever spin = spin + 1;
endmodule
