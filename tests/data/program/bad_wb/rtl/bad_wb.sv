// A pipelined Wishbone master with a handshake bug, for Benchwright's protocol-checker tests.
// Apache-2.0. After `go` it reads eight words from `base` on, one request per cycle STALL lets
// through, and counts the acknowledgements. The bug, while `bad` is high: a request held by
// STALL moves on to the next address (Wishbone B4 pipelined: a stalled request must not change).
module bad_wb (
  input  logic        clk,
  input  logic        rst,
  input  logic        go,
  input  logic        bad,
  input  logic [7:0]  base,
  output logic        o_wb_cyc,
  output logic        o_wb_stb,
  output logic        o_wb_we,
  output logic [7:0]  o_wb_addr,
  output logic [31:0] o_wb_data,
  output logic [3:0]  o_wb_sel,
  input  logic        i_wb_stall,
  input  logic        i_wb_ack,
  input  logic [31:0] i_wb_data,
  output logic [31:0] o_sum,
  output logic [3:0]  o_acks
);
  logic [3:0] asked;

  assign o_wb_we = 1'b0;
  assign o_wb_data = '0;
  assign o_wb_sel = 4'hf;

  always_ff @(posedge clk) begin
    if (rst) begin
      o_wb_cyc <= 1'b0; o_wb_stb <= 1'b0; o_wb_addr <= '0; asked <= '0; o_sum <= '0; o_acks <= '0;
    end else if (!o_wb_cyc) begin
      if (go) begin o_wb_cyc <= 1'b1; o_wb_stb <= 1'b1; o_wb_addr <= base; asked <= '0; o_acks <= '0; end
    end else begin
      if (o_wb_stb && !i_wb_stall) begin
        o_wb_addr <= o_wb_addr + 8'd1; asked <= asked + 4'd1;
        if (asked == 4'd7) o_wb_stb <= 1'b0;
      end else if (o_wb_stb && bad) o_wb_addr <= o_wb_addr + 8'd1;  // the bug: a stalled request moves
      if (i_wb_ack) begin
        o_sum <= o_sum + i_wb_data; o_acks <= o_acks + 4'd1;
        if (o_acks == 4'd7) o_wb_cyc <= 1'b0;
      end
    end
  end
endmodule
