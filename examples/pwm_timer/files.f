// The PWM timer's sources, the way an EDA flow lists them (paths relative to this file).
+incdir+rtl/include
rtl/pkg/pwm_pkg.sv
-f rtl/cells.f
rtl/pwm_timer.sv
