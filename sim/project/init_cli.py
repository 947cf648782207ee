"""`benchwright init`: infer a design and write a reviewed design.toml; shared input options.

`design_toml(design, explanation)` is pure (a Design in, TOML text out, round-tripping
through sim.suite.parse_design); `init_main` is the shell. `add_input_args` and
`design_from_args` give `run`, `bench` and `sim` the same inputs: a folder (with or
without design.toml), RTL files, or `-f FILELIST`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from sim.errors import SimError
from sim.project.discover import Inferred, infer
from sim.project.inputs import gather, load_or_infer
from sim.suite import Design


def add_input_args(p: argparse.ArgumentParser, *, top_help: str = "top module (default: inferred)") -> None:
    """The design inputs every command accepts."""
    p.add_argument("design", nargs="*", type=Path,
                   help="a design folder (design.toml optional), or RTL files")
    p.add_argument("-f", "--filelist", type=Path, help="an EDA filelist (+incdir+, +define+, -y, -v, nested -f)")
    p.add_argument("--top", default="", help=top_help)


def explain_to_stderr(prog: str) -> Callable[[Inferred], None]:
    """A callback printing an inferred design's explanation to stderr."""
    def show(inferred: Inferred) -> None:
        sys.stderr.write(f"{prog}: no design.toml; inferred the design:\n")
        sys.stderr.write("".join(f"  {line}\n" for line in inferred.explain()))
    return show


def design_from_args(args: argparse.Namespace, prog: str, quiet: bool = False) -> Design:
    """The design the parsed input arguments name (design.toml, or inferred).

    Raises:
        SimError: nothing usable was given, or inference failed.
    """
    paths = list(args.design or ([] if args.filelist else [Path()]))
    return load_or_infer(paths, args.filelist, args.top, on_inferred=None if quiet else explain_to_stderr(prog))


def _toml_str(value: str) -> str:
    """A TOML basic string (JSON string escapes are valid TOML)."""
    return json.dumps(value, ensure_ascii=False)


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(_toml_str(v) for v in values) + "]"


def design_toml(design: Design, explanation: Sequence[str] = (), root: Path | None = None) -> str:
    """design.toml text for `design`, with paths relative to `root` (default `design.root`).

    `root` is the folder the file will be written to.

    `explanation` lines become comments at the top, so a reviewer sees why each value is
    what it is.
    """
    def rel(path: Path) -> str:
        return Path(os.path.relpath(path, root or design.root)).as_posix()

    lines = ["# Written by `benchwright init`: inferred, not declared. Review it, then commit it.", "#"]
    lines += [f"# {line}" for line in explanation]
    lines += [
        "",
        f"name = {_toml_str(design.name)}",
        f"top = {_toml_str(design.top)}",
        f"rtl = {_toml_list([rel(p) for p in design.rtl])}",
        f"include_dirs = {_toml_list([rel(p) for p in design.include_dirs])}",
        f"defines = {_toml_list(list(design.defines))}",
        f"clocks = {_toml_list(list(design.clocks))}",
        "resets = [" + ", ".join(
            f"{{ name = {_toml_str(r.name)}, active_low = {'true' if r.active_low else 'false'} }}"
            for r in design.resets) + "]",
        f"dut_instance = {_toml_str(design.dut_instance)}",
    ]
    if design.target_given:
        lines.append(f"target = {design.target:g}")
    if design.description:
        lines.append(f"description = {_toml_str(design.description)}")
    human = design.human_test
    if human is not None:
        lines += ["", "[human_test]", f"kind = {_toml_str(human.kind)}",
                  f"files = {_toml_list([rel(p) for p in human.files])}", f"top = {_toml_str(human.top)}",
                  f"note = {_toml_str(human.note)}"]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright init` (pure)."""
    p = argparse.ArgumentParser(prog="benchwright init",
                                description="Infer the design (top, files, include dirs, clocks, resets) and "
                                            "write a design.toml to review.")
    add_input_args(p)
    p.add_argument("--out", type=Path, help="where to write (default: design.toml in the design folder)")
    p.add_argument("--force", action="store_true", help="overwrite an existing design.toml")
    p.add_argument("--dry-run", action="store_true", help="print the design.toml instead of writing it")
    return p


def init_main(argv: list[str]) -> int:
    """Entry point of `benchwright init`; exit 0 when design.toml was written."""
    args = build_parser().parse_args(argv)
    paths = list(args.design or ([] if args.filelist else [Path()]))
    try:
        inferred = infer(gather(paths, args.filelist, args.top), args.top)
    except SimError as exc:
        sys.stderr.write(f"benchwright init: {exc}\n")
        return 2
    explanation = inferred.explain()
    target = (args.out or inferred.design.root / "design.toml").resolve()
    text = design_toml(inferred.design, explanation, target.parent)
    if args.dry_run:
        sys.stdout.write(text)
        return 0
    if target.exists() and not args.force:
        sys.stderr.write(f"benchwright init: {target} exists; not overwritten (use --force, or --dry-run to "
                         "see what would be written)\n")
        return 1
    target.write_text(text, encoding="utf-8")
    sys.stdout.write("".join(f"{line}\n" for line in explanation))
    sys.stdout.write(f"wrote {target}\n")
    return 0
