// Types and register map shared by the PWM timer's modules.
// Bundled multi-file example for Benchwright (Apache-2.0).
package pwm_pkg;
  localparam int DUTY_W = 8;

  typedef logic [DUTY_W-1:0] duty_t;

  // Register addresses of the write port.
  typedef enum logic [1:0] {
    REG_CTRL   = 2'd0,  // {oneshot, enable}
    REG_PRESC  = 2'd1,  // prescaler divide value
    REG_DUTY_A = 2'd2,
    REG_DUTY_B = 2'd3
  } reg_addr_t;

  typedef enum logic [1:0] {IDLE, RUN, ONESHOT, DONE} mode_t;
endpackage
