// Four byte registers behind a 32-bit Wishbone slave: the one-hot sel picks the register
// (the byte lane), as uart16550's 32-bit bus wrapper does. sel = 4'b1111 reaches none.
module byte_lanes (
  input  logic        clk,
  input  logic        rst,
  input  logic        i_wb_cyc,
  input  logic        i_wb_stb,
  input  logic        i_wb_we,
  input  logic [2:0]  i_wb_addr,
  input  logic [31:0] i_wb_data,
  input  logic [3:0]  i_wb_sel,
  output logic        o_wb_ack,
  output logic [31:0] o_wb_data
);
  logic [7:0] regs [4];
  logic [1:0] lane;
  logic       hit;

  always_comb begin
    hit = 1'b1;
    lane = 2'd0;
    case (i_wb_sel)
      4'b0001: lane = 2'd0;
      4'b0010: lane = 2'd1;
      4'b0100: lane = 2'd2;
      4'b1000: lane = 2'd3;
      default: hit = 1'b0;
    endcase
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      o_wb_ack <= 1'b0;
      o_wb_data <= '0;
      for (int i = 0; i < 4; i++) regs[i] <= '0;
    end else begin
      o_wb_ack <= i_wb_cyc && i_wb_stb && !o_wb_ack;
      if (i_wb_cyc && i_wb_stb && !o_wb_ack && hit) begin
        if (i_wb_we) regs[lane] <= i_wb_data[8 * lane +: 8];
        else case (lane)
          2'd0: o_wb_data <= {24'd0, regs[0]};
          2'd1: o_wb_data <= {16'd0, regs[1], 8'd0};
          2'd2: o_wb_data <= {8'd0, regs[2], 16'd0};
          default: o_wb_data <= {regs[3], 24'd0};
        endcase
      end
    end
  end
endmodule
