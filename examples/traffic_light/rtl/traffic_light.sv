// Traffic-light controller with a pedestrian request and a night (flashing) mode.
// Bundled example for Benchwright (Apache-2.0).
module traffic_light #(
    parameter int GREEN_TICKS  = 12,
    parameter int YELLOW_TICKS = 3,
    parameter int WALK_TICKS   = 6
) (
    input  logic       clk,
    input  logic       rst_n,
    input  logic       ped_req,     // pedestrian button (level)
    input  logic       night_mode,  // flash yellow while high
    input  logic [1:0] speed,       // 0: normal, 1: 2x, 2/3: 4x timer rate
    output logic [2:0] lights,      // {red, yellow, green}
    output logic       walk,
    output logic [3:0] cycles_in_state
);
  typedef enum logic [2:0] {GREEN, YELLOW, RED, WALK, FLASH_ON, FLASH_OFF} state_t;
  state_t state, next;
  logic [3:0] timer;
  logic       ped_latched;
  logic [2:0] step;

  always_comb begin
    case (speed)
      2'd0:    step = 3'd1;
      2'd1:    step = 3'd2;
      default: step = 3'd4;
    endcase
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) ped_latched <= 1'b0;
    else if (state == WALK) ped_latched <= 1'b0;
    else if (ped_req) ped_latched <= 1'b1;
  end

  always_comb begin
    next = state;
    if (night_mode && state != FLASH_ON && state != FLASH_OFF) next = FLASH_ON;
    else begin
      case (state)
        GREEN:     if (timer >= GREEN_TICKS || (ped_latched && timer >= GREEN_TICKS / 2)) next = YELLOW;
        YELLOW:    if (timer >= YELLOW_TICKS) next = RED;
        RED:       next = ped_latched ? WALK : GREEN;
        WALK:      if (timer >= WALK_TICKS) next = GREEN;
        FLASH_ON:  if (!night_mode) next = RED; else if (timer >= 2) next = FLASH_OFF;
        FLASH_OFF: if (!night_mode) next = RED; else if (timer >= 2) next = FLASH_ON;
        default:   next = RED;
      endcase
    end
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state <= RED;
      timer <= '0;
    end else if (next != state) begin
      state <= next;
      timer <= '0;
    end else begin
      timer <= timer + step;
    end
  end

  always_comb begin
    walk = (state == WALK);
    case (state)
      GREEN:     lights = 3'b001;
      YELLOW:    lights = 3'b010;
      FLASH_ON:  lights = 3'b010;
      FLASH_OFF: lights = 3'b000;
      default:   lights = 3'b100;
    endcase
  end

  assign cycles_in_state = timer;
endmodule
