// A unit that stops the simulation on one reserved input combination, for Benchwright's engine
// tests. Apache-2.0. mode 3 with en high is reserved: the design calls $fatal.
module mode_unit (
  input  logic       clk,
  input  logic       rst,
  input  logic       en,
  input  logic [1:0] mode,
  input  logic [7:0] a,
  output logic [7:0] y,
  output logic [3:0] seen
);
  always_ff @(posedge clk) begin
    if (rst) begin y <= '0; seen <= '0; end
    else if (en) begin
      if (mode == 2'd3) $fatal(1, "mode 3 is reserved while enabled");
      case (mode)
        2'd0: y <= a;
        2'd1: y <= a + y;
        default: y <= a ^ y;
      endcase
      seen[mode] <= 1'b1;
    end
  end
endmodule
