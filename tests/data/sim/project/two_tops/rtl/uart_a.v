module uart_a (input clk, input rst, input [7:0] data, input push, output [7:0] q, output busy);
  fifo #(.W(8)) tx (.clk(clk), .rst(rst), .wr(push), .din(data), .rd(!busy), .dout(q), .full(busy));
endmodule
