// UART receiver (8N1) for Benchwright's engine tests. Apache-2.0.
// The line idles high; a frame is a start bit (0), eight data bits LSB first and a stop bit (1),
// each CLKS_PER_BIT cycles long. A byte appears on o_data with o_valid for one cycle.
module uart_rx #(parameter int CLKS_PER_BIT = 16) (
  input  logic       i_clk,
  input  logic       i_rst_n,
  input  logic       i_rx,
  output logic [7:0] o_data,
  output logic       o_valid,
  output logic       o_frame_err
);
  typedef enum logic [1:0] {IDLE, START, DATA, STOP} state_t;
  state_t state;
  logic [15:0] count;
  logic [2:0]  bit_index;
  logic [7:0]  shift;
  logic        rx_q, rx_qq;

  always_ff @(posedge i_clk or negedge i_rst_n)
    if (!i_rst_n) {rx_qq, rx_q} <= 2'b11;
    else {rx_qq, rx_q} <= {rx_q, i_rx};

  always_ff @(posedge i_clk or negedge i_rst_n) begin
    if (!i_rst_n) begin
      state <= IDLE; count <= '0; bit_index <= '0; shift <= '0;
      o_data <= '0; o_valid <= 1'b0; o_frame_err <= 1'b0;
    end else begin
      o_valid <= 1'b0;
      case (state)
        IDLE: if (!rx_qq) begin state <= START; count <= '0; end
        START:
          if (count == CLKS_PER_BIT / 2 - 1) begin
            if (!rx_qq) begin state <= DATA; count <= '0; bit_index <= '0; end
            else state <= IDLE;
          end else count <= count + 1'b1;
        DATA:
          if (count == CLKS_PER_BIT - 1) begin
            count <= '0;
            shift <= {rx_qq, shift[7:1]};
            if (bit_index == 3'd7) state <= STOP;
            else bit_index <= bit_index + 1'b1;
          end else count <= count + 1'b1;
        STOP:
          if (count == CLKS_PER_BIT - 1) begin
            state <= IDLE;
            count <= '0;
            if (rx_qq) begin o_data <= shift; o_valid <= 1'b1; o_frame_err <= 1'b0; end
            else o_frame_err <= 1'b1;
          end else count <= count + 1'b1;
      endcase
    end
  end
endmodule
