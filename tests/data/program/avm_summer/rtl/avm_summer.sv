// An Avalon-MM host, for Benchwright's engine tests. Apache-2.0.
// After `go` it reads eight words from `base` on (pipelined: a new read whenever waitrequest
// lets the last one through, the data coming back with readdatavalid), sums them, and writes
// the sum to the word after them; `done` pulses at the end.
module avm_summer (
  input  logic        clk,
  input  logic        reset,
  input  logic        go,
  input  logic [7:0]  base,
  output logic [31:0] avm_address,
  output logic        avm_read,
  output logic        avm_write,
  output logic [31:0] avm_writedata,
  output logic [3:0]  avm_byteenable,
  input  logic        avm_waitrequest,
  input  logic [31:0] avm_readdata,
  input  logic        avm_readdatavalid,
  output logic        done,
  output logic [31:0] sum
);
  typedef enum logic [1:0] {IDLE, READ, WRITE} state_t;
  state_t state;
  logic [3:0] asked, got;

  assign avm_byteenable = 4'hf;
  assign avm_writedata = sum;

  always_ff @(posedge clk) begin
    if (reset) begin
      state <= IDLE; avm_address <= '0; avm_read <= 1'b0; avm_write <= 1'b0; asked <= '0; got <= '0;
      done <= 1'b0; sum <= '0;
    end else begin
      done <= 1'b0;
      if (avm_readdatavalid) begin sum <= sum + avm_readdata; got <= got + 4'd1; end
      case (state)
        IDLE: if (go) begin
          sum <= '0; asked <= '0; got <= '0; avm_address <= {22'd0, base, 2'b00}; avm_read <= 1'b1; state <= READ;
        end
        READ: begin
          if (avm_read && !avm_waitrequest) begin
            asked <= asked + 4'd1;
            avm_address <= avm_address + 32'd4;
            if (asked == 4'd7) avm_read <= 1'b0;
          end
          if (got == 4'd8) begin avm_write <= 1'b1; state <= WRITE; end
        end
        WRITE: if (!avm_waitrequest) begin avm_write <= 1'b0; done <= 1'b1; state <= IDLE; end
        default: state <= IDLE;
      endcase
    end
  end
endmodule
