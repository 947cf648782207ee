// Testbench for top: t
// coverage when run alone: line 50%
// Every row of STIM is applied for `cycles` cycles at the negedge of the clock.
`timescale 1ns/1ps
module tb_top;
  logic clk = 1'b0;
  always #5 clk = ~clk;
  logic rst;
  logic [7:0] a;
  logic [39:0] w;
  logic [7:0] y;
  top dut (
    .clk(clk),
    .rst(rst),
    .a(a),
    .w(w),
    .y(y)
  );

  typedef struct packed {
    logic [31:0] cycles;
    logic [0:0] rst;
    logic [7:0] a;
    logic [39:0] w;
  } step_t;

  localparam int NSTEPS = 4;
  step_t STIM [NSTEPS] = '{
    // steps 0..0: reset
    {32'd2, 1'h1, 8'h00, 40'h0000000000},
    // steps 1..3: random
    {32'd1, 1'h0, 8'h03, 40'h8000000000},
    {32'd1, 1'h0, 8'h03, 40'h8000000000},
    {32'd4, 1'h0, 8'hc8, 40'h0000000007}
  };

  initial begin
    for (int k = 0; k < NSTEPS; k++) begin
      rst = STIM[k].rst;
      a = STIM[k].a;
      w = STIM[k].w;
      repeat (STIM[k].cycles) @(negedge clk);
    end
    $finish;
  end
endmodule
