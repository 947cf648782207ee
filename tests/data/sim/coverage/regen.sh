#!/usr/bin/env bash
# Regenerate the real Verilator coverage fixtures in this folder (Verilator 5.052).
# Usage: tests/data/sim/coverage/regen.sh [scratch-dir]   (run from the repo root)
# The .dat files keep the absolute paths Verilator wrote; the .json oracles come from
# `verilator_coverage --report summary` (whole file) and `--report hier` (DUT instance).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
B=${BENCH:-/work/shared/benchmarks/public}
W=${1:-/tmp/bwcov}
PY=${PY:-.venv/bin/python}
export OBJCACHE=${OBJCACHE:-ccache}
rm -rf "$W"; mkdir -p "$W"
sed 's/module RefModule/module TopModule/' "$B/verilogeval__count_clock/rtl/Prob141_count_clock_ref.sv" > "$W/TopModule.sv"
build() {  # name tb-top files...
  local name=$1 top=$2; shift 2
  mkdir -p "$W/$name"
  (cd "$W/$name" && verilator --binary --timing --coverage -Wno-fatal -Wno-lint -Wno-style \
     --top-module "$top" "$@" -Mdir obj >build.log 2>&1 && "./obj/V$top" >run.log 2>&1)
}
build fsm tb_fsm_seq_detector "$B/cvdp__fsm_seq_detector/human_tb/tb_fsm_seq_detector.sv" "$B/cvdp__fsm_seq_detector/rtl/fsm_seq_detector.sv"
build clock tb "$B/verilogeval__count_clock/human_tb/Prob141_count_clock_test.sv" "$B/verilogeval__count_clock/rtl/Prob141_count_clock_ref.sv" "$W/TopModule.sv"
build bcd tb_bcd_adder "$B/cvdp__bcd_adder/human_tb/tb_bcd_adder.sv" "$B/cvdp__bcd_adder/rtl/bcd_adder.sv"
(cd "$W/clock" && ./obj/Vtb +verilator+seed+7 +verilator+coverage+file+cov_seed7.dat >run7.log 2>&1)
cp "$W/fsm/coverage.dat" "$HERE/fsm_seq_detector.dat"
cp "$W/clock/coverage.dat" "$HERE/count_clock.dat"
cp "$W/clock/cov_seed7.dat" "$HERE/count_clock_seed7.dat"
cp "$W/bcd/coverage.dat" "$HERE/bcd_adder.dat"
verilator_coverage --write "$HERE/count_clock_merged.dat" "$HERE/count_clock.dat" "$HERE/count_clock_seed7.dat"
"$PY" - "$HERE" <<'PYEOF'
import json, re, subprocess, sys
from pathlib import Path
here = Path(sys.argv[1])
ROW = re.compile(r"^\s+(\w+)\s*:\s*([\d.]+)%\s*\(\s*(\d+)/\s*(\d+)\)")
def summary(dat):
    out = subprocess.run(["verilator_coverage", "--report", "summary", str(dat)], capture_output=True, text=True, check=True).stdout
    return {m[1]: [int(m[3]), int(m[4])] for m in map(ROW.match, out.splitlines()) if m and int(m[4])}
def hier(dat, scope):
    out = subprocess.run(["verilator_coverage", "--report", "hier", str(dat)], capture_output=True, text=True, check=True).stdout
    res, cur, section = {}, None, ""
    for ln in out.splitlines():
        if ln.endswith("Summary:"):
            section = ln
        elif section.startswith("Hierarchy") and ln.startswith("  ") and not ln.startswith("    "):
            cur = ln.strip()
        elif section.startswith("Hierarchy") and cur == scope and (m := ROW.match(ln)) and int(m[4]):
            res[m[1]] = [int(m[3]), int(m[4])]
    return res
cases = [("fsm_seq_detector", "cvdp__fsm_seq_detector", "fsm_seq_detector", "tb_fsm_seq_detector.uut"),
         ("count_clock", "verilogeval__count_clock", "RefModule", "tb.good1"),
         ("count_clock_seed7", "verilogeval__count_clock", "RefModule", "tb.good1"),
         ("count_clock_merged", "verilogeval__count_clock", "RefModule", "tb.good1"),
         ("bcd_adder", "cvdp__bcd_adder", "bcd_adder", "tb_bcd_adder.uut")]
for stem, design, top, scope in cases:
    dat = here / f"{stem}.dat"
    doc = {"design": design, "top_module": top, "dut_scopes": [scope],
           "summary": summary(dat), "dut": hier(dat, scope),
           "oracle": "verilator_coverage 5.052 --report summary / --report hier"}
    (here / f"{stem}.json").write_text(json.dumps(doc, indent=2) + "\n")
PYEOF
