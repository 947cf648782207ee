// expect: status timeout
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  always #5 clk = ~clk;
  initial begin repeat (2) @(negedge clk); rst_n = 1; end
endmodule
