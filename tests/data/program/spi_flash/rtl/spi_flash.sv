// A serial NOR flash controller over SPI, for Benchwright's engine tests. Apache-2.0.
// On start it reads the JEDEC ID (0x9F), erases the sector at 0x10 (WREN, 0x20), polls the
// status register until the write is done (0x05, WIP), programs wdata there (WREN, 0x02),
// polls again (bit 6 flags a program error) and reads the word back (0x03). SPI mode 0,
// SCK = clk / 4, one command per chip select.
module spi_flash (
  input  logic        clk,
  input  logic        rst,
  input  logic        start,
  input  logic [31:0] wdata,
  output logic        spi_sck,
  output logic        spi_cs_n,
  output logic        spi_mosi,
  input  logic        spi_miso,
  output logic        id_ok,       // the ID read EF 40 18
  output logic        wip_seen,    // a status poll saw the flash busy
  output logic        prog_error,  // the status said the program failed
  output logic        done,        // the sequence ended
  output logic        match,       // ... and read back what it programmed
  output logic [31:0] rdata
);
  // ---- one byte out and one in, MSB first
  logic       go, busy, bdone;
  logic [7:0] go_byte, sh_out, rx;
  logic [3:0] bits;
  logic [1:0] div;
  always_ff @(posedge clk) begin
    if (rst) begin
      busy <= 1'b0; bdone <= 1'b0; spi_sck <= 1'b0; spi_mosi <= 1'b0; div <= '0; bits <= '0;
    end else begin
      bdone <= 1'b0;
      if (go && !busy) begin
        busy <= 1'b1; sh_out <= go_byte; bits <= 4'd8; div <= '0; spi_mosi <= go_byte[7];
      end else if (busy) begin
        div <= div + 2'd1;
        if (div == 2'd1) begin spi_sck <= 1'b1; rx <= {rx[6:0], spi_miso}; end
        if (div == 2'd3) begin
          spi_sck <= 1'b0; bits <= bits - 4'd1; sh_out <= {sh_out[6:0], 1'b0}; spi_mosi <= sh_out[6];
          if (bits == 4'd1) begin busy <= 1'b0; bdone <= 1'b1; end
        end
      end
    end
  end

  // ---- one command: len bytes out of tx, the bytes in kept in got
  typedef enum logic [1:0] {IDLE, SEND, GAP} state_t;
  state_t      st;
  logic [7:0]  tx [8];
  logic [7:0]  got [8];
  logic [3:0]  len, at;
  logic        sent;
  logic [2:0]  step;   // RDID, WREN, SE, poll, WREN, PP, poll, READ (the command sent)
  logic [1:0]  gap;

  task automatic command(input logic [3:0] n, input logic [7:0] b0, input logic [7:0] b1, input logic [7:0] b2,
                         input logic [7:0] b3, input logic [31:0] tail);
    tx[0] <= b0; tx[1] <= b1; tx[2] <= b2; tx[3] <= b3;
    tx[4] <= tail[31:24]; tx[5] <= tail[23:16]; tx[6] <= tail[15:8]; tx[7] <= tail[7:0];
    len <= n; at <= '0; st <= SEND; spi_cs_n <= 1'b0;
  endtask

  always_ff @(posedge clk) begin
    if (rst) begin
      st <= IDLE; spi_cs_n <= 1'b1; go <= 1'b0; sent <= 1'b0; step <= '0; gap <= '0;
      id_ok <= 1'b0; wip_seen <= 1'b0; prog_error <= 1'b0; done <= 1'b0; match <= 1'b0; rdata <= '0;
    end else begin
      go <= 1'b0;
      case (st)
        IDLE: if (start) begin done <= 1'b0; step <= '0; command(4'd4, 8'h9f, 8'hff, 8'hff, 8'hff, '1); end
        SEND: begin
          if (!sent && !busy && !go) begin go <= 1'b1; sent <= 1'b1; go_byte <= tx[at[2:0]]; end
          if (bdone) begin
            sent <= 1'b0; got[at[2:0]] <= rx; at <= at + 4'd1;
            if (at == len - 4'd1) begin st <= GAP; spi_cs_n <= 1'b1; gap <= '0; end
          end
        end
        GAP: begin
          gap <= gap + 2'd1;
          if (gap == 2'd3) begin
            case (step)  // what just ended
              3'd0: begin id_ok <= got[1] == 8'hef && got[2] == 8'h40 && got[3] == 8'h18;
                          command(4'd1, 8'h06, 8'h0, 8'h0, 8'h0, '0); end                 // WREN
              3'd1: command(4'd4, 8'h20, 8'h00, 8'h00, 8'h10, '0);                       // sector erase
              3'd2, 3'd5: command(4'd2, 8'h05, 8'hff, 8'h0, 8'h0, '0);                   // status
              3'd3, 3'd6: if (got[1][0]) wip_seen <= 1'b1;                               // still busy
              3'd4: command(4'd8, 8'h02, 8'h00, 8'h00, 8'h10, wdata);                   // page program
              default: begin rdata <= {got[4], got[5], got[6], got[7]};
                             match <= {got[4], got[5], got[6], got[7]} == wdata; done <= 1'b1; st <= IDLE; end
            endcase
            if (step == 3'd3 || step == 3'd6) begin
              if (got[1][0]) command(4'd2, 8'h05, 8'hff, 8'h0, 8'h0, '0);                // poll again
              else if (step == 3'd3) begin step <= 3'd4; command(4'd1, 8'h06, 8'h0, 8'h0, 8'h0, '0); end
              else begin prog_error <= got[1][6]; step <= 3'd7; command(4'd8, 8'h03, 8'h00, 8'h00, 8'h10, '1); end
            end else if (step != 3'd7) step <= step + 3'd1;
          end
        end
        default: st <= IDLE;
      endcase
    end
  end
endmodule
