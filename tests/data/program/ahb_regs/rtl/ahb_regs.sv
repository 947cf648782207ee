// An AHB-Lite subordinate with eight 32-bit registers, for Benchwright's engine tests. Apache-2.0.
// Byte, halfword and word writes land on their lanes (HSIZE and the address's low bits). The
// upper four registers (0x10-0x1C) answer after one wait state. Writing 32'h600DCAFE to the key
// register (0x1C) unlocks it; a byte written to lane 2 of register 0x04 is flagged. Any address
// beyond the registers gets an ERROR response (two cycles, as AHB-Lite requires).
module ahb_regs (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        hsel_i,
  input  logic [7:0]  haddr_i,
  input  logic [1:0]  htrans_i,
  input  logic        hwrite_i,
  input  logic [2:0]  hsize_i,
  input  logic [31:0] hwdata_i,
  input  logic        hready_i,
  output logic        hreadyout_o,
  output logic        hresp_o,
  output logic [31:0] hrdata_o,
  output logic        unlocked,
  output logic        lane2_seen
);
  logic [31:0] regs [8];
  logic        d_valid, d_write, err_first;
  logic [7:0]  d_addr;
  logic [2:0]  d_size;

  wire take = hsel_i && hready_i && htrans_i[1];
  wire [3:0] lanes = (d_size == 3'd0) ? (4'b0001 << d_addr[1:0])
                   : (d_size == 3'd1) ? (4'b0011 << {d_addr[1], 1'b0}) : 4'b1111;
  assign hrdata_o = regs[d_addr[4:2]];

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      for (int i = 0; i < 8; i++) regs[i] <= '0;
      d_valid <= 1'b0; d_write <= 1'b0; d_addr <= '0; d_size <= '0; err_first <= 1'b0;
      hreadyout_o <= 1'b1; hresp_o <= 1'b0; unlocked <= 1'b0; lane2_seen <= 1'b0;
    end else if (hreadyout_o) begin
      // the data phase ends on this edge; the address phase on the bus becomes the next one
      if (d_valid && d_write) begin
        for (int b = 0; b < 4; b++) if (lanes[b]) regs[d_addr[4:2]][8*b +: 8] <= hwdata_i[8*b +: 8];
        if (d_addr[4:2] == 3'd7 && lanes == 4'b1111 && hwdata_i == 32'h600DCAFE) unlocked <= 1'b1;
        if (d_addr[4:2] == 3'd1 && d_size == 3'd0 && d_addr[1:0] == 2'd2) lane2_seen <= 1'b1;
      end
      d_valid <= take && haddr_i[7:5] == 3'd0;
      d_write <= hwrite_i; d_addr <= haddr_i; d_size <= hsize_i;
      hresp_o <= 1'b0;
      if (take && haddr_i[7:5] != 3'd0) begin hreadyout_o <= 1'b0; hresp_o <= 1'b1; err_first <= 1'b1; end
      else if (take && haddr_i[4]) hreadyout_o <= 1'b0;  // one wait state
    end else begin
      hreadyout_o <= 1'b1;                               // the wait, or ERROR's first cycle, is over
      err_first <= 1'b0;
    end
  end
endmodule
