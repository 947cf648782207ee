// expect: rejected computed
`define WHERE "@SENTINEL@"
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q; integer fd;
  counter dut (.*);
  initial begin fd = $fopen(`WHERE); $fdisplay(fd, "pwned"); $fclose(fd); $finish; end
endmodule
