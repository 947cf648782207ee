`include "gpio_defines.v"
// An old copy kept beside the real one: never the design.
module gpio_top_old (input clk, input [`GPIO_WIDTH-1:0] d, output [`GPIO_WIDTH-1:0] q);
  assign q = d;
endmodule
