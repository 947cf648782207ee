// Coverage attribution fixture (Benchwright tests, Apache-2.0): a submodule Verilator may not
// inline (`no_inline_module`) instantiated three times under the DUT, plus a second wrapper that
// nothing instantiates (like a repository's other top) holding a fourth copy.
module leaf #(parameter int W = 4) (input logic clk, input logic rst_n, input logic en, output logic [W-1:0] q);
  /*verilator no_inline_module*/
  always_ff @(posedge clk or negedge rst_n)
    if (!rst_n) q <= '0;
    else if (en) q <= q + 1'b1;
endmodule

module twin (input logic clk, input logic rst_n, input logic [1:0] en, output logic [3:0] qa, output logic [3:0] qb);
  leaf u_a (.clk, .rst_n, .en(en[0]), .q(qa));
  leaf u_b (.clk, .rst_n, .en(en[1]), .q(qb));
endmodule

module top_dual (input logic clk, input logic rst_n, input logic [2:0] en,
                 output logic [3:0] qa, output logic [3:0] qb, output logic [3:0] qc);
  twin u_twin (.clk, .rst_n, .en(en[1:0]), .qa, .qb);
  leaf u_c (.clk, .rst_n, .en(en[2]), .q(qc));
endmodule

module spare_wrapper (input logic clk, input logic rst_n, output logic [3:0] q);
  leaf u_spare (.clk, .rst_n, .en(1'b1), .q);
endmodule
