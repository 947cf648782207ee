// A packet source with two handshake bugs, for Benchwright's protocol-checker tests. Apache-2.0.
// After `go` it offers `len` words on m_data; the bugs: (1) while m_ready is low it keeps
// counting, so m_data changes while m_valid && !m_ready (payload not held); (2) with `hurry`
// high it drops m_valid after three cycles of back-pressure (a request withdrawn before ready).
module bad_stream (
  input  logic       clk,
  input  logic       rst,
  input  logic       go,
  input  logic       hurry,
  input  logic [3:0] len,
  output logic       m_valid,
  input  logic       m_ready,
  output logic [7:0] m_data,
  output logic       m_last,
  output logic [7:0] sent
);
  logic [3:0] left;
  logic [1:0] waited;
  always_ff @(posedge clk) begin
    if (rst) begin
      left <= '0; m_valid <= 1'b0; m_data <= '0; m_last <= 1'b0; sent <= '0; waited <= '0;
    end else if (!m_valid && go && len != 0) begin
      left <= len; m_valid <= 1'b1; m_data <= 8'h10; m_last <= (len == 4'd1); waited <= '0;
    end else if (m_valid && m_ready) begin
      sent <= sent + 1'b1; waited <= '0;
      if (left == 4'd1) begin m_valid <= 1'b0; m_last <= 1'b0; left <= '0; end
      else begin left <= left - 1'b1; m_data <= m_data + 8'd1; m_last <= (left == 4'd2); end
    end else if (m_valid) begin
      m_data <= m_data + 8'd3;                          // bug 1: the payload moves while it waits
      waited <= waited + 2'd1;
      if (hurry && waited == 2'd3) m_valid <= 1'b0;     // bug 2: the request is withdrawn
    end
  end
endmodule
