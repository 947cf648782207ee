// expect: rejected computed
// $fopen(name) without a mode opens a multichannel descriptor for writing.
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q; integer fd; string name;
  counter dut (.*);
  initial begin name = "@REL@"; fd = $fopen(name); $fdisplay(fd, "pwned"); $fclose(fd); $finish; end
endmodule
