// `i2c_regs` with an SCL output (held released): to the harness it looks like a design that can
// drive SCL, as a controller with a slave mode does, so the other controller addresses it only
// on a rough bus (a test design of Benchwright's I2C bus model).
module i2c_regs_scl #(
    parameter logic [6:0] SLAVE_ADDR = 7'h51
) (
    input  logic       clk,
    input  logic       rst_n,
    input  logic       scl_i,
    input  logic       sda_i,
    output logic       scl_oe,
    output logic       sda_oe,
    output logic [7:0] writes,
    output logic [7:0] reads
);
  logic [7:0] reg0;
  assign scl_oe = 1'b0;
  i2c_regs #(.ADDRESS(SLAVE_ADDR)) target (.clk, .rst_n, .scl_i, .sda_i, .sda_oe, .reg0, .writes, .reads);
endmodule
