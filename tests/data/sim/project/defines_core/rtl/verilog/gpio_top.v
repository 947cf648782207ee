`include "timescale.v"
`include "gpio_defines.v"

module gpio_top (
  clk, rst, we, d, q
`ifdef GPIO_HAS_IRQ
  , irq
`endif
);
  input                    clk;
  input                    rst;
  input                    we;
  input  [`GPIO_WIDTH-1:0] d;
  output [`GPIO_WIDTH-1:0] q;
`ifdef GPIO_HAS_IRQ
  output                   irq;
  assign irq = |q;
`endif
  gpio_reg u_reg (.clk(clk), .rst(rst), .we(we), .d(d), .q(q));
endmodule
