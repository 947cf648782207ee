// expect: rejected run directory
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q; logic [7:0] mem [4];
  counter dut (.*);
  initial begin $writememh("~/benchwright_mem.hex", mem); $finish; end
endmodule
