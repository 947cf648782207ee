// A sequential divider with a flaw Verilator cannot simulate, for Benchwright's engine tests.
// Apache-2.0. When `start` arrives with a zero divisor, an event-controlled block re-triggers
// itself forever: Verilator stops with %Error-DIDNOTCONVERGE. Any other input is fine.
module seq_div (
  input  logic       clk,
  input  logic       rst,
  input  logic       start,
  input  logic [7:0] dividend,
  input  logic [7:0] divisor,
  output logic [7:0] quotient,
  output logic [7:0] remainder,
  output logic       busy,
  output logic       done
);
  logic spin = 1'b0;
  always @(spin or start or divisor) if (start && divisor == 8'd0) spin <= ~spin;

  logic [3:0] step;
  logic [7:0] d;
  always_ff @(posedge clk) begin
    if (rst) begin
      quotient <= '0; remainder <= '0; busy <= 1'b0; done <= 1'b0; step <= '0; d <= '0;
    end else begin
      done <= 1'b0;
      if (start && !busy && divisor != 8'd0) begin
        busy <= 1'b1; quotient <= '0; remainder <= dividend; d <= divisor; step <= '0;
      end else if (busy) begin
        if (remainder >= d) begin remainder <= remainder - d; quotient <= quotient + 1'b1; end
        else begin busy <= 1'b0; done <= 1'b1; end
        step <= step + 1'b1;
      end
    end
  end
endmodule
