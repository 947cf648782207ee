`timescale 1ns/1ps
`default_nettype none
// Hand-written reference testbench for jeras/sockit_owm (1-wire master with an
// Avalon-MM slave port: bus_ren/bus_wen/bus_adr/bus_wdt/bus_rdt, no wait states).
// Default parameters: BDW=32, OWN=1, OVD_E=1, CDR_E=1, BTP_N="5.0", BTP_O="1.0",
// CDR_N=4, CDR_O=0.  Register map (32-bit bus):
//   adr 0  ctl/sts: [0] dat  [1] rst  [2] ovd  [3] cyc  [4] pwr  [6] irq_sts  [7] irq_ena
//   adr 1  clock divider: [15:0] cdr_n  [31:16] cdr_o
// A 1-wire device model (DS2401-like: presence, command byte, Read ROM 0x33,
// Overdrive Skip ROM 0x3C) sits on the wire and checks every slot's timing.
module tb;
  logic clk = 1'b0, rst = 1'b1;
  always #500 clk = ~clk;  // 1 MHz: the default dividers give 5 us / 1 us base periods

  logic        bus_ren = 1'b0, bus_wen = 1'b0;
  logic [0:0]  bus_adr = '0;
  logic [31:0] bus_wdt = '0;
  wire  [31:0] bus_rdt;
  wire         bus_irq;
  wire  [0:0]  owr_p, owr_e;
  wire  [0:0]  owr_i;

  sockit_owm dut (
    .clk(clk), .rst(rst),
    .bus_ren(bus_ren), .bus_wen(bus_wen), .bus_adr(bus_adr), .bus_wdt(bus_wdt),
    .bus_rdt(bus_rdt), .bus_irq(bus_irq),
    .owr_p(owr_p), .owr_e(owr_e), .owr_i(owr_i)
  );

  int errors = 0, nchecks = 0;
  task automatic check(input logic [31:0] got, input logic [31:0] exp, input string what);
    nchecks++;
    if (got !== exp) begin
      errors++;
      $display("ERROR %s: got %0h exp %0h @%0t", what, got, exp, $time);
    end
  endtask

  // ------------------------------------------------------------------
  // Wire: open drain with pull-up; master (owr_e), device and a stuck-low fault
  // ------------------------------------------------------------------
  logic dev_pull, stuck_low = 1'b0;
  assign owr_i[0] = ~(owr_e[0] | dev_pull | stuck_low);

  // ------------------------------------------------------------------
  // Device model (counts clocks; bp = clocks per base period of the mode)
  // ------------------------------------------------------------------
  bit   dev_en = 1'b1;       // device connected
  bit   dev_ovd = 1'b0;      // device in overdrive
  int   cdr_n = 4, cdr_o = 0;  // mirrors of the divider register
  bit   m_ovd = 1'b0;        // master speed of the running slot (mirror)
  int   lowcnt = 0, pull_left = 0, pres_wait = 0, pres_left = 0;
  logic e_q = 1'b0;
  int   n_resets = 0, n_slots = 0;
  // device protocol state
  typedef enum {D_IDLE, D_CMD, D_ROM_TX} dstate_t;
  dstate_t dstate = D_IDLE;
  logic [7:0]  cmd_sr;  int cmd_n = 0;
  logic [63:0] rom = 64'hA5_0000_0123_4567_01;  // family 0x01
  int   rom_i = 0;
  logic last_rx_bit;  int rx_bits = 0;

  assign dev_pull = (pull_left > 0) || (pres_wait == 0 && pres_left > 0);

  function automatic int bp();
    return m_ovd ? cdr_o + 1 : cdr_n + 1;
  endfunction

  always @(posedge clk) begin
    e_q <= owr_e[0];
    if (pull_left > 0) pull_left <= pull_left - 1;
    if (pres_wait > 0) pres_wait <= pres_wait - 1;
    else if (pres_left > 0) pres_left <= pres_left - 1;
    if (owr_e[0]) lowcnt <= lowcnt + 1;
    if (owr_e[0] && !e_q) begin                        // master pulls the wire low
      lowcnt <= 1;
      if (dev_en && dstate == D_ROM_TX && !rom[rom_i])
        pull_left <= (m_ovd ? 4 : 6) * bp();           // drive a 0 through the sample point
    end
    if (!owr_e[0] && e_q) begin                        // master releases
      if (lowcnt > 30 * bp()) begin                    // reset pulse
        n_resets++;
        if (dev_en) begin
          pres_wait <= 2 * bp();
          pres_left <= (m_ovd ? 12 : 24) * bp();
          dstate = D_CMD; cmd_n = 0;
        end
      end else if (dev_en) begin                       // time slot
        n_slots++;
        last_rx_bit = lowcnt <= 3 * bp();
        rx_bits++;
        case (dstate)
          D_CMD: begin
            cmd_sr = {last_rx_bit, cmd_sr[7:1]}; cmd_n++;
            if (cmd_n == 8) begin
              if (cmd_sr == 8'h33 || cmd_sr == 8'h3C) begin dstate = D_ROM_TX; rom_i = 0; end
              else dstate = D_IDLE;
              if (cmd_sr == 8'h3C) dev_ovd = 1'b1;
            end
          end
          D_ROM_TX: begin
            if (rom_i == 63) dstate = D_IDLE; else rom_i++;
          end
          default: ;
        endcase
      end
    end
  end

  // ------------------------------------------------------------------
  // Avalon-MM master tasks (zero wait state slave)
  // ------------------------------------------------------------------
  task automatic av_write(input logic adr, input logic [31:0] data);
    @(posedge clk); #1;
    bus_wen = 1'b1; bus_adr = adr; bus_wdt = data;
    @(posedge clk); #1;
    bus_wen = 1'b0; bus_wdt = $urandom;  // data bus not held
  endtask

  task automatic av_read(input logic adr, output logic [31:0] data);
    @(posedge clk); #1;
    bus_ren = 1'b1; bus_adr = adr;
    @(posedge clk);
    data = bus_rdt;                      // combinational read data, sampled at the edge
    #1 bus_ren = 1'b0;
  endtask

  localparam [31:0] DAT = 1, RST = 2, OVD = 4, CYC = 8, PWR = 16, IEN = 128;

  // Start a 1-wire cycle and wait for its end; poll = status polling, else IRQ
  task automatic owm_cycle(input logic [31:0] ctl, input bit poll, output logic [31:0] sts);
    int t0, clocks, exp_bp, guard;
    m_ovd = ctl[2];
    av_write(0, ctl);
    t0 = $time / 1000;
    guard = 0;
    if (poll) begin
      do begin av_read(0, sts); guard++; end while (sts[3] && guard < 100000);
    end else begin
      while (!bus_irq && guard < 400000) begin @(posedge clk); guard++; end
      check(bus_irq, 1'b1, "irq at cycle end");
      av_read(0, sts);
      check(sts[6], 1'b1, "irq_sts set when irq");
      @(posedge clk); #1;
      check(bus_irq, 1'b0, "irq cleared by status read");
    end
    check(sts[3], 1'b0, "cycle ended");
  endtask

  // Expected cycle duration in base periods
  function automatic int slot_bp(input logic [1:0] rs, input bit ovd);
    if (rs == 2'b11) return ovd ? 96 : 200;
    if (rs[1])       return ovd ? 96 : 192;
    return ovd ? 8 : 13;
  endfunction

  // Timed cycle: checks cycle length and low-pulse length on the wire
  int low_clocks, cyc_clocks;
  task automatic timed_cycle(input logic [31:0] ctl, output logic [31:0] sts);
    int b;
    m_ovd = ctl[2];
    b = m_ovd ? cdr_o + 1 : cdr_n + 1;
    low_clocks = 0; cyc_clocks = 0;
    @(posedge clk); #1;
    bus_wen = 1'b1; bus_adr = 0; bus_wdt = ctl;
    @(posedge clk); #1;
    bus_wen = 1'b0;
    if (owr_e[0]) low_clocks++;
    while (dut.owr_cyc) begin
      @(posedge clk); #1; cyc_clocks++;
      if (owr_e[0]) low_clocks++;
    end
    check(cyc_clocks, slot_bp(ctl[1:0], ctl[2]) * b, $sformatf("cycle length ctl=%0h", ctl));
    if (ctl[1:0] == 2'b10)      check(low_clocks, (ctl[2] ? 48 : 96) * b, "reset low time");
    else if (ctl[1:0] == 2'b01) check(low_clocks, 1 * b, "write-1 low time");
    else if (ctl[1:0] == 2'b00) check(low_clocks, (ctl[2] ? 6 : 12) * b, "write-0 low time");
    else                        check(low_clocks, 0, "idle: wire not driven");
    av_read(0, sts);
  endtask

  // 1-wire bus reset; returns 1 when a presence pulse was seen
  task automatic ow_reset(input bit ovd, input bit poll, output bit present);
    logic [31:0] s;
    owm_cycle(CYC | RST | (ovd ? OVD : 0) | (poll ? 0 : IEN), poll, s);
    check(s[1], 1'b1, "rst bit kept");
    check(s[2], ovd, "ovd bit");
    present = ~s[0];
  endtask

  task automatic ow_bit(input bit ovd, input bit b, output bit r);
    logic [31:0] s;
    owm_cycle(CYC | (b ? DAT : 0) | (ovd ? OVD : 0), 1'b1, s);
    r = s[0];
  endtask

  task automatic ow_write_byte(input bit ovd, input logic [7:0] d);
    bit r;
    for (int i = 0; i < 8; i++) begin
      ow_bit(ovd, d[i], r);
      check(last_rx_bit, d[i], $sformatf("device received bit %0d", i));
      check(r, d[i], "wire read-back of written bit");
    end
  endtask

  task automatic ow_read_bits(input bit ovd, input int n, output logic [63:0] v);
    bit r;
    v = '0;
    for (int i = 0; i < n; i++) begin ow_bit(ovd, 1'b1, r); v[i] = r; end
  endtask

  task automatic do_reset();
    rst = 1'b1; bus_ren = 0; bus_wen = 0;
    repeat (3) @(posedge clk);
    #1 rst = 1'b0;
    cdr_n = 4; cdr_o = 0; m_ovd = 0; dstate = D_IDLE; dev_ovd = 0; pull_left = 0; pres_left = 0;
    @(posedge clk);
  endtask

  logic [31:0] r;
  logic [63:0] v;
  bit pres, b;

  initial begin
    do_reset();

    // ---- reset values
    av_read(0, r); check(r, 32'h0, "ctl reset value");
    av_read(1, r); check(r, 32'h0000_0004, "cdr reset value");
    check(owr_e, 1'b0, "wire released at reset");
    check(owr_p, 1'b0, "power off at reset");
    check(bus_irq, 1'b0, "irq low at reset");

    // ---- divider register read/write
    av_write(1, 32'hFFFF_FFFF); av_read(1, r); check(r, 32'hFFFF_FFFF, "cdr all ones");
    av_write(1, 32'hA5C3_5A3C); av_read(1, r); check(r, 32'hA5C3_5A3C, "cdr pattern");
    av_write(1, 32'h0000_0000); av_read(1, r); check(r, 32'h0, "cdr zero");
    av_write(1, {16'd0, 16'd4});

    // ---- power / irq enable bits without a cycle
    // (the HAL's owLevel() writes exactly PWR, or 0, to switch the strong pull-up)
    av_write(0, PWR); av_read(0, r);
    check(r, PWR, "pwr bit"); check(owr_p, 1'b1, "owr_p on");
    check(owr_e, 1'b0, "ctl write without CYC (owLevel) must not pull the wire low");
    av_write(0, IEN); av_read(0, r); check(r, IEN, "irq_ena bit"); check(owr_p, 1'b0, "owr_p off");
    av_write(0, 32'hFFFF_FFFF); av_read(0, r);         // [2:0]=111: no cycle
    check(r, 32'h0000_0097, "only writable bits, no cycle");
    av_write(0, 0);

    // ---- normal speed: timing of every slot type
    timed_cycle(CYC | RST, r);       check(r[0], 1'b0, "presence (timed)");
    timed_cycle(CYC | DAT, r);       check(r[0], 1'b1, "write 1 (timed)");
    timed_cycle(CYC, r);             check(r[0], 1'b0, "write 0 (timed)");
    timed_cycle(CYC | RST | DAT, r); check(r[0], 1'b1, "idle cycle samples a high wire");
    check(r[6], 1'b1, "irq_sts after idle");

    // ---- Read ROM at normal speed, polling
    ow_reset(0, 1, pres); check(pres, 1'b1, "presence");
    ow_write_byte(0, 8'h33);
    ow_read_bits(0, 64, v);
    check(v[31:0], rom[31:0], "ROM low word");
    check(v[63:32], rom[63:32], "ROM high word");

    // ---- the same with interrupts
    ow_reset(0, 0, pres); check(pres, 1'b1, "presence (irq)");
    ow_write_byte(0, 8'h33);
    ow_read_bits(0, 8, v); check(v[7:0], rom[7:0], "family code");
    // unknown command: the device stays silent, reads give ones
    ow_reset(0, 1, pres);
    ow_write_byte(0, 8'hF0);
    ow_read_bits(0, 8, v); check(v[7:0], 8'hFF, "silent device reads 1");

    // ---- no device: no presence; stuck-low wire: presence and zeros
    dev_en = 0;
    ow_reset(0, 1, pres); check(pres, 1'b0, "no presence without device");
    ow_bit(0, 1, b); check(b, 1'b1, "empty bus reads 1");
    stuck_low = 1;
    ow_reset(0, 1, pres); check(pres, 1'b1, "stuck-low bus looks present");
    ow_bit(0, 1, b); check(b, 1'b0, "stuck-low bus reads 0");
    stuck_low = 0; dev_en = 1;

    // ---- overdrive: Overdrive Skip ROM at normal speed, then overdrive slots
    ow_reset(0, 1, pres);
    ow_write_byte(0, 8'h3C);
    ow_read_bits(0, 64, v); check(v, rom, "ROM (0x3C)");
    timed_cycle(CYC | OVD | RST, r);       check(r[0], 1'b0, "overdrive presence (timed)");
    check(r[2], 1'b1, "ovd bit set");
    timed_cycle(CYC | OVD | DAT, r);       check(r[0], 1'b1, "overdrive write 1");
    timed_cycle(CYC | OVD, r);             check(r[0], 1'b0, "overdrive write 0");
    ow_reset(1, 1, pres); check(pres, 1'b1, "overdrive presence");
    ow_write_byte(1, 8'h33);
    ow_read_bits(1, 64, v); check(v, rom, "ROM at overdrive");
    ow_reset(1, 0, pres); check(pres, 1'b1, "overdrive presence (irq)");

    // ---- the status must stay quiet between cycles (irq_sts means 'cycle ended')
    av_read(0, r);  // clears irq_sts
    repeat (600) @(posedge clk);
    av_read(0, r); check(r[6], 1'b0, "no spurious irq_sts after an overdrive cycle");
    av_write(0, 0);                       // back to normal speed
    repeat (600) @(posedge clk);
    av_read(0, r); check(r[6], 1'b0, "no spurious irq_sts after ctl write");
    av_write(0, IEN | OVD | RST | DAT);   // [2:0]=111: no cycle, overdrive selected
    av_read(0, r); check(r[3], 1'b0, "ctl 111: no cycle started");
    check(r[2], 1'b1, "ctl 111: ovd kept");
    repeat (600) @(posedge clk);
    av_read(0, r); check(r[6], 1'b0, "no spurious irq_sts after a ctl 111 write");
    av_write(0, 0);

    // ---- other divider settings (2 MHz style: cdr_n=9, cdr_o=1)
    av_write(1, {16'd1, 16'd9}); cdr_n = 9; cdr_o = 1;
    timed_cycle(CYC | RST, r);       check(r[0], 1'b0, "presence cdr 9");
    timed_cycle(CYC, r);             check(r[0], 1'b0, "write 0 cdr 9");
    timed_cycle(CYC | DAT, r);       check(r[0], 1'b1, "write 1 cdr 9");
    timed_cycle(CYC | OVD | RST, r); check(r[0], 1'b0, "overdrive presence cdr 1");
    timed_cycle(CYC | OVD | DAT, r); check(r[0], 1'b1, "overdrive write 1 cdr 1");
    ow_reset(0, 1, pres);
    ow_write_byte(0, 8'h33);
    ow_read_bits(0, 16, v); check(v[15:0], rom[15:0], "ROM cdr 9");
    // large divider: long base period (0x00FF)
    av_write(1, {16'h0020, 16'h00FF}); cdr_n = 255; cdr_o = 32;
    timed_cycle(CYC | DAT, r); check(r[0], 1'b1, "write 1 cdr 255");
    timed_cycle(CYC | OVD, r); check(r[0], 1'b0, "write 0 ovd cdr 32");
    // largest divider: a bus write aborts the slot (divider back to 0)
    av_write(1, {16'hFFFF, 16'hFFFF}); cdr_n = 65535; cdr_o = 65535;
    av_write(0, CYC | DAT); m_ovd = 0;
    repeat (65300) @(posedge clk);
    check(dut.div > 16'hFF00, 1'b1, "divider counts to 0xFFFF");
    av_write(0, 0);
    av_read(0, r); check(r[3], 1'b0, "ctl write aborts the slot");
    check(owr_e, 1'b0, "wire released after abort (ctl write 0, no CYC)");
    av_write(1, {16'd0, 16'd4}); cdr_n = 4; cdr_o = 0;

    // ---- bus write during a cycle restarts the divider; status write cancels irq
    av_write(0, CYC | RST | IEN); m_ovd = 0;
    repeat (50) @(posedge clk);
    av_write(1, {16'd0, 16'd4});         // divider register write mid-cycle
    av_read(0, r); check(r[3], 1'b1, "cycle still running");
    while (!bus_irq) @(posedge clk);
    av_write(0, IEN);                    // a control write clears irq_sts
    @(posedge clk); #1 check(bus_irq, 1'b0, "irq cleared by ctl write");
    // read of the divider register does not clear irq_sts
    av_write(0, CYC | DAT | IEN); m_ovd = 0;
    while (!bus_irq) @(posedge clk);
    av_read(1, r); @(posedge clk); #1 check(bus_irq, 1'b1, "cdr read keeps irq");
    av_read(0, r); check(r[7:6], 2'b11, "irq_ena/irq_sts");
    // irq_sts with interrupts disabled: status only
    av_write(0, CYC | DAT); m_ovd = 0;
    repeat (80) @(posedge clk);
    check(bus_irq, 1'b0, "irq masked");
    av_read(0, r); check(r[6], 1'b1, "irq_sts without enable");

    // ---- power during a read (strong pull-up), then off
    av_write(0, CYC | DAT | PWR); m_ovd = 0;
    check(owr_p, 1'b1, "power during slot");
    repeat (80) @(posedge clk);
    av_write(0, 0); check(owr_p, 1'b0, "power off");

    // ---- asynchronous reset in the middle of a reset cycle
    av_write(1, {16'h0003, 16'h0007});
    av_write(0, CYC | RST | PWR | IEN);
    repeat (100) @(posedge clk);
    check(owr_e, 1'b1, "wire low in reset cycle");
    #200 rst = 1'b1; #300;
    check(owr_e, 1'b0, "async reset releases the wire");
    check(owr_p, 1'b0, "async reset powers off");
    check(bus_rdt, 32'h0, "ctl cleared by reset");
    @(posedge clk); #1 rst = 1'b0;
    cdr_n = 4; cdr_o = 0; dstate = D_IDLE; pull_left = 0; pres_left = 0; pres_wait = 0;
    bus_adr = 1; #1 check(bus_rdt, 32'h4, "cdr back to default");
    repeat (300) @(posedge clk);
    ow_reset(0, 1, pres); check(pres, 1'b1, "presence after reset");

    // ---- random slots
    for (int k = 0; k < 30; k++) begin
      logic [31:0] c;
      c = CYC | ($urandom & (DAT | RST | OVD | PWR | IEN));
      if (c[2:0] == 3'b111) c[0] = 1'b0;
      timed_cycle(c, r);
    end

    repeat (20) @(posedge clk);
    $display("SUMMARY sockit_owm: %0d checks, %0d mismatches (%0d resets, %0d slots seen by the device)",
             nchecks, errors, n_resets, n_slots);
    if (errors == 0) $display("PASS"); else $display("FAIL");
    $finish;
  end

  initial begin
    #2s;
    $display("TIMEOUT: %0d checks, %0d mismatches", nchecks, errors);
    $finish;
  end
endmodule
`default_nettype wire
