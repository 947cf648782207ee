// Registers its inputs, for Benchwright's program tests. Apache-2.0.
module passthru (
  input  logic        clk,
  input  logic        rst,
  input  logic        en,
  input  logic [7:0]  a,
  input  logic [39:0] w,
  output logic [7:0]  qa,
  output logic [39:0] qw
);
  always_ff @(posedge clk)
    if (rst) begin qa <= '0; qw <= '0; end
    else if (en) begin qa <= a; qw <= w; end
endmodule
