// expect: status runtime_error output-file size limit
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  initial forever $display("flood flood flood flood flood flood flood flood flood flood flood flood flood");
endmodule
