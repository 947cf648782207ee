// A valid/ready memory requester with handshake bugs, for Benchwright's protocol-checker tests.
// Apache-2.0. After `go` it reads words at mem_addr 0, 4, 8, ... one per handshake and sums
// what it reads. The bugs, while `bad` is high: a request that waits moves to the next address
// (its payload must hold), and after three cycles of waiting it is withdrawn (valid dropped).
module bad_mem (
  input  logic        clk,
  input  logic        rst,
  input  logic        go,
  input  logic        bad,
  output logic        mem_valid,
  input  logic        mem_ready,
  output logic [31:0] mem_addr,
  output logic [3:0]  mem_wstrb,
  output logic [31:0] mem_wdata,
  input  logic [31:0] mem_rdata,
  output logic [31:0] sum,
  output logic [7:0]  reads
);
  logic [1:0] waited;

  assign mem_wstrb = '0;
  assign mem_wdata = '0;

  always_ff @(posedge clk) begin
    if (rst) begin
      mem_valid <= 1'b0; mem_addr <= '0; sum <= '0; reads <= '0; waited <= '0;
    end else if (mem_valid && mem_ready) begin
      sum <= sum + mem_rdata; reads <= reads + 8'd1; mem_valid <= 1'b0; mem_addr <= mem_addr + 32'd4; waited <= '0;
    end else if (mem_valid && bad) begin  // the bugs: the waiting request moves, then goes
      mem_addr <= mem_addr + 32'd4; waited <= waited + 2'd1;
      if (waited == 2'd3) mem_valid <= 1'b0;
    end else if (!mem_valid && go) mem_valid <= 1'b1;
  end
endmodule
