// expect: rejected $system
// `$sys``tem` only becomes $system after preprocessing.
`define S(a) $sys``a
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  initial begin `S(tem)("touch @SENTINEL@"); $finish; end
endmodule
