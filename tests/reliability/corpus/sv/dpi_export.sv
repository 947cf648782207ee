// expect: rejected DPI
module tb_counter;
  function void hook(); endfunction
  export "DPI-C" function hook;
  logic clk = 0, rst_n = 0, en = 1; logic [3:0] q;
  counter dut (.*);
  initial $finish;
endmodule
