// A deliberately thin starting testbench: it never presses the button, never enters
// night mode and never changes speed, so Benchwright has coverage holes to show.
module tb_traffic_light;
  logic clk = 0, rst_n = 0, ped_req = 0, night_mode = 0;
  logic [1:0] speed = 0;
  logic [2:0] lights;
  logic walk;
  logic [3:0] cycles_in_state;

  traffic_light dut (.*);

  always #5 clk = ~clk;

  initial begin
    repeat (3) @(negedge clk);
    rst_n = 1;
    repeat (60) @(negedge clk);
    $finish;
  end
endmodule
