// A pipelined Wishbone memory of 256 words, for Benchwright's engine tests. Apache-2.0.
// A request at the word after the previous request's, in the same cycle (cyc held), continues
// an access without a new command, as a flash controller's sequential reads and page
// programs do; any other request starts a new access and stalls the bus for one cycle. Reads
// and writes are acknowledged one cycle after they are taken. A continuation after the strobe
// rested 16 clocks or more (a slow master; a flash controller holds its port meanwhile) is `held`.
module wb_pipe (
  input  logic        clk,
  input  logic        rst,
  input  logic        i_wb_cyc,
  input  logic        i_wb_stb,
  input  logic        i_wb_we,
  input  logic [7:0]  i_wb_addr,
  input  logic [31:0] i_wb_data,
  input  logic [3:0]  i_wb_sel,
  output logic        o_wb_stall,
  output logic        o_wb_ack,
  output logic [31:0] o_wb_data,
  output logic [7:0]  continued,   // requests that continued an access
  output logic        long_read,   // seven reads continued in one cycle
  output logic        long_write,  // three writes continued in one cycle
  output logic        held         // an access continued after the strobe rested 16 clocks
);
  logic [31:0] mem [256];
  logic [7:0]  last_addr;
  logic        open_access;  // a request was taken in this cycle
  logic [3:0]  run;          // continuations in a row
  logic [4:0]  rest;         // clocks without a request since the last one, in this cycle

  wire take = i_wb_cyc && i_wb_stb && !o_wb_stall;
  wire next = open_access && i_wb_addr == last_addr + 8'd1;

  always_ff @(posedge clk) begin
    if (rst) begin
      o_wb_ack <= 1'b0; o_wb_stall <= 1'b0; open_access <= 1'b0; run <= '0;
      continued <= '0; long_read <= 1'b0; long_write <= 1'b0; held <= 1'b0; rest <= '0;
    end else begin
      o_wb_ack <= take;
      o_wb_stall <= take && !next;  // a new access: one cycle for its "command"
      if (!i_wb_cyc) begin
        open_access <= 1'b0;
        run <= '0;
      end else if (!take && rest != 5'h1f) begin
        rest <= rest + 5'd1;
      end
      if (i_wb_cyc && take) begin
        rest <= '0;
        open_access <= 1'b1;
        last_addr <= i_wb_addr;
        if (next) begin
          continued <= continued + 8'd1;
          if (rest >= 5'd16) held <= 1'b1;
          run <= run + 4'd1;
          if (!i_wb_we && run == 4'd6) long_read <= 1'b1;
          if (i_wb_we && run == 4'd2) long_write <= 1'b1;
        end else begin
          run <= '0;
        end
        if (i_wb_we) begin
          for (int b = 0; b < 4; b++) if (i_wb_sel[b]) mem[i_wb_addr][8*b +: 8] <= i_wb_data[8*b +: 8];
        end
        o_wb_data <= mem[i_wb_addr];
      end
    end
  end
endmodule
