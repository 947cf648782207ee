`ifndef BLINK_BITS
`define BLINK_BITS 8
`endif
