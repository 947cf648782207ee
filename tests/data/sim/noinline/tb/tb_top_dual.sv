// Drives only u_a's enable, and keeps its own copy of `leaf` (a reference model): that copy's
// points are not the DUT's.
module tb_top_dual;
  logic clk = 0, rst_n = 0;
  logic [2:0] en = 0;
  logic [3:0] qa, qb, qc, qm;
  always #5 clk = ~clk;
  top_dual dut (.*);
  leaf model (.clk, .rst_n, .en(1'b1), .q(qm));
  initial begin
    #12 rst_n = 1;
    en = 3'b001;
    #200 en = 3'b000;
    #20 $finish;
  end
endmodule
