// expect: rejected outside the design
`include "/etc/passwd"
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  initial $finish;
endmodule
