// Leaf cells (a nested filelist).
prescaler.sv
pwm_channel.sv
