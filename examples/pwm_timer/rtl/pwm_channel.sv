// One PWM output: high while the shared phase counter is below the duty value.
module pwm_channel
  import pwm_pkg::*;
(
    input  logic  clk,
    input  logic  rst_n,
    input  logic  tick,
    input  duty_t phase,
    input  duty_t duty,
    output logic  out,
    output logic  full_on
);
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) out <= 1'b0;
    else if (tick) out <= phase < duty;
  end

  assign full_on = duty == '1;
endmodule
