// A small CPU on split-transaction memory ports (ultraembedded riscv's style) for Benchwright's
// tests. Apache-2.0.
// Fetch: mem_i_rd_o with mem_i_pc_o is taken on a clock where mem_i_accept_i is high; the word
// comes on a later clock with mem_i_valid_i. Data: mem_d_rd_o or a byte strobe on mem_d_wr_o is
// taken while mem_d_accept_i is high and answered later by mem_d_ack_i with the request's tag
// (mem_d_error_i with it: the memory refused the access; bus_error_o remembers it).
// Instructions decode by mask and match, `(inst & MASK) == MATCH`; anything else traps.
module split_cpu (
  input  logic        clk_i,
  input  logic        rst_i,
  output logic        mem_i_rd_o,
  output logic [31:0] mem_i_pc_o,
  input  logic        mem_i_accept_i,
  input  logic        mem_i_valid_i,
  input  logic [31:0] mem_i_inst_i,
  output logic        mem_d_rd_o,
  output logic [3:0]  mem_d_wr_o,
  output logic [31:0] mem_d_addr_o,
  output logic [31:0] mem_d_data_wr_o,
  output logic [3:0]  mem_d_req_tag_o,
  input  logic        mem_d_accept_i,
  input  logic        mem_d_ack_i,
  input  logic        mem_d_error_i,
  input  logic [31:0] mem_d_data_rd_i,
  input  logic [3:0]  mem_d_resp_tag_i,
  output logic        trap_o,
  output logic        tag_error_o,
  output logic        bus_error_o,
  output logic [7:0]  retired_o
);
  typedef enum logic [2:0] {FETCH, WAIT_I, EXEC, DATA, WAIT_D, HALT} state_t;
  state_t state;
  logic [31:0] inst, acc, x;
  logic        loading;
  logic [31:0] imm_i, imm_s;

  assign imm_i = {{20{inst[31]}}, inst[31:20]};
  assign imm_s = {{20{inst[31]}}, inst[31:25], inst[11:7]};

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state <= FETCH; mem_i_pc_o <= 32'h0; mem_i_rd_o <= 1'b0; inst <= '0; acc <= '0; x <= '0;
      mem_d_rd_o <= 1'b0; mem_d_wr_o <= '0; mem_d_addr_o <= '0; mem_d_data_wr_o <= '0;
      mem_d_req_tag_o <= '0; loading <= 1'b0; trap_o <= 1'b0; tag_error_o <= 1'b0; bus_error_o <= 1'b0; retired_o <= '0;
    end else begin
      case (state)
        FETCH: begin
          mem_i_rd_o <= 1'b1;
          if (mem_i_rd_o && mem_i_accept_i) begin mem_i_rd_o <= 1'b0; state <= WAIT_I; end
        end
        WAIT_I: if (mem_i_valid_i) begin inst <= mem_i_inst_i; state <= EXEC; end
        EXEC: begin
          state <= FETCH;
          mem_i_pc_o <= mem_i_pc_o + 32'd4;
          retired_o <= retired_o + 8'd1;
          if ((inst & 32'h0000707f) == 32'h00000013) acc <= acc + imm_i;                 // addi
          else if ((inst & 32'hfe00707f) == 32'h00000033) x <= acc;                      // add (to x)
          else if ((inst & 32'hfe00707f) == 32'h40000033) acc <= acc - x;                // sub
          else if ((inst & 32'h0000707f) == 32'h00002003) begin                          // lw
            mem_d_rd_o <= 1'b1; mem_d_addr_o <= acc + imm_i; loading <= 1'b1; state <= DATA;
          end else if ((inst & 32'h0000707f) == 32'h00002023) begin                      // sw
            mem_d_wr_o <= 4'hf; mem_d_addr_o <= acc + imm_s; mem_d_data_wr_o <= x; state <= DATA;
          end else if ((inst & 32'h0000707f) == 32'h00000023) begin                      // sb
            mem_d_wr_o <= 4'b0001 << imm_s[1:0]; mem_d_addr_o <= acc + imm_s;
            mem_d_data_wr_o <= {4{x[7:0]}}; state <= DATA;
          end else if ((inst & 32'h0000007f) == 32'h0000006f)                            // jal
            mem_i_pc_o <= mem_i_pc_o + {{11{inst[31]}}, inst[31], inst[19:12], inst[20], inst[30:21], 1'b0};
          else begin trap_o <= 1'b1; state <= HALT; retired_o <= retired_o; end
        end
        DATA: if (mem_d_accept_i) begin
          mem_d_rd_o <= 1'b0; mem_d_wr_o <= '0; state <= WAIT_D;
        end
        WAIT_D: if (mem_d_ack_i) begin
          if (mem_d_resp_tag_i != mem_d_req_tag_o) tag_error_o <= 1'b1;
          if (mem_d_error_i) bus_error_o <= 1'b1;  // a data access the memory refused
          if (loading) acc <= acc ^ mem_d_data_rd_i;
          loading <= 1'b0;
          mem_d_req_tag_o <= mem_d_req_tag_o + 4'd1;
          state <= FETCH;
        end
        HALT: ;
        default: state <= HALT;
      endcase
    end
  end
endmodule
