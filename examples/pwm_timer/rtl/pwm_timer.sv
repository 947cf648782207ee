// Two-channel PWM timer with a register write port and a one-shot mode.
// Top of the multi-file example: a package (pkg/), an include directory (include/),
// a filelist (files.f) and no design.toml; `benchwright init` infers the rest.
`include "pwm_defs.svh"
module pwm_timer
  import pwm_pkg::*;
(
    input  logic                clk,
    input  logic                rst_n,
    input  logic                wr_en,
    input  logic [1:0]          addr,
    input  logic [DUTY_W-1:0]   wdata,
    output logic [1:0]          pwm,
    output logic                busy,
    output logic                done
);
  logic                enable, oneshot;
  logic [`PRESC_W-1:0] presc;
  duty_t               duty_a, duty_b, phase;
  logic                tick;
  mode_t               mode;
  logic [1:0]          full_on;

  // Register writes.
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      {oneshot, enable} <= 2'b00;
      presc  <= '0;
      duty_a <= '0;
      duty_b <= '0;
    end else if (wr_en) begin
      case (reg_addr_t'(addr))
        REG_CTRL:   {oneshot, enable} <= wdata[1:0];
        REG_PRESC:  presc <= wdata[`PRESC_W-1:0];
        REG_DUTY_A: duty_a <= wdata;
        REG_DUTY_B: duty_b <= wdata;
      endcase
    end
  end

  // Mode: run freely, or run one phase period and stop.
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      mode  <= IDLE;
      phase <= '0;
    end else begin
      case (mode)
        IDLE: if (enable) mode <= oneshot ? ONESHOT : RUN;
        RUN: begin
          if (!enable) mode <= IDLE;
          else if (tick) phase <= phase + 1'b1;
        end
        ONESHOT: begin
          if (!enable) mode <= IDLE;
          else if (tick) begin
            phase <= phase + 1'b1;
            if (phase == '1) mode <= DONE;
          end
        end
        DONE: if (!enable) begin
          mode  <= IDLE;
          phase <= '0;
        end
      endcase
    end
  end

  prescaler u_presc (
      .clk, .rst_n, .en(mode == RUN || mode == ONESHOT), .div(presc), .tick
  );

  pwm_channel u_ch_a (
      .clk, .rst_n, .tick, .phase, .duty(duty_a), .out(pwm[0]), .full_on(full_on[0])
  );
  pwm_channel u_ch_b (
      .clk, .rst_n, .tick, .phase, .duty(duty_b), .out(pwm[1]), .full_on(full_on[1])
  );

  assign busy = mode == RUN || mode == ONESHOT;
  assign done = mode == DONE || &full_on;
endmodule
