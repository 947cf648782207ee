// Fixture: forencich-style synchronous reset as the last statement of the block,
// and an enable that loads a constant (must not be taken for a reset).
module tail_reset (
    input  wire       clk,
    input  wire       rst,
    input  wire       en,
    input  wire [7:0] d,
    output reg  [7:0] q,
    output reg        v
);
  always @(posedge clk) begin
    if (en) begin
      v <= 1'b1;
    end
    q <= d;
    if (rst) begin
      q <= 8'd0;
      v <= 1'b0;
    end
  end
endmodule
