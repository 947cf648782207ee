`timescale 1ns/1ps
`default_nettype none
// Hand-written reference testbench for ultraembedded/core_dbg_bridge (top dbg_bridge):
// UART (8N1, CLK_FREQ/UART_SPEED = 128 clocks per bit) -> AXI4 master + GPIO bridge.
// Protocol (sw/uart_bus_interface.py): 0x10 = write, 0x11 = read, then LEN (bytes),
// ADDR[31:24..7:0], then LEN data bytes (write) or LEN response bytes (read).
// Magic addresses: 0xF0000000 GPIO (write: outputs, read: inputs), 0xF0000004 status (0xCAFE000x).
module tb;
  localparam integer BIT = 128;           // 14745600 / 115200
  localparam [31:0] GPIO_A = 32'hf000_0000, STS_A = 32'hf000_0004;

  reg         clk_i = 1'b0, rst_i = 1'b1;
  reg         uart_rxd_i = 1'b1;
  reg         mem_awready_i = 0, mem_wready_i = 0, mem_bvalid_i = 0, mem_arready_i = 0, mem_rvalid_i = 0;
  reg  [1:0]  mem_bresp_i = 0, mem_rresp_i = 0;
  reg  [3:0]  mem_bid_i = 0, mem_rid_i = 0;
  reg  [31:0] mem_rdata_i = 0;
  reg         mem_rlast_i = 0;
  reg  [31:0] gpio_inputs_i = 0;
  wire        uart_txd_o;
  wire        mem_awvalid_o, mem_wvalid_o, mem_wlast_o, mem_bready_o, mem_arvalid_o, mem_rready_o;
  wire [31:0] mem_awaddr_o, mem_wdata_o, mem_araddr_o, gpio_outputs_o;
  wire [3:0]  mem_awid_o, mem_wstrb_o, mem_arid_o;
  wire [7:0]  mem_awlen_o, mem_arlen_o;
  wire [1:0]  mem_awburst_o, mem_arburst_o;

  always #5 clk_i = ~clk_i;

  dbg_bridge dut (
    .clk_i(clk_i), .rst_i(rst_i), .uart_rxd_i(uart_rxd_i),
    .mem_awready_i(mem_awready_i), .mem_wready_i(mem_wready_i), .mem_bvalid_i(mem_bvalid_i),
    .mem_bresp_i(mem_bresp_i), .mem_bid_i(mem_bid_i), .mem_arready_i(mem_arready_i),
    .mem_rvalid_i(mem_rvalid_i), .mem_rdata_i(mem_rdata_i), .mem_rresp_i(mem_rresp_i),
    .mem_rid_i(mem_rid_i), .mem_rlast_i(mem_rlast_i), .gpio_inputs_i(gpio_inputs_i),
    .uart_txd_o(uart_txd_o), .mem_awvalid_o(mem_awvalid_o), .mem_awaddr_o(mem_awaddr_o),
    .mem_awid_o(mem_awid_o), .mem_awlen_o(mem_awlen_o), .mem_awburst_o(mem_awburst_o),
    .mem_wvalid_o(mem_wvalid_o), .mem_wdata_o(mem_wdata_o), .mem_wstrb_o(mem_wstrb_o),
    .mem_wlast_o(mem_wlast_o), .mem_bready_o(mem_bready_o), .mem_arvalid_o(mem_arvalid_o),
    .mem_araddr_o(mem_araddr_o), .mem_arid_o(mem_arid_o), .mem_arlen_o(mem_arlen_o),
    .mem_arburst_o(mem_arburst_o), .mem_rready_o(mem_rready_o), .gpio_outputs_o(gpio_outputs_o)
  );

  integer errors = 0, nchecks = 0;

  task automatic check(input [31:0] got, input [31:0] exp, input string what);
    nchecks = nchecks + 1;
    if (got !== exp) begin
      errors = errors + 1;
      $display("ERROR: %s: got %08x exp %08x @%0t", what, got, exp, $time);
    end
  endtask

  task automatic wait_clks(input integer n);
    repeat (n) @(posedge clk_i);
  endtask

  // ------------------------------------------------------------------
  // Memory: the AXI slave's contents (word addressed) and the host's expectation (byte addressed)
  // ------------------------------------------------------------------
  logic [31:0] mem [logic [31:0]];
  logic [7:0]  shadow [logic [31:0]];

  function automatic [31:0] dflt(input [31:0] wa);
    dflt = {wa[15:0], ~wa[15:0]} ^ 32'h5a3c_c3a5;
  endfunction
  function automatic [31:0] mem_word(input [31:0] wa);
    mem_word = mem.exists(wa) ? mem[wa] : dflt(wa);
  endfunction
  function automatic [7:0] exp_byte(input [31:0] a);
    logic [31:0] w;
    if ({a[31:2], 2'b00} == STS_A) begin w = 32'hcafe_0000; exp_byte = w[8*a[1:0] +: 8]; end
    else if ({a[31:2], 2'b00} == GPIO_A) exp_byte = gpio_inputs_i[8*a[1:0] +: 8];
    else if (shadow.exists(a)) exp_byte = shadow[a];
    else begin w = dflt({a[31:2], 2'b00}); exp_byte = w[8*a[1:0] +: 8]; end
  endfunction

  // ------------------------------------------------------------------
  // AXI4 slave model with programmable latencies (0 = ready in the same cycle as valid)
  // ------------------------------------------------------------------
  integer aw_lat = 0, w_lat = 0, b_lat = 0, ar_lat = 0, r_lat = 0;
  bit     rand_lat = 0;
  integer rand_max = 6;
  bit     aw_have = 0, w_have = 0, ar_have = 0;
  integer aw_cnt = 0, w_cnt = 0, b_cnt = 0, ar_cnt = 0, r_cnt = 0;
  reg [31:0] aw_addr_q, w_data_q, ar_addr_q, w_hold_data;
  reg [3:0]  w_strb_q;
  integer n_wr = 0, n_rd = 0, prot_err = 0;
  reg     w_wait_prev = 0, aw_wait_prev = 0, ar_wait_prev = 0;
  reg [31:0] w_prev_data, aw_prev_addr, ar_prev_addr;

  function automatic integer lat(input integer fixed);
    lat = rand_lat ? $urandom_range(rand_max, 0) : fixed;
  endfunction

  always @(posedge clk_i) begin
    if (rst_i) begin
      mem_awready_i <= 0; mem_wready_i <= 0; mem_bvalid_i <= 0; mem_arready_i <= 0; mem_rvalid_i <= 0;
      aw_have <= 0; w_have <= 0; ar_have <= 0; aw_cnt <= 0; w_cnt <= 0; b_cnt <= 0; ar_cnt <= 0; r_cnt <= 0;
      w_wait_prev <= 0; aw_wait_prev <= 0; ar_wait_prev <= 0;
    end else begin
      // AXI stability rules: payload stable while valid && !ready
      if (w_wait_prev && mem_wdata_o !== w_prev_data) begin
        prot_err = prot_err + 1;
        $display("ERROR: AXI W: wdata changed while wvalid held (%08x -> %08x) @%0t", w_prev_data, mem_wdata_o, $time);
      end
      if (aw_wait_prev && mem_awaddr_o !== aw_prev_addr) begin
        prot_err = prot_err + 1; $display("ERROR: AXI AW: awaddr changed while awvalid held @%0t", $time);
      end
      if (ar_wait_prev && mem_araddr_o !== ar_prev_addr) begin
        prot_err = prot_err + 1; $display("ERROR: AXI AR: araddr changed while arvalid held @%0t", $time);
      end
      w_wait_prev  <= mem_wvalid_o && !mem_wready_i;  w_prev_data  <= mem_wdata_o;
      aw_wait_prev <= mem_awvalid_o && !mem_awready_i; aw_prev_addr <= mem_awaddr_o;
      ar_wait_prev <= mem_arvalid_o && !mem_arready_i; ar_prev_addr <= mem_araddr_o;

      // AW channel
      if (mem_awvalid_o && mem_awready_i) begin
        aw_have <= 1; aw_addr_q <= mem_awaddr_o; mem_awready_i <= 0; aw_cnt <= 0;
        if (mem_awlen_o !== 8'd0 || mem_awburst_o !== 2'b01 || mem_awid_o !== 4'd0 || mem_awaddr_o[1:0] !== 2'b00) begin
          prot_err = prot_err + 1; $display("ERROR: AXI AW attributes len=%0d burst=%0d id=%0d addr=%08x", mem_awlen_o, mem_awburst_o, mem_awid_o, mem_awaddr_o);
        end
      end else if (!aw_have && mem_awvalid_o) begin
        if (aw_cnt >= aw_lat) mem_awready_i <= 1; else aw_cnt <= aw_cnt + 1;
      end else if (!aw_have && !mem_awvalid_o && aw_lat == 0) mem_awready_i <= 1;   // ready before valid
      else mem_awready_i <= 0;
      // W channel
      if (mem_wvalid_o && mem_wready_i) begin
        w_have <= 1; w_data_q <= mem_wdata_o; w_strb_q <= mem_wstrb_o; mem_wready_i <= 0; w_cnt <= 0;
        if (mem_wlast_o !== 1'b1) begin prot_err = prot_err + 1; $display("ERROR: AXI W: wlast low on single beat"); end
      end else if (!w_have && mem_wvalid_o) begin
        if (w_cnt >= w_lat) mem_wready_i <= 1; else w_cnt <= w_cnt + 1;
      end else if (!w_have && !mem_wvalid_o && w_lat == 0) mem_wready_i <= 1;
      else mem_wready_i <= 0;
      // B channel
      if (mem_bvalid_i) begin
        if (mem_bready_o) begin mem_bvalid_i <= 0; mem_bid_i <= $urandom; mem_bresp_i <= $urandom; end
      end else if (aw_have && w_have) begin
        if (b_cnt >= b_lat) begin
          logic [31:0] wd; wd = mem_word(aw_addr_q);
          for (int k = 0; k < 4; k++) if (w_strb_q[k]) wd[8*k +: 8] = w_data_q[8*k +: 8];
          mem[aw_addr_q] = wd;
          n_wr = n_wr + 1;
          mem_bvalid_i <= 1; aw_have <= 0; w_have <= 0; b_cnt <= 0;
          mem_bid_i <= 4'd0; mem_bresp_i <= 2'b00;
          aw_lat <= rand_lat ? lat(0) : aw_lat; w_lat <= rand_lat ? lat(0) : w_lat; b_lat <= rand_lat ? lat(0) : b_lat;
        end else b_cnt <= b_cnt + 1;
      end
      // AR channel
      if (mem_arvalid_o && mem_arready_i) begin
        ar_have <= 1; ar_addr_q <= mem_araddr_o; mem_arready_i <= 0; ar_cnt <= 0;
        if (mem_arlen_o !== 8'd0 || mem_arburst_o !== 2'b01 || mem_arid_o !== 4'd0 || mem_araddr_o[1:0] !== 2'b00) begin
          prot_err = prot_err + 1; $display("ERROR: AXI AR attributes len=%0d burst=%0d id=%0d", mem_arlen_o, mem_arburst_o, mem_arid_o);
        end
      end else if (!ar_have && mem_arvalid_o) begin
        if (ar_cnt >= ar_lat) mem_arready_i <= 1; else ar_cnt <= ar_cnt + 1;
      end else if (!ar_have && !mem_arvalid_o && ar_lat == 0) mem_arready_i <= 1;
      else mem_arready_i <= 0;
      // R channel
      if (mem_rvalid_i) begin
        if (mem_rready_o) begin
          mem_rvalid_i <= 0; mem_rdata_i <= $urandom; mem_rid_i <= $urandom; mem_rresp_i <= $urandom; mem_rlast_i <= 0;
        end
      end else if (ar_have) begin
        if (r_cnt >= r_lat) begin
          mem_rvalid_i <= 1; mem_rdata_i <= mem_word(ar_addr_q); mem_rlast_i <= 1;
          mem_rid_i <= 4'd0; mem_rresp_i <= 2'b00; ar_have <= 0; r_cnt <= 0; n_rd = n_rd + 1;
          ar_lat <= rand_lat ? lat(0) : ar_lat; r_lat <= rand_lat ? lat(0) : r_lat;
        end else r_cnt <= r_cnt + 1;
      end
    end
  end

  // ------------------------------------------------------------------
  // UART: host transmitter (drives uart_rxd_i) and host receiver (monitors uart_txd_o)
  // ------------------------------------------------------------------
  task automatic send_byte(input [7:0] b);
    uart_rxd_i = 0; wait_clks(BIT);
    for (int i = 0; i < 8; i++) begin uart_rxd_i = b[i]; wait_clks(BIT); end
    uart_rxd_i = 1; wait_clks(BIT);
  endtask
  // frame with a low stop bit (framing error): the receiver drops it and flags rx_err
  task automatic send_bad_stop(input [7:0] b);
    uart_rxd_i = 0; wait_clks(BIT);
    for (int i = 0; i < 8; i++) begin uart_rxd_i = b[i]; wait_clks(BIT); end
    uart_rxd_i = 0; wait_clks(BIT);
    uart_rxd_i = 1; wait_clks(2 * BIT);
  endtask
  // glitch: low for less than half a bit, so the mid-start sample reads high (false start)
  task automatic send_glitch(input integer n);
    uart_rxd_i = 0; wait_clks(n);
    uart_rxd_i = 1; wait_clks(2 * BIT);
  endtask

  byte unsigned rxq [$];
  integer frame_err = 0;
  bit mon_en = 1;
  always begin
    @(negedge uart_txd_o);
    if (mon_en && !rst_i) begin
      logic [7:0] v; bit bad;
      bad = 0;
      wait_clks(BIT / 2);
      if (uart_txd_o !== 1'b0) bad = 1;
      for (int i = 0; i < 8; i++) begin wait_clks(BIT); v[i] = uart_txd_o; end
      wait_clks(BIT);
      if (uart_txd_o !== 1'b1) bad = 1;
      if (mon_en) begin
        if (bad) begin frame_err++; $display("ERROR: host rx: framing error @%0t", $time); end
        else rxq.push_back(v);
      end
    end
  end

  task automatic get_byte(output [7:0] b);
    integer guard; guard = 0;
    while (rxq.size() == 0 && guard < 40 * BIT) begin @(posedge clk_i); guard++; end
    nchecks++;
    if (rxq.size() == 0) begin errors++; $display("ERROR: host rx: response byte timeout @%0t", $time); b = 8'hxx; end
    else b = rxq.pop_front();
  endtask

  task automatic send_hdr(input [7:0] cmd, input [7:0] len, input [31:0] addr);
    send_byte(cmd); send_byte(len);
    send_byte(addr[31:24]); send_byte(addr[23:16]); send_byte(addr[15:8]); send_byte(addr[7:0]);
  endtask

  // block write: byte i lands at addr+i (shadow updated for non-magic addresses)
  task automatic host_write(input [31:0] addr, input integer len, input byte unsigned d[]);
    send_hdr(8'h10, len[7:0], addr);
    for (int i = 0; i < len; i++) begin
      send_byte(d[i]);
      if ({addr[31:2], 2'b00} != GPIO_A && {addr[31:2], 2'b00} != STS_A) shadow[addr + i] = d[i];
    end
  endtask

  task automatic write32(input [31:0] addr, input [31:0] v);
    byte unsigned d[]; d = new[4];
    for (int i = 0; i < 4; i++) d[i] = v[8*i +: 8];
    host_write(addr, 4, d);
  endtask

  // wait until the bridge has finished the write (memory side) and is idle
  task automatic wait_idle();
    integer g; g = 0;
    wait_clks(4);
    while ((dut.state_q != 0 || dut.u_fifo_rx.count_q != 0) && g < 100000) begin @(posedge clk_i); g++; end
  endtask

  // block read with self-check against the shadow memory
  task automatic host_read_check(input [31:0] addr, input integer len);
    logic [7:0] b;
    send_hdr(8'h11, len[7:0], addr);
    for (int i = 0; i < len; i++) begin
      get_byte(b);
      check({24'h0, b}, {24'h0, exp_byte(addr + i)}, $sformatf("read byte %0d of %08x", i, addr));
    end
  endtask

  task automatic read32(input [31:0] addr, output [31:0] v);
    logic [7:0] b;
    send_hdr(8'h11, 8'd4, addr);
    for (int i = 0; i < 4; i++) begin get_byte(b); v[8*i +: 8] = b; end
  endtask

  task automatic do_reset(input integer n);
    rst_i = 1; wait_clks(n); #1 rst_i = 0; wait_clks(4);
  endtask

  byte unsigned d[];
  logic [31:0] v;
  integer i;

  initial begin
    do_reset(10);
    check({31'h0, uart_txd_o}, 32'h1, "txd idle high after reset");
    check(gpio_outputs_o, 32'h0, "gpio outputs reset");

    // --- 1. status register (what the host library checks first)
    read32(STS_A, v);
    check(v, 32'hcafe_0000, "status register");

    // --- 2. single-word writes/reads, address bit patterns
    write32(32'h0000_0000, 32'h1234_5678);
    write32(32'haaaa_aaa8, 32'h5555_aaaa);
    write32(32'h5555_5554, 32'haaaa_5555);
    write32(32'hffff_fffc, 32'hffff_ffff);
    write32(32'h8000_0010, 32'h0000_0000);
    wait_idle();
    check(mem_word(32'h0000_0000), 32'h1234_5678, "mem[0]");
    check(mem_word(32'haaaa_aaa8), 32'h5555_aaaa, "mem[aaaaaaa8]");
    check(mem_word(32'hffff_fffc), 32'hffff_ffff, "mem[fffffffc]");
    read32(32'h0000_0000, v); check(v, 32'h1234_5678, "read32 0");
    read32(32'haaaa_aaa8, v); check(v, 32'h5555_aaaa, "read32 aaaaaaa8");
    read32(32'h5555_5554, v); check(v, 32'haaaa_5555, "read32 55555554");
    read32(32'hffff_fffc, v); check(v, 32'hffff_ffff, "read32 fffffffc");
    read32(32'h8000_0010, v); check(v, 32'h0000_0000, "read32 80000010");
    read32(32'h0123_4568, v); check(v, dflt(32'h0123_4568), "read32 untouched");

    // --- 3. GPIO outputs / inputs, status
    write32(GPIO_A, 32'ha5a5_5a5a); wait_idle(); wait_clks(4);
    check(gpio_outputs_o, 32'ha5a5_5a5a, "gpio out a5a55a5a");
    write32(GPIO_A, 32'h5a5a_a5a5); wait_idle(); wait_clks(4);
    check(gpio_outputs_o, 32'h5a5a_a5a5, "gpio out 5a5aa5a5");
    write32(GPIO_A, 32'hffff_ffff); wait_idle(); wait_clks(4);
    check(gpio_outputs_o, 32'hffff_ffff, "gpio out ffffffff");
    gpio_inputs_i = 32'hdead_beef; read32(GPIO_A, v); check(v, 32'hdead_beef, "gpio in deadbeef");
    gpio_inputs_i = 32'h2152_4110; read32(GPIO_A, v); check(v, 32'h2152_4110, "gpio in 21524110");
    gpio_inputs_i = 32'hffff_ffff; read32(GPIO_A, v); check(v, 32'hffff_ffff, "gpio in ffffffff");
    gpio_inputs_i = 32'h0;          read32(GPIO_A, v); check(v, 32'h0, "gpio in 0");
    check(n_wr, 5, "GPIO/status never reach the AXI bus (writes)");
    read32(STS_A, v); check(v, 32'hcafe_0000, "status again");
    // magic address written with a short length (one byte): GPIO write with len 1
    d = new[1]; d[0] = 8'h3c; host_write(GPIO_A, 1, d); wait_idle(); wait_clks(4);
    check(gpio_outputs_o[7:0], 32'h3c, "gpio out byte write");
    write32(GPIO_A, 32'h0); wait_idle();

    // --- 4. block write / read, aligned
    d = new[16]; for (i = 0; i < 16; i++) d[i] = 8'(i * 17 + 3);
    host_write(32'h0000_1000, 16, d); wait_idle();
    host_read_check(32'h0000_1000, 16);

    // --- 5. unaligned writes: strobes 0110, 1000, 1100 then spanning words, 0001, 0011, 0111
    d = new[2]; d[0] = 8'hc1; d[1] = 8'hc2; host_write(32'h0000_2001, 2, d); wait_idle();
    check(mem_word(32'h0000_2000), {dflt(32'h2000) & 32'hff0000ff} | 32'h00c2c100, "strobe 0110");
    d = new[1]; d[0] = 8'hd3; host_write(32'h0000_2007, 1, d);
    d = new[2]; d[0] = 8'he1; d[1] = 8'he2; host_write(32'h0000_200a, 2, d);
    d = new[9]; for (i = 0; i < 9; i++) d[i] = 8'(8'h70 + i); host_write(32'h0000_2013, 9, d);
    d = new[1]; d[0] = 8'hb0; host_write(32'h0000_2020, 1, d);
    d = new[2]; d[0] = 8'hb1; d[1] = 8'hb2; host_write(32'h0000_2024, 2, d);
    d = new[3]; d[0] = 8'hb3; d[1] = 8'hb4; d[2] = 8'hb5; host_write(32'h0000_2028, 3, d);
    d = new[6]; for (i = 0; i < 6; i++) d[i] = 8'(8'h90 + i); host_write(32'h0000_2032, 6, d);
    wait_idle();
    host_read_check(32'h0000_2000, 64);

    // --- 6. unaligned reads
    host_read_check(32'h0000_1001, 3);
    host_read_check(32'h0000_1002, 6);
    host_read_check(32'h0000_1003, 1);
    host_read_check(32'h0000_1005, 11);
    host_read_check(32'h0000_1000, 1);
    host_read_check(32'h0000_1000, 2);
    host_read_check(STS_A, 2);
    host_read_check(32'h0000_1000, 4);
    read32(STS_A, v); check(v, 32'hcafe_0000, "status after block reads");

    // --- 7. unknown command bytes are ignored in IDLE
    send_byte(8'h00); send_byte(8'hff); send_byte(8'h12); send_byte(8'h0f); send_byte(8'h55);
    read32(32'h0000_0000, v); check(v, 32'h1234_5678, "command after junk bytes");

    // --- 8. UART receive errors: false start (glitch) and bad stop bit
    send_glitch(BIT / 4);
    send_glitch(3);
    send_bad_stop(8'h10);
    send_bad_stop(8'h00);
    read32(32'h0000_0000, v); check(v, 32'h1234_5678, "command after rx errors");
    check(rxq.size(), 0, "no stray response bytes");

    // --- 9. slow slave: every channel held off, then random latencies
    aw_lat = 5; w_lat = 9; b_lat = 3; ar_lat = 7; r_lat = 11;
    write32(32'h0000_3000, 32'hcafe_f00d);
    d = new[12]; for (i = 0; i < 12; i++) d[i] = 8'(8'ha0 + i); host_write(32'h0000_3004, 12, d); wait_idle();
    host_read_check(32'h0000_3000, 16);
    aw_lat = 9; w_lat = 2;
    write32(32'h0000_3010, 32'h0bad_f00d); wait_idle();
    host_read_check(32'h0000_3010, 4);
    rand_lat = 1; rand_max = 8;
    for (int k = 0; k < 6; k++) begin
      d = new[8 + k]; for (i = 0; i < 8 + k; i++) d[i] = 8'($urandom);
      host_write(32'h0000_4000 + 32 * k + k, 8 + k, d); wait_idle();
      host_read_check(32'h0000_4000 + 32 * k + k, 8 + k);
    end
    rand_lat = 0; aw_lat = 0; w_lat = 0; b_lat = 0; ar_lat = 0; r_lat = 0;

    // --- 10. back-pressure: long read fills the TX FIFO while the host already sends the next
    //         command (RX FIFO fills to 8 + 1 held in the UART), then it executes
    send_hdr(8'h11, 8'd40, 32'h0000_2000);
    d = new[3]; d[0] = 8'h11; d[1] = 8'h22; d[2] = 8'h33;
    send_hdr(8'h10, 8'd3, 32'h0000_5000);  // sent while the read response is still streaming
    for (i = 0; i < 3; i++) send_byte(d[i]);
    for (i = 0; i < 40; i++) begin
      logic [7:0] b; get_byte(b);
      check({24'h0, b}, {24'h0, exp_byte(32'h2000 + i)}, "read under back-pressure");
    end
    for (i = 0; i < 3; i++) shadow[32'h5000 + i] = d[i];
    wait_idle();
    host_read_check(32'h0000_5000, 4);

    // --- 11. slow B response while the host keeps sending: bytes queue up in the RX FIFO and are
    //         consumed back-to-back; W channel held off (checks write data integrity)
    b_lat = 8000; w_lat = 3; aw_lat = 1;
    d = new[16]; for (i = 0; i < 16; i++) d[i] = 8'(8'h31 * i + 1);
    host_write(32'h0000_6000, 16, d); wait_idle();
    b_lat = 0; w_lat = 0; aw_lat = 0;
    host_read_check(32'h0000_6000, 16);
    // slow R response while the host sends the next command
    r_lat = 3000;
    send_hdr(8'h11, 8'd8, 32'h0000_1000);
    send_hdr(8'h11, 8'd4, STS_A);
    for (i = 0; i < 8; i++) begin
      logic [7:0] b; get_byte(b);
      check({24'h0, b}, {24'h0, exp_byte(32'h1000 + i)}, "slow R read");
    end
    for (i = 0; i < 4; i++) begin
      logic [7:0] b; get_byte(b);
      check({24'h0, b}, i == 3 ? 32'hca : i == 2 ? 32'hfe : 32'h0, "status after slow R");
    end
    r_lat = 0;

    // --- 12. long transfers: LEN up to 255 (all length bits)
    d = new[200]; for (i = 0; i < 200; i++) d[i] = 8'($urandom);
    host_write(32'h0001_0000, 200, d); wait_idle();
    host_read_check(32'h0001_0000, 255);
    host_read_check(32'h0001_0003, 130);

    // --- 13. reset in the middle of a read response and of an incoming byte
    send_hdr(8'h11, 8'd64, 32'h0001_0000);
    wait_clks(20 * BIT);
    mon_en = 0;
    do_reset(3);
    wait_clks(12 * BIT);
    rxq.delete();
    mon_en = 1;
    check(gpio_outputs_o, 32'h0, "gpio cleared by reset");
    read32(STS_A, v); check(v, 32'hcafe_0000, "status after reset in read");
    uart_rxd_i = 0; wait_clks(3 * BIT);           // reset in the middle of a received frame
    do_reset(2); uart_rxd_i = 1; wait_clks(12 * BIT);
    // reset while a write waits on B
    b_lat = 500;
    send_hdr(8'h10, 8'd4, 32'h0000_7000); send_byte(1); send_byte(2); send_byte(3); send_byte(4);
    wait_clks(100); do_reset(2); b_lat = 0; wait_clks(10);
    read32(STS_A, v); check(v, 32'hcafe_0000, "status after reset in write");
    write32(32'h0000_7000, 32'h7777_0000); wait_idle();
    host_read_check(32'h0000_7000, 4);

    wait_clks(4 * BIT);
    check(frame_err, 0, "host receiver framing errors");
    check(prot_err, 0, "AXI protocol errors");
    $display("TB DONE: %0d checks, %0d mismatches (%0d AXI writes, %0d AXI reads)", nchecks, errors, n_wr, n_rd);
    $finish;
  end

  initial begin
    #400_000_000;
    $display("TIMEOUT: %0d checks, %0d mismatches", nchecks, errors);
    $finish;
  end
endmodule
