// An Avalon-MM agent with eight registers, for Benchwright's engine tests. Apache-2.0.
// Word addresses: 0 control (bit 0 starts the counter, bit 1 clears it), 1 scratch (byte
// enables honoured), 2 key (writing 32'h600DCAFE unlocks register 3), 3 locked limit, 4 counter
// (read only), 5 status (read only: sticky bits), 6 and 7 read back the scratch halves swapped.
// Writes to registers 2 and 3 hold waitrequest for two clocks; reads answer two clocks after
// they are taken, marked by readdatavalid (a pipelined read).
module avalon_regs (
  input  logic        clk,
  input  logic        reset,
  input  logic [2:0]  avs_s0_address,
  input  logic        avs_s0_read,
  input  logic        avs_s0_write,
  input  logic [31:0] avs_s0_writedata,
  input  logic [3:0]  avs_s0_byteenable,
  output logic [31:0] avs_s0_readdata,
  output logic        avs_s0_readdatavalid,
  output logic        avs_s0_waitrequest,
  output logic        irq
);
  logic [31:0] scratch, limit, count;
  logic        running, unlocked, reached, bad_key, wrote_locked;
  logic [1:0]  wait_left;
  logic [31:0] rdata_q [2];
  logic [1:0]  rvalid_q;

  wire slow = avs_s0_write && (avs_s0_address == 3'd2 || avs_s0_address == 3'd3);
  assign avs_s0_waitrequest = slow && wait_left != 2'd0;
  wire wr = avs_s0_write && !avs_s0_waitrequest;
  wire rd = avs_s0_read;

  always_ff @(posedge clk) begin
    if (reset) wait_left <= 2'd2;
    else if (slow && wait_left != 2'd0) wait_left <= wait_left - 2'd1;
    else wait_left <= 2'd2;
  end

  always_ff @(posedge clk) begin
    if (reset) begin
      scratch <= '0; limit <= 32'hffff_ffff; count <= '0; running <= 1'b0; unlocked <= 1'b0;
      reached <= 1'b0; bad_key <= 1'b0; wrote_locked <= 1'b0;
    end else begin
      if (running) count <= count + 32'd1;
      if (running && count == limit) begin reached <= 1'b1; running <= 1'b0; end
      if (wr) begin
        case (avs_s0_address)
          3'd0: begin
            if (avs_s0_writedata[0]) running <= 1'b1;
            if (avs_s0_writedata[1]) begin count <= '0; reached <= 1'b0; end
          end
          3'd1: for (int b = 0; b < 4; b++) if (avs_s0_byteenable[b]) scratch[8 * b +: 8] <= avs_s0_writedata[8 * b +: 8];
          3'd2: if (avs_s0_writedata == 32'h600D_CAFE) unlocked <= 1'b1; else begin unlocked <= 1'b0; bad_key <= 1'b1; end
          3'd3: if (unlocked) limit <= avs_s0_writedata; else wrote_locked <= 1'b1;
          default: ;
        endcase
      end
    end
  end

  // reads: two pipeline stages, then readdatavalid with the data
  always_ff @(posedge clk) begin
    if (reset) begin rvalid_q <= '0; rdata_q[0] <= '0; rdata_q[1] <= '0; end
    else begin
      rvalid_q <= {rvalid_q[0], rd};
      rdata_q[1] <= rdata_q[0];
      case (avs_s0_address)
        3'd0: rdata_q[0] <= {30'd0, reached, running};
        3'd1: rdata_q[0] <= scratch;
        3'd2: rdata_q[0] <= {31'd0, unlocked};
        3'd3: rdata_q[0] <= limit;
        3'd4: rdata_q[0] <= count;
        3'd5: rdata_q[0] <= {29'd0, wrote_locked, bad_key, reached};
        3'd6: rdata_q[0] <= {scratch[15:0], scratch[31:16]};
        default: rdata_q[0] <= {scratch[7:0], scratch[31:8]};
      endcase
    end
  end
  assign avs_s0_readdatavalid = rvalid_q[1];
  assign avs_s0_readdata = rdata_q[1];
  assign irq = reached;
endmodule
