// A stream passed through by wires, for Benchwright's protocol-checker tests. Apache-2.0.
// m_* follows s_* combinationally, so a source that breaks the valid/ready rules on s_* breaks
// them on m_* too (the testbench's doing, not the design's). With `bad` high the design adds a
// bug of its own: m_data is s_data scrambled by a free-running counter, so it moves while
// m_valid && !m_ready even when the source holds s_data as it should.
module stream_wire (
  input  logic       clk,
  input  logic       rst,
  input  logic       bad,
  input  logic       s_valid,
  output logic       s_ready,
  input  logic [7:0] s_data,
  input  logic       s_last,
  output logic       m_valid,
  input  logic       m_ready,
  output logic [7:0] m_data,
  output logic       m_last
);
  logic [7:0] noise;
  always_ff @(posedge clk)
    if (rst) noise <= '0;
    else noise <= noise + 8'd1;
  assign m_valid = s_valid;
  assign s_ready = m_ready;
  assign m_data = bad ? (s_data ^ noise) : s_data;
  assign m_last = s_last;
endmodule
