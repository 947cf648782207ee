// A thin starting testbench: enables the free-running mode with one duty value and
// never tries one-shot mode, full duty or the other registers, so there are holes to fill.
module tb_pwm_timer;
  logic clk = 0, rst_n = 0, wr_en = 0;
  logic [1:0] addr = 0;
  logic [7:0] wdata = 0;
  logic [1:0] pwm;
  logic busy, done;

  pwm_timer dut (.*);

  always #5 clk = ~clk;

  task automatic write(input logic [1:0] a, input logic [7:0] d);
    @(negedge clk);
    wr_en = 1; addr = a; wdata = d;
    @(negedge clk);
    wr_en = 0;
  endtask

  initial begin
    repeat (2) @(negedge clk);
    rst_n = 1;
    write(2'd2, 8'd64);
    write(2'd0, 8'd1);
    repeat (200) @(negedge clk);
    $finish;
  end
endmodule
