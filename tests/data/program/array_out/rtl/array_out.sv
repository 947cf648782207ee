// A shift register whose taps are an unpacked array output, for Benchwright's checks tests. Apache-2.0.
module array_out (
  input  logic       clk,
  input  logic       rst,
  input  logic       en,
  input  logic [7:0] d,
  output logic [7:0] taps [4],
  output logic       odd
);
  always_ff @(posedge clk) begin
    if (rst) for (int k = 0; k < 4; k++) taps[k] <= '0;
    else if (en) begin
      taps[0] <= d;
      for (int k = 1; k < 4; k++) taps[k] <= taps[k - 1] + 8'd1;
    end
  end
  assign odd = ^taps[3];
endmodule
