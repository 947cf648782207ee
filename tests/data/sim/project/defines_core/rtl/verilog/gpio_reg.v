`include "timescale.v"
`include "gpio_defines.v"

module gpio_reg (clk, rst, we, d, q);
  input                    clk;
  input                    rst;
  input                    we;
  input  [`GPIO_WIDTH-1:0] d;
  output [`GPIO_WIDTH-1:0] q;
  reg    [`GPIO_WIDTH-1:0] q;
  always @(posedge clk)
    if (rst) q <= 0;
    else if (we) q <= d;
endmodule
