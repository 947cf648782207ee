// expect: rejected run directory
// "\056\056" is ".." once the string literal is decoded.
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q; integer fd;
  counter dut (.*);
  initial begin fd = $fopen("@REL_OCTAL@", "w"); $fdisplay(fd, "pwned"); $fclose(fd); $finish; end
endmodule
