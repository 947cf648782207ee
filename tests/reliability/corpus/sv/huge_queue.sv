// expect: status runtime_error|timeout
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  int hoard [$];
  int big [];
  counter dut (.*);
  initial begin
    big = new [64'd1 << 28];
    forever hoard.push_back(32'hdeadbeef);
  end
endmodule
