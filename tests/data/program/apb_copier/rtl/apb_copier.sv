// An APB requester, for Benchwright's engine tests. Apache-2.0.
// After `go` it copies `count + 1` words from `src` to `dst` over APB (a read, then a write per
// word, each an APB transfer: setup, then access until PREADY); a transfer answered with
// PSLVERR counts in `errors`; `done` pulses at the end.
module apb_copier (
  input  logic        PCLK,
  input  logic        PRESETn,
  input  logic        go,
  input  logic [7:0]  src,
  input  logic [7:0]  dst,
  input  logic [2:0]  count,
  output logic        PSEL,
  output logic        PENABLE,
  output logic        PWRITE,
  output logic [11:0] PADDR,
  output logic [31:0] PWDATA,
  input  logic        PREADY,
  input  logic [31:0] PRDATA,
  input  logic        PSLVERR,
  output logic        done,
  output logic [3:0]  errors,
  output logic [31:0] last
);
  typedef enum logic [1:0] {IDLE, SETUP, ACCESS} state_t;
  state_t state;
  logic [2:0] left;
  logic [7:0] from, to;

  always_ff @(posedge PCLK or negedge PRESETn) begin
    if (!PRESETn) begin
      state <= IDLE; PSEL <= 1'b0; PENABLE <= 1'b0; PWRITE <= 1'b0; PADDR <= '0; PWDATA <= '0;
      done <= 1'b0; errors <= '0; last <= '0; left <= '0; from <= '0; to <= '0;
    end else begin
      done <= 1'b0;
      case (state)
        IDLE: if (go) begin
          from <= src; to <= dst; left <= count; errors <= '0;
          PSEL <= 1'b1; PWRITE <= 1'b0; PADDR <= {2'b00, src, 2'b00}; state <= SETUP;
        end
        SETUP: begin PENABLE <= 1'b1; state <= ACCESS; end
        ACCESS: if (PREADY) begin
          PENABLE <= 1'b0;
          if (PSLVERR) errors <= errors + 4'd1;
          if (!PWRITE) begin
            last <= PRDATA; PWDATA <= PRDATA; PWRITE <= 1'b1; PADDR <= {2'b00, to, 2'b00}; state <= SETUP;
          end else if (left == 0) begin
            PSEL <= 1'b0; PWRITE <= 1'b0; done <= 1'b1; state <= IDLE;
          end else begin
            left <= left - 3'd1; from <= from + 8'd1; to <= to + 8'd1;
            PWRITE <= 1'b0; PADDR <= {2'b00, from + 8'd1, 2'b00}; state <= SETUP;
          end
        end
        default: state <= IDLE;
      endcase
    end
  end
endmodule
