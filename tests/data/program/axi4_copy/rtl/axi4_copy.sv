// SPDX-License-Identifier: Apache-2.0
// A test design for Benchwright: a copy engine on one AXI4 (full) master port.
// On `start` it reads a burst of `len + 1` words (INCR, or WRAP when `wrap` is set and the
// length is 2, 4, 8 or 16) from `src`, then writes them back as one burst to `dst`, and
// reports `done` with a checksum. It checks the slave: RLAST must come with the last beat
// (never before), RID and BID must echo its ID, responses must be OKAY; any violation
// sets `error` with a code. The copy is held in a 16-word buffer.
module axi4_copy (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        start,
    input  logic [11:0] src,
    input  logic [11:0] dst,
    input  logic [3:0]  len,
    input  logic        wrap,
    input  logic [2:0]  tag,
    output logic        busy,
    output logic        done,
    output logic        error,
    output logic [2:0]  error_code,
    output logic [31:0] checksum,
    output logic [2:0]  m_axi_awid,
    output logic [11:0] m_axi_awaddr,
    output logic [7:0]  m_axi_awlen,
    output logic [2:0]  m_axi_awsize,
    output logic [1:0]  m_axi_awburst,
    output logic        m_axi_awvalid,
    input  logic        m_axi_awready,
    output logic [31:0] m_axi_wdata,
    output logic [3:0]  m_axi_wstrb,
    output logic        m_axi_wlast,
    output logic        m_axi_wvalid,
    input  logic        m_axi_wready,
    input  logic [2:0]  m_axi_bid,
    input  logic [1:0]  m_axi_bresp,
    input  logic        m_axi_bvalid,
    output logic        m_axi_bready,
    output logic [2:0]  m_axi_arid,
    output logic [11:0] m_axi_araddr,
    output logic [7:0]  m_axi_arlen,
    output logic [2:0]  m_axi_arsize,
    output logic [1:0]  m_axi_arburst,
    output logic        m_axi_arvalid,
    input  logic        m_axi_arready,
    input  logic [2:0]  m_axi_rid,
    input  logic [31:0] m_axi_rdata,
    input  logic [1:0]  m_axi_rresp,
    input  logic        m_axi_rlast,
    input  logic        m_axi_rvalid,
    output logic        m_axi_rready
);
  typedef enum logic [2:0] {IDLE, AR, R, AW, W, B} state_t;
  state_t state;
  logic [31:0] buffer [16];
  logic [3:0]  count, beat;
  logic        wrapped;

  assign busy = (state != IDLE);
  assign m_axi_awsize = 3'd2;
  assign m_axi_arsize = 3'd2;
  assign m_axi_awlen = {4'd0, count};
  assign m_axi_arlen = {4'd0, count};
  assign m_axi_awburst = wrapped ? 2'b10 : 2'b01;
  assign m_axi_arburst = wrapped ? 2'b10 : 2'b01;
  assign m_axi_wstrb = 4'hf;
  assign m_axi_wdata = buffer[beat];
  assign m_axi_wlast = (beat == count);
  assign m_axi_rready = (state == R);
  assign m_axi_bready = (state == B);
  assign m_axi_arvalid = (state == AR);
  assign m_axi_awvalid = (state == AW);
  assign m_axi_wvalid = (state == W);

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state <= IDLE; count <= '0; beat <= '0; wrapped <= 1'b0; done <= 1'b0; error <= 1'b0;
      error_code <= '0; checksum <= '0; m_axi_awid <= '0; m_axi_arid <= '0;
      m_axi_awaddr <= '0; m_axi_araddr <= '0;
    end else begin
      done <= 1'b0;
      case (state)
        IDLE: if (start) begin
          count <= len; beat <= '0; checksum <= '0; error <= 1'b0; error_code <= '0;
          wrapped <= wrap && (len == 4'd1 || len == 4'd3 || len == 4'd7 || len == 4'd15);
          m_axi_araddr <= {src[11:2], 2'b00}; m_axi_awaddr <= {dst[11:2], 2'b00};
          m_axi_arid <= tag; m_axi_awid <= tag + 3'd1;
          state <= AR;
        end
        AR: if (m_axi_arready) state <= R;
        R: if (m_axi_rvalid) begin
          buffer[beat] <= m_axi_rdata;
          checksum <= checksum + m_axi_rdata;
          if (m_axi_rid != m_axi_arid) begin error <= 1'b1; error_code <= 3'd1; end
          if (m_axi_rresp != 2'b00) begin error <= 1'b1; error_code <= 3'd2; end
          if (m_axi_rlast != (beat == count)) begin
            error <= 1'b1; error_code <= 3'd3;
            state <= IDLE;  // the slave broke the burst: give up
          end else if (m_axi_rlast) begin
            beat <= '0; state <= AW;
          end else beat <= beat + 4'd1;
        end
        AW: if (m_axi_awready) state <= W;
        W: if (m_axi_wready) begin
          if (m_axi_wlast) state <= B; else beat <= beat + 4'd1;
        end
        B: if (m_axi_bvalid) begin
          if (m_axi_bid != m_axi_awid) begin error <= 1'b1; error_code <= 3'd4; end
          if (m_axi_bresp != 2'b00) begin error <= 1'b1; error_code <= 3'd5; end
          done <= 1'b1; state <= IDLE;
        end
        default: state <= IDLE;
      endcase
    end
  end
endmodule
