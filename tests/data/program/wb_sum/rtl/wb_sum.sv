// SPDX-License-Identifier: Apache-2.0
// A test design for Benchwright: a Wishbone (pipelined, with stall and err) master that, on
// `i_start`, reads `i_count + 1` words from `i_base` on, sums them, and writes the sum to the
// word after them. A cycle ended by ERR instead of ACK counts in `o_errors` (its word is not
// added; an errored write leaves `o_done` low).
module wb_sum (
    input  logic        i_clk,
    input  logic        i_reset,
    input  logic        i_start,
    input  logic [7:0]  i_base,
    input  logic [3:0]  i_count,
    output logic        o_wb_cyc,
    output logic        o_wb_stb,
    output logic        o_wb_we,
    output logic [7:0]  o_wb_addr,
    output logic [31:0] o_wb_data,
    output logic [3:0]  o_wb_sel,
    input  logic        i_wb_stall,
    input  logic        i_wb_ack,
    input  logic        i_wb_err,
    input  logic [31:0] i_wb_data,
    output logic        o_done,
    output logic [31:0] o_sum,
    output logic [3:0]  o_errors
);
  typedef enum logic [1:0] {IDLE, REQ, WAIT} state_t;
  state_t state;
  logic [3:0] left;
  logic       writing;

  assign o_wb_sel = 4'hf;
  assign o_wb_data = o_sum;

  always_ff @(posedge i_clk) begin
    if (i_reset) begin
      state <= IDLE; o_wb_cyc <= 1'b0; o_wb_stb <= 1'b0; o_wb_we <= 1'b0; o_wb_addr <= '0;
      left <= '0; writing <= 1'b0; o_done <= 1'b0; o_sum <= '0; o_errors <= '0;
    end else begin
      o_done <= 1'b0;
      case (state)
        IDLE: if (i_start) begin
          o_sum <= '0; o_errors <= '0; left <= i_count; writing <= 1'b0; o_wb_addr <= i_base;
          o_wb_cyc <= 1'b1; o_wb_stb <= 1'b1; o_wb_we <= 1'b0; state <= REQ;
        end
        REQ: if (!i_wb_stall) begin o_wb_stb <= 1'b0; state <= WAIT; end
        WAIT: if (i_wb_ack || i_wb_err) begin
          if (i_wb_err) o_errors <= o_errors + 4'd1;
          if (writing) begin
            o_wb_cyc <= 1'b0; o_wb_we <= 1'b0; o_done <= !i_wb_err; state <= IDLE;
          end else begin
            if (i_wb_ack) o_sum <= o_sum + i_wb_data;
            o_wb_addr <= o_wb_addr + 8'd1; o_wb_stb <= 1'b1; state <= REQ;
            if (left == 0) begin writing <= 1'b1; o_wb_we <= 1'b1; end
            else left <= left - 4'd1;
          end
        end
        default: state <= IDLE;
      endcase
    end
  end
endmodule
