"""`benchwright <command>`: imports a command's package only when that command runs."""

from __future__ import annotations

import importlib
import sys
from typing import Any, NamedTuple


class Command(NamedTuple):
    """One `benchwright` subcommand."""

    entry: str
    """`module:function` that runs it with the remaining arguments (imported only when it runs)."""
    parser: str
    """`module:function` that builds its ArgumentParser (pure; the entry point parses with it, docgen documents it)."""
    summary: str
    """One line for `benchwright --help`."""


COMMANDS: dict[str, Command] = {
    "init": Command("sim.project.init_cli:init_main", "sim.project.init_cli:build_parser",
                    "infer a design (top, files, clocks, resets) and write design.toml"),
    "sim": Command("sim.cli:sim_main", "sim.cli:build_sim_parser", "simulate a design's testbench with coverage"),
    "doctor": Command("sim.cli:doctor_main", "sim.cli:build_doctor_parser", "show tool paths and versions"),
    "run": Command("agent.cli:run_main", "agent.cli:build_run_parser",
                   "run an episode: generate/refine a testbench for one design"),
    "bench": Command("agent.cli:bench_main", "agent.cli:build_bench_parser",
                     "score a policy (or the human tests) on a suite"),
    "run-all": Command("agent.run_all:run_all_main", "agent.run_all:build_parser",
                       "an episode for every design of a repository, one summary table"),
    "check": Command("agent.check_cli:check_main", "agent.check_cli:build_parser",
                     "run a kept testbench; fail when an output differs from its recording"),
    "lsp": Command("server.__main__:main", "server.__main__:build_parser", "start the language server on stdio"),
    "watch": Command("server.watch:main", "server.watch:build_parser", "re-simulate on file changes in a terminal"),
    "train": Command("training.cli:main", "training.cli:build_parser", "offline training pipeline stages"),
    "export": Command("training.export.checkpoint:main", "training.export.checkpoint:build_parser",
                      "convert a local HF checkpoint / LoRA adapter to a quantized GGUF"),
    "models": Command("agent.llm.models:main", "agent.llm.models:build_parser",
                      "list local GGUF models (packaged short names, $BENCHWRIGHT_MODELS_DIR)"),
}
"""Command name -> its entry point, parser builder and one-line help."""


def resolve(target: str) -> Any:
    """The function a `module:function` target names (its module is imported now)."""
    module_name, _, func = target.partition(":")
    return getattr(importlib.import_module(module_name), func)


def usage() -> str:
    """The top-level help text."""
    lines = ["usage: benchwright <command> [options]", "", "commands:"]
    lines += [f"  {name:<8} {command.summary}" for name, command in COMMANDS.items()]
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
    try:
        entry = resolve(COMMANDS[name].entry)
    except ModuleNotFoundError as exc:
        sys.stderr.write(f"benchwright {name}: this command is not available ({exc}).\n")
        return 2
    code: int = entry(rest)
    return code


if __name__ == "__main__":
    sys.exit(main())
