// An I2C target with four byte registers at address ADDRESS (a test design of Benchwright's
// I2C bus model): the first byte written sets the register pointer, the next ones are stored
// from there; reads return registers from the pointer on. A pointer past the last register is
// refused (NAK). The design drives SDA only (open drain: `sda_oe` pulls it low).
module i2c_regs #(
    parameter logic [6:0] ADDRESS = 7'h2A
) (
    input  logic       clk,
    input  logic       rst_n,
    input  logic       scl_i,
    input  logic       sda_i,
    output logic       sda_oe,
    output logic [7:0] reg0,
    output logic [7:0] writes,
    output logic [7:0] reads
);
  typedef enum logic [2:0] {IDLE, ADDR, ACK_ADDR, WRITE, ACK_WRITE, READ, ACK_READ, SKIP} state_t;
  state_t state;
  logic [2:0] scl_q, sda_q;
  logic [7:0] sr, regs [4];
  logic [3:0] bits;
  logic [2:0] ptr;
  logic first, rw;

  wire scl = scl_q[2], sda = sda_q[2];
  wire scl_rise = !scl_q[2] && scl_q[1], scl_fall = scl_q[2] && !scl_q[1];
  wire start = scl_q[1] && scl_q[2] && sda_q[2] && !sda_q[1];
  wire stop = scl_q[1] && scl_q[2] && !sda_q[2] && sda_q[1];
  assign reg0 = regs[0];

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state <= IDLE; scl_q <= '1; sda_q <= '1; sr <= 0; bits <= 0; ptr <= 0; first <= 0; rw <= 0;
      sda_oe <= 0; writes <= 0; reads <= 0;
      for (int i = 0; i < 4; i++) regs[i] <= 8'h00;
    end else begin
      scl_q <= {scl_q[1:0], scl_i};
      sda_q <= {sda_q[1:0], sda_i};
      if (start) begin state <= ADDR; bits <= 0; sda_oe <= 0; end
      else if (stop) begin state <= IDLE; sda_oe <= 0; end
      else if (scl_rise) begin
        if (state == ADDR || state == WRITE) begin sr <= {sr[6:0], sda_q[1]}; bits <= bits + 1; end
        else if (state == ACK_READ && sda_q[1]) state <= SKIP;  // the controller's NAK: the last byte
      end
      else if (scl_fall) begin
        case (state)
          ADDR: if (bits == 8) begin
            if (sr[7:1] == ADDRESS) begin rw <= sr[0]; sda_oe <= 1; state <= ACK_ADDR; end
            else state <= SKIP;
          end
          ACK_ADDR: begin
            bits <= 0;
            if (rw) begin state <= READ; sr <= regs[ptr[1:0]]; sda_oe <= !regs[ptr[1:0]][7]; end
            else begin state <= WRITE; first <= 1; sda_oe <= 0; end
          end
          WRITE: if (bits == 8) begin
            if (first) begin
              if (sr > 8'd3) state <= SKIP;  // no such register: NAK
              else begin ptr <= sr[2:0]; sda_oe <= 1; state <= ACK_WRITE; end
            end else begin
              regs[ptr[1:0]] <= sr; ptr <= ptr + 1; writes <= writes + 1; sda_oe <= 1; state <= ACK_WRITE;
            end
            first <= 0;
          end
          ACK_WRITE: begin sda_oe <= 0; bits <= 0; state <= WRITE; end
          READ: begin
            if (bits == 7) begin sda_oe <= 0; state <= ACK_READ; ptr <= ptr + 1; reads <= reads + 1; end
            else sda_oe <= !sr[6 - bits[2:0]];
            bits <= bits + 1;
          end
          ACK_READ: begin bits <= 0; state <= READ; sr <= regs[ptr[1:0]]; sda_oe <= !regs[ptr[1:0]][7]; end
          SKIP: sda_oe <= 0;
          default: ;
        endcase
      end
    end
  end
endmodule
