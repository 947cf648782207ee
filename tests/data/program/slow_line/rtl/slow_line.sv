// A UART's slow counters behind Wishbone, for Benchwright's engine tests. Apache-2.0.
// Register 0 holds the bit period in its low 24 bits (wbuart32's layout); the line's change
// counter counts the clocks since the receive line last changed, up to the period times 16,
// and flags a break past it; the transmitter's baud counter reloads from the period times 16
// on every break request (register 1, bit 9) and counts down while the request is off. Their
// upper bits move only under a large period and after millions of quiet clocks.
module slow_line (
  input  logic        i_clk,
  input  logic        i_reset,
  input  logic        i_wb_cyc,
  input  logic        i_wb_stb,
  input  logic        i_wb_we,
  input  logic [1:0]  i_wb_addr,
  input  logic [31:0] i_wb_data,
  output logic        o_wb_ack,
  output logic [31:0] o_wb_data,
  input  logic        i_uart_rx,
  output logic        o_uart_tx,
  output logic        o_break
);
  logic [30:0] setup;
  logic        tx_break;
  logic [27:0] chg_counter, baud_counter;
  logic        rx_q;
  wire  [27:0] break_condition = {setup[23:0], 4'h0};

  always_ff @(posedge i_clk)
    if (i_reset) begin
      setup <= 31'd25; tx_break <= 1'b0; o_wb_ack <= 1'b0; o_wb_data <= '0;
    end else begin
      o_wb_ack <= i_wb_cyc && i_wb_stb;
      if (i_wb_cyc && i_wb_stb && i_wb_we && i_wb_addr == 2'd0) setup <= i_wb_data[30:0];
      if (i_wb_cyc && i_wb_stb && i_wb_we && i_wb_addr == 2'd1) tx_break <= i_wb_data[9];
      o_wb_data <= i_wb_addr == 2'd0 ? {1'b0, setup} : {31'h0, o_break};
    end

  always_ff @(posedge i_clk)
    if (i_reset) begin
      rx_q <= 1'b1; chg_counter <= '0;
    end else begin
      rx_q <= i_uart_rx;
      if (rx_q != i_uart_rx) chg_counter <= '0;
      else if (chg_counter < break_condition) chg_counter <= chg_counter + 1'b1;
    end

  always_ff @(posedge i_clk)
    if (i_reset) baud_counter <= '0;
    else if (tx_break) baud_counter <= break_condition;
    else if (baud_counter != '0) baud_counter <= baud_counter - 1'b1;

  assign o_break = chg_counter >= break_condition && !rx_q;
  assign o_uart_tx = !tx_break && rx_q;
endmodule
