// Divides the clock: `tick` pulses once every `div + 1` enabled cycles.
`include "pwm_defs.svh"
module prescaler (
    input  logic                clk,
    input  logic                rst_n,
    input  logic                en,
    input  logic [`PRESC_W-1:0] div,
    output logic                tick
);
  logic [`PRESC_W-1:0] count;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      count <= '0;
      tick  <= 1'b0;
    end else if (!en) begin
      count <= '0;
      tick  <= 1'b0;
    end else if (count >= div) begin
      count <= '0;
      tick  <= 1'b1;
    end else begin
      count <= count + 1'b1;
      tick  <= 1'b0;
    end
  end
endmodule
