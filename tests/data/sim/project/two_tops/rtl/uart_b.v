module uart_b (input clk, input rst, input [7:0] data, input push, input pop, output [7:0] q, output full);
  fifo #(.W(8)) rx (.clk(clk), .rst(rst), .wr(push), .din(data), .rd(pop), .dout(q), .full(full));
endmodule
