`timescale 1ns/1ps
`default_nettype none
// Hand-written reference testbench for aignacio/axi_dma, top tb_axi_dma (the flat-port wrapper that
// the project's own cocotb regression uses as DUT, see tox.ini). Defaults: 32-bit AXI, 2 descriptors,
// max 256-beat bursts, unaligned support on, 8 outstanding reads/writes, 16-entry data FIFO.
// CSRs (csr_out/csr_dma.md): 0x00 control {max_burst[9:2], abort[1], go[0]}, 0x08 status
// {error[17], done[16], version[15:0]=0xCAFE}, 0x10 error_addr, 0x18 error_stats {trig[2], src[1], type[0]},
// 0x20/0x28 src, 0x30/0x38 dst, 0x40/0x48 num_bytes, 0x50/0x58 cfg {enable[2], read_mode[1], write_mode[0]}.
module tb;
  localparam [7:0] CTRL = 8'h00, STAT = 8'h08, EADDR = 8'h10, ESTAT = 8'h18;
  localparam [1:0] B_FIXED = 2'd0, B_INCR = 2'd1;
  localparam [1:0] R_OKAY = 2'd0, R_SLVERR = 2'd2, R_DECERR = 2'd3;

  reg clk = 0, rst = 1;
  always #5 clk = ~clk;

  // AXI-Lite CSR port
  reg  [31:0] s_awaddr = 0, s_wdata = 0, s_araddr = 0;
  reg  [2:0]  s_awprot = 0, s_arprot = 0;
  reg         s_awvalid = 0, s_wlast = 0, s_wvalid = 0, s_bready = 0, s_arvalid = 0, s_rready = 0;
  reg  [3:0]  s_wstrb = 0;
  wire        s_awready, s_wready, s_bvalid, s_arready, s_rlast, s_rvalid;
  wire [1:0]  s_bresp, s_rresp;
  wire [31:0] s_rdata;
  // AXI4 master port
  wire [7:0]  m_awid, m_arid, m_awlen, m_arlen;
  wire [31:0] m_awaddr, m_araddr, m_wdata;
  wire [2:0]  m_awsize, m_arsize, m_awprot, m_arprot;
  wire [1:0]  m_awburst, m_arburst;
  wire        m_awlock, m_arlock, m_awvalid, m_wlast, m_wvalid, m_bready, m_arvalid, m_rready;
  wire [3:0]  m_awcache, m_arcache, m_awqos, m_arqos, m_awregion, m_arregion, m_wstrb;
  wire        m_awuser, m_aruser, m_wuser;
  reg         m_awready = 0, m_wready = 0, m_bvalid = 0, m_arready = 0, m_rvalid = 0, m_rlast = 0;
  reg  [7:0]  m_bid = 0, m_rid = 0;
  reg  [1:0]  m_bresp = 0, m_rresp = 0;
  reg         m_buser = 0, m_ruser = 0;
  reg  [31:0] m_rdata = 0;
  wire        dma_done_o, dma_error_o;

  tb_axi_dma dut (
    .clk(clk), .rst(rst), .dma_done_o(dma_done_o), .dma_error_o(dma_error_o),
    .dma_s_awaddr(s_awaddr), .dma_s_awprot(s_awprot), .dma_s_awvalid(s_awvalid),
    .dma_s_wdata(s_wdata), .dma_s_wstrb(s_wstrb), .dma_s_wlast(s_wlast), .dma_s_wvalid(s_wvalid),
    .dma_s_bready(s_bready), .dma_s_araddr(s_araddr), .dma_s_arprot(s_arprot), .dma_s_arvalid(s_arvalid),
    .dma_s_rready(s_rready), .dma_s_awready(s_awready), .dma_s_wready(s_wready), .dma_s_bresp(s_bresp),
    .dma_s_bvalid(s_bvalid), .dma_s_arready(s_arready), .dma_s_rdata(s_rdata), .dma_s_rresp(s_rresp),
    .dma_s_rlast(s_rlast), .dma_s_rvalid(s_rvalid),
    .dma_m_awid(m_awid), .dma_m_awaddr(m_awaddr), .dma_m_awlen(m_awlen), .dma_m_awsize(m_awsize),
    .dma_m_awburst(m_awburst), .dma_m_awlock(m_awlock), .dma_m_awcache(m_awcache), .dma_m_awprot(m_awprot),
    .dma_m_awqos(m_awqos), .dma_m_awregion(m_awregion), .dma_m_awuser(m_awuser), .dma_m_awvalid(m_awvalid),
    .dma_m_wdata(m_wdata), .dma_m_wstrb(m_wstrb), .dma_m_wlast(m_wlast), .dma_m_wuser(m_wuser),
    .dma_m_wvalid(m_wvalid), .dma_m_bready(m_bready), .dma_m_arid(m_arid), .dma_m_araddr(m_araddr),
    .dma_m_arlen(m_arlen), .dma_m_arsize(m_arsize), .dma_m_arburst(m_arburst), .dma_m_arlock(m_arlock),
    .dma_m_arcache(m_arcache), .dma_m_arprot(m_arprot), .dma_m_arqos(m_arqos), .dma_m_arregion(m_arregion),
    .dma_m_aruser(m_aruser), .dma_m_arvalid(m_arvalid), .dma_m_rready(m_rready),
    .dma_m_awready(m_awready), .dma_m_wready(m_wready), .dma_m_bid(m_bid), .dma_m_bresp(m_bresp),
    .dma_m_buser(m_buser), .dma_m_bvalid(m_bvalid), .dma_m_arready(m_arready), .dma_m_rid(m_rid),
    .dma_m_rdata(m_rdata), .dma_m_rresp(m_rresp), .dma_m_rlast(m_rlast), .dma_m_ruser(m_ruser),
    .dma_m_rvalid(m_rvalid)
  );

  integer errors = 0, nchecks = 0;
  task automatic check(input [31:0] got, input [31:0] exp, input string what);
    nchecks++;
    if (got !== exp) begin
      errors++;
      $display("ERROR: %s: got %08x exp %08x @%0t", what, got, exp, $time);
    end
  endtask
  task automatic clks(input integer n); repeat (n) @(posedge clk); endtask

  // ------------------------------------------------------------------
  // AXI-Lite CSR master (drive at negedge, handshake at posedge)
  // ------------------------------------------------------------------
  task automatic csr_wr(input [7:0] a, input [31:0] d);
    bit aw_hs, w_hs; integer g;
    @(negedge clk);
    s_awaddr = {24'h0, a}; s_awprot = 3'($urandom); s_awvalid = 1;
    s_wdata = d; s_wstrb = 4'hf; s_wvalid = 1; s_wlast = 1; s_bready = 0;
    g = 0;
    while ((s_awvalid || s_wvalid) && g < 1000) begin
      aw_hs = s_awvalid && s_awready; w_hs = s_wvalid && s_wready;
      @(posedge clk); #1;
      if (aw_hs) s_awvalid = 0;
      if (w_hs) s_wvalid = 0;
      @(negedge clk); g++;
    end
    s_bready = 1;
    while (!s_bvalid && g < 2000) begin @(negedge clk); g++; end
    check({30'h0, s_bresp}, 0, "CSR write BRESP");
    @(posedge clk); #1 s_bready = 0; s_wlast = 0;
  endtask

  task automatic csr_rd(input [7:0] a, output [31:0] d);
    integer g;
    @(negedge clk);
    s_araddr = {24'h0, a}; s_arprot = 3'($urandom); s_arvalid = 1; s_rready = 0;
    g = 0;
    while (!s_arready && g < 1000) begin @(negedge clk); g++; end
    @(posedge clk); #1 s_arvalid = 0;
    @(negedge clk); s_rready = 1;
    while (!s_rvalid && g < 2000) begin @(negedge clk); g++; end
    d = s_rdata;
    check({30'h0, s_rresp}, 0, "CSR read RRESP");
    @(posedge clk); #1 s_rready = 0;
  endtask

  task automatic csr_chk(input [7:0] a, input [31:0] exp, input string what);
    reg [31:0] d; csr_rd(a, d); check(d, exp, what);
  endtask

  // ------------------------------------------------------------------
  // AXI4 slave memory: queued AR/AW (up to many outstanding), in-order R/B, random ready/valid,
  // error regions: 0xE0000000.. -> SLVERR, 0xD0000000.. -> DECERR
  // ------------------------------------------------------------------
  logic [31:0] mem [logic [31:0]];
  function automatic [31:0] dflt(input [31:0] wa); dflt = {wa[15:0] ^ 16'h9e37, ~wa[15:0]}; endfunction
  function automatic [31:0] rdw(input [31:0] wa); rdw = mem.exists(wa) ? mem[wa] : dflt(wa); endfunction
  function automatic [1:0] resp_of(input [31:0] a);
    resp_of = (a[31:28] == 4'he) ? R_SLVERR : (a[31:28] == 4'hd) ? R_DECERR : R_OKAY;
  endfunction

  typedef struct { logic [31:0] addr; logic [7:0] len; logic [1:0] burst; } req_t;
  typedef struct { logic [31:0] data; logic [3:0] strb; logic last; } wbeat_t;
  req_t   ar_q[$], aw_q[$];
  wbeat_t w_q[$];
  logic [1:0] b_q[$];
  integer r_beat = 0, w_beat = 0;
  integer p_ar = 100, p_r = 100, p_aw = 100, p_w = 100, p_b = 100;   // % chance per cycle
  integer max_rd_out = 0, max_wr_out = 0, n_ar = 0, n_aw = 0, n_rbeats = 0, n_wbeats = 0, prot_err = 0;
  reg [7:0] exp_maxb = 8'hff;
  integer max_alen_seen = 0;

  task automatic set_ready(input integer p);
    p_ar = p; p_r = p; p_aw = p; p_w = p; p_b = p;
  endtask

  task automatic chk_req(input string ch, input [31:0] a, input [7:0] len, input [1:0] burst, input [2:0] size);
    if (size !== 3'd2) begin prot_err++; $display("ERROR: %s size %0d", ch, size); end
    if (burst == 2'd2 || burst == 2'd3) begin prot_err++; $display("ERROR: %s burst %0d", ch, burst); end
    if (a[1:0] !== 2'b00) begin prot_err++; $display("ERROR: %s unaligned addr %08x", ch, a); end
    if (burst == B_INCR && ({20'h0, a[11:0]} + 4 * (len + 1)) > 32'h1000) begin
      prot_err++; $display("ERROR: %s burst crosses 4KB: addr %08x len %0d", ch, a, len);
    end
    if (burst == B_FIXED && len > 15) begin prot_err++; $display("ERROR: %s FIXED burst len %0d > 15", ch, len); end
    if (len > exp_maxb) begin prot_err++; $display("ERROR: %s len %0d > max_burst %0d", ch, len, exp_maxb); end
    if (len > max_alen_seen) max_alen_seen = len;
  endtask

  // stability of payload while valid && !ready
  reg        ar_wait = 0, aw_wait = 0, w_wait = 0;
  reg [31:0] ar_pa, aw_pa, w_pd;
  reg [7:0]  ar_pl, aw_pl;

  always @(posedge clk) begin
    if (rst) begin
      ar_q.delete(); aw_q.delete(); w_q.delete(); b_q.delete(); r_beat = 0; w_beat = 0;
      m_arready <= 0; m_awready <= 0; m_wready <= 0; m_rvalid <= 0; m_bvalid <= 0; m_rlast <= 0;
      ar_wait <= 0; aw_wait <= 0; w_wait <= 0;
    end else begin
      if (ar_wait && (!m_arvalid || m_araddr !== ar_pa || m_arlen !== ar_pl)) begin prot_err++; $display("ERROR: AR changed before ARREADY @%0t", $time); end
      if (aw_wait && (!m_awvalid || m_awaddr !== aw_pa || m_awlen !== aw_pl)) begin prot_err++; $display("ERROR: AW changed before AWREADY @%0t", $time); end
      if (w_wait && (!m_wvalid || m_wdata !== w_pd)) begin prot_err++; $display("ERROR: W changed before WREADY @%0t", $time); end
      ar_wait <= m_arvalid && !m_arready; ar_pa <= m_araddr; ar_pl <= m_arlen;
      aw_wait <= m_awvalid && !m_awready; aw_pa <= m_awaddr; aw_pl <= m_awlen;
      w_wait  <= m_wvalid && !m_wready;  w_pd <= m_wdata;
      // ---- AR
      if (m_arvalid && m_arready) begin
        req_t r; r.addr = m_araddr; r.len = m_arlen; r.burst = m_arburst;
        chk_req("AR", m_araddr, m_arlen, m_arburst, m_arsize);
        if (m_arid !== 8'd0 || m_arprot !== 3'b010) begin prot_err++; $display("ERROR: AR id/prot"); end
        ar_q.push_back(r); n_ar++;
        if (ar_q.size() > max_rd_out) max_rd_out = ar_q.size();
      end
      m_arready <= ($urandom_range(99) < p_ar);
      // ---- R
      if (m_rvalid && m_rready) begin
        n_rbeats++;
        if (r_beat == ar_q[0].len) begin void'(ar_q.pop_front()); r_beat = 0; end
        else r_beat++;
      end
      if (!(m_rvalid && !m_rready)) begin
        if (ar_q.size() > 0 && $urandom_range(99) < p_r) begin
          logic [31:0] a;
          a = (ar_q[0].burst == B_FIXED) ? ar_q[0].addr : ar_q[0].addr + 32'(4 * r_beat);
          m_rvalid <= 1; m_rdata <= rdw(a); m_rlast <= (r_beat == ar_q[0].len);
          m_rresp <= resp_of(ar_q[0].addr); m_rid <= 8'd0; m_ruser <= $urandom;
        end else begin
          m_rvalid <= 0; m_rlast <= 0; m_rdata <= $urandom; m_rresp <= $urandom;
        end
      end
      // ---- AW
      if (m_awvalid && m_awready) begin
        req_t r; r.addr = m_awaddr; r.len = m_awlen; r.burst = m_awburst;
        chk_req("AW", m_awaddr, m_awlen, m_awburst, m_awsize);
        if (m_awid !== 8'd0 || m_awprot !== 3'b010) begin prot_err++; $display("ERROR: AW id/prot"); end
        aw_q.push_back(r); n_aw++;
        if (aw_q.size() + b_q.size() > max_wr_out) max_wr_out = aw_q.size() + b_q.size();
      end
      m_awready <= ($urandom_range(99) < p_aw);
      // ---- W
      if (m_wvalid && m_wready) begin
        wbeat_t w; w.data = m_wdata; w.strb = m_wstrb; w.last = m_wlast;
        w_q.push_back(w); n_wbeats++;
      end
      m_wready <= ($urandom_range(99) < p_w);
      while (aw_q.size() > 0 && w_q.size() > 0) begin
        wbeat_t w; logic [31:0] a, v;
        w = w_q.pop_front();
        a = (aw_q[0].burst == B_FIXED) ? aw_q[0].addr : aw_q[0].addr + 32'(4 * w_beat);
        if (resp_of(aw_q[0].addr) == R_OKAY) begin
          v = rdw(a);
          for (int k = 0; k < 4; k++) if (w.strb[k]) v[8*k +: 8] = w.data[8*k +: 8];
          mem[a] = v;
        end
        if (w.last !== (w_beat == aw_q[0].len)) begin prot_err++; $display("ERROR: WLAST at beat %0d of len %0d @%0t", w_beat, aw_q[0].len, $time); end
        if (w_beat == aw_q[0].len) begin b_q.push_back(resp_of(aw_q[0].addr)); void'(aw_q.pop_front()); w_beat = 0; end
        else w_beat++;
      end
      // ---- B
      if (m_bvalid && m_bready) void'(b_q.pop_front());
      if (!(m_bvalid && !m_bready)) begin
        if ((b_q.size() > (m_bvalid && m_bready ? 0 : 0)) && $urandom_range(99) < p_b) begin
          m_bvalid <= 1; m_bresp <= b_q[0]; m_bid <= 8'd0; m_buser <= $urandom;
        end else begin
          m_bvalid <= 0; m_bresp <= $urandom; m_bid <= $urandom;
        end
      end
    end
  end

  // ------------------------------------------------------------------
  // DMA programming helpers
  // ------------------------------------------------------------------
  task automatic desc(input integer i, input [31:0] src, input [31:0] dst, input [31:0] n,
                      input bit rd_fixed, input bit wr_fixed, input bit en);
    csr_wr(8'h20 + 8 * i, src);
    csr_wr(8'h30 + 8 * i, dst);
    csr_wr(8'h40 + 8 * i, n);
    csr_wr(8'h50 + 8 * i, {29'h0, en, rd_fixed, wr_fixed});
  endtask

  // start, wait for done, return status; leaves go = 1 (caller checks, then stop())
  task automatic go(input [7:0] maxb, input integer timeout, output [31:0] st);
    integer g;
    exp_maxb = maxb;
    csr_wr(CTRL, {22'h0, maxb, 1'b0, 1'b1});
    g = 0;
    while (!dma_done_o && g < timeout) begin @(posedge clk); g++; end
    check({31'h0, dma_done_o}, 1, "DMA done within timeout");
    if (!dma_done_o) begin
      $display("  HANG: fsm=%0d rd_cnt=%0d wr_cnt=%0d wrq_ocup=%0d fifo_ocup=%0d wrq_overflows=%0d slave ar_q=%0d aw_q=%0d w_q=%0d b_q=%0d",
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_fsm.cur_st_ff,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_axi_if.rd_counter_ff,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_axi_if.wr_counter_ff,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_axi_if.u_fifo_wr_data.fifo_ocup,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_fifo.fifo_ocup,
               wrq_overflow, ar_q.size(), aw_q.size(), w_q.size(), b_q.size());
      hang_resets++;
      @(negedge clk) rst = 1; clks(3); @(negedge clk) rst = 0; clks(3);   // recover: reset and go on
      st = 32'hffff_ffff;
    end else begin
      clks(2);
      csr_rd(STAT, st);
    end
  endtask
  // write-transaction queue (8 slots) written while full: a lost W burst
  integer wrq_overflow = 0, hang_resets = 0;
  always @(posedge clk) if (!rst && dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_axi_if.u_fifo_wr_data.write_i &&
                            dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_axi_if.u_fifo_wr_data.full_o) wrq_overflow++;

  task automatic wait_done_or_recover(input integer timeout, input string what);
    integer g; g = 0;
    while (!dma_done_o && g < timeout) begin @(posedge clk); g++; end
    check({31'h0, dma_done_o}, 1, what);
    if (!dma_done_o) begin
      $display("  HANG (%s): fsm=%0d rd_cnt=%0d wr_cnt=%0d wrq_ocup=%0d fifo_ocup=%0d slave ar_q=%0d aw_q=%0d w_q=%0d b_q=%0d", what,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_fsm.cur_st_ff,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_axi_if.rd_counter_ff,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_axi_if.wr_counter_ff,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_axi_if.u_fifo_wr_data.fifo_ocup,
               dut.u_dma_axi_wrapper.u_dma_func_wrapper.u_dma_fifo.fifo_ocup,
               ar_q.size(), aw_q.size(), w_q.size(), b_q.size());
      hang_resets++;
      @(negedge clk) rst = 1; clks(3); @(negedge clk) rst = 0; clks(3);
    end
  endtask

  task automatic stop();
    reg [31:0] st;
    if (rst) return;
    csr_wr(CTRL, {22'h0, exp_maxb, 2'b00});
    clks(2);
    check({31'h0, dma_done_o}, 0, "done cleared when go is cleared");
    check({31'h0, dma_error_o}, 0, "error cleared when go is cleared");
  endtask

  // fill source bytes with a pattern (word granularity)
  task automatic fill(input [31:0] a, input integer nbytes, input [7:0] seed);
    for (int i = 0; i < (nbytes + 8) / 4; i++)
      mem[{a[31:2], 2'b00} + 4 * i] = {8'(seed + 4*i + 3), 8'(seed + 4*i + 2), 8'(seed + 4*i + 1), 8'(seed + 4*i)} ^ 32'h5a00_a500;
  endtask
  function automatic [7:0] rdb(input [31:0] a);
    logic [31:0] w; w = rdw({a[31:2], 2'b00}); rdb = w[8*a[1:0] +: 8];
  endfunction

  // copy check: dst[i] == src[i] for i < n, plus the bytes just outside untouched
  logic [7:0] snap_before, snap_after;
  task automatic copy_check(input [31:0] src, input [31:0] dst, input integer n, input string what);
    integer bad; bad = 0;
    for (int i = 0; i < n; i++) if (rdb(dst + i) !== rdb(src + i)) begin
      if (bad < 3) $display("  %s: byte %0d dst %02x src %02x", what, i, rdb(dst + i), rdb(src + i));
      bad++;
    end
    check(bad, 0, {what, ": bytes differing"});
  endtask

  task automatic run_copy(input [31:0] src, input [31:0] dst, input integer n, input [7:0] maxb, input string what);
    reg [31:0] st; logic [7:0] pre, post;
    fill(src, n, 8'(src[11:4] ^ n[7:0]));
    pre = rdb(dst - 1); post = rdb(dst + n);
    desc(0, src, dst, n, 0, 0, 1);
    desc(1, 0, 0, 0, 0, 0, 0);
    go(maxb, 200000, st);
    check(st, 32'h0001_cafe, {what, ": status done, no error"});
    copy_check(src, dst, n, what);
    check(rdb(dst - 1), pre, {what, ": byte before dst untouched"});
    check(rdb(dst + n), post, {what, ": byte after dst untouched"});
    stop();
  endtask

  reg [31:0] st, d;
  integer t0;

  initial begin
    s_bready = 0;
    clks(5); @(negedge clk) rst = 0; clks(5);

    // ---- 1. reset values
    csr_chk(CTRL, 32'h0000_03fc, "reset control (max_burst 0xff)");
    csr_chk(STAT, 32'h0000_cafe, "reset status (version)");
    csr_chk(EADDR, 0, "reset error addr");
    csr_chk(ESTAT, 0, "reset error stats");
    for (int i = 0; i < 2; i++) begin
      csr_chk(8'h20 + 8 * i, 0, "reset src");  csr_chk(8'h30 + 8 * i, 0, "reset dst");
      csr_chk(8'h40 + 8 * i, 0, "reset num_bytes"); csr_chk(8'h50 + 8 * i, 0, "reset cfg");
    end
    check({30'h0, dma_done_o, dma_error_o}, 0, "irqs low after reset");

    // ---- 2. CSR read/write (walking patterns), RO registers ignore writes, unmapped reads 0
    for (int k = 0; k < 3; k++) begin
      reg [31:0] p;
      p = (k == 0) ? 32'hffff_ffff : (k == 1) ? 32'haaaa_5555 : 32'h5555_aaaa;
      for (int i = 0; i < 2; i++) begin
        csr_wr(8'h20 + 8 * i, p); csr_wr(8'h30 + 8 * i, ~p); csr_wr(8'h40 + 8 * i, p ^ 32'h0f0f_0f0f);
        csr_wr(8'h50 + 8 * i, {29'h0, p[2:0] & 3'b011});   // enable kept low here
        csr_chk(8'h20 + 8 * i, p, "src rw"); csr_chk(8'h30 + 8 * i, ~p, "dst rw");
        csr_chk(8'h40 + 8 * i, p ^ 32'h0f0f_0f0f, "num_bytes rw"); csr_chk(8'h50 + 8 * i, {29'h0, p[2:0] & 3'b011}, "cfg rw");
      end
      csr_wr(CTRL, {22'h0, p[7:0], 2'b00}); csr_chk(CTRL, {22'h0, p[7:0], 2'b00}, "control max_burst rw");
    end
    for (int i = 0; i < 2; i++) begin
      csr_wr(8'h20 + 8 * i, 0); csr_wr(8'h30 + 8 * i, 0); csr_wr(8'h40 + 8 * i, 0);
      csr_chk(8'h20 + 8 * i, 0, "src 0"); csr_chk(8'h30 + 8 * i, 0, "dst 0"); csr_chk(8'h40 + 8 * i, 0, "num 0");
    end
    csr_wr(CTRL, 32'h0000_03fc);
    csr_wr(STAT, 32'hffff_ffff); csr_chk(STAT, 32'h0000_cafe, "status is read-only");
    csr_wr(EADDR, 32'hffff_ffff); csr_chk(EADDR, 0, "error addr is read-only");
    csr_wr(ESTAT, 32'hffff_ffff); csr_chk(ESTAT, 0, "error stats read-only");
    csr_chk(8'h60, 0, "unmapped 0x60 reads 0");
    csr_chk(8'hf8, 0, "unmapped 0xf8 reads 0");

    // ---- 3. configuration corner cases: no enabled descriptor / zero bytes / abort set -> done, no bus traffic
    t0 = n_ar + n_aw;
    desc(0, 32'h1000, 32'h8000, 64, 0, 0, 0);
    go(8'hff, 100, st); check(st, 32'h0001_cafe, "go with no enabled descriptor -> done");
    clks(20); check({31'h0, dma_done_o}, 1, "done held while go stays set"); stop();
    desc(0, 32'h1000, 32'h8000, 0, 0, 0, 1);
    go(8'hff, 100, st); check(st, 32'h0001_cafe, "enabled descriptor with 0 bytes -> done"); stop();
    desc(0, 32'h1000, 32'h8000, 64, 0, 0, 1);
    csr_wr(CTRL, 32'h0000_03ff);   // go together with abort
    clks(5); csr_rd(STAT, st); check(st, 32'h0001_cafe, "go with abort set -> done");
    csr_wr(CTRL, 32'h0000_03fc); clks(2);
    check(n_ar + n_aw, t0, "no AXI traffic for empty/aborted configs");
    // go held high: done stays high
    clks(20);

    // ---- 4. simple aligned copies, default max burst (256 beats)
    run_copy(32'h0000_1000, 32'h0000_8000, 256, 8'hff, "aligned 256B");
    run_copy(32'h0001_0000, 32'h0002_0000, 2048, 8'hff, "aligned 2KB (256-beat bursts)");
    check(max_alen_seen, 255, "256-beat bursts issued");
    // ---- 5. max_burst programming
    run_copy(32'h0000_1000, 32'h0000_9000, 96, 8'h00, "max_burst 0 (single beats)");
    run_copy(32'h0000_1100, 32'h0000_9100, 100, 8'h03, "max_burst 3");
    run_copy(32'h0000_1200, 32'h0000_9200, 256, 8'h0f, "max_burst 15");
    run_copy(32'h0000_1300, 32'h0000_9300, 200, 8'h7f, "max_burst 127");
    run_copy(32'h0000_1400, 32'h0000_9400, 40, 8'haa, "max_burst 0xaa");
    // ---- 6. 4KB boundary crossing on both sides
    run_copy(32'h0000_2f80, 32'h0000_af40, 512, 8'hff, "4KB crossing");
    run_copy(32'h0000_3ffc, 32'h0000_bffc, 8, 8'hff, "4KB crossing 2 words");
    // ---- 6b. high addresses (all address bits), and an error at a high address
    run_copy(32'hffff_f000, 32'h7fff_f000, 64, 8'hff, "high addresses");
    run_copy(32'h5555_5550, 32'haaaa_aaa0, 32, 8'hff, "address pattern 5/a");
    // ---- 7. unaligned (symmetric alignment, as the README requires)
    run_copy(32'h0000_4001, 32'h0000_c001, 37, 8'hff, "unaligned +1, 37B");
    run_copy(32'h0000_4102, 32'h0000_c102, 66, 8'hff, "unaligned +2, 66B");
    run_copy(32'h0000_4203, 32'h0000_c203, 7, 8'hff, "unaligned +3, 7B");
    run_copy(32'h0000_4301, 32'h0000_c301, 2, 8'hff, "small in-word +1, 2B");
    run_copy(32'h0000_4403, 32'h0000_c403, 1, 8'hff, "small +3, 1B");
    run_copy(32'h0000_4500, 32'h0000_c500, 3, 8'hff, "small aligned 3B");
    run_copy(32'h0000_4600, 32'h0000_c600, 13, 8'hff, "aligned 13B (tail strobe)");
    run_copy(32'h0000_4702, 32'h0000_c702, 3, 8'hff, "small +2, 3B crossing a word");

    // ---- 8. two descriptors in one run (different sizes), and descriptor 1 alone
    fill(32'h0000_5000, 300, 8'h11); fill(32'h0000_6000, 64, 8'h77);
    desc(0, 32'h0000_5000, 32'h0000_d000, 300, 0, 0, 1);
    desc(1, 32'h0000_6000, 32'h0000_e000, 64, 0, 0, 1);
    go(8'h1f, 200000, st); check(st, 32'h0001_cafe, "two descriptors done");
    copy_check(32'h5000, 32'hd000, 300, "desc0 of 2");
    copy_check(32'h6000, 32'he000, 64, "desc1 of 2");
    stop();
    fill(32'h0000_6100, 48, 8'h99);
    desc(0, 32'h0000_5000, 32'h0000_d000, 300, 0, 0, 0);
    desc(1, 32'h0000_6100, 32'h0000_e100, 48, 0, 0, 1);
    go(8'hff, 200000, st); check(st, 32'h0001_cafe, "descriptor 1 alone");
    copy_check(32'h6100, 32'he100, 48, "desc1 alone"); stop();

    // ---- 9. FIXED bursts (<= 16 beats)
    fill(32'h0000_7000, 64, 8'h21);
    desc(0, 32'h0000_7000, 32'h0001_8000, 128, 1, 0, 1);   // read FIXED: every beat from 0x7000
    desc(1, 0, 0, 0, 0, 0, 0);
    go(8'hff, 200000, st); check(st, 32'h0001_cafe, "read FIXED done");
    for (int i = 0; i < 32; i++) check(rdw(32'h0001_8000 + 4 * i), rdw(32'h7000), "read FIXED: dst word = src word");
    stop();
    desc(0, 32'h0000_7000, 32'h0001_9000, 64, 0, 1, 1);    // write FIXED: every beat to 0x19000
    go(8'hff, 200000, st); check(st, 32'h0001_cafe, "write FIXED done");
    check(rdw(32'h0001_9000), rdw(32'h7000 + 60), "write FIXED: dst = last src word");
    check(rdw(32'h0001_9004), dflt(32'h0001_9004), "write FIXED: next word untouched");
    stop();
    desc(0, 32'h0000_7000, 32'h0001_a000, 16, 1, 1, 1);    // both FIXED
    go(8'h03, 200000, st); check(st, 32'h0001_cafe, "both FIXED done");
    check(rdw(32'h0001_a000), rdw(32'h7000), "both FIXED");
    stop();

    // ---- 10. back-pressure and outstanding limits
    set_ready(30);
    run_copy(32'h0002_1000, 32'h0003_1000, 1024, 8'h0f, "random 30% ready/valid");
    set_ready(100); p_b = 2;                // slow write responses: write outstanding limit
    run_copy(32'h0002_2000, 32'h0003_2000, 512, 8'h01, "slow B");
    set_ready(100); p_r = 3;                // slow read data: read outstanding limit
    run_copy(32'h0002_3000, 32'h0003_3000, 512, 8'h00, "slow R");
    set_ready(100); p_w = 5; p_aw = 10;     // slow write side: data FIFO fills, RREADY drops
    run_copy(32'h0002_4000, 32'h0003_4000, 512, 8'hff, "slow W (FIFO full)");
    set_ready(100);
    check(max_rd_out >= 8 ? 1 : 0, 1, "8 outstanding reads reached");
    check(max_wr_out >= 8 ? 1 : 0, 1, "8 outstanding writes reached");

    // ---- 11. bus errors: documented error_type "0 - Operation / 1 - Configuration", error_src "0 READ / 1 WRITE"
    desc(0, 32'he000_1000, 32'h0004_0000, 64, 0, 0, 1);
    go(8'h03, 200000, st);
    check(st, 32'h0003_cafe, "read SLVERR: status error+done");
    check({31'h0, dma_error_o}, 1, "read SLVERR: error irq");
    csr_rd(EADDR, d); check((d >= 32'he000_1000 && d < 32'he000_1040 && d[1:0] == 0) ? 1 : 0, 1, "read SLVERR: error addr is a failing burst address");
    csr_rd(ESTAT, d);
    check({29'h0, d[2:1]}, 32'h2, "read SLVERR: trig=1 src=READ");
    check({31'h0, d[0]}, 0, "DOC: error_type = 0 (Operation) for a bus error");
    stop();
    csr_chk(ESTAT, 0, "error stats cleared with go");
    desc(0, 32'h0004_0000, 32'hd000_2000, 32, 0, 0, 1);
    go(8'h00, 200000, st);
    check(st, 32'h0003_cafe, "write DECERR: status error+done");
    csr_rd(EADDR, d); check((d >= 32'hd000_2000 && d < 32'hd000_2020) ? 1 : 0, 1, "write DECERR: error addr is a failing burst address");
    csr_rd(ESTAT, d);
    check({29'h0, d[2:1]}, 32'h3, "write DECERR: trig=1 src=WRITE");
    stop();
    desc(0, 32'hefff_ff00, 32'h0004_1000, 32, 0, 0, 1);
    go(8'h00, 200000, st);
    csr_rd(EADDR, d); check((d >= 32'hefff_ff00 && d < 32'hefff_ff20) ? 1 : 0, 1, "read SLVERR at high address: error addr");
    stop();
    desc(0, 32'hd000_3000, 32'he000_4000, 32, 0, 0, 1);
    go(8'h00, 200000, st);
    check(st, 32'h0003_cafe, "read+write errors: status");
    csr_rd(EADDR, d); check((d[31:28] == 4'hd || d[31:28] == 4'he) ? 1 : 0, 1, "read+write errors: error addr in an error region");
    stop();

    // ---- 12. abort during a long transfer, and a huge descriptor aborted
    set_ready(100);   // (with W back-pressure the abort runs into the write-queue overflow shown above)
    fill(32'h0005_0000, 64, 8'h44);
    desc(0, 32'h0005_0000, 32'h0006_0000, 32'h0001_0000, 0, 0, 1);
    desc(1, 32'h0007_0000, 32'h0008_0000, 32'hffff_fff0, 0, 0, 1);
    csr_wr(CTRL, {22'h0, 8'h0f, 2'b01});
    exp_maxb = 8'h0f;
    clks(300);
    check({31'h0, dma_done_o}, 0, "long transfer still running");
    csr_wr(CTRL, {22'h0, 8'h0f, 2'b11});    // abort
    wait_done_or_recover(50000, "abort -> done");
    clks(50);
    check((ar_q.size() + aw_q.size() + b_q.size()) == 0 ? 1 : 0, 1, "abort: no outstanding AXI transactions");
    csr_wr(CTRL, {22'h0, 8'h0f, 2'b00});
    clks(5);
    // descriptor 1 huge: start, let it run, abort
    desc(0, 0, 0, 0, 0, 0, 0);
    desc(1, 32'h0007_0000, 32'h0008_0000, 32'hffff_fff0, 0, 0, 1);
    csr_wr(CTRL, {22'h0, 8'hff, 2'b01}); exp_maxb = 8'hff;
    clks(2000);
    csr_wr(CTRL, {22'h0, 8'hff, 2'b11});
    wait_done_or_recover(50000, "huge descriptor abort -> done");
    csr_wr(CTRL, 32'h0000_03fc); clks(10);
    set_ready(100);
    // a normal copy works after aborts
    run_copy(32'h0000_1000, 32'h0000_f000, 64, 8'hff, "copy after abort");

    // ---- 13. reset during a transfer
    desc(0, 32'h0009_0000, 32'h000a_0000, 4096, 0, 0, 1);
    csr_wr(CTRL, {22'h0, 8'h07, 2'b01});
    clks(200);
    @(negedge clk) rst = 1; clks(3); @(negedge clk) rst = 0; clks(3);
    csr_chk(CTRL, 32'h0000_03fc, "control after reset");
    csr_chk(8'h50, 0, "cfg after reset");
    check({30'h0, dma_done_o, dma_error_o}, 0, "irqs after reset");
    run_copy(32'h0000_1000, 32'h0000_f800, 32, 8'hff, "copy after reset");

    check(prot_err, 0, "AXI4 protocol errors");
    check(wrq_overflow, 0, "write-transaction queue overflows (lost W bursts)");
    $display("TB DONE: %0d checks, %0d mismatches (%0d hangs recovered by reset; AR %0d AW %0d, R beats %0d, W beats %0d, max outstanding rd %0d wr %0d)",
             nchecks, errors, hang_resets, n_ar, n_aw, n_rbeats, n_wbeats, max_rd_out, max_wr_out);
    $finish;
  end

  initial begin
    #100_000_000;
    $display("TIMEOUT: %0d checks, %0d mismatches", nchecks, errors);
    $finish;
  end
endmodule
