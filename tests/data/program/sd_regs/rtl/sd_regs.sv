// SPDX-License-Identifier: Apache-2.0
// A test design for Benchwright: an SD-card controller over SPI behind Wishbone registers, the
// way software drives one (as ZipCPU's sdspi): every card command is a register word.
//   0 CMD  write: [7:6] = 01 sends a command frame, index [5:0], argument the ARG register;
//              bit 11 (DATA): a CMD17 then reads the card's 512-byte block (summed, CRC16 checked);
//              bit 15 (CLEAR): clears the sticky error first. A command is refused while busy
//              or while the error is set (an R1 with error bits, an error token, a bad CRC,
//              no answer).
//         read: {busy, error, 22'b0, r1}
//   1 ARG  read/write
//   2 SUM  read: the byte sum of the last block read
// The card is initialised (o_ready) once an ACMD41 answers 0: CMD0, CMD8, then CMD55 + ACMD41
// until the card leaves idle. SPI mode 0, SCK = clk / 4.
module sd_regs (
  input  logic        i_clk,
  input  logic        i_reset,
  input  logic        i_wb_cyc,
  input  logic        i_wb_stb,
  input  logic        i_wb_we,
  input  logic [1:0]  i_wb_addr,
  input  logic [31:0] i_wb_data,
  output logic        o_wb_ack,
  output logic [31:0] o_wb_data,
  output logic        o_sd_sck,
  output logic        o_sd_cs_n,
  output logic        o_sd_mosi,
  input  logic        i_sd_miso,
  output logic        o_ready,      // an ACMD41 answered 0
  output logic        o_block_ok,   // a block read ended with a matching CRC16 (one cycle)
  output logic        o_error       // the sticky error
);
  // ---- one byte out and one in, MSB first
  logic       go, busy, done;
  logic [7:0] go_byte, sh_out, rx;
  logic [3:0] bits;
  logic [1:0] div;
  always_ff @(posedge i_clk) begin
    if (i_reset) begin
      busy <= 1'b0; done <= 1'b0; o_sd_sck <= 1'b0; o_sd_mosi <= 1'b1; div <= '0; bits <= '0;
    end else begin
      done <= 1'b0;
      if (go && !busy) begin
        busy <= 1'b1; sh_out <= go_byte; bits <= 4'd8; div <= '0; o_sd_mosi <= go_byte[7];
      end else if (busy) begin
        div <= div + 2'd1;
        if (div == 2'd1) begin o_sd_sck <= 1'b1; rx <= {rx[6:0], i_sd_miso}; end
        if (div == 2'd3) begin
          o_sd_sck <= 1'b0; bits <= bits - 4'd1;
          sh_out <= {sh_out[6:0], 1'b1}; o_sd_mosi <= sh_out[6];
          if (bits == 4'd1) begin busy <= 1'b0; done <= 1'b1; o_sd_mosi <= 1'b1; end
        end
      end
    end
  end

  function automatic logic [15:0] crc16(input logic [15:0] c, input logic [7:0] b);
    for (int i = 7; i >= 0; i--) c = {c[14:0], 1'b0} ^ ((c[15] ^ b[i]) ? 16'h1021 : 16'h0);
    return c;
  endfunction

  typedef enum logic [2:0] {IDLE, CMD, R1, EXT, TOKEN, DATA, CRC} state_t;
  state_t      st;
  logic [7:0]  frame [6];
  logic [2:0]  fi, ext_n;
  logic [5:0]  index;
  logic        data;
  logic [9:0]  count;
  logic [7:0]  r1;
  logic [15:0] crc, got;
  logic [31:0] arg, sum;
  logic        sent;      // the current byte was handed to the byte engine
  wire         write = i_wb_cyc && i_wb_stb && i_wb_we && !o_wb_ack;

  always_ff @(posedge i_clk) begin
    if (i_reset) begin
      st <= IDLE; o_sd_cs_n <= 1'b1; go <= 1'b0; sent <= 1'b0; o_ready <= 1'b0; o_block_ok <= 1'b0;
      o_error <= 1'b0; arg <= '0; sum <= '0; r1 <= 8'hff; index <= '0; data <= 1'b0; fi <= '0;
      count <= '0; ext_n <= '0;
    end else begin
      go <= 1'b0;
      o_block_ok <= 1'b0;
      if (write && i_wb_addr == 2'd1) arg <= i_wb_data;
      if (write && i_wb_addr == 2'd0 && st == IDLE && !sent && !busy) begin
        if (i_wb_data[15]) o_error <= 1'b0;
        if (i_wb_data[7:6] == 2'b01 && (i_wb_data[15] || !o_error)) begin
          index <= i_wb_data[5:0]; data <= i_wb_data[11];
          frame[0] <= i_wb_data[7:0]; frame[1] <= arg[31:24]; frame[2] <= arg[23:16];
          frame[3] <= arg[15:8]; frame[4] <= arg[7:0];
          frame[5] <= i_wb_data[5:0] == 6'd0 ? 8'h95 : (i_wb_data[5:0] == 6'd8 ? 8'h87 : 8'h01);
          fi <= '0; o_sd_cs_n <= 1'b0; st <= CMD;
        end
      end
      // every state but IDLE moves one byte at a time: the frame's, then 0xff while listening
      if (st != IDLE && !sent && !busy && !go) begin
        go <= 1'b1; sent <= 1'b1; go_byte <= (st == CMD) ? frame[fi] : 8'hff;
      end
      if (done) begin
        sent <= 1'b0;
        case (st)
          CMD: begin fi <= fi + 3'd1; count <= '0; if (fi == 3'd5) st <= R1; end
          R1: if (!rx[7]) begin
                r1 <= rx;
                if (rx[7:1] != '0) o_error <= 1'b1;
                if (index == 6'd41 && rx == 8'h00) o_ready <= 1'b1;
                if (index == 6'd8 || index == 6'd58) begin st <= EXT; ext_n <= 3'd4; end
                else if (index == 6'd17 && data && rx == 8'h00) begin st <= TOKEN; count <= '0; end
                else st <= IDLE;
              end else if (count == 10'd9) begin o_error <= 1'b1; st <= IDLE; end
              else count <= count + 10'd1;
          EXT: begin ext_n <= ext_n - 3'd1; if (ext_n == 3'd1) st <= IDLE; end
          TOKEN: if (rx == 8'hfe) begin st <= DATA; count <= '0; crc <= '0; sum <= '0; end
                 else if (rx != 8'hff || count == 10'd63) begin o_error <= 1'b1; st <= IDLE; end
                 else count <= count + 10'd1;
          DATA: begin
            crc <= crc16(crc, rx); sum <= sum + 32'(rx); count <= count + 10'd1;
            if (count == 10'd511) begin st <= CRC; count <= '0; end
          end
          CRC: begin
            got <= {got[7:0], rx}; count <= count + 10'd1;
            if (count == 10'd1) begin
              st <= IDLE;
              if ({got[7:0], rx} == crc) o_block_ok <= 1'b1; else o_error <= 1'b1;
            end
          end
          default: ;
        endcase
      end
      if (st == IDLE && !sent && !busy && !(write && i_wb_addr == 2'd0)) o_sd_cs_n <= 1'b1;
    end
  end

  always_ff @(posedge i_clk) begin
    if (i_reset) begin o_wb_ack <= 1'b0; o_wb_data <= '0; end
    else begin
      o_wb_ack <= i_wb_cyc && i_wb_stb && !o_wb_ack;
      case (i_wb_addr)
        2'd0: o_wb_data <= {st != IDLE, o_error, 22'b0, r1};
        2'd1: o_wb_data <= arg;
        2'd2: o_wb_data <= sum;
        default: o_wb_data <= 32'h5d5d_0001;
      endcase
    end
  end
endmodule
