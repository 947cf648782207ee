// A command stream with no data port, for Benchwright's engine tests. Apache-2.0.
// Each command is a set of separate ports beside s_cmd_valid/s_cmd_ready (as in
// verilog-i2c's i2c_master): a write to the same address as the last one, without a
// forced start, continues; anything else starts again.
module cmd_unit (
  input  logic       clk,
  input  logic       rst,
  input  logic       s_cmd_valid,
  output logic       s_cmd_ready,
  input  logic [6:0] s_cmd_address,
  input  logic       s_cmd_start,
  input  logic       s_cmd_write,
  output logic [7:0] restarts,
  output logic [7:0] continues
);
  logic [6:0] last_addr;
  logic       busy;
  assign s_cmd_ready = !busy;
  always_ff @(posedge clk) begin
    if (rst) begin
      last_addr <= '0; busy <= 1'b0; restarts <= '0; continues <= '0;
    end else if (busy) begin
      busy <= 1'b0;
    end else if (s_cmd_valid) begin
      busy <= 1'b1;
      if (s_cmd_write && !s_cmd_start && s_cmd_address == last_addr) continues <= continues + 1'b1;
      else restarts <= restarts + 1'b1;
      last_addr <= s_cmd_address;
    end
  end
endmodule
