// A tiny accumulator CPU on one AHB-Lite manager port, for Benchwright's engine tests. Apache-2.0.
// Instructions are 32-bit words fetched at byte address {pc, 2'b00}; opcode [31:28], an 8-bit
// immediate [7:0] or a 12-bit byte address [11:0]. A load or store is a second transfer (word,
// or a byte store `sb` with HSIZE 0 on the address's lane). An opcode it does not know, or an
// ERROR response, stops it (trap). `retired` counts instructions since reset (255 saturates).
module ahb_cpu (
  input  logic        HCLK,
  input  logic        HRESETn,
  output logic [31:0] HADDR,
  output logic [1:0]  HTRANS,
  output logic        HWRITE,
  output logic [2:0]  HSIZE,
  output logic [2:0]  HBURST,
  output logic [3:0]  HPROT,
  output logic [31:0] HWDATA,
  input  logic        HREADY,
  input  logic        HRESP,
  input  logic [31:0] HRDATA,
  output logic        trap,
  output logic [15:0] pc,
  output logic [7:0]  retired
);
  localparam logic [1:0] IDLE = 2'b00, NONSEQ = 2'b10;
  logic [15:0] acc, x;
  logic [31:0] insn;
  typedef enum logic [2:0] {FETCH_A, FETCH_D, EXEC, MEM_A, MEM_D, HALT} state_t;
  state_t state;

  assign HBURST = 3'b000;  // single transfers
  assign HPROT  = 4'b0011;

  always_ff @(posedge HCLK or negedge HRESETn) begin
    if (!HRESETn) begin
      state <= FETCH_A; pc <= '0; acc <= '0; x <= '0; insn <= '0; trap <= 1'b0; retired <= '0;
      HADDR <= '0; HTRANS <= IDLE; HWRITE <= 1'b0; HSIZE <= 3'd2; HWDATA <= '0;
    end else begin
      case (state)
        FETCH_A: begin
          HTRANS <= NONSEQ; HADDR <= {14'h0, pc, 2'b00}; HWRITE <= 1'b0; HSIZE <= 3'd2;
          if (HTRANS == NONSEQ && HREADY) begin HTRANS <= IDLE; state <= FETCH_D; end
        end
        FETCH_D: if (HREADY) begin
          if (HRESP) begin trap <= 1'b1; state <= HALT; end
          else begin insn <= HRDATA; state <= EXEC; end
        end
        EXEC: begin
          state <= FETCH_A;
          pc <= pc + 1'b1;
          if (insn[31:28] <= 4'hd && retired != 8'hff) retired <= retired + 8'd1;
          case (insn[31:28])
            4'h0: ;                                        // nop
            4'h1: acc <= {8'h00, insn[7:0]};               // ldi
            4'h2: acc <= acc + {8'h00, insn[7:0]};         // addi
            4'h3: acc <= acc - {8'h00, insn[7:0]};         // subi
            4'h4: acc <= acc & {8'hff, insn[7:0]};         // andi
            4'h5: acc <= acc | {8'h00, insn[7:0]};         // ori
            4'h6: acc <= acc ^ {8'h00, insn[7:0]};         // xori
            4'h7: x <= acc;                                // tax
            4'h8, 4'h9: begin                              // lw, sw
              HTRANS <= NONSEQ; HADDR <= {20'h0, insn[11:2], 2'b00}; HSIZE <= 3'd2;
              HWRITE <= insn[28]; state <= MEM_A;
            end
            4'hd: begin                                    // sb
              HTRANS <= NONSEQ; HADDR <= {20'h0, insn[11:0]}; HSIZE <= 3'd0; HWRITE <= 1'b1; state <= MEM_A;
            end
            4'ha: pc <= {4'h0, insn[11:0]};                // jmp
            4'hb: if (acc == 16'h0) pc <= {4'h0, insn[11:0]};  // jz
            4'hc: if (acc != 16'h0) pc <= {4'h0, insn[11:0]};  // jnz
            default: begin trap <= 1'b1; state <= HALT; end
          endcase
        end
        MEM_A: if (HREADY) begin
          HTRANS <= IDLE;
          HWDATA <= (HSIZE == 3'd0) ? {4{acc[7:0]}} : {16'h0, acc};
          state <= MEM_D;
        end
        MEM_D: if (HREADY) begin
          if (HRESP) begin trap <= 1'b1; state <= HALT; end
          else begin
            if (!HWRITE) acc <= HRDATA[15:0];
            HWRITE <= 1'b0;
            state <= FETCH_A;
          end
        end
        default: ;
      endcase
    end
  end
endmodule
