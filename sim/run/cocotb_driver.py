"""Child-process entry point that runs cocotb's Python runner (build or test).

The evaluator never calls cocotb's runner in its own process: the runner runs its
children without timeouts or process groups and may print. Running it here, under
`sim.sandbox.process.run_command`, puts the whole cocotb run inside our sandbox and log file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """`build SPEC_JSON` or `test SPEC_JSON`; exit 0 on success."""
    parser = argparse.ArgumentParser(prog="python -m sim.run.cocotb_driver")
    parser.add_argument("action", choices=["build", "test"])
    parser.add_argument("spec", type=Path, help="JSON file with the runner arguments")
    args = parser.parse_args(argv)
    spec = json.loads(args.spec.read_text())
    from cocotb_tools.runner import get_runner

    runner = get_runner("verilator")
    if args.action == "build":
        runner.build(
            sources=spec["sources"], includes=spec.get("includes", []), defines=spec.get("defines", {}),
            hdl_toplevel=spec["toplevel"], build_args=spec.get("build_args", []), build_dir=spec["build_dir"],
            timescale=("1ns", "1ps"), log_file=spec["log_file"],
        )
        return 0
    results = runner.test(
        test_module=spec["test_module"], hdl_toplevel=spec["toplevel"], hdl_toplevel_lang="verilog",
        build_dir=spec["build_dir"], test_dir=spec["test_dir"], extra_env=spec.get("extra_env", {}),
        timescale=("1ns", "1ps"), log_file=spec["log_file"], seed=spec.get("seed", 0),
        plusargs=spec.get("plusargs", []),
    )
    if not Path(results).is_file():
        return 2  # simulation died before writing results.xml; the log says why
    from cocotb_tools.check_results import get_results

    tests, failed = get_results(results)
    Path(spec["test_dir"], "summary.json").write_text(json.dumps({"tests": tests, "failed": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
