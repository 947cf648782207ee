// The front end of a dual-issue RISC-V core, for Benchwright's tests. Apache-2.0.
// It fetches 64-bit words (two RV32 instructions) over a valid/ready memory interface, passes
// them through a three-stage queue (so its decoder is not traced back to mem_rdata, as in a
// real core's front end), sorts each half into a kind by its major opcode, and records which
// (first, second) pairs of kinds it has seen: `pairs[8 * first + second]`. A core that issues
// an ALU operation and a load together needs such a pair in one fetch word.
module dual_fetch (
  input  logic        clk,
  input  logic        rst_n,
  output logic        mem_valid,
  input  logic        mem_ready,
  output logic [31:0] mem_addr,
  input  logic [63:0] mem_rdata,
  output logic [63:0] pairs,
  output logic [7:0]  fetched
);
  logic [63:0] q [3];
  logic [2:0]  v;

  function automatic logic [2:0] kind(input logic [31:0] inst);
    case (inst[6:0])
      7'h13, 7'h33: kind = 3'd0;           // ALU
      7'h03:        kind = 3'd1;           // load
      7'h23:        kind = 3'd2;           // store
      7'h63:        kind = 3'd3;           // branch
      7'h6f, 7'h67: kind = 3'd4;           // jump
      7'h37, 7'h17: kind = 3'd5;           // upper immediate
      7'h73:        kind = 3'd6;           // system
      default:      kind = 3'd7;           // FENCE and the rest
    endcase
  endfunction

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      mem_valid <= 1'b0; mem_addr <= '0; v <= '0; pairs <= '0; fetched <= '0;
      for (int i = 0; i < 3; i++) q[i] <= '0;
    end else begin
      mem_valid <= 1'b1;
      v <= {v[1:0], mem_valid && mem_ready};
      q[0] <= mem_rdata; q[1] <= q[0]; q[2] <= q[1];
      if (mem_valid && mem_ready) begin
        mem_addr <= mem_addr + 32'd8;
        if (fetched != 8'hff) fetched <= fetched + 8'd1;
      end
      if (v[2]) pairs[{kind(q[2][31:0]), kind(q[2][63:32])}] <= 1'b1;
    end
  end
endmodule
