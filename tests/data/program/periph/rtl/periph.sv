// SPDX-License-Identifier: Apache-2.0
// Copyright Benchwright contributors.
//
// Test design for the cocotb renderer's protocol drivers: an APB register block, a memory
// master that fetches words through a valid/ready port, an AXI4 master that copies each
// fetched word to memory and reads it back, and a UART receiver whose byte is echoed on
// a transmit pin (so the serial input has a loopback partner).
module periph #(
    parameter int CLKS_PER_BIT = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    // APB slave (data ports named apb_wdata/apb_rdata: the recogniser reads `pwdata` as AXI `wdata`)
    input  logic        apb_psel,
    input  logic        apb_penable,
    input  logic        apb_pwrite,
    input  logic [7:0]  apb_paddr,
    input  logic [31:0] apb_wdata,
    input  logic [3:0]  apb_pstrb,
    output logic        apb_pready,
    output logic [31:0] apb_rdata,
    output logic        apb_pslverr,
    // memory master (valid/ready)
    output logic        fetch_valid,
    output logic [15:0] fetch_addr,
    input  logic        fetch_ready,
    input  logic [31:0] fetch_rdata,
    // AXI4 master
    output logic [1:0]  m_axi_awid,
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
    input  logic [1:0]  m_axi_bid,
    input  logic [1:0]  m_axi_bresp,
    input  logic        m_axi_bvalid,
    output logic        m_axi_bready,
    output logic [1:0]  m_axi_arid,
    output logic [11:0] m_axi_araddr,
    output logic [7:0]  m_axi_arlen,
    output logic [2:0]  m_axi_arsize,
    output logic [1:0]  m_axi_arburst,
    output logic        m_axi_arvalid,
    input  logic        m_axi_arready,
    input  logic [1:0]  m_axi_rid,
    input  logic [31:0] m_axi_rdata,
    input  logic [1:0]  m_axi_rresp,
    input  logic        m_axi_rlast,
    input  logic        m_axi_rvalid,
    output logic        m_axi_rready,
    // serial
    input  logic        uart_rx,
    output logic        uart_tx,
    output logic [7:0]  rx_byte,
    output logic        mismatch
);
  // ---------------------------------------------------------------- APB registers
  logic [31:0] base, scratch;
  logic        go;
  assign apb_pready = 1'b1;
  assign apb_pslverr = apb_psel && apb_penable && apb_pwrite && apb_paddr[3:2] == 2'd3;
  always_comb begin
    case (apb_paddr[3:2])
      2'd0: apb_rdata = base;
      2'd1: apb_rdata = scratch;
      2'd2: apb_rdata = {31'd0, go};
      default: apb_rdata = {24'd0, rx_byte};
    endcase
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      base <= '0; scratch <= '0; go <= 1'b0;
    end else if (apb_psel && apb_penable && apb_pwrite) begin
      case (apb_paddr[3:2])
        2'd0: for (int lane = 0; lane < 4; lane++) if (apb_pstrb[lane]) base[8*lane +: 8] <= apb_wdata[8*lane +: 8];
        2'd1: for (int lane = 0; lane < 4; lane++) if (apb_pstrb[lane]) scratch[8*lane +: 8] <= apb_wdata[8*lane +: 8];
        2'd2: go <= apb_wdata[0];
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------- fetch, copy over AXI, read back
  typedef enum logic [2:0] {IDLE, FETCH, AW, B, AR, R} state_e;
  state_e state;
  logic [31:0] word;
  logic [3:0]  index;
  assign fetch_valid = state == FETCH;
  assign fetch_addr = base[15:0] + {10'd0, index, 2'b00};
  assign m_axi_awid = 2'd1;
  assign m_axi_arid = 2'd1;
  assign m_axi_awlen = 8'd0;
  assign m_axi_arlen = 8'd0;
  assign m_axi_awsize = 3'd2;
  assign m_axi_arsize = 3'd2;
  assign m_axi_awburst = 2'b01;
  assign m_axi_arburst = 2'b01;
  assign m_axi_awaddr = {6'd0, index, 2'b00};
  assign m_axi_araddr = {6'd0, index, 2'b00};
  assign m_axi_wdata = word;
  assign m_axi_wstrb = 4'hf;
  assign m_axi_wlast = 1'b1;
  assign m_axi_awvalid = state == AW;
  assign m_axi_wvalid = state == AW;
  assign m_axi_bready = state == B;
  assign m_axi_arvalid = state == AR;
  assign m_axi_rready = state == R;
  logic aw_done, w_done;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state <= IDLE; word <= '0; index <= '0; mismatch <= 1'b0; aw_done <= 1'b0; w_done <= 1'b0;
    end else begin
      case (state)
        IDLE: if (go) state <= FETCH;
        FETCH: if (fetch_ready) begin word <= fetch_rdata; state <= AW; end
        AW: begin
          if (m_axi_awready) aw_done <= 1'b1;
          if (m_axi_wready) w_done <= 1'b1;
          if ((aw_done || m_axi_awready) && (w_done || m_axi_wready)) begin
            state <= B; aw_done <= 1'b0; w_done <= 1'b0;
          end
        end
        B: if (m_axi_bvalid) state <= m_axi_bresp == 2'b00 && m_axi_bid == 2'd1 ? AR : IDLE;
        AR: if (m_axi_arready) state <= R;
        R: if (m_axi_rvalid) begin
          mismatch <= m_axi_rdata != word || !m_axi_rlast || m_axi_rid != 2'd1 || m_axi_rresp != 2'b00;
          index <= index + 4'd1;
          state <= go ? FETCH : IDLE;
        end
        default: state <= IDLE;
      endcase
    end
  end

  // ---------------------------------------------------------------- UART receiver and echo
  logic [1:0]  rx_sync;
  logic [15:0] ticks;
  logic [3:0]  bit_no;
  logic [8:0]  shift;
  logic        busy;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      rx_sync <= 2'b11; ticks <= '0; bit_no <= '0; shift <= '0; busy <= 1'b0; rx_byte <= '0;
    end else begin
      rx_sync <= {rx_sync[0], uart_rx};
      if (!busy) begin
        if (!rx_sync[1]) begin busy <= 1'b1; ticks <= 16'(CLKS_PER_BIT / 2); bit_no <= '0; end
      end else if (ticks == 16'(CLKS_PER_BIT - 1)) begin
        ticks <= '0;
        bit_no <= bit_no + 4'd1;
        shift <= {rx_sync[1], shift[8:1]};
        if (bit_no == 4'd9) begin busy <= 1'b0; rx_byte <= shift[8:1]; end
      end else begin
        ticks <= ticks + 16'd1;
      end
    end
  end
  assign uart_tx = rx_sync[1];
endmodule
