// Four accumulators no output shows, read through functions marked for testbenches, for
// Benchwright's accessor tests. Apache-2.0. `peek(i)`, `total()`, `both()` and `near(i)` (the
// last two wider than 32 bits) only read; `poke` writes a register and `sum2` takes two
// arguments: neither is for a generated testbench to call.
module peek_regs (
  input  logic       clk,
  input  logic       rst,
  input  logic       en,
  input  logic [1:0] sel,
  input  logic [7:0] din,
  output logic       busy
);
  logic [7:0] acc [4];
  logic [7:0] scratch;
  always_ff @(posedge clk)
    if (rst) begin
      for (int i = 0; i < 4; i++) acc[i] <= '0;
      busy <= 1'b0;
    end else begin
      busy <= en;
      if (en) acc[sel] <= acc[sel] + din;
    end

`ifdef verilator
  function [7:0] peek; /*verilator public*/
    input [1:0] i;
    case (i)
      2'd0: peek = acc[0];
      2'd1: peek = acc[1];
      2'd2: peek = acc[2];
      default: peek = acc[3];
    endcase
  endfunction

  function [9:0] total; /*verilator public*/
    total = 10'(acc[0]) + 10'(acc[1]) + 10'(acc[2]) + 10'(acc[3]);
  endfunction

  function [39:0] both; /*verilator public*/
    both = {acc[3], acc[2], acc[1], acc[0], 8'h5a};
  endfunction

  function [35:0] near; /*verilator public*/
    input [1:0] i;
    near = {acc[i], acc[i + 2'd1], acc[i + 2'd2], acc[i + 2'd3], 4'h9};
  endfunction

  function [7:0] poke; /*verilator public*/
    input [7:0] v;
    scratch = v;
    poke = v;
  endfunction

  function [7:0] sum2; /*verilator public*/
    input [7:0] a;
    input [7:0] b;
    sum2 = a + b;
  endfunction
`endif
endmodule
