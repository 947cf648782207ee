// A tiny 16-bit accumulator CPU for Benchwright's engine tests. Apache-2.0.
// It fetches 16-bit words over a valid/ready memory interface (word addresses), decodes
// opcode [15:12] and halts (trap) on an opcode it does not know. Two-cycle fetch/execute.
// `retired` counts the instructions executed since reset (a trap stops it; 255 saturates).
module tiny_cpu (
  input  logic        clk,
  input  logic        rst_n,
  output logic        mem_valid,
  input  logic        mem_ready,
  output logic [15:0] mem_addr,
  input  logic [15:0] mem_rdata,
  output logic [15:0] mem_wdata,
  output logic        mem_we,
  output logic        trap,
  output logic [15:0] pc,
  output logic [7:0]  retired
);
  logic [15:0] acc, x;
  logic [15:0] insn;
  typedef enum logic [1:0] {FETCH, EXEC, LOAD, HALT} state_t;
  state_t state;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state <= FETCH; pc <= '0; acc <= '0; x <= '0; insn <= '0;
      mem_valid <= 1'b0; mem_addr <= '0; mem_wdata <= '0; mem_we <= 1'b0; trap <= 1'b0;
      retired <= '0;
    end else begin
      case (state)
        FETCH: begin
          mem_valid <= 1'b1; mem_addr <= pc; mem_we <= 1'b0;
          if (mem_valid && mem_ready) begin mem_valid <= 1'b0; insn <= mem_rdata; state <= EXEC; end
        end
        EXEC: begin
          state <= FETCH;
          pc <= pc + 1'b1;
          if (insn[15:12] <= 4'hc && retired != 8'hff) retired <= retired + 8'd1;
          case (insn[15:12])
            4'h0: ;                                       // nop
            4'h1: acc <= {8'h00, insn[7:0]};              // ldi
            4'h2: acc <= acc + {8'h00, insn[7:0]};        // addi
            4'h3: acc <= acc - {8'h00, insn[7:0]};        // subi
            4'h4: acc <= acc & {8'hff, insn[7:0]};        // andi
            4'h5: acc <= acc | {8'h00, insn[7:0]};        // ori
            4'h6: acc <= acc ^ {8'h00, insn[7:0]};        // xori
            4'h7: x <= acc;                               // tax
            4'h8: begin mem_valid <= 1'b1; mem_addr <= {4'h0, insn[11:0]}; mem_we <= 1'b0; state <= LOAD; end
            4'h9: begin mem_valid <= 1'b1; mem_addr <= {4'h0, insn[11:0]}; mem_we <= 1'b1;
                        mem_wdata <= acc; state <= LOAD; end
            4'ha: pc <= {4'h0, insn[11:0]};               // jmp
            4'hb: if (acc == 16'h0) pc <= {4'h0, insn[11:0]};  // jz
            4'hc: if (acc != 16'h0) pc <= {4'h0, insn[11:0]};  // jnz
            default: begin trap <= 1'b1; state <= HALT; end
          endcase
        end
        LOAD: if (mem_ready) begin
          mem_valid <= 1'b0; mem_we <= 1'b0;
          if (!mem_we) acc <= mem_rdata;
          state <= FETCH;
        end
        HALT: ;
      endcase
    end
  end
endmodule
