// Widths shared through `include (the example's include directory).
`ifndef PWM_DEFS_SVH
`define PWM_DEFS_SVH
`define PRESC_W 4
`endif
