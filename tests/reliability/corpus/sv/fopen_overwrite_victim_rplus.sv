// expect: rejected computed
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q; integer fd; string name;
  counter dut (.*);
  initial begin name = "@VICTIM_REL@"; fd = $fopen(name, "r+"); $fdisplay(fd, "pwned"); $fclose(fd); $finish; end
endmodule
