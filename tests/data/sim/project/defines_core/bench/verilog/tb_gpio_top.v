`include "timescale.v"
`include "gpio_defines.v"

module tb_gpio_top;
  reg clk = 0, rst = 1, we = 0;
  reg  [`GPIO_WIDTH-1:0] d = 0;
  wire [`GPIO_WIDTH-1:0] q;
  wire irq;
  gpio_top dut (.clk(clk), .rst(rst), .we(we), .d(d), .q(q), .irq(irq));
  always #5 clk = ~clk;
  initial begin
    repeat (2) @(negedge clk);
    rst = 0;
    we = 1; d = 8'h5a; @(negedge clk);
    we = 0; @(negedge clk);
    if (q !== 8'h5a || !irq) $display("FAIL q=%h", q);
    $finish;
  end
endmodule
