// A small FIFO that two top-level blocks share: saving it leaves the top ambiguous.
module fifo #(parameter W = 8) (
  input              clk,
  input              rst,
  input              wr,
  input      [W-1:0] din,
  input              rd,
  output reg [W-1:0] dout,
  output reg         full
);
  reg [W-1:0] mem [0:3];
  reg [1:0] wp, rp;
  reg [2:0] count;
  always @(posedge clk) begin
    if (rst) begin
      wp <= 0; rp <= 0; count <= 0; full <= 0;
    end else begin
      if (wr && count != 4) begin mem[wp] <= din; wp <= wp + 1'b1; end
      if (rd && count != 0) begin dout <= mem[rp]; rp <= rp + 1'b1; end
      count <= count + (wr && count != 4) - (rd && count != 0);
      full <= (count == 3 && wr && !rd);
    end
  end
endmodule
