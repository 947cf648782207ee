`timescale 1ns/1ps
module tb_uart_b;
  reg clk = 0, rst = 1, push = 0, pop = 0;
  reg  [7:0] data = 0;
  wire [7:0] q;
  wire full;
  uart_b dut (.clk(clk), .rst(rst), .data(data), .push(push), .pop(pop), .q(q), .full(full));
  always #5 clk = ~clk;
  initial begin
    #12 rst = 0;
    repeat (6) begin @(negedge clk); push = 1; data = data + 8'h11; end
    @(negedge clk); push = 0; pop = 1;
    repeat (6) @(negedge clk);
    $finish;
  end
endmodule
