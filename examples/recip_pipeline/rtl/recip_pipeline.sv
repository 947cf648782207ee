// Three-stage saturation unit whose divider is a programmable reciprocal table.
//
// Software configures the unit through a small register port (cfg_we/cfg_addr/cfg_wdata):
// addresses 0x000-0x0FF load the 256-entry reciprocal table, 0x100 is CONTROL (bit 0
// enables the pipeline, bit 1 selects rounding) and 0x101 is the grey THRESHOLD. Only then
// does streaming pixels (valid_in, r, g, b) exercise the datapath: with the table left at
// its reset value (all zeros) the product is always zero and the saturation logic is
// unreachable. The design is testable only by writing the table first, then streaming.
module recip_pipeline (
    input  logic        clk,
    input  logic        rst_n,
    // configuration port
    input  logic        cfg_we,
    input  logic [8:0]  cfg_addr,
    input  logic [15:0] cfg_wdata,
    // pixel stream
    input  logic        valid_in,
    input  logic [7:0]  r,
    input  logic [7:0]  g,
    input  logic [7:0]  b,
    output logic        valid_out,
    output logic [7:0]  sat,
    output logic [1:0]  hue_sector,
    output logic        grey,
    output logic        clipped
);
  localparam logic [8:0] CONTROL_ADDR   = 9'h100;
  localparam logic [8:0] THRESHOLD_ADDR = 9'h101;

  logic [15:0] recip_table [256];
  logic        enable, round_up;
  logic [7:0]  threshold;

  always_ff @(posedge clk) begin
    // The table may only be rewritten while the pipeline is disabled.
    if (cfg_we && !cfg_addr[8] && !enable) recip_table[cfg_addr[7:0]] <= cfg_wdata;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      enable <= 1'b0; round_up <= 1'b0; threshold <= 8'd0;
    end else if (cfg_we && cfg_addr == CONTROL_ADDR) begin
      enable <= cfg_wdata[0];
      round_up <= cfg_wdata[1];
    end else if (cfg_we && cfg_addr == THRESHOLD_ADDR) begin
      threshold <= cfg_wdata[7:0];
    end
  end

  // Stage 1: max, min and which channel is largest.
  logic       v1;
  logic [7:0] max1, delta1;
  logic [1:0] sector1;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      v1 <= 1'b0; max1 <= '0; delta1 <= '0; sector1 <= '0;
    end else begin
      v1 <= valid_in && enable;
      if (valid_in && enable) begin
        if (r >= g && r >= b) begin
          max1 <= r; sector1 <= 2'd0;
          delta1 <= r - ((g < b) ? g : b);
        end else if (g >= b) begin
          max1 <= g; sector1 <= 2'd1;
          delta1 <= g - ((r < b) ? r : b);
        end else begin
          max1 <= b; sector1 <= 2'd2;
          delta1 <= b - ((r < g) ? r : g);
        end
      end
    end
  end

  // Stage 2: reciprocal lookup by max.
  logic        v2;
  logic [15:0] recip2;
  logic [7:0]  delta2;
  logic [1:0]  sector2;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      v2 <= 1'b0; recip2 <= '0; delta2 <= '0; sector2 <= '0;
    end else begin
      v2 <= v1;
      if (v1) begin
        recip2  <= recip_table[max1];
        delta2  <= delta1;
        sector2 <= sector1;
      end
    end
  end

  // Stage 3: saturation = delta * recip (Q8.8), with clipping and a grey detector.
  logic [23:0] product;
  logic [15:0] scaled;
  assign product = delta2 * recip2;
  assign scaled  = product[23:8] + {15'd0, round_up & product[7]};

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      valid_out <= 1'b0; sat <= '0; hue_sector <= '0; grey <= 1'b0; clipped <= 1'b0;
    end else begin
      valid_out <= v2;
      if (v2) begin
        hue_sector <= sector2;
        grey <= (delta2 <= threshold) || (recip2 == 16'd0);
        if (recip2 != 16'd0 && scaled[15:8] != 8'd0) begin
          sat <= 8'hFF;
          clipped <= 1'b1;
        end else if (recip2 != 16'd0 && delta2 > threshold) begin
          sat <= scaled[7:0];
          clipped <= 1'b0;
        end else begin
          sat <= 8'd0;
          clipped <= 1'b0;
        end
      end
    end
  end
endmodule
