// A burst source with a valid/ready output for Benchwright's engine tests. Apache-2.0.
// `go` loads a length; the design then offers that many words on m_data, each held until
// m_ready takes it. Nothing moves while nobody answers m_ready.
module burst_source (
  input  logic       clk,
  input  logic       rst,
  input  logic       go,
  input  logic [3:0] len,
  output logic       m_valid,
  input  logic       m_ready,
  output logic [7:0] m_data,
  output logic       m_last,
  output logic [7:0] sent
);
  logic [3:0] left;
  always_ff @(posedge clk) begin
    if (rst) begin
      left <= '0; m_valid <= 1'b0; m_data <= '0; m_last <= 1'b0; sent <= '0;
    end else if (!m_valid && go && len != 0) begin
      left <= len; m_valid <= 1'b1; m_data <= 8'h5a; m_last <= (len == 4'd1);
    end else if (m_valid && m_ready) begin
      sent <= sent + 1'b1;
      if (left == 4'd1) begin m_valid <= 1'b0; m_last <= 1'b0; left <= '0; end
      else begin left <= left - 1'b1; m_data <= {m_data[6:0], m_data[7]} ^ {4'h0, left}; m_last <= (left == 4'd2); end
    end
  end
endmodule
