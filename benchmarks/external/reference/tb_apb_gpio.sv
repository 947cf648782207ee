`timescale 1ns/1ps
`default_nettype none
// Hand-written reference testbench for pulp-platform/apb_gpio (top apb_gpio, PAD_NUM = 32).
// Register map and semantics from rtl/apb_gpio.sv and docs/APB_GPIO_reference.xlsx:
//   0x00 PADDIR  0x04 GPIOEN  0x08 PADIN (ro)  0x0C PADOUT  0x10 PADOUTSET (wo)  0x14 PADOUTCLR (wo)
//   0x18 INTEN   0x1C INTTYPE 0..15  0x20 INTTYPE 16..31 (2 bits/pin: 00 fall, 01 rise, 10 both, 11 RFU)
//   0x24 INTSTATUS (cleared on read)  0x28..0x34 PADCFG (4 bits/pin), 0x38..0x6C the same for pins 32..63
module tb;
  localparam [11:0] PADDIR = 12'h00, GPIOEN = 12'h04, PADIN = 12'h08, PADOUT = 12'h0C,
                    OUTSET = 12'h10, OUTCLR = 12'h14, INTEN = 12'h18, INTT0 = 12'h1C,
                    INTT1 = 12'h20, INTST = 12'h24, CFG0 = 12'h28, CFG1 = 12'h2C,
                    CFG2 = 12'h30, CFG3 = 12'h34;

  reg         HCLK = 0, HRESETn = 0, dft_cg_enable_i = 0;
  reg  [11:0] PADDR = 0;
  reg  [31:0] PWDATA = 0;
  reg         PWRITE = 0, PSEL = 0, PENABLE = 0;
  wire [31:0] PRDATA;
  wire        PREADY, PSLVERR;
  reg  [31:0] gpio_in = 0;
  wire [31:0] gpio_in_sync, gpio_out, gpio_dir;
  wire [31:0][3:0] gpio_padcfg;
  wire        interrupt;

  always #5 HCLK = ~HCLK;

  apb_gpio dut (
    .HCLK(HCLK), .HRESETn(HRESETn), .dft_cg_enable_i(dft_cg_enable_i),
    .PADDR(PADDR), .PWDATA(PWDATA), .PWRITE(PWRITE), .PSEL(PSEL), .PENABLE(PENABLE),
    .PRDATA(PRDATA), .PREADY(PREADY), .PSLVERR(PSLVERR),
    .gpio_in(gpio_in), .gpio_in_sync(gpio_in_sync), .gpio_out(gpio_out), .gpio_dir(gpio_dir),
    .gpio_padcfg(gpio_padcfg), .interrupt(interrupt)
  );

  integer errors = 0, nchecks = 0;
  task automatic check(input [31:0] got, input [31:0] exp, input string what);
    nchecks++;
    if (got !== exp) begin
      errors++;
      $display("ERROR: %s: got %08x exp %08x @%0t", what, got, exp, $time);
    end
  endtask

  task automatic clk(input integer n); repeat (n) @(posedge HCLK); endtask

  // ---------------- APB master (setup + access phase, waits on PREADY) ----------------
  task automatic apb_write(input [11:0] a, input [31:0] d);
    @(posedge HCLK); #1;
    PSEL = 1; PENABLE = 0; PWRITE = 1; PADDR = a; PWDATA = d;
    @(posedge HCLK); #1;
    PENABLE = 1;
    @(posedge HCLK);
    while (!PREADY) @(posedge HCLK);
    check({31'b0, PSLVERR}, 0, "PSLVERR on write");
    #1; PSEL = 0; PENABLE = 0; PWRITE = 0; PWDATA = $urandom;
  endtask

  task automatic apb_read(input [11:0] a, output [31:0] d);
    @(posedge HCLK); #1;
    PSEL = 1; PENABLE = 0; PWRITE = 0; PADDR = a;
    @(posedge HCLK); #1;
    PENABLE = 1;
    #1; while (!PREADY) begin @(posedge HCLK); #1; end
    d = PRDATA;
    check({31'b0, PSLVERR}, 0, "PSLVERR on read");
    @(posedge HCLK); #1;
    PSEL = 0; PENABLE = 0;
  endtask

  task automatic rd_check(input [11:0] a, input [31:0] exp, input string what);
    reg [31:0] d;
    apb_read(a, d);
    check(d, exp, what);
  endtask

  // ---------------- reference model of the registers ----------------
  reg [31:0] m_dir = 0, m_en = 0, m_out = 0, m_inten = 0, m_status = 0;
  reg [63:0] m_type = 0;
  reg [127:0] m_cfg = 0;

  task automatic check_all_regs(input string tag);
    rd_check(PADDIR, m_dir, {tag, " PADDIR"});
    rd_check(GPIOEN, m_en, {tag, " GPIOEN"});
    rd_check(PADOUT, m_out, {tag, " PADOUT"});
    rd_check(INTEN, m_inten, {tag, " INTEN"});
    rd_check(INTT0, m_type[31:0], {tag, " INTTYPE0"});
    rd_check(INTT1, m_type[63:32], {tag, " INTTYPE1"});
    rd_check(CFG0, m_cfg[31:0], {tag, " PADCFG0"});
    rd_check(CFG1, m_cfg[63:32], {tag, " PADCFG1"});
    rd_check(CFG2, m_cfg[95:64], {tag, " PADCFG2"});
    rd_check(CFG3, m_cfg[127:96], {tag, " PADCFG3"});
    check(gpio_out, m_out, {tag, " gpio_out pins"});
    check(gpio_dir, m_dir, {tag, " gpio_dir pins"});
    check(gpio_padcfg[7:0], m_cfg[31:0], {tag, " padcfg pins 0-7"});
    check(gpio_padcfg[31:24], m_cfg[127:96], {tag, " padcfg pins 24-31"});
  endtask

  task automatic wr(input [11:0] a, input [31:0] d);
    apb_write(a, d);
    case (a[6:0])
      7'h00: m_dir = d;  7'h04: m_en = d;  7'h0C: m_out = d;
      7'h10: m_out = m_out | d;  7'h14: m_out = m_out & ~d;
      7'h18: m_inten = d;  7'h1C: m_type[31:0] = d;  7'h20: m_type[63:32] = d;
      7'h28: m_cfg[31:0] = d;  7'h2C: m_cfg[63:32] = d;  7'h30: m_cfg[95:64] = d;  7'h34: m_cfg[127:96] = d;
      default: ;
    endcase
  endtask

  // expected edge-interrupt bits for a change old -> new on pins with the given types
  function automatic [31:0] edge_bits(input [31:0] o, input [31:0] n);
    reg [31:0] r;
    for (int i = 0; i < 32; i++) begin
      case (m_type[2*i +: 2])
        2'b00: r[i] = o[i] & ~n[i];
        2'b01: r[i] = ~o[i] & n[i];
        2'b10: r[i] = o[i] ^ n[i];
        default: r[i] = 1'b0;
      endcase
    end
    // input sampling runs for a pin when any pin of its group of 4 is enabled; the interrupt needs the pin's own enable
    edge_bits = r & m_inten & m_en;
  endfunction

  function automatic [31:0] grp_en(input [31:0] en);
    for (int g = 0; g < 8; g++) grp_en[4*g +: 4] = {4{|en[4*g +: 4]}};
  endfunction

  // drive pins, wait for the synchroniser, record the interrupt pulse, update expected status
  reg [31:0] pin_model = 0;   // what PADIN should show (sampled pins only)
  integer irq_pulses = 0;
  always @(posedge HCLK) if (HRESETn && interrupt) irq_pulses++;

  task automatic drive_pins(input [31:0] v, input string what);
    reg [31:0] ge, old, eb;
    integer p0;
    ge = grp_en(m_en);
    old = pin_model;
    p0 = irq_pulses;
    @(posedge HCLK); #1 gpio_in = v;
    clk(5);
    pin_model = (pin_model & ~ge) | (v & ge);
    eb = edge_bits(old, pin_model);
    m_status = m_status | eb;
    check(gpio_in_sync & ge, v & ge, {what, " gpio_in_sync"});
    check((irq_pulses > p0) ? 32'd1 : 32'd0, (eb != 0) ? 32'd1 : 32'd0, {what, " interrupt pulse"});
  endtask

  task automatic read_status(input string what);
    rd_check(INTST, m_status, {what, " INTSTATUS"});
    m_status = 0;
    rd_check(INTST, 32'h0, {what, " INTSTATUS cleared by read"});
  endtask

  reg [31:0] d;
  integer k;

  initial begin
    clk(3); #1 HRESETn = 1; clk(2);
    check({30'b0, PREADY, PSLVERR}, 32'b10, "PREADY=1 PSLVERR=0 idle");
    check(PRDATA, 0, "PRDATA idle 0");

    // ---- 1. reset values of every register
    check_all_regs("reset");
    rd_check(PADIN, 0, "reset PADIN");
    rd_check(INTST, 0, "reset INTSTATUS");

    // ---- 2. read/write every register with walking patterns
    for (k = 0; k < 4; k++) begin
      reg [31:0] p;
      p = (k == 0) ? 32'hffff_ffff : (k == 1) ? 32'ha5a5_5a5a : (k == 2) ? 32'h5a5a_a5a5 : 32'h0;
      wr(PADDIR, p); wr(PADOUT, ~p); wr(INTEN, p); wr(INTT0, p ^ 32'h3333_3333); wr(INTT1, ~p);
      wr(CFG0, p); wr(CFG1, ~p); wr(CFG2, {p[15:0], p[31:16]}); wr(CFG3, p ^ 32'h0f0f_0f0f);
      wr(GPIOEN, ~p);
      check_all_regs($sformatf("pattern %0d", k));
    end
    // write-only / read-only registers: OUTSET/OUTCLR read as 0, PADIN/INTSTATUS ignore writes
    wr(PADOUT, 32'h0000_ff00);
    wr(OUTSET, 32'h8000_0001); check(gpio_out, 32'h8000_ff01, "PADOUTSET");
    wr(OUTSET, 32'h0000_0000); check(gpio_out, 32'h8000_ff01, "PADOUTSET 0 = no change");
    wr(OUTCLR, 32'h0000_0f01); check(gpio_out, 32'h8000_f000, "PADOUTCLR");
    wr(OUTCLR, 32'h0000_0000); check(gpio_out, 32'h8000_f000, "PADOUTCLR 0 = no change");
    rd_check(OUTSET, 0, "PADOUTSET reads 0");
    rd_check(OUTCLR, 0, "PADOUTCLR reads 0");
    wr(PADIN, 32'hffff_ffff); rd_check(PADIN, 0, "PADIN ignores writes");
    wr(INTST, 32'hffff_ffff); rd_check(INTST, 0, "INTSTATUS ignores writes");
    // pins 32..63 registers do not exist with PAD_NUM = 32: writes ignored, reads 0
    for (k = 12'h38; k <= 12'h6C; k += 4) begin
      wr(k[11:0], 32'hffff_ffff);
      rd_check(k[11:0], 0, $sformatf("upper-bank reg %02x reads 0", k));
    end
    rd_check(12'h70, 0, "unmapped 0x70");
    rd_check(12'h7C, 0, "unmapped 0x7C");
    check_all_regs("after upper bank");
    // address decode uses PADDR[6:2]: upper bits and byte offset ignored (aliases)
    wr(12'hF80 | PADOUT, 32'h1234_5678); rd_check(12'h080 | PADOUT, 32'h1234_5678, "alias PADDR[11:7]");
    rd_check(12'hF83 | PADOUT, 32'h1234_5678, "alias PADDR[1:0]");
    // PSEL without PENABLE (setup only) and PENABLE without PSEL must not write
    @(posedge HCLK); #1 PSEL = 1; PWRITE = 1; PADDR = PADOUT; PWDATA = 32'hdead_beef;
    @(posedge HCLK); #1 PSEL = 0; PENABLE = 1;
    @(posedge HCLK); #1 PENABLE = 0; PWRITE = 0;
    check(gpio_out, 32'h1234_5678, "no write without PSEL&PENABLE");
    dft_cg_enable_i = 1; clk(2); dft_cg_enable_i = 0;

    // ---- 3. inputs: sampling gated per group of 4 by GPIOEN
    wr(INTEN, 0); wr(PADDIR, 0); wr(PADOUT, 0);
    wr(GPIOEN, 32'hffff_ffff);
    drive_pins(32'h0000_0000, "all low");
    drive_pins(32'hffff_ffff, "all high");
    rd_check(PADIN, 32'hffff_ffff, "PADIN all high");
    drive_pins(32'ha5a5_5a5a, "a5a55a5a");
    rd_check(PADIN, 32'ha5a5_5a5a, "PADIN a5a55a5a");
    drive_pins(32'h5a5a_a5a5, "5a5aa5a5");
    rd_check(PADIN, 32'h5a5a_a5a5, "PADIN 5a5aa5a5");
    wr(GPIOEN, 32'h0000_0010);             // only group 1 (pins 4..7) sampled
    drive_pins(32'h0000_00f0, "group1 only");
    rd_check(PADIN, pin_model, "PADIN with clock gating");
    check(pin_model, 32'h5a5a_a5f5, "model: gated groups hold their old value");
    wr(GPIOEN, 32'h8000_0001);
    drive_pins(32'hf000_000f, "groups 0 and 7");
    rd_check(PADIN, pin_model, "PADIN groups 0 and 7");
    wr(GPIOEN, 32'h0);
    drive_pins(32'h0, "all gated");
    rd_check(PADIN, pin_model, "PADIN all gated holds");

    // ---- 4. interrupts: every type on every pin
    wr(GPIOEN, 32'hffff_ffff);
    drive_pins(32'h0, "int setup low");
    read_status("int setup");
    wr(INTEN, 32'hffff_ffff);
    // type 01 rise on all pins
    wr(INTT0, 32'h5555_5555); wr(INTT1, 32'h5555_5555);
    drive_pins(32'h0000_0001, "rise pin0");
    read_status("rise pin0");
    drive_pins(32'h0000_0000, "fall pin0 (no irq on rise type)");
    read_status("fall pin0 type rise");
    drive_pins(32'hffff_ffff, "rise all");
    read_status("rise all");
    // type 00 fall
    wr(INTT0, 32'h0); wr(INTT1, 32'h0);
    drive_pins(32'h0f0f_0f0f, "fall on f0f0f0f0");
    read_status("fall");
    drive_pins(32'hffff_ffff, "rise with fall type");
    read_status("rise with fall type");
    drive_pins(32'h0000_0000, "fall on all pins");
    read_status("fall all");
    // type 10 both edges
    wr(INTT0, 32'haaaa_aaaa); wr(INTT1, 32'haaaa_aaaa);
    drive_pins(32'h0000_ffff, "both: fall hi half");
    read_status("both fall");
    drive_pins(32'hffff_0000, "both: rise+fall");
    read_status("both rise+fall");
    // type 11 RFU: no interrupt
    wr(INTT0, 32'hffff_ffff); wr(INTT1, 32'hffff_ffff);
    drive_pins(32'h0000_ffff, "RFU type");
    read_status("RFU type");
    // mixed types per pin, status accumulates over several events before one read
    wr(INTT0, 32'h1b1b_1b1b); wr(INTT1, 32'he4e4_e4e4);
    drive_pins(32'haaaa_aaaa, "mixed 1");
    drive_pins(32'h5555_5555, "mixed 2");
    drive_pins(32'h0000_0000, "mixed 3");
    drive_pins(32'hffff_ffff, "mixed 4");
    read_status("mixed accumulated");
    // interrupt masked by INTEN and by GPIOEN (pin's own enable)
    wr(INTT0, 32'haaaa_aaaa); wr(INTT1, 32'haaaa_aaaa);
    wr(INTEN, 32'h0000_ffff);
    drive_pins(32'h0000_0000, "INTEN low half");
    read_status("INTEN mask");
    wr(INTEN, 32'hffff_ffff); wr(GPIOEN, 32'h0000_0001);
    drive_pins(32'h0000_000f, "GPIOEN pin0 only (group sampled)");
    read_status("GPIOEN mask");
    wr(GPIOEN, 32'hffff_ffff);
    drive_pins(32'hffff_ffff, "re-enable");
    read_status("re-enable");

    // ---- 5. documented: "GPIO interrupt line is also cleared when INTSTATUS register is read"
    //         -> the line should stay high after an event until INTSTATUS is read
    wr(INTT0, 32'h5555_5555); wr(INTT1, 32'h5555_5555);
    drive_pins(32'h0, "prep");
    read_status("prep");
    drive_pins(32'h0000_0100, "level check");
    check({31'b0, interrupt}, 1, "DOC: interrupt line held until INTSTATUS read");
    read_status("level check");
    check({31'b0, interrupt}, 0, "interrupt low after INTSTATUS read");

    // ---- 6. read-to-clear racing a new event: the read returns the old flags and must clear
    //         them; the new event must stay flagged (documented read-clear)
    wr(INTT0, 32'haaaa_aaaa); wr(INTT1, 32'haaaa_aaaa);
    drive_pins(32'h0000_0001, "race A");          // pin 0 flagged
    @(posedge HCLK); #1 gpio_in = 32'h0000_0003;  // pin 1 rises: the edge is seen 2 clocks later
    @(posedge HCLK); #1 PSEL = 1; PENABLE = 0; PWRITE = 0; PADDR = INTST;
    @(posedge HCLK); #1 PENABLE = 1; #1 d = PRDATA;  // access phase in the cycle the new edge is flagged
    @(posedge HCLK); #1 PSEL = 0; PENABLE = 0;
    clk(4);
    pin_model = 32'h0000_0003;
    check(d, m_status, "race: INTSTATUS read returns the flags raised before the read (pins 0, 8)");
    rd_check(INTST, 32'h0000_0002, "race: only the new event (pin1) left after the clearing read");
    rd_check(INTST, 32'h0, "race: cleared");
    m_status = 0;

    // ---- 7. reset in the middle: everything back to defaults
    wr(PADOUT, 32'hffff_ffff); wr(PADDIR, 32'hffff_ffff); wr(CFG0, 32'hffff_ffff);
    drive_pins(32'h0, "pre-reset event");
    @(posedge HCLK); #1 HRESETn = 0; clk(2); #1 HRESETn = 1;
    m_dir = 0; m_en = 0; m_out = 0; m_inten = 0; m_type = 0; m_cfg = 0; m_status = 0; pin_model = 0;
    check_all_regs("after reset");
    rd_check(INTST, 0, "INTSTATUS after reset");
    rd_check(PADIN, 0, "PADIN after reset");

    clk(5);
    $display("TB DONE: %0d checks, %0d mismatches (%0d interrupt pulses)", nchecks, errors, irq_pulses);
    $finish;
  end

  initial begin
    #5_000_000;
    $display("TIMEOUT: %0d checks, %0d mismatches", nchecks, errors);
    $finish;
  end
endmodule
