// A unit behind a power-up handshake, for Benchwright's engine tests. Apache-2.0.
// After reset it raises pwrup_req and holds it until pwrup_ack answers (no address, no data);
// only then does it accumulate its input into acc_o. A second request follows every 64 inputs
// taken (a power-down and up again), so the handshake is answered again and again.
module pwrup (
  input  logic       clk,
  input  logic       rst_n,
  output logic       pwrup_req,
  input  logic       pwrup_ack,
  input  logic [7:0] din,
  output logic       powered_o,
  output logic [7:0] acc_o
);
  logic [5:0] taken;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      pwrup_req <= 1'b1; powered_o <= 1'b0; acc_o <= '0; taken <= '0;
    end else if (!powered_o) begin
      if (pwrup_req && pwrup_ack) begin pwrup_req <= 1'b0; powered_o <= 1'b1; end
    end else begin
      acc_o <= acc_o + din;
      taken <= taken + 1'b1;
      if (taken == 6'd63) begin powered_o <= 1'b0; pwrup_req <= 1'b1; end
    end
  end
endmodule
