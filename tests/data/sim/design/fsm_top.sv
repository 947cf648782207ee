// Fixture for tests/sim/test_design.py: enum FSM, async active-low reset, a submodule
// with a synchronous reset clocked through a wire alias, casez, ?:, unpacked ports.
module sub (
    input  logic       clk_s,
    input  logic       srst,
    input  logic [3:0] d,
    output logic [3:0] q
);
  always_ff @(posedge clk_s) begin
    if (srst) q <= 4'd0;
    else if (d == 4'd9) q <= d;
  end
endmodule

module fsm_top #(
    parameter int W = 8,
    parameter logic [3:0] MODE = 4'd3,
    localparam int DEPTH = 4
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              sync_rst,
    input  logic [W-1:0]      cmd,
    input  logic [1:0]        op,
    input  logic [3:0]        mat [2][3],
    input  logic signed [7:0] s,
    output logic [W-1:0]      out,
    output logic              flag,
    output logic [3:0]        q
);
  typedef enum logic [1:0] {IDLE = 2'd0, RUN = 2'd1, DONE = 2'd3} state_t;
  state_t state;
  wire clk_w = clk;

  sub u_sub (.clk_s(clk_w), .srst(sync_rst), .d(cmd[7:4]), .q(q));

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) state <= IDLE;
    else begin
      case (state)
        IDLE: if (cmd == 8'hA5) state <= RUN;
        RUN: if (op == 2'b10 && s < -8'sd3) state <= DONE;
        default: state <= IDLE;
      endcase
    end
  end

  assign flag = (state == DONE) ? 1'b1 : mat[1][2][0];

  always_comb begin
    casez (op)
      2'b1?: out = cmd + W'(MODE);
      default: out = '0;
    endcase
  end
endmodule
