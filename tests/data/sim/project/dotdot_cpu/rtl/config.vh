`define XLEN 8
