"""`benchwright <command>`: imports a command's package only when that command runs."""

from __future__ import annotations

import importlib
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("sim.project.init_cli:init_main", "infer a design (top, files, clocks, resets) and write design.toml"),
    "sim": ("sim.cli:sim_main", "simulate a design's testbench with coverage"),
    "doctor": ("sim.cli:doctor_main", "show tool paths and versions"),
    "run": ("agent.cli:run_main", "run an episode: generate/refine a testbench for one design"),
    "bench": ("agent.cli:bench_main", "score a policy (or the human tests) on a suite"),
    "run-all": ("agent.run_all:run_all_main", "an episode for every design of a repository, one summary table"),
    "check": ("agent.check_cli:check_main", "run a kept testbench; fail when an output differs from its recording"),
    "lsp": ("server.__main__:main", "start the language server on stdio"),
    "watch": ("server.watch:main", "re-simulate on file changes in a terminal"),
    "train": ("training.cli:main", "offline training pipeline stages"),
    "export": ("training.export.checkpoint:main", "convert a local HF checkpoint / LoRA adapter to a quantized GGUF"),
    "models": ("agent.llm.models:main", "list local GGUF models (packaged short names, $BENCHWRIGHT_MODELS_DIR)"),
}
"""Command name -> (dotted entry point, one-line help)."""


def usage() -> str:
    """The top-level help text."""
    lines = ["usage: benchwright <command> [options]", "", "commands:"]
    lines += [f"  {name:<8} {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "Run `benchwright <command> --help` for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the named command with the remaining arguments."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(usage() + "\n")
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        sys.stderr.write(f"benchwright: unknown command {name!r}\n\n{usage()}\n")
        return 2
    module_name, _, func = COMMANDS[name][0].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        sys.stderr.write(f"benchwright {name}: this command is not available ({exc}).\n")
        return 2
    code: int = getattr(module, func)(rest)
    return code


if __name__ == "__main__":
    sys.exit(main())
