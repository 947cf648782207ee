// SPDX-License-Identifier: Apache-2.0
// A test design for Benchwright: an I2C target at ADDRESS behind Wishbone registers, serviced by
// software the way an interrupt-driven slave mode is (OpenCores' i2c_master_top). After every
// byte it has acknowledged it holds SCL low and raises `irq` until software writes CMD bit 1
// ("go on"); a read then sends the DATA register's byte. Without that answer the other
// controller gives its transfer up. Like OpenCores' core it samples SCL and SDA once every PRE + 1
// clocks: with a large prescaler it misreads fast transfers.
//   0 PRE   line sampling prescaler
//   1 CTRL  bit 7: the target answers its address
//   2 DATA  write: the next byte to send; read: the last byte received
//   3 CMD   write bit 1: release SCL (go on); bit 0: clear irq. STAT on read: {waiting, irq, 6'b0}
module i2c_wb_slave #(
    parameter logic [6:0] ADDRESS = 7'h3C
) (
    input  logic       wb_clk_i,
    input  logic       wb_rst_i,
    input  logic       wb_cyc_i,
    input  logic       wb_stb_i,
    input  logic       wb_we_i,
    input  logic [1:0] wb_adr_i,
    input  logic [7:0] wb_dat_i,
    output logic [7:0] wb_dat_o,
    output logic       wb_ack_o,
    input  logic       scl_i,
    input  logic       sda_i,
    output logic       scl_oe,
    output logic       sda_oe,
    output logic       irq,
    output logic [7:0] rx_count,   // data bytes received (written to the target)
    output logic [7:0] tx_count    // data bytes sent (read from the target)
);
  typedef enum logic [2:0] {IDLE, ADDR, ACK_ADDR, WRITE, ACK_WRITE, READ, ACK_READ, SKIP} state_t;
  state_t state;
  logic [2:0] scl_q, sda_q;
  logic [7:0] sr, pre, ctrl, tx_byte, rx_byte, tick;
  logic [3:0] bits;
  logic rw, waiting;

  wire scl_rise = !scl_q[2] && scl_q[1], scl_fall = scl_q[2] && !scl_q[1];
  wire start = scl_q[1] && scl_q[2] && sda_q[2] && !sda_q[1];
  wire stop = scl_q[1] && scl_q[2] && !sda_q[2] && sda_q[1];
  wire write = wb_cyc_i && wb_stb_i && wb_we_i && !wb_ack_o;
  wire go_on = write && wb_adr_i == 2'd3 && wb_dat_i[1];

  always_ff @(posedge wb_clk_i) begin
    if (wb_rst_i) begin
      state <= IDLE; scl_q <= '1; sda_q <= '1; sr <= 0; bits <= 0; rw <= 0; sda_oe <= 0; scl_oe <= 0;
      waiting <= 0; irq <= 0; pre <= 0; ctrl <= 0; tx_byte <= 0; rx_byte <= 0; rx_count <= 0; tx_count <= 0;
      tick <= 0;
    end else begin
      tick <= tick >= pre ? 8'd0 : tick + 8'd1;
      if (tick >= pre) begin scl_q <= {scl_q[1:0], scl_i}; sda_q <= {sda_q[1:0], sda_i}; end
      if (write && wb_adr_i == 2'd0) pre <= wb_dat_i;
      if (write && wb_adr_i == 2'd1) ctrl <= wb_dat_i;
      if (write && wb_adr_i == 2'd2) tx_byte <= wb_dat_i;
      if (write && wb_adr_i == 2'd3 && wb_dat_i[0]) irq <= 0;
      if (waiting) begin
        // SCL held low: nothing moves on the bus until software answers
        if (go_on) begin
          waiting <= 0; scl_oe <= 0; bits <= 0;
          if (state == READ) begin sr <= tx_byte; sda_oe <= !tx_byte[7]; end
        end
      end else if (tick != pre) begin
        // between samples
      end else if (start) begin state <= ADDR; bits <= 0; sda_oe <= 0; end
      else if (stop) begin state <= IDLE; sda_oe <= 0; end
      else if (scl_rise) begin
        if (state == ADDR || state == WRITE) begin sr <= {sr[6:0], sda_q[1]}; bits <= bits + 1; end
        else if (state == ACK_READ && sda_q[1]) state <= SKIP;  // the controller's NAK: the last byte
      end
      else if (scl_fall) begin
        case (state)
          ADDR: if (bits == 8) begin
            if (sr[7:1] == ADDRESS && ctrl[7]) begin rw <= sr[0]; sda_oe <= 1; state <= ACK_ADDR; end
            else state <= SKIP;
          end
          ACK_ADDR: begin sda_oe <= 0; scl_oe <= 1; waiting <= 1; irq <= 1; state <= rw ? READ : WRITE; end
          WRITE: if (bits == 8) begin rx_byte <= sr; rx_count <= rx_count + 1; sda_oe <= 1; state <= ACK_WRITE; end
          ACK_WRITE: begin sda_oe <= 0; scl_oe <= 1; waiting <= 1; irq <= 1; state <= WRITE; end
          READ: begin
            if (bits == 7) begin sda_oe <= 0; state <= ACK_READ; tx_count <= tx_count + 1; end
            else sda_oe <= !sr[6 - bits[2:0]];
            bits <= bits + 1;
          end
          ACK_READ: begin scl_oe <= 1; waiting <= 1; irq <= 1; state <= READ; end
          SKIP: sda_oe <= 0;
          default: ;
        endcase
      end
    end
  end

  always_ff @(posedge wb_clk_i) begin
    if (wb_rst_i) begin wb_ack_o <= 0; wb_dat_o <= 0; end
    else begin
      wb_ack_o <= wb_cyc_i && wb_stb_i && !wb_ack_o;
      case (wb_adr_i)
        2'd0: wb_dat_o <= pre;
        2'd1: wb_dat_o <= ctrl;
        2'd2: wb_dat_o <= rx_byte;
        default: wb_dat_o <= {waiting, irq, 6'b0};
      endcase
    end
  end
endmodule
