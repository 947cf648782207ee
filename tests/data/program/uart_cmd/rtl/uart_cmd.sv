// A UART command bridge for Benchwright's engine tests. Apache-2.0.
// Frames (8N1) arrive and leave at CLK_FREQ / UART_SPEED clocks per bit: 128 with the
// defaults, a period no parameter names. Commands, one byte each, then their operands:
//   'W' (0x57) ADDR DATA -> regs[ADDR] <= DATA, wr_o pulses, the reply is 'K' (0x4b)
//   'R' (0x52) ADDR      -> the reply is regs[ADDR]
//   'S' (0x53)           -> the reply is the number of commands done
// An address above 7 or any other command byte pulses err_o; the parser then waits for a
// command byte again.
module uart_cmd #(parameter int CLK_FREQ = 12_800_000, parameter int UART_SPEED = 100_000) (
  input  logic       clk,
  input  logic       rst_n,
  input  logic       rx,
  output logic       tx,
  output logic       wr_o,
  output logic [2:0] wr_addr_o,
  output logic [7:0] wr_data_o,
  output logic       err_o,
  output logic [7:0] cmds_o
);
  localparam int TICKS = CLK_FREQ / UART_SPEED;

  // -- receiver -------------------------------------------------------------------------
  typedef enum logic [1:0] {R_IDLE, R_START, R_DATA, R_STOP} rx_state_t;
  rx_state_t rx_state;
  logic [15:0] rx_tick;
  logic [2:0]  rx_bit;
  logic [7:0]  rx_shift, rx_byte;
  logic        rx_valid, rx_q, rx_qq;

  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) {rx_qq, rx_q} <= 2'b11;
    else {rx_qq, rx_q} <= {rx_q, rx};

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      rx_state <= R_IDLE; rx_tick <= '0; rx_bit <= '0; rx_shift <= '0; rx_byte <= '0; rx_valid <= 1'b0;
    end else begin
      rx_valid <= 1'b0;
      case (rx_state)
        R_IDLE: if (!rx_qq) begin rx_state <= R_START; rx_tick <= '0; end
        R_START:
          if (rx_tick == 16'(TICKS / 2 - 1)) begin
            rx_tick <= '0;
            rx_state <= rx_qq ? R_IDLE : R_DATA;
            rx_bit <= '0;
          end else rx_tick <= rx_tick + 1'b1;
        R_DATA:
          if (rx_tick == 16'(TICKS - 1)) begin
            rx_tick <= '0;
            rx_shift <= {rx_qq, rx_shift[7:1]};
            if (rx_bit == 3'd7) rx_state <= R_STOP;
            rx_bit <= rx_bit + 1'b1;
          end else rx_tick <= rx_tick + 1'b1;
        R_STOP:
          if (rx_tick == 16'(TICKS - 1)) begin
            rx_tick <= '0;
            rx_state <= R_IDLE;
            if (rx_qq) begin rx_byte <= rx_shift; rx_valid <= 1'b1; end
          end else rx_tick <= rx_tick + 1'b1;
      endcase
    end
  end

  // -- transmitter ----------------------------------------------------------------------
  logic [15:0] tx_tick;
  logic [3:0]  tx_bit;
  logic [9:0]  tx_shift;
  logic        tx_busy, tx_start;
  logic [7:0]  tx_data;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      tx_tick <= '0; tx_bit <= '0; tx_shift <= '1; tx_busy <= 1'b0; tx <= 1'b1;
    end else if (!tx_busy) begin
      tx <= 1'b1;
      if (tx_start) begin tx_shift <= {1'b1, tx_data, 1'b0}; tx_busy <= 1'b1; tx_tick <= '0; tx_bit <= '0; end
    end else begin
      tx <= tx_shift[0];
      if (tx_tick == 16'(TICKS - 1)) begin
        tx_tick <= '0;
        tx_shift <= {1'b1, tx_shift[9:1]};
        if (tx_bit == 4'd9) tx_busy <= 1'b0;
        tx_bit <= tx_bit + 1'b1;
      end else tx_tick <= tx_tick + 1'b1;
    end
  end

  // -- command parser -------------------------------------------------------------------
  typedef enum logic [1:0] {P_CMD, P_WADDR, P_WDATA, P_RADDR} parse_state_t;
  parse_state_t p_state;
  logic [7:0] regs [8];
  logic [2:0] addr;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      p_state <= P_CMD; addr <= '0; wr_o <= 1'b0; wr_addr_o <= '0; wr_data_o <= '0; err_o <= 1'b0;
      cmds_o <= '0; tx_start <= 1'b0; tx_data <= '0;
      for (int i = 0; i < 8; i++) regs[i] <= '0;
    end else begin
      wr_o <= 1'b0; err_o <= 1'b0; tx_start <= 1'b0;
      if (rx_valid) begin
        case (p_state)
          P_CMD:
            case (rx_byte)
              8'h57: p_state <= P_WADDR;
              8'h52: p_state <= P_RADDR;
              8'h53: begin tx_data <= cmds_o; tx_start <= 1'b1; cmds_o <= cmds_o + 1'b1; end
              default: err_o <= 1'b1;
            endcase
          P_WADDR:
            if (rx_byte > 8'd7) begin err_o <= 1'b1; p_state <= P_CMD; end
            else begin addr <= rx_byte[2:0]; p_state <= P_WDATA; end
          P_WDATA: begin
            regs[addr] <= rx_byte; wr_o <= 1'b1; wr_addr_o <= addr; wr_data_o <= rx_byte;
            tx_data <= 8'h4b; tx_start <= 1'b1; cmds_o <= cmds_o + 1'b1; p_state <= P_CMD;
          end
          P_RADDR: begin
            if (rx_byte > 8'd7) err_o <= 1'b1;
            else begin tx_data <= regs[rx_byte[2:0]]; tx_start <= 1'b1; cmds_o <= cmds_o + 1'b1; end
            p_state <= P_CMD;
          end
        endcase
      end
    end
  end
endmodule
