// An AHB-Lite manager with a handshake bug, for Benchwright's protocol-checker tests. Apache-2.0.
// After `go` it reads words at HADDR 0, 4, 8, ... back to back (NONSEQ single transfers) and
// sums what it reads. The bug, while `bad` is high: an address phase extended by HREADY low
// moves to the next address (AHB-Lite 3.6.1: the address and control must hold).
module bad_ahb (
  input  logic        HCLK,
  input  logic        HRESETn,
  input  logic        go,
  input  logic        bad,
  output logic [31:0] HADDR,
  output logic [1:0]  HTRANS,
  output logic        HWRITE,
  output logic [2:0]  HSIZE,
  output logic [31:0] HWDATA,
  input  logic        HREADY,
  input  logic        HRESP,
  input  logic [31:0] HRDATA,
  output logic [31:0] sum,
  output logic [7:0]  reads
);
  logic data_phase;  // a read's data phase is on the bus

  assign HWRITE = 1'b0;
  assign HSIZE = 3'd2;
  assign HWDATA = '0;

  always_ff @(posedge HCLK or negedge HRESETn) begin
    if (!HRESETn) begin
      HADDR <= '0; HTRANS <= 2'b00; data_phase <= 1'b0; sum <= '0; reads <= '0;
    end else if (HREADY) begin
      if (data_phase) begin sum <= sum + HRDATA; reads <= reads + 8'd1; end
      data_phase <= HTRANS[1];
      if (HTRANS[1]) HADDR <= HADDR + 32'd4;
      HTRANS <= go ? 2'b10 : 2'b00;
    end else if (bad && HTRANS[1]) HADDR <= HADDR + 32'd4;  // the bug: a waiting address phase moves
  end
endmodule
