// An SD-card controller over SPI, for Benchwright's engine tests. Apache-2.0.
// After reset it initialises the card (80 clocks deselected, CMD0, CMD8, CMD55 + ACMD41 until
// the card leaves its idle state, CMD58 for the OCR, CMD16 for 16-byte blocks), then reads a
// block (CMD17) whenever start_read is high, checking its CRC16. SPI mode 0, SCK = clk / 4.
// Initialisation waits for a card in the slot: sd_cd_n low for 32 clocks in a row (card_in).
module sd_spi (
  input  logic       clk,
  input  logic       rst,
  input  logic       start_read,
  input  logic [7:0] block,
  output logic       sd_sck,
  output logic       sd_cs_n,
  output logic       sd_mosi,
  input  logic       sd_miso,
  input  logic       sd_cd_n,      // card detect, low: a card in the slot
  output logic       card_in,      // sd_cd_n has been low for 32 clocks
  output logic       ready,        // initialised: ACMD41 answered 0, the block length taken
  output logic       v2,           // CMD8 echoed its check pattern (a version 2 card)
  output logic       sdhc,         // the OCR's capacity bit
  output logic [3:0] init_loops,   // ACMD41s answered "still idle"
  output logic       block_done,   // a block read ended (data and CRC)
  output logic       crc_ok,       // ... and its CRC16 matched
  output logic       error         // an unexpected answer, an error token, or no answer
);
  // ---- one byte out and one in, MSB first
  logic       go, busy, done;
  logic [7:0] go_byte, sh_out, rx;
  logic [3:0] bits;
  logic [1:0] div;
  always_ff @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0; done <= 1'b0; sd_sck <= 1'b0; sd_mosi <= 1'b1; div <= '0; bits <= '0;
    end else begin
      done <= 1'b0;
      if (go && !busy) begin
        busy <= 1'b1; sh_out <= go_byte; bits <= 4'd8; div <= '0; sd_mosi <= go_byte[7];
      end else if (busy) begin
        div <= div + 2'd1;
        if (div == 2'd1) begin sd_sck <= 1'b1; rx <= {rx[6:0], sd_miso}; end
        if (div == 2'd3) begin
          sd_sck <= 1'b0; bits <= bits - 4'd1;
          sh_out <= {sh_out[6:0], 1'b1}; sd_mosi <= sh_out[6];
          if (bits == 4'd1) begin busy <= 1'b0; done <= 1'b1; sd_mosi <= 1'b1; end
        end
      end
    end
  end

  // ---- card detect, debounced
  logic [4:0] cd_count;
  always_ff @(posedge clk) begin
    if (rst || sd_cd_n) begin cd_count <= '0; card_in <= 1'b0; end
    else if (cd_count != 5'd31) cd_count <= cd_count + 5'd1;
    else card_in <= 1'b1;
  end

  // ---- commands
  typedef enum logic [3:0] {POWER, CMD, R1, EXT, AFTER, TOKEN, DATA, CRC, IDLE, FAIL} state_t;
  state_t st;
  logic [7:0]  frame [6];
  logic [2:0]  fi;        // frame byte
  logic [3:0]  tries;     // bytes waited for R1
  logic [2:0]  step;      // 0 CMD0, 1 CMD8, 2 CMD55, 3 ACMD41, 4 CMD58, 6 CMD16, 5 CMD17
  logic [7:0]  r1;
  logic [31:0] ext;
  logic [2:0]  ext_n;
  logic [9:0]  count;
  logic [15:0] crc, got;
  logic        sent;      // the current byte was handed to the engine

  function automatic logic [15:0] crc16(input logic [15:0] c, input logic [7:0] b);
    for (int i = 7; i >= 0; i--) c = {c[14:0], 1'b0} ^ ((c[15] ^ b[i]) ? 16'h1021 : 16'h0);
    return c;
  endfunction

  task automatic command(input logic [5:0] index, input logic [31:0] arg, input logic [7:0] crc7);
    frame[0] <= {2'b01, index}; frame[1] <= arg[31:24]; frame[2] <= arg[23:16];
    frame[3] <= arg[15:8]; frame[4] <= arg[7:0]; frame[5] <= crc7;
    fi <= '0; st <= CMD;
  endtask

  always_ff @(posedge clk) begin
    if (rst) begin
      st <= POWER; sd_cs_n <= 1'b1; go <= 1'b0; sent <= 1'b0; count <= '0; step <= '0;
      ready <= 1'b0; v2 <= 1'b0; sdhc <= 1'b0; init_loops <= '0; block_done <= 1'b0; crc_ok <= 1'b0;
      error <= 1'b0;
    end else begin
      go <= 1'b0;
      block_done <= 1'b0;
      // every state but IDLE, AFTER and FAIL moves one byte at a time
      if (st != IDLE && st != AFTER && st != FAIL && !sent && !busy && !go) begin
        go <= 1'b1; sent <= 1'b1; go_byte <= (st == CMD) ? frame[fi] : 8'hff;
      end
      if (done) begin
        sent <= 1'b0;
        case (st)
          POWER: if (card_in) begin count <= count + 10'd1; if (count == 10'd9) begin sd_cs_n <= 1'b0; command(6'd0, 32'h0, 8'h95); end end
          CMD: begin fi <= fi + 3'd1; if (fi == 3'd5) begin st <= R1; tries <= '0; end end
          R1: if (!rx[7]) begin r1 <= rx; ext <= '0; st <= ext_n != 0 ? EXT : AFTER; end
              else if (tries == 4'd9) begin error <= 1'b1; st <= FAIL; end
              else tries <= tries + 4'd1;
          EXT: begin ext <= {ext[23:0], rx}; ext_n <= ext_n - 3'd1; if (ext_n == 3'd1) st <= AFTER; end
          TOKEN: if (rx == 8'hfe) begin st <= DATA; count <= '0; crc <= '0; end
                 else if (rx != 8'hff) begin error <= 1'b1; st <= IDLE; end  // an error token
          DATA: begin crc <= crc16(crc, rx); count <= count + 10'd1; if (count == 10'd15) begin st <= CRC; count <= '0; end end
          CRC: begin got <= {got[7:0], rx}; count <= count + 10'd1;
                     if (count == 10'd1) begin st <= IDLE; block_done <= 1'b1; crc_ok <= {got[7:0], rx} == crc; end end
          default: ;
        endcase
      end
      if (st == AFTER) begin
        case (step)
          3'd0: if (r1 == 8'h01) begin step <= 3'd1; ext_n <= 3'd4; command(6'd8, 32'h1aa, 8'h87); end
                else begin error <= 1'b1; st <= FAIL; end
          3'd1: begin v2 <= ext[11:0] == 12'h1aa; step <= 3'd2; ext_n <= '0; command(6'd55, 32'h0, 8'h01); end
          3'd2: begin step <= 3'd3; command(6'd41, 32'h4000_0000, 8'h01); end
          3'd3: if (r1 == 8'h00) begin step <= 3'd4; ext_n <= 3'd4; command(6'd58, 32'h0, 8'h01); end
                else if (init_loops == 4'hf || r1[7:1] != '0) begin error <= 1'b1; st <= FAIL; end
                else begin init_loops <= init_loops + 4'd1; step <= 3'd2; command(6'd55, 32'h0, 8'h01); end
          3'd4: begin sdhc <= ext[30]; step <= 3'd6; ext_n <= '0; command(6'd16, 32'd16, 8'h01); end
          3'd6: if (r1 == 8'h00) begin ready <= 1'b1; st <= IDLE; sd_cs_n <= 1'b1; end
                else command(6'd16, 32'd16, 8'h01);  // again: a rough card fails some commands' CRC
          default: if (r1 == 8'h00) begin st <= TOKEN; end else begin error <= 1'b1; st <= IDLE; sd_cs_n <= 1'b1; end
        endcase
      end
      if (st == IDLE && !sent && !busy) begin
        sd_cs_n <= 1'b1;
        if (start_read && ready) begin sd_cs_n <= 1'b0; step <= 3'd5; command(6'd17, {24'h0, block}, 8'h01); end
      end
    end
  end
endmodule
