`timescale 1ns/1ps
`default_nettype none
// Hand-written reference testbench for Wren6991/Hazard3, top hazard3_cpu_1port
// (default hazard3_config.vh: RV32IMAC, M-mode trap CSRs, no counters, no debug,
// one external IRQ).  The single AHB5 (AHB-Lite + exclusives) master port is
// served by a slave model with RAM, MMIO (interrupt lines, wake-up timer, end of
// test), an error region (two-cycle HRESP), random wait states and an exclusive
// monitor (HEXOKAY).  The test program is assembled here by encoder functions;
// every result is stored to a signature area and compared with values computed
// by the testbench, and every trap is logged by the handler and compared.  The
// program runs three times: no wait states, random wait states, and random wait
// states with debugger system-bus (SBA) traffic, with a reset between runs.
module tb;
  logic clk = 1'b0, rst_n = 1'b0;
  always #5 clk = ~clk;

  // ------------------------------------------------------------------ DUT
  wire        pwrup_req, clk_en, unblock_out;
  logic       pwrup_ack = 1'b1;
  wire [31:0] haddr;  wire hwrite; wire [1:0] htrans; wire [2:0] hsize, hburst;
  wire [3:0]  hprot;  wire hmastlock; wire [7:0] hmaster; wire hexcl;
  logic       hready, hresp, hexokay;
  wire [31:0] hwdata; logic [31:0] hrdata;
  logic [31:0] sb_addr = '0, sb_wdata = '0; logic sb_write = 0, sb_vld = 0; logic [1:0] sb_size = 2;
  wire        sb_rdy, sb_err; wire [31:0] sb_rdata;
  logic       irq_ext = 0, soft_irq = 0, timer_irq = 0;
  wire        dbg_halted, dbg_running, dbg_data0_wen, dbg_instr_data_rdy;
  wire        dbg_instr_caught_exception, dbg_instr_caught_ebreak;
  wire [31:0] dbg_data0_wdata;

  hazard3_cpu_1port dut (
    .clk(clk), .clk_always_on(clk), .rst_n(rst_n),
    .pwrup_req(pwrup_req), .pwrup_ack(pwrup_ack), .clk_en(clk_en),
    .unblock_out(unblock_out), .unblock_in(1'b0),
    .haddr(haddr), .hwrite(hwrite), .htrans(htrans), .hsize(hsize), .hburst(hburst),
    .hprot(hprot), .hmastlock(hmastlock), .hmaster(hmaster), .hexcl(hexcl),
    .hready(hready), .hresp(hresp), .hexokay(hexokay), .hwdata(hwdata), .hrdata(hrdata),
    .dbg_req_halt(1'b0), .dbg_req_halt_on_reset(1'b0), .dbg_req_resume(1'b0),
    .dbg_halted(dbg_halted), .dbg_running(dbg_running),
    .dbg_data0_rdata(32'h0), .dbg_data0_wdata(dbg_data0_wdata), .dbg_data0_wen(dbg_data0_wen),
    .dbg_instr_data(32'h0), .dbg_instr_data_vld(1'b0), .dbg_instr_data_rdy(dbg_instr_data_rdy),
    .dbg_instr_caught_exception(dbg_instr_caught_exception),
    .dbg_instr_caught_ebreak(dbg_instr_caught_ebreak),
    .dbg_sbus_addr(sb_addr), .dbg_sbus_write(sb_write), .dbg_sbus_size(sb_size),
    .dbg_sbus_vld(sb_vld), .dbg_sbus_rdy(sb_rdy), .dbg_sbus_err(sb_err),
    .dbg_sbus_wdata(sb_wdata), .dbg_sbus_rdata(sb_rdata),
    .irq(irq_ext), .soft_irq(soft_irq), .timer_irq(timer_irq)
  );

  int errors = 0, nchecks = 0;
  task automatic check(input logic [31:0] got, input logic [31:0] exp, input string what);
    nchecks++;
    if (got !== exp) begin
      errors++;
      $display("ERROR %s: got %08h exp %08h @%0t", what, got, exp, $time);
    end
  endtask

  // ------------------------------------------------------------------ memory map
  localparam RAM_BYTES = 32'h0002_0000;   // 0x0000_0000 .. 0x0001_FFFF
  localparam MMIO      = 32'h8000_0000;
  localparam ERRBASE   = 32'hC000_0000;   // any access: error response
  localparam SIG       = 32'h0001_0000;   // signature area
  localparam LOG       = 32'h0001_8000;   // trap log
  localparam DATA      = 32'h0000_F000;   // load/store scratch
  localparam MSIG      = 32'h0001_1000;   // M-extension results
  logic [7:0] mem [0:RAM_BYTES-1];

  // ------------------------------------------------------------------ AHB5 slave
  int   ws_pct = 0;                       // wait-state probability (%)
  logic dp_vld = 0, dp_write = 0, dp_err = 0, dp_excl = 0, dp_exok = 0, err_ph = 0;
  logic [31:0] dp_addr = 0; logic [2:0] dp_size = 0; int dp_wait = 0;
  logic mon_vld = 0; logic [31:0] mon_addr = 0;
  bit   done = 0; logic [31:0] done_code = 0;
  int   wake_cnt = -1;
  int   n_excl_fail = 0, n_err = 0, n_waits = 0, n_sba = 0;

  assign hready  = !dp_vld || (dp_wait == 0 && (!dp_err || err_ph));
  assign hresp   = dp_vld && dp_err && dp_wait == 0;
  assign hexokay = dp_vld && dp_excl && dp_exok && hready && !hresp;

  function automatic logic [31:0] rd_word(input logic [31:0] a);
    logic [31:0] w;
    if (a >= MMIO && a < ERRBASE) return 32'h0;
    a = a % RAM_BYTES;
    a[1:0] = 0;
    w = {mem[a+3], mem[a+2], mem[a+1], mem[a]};
    return w;
  endfunction
  always_comb hrdata = (dp_vld && !dp_write && !dp_err && dp_wait == 0) ? rd_word(dp_addr) : 32'hxxxx_xxxx;

  function automatic bit is_err(input logic [31:0] a);
    return a >= ERRBASE;
  endfunction

  task automatic mmio_write(input logic [31:0] a, input logic [31:0] d);
    case (a[7:0])
      8'h00: timer_irq <= d[0];
      8'h04: soft_irq  <= d[0];
      8'h08: irq_ext   <= d[0];
      8'h0C: begin done <= 1; done_code <= d; end
      8'h10: begin timer_irq <= 0; soft_irq <= 0; irq_ext <= 0; end
      8'h14: wake_cnt <= d;
      default: ;
    endcase
  endtask

  always @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      dp_vld <= 0; dp_wait <= 0; err_ph <= 0; mon_vld = 0;
    end else begin
      if (wake_cnt > 0) wake_cnt <= wake_cnt - 1;
      else if (wake_cnt == 0) begin timer_irq <= 1; wake_cnt <= -1; end
      if (dp_vld && dp_wait > 0) begin
        dp_wait <= dp_wait - 1; n_waits++;
      end else if (dp_vld && dp_err && !err_ph) begin
        err_ph <= 1;
      end else begin
        // transfer completes this cycle (hready = 1)
        if (dp_vld && !dp_err) begin
          if (dp_write && (!dp_excl || dp_exok)) begin
            if (dp_addr >= MMIO) mmio_write(dp_addr, hwdata);
            else begin
              logic [31:0] a;
              a = dp_addr % RAM_BYTES;
              for (int b = 0; b < (1 << dp_size); b++) mem[a + b] = hwdata[8*(a[1:0] + b) +: 8];
              if (mon_vld && mon_addr[31:2] == dp_addr[31:2]) begin mon_vld = 0; end
            end
          end
          if (dp_write && dp_excl) begin mon_vld = 0; if (!dp_exok) n_excl_fail++; end
          if (!dp_write && dp_excl && dp_exok) begin mon_vld = 1; mon_addr = dp_addr; end
        end
        if (dp_err) n_err++;
        err_ph <= 0;
        // address phase
        dp_vld <= htrans[1];
        if (htrans[1]) begin
          dp_addr <= haddr; dp_write <= hwrite; dp_size <= hsize; dp_excl <= hexcl;
          dp_err <= is_err(haddr);
          dp_wait <= ($urandom_range(99) < ws_pct) ? $urandom_range(1, 3) : 0;
          // exclusives succeed in RAM only; a store-exclusive needs the monitor
          dp_exok <= haddr < RAM_BYTES && (!hwrite || (mon_vld && mon_addr[31:2] == haddr[31:2]));
        end
      end
    end
  end

  // power handshake: acknowledge a few cycles after the request
  always @(posedge clk) begin
    if (pwrup_ack != pwrup_req) begin
      repeat (3) @(posedge clk);
      pwrup_ack <= pwrup_req;
    end
  end

  // AHB protocol checks on the master
  logic [31:0] aph_addr_q; logic aph_hold = 0;
  always @(posedge clk) if (rst_n) begin
    if (htrans[1] && !hready && !hresp) begin
      if (aph_hold && haddr !== aph_addr_q) begin errors++; $display("ERROR haddr changed during stall @%0t", $time); end
      aph_hold <= 1; aph_addr_q <= haddr;
    end else aph_hold <= 0;
    if (htrans[1] && hsize == 3'd2 && haddr[1:0] != 0) begin errors++; $display("ERROR unaligned word transfer %h", haddr); end
    if (htrans[1] && hsize == 3'd1 && haddr[0]) begin errors++; $display("ERROR unaligned halfword transfer %h", haddr); end
    if (hburst !== 3'b000 || hmastlock !== 1'b0) begin errors++; $display("ERROR hburst/hmastlock"); end
  end

  // ------------------------------------------------------------------ assembler
  logic [31:0] pc;
  localparam [6:0] OP = 7'h33, OPI = 7'h13, LD = 7'h03, ST = 7'h23, BR = 7'h63, JALR_ = 7'h67,
                   JAL_ = 7'h6f, LUI_ = 7'h37, AUIPC_ = 7'h17, SYS = 7'h73, AMO = 7'h2f;

  task automatic e32(input logic [31:0] w);
    {mem[pc+3], mem[pc+2], mem[pc+1], mem[pc]} = w; pc += 4;
  endtask
  task automatic e16(input logic [15:0] h);
    {mem[pc+1], mem[pc]} = h; pc += 2;
  endtask
  function automatic logic [31:0] R(input [6:0] f7, input [4:0] rs2, rs1, input [2:0] f3, input [4:0] rd, input [6:0] op);
    return {f7, rs2, rs1, f3, rd, op};
  endfunction
  function automatic logic [31:0] I(input logic [11:0] imm, input [4:0] rs1, input [2:0] f3, input [4:0] rd, input [6:0] op);
    return {imm, rs1, f3, rd, op};
  endfunction
  function automatic logic [31:0] S(input logic [11:0] imm, input [4:0] rs2, rs1, input [2:0] f3);
    return {imm[11:5], rs2, rs1, f3, imm[4:0], ST};
  endfunction
  function automatic logic [31:0] B(input int off, input [4:0] rs1, rs2, input [2:0] f3);
    logic [12:0] i = off[12:0];
    return {i[12], i[10:5], rs2, rs1, f3, i[4:1], i[11], BR};
  endfunction
  function automatic logic [31:0] J(input int off, input [4:0] rd);
    logic [20:0] i = off[20:0];
    return {i[20], i[10:1], i[11], i[19:12], rd, JAL_};
  endfunction
  function automatic logic [31:0] CSR(input [11:0] csr, input [4:0] rs1, input [2:0] f3, input [4:0] rd);
    return {csr, rs1, f3, rd, SYS};
  endfunction
  task automatic li(input [4:0] rd, input logic [31:0] v);
    if ($signed(v) >= -2048 && $signed(v) < 2048) e32(I(v[11:0], 0, 0, rd, OPI));
    else begin
      logic [31:0] hi = v + 32'h800;
      e32({hi[31:12], rd, LUI_});
      if (v[11:0] != 0) e32(I(v[11:0], rd, 0, rd, OPI));
    end
  endtask

  // signature: x10 points at the next slot
  logic [31:0] exp_sig [$];
  task automatic sig(input [4:0] r, input logic [31:0] expv);
    e32(S(0, r, 10, 3'd2)); e32(I(4, 10, 0, 10, OPI));
    exp_sig.push_back(expv);
  endtask

  // trap log: the handler stores {mcause, mepc}
  typedef struct { logic [31:0] cause; logic [31:0] epc; bit chk_epc; } trap_t;
  trap_t exp_trap [$];
  task automatic expect_trap(input logic [31:0] cause, input logic [31:0] epc, input bit chk = 1);
    trap_t t; t.cause = cause; t.epc = epc; t.chk_epc = chk; exp_trap.push_back(t);
  endtask

  // ------------------------------------------------------------------ models
  function automatic logic [31:0] alu(input [6:0] f7, input [2:0] f3, input logic [31:0] a, b);
    logic signed [63:0] sa = $signed(a), sb = $signed(b);
    logic [63:0] ua = a, ub = b;
    if (f7 == 7'h01) case (f3)
      0: return a * b;
      1: return 32'((sa * sb) >>> 32);
      2: return 32'((sa * $signed({32'h0, b})) >>> 32);
      3: return 32'((ua * ub) >> 32);
      4: return b == 0 ? 32'hFFFF_FFFF : (a == 32'h8000_0000 && b == 32'hFFFF_FFFF) ? a : 32'($signed(a) / $signed(b));
      5: return b == 0 ? 32'hFFFF_FFFF : a / b;
      6: return b == 0 ? a : (a == 32'h8000_0000 && b == 32'hFFFF_FFFF) ? 0 : 32'($signed(a) % $signed(b));
      7: return b == 0 ? a : a % b;
    endcase
    case (f3)
      0: return f7[5] ? a - b : a + b;
      1: return a << b[4:0];
      2: return {31'h0, $signed(a) < $signed(b)};
      3: return {31'h0, a < b};
      4: return a ^ b;
      5: return f7[5] ? 32'($signed(a) >>> b[4:0]) : a >> b[4:0];
      6: return a | b;
      7: return a & b;
    endcase
  endfunction

  task automatic t_rr(input [6:0] f7, input [2:0] f3, input logic [31:0] a, b);
    li(5, a); li(6, b); e32(R(f7, 6, 5, f3, 7, OP)); sig(7, alu(f7, f3, a, b));
  endtask
  logic [31:0] exp_msig [$];
  task automatic sigm(input [4:0] r, input logic [31:0] expv);
    e32(S(12'(4 * exp_msig.size()), r, 9, 3'd2));
    exp_msig.push_back(expv);
  endtask
  task automatic t_rrm(input [6:0] f7, input [2:0] f3, input logic [31:0] a, b);
    li(5, a); li(6, b); e32(R(f7, 6, 5, f3, 7, OP)); sigm(7, alu(f7, f3, a, b));
  endtask
  task automatic t_ri(input [2:0] f3, input logic [31:0] a, input logic [11:0] imm, input bit arith = 0);
    logic [31:0] b = {{20{imm[11]}}, imm};
    logic [11:0] enc = imm;
    if (f3 == 1 || f3 == 5) begin b = imm[4:0]; enc = {1'b0, arith, 5'b0, imm[4:0]}; end
    li(5, a); e32(I(enc, 5, f3, 7, OPI)); sig(7, alu({1'b0, arith && f3 == 5, 5'b0}, f3, a, b));
  endtask
  function automatic bit br_taken(input [2:0] f3, input logic [31:0] a, b);
    case (f3)
      0: return a == b;  1: return a != b;
      4: return $signed(a) < $signed(b);  5: return $signed(a) >= $signed(b);
      6: return a < b;   7: return a >= b;
      default: return 0;
    endcase
  endfunction
  task automatic t_br(input [2:0] f3, input logic [31:0] a, b);
    li(5, a); li(6, b); li(7, 0);
    e32(B(8, 5, 6, f3));          // taken: skip the next instruction
    e32(I(1, 0, 0, 7, OPI));      // x7 = 1 when not taken
    sig(7, br_taken(f3, a, b) ? 0 : 1);
  endtask

  // compressed encoders (rd'/rs' are x8..x15)
  function automatic logic [15:0] c_ci(input [2:0] f3, input logic [5:0] imm, input [4:0] rd, input [1:0] q);
    return {f3, imm[5], rd, imm[4:0], q};
  endfunction
  function automatic logic [15:0] c_cj(input [2:0] f3, input int off);
    logic [11:0] i = off[11:0];
    return {f3, i[11], i[4], i[9:8], i[10], i[6], i[7], i[3:1], i[5], 2'b01};
  endfunction
  function automatic logic [15:0] c_cb(input [2:0] f3, input [2:0] rs, input int off);
    logic [8:0] i = off[8:0];
    return {f3, i[8], i[4:3], rs, i[7:6], i[2:1], i[5], 2'b01};
  endfunction
  function automatic logic [15:0] c_ca(input [1:0] f2, input [2:0] rd, rs2);
    return {3'b100, 1'b0, 2'b11, rd, f2, rs2, 2'b01};
  endfunction

  // ------------------------------------------------------------------ the program
  localparam [11:0] C_MSTATUS = 12'h300, C_MISA = 12'h301, C_MIE = 12'h304, C_MTVEC = 12'h305,
                    C_MSCRATCH = 12'h340, C_MEPC = 12'h341, C_MCAUSE = 12'h342, C_MTVAL = 12'h343,
                    C_MIP = 12'h344, C_MVENDORID = 12'hF11, C_MARCHID = 12'hF12, C_MIMPID = 12'hF13,
                    C_MHARTID = 12'hF14, C_MCONFIGPTR = 12'hF15, C_MSTATUSH = 12'h310;

  localparam HANDLER = 32'h40, MAIN = 32'h400;

  task automatic build_program();
    logic [31:0] irq_base, t;
    for (int i = 0; i < RAM_BYTES; i++) mem[i] = 8'h00;
    exp_sig.delete(); exp_trap.delete(); exp_msig.delete();
    // reset vector
    pc = 0; e32(J(MAIN, 0));
    // ---- trap handler at 0x40 (x28..x31 reserved)
    pc = HANDLER;
    e32(CSR(C_MCAUSE, 0, 2, 29));          // csrr x29, mcause
    e32(S(0, 29, 31, 2));                  // sw x29, 0(x31)
    e32(CSR(C_MEPC, 0, 2, 30));            // csrr x30, mepc
    e32(S(4, 30, 31, 2));                  // sw x30, 4(x31)
    e32(I(8, 31, 0, 31, OPI));             // addi x31, x31, 8
    e32(B(4*14, 29, 0, 3'd4));             // blt x29, x0, IRQ  (14 instructions ahead)
    e32(I(1, 0, 0, 28, OPI));              // li x28, 1
    e32(B(12, 29, 28, 3'd1));              // bne x29, x28, NOTFETCH
    e32(CSR(C_MEPC, 1, 1, 0));             // csrw mepc, ra   (fetch fault: return to ra)
    e32(32'h3020_0073);                    // mret
    // NOTFETCH:
    e32(I(0, 30, 5, 28, LD));              // lhu x28, 0(x30)
    e32(I(3, 28, 7, 28, OPI));             // andi x28, x28, 3
    e32(I(3, 0, 0, 29, OPI));              // li x29, 3
    e32(B(12, 28, 29, 3'd0));              // beq x28, x29, LEN4
    e32(I(2, 30, 0, 30, OPI));             // addi x30, x30, 2
    e32(J(8, 0));                          // j SETEPC
    e32(I(4, 30, 0, 30, OPI));             // LEN4: addi x30, x30, 4
    e32(CSR(C_MEPC, 30, 1, 0));            // SETEPC: csrw mepc, x30
    e32(32'h3020_0073);                    // mret
    // IRQ: (HANDLER + 5*4 + 13*4)
    if (pc != HANDLER + 4*18 + 4) $display("ERROR handler layout pc=%h", pc);
    e32({20'h80000, 5'd28, LUI_});         // lui x28, 0x80000
    e32(S(12'h10, 0, 28, 2));              // sw x0, 0x10(x28): clear all interrupt lines
    e32(I(12'h10, 28, 2, 0, LD));          // lw x0, 0x10(x28): wait for the store to land
    e32(32'h3020_0073);                    // mret

    // ---- main
    pc = MAIN;
    li(31, LOG); li(10, SIG); li(11, DATA); li(2, 32'h0000_E000);
    li(5, HANDLER); e32(CSR(C_MTVEC, 5, 1, 0));            // csrw mtvec, x5

    // ALU register-register and register-immediate
    begin
      logic [31:0] ops [8] = '{32'h0, 32'h1, 32'hFFFF_FFFF, 32'h8000_0000, 32'h7FFF_FFFF,
                               32'h1234_5678, 32'hF0F0_0F0F, 32'h0000_001F};
      for (int f3 = 0; f3 < 8; f3++)
        for (int i = 0; i < 8; i += 1) begin
          t_rr(7'h00, f3, ops[i], ops[(i + 3) % 8]);
          if (f3 == 0 || f3 == 5) t_rr(7'h20, f3, ops[i], ops[(i + 5) % 8]);
        end
      for (int f3 = 0; f3 < 8; f3++)
        if (f3 != 1 && f3 != 5) for (int i = 0; i < 8; i++) t_ri(f3, ops[i], 12'($urandom));
      for (int i = 0; i < 8; i++) begin
        t_ri(1, ops[i], 12'(i * 4 + 1)); t_ri(5, ops[i], 12'(i * 4 + 3)); t_ri(5, ops[i], 12'(31 - i), 1);
      end
      // branches
      for (int f3 = 0; f3 < 8; f3++) if (f3 != 2 && f3 != 3)
        for (int i = 0; i < 8; i++) begin t_br(f3, ops[i], ops[(i + 1) % 8]); t_br(f3, ops[i], ops[i]); end
    end
    // lui / auipc / jal / jalr
    e32({20'hABCDE, 5'd7, LUI_}); sig(7, 32'hABCDE000);
    t = pc; e32({20'h00012, 5'd7, AUIPC_}); sig(7, t + 32'h12000);
    t = pc; e32(J(8, 1)); e32(I(1, 0, 0, 0, OPI)); sig(1, t + 4);           // jal ra, +8
    t = pc; e32({20'h0, 5'd5, AUIPC_}); e32(I(12'd17, 5, 0, 1, JALR_));     // jalr ra, 17(x5): bit0 cleared
    e32(I(1, 0, 0, 0, OPI)); e32(I(1, 0, 0, 0, OPI)); sig(1, t + 8);
    e32(J(8, 0)); e32(32'hFFFF_FFFF);                                       // forward jump over garbage

    // loads and stores, every size and offset
    li(5, 32'h8899_AABB);
    e32(S(0, 5, 11, 2)); e32(S(4, 5, 11, 2));
    li(5, 32'h11); e32(S(1, 5, 11, 0));        // sb at +1
    li(5, 32'hC3D4); e32(S(6, 5, 11, 1));      // sh at +6
    for (int o = 0; o < 8; o++) begin
      logic [31:0] w0 = 32'h8899_11BB, w1 = 32'hC3D4_AABB;
      logic [63:0] dw = {w1, w0};
      logic [7:0] by = dw[8*o +: 8];
      e32(I(o, 11, 0, 7, LD)); sig(7, {{24{by[7]}}, by});         // lb
      e32(I(o, 11, 4, 7, LD)); sig(7, {24'h0, by});               // lbu
      if (o % 2 == 0) begin
        logic [15:0] hw = dw[8*o +: 16];
        e32(I(o, 11, 1, 7, LD)); sig(7, {{16{hw[15]}}, hw});      // lh
        e32(I(o, 11, 5, 7, LD)); sig(7, {16'h0, hw});             // lhu
      end
      if (o % 4 == 0) begin e32(I(o, 11, 2, 7, LD)); sig(7, dw[8*o +: 32]); end
    end
    // negative offsets and store-to-load forwarding
    li(12, DATA + 32'h100);
    li(5, 32'h0BAD_F00D); e32(S(12'hFFC, 5, 12, 2)); e32(I(12'hFFC, 12, 2, 7, LD)); sig(7, 32'h0BAD_F00D);
    e32(S(0, 5, 12, 2)); e32(I(0, 12, 2, 6, LD)); e32(R(0, 6, 6, 0, 7, OP)); sig(7, 32'h175B_E01A);

    // atomics
    li(12, DATA + 32'h200);
    li(5, 32'd100); e32(S(0, 5, 12, 2));
    e32({5'b00010, 2'b00, 5'd0, 5'd12, 3'd2, 5'd7, AMO});            // lr.w x7, (x12)
    li(6, 32'd555);
    e32({5'b00011, 2'b00, 5'd6, 5'd12, 3'd2, 5'd8, AMO});            // sc.w x8, x6, (x12)
    sig(7, 100); sig(8, 0);
    e32({5'b00011, 2'b00, 5'd6, 5'd12, 3'd2, 5'd8, AMO});            // sc.w again: no reservation
    sig(8, 1);
    e32({5'b00010, 2'b00, 5'd0, 5'd12, 3'd2, 5'd7, AMO});            // lr.w
    li(5, 32'd7); e32(S(0, 5, 12, 2));                                // plain store breaks the monitor
    e32({5'b00011, 2'b00, 5'd6, 5'd12, 3'd2, 5'd8, AMO});            // sc.w fails
    sig(8, 1);
    e32(I(0, 12, 2, 7, LD)); sig(7, 7);
    // CSRs
    e32(CSR(C_MISA, 0, 2, 7)); sig(7, 32'h4000_1105);
    e32(CSR(C_MVENDORID, 0, 2, 7)); sig(7, 0);
    e32(CSR(C_MARCHID, 0, 2, 7)); sig(7, 27);
    e32(CSR(C_MIMPID, 0, 2, 7)); sig(7, 0);
    e32(CSR(C_MHARTID, 0, 2, 7)); sig(7, 0);
    e32(CSR(C_MCONFIGPTR, 0, 2, 7)); sig(7, 0);
    e32(CSR(C_MSTATUSH, 0, 2, 7)); sig(7, 0);
    li(5, 32'hA5A5_5A5A);
    e32(CSR(C_MSCRATCH, 5, 1, 7));                 // csrrw
    e32(CSR(C_MSCRATCH, 0, 2, 7)); sig(7, 32'hA5A5_5A5A);
    li(5, 32'h0000_00FF); e32(CSR(C_MSCRATCH, 5, 3, 7)); sig(7, 32'hA5A5_5A5A);   // csrrc
    li(5, 32'h0F00_0000); e32(CSR(C_MSCRATCH, 5, 2, 7)); sig(7, 32'hA5A5_5A00);   // csrrs
    e32(CSR(C_MSCRATCH, 5'd21, 5, 7)); sig(7, 32'hAFA5_5A00);                     // csrrwi 21
    e32(CSR(C_MSCRATCH, 5'd10, 6, 7)); sig(7, 21);                                // csrrsi 10
    e32(CSR(C_MSCRATCH, 5'd1, 7, 7)); sig(7, 31);                                 // csrrci 1
    e32(CSR(C_MSCRATCH, 0, 2, 7)); sig(7, 30);
    e32(CSR(C_MSTATUS, 0, 2, 7)); sig(7, 32'h0000_1800);                          // MPP=M
    li(5, 32'hFFFF_FFFF); e32(CSR(C_MIE, 5, 1, 0)); e32(CSR(C_MIE, 0, 2, 7)); sig(7, 32'h0000_0888);
    e32(CSR(C_MIE, 0, 1, 0));
    e32(CSR(C_MTVAL, 5, 1, 0)); e32(CSR(C_MTVAL, 0, 2, 7)); sig(7, 0);
    e32(CSR(C_MIP, 0, 2, 7)); sig(7, 0);
    li(5, 32'h0000_1234); e32(CSR(C_MEPC, 5, 1, 0)); e32(CSR(C_MEPC, 0, 2, 7)); sig(7, 32'h1234);
    li(5, 32'h0000_0041); e32(CSR(C_MTVEC, 5, 1, 0)); e32(CSR(C_MTVEC, 0, 2, 7)); sig(7, 32'h41);
    li(5, HANDLER); e32(CSR(C_MTVEC, 5, 1, 0));

    // compressed instructions
    e16(c_ci(3'b010, 6'd21, 5'd8, 2'b01));               // c.li s0, 21
    e16(c_ci(3'b000, 6'h3F, 5'd8, 2'b01));               // c.addi s0, -1
    e16({4'b1000, 5'd9, 5'd8, 2'b10});                   // c.mv s1, s0
    e16({4'b1001, 5'd9, 5'd8, 2'b10});                   // c.add s1, s0     -> 40
    sig(9, 40);
    e16(c_ci(3'b011, 6'h01, 5'd14, 2'b01));              // c.lui a4, 1       -> 0x1000
    sig(14, 32'h1000);
    e16(c_ci(3'b010, 6'h2A, 5'd12, 2'b01));              // c.li a2, -22
    e16(c_ci(3'b010, 6'd13, 5'd13, 2'b01));              // c.li a3, 13
    e16(c_ca(2'b00, 3'd4, 3'd5)); sig(12, 32'hFFFF_FFDD);// c.sub a2, a3      -> -35
    e16(c_ca(2'b01, 3'd4, 3'd5)); sig(12, 32'hFFFF_FFDD ^ 13);   // c.xor
    e16(c_ca(2'b10, 3'd4, 3'd5)); sig(12, (32'hFFFF_FFDD ^ 13) | 13);  // c.or
    e16(c_ca(2'b11, 3'd4, 3'd5)); sig(12, ((32'hFFFF_FFDD ^ 13) | 13) & 13);  // c.and
    e16({3'b100, 1'b1, 2'b10, 3'd4, 5'h1C, 2'b01});       // c.andi a2, -4
    sig(12, (((32'hFFFF_FFDD ^ 13) | 13) & 13) & 32'hFFFF_FFFC);
    e16(c_ci(3'b010, 6'h30, 5'd13, 2'b01));              // c.li a3, -16
    e16({3'b100, 1'b0, 2'b01, 3'd5, 5'd2, 2'b01});        // c.srai a3, 2     -> -4
    sig(13, 32'hFFFF_FFFC);
    e16({3'b100, 1'b0, 2'b00, 3'd5, 5'd28, 2'b01});       // c.srli a3, 28    -> 0xF
    sig(13, 32'hF);
    e16(c_ci(3'b000, 6'd4, 5'd13, 2'b10));               // c.slli a3, 4     -> 0xF0
    sig(13, 32'hF0);
    e16({3'b000, 8'b01_0000_0_0, 3'd7, 2'b00});           // c.addi4spn a5, sp, 16 (nzuimm[4]=1)
    sig(15, 32'h0000_E010);
    e16({3'b011, 1'b1, 5'd2, 5'b1_0_00_0, 2'b01});        // c.addi16sp sp, -512 (nzimm[9]=1, [4]=1 -> -512+16?)
    sig(2, 32'h0000_E000 - 512 + 16);
    e16({3'b011, 1'b0, 5'd2, 5'b1_0_00_0, 2'b01});        // c.addi16sp sp, +16 ... restore partly
    sig(2, 32'h0000_E000 - 512 + 32);
    li(2, 32'h0000_E000);
    li(8, DATA + 32'h300); li(9, 32'h1357_9BDF);
    e16({3'b110, 3'b001, 3'd0, 2'b10, 3'd1, 2'b00});      // c.sw s1, 12(s0)   uimm[5:3]=1, [2]=1 -> 12
    e16({3'b010, 3'b001, 3'd0, 2'b10, 3'd5, 2'b00});      // c.lw a3, 12(s0)
    sig(13, 32'h1357_9BDF);
    e16({3'b110, 6'b0001_00, 5'd9, 2'b10});               // c.swsp s1, 4(sp)  uimm[5:2]=1
    e16({3'b010, 1'b0, 5'd14, 5'b001_00, 2'b10});         // c.lwsp a4, 4(sp)
    sig(14, 32'h1357_9BDF);
    // c.beqz / c.bnez taken and not taken
    e16(c_ci(3'b010, 6'd0, 5'd8, 2'b01));                // c.li s0, 0
    e16(c_ci(3'b010, 6'd0, 5'd9, 2'b01));                // c.li s1, 0
    e16(c_cb(3'b110, 3'd0, 4));                          // c.beqz s0, +4 (taken)
    e16(c_ci(3'b000, 6'd1, 5'd9, 2'b01));                // c.addi s1, 1 (skipped)
    e16(c_cb(3'b111, 3'd0, 4));                          // c.bnez s0, +4 (not taken)
    e16(c_ci(3'b000, 6'd2, 5'd9, 2'b01));                // c.addi s1, 2
    sig(9, 2);
    e16(c_cj(3'b101, 4));                                // c.j +4
    e16(16'h0000);                                       // illegal (skipped)
    t = pc; e16(c_cj(3'b001, 4)); e16(16'h0001);         // c.jal +4 (ra = t+2); c.nop skipped
    sig(1, t + 2);
    t = pc; e32({20'h0, 5'd5, AUIPC_}); e32(I(12, 5, 0, 5, OPI));   // x5 = t + 12
    e16({4'b1000, 5'd5, 5'd0, 2'b10});                   // c.jr x5
    e16(16'h0000);
    t = pc; e32({20'h0, 5'd5, AUIPC_}); e32(I(12, 5, 0, 5, OPI));
    e16({4'b1001, 5'd5, 5'd0, 2'b10});                   // c.jalr x5 (ra = pc+2)
    e16(16'h0000);
    sig(1, t + 10);
    // 32-bit instruction straddling a word boundary
    if (pc[1:0] == 0) e16(16'h0001);
    li(7, 32'h7654_3210); sig(7, 32'h7654_3210);

    // ---- exceptions (the handler logs {mcause, mepc} and skips the instruction)
    t = pc; e32(32'h0000_0073); expect_trap(11, t);                 // ecall
    t = pc; e32(32'h0010_0073); expect_trap(3, t);                  // ebreak
    t = pc; e16(16'h9002); expect_trap(3, t);                       // c.ebreak
    t = pc; e32(32'hFFFF_FFFF); expect_trap(2, t);                  // illegal
    t = pc; e16(16'h0000); expect_trap(2, t);                       // illegal compressed
    t = pc; e32(CSR(12'hB00, 0, 2, 7)); expect_trap(2, t);          // mcycle absent (CSR_COUNTER=0)
    t = pc; e32(CSR(C_MVENDORID, 5, 1, 0)); expect_trap(2, t);      // write to read-only CSR
    t = pc; e32(32'h0000_100F); expect_trap(2, t);                  // fence.i absent
    e32(32'h0FF0_000F);                                             // fence: a no-op
    t = pc; e32(32'h1020_0073); expect_trap(2, t);                  // sret: no S-mode
    t = pc; e32(I(1, 11, 2, 7, LD)); expect_trap(4, t);             // misaligned lw
    t = pc; e32(I(3, 11, 1, 7, LD)); expect_trap(4, t);             // misaligned lh
    t = pc; e32(S(2, 7, 11, 2)); expect_trap(6, t);                 // misaligned sw
    t = pc; e32(S(1, 7, 11, 1)); expect_trap(6, t);                 // misaligned sh
    li(12, DATA + 2);
    t = pc; e32({5'b00001, 2'b00, 5'd6, 5'd12, 3'd2, 5'd7, AMO}); expect_trap(6, t);  // misaligned amo
    t = pc; e32({5'b00010, 2'b00, 5'd0, 5'd12, 3'd2, 5'd7, AMO}); expect_trap(4, t);  // misaligned lr
    li(12, ERRBASE + 32'h40);
    t = pc; e32(I(0, 12, 2, 7, LD)); expect_trap(5, t);             // load bus error
    t = pc; e32(I(1, 12, 4, 7, LD)); expect_trap(5, t);             // lbu bus error
    t = pc; e32(S(0, 7, 12, 2)); expect_trap(7, t);                 // store bus error
    t = pc; e32(S(0, 7, 12, 0)); e32(S(4, 7, 12, 0));               // two stores back to back
    expect_trap(7, t); expect_trap(7, t + 4);
    t = pc; e32({5'b00001, 2'b00, 5'd6, 5'd12, 3'd2, 5'd7, AMO}); expect_trap(7, t);  // amo bus error
    li(12, MMIO + 32'h40);
    t = pc; e32({5'b00000, 2'b00, 5'd6, 5'd12, 3'd2, 5'd7, AMO}); expect_trap(7, t);  // amo, no exclusive
    t = pc; e32({5'b00010, 2'b00, 5'd0, 5'd12, 3'd2, 5'd7, AMO});   // lr to MMIO: no trap, fails
    e32({5'b00011, 2'b00, 5'd6, 5'd12, 3'd2, 5'd8, AMO}); sig(8, 1);
    li(12, ERRBASE + 32'h100);
    t = pc; e32(I(0, 12, 0, 1, JALR_)); expect_trap(1, ERRBASE + 32'h100);   // fetch bus error
    li(12, 32'h0001_4000);   // jump into a region of illegal zeros (16-bit 0x0000)
    e32(I(0, 12, 0, 1, JALR_)); expect_trap(2, 32'h0001_4000);
    // (the handler skips 2 bytes; the next halfword is a c.jr ra placed below)
    sig(7, 32'h7654_3210);

    // ---- interrupts
    li(5, 32'h0000_0888); e32(CSR(C_MIE, 5, 1, 0));                 // MEIE|MTIE|MSIE
    e32(CSR(C_MSTATUS, 5'd8, 6, 0));                                 // csrsi mstatus, MIE
    li(13, MMIO); li(5, 1);
    e32(S(0, 5, 13, 2)); expect_trap(32'h8000_0007, 0, 0);          // timer
    for (int k = 0; k < 6; k++) e32(I(0, 0, 0, 0, OPI));
    e32(S(4, 5, 13, 2)); expect_trap(32'h8000_0003, 0, 0);          // software
    for (int k = 0; k < 6; k++) e32(I(0, 0, 0, 0, OPI));
    e32(S(8, 5, 13, 2)); expect_trap(32'h8000_000B, 0, 0);          // external
    for (int k = 0; k < 6; k++) e32(I(0, 0, 0, 0, OPI));
    // all three at once: priority external > software > timer
    e32(CSR(C_MSTATUS, 5'd8, 7, 0));                                 // csrci mstatus, MIE
    e32(S(0, 5, 13, 2)); e32(S(4, 5, 13, 2)); e32(S(8, 5, 13, 2));
    e32(I(0, 13, 2, 0, LD));
    e32(CSR(C_MIP, 0, 2, 7)); sig(7, 32'h0000_0888);
    e32(CSR(C_MSTATUS, 5'd8, 6, 0)); expect_trap(32'h8000_000B, 0, 0);
    for (int k = 0; k < 6; k++) e32(I(0, 0, 0, 0, OPI));
    // masked in mie: pending but not taken
    e32(CSR(C_MIE, 0, 1, 0));
    e32(S(4, 5, 13, 2)); e32(I(0, 13, 2, 0, LD));
    e32(CSR(C_MIP, 0, 2, 7)); sig(7, 32'h0000_0008);
    e32(S(12'h10, 0, 13, 2)); e32(I(0, 13, 2, 0, LD));
    // wfi woken by the timer (interrupt taken)
    li(5, 32'h0000_0080); e32(CSR(C_MIE, 5, 1, 0));
    li(5, 40); e32(S(12'h14, 5, 13, 2));
    e32(32'h1050_0073); expect_trap(32'h8000_0007, 0, 0);            // wfi
    // wfi with MIE clear: wakes up, no trap
    e32(CSR(C_MSTATUS, 5'd8, 7, 0));
    li(5, 30); e32(S(12'h14, 5, 13, 2));
    e32(32'h1050_0073);
    e32(CSR(C_MIP, 0, 2, 7)); sig(7, 32'h0000_0080);
    e32(S(12'h10, 0, 13, 2)); e32(I(0, 13, 2, 0, LD));
    e32(CSR(C_MIE, 0, 1, 0));
    // an interrupt during a long division
    li(5, 32'h0000_0800); e32(CSR(C_MIE, 5, 1, 0));
    e32(CSR(C_MSTATUS, 5'd8, 6, 0));
    li(5, 1); e32(S(8, 5, 13, 2)); expect_trap(32'h8000_000B, 0, 0);
    for (int k = 0; k < 8; k++) e32(I(k, 0, 0, 0, OPI));
    e32(CSR(C_MSTATUS, 5'd8, 7, 0));
    e32(CSR(C_MIE, 0, 1, 0));
    // mstatus.MPIE / MPP after a trap
    e32(32'h0000_0073); expect_trap(11, pc - 4);
    e32(CSR(C_MSTATUS, 0, 2, 7)); sig(7, 32'h0000_1880);           // MPP=M, MPIE=1 after mret
    e32(CSR(C_MCAUSE, 0, 2, 7)); sig(7, 11);

    // ---- M extension last (div/rem corner cases included); results at fixed
    //      offsets from x9 so that a lost instruction only spoils its own slot
    li(9, MSIG);
    begin
      logic [31:0] ops [8] = '{32'h0, 32'h1, 32'hFFFF_FFFF, 32'h8000_0000, 32'h7FFF_FFFF,
                               32'h1234_5678, 32'hF0F0_0F0F, 32'h0000_001F};
      for (int f3 = 0; f3 < 8; f3++) begin
        for (int i = 0; i < 8; i++) t_rrm(7'h01, f3, ops[i], ops[(i + 1) % 8]);
        t_rrm(7'h01, f3, 32'h8000_0000, 32'hFFFF_FFFF);
        t_rrm(7'h01, f3, 32'hDEAD_BEEF, 32'h0);
        t_rrm(7'h01, f3, 32'hFFFF_FFF9, 32'h0000_0003);
        t_rrm(7'h01, f3, 32'h0000_0007, 32'hFFFF_FFFD);
      end
      // back-to-back dependent muldiv
      li(5, 32'd1234567); li(6, 32'd89);
      e32(R(7'h01, 6, 5, 3'd0, 7, OP));   // mul x7 = x5*x6
      e32(R(7'h01, 6, 7, 3'd4, 7, OP));   // div x7 = x7/x6
      e32(R(7'h01, 6, 7, 3'd6, 8, OP));   // rem x8 = x7%x6
      sigm(7, 32'd1234567); sigm(8, 32'd1234567 % 89);
    end
    li(12, DATA + 32'h200);
    begin
      logic [4:0] f5 [9] = '{5'b00001, 5'b00000, 5'b00100, 5'b01100, 5'b01000, 5'b10000, 5'b10100, 5'b11000, 5'b11100};
      logic [31:0] m = 32'h8000_0005, v = 32'h0000_0F0F, n;
      li(5, m); e32(S(0, 5, 12, 2));
      for (int k = 0; k < 9; k++) begin
        v = (k % 2) ? 32'hFFFF_FFF0 : 32'h0000_0F0F + k;
        li(6, v);
        e32({f5[k], 2'b11, 5'd6, 5'd12, 3'd2, 5'd7, AMO});            // amo x7, x6, (x12) aq rl
        sigm(7, m);
        case (k)
          0: n = v; 1: n = m + v; 2: n = m ^ v; 3: n = m & v; 4: n = m | v;
          5: n = ($signed(m) < $signed(v)) ? m : v; 6: n = ($signed(m) > $signed(v)) ? m : v;
          7: n = (m < v) ? m : v; 8: n = (m > v) ? m : v;
        endcase
        m = n;
      end
      e32(I(0, 12, 2, 7, LD)); sigm(7, m);
    end

    // ---- end of test
    li(5, 32'h600D); e32(S(12, 5, 13, 2));
    e32(J(0, 0));                                                   // spin

    // island of zeros at 0x3000 with a return stub at 0x3002
    {mem[32'h14003], mem[32'h14002]} = 16'h8082;                    // c.jr ra
    if (pc >= DATA) $display("ERROR program too long: %h", pc);
  endtask

  // ------------------------------------------------------------------ SBA (debugger bus)
  task automatic sba(input logic [31:0] a, input bit wr, input logic [1:0] sz, input logic [31:0] wd,
                     output logic [31:0] rd, output bit err);
    @(posedge clk); #1;
    sb_addr = a; sb_write = wr; sb_size = sz; sb_wdata = wd; sb_vld = 1;
    do @(posedge clk); while (!(sb_rdy || sb_err));
    // rdy/err are data-phase signals: wait for the end of the data phase
    while (!sb_rdy) @(posedge clk);
    rd = sb_rdata; err = sb_err;
    #1 sb_vld = 0;
    n_sba++;
  endtask

  // ------------------------------------------------------------------ run and check
  task automatic run_once(input int ws, input bit with_sba);
    logic [31:0] rd; bit err;
    int guard;
    build_program();
    ws_pct = ws;
    done = 0; timer_irq = 0; soft_irq = 0; irq_ext = 0; wake_cnt = -1;
    rst_n = 0; repeat (5) @(posedge clk); #1 rst_n = 1;
    fork
      begin
        guard = 0;
        while (!done && guard < 400000) begin @(posedge clk); guard++; end
      end
      if (with_sba) begin
        repeat (200) @(posedge clk);
        for (int k = 0; k < 20; k++) begin
          logic [31:0] a = 32'h0001_C000 + 4 * k, v = $urandom;
          sba(a, 1, 2, v, rd, err); check(err, 0, "sba write ok");
          sba(a, 0, 2, 0, rd, err); check(rd, v, "sba read back");
          sba(a + (k % 4), 1, 0, 32'hA5 << (8 * (k % 4)), rd, err);
          sba(a & ~3, 0, 2, 0, rd, err);
          check(rd[8*(k%4) +: 8], 8'hA5, "sba byte write");
          sba(a + 2 * (k % 2), 1, 1, 32'hBEEF << (16 * (k % 2)), rd, err);
          sba(ERRBASE + 4 * k, k % 2, 2, 0, rd, err); check(err, 1, "sba error response");
          repeat ($urandom_range(0, 20)) @(posedge clk);
        end
      end
    join
    check(done, 1, "program finished");
    check(done_code, 32'h600D, "done code");
    // signature
    for (int i = 0; i < exp_sig.size(); i++)
      check(rd_word(SIG + 4 * i), exp_sig[i], $sformatf("sig[%0d]", i));
    for (int i = 0; i < exp_msig.size(); i++)
      check(rd_word(MSIG + 4 * i), exp_msig[i], $sformatf("msig[%0d]", i));
    // trap log
    for (int i = 0; i < exp_trap.size(); i++) begin
      check(rd_word(LOG + 8 * i), exp_trap[i].cause, $sformatf("trap[%0d] mcause", i));
      if (exp_trap[i].chk_epc) check(rd_word(LOG + 8 * i + 4), exp_trap[i].epc, $sformatf("trap[%0d] mepc", i));
    end
    check(rd_word(LOG + 8 * exp_trap.size()), 0, "no extra traps");
    $display("run ws=%0d sba=%0d: %0d sig, %0d traps, waits=%0d errs=%0d excl_fail=%0d sba=%0d",
             ws, with_sba, exp_sig.size(), exp_trap.size(), n_waits, n_err, n_excl_fail, n_sba);
  endtask

  initial begin
    run_once(0, 0);
    run_once(35, 0);
    run_once(20, 1);
    // reset while running, then a final clean run
    build_program(); ws_pct = 10; rst_n = 0; repeat (3) @(posedge clk); #1 rst_n = 1;
    repeat (3000) @(posedge clk);
    #3 rst_n = 0;
    repeat (2) @(posedge clk);
    run_once(0, 0);
    $display("SUMMARY hazard3_cpu_1port: %0d checks, %0d mismatches", nchecks, errors);
    if (errors == 0) $display("PASS"); else $display("FAIL");
    $finish;
  end

  initial begin
    #50ms;
    $display("TIMEOUT: %0d checks, %0d mismatches", nchecks, errors);
    $finish;
  end
endmodule
`default_nettype wire
