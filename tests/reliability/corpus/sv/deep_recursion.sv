// expect: status runtime_error|compile_error
module tb_counter;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  function automatic int depth(int n);
    int pad [64];
    pad[n % 64] = n;
    return n == 0 ? 0 : 1 + depth(n - 1) + pad[0];
  endfunction
  initial begin $display("%0d", depth(100000000)); $finish; end
endmodule
