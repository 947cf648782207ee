`timescale 1ns/1ps
`default_nettype none
// Hand-written reference testbench for alexforencich/verilog-axi axi_ram
// (default parameters: 32-bit data, 16-bit address, 8-bit IDs, PIPELINE_OUTPUT=0).
// AXI4 master BFM with independent AW/W/B and AR/R threads, random valid/ready
// gaps, a byte-level memory model as scoreboard, every burst type, every size
// (narrow and oversize), long and short bursts, ID and response checks, and a
// reset in the middle of traffic.
module tb;
  localparam DW = 32, AW = 16, SW = DW/8, IW = 8;

  logic clk = 1'b0, rst = 1'b1;
  always #5 clk = ~clk;

  logic [IW-1:0] awid = '0;   logic [AW-1:0] awaddr = '0; logic [7:0] awlen = '0;
  logic [2:0] awsize = '0;    logic [1:0] awburst = '0;   logic awlock = 1'b0;
  logic [3:0] awcache = '0;   logic [2:0] awprot = '0;    logic awvalid = 1'b0;
  wire awready;
  logic [DW-1:0] wdata = '0;  logic [SW-1:0] wstrb = '0;  logic wlast = 1'b0, wvalid = 1'b0;
  wire wready;
  wire [IW-1:0] bid; wire [1:0] bresp; wire bvalid; logic bready = 1'b0;
  logic [IW-1:0] arid = '0;   logic [AW-1:0] araddr = '0; logic [7:0] arlen = '0;
  logic [2:0] arsize = '0;    logic [1:0] arburst = '0;   logic arlock = 1'b0;
  logic [3:0] arcache = '0;   logic [2:0] arprot = '0;    logic arvalid = 1'b0;
  wire arready;
  wire [IW-1:0] rid; wire [DW-1:0] rdata; wire [1:0] rresp; wire rlast, rvalid;
  logic rready = 1'b0;

  axi_ram dut (
    .clk(clk), .rst(rst),
    .s_axi_awid(awid), .s_axi_awaddr(awaddr), .s_axi_awlen(awlen), .s_axi_awsize(awsize),
    .s_axi_awburst(awburst), .s_axi_awlock(awlock), .s_axi_awcache(awcache), .s_axi_awprot(awprot),
    .s_axi_awvalid(awvalid), .s_axi_awready(awready),
    .s_axi_wdata(wdata), .s_axi_wstrb(wstrb), .s_axi_wlast(wlast), .s_axi_wvalid(wvalid),
    .s_axi_wready(wready),
    .s_axi_bid(bid), .s_axi_bresp(bresp), .s_axi_bvalid(bvalid), .s_axi_bready(bready),
    .s_axi_arid(arid), .s_axi_araddr(araddr), .s_axi_arlen(arlen), .s_axi_arsize(arsize),
    .s_axi_arburst(arburst), .s_axi_arlock(arlock), .s_axi_arcache(arcache), .s_axi_arprot(arprot),
    .s_axi_arvalid(arvalid), .s_axi_arready(arready),
    .s_axi_rid(rid), .s_axi_rdata(rdata), .s_axi_rresp(rresp), .s_axi_rlast(rlast),
    .s_axi_rvalid(rvalid), .s_axi_rready(rready)
  );

  int errors = 0, nchecks = 0, nacc = 0;
  bit bready_early = 0;
  int wvalid_gap = 0, bready_gap = 0, rready_gap = 0;  // % chance of idling a cycle

  // Byte memory model (the RAM initialises to zero)
  byte unsigned model [int];
  function automatic byte unsigned mget(int a);
    return model.exists(a) ? model[a] : 8'h00;
  endfunction

  task automatic check(input logic [63:0] got, input logic [63:0] exp, input string what);
    nchecks++;
    if (got !== exp) begin
      errors++;
      $display("ERROR %s: got %0h exp %0h @%0t", what, got, exp, $time);
    end
  endtask

  // Address of beat n as the RAM computes it: FIXED stays, INCR and WRAP
  // advance by 1<<min(size,2) (the README promises FIXED and INCR only).
  function automatic logic [AW-1:0] beat_addr(logic [AW-1:0] a, logic [2:0] size, logic [1:0] burst, int n);
    int s = (size > 2) ? 2 : size;
    if (burst == 2'b00) return a;
    return a + (n << s);
  endfunction

  task automatic idle_rand(input int pct);
    while ($urandom_range(99) < pct) @(posedge clk);
  endtask

  // ------------------------------------------------------------------ write
  task automatic axi_write(input logic [IW-1:0] id, input logic [AW-1:0] addr, input int len,
                           input logic [2:0] size, input logic [1:0] burst,
                           input logic [DW-1:0] data[$], input logic [SW-1:0] strb[$]);
    if (bready_early) bready = 1'b1;   // master that always accepts responses
    fork
      begin // AW
        @(posedge clk); #1;
        awid = id; awaddr = addr; awlen = len[7:0]; awsize = size; awburst = burst;
        awlock = $urandom; awcache = $urandom; awprot = $urandom; awvalid = 1'b1;
        do @(posedge clk); while (!awready);
        #1 awvalid = 1'b0;
      end
      begin // W
        @(posedge clk);
        for (int n = 0; n <= len; n++) begin
          #1;
          if ($urandom_range(99) < wvalid_gap) begin
            wvalid = 1'b0;
            while ($urandom_range(99) < wvalid_gap) @(posedge clk);
            @(posedge clk); #1;
          end
          wdata = data[n]; wstrb = strb[n]; wlast = (n == len); wvalid = 1'b1;
          do @(posedge clk); while (!wready);
          begin
            logic [AW-1:0] ba = beat_addr(addr, size, burst, n);
            int wa = ba & ~(SW-1);
            for (int b = 0; b < SW; b++) if (strb[n][b]) model[wa + b] = data[n][8*b +: 8];
          end
        end
        #1 wvalid = 1'b0; wlast = 1'b0;
      end
    join
    // B
    if (!bready_early) begin
      @(posedge clk); #1;
      idle_rand(bready_gap);
      #1 bready = 1'b1;
    end
    do @(posedge clk); while (!bvalid);
    check(bid, id, "bid");
    check(bresp, 2'b00, "bresp");
    #1 bready = 1'b0;
  endtask

  // ------------------------------------------------------------------- read
  task automatic axi_read(input logic [IW-1:0] id, input logic [AW-1:0] addr, input int len,
                          input logic [2:0] size, input logic [1:0] burst);
    @(posedge clk); #1;
    arid = id; araddr = addr; arlen = len[7:0]; arsize = size; arburst = burst;
    arlock = $urandom; arcache = $urandom; arprot = $urandom; arvalid = 1'b1;
    do @(posedge clk); while (!arready);
    #1 arvalid = 1'b0;
    for (int n = 0; n <= len; n++) begin
      rready = 1'b0;
      idle_rand(rready_gap);
      #1 rready = 1'b1;
      do @(posedge clk); while (!rvalid);
      begin
        logic [AW-1:0] ba = beat_addr(addr, size, burst, n);
        int wa = ba & ~(SW-1);
        logic [DW-1:0] exp;
        for (int b = 0; b < SW; b++) exp[8*b +: 8] = mget(wa + b);
        check(rdata, exp, $sformatf("rdata id=%0h a=%0h beat %0d", id, addr, n));
        check(rid, id, "rid");
        check(rresp, 2'b00, "rresp");
        check(rlast, n == len, "rlast");
      end
      #1;
    end
    rready = 1'b0;
  endtask

  // Full-lane write burst with random data
  task automatic wr_burst(input logic [IW-1:0] id, input logic [AW-1:0] addr, input int len,
                          input logic [2:0] size = 3'd2, input logic [1:0] burst = 2'b01,
                          input bit rand_strb = 0);
    logic [DW-1:0] d[$]; logic [SW-1:0] s[$];
    for (int n = 0; n <= len; n++) begin
      d.push_back($urandom);
      if (rand_strb) s.push_back($urandom);
      else if (size >= 2) s.push_back('1);
      else begin
        // narrow beat: strobe only the lanes the beat address selects
        logic [AW-1:0] ba = beat_addr(addr, size, burst, n);
        int nb = 1 << size;
        logic [SW-1:0] m = '0;
        for (int b = 0; b < nb; b++) m[(ba & (SW-1) & ~(nb-1)) + b] = 1'b1;
        s.push_back(m);
      end
    end
    axi_write(id, addr, len, size, burst, d, s);
  endtask

  task automatic do_reset(input int cycles);
    #1 rst = 1'b1;
    awvalid = 0; wvalid = 0; arvalid = 0; bready = 0; rready = 0; wlast = 0;
    repeat (cycles) @(posedge clk);
    #1 rst = 1'b0;
    @(posedge clk);
  endtask

  // Concurrent traffic: independent write and read streams on disjoint regions
  task automatic concurrent(input int n);
    fork
      for (int k = 0; k < n; k++)
        wr_burst($urandom, 16'h4000 + 16'(k*64), $urandom_range(15), 3'd2, 2'b01);
      for (int k = 0; k < n; k++)
        axi_read($urandom, 16'h2000 + 16'(k*64), $urandom_range(15), 3'd2, 2'b01);
    join
  endtask

  initial begin
    do_reset(5);
    // Reset state: ready flags
    repeat (2) @(posedge clk);
    check(awready, 1'b1, "awready idle");
    check(arready, 1'b1, "arready idle");
    check(bvalid, 1'b0, "bvalid idle");
    check(rvalid, 1'b0, "rvalid idle");

    // 1. Reads of unwritten memory are zero
    axi_read(8'h01, 16'h0000, 3, 3'd2, 2'b01);

    // 2. Single beats, every lane combination, across the address range
    for (int k = 0; k < 16; k++) begin
      logic [DW-1:0] d[$]; logic [SW-1:0] s[$];
      d.push_back($urandom); s.push_back(k[3:0]);
      axi_write(8'(k), 16'h0100, 0, 3'd2, 2'b01, d, s);
      axi_read(8'(~k), 16'h0100, 0, 3'd2, 2'b01);
    end
    for (int b = 2; b < AW; b++) begin   // walk every address bit
      wr_burst(8'(1 << (b % 8)), 16'(1 << b), 0);
      axi_read(8'(~(1 << (b % 8))), 16'(1 << b), 0, 3'd2, 2'b01);
    end
    wr_burst(8'hFF, 16'hFFFC, 0);
    axi_read(8'hFF, 16'hFFFC, 0, 3'd2, 2'b01);
    wr_burst(8'h00, 16'h0000, 0);
    axi_read(8'h00, 16'h0000, 0, 3'd2, 2'b01);

    // 3. INCR bursts of many lengths (including the 256-beat maximum)
    for (int l = 1; l <= 16; l++) begin
      wr_burst(8'($urandom), 16'h1000 + 16'(l * 128), l);
      axi_read(8'($urandom), 16'h1000 + 16'(l * 128), l, 3'd2, 2'b01);
    end
    wr_burst(8'hA5, 16'h8000, 255);
    axi_read(8'h5A, 16'h8000, 255, 3'd2, 2'b01);
    wr_burst(8'h3C, 16'hFC00, 255);                 // reaches 0xFFFC at the last beat
    axi_read(8'hC3, 16'hFC00, 255, 3'd2, 2'b01);

    // 4. FIXED bursts: every beat hits the same word (strobes decide)
    wr_burst(8'h11, 16'h0200, 7, 3'd2, 2'b00, 1);
    axi_read(8'h22, 16'h0200, 7, 3'd2, 2'b00);
    wr_burst(8'h33, 16'h0204, 3, 3'd0, 2'b00);
    axi_read(8'h44, 16'h0204, 3, 3'd0, 2'b00);

    // 5. WRAP bursts (not promised by the README: the RAM advances as INCR)
    wr_burst(8'h55, 16'h0308, 3, 3'd2, 2'b10);
    axi_read(8'h66, 16'h0308, 3, 3'd2, 2'b10);
    wr_burst(8'h77, 16'h0334, 7, 3'd2, 2'b10);
    axi_read(8'h88, 16'h0334, 7, 3'd2, 2'b10);
    // burst type 2'b11 (reserved)
    wr_burst(8'h99, 16'h0380, 2, 3'd2, 2'b11);
    axi_read(8'hAA, 16'h0380, 2, 3'd2, 2'b11);

    // 6. Narrow bursts (byte and halfword), unaligned starts, oversize sizes
    wr_burst(8'h12, 16'h0401, 6, 3'd0, 2'b01);
    axi_read(8'h21, 16'h0400, 7, 3'd0, 2'b01);
    axi_read(8'h21, 16'h0400, 1, 3'd2, 2'b01);
    wr_burst(8'h34, 16'h0502, 5, 3'd1, 2'b01);
    axi_read(8'h43, 16'h0500, 7, 3'd1, 2'b01);
    axi_read(8'h44, 16'h0503, 4, 3'd0, 2'b01);
    axi_read(8'h45, 16'h0402, 2, 3'd1, 2'b01);
    axi_read(8'h46, 16'h0401, 0, 3'd0, 2'b00);
    for (int sz = 3; sz < 8; sz++) begin           // larger than the bus: clipped to 4 bytes
      wr_burst(8'(sz), 16'h0600 + 16'(sz*32), 3, 3'(sz), 2'b01);
      axi_read(8'(sz), 16'h0600 + 16'(sz*32), 3, 3'(sz), 2'b01);
    end

    // 7. Back-pressure on every channel
    wvalid_gap = 50; bready_gap = 70; rready_gap = 60;
    for (int k = 0; k < 12; k++) begin
      int l = $urandom_range(7);
      logic [AW-1:0] a = 16'h0800 + 16'($urandom_range(255) * 4);
      wr_burst(8'($urandom), a, l, 3'd2, 2'($urandom_range(1) ? 2'b01 : 2'b00), $urandom_range(1));
      axi_read(8'($urandom), a, l, 3'd2, 2'b01);
    end
    // B held off while the next write already completes (response stall state)
    begin
      logic [DW-1:0] d[$]; logic [SW-1:0] s[$];
      d.push_back(32'hCAFEF00D); s.push_back(4'hF);
      bready_gap = 0;
      fork
        begin
          @(posedge clk); #1;
          awid = 8'hE1; awaddr = 16'h0900; awlen = 0; awsize = 2; awburst = 1; awvalid = 1;
          do @(posedge clk); while (!awready);
          #1 awvalid = 0; wdata = 32'h11112222; wstrb = 4'hF; wlast = 1; wvalid = 1;
          do @(posedge clk); while (!wready);
          #1 wvalid = 0; wlast = 0;
          model[16'h0900] = 8'h22; model[16'h0901] = 8'h22; model[16'h0902] = 8'h11; model[16'h0903] = 8'h11;
          // second write while bvalid of the first is still pending
          awid = 8'hE2; awaddr = 16'h0904; awvalid = 1;
          do @(posedge clk); while (!awready);
          #1 awvalid = 0; wdata = 32'h33334444; wvalid = 1; wlast = 1;
          do @(posedge clk); while (!wready);
          #1 wvalid = 0; wlast = 0;
          model[16'h0904] = 8'h44; model[16'h0905] = 8'h44; model[16'h0906] = 8'h33; model[16'h0907] = 8'h33;
          repeat (4) @(posedge clk);
          check(awready, 1'b0, "awready low while B stalled");
          check(bvalid, 1'b1, "bvalid pending");
          check(bid, 8'hE1, "first bid");
          #1 bready = 1; @(posedge clk); #1 bready = 0;
          @(posedge clk);
          check(bvalid, 1'b1, "second bvalid");
          check(bid, 8'hE2, "second bid");
          #1 bready = 1; @(posedge clk); #1 bready = 0;
        end
      join
      axi_read(8'hE3, 16'h0900, 1, 3'd2, 2'b01);
    end

    // 8. Reads and writes at the same time
    wvalid_gap = 20; rready_gap = 20; bready_gap = 20;
    concurrent(10);
    wvalid_gap = 0; rready_gap = 0; bready_gap = 0;
    concurrent(6);
    bready_early = 1;
    concurrent(4);
    for (int k = 0; k < 4; k++) wr_burst(8'(k), 16'h0C00 + 16'(k*16), k);
    axi_read(8'h5F, 16'h0C00, 15, 3'd2, 2'b01);
    bready_early = 0;

    // 9. Reset in the middle of a write and of a read burst
    fork
      begin
        @(posedge clk); #1;
        awid = 8'h70; awaddr = 16'h0A00; awlen = 8; awsize = 2; awburst = 1; awvalid = 1;
        arid = 8'h71; araddr = 16'h0B00; arlen = 8; arsize = 2; arburst = 1; arvalid = 1;
        @(posedge clk); #1 awvalid = 0; arvalid = 0;
        wdata = 32'hDEADBEEF; wstrb = 4'hF; wvalid = 1; rready = 0;
        repeat (3) begin do @(posedge clk); while (!wready); nacc++; end
        #1 wvalid = 0;
        repeat (2) @(posedge clk);
      end
    join
    // the words accepted so far are in memory: model them
    for (int n = 0; n < nacc; n++) begin
      model[16'h0A00 + n*4 + 0] = 8'hEF; model[16'h0A00 + n*4 + 1] = 8'hBE;
      model[16'h0A00 + n*4 + 2] = 8'hAD; model[16'h0A00 + n*4 + 3] = 8'hDE;
    end
    do_reset(3);
    @(posedge clk);
    check(awready, 1'b1, "awready after reset");
    check(arready, 1'b1, "arready after reset");
    check(rvalid, 1'b0, "rvalid after reset");
    check(wready, 1'b0, "wready after reset");
    axi_read(8'h72, 16'h0A00, 3, 3'd2, 2'b01);
    wr_burst(8'h73, 16'h0A00, 3);
    axi_read(8'h74, 16'h0A00, 3, 3'd2, 2'b01);

    // 10. Random traffic over the whole map
    wvalid_gap = 30; rready_gap = 30; bready_gap = 30;
    for (int k = 0; k < 40; k++) begin
      logic [2:0] sz = $urandom_range(2);
      logic [AW-1:0] a = 16'($urandom) & ~16'((1 << sz) - 1);
      int l = $urandom_range(9);
      logic [1:0] bt = $urandom_range(1);
      if (int'(a) + ((l + 1) << sz) > 16'hFFFF) a = 16'h1000;
      wr_burst(8'($urandom), a, l, sz, bt);
      axi_read(8'($urandom), a, l, sz, bt);
    end

    repeat (10) @(posedge clk);
    $display("SUMMARY axi_ram: %0d checks, %0d mismatches", nchecks, errors);
    if (errors == 0) $display("PASS"); else $display("FAIL");
    $finish;
  end

  initial begin
    #20ms;
    $display("TIMEOUT: %0d checks, %0d mismatches", nchecks, errors);
    $finish;
  end
endmodule
`default_nettype wire
