"""Training designs from repositories as cloned: every module that builds on its own becomes one.

A repository such as verilog-axis holds dozens of modules, most of them one file with no
dependencies. For each source file outside testbench and backup folders, each module no
other module of that file instantiates is tried as a top on its own (`infer` over that one
file: Verilator must parse and elaborate it, and gives its clocks and resets); those that
build are written out as design folders (design.toml + rtl/) named `<repo>__<module>`, and
the others are counted with the reason.

    python -m training.data.repos ../shared/benchmarks/real/verilog-axis --out /tmp/axis
"""

from __future__ import annotations

import json
import logging
import shutil
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from training.data.hdl_text import find_tops

logger = logging.getLogger(__name__)


@dataclass
class RepoReport:
    """What a repository gave."""

    designs: list[str] = field(default_factory=list)
    """Design names written."""
    dropped: Counter[str] = field(default_factory=Counter)
    """Reason -> modules dropped."""
    errors: dict[str, str] = field(default_factory=dict)
    """Module -> first line of why it did not build (the first few)."""


def candidate_files(repo: Path) -> list[Path]:
    """Source files of a repository outside testbench, backup and build folders."""
    from sim.project.sources import hdl_files, stale_folder, tb_folder

    sources, _, _ = hdl_files(repo)
    out = []
    for path in sources:
        rel = path.relative_to(repo)
        if tb_folder(rel) is None and stale_folder(rel) is None:
            out.append(path)
    return out


def _toml_list(items: list[str]) -> str:
    return json.dumps(items)


def write_module_design(design: object, name: str, out_root: Path) -> Path:
    """Copy an inferred one-file design to `out_root/name` with a design.toml; the folder."""
    from sim.suite import Design

    assert isinstance(design, Design)
    root = out_root / name
    if root.exists():
        shutil.rmtree(root)
    (root / "rtl").mkdir(parents=True)
    rtl = []
    for path in design.rtl:
        dest = root / "rtl" / path.name
        shutil.copyfile(path, dest)
        rtl.append(f"rtl/{path.name}")
    includes = []
    for k, folder in enumerate(design.include_dirs):
        dest = root / f"include{k}"
        shutil.copytree(folder, dest, ignore=shutil.ignore_patterns("*.v", "*.sv", "*.vhd"))
        includes.append(dest.relative_to(root).as_posix())
    resets = "".join(f'\n[[resets]]\nname = "{r.name}"\nactive_low = {str(r.active_low).lower()}\n'
                     for r in design.resets)
    text = (f'name = "{name}"\ntop = "{design.top}"\nrtl = {_toml_list(rtl)}\n'
            f"include_dirs = {_toml_list(includes)}\nclocks = {_toml_list(list(design.clocks))}\n"
            f'description = "module {design.top} of a cloned repository, built on its own"\n'
            f"defines = {_toml_list(list(design.defines))}\n{resets}")
    (root / "design.toml").write_text(text, encoding="utf-8")
    return root


def module_designs(repo: Path, out_root: Path, *, max_modules: int = 0) -> RepoReport:
    """Write a design folder for every module of `repo` that builds on its own."""
    from sim.errors import DesignError, SimError
    from sim.project.discover import infer
    from sim.project.sources import gather_files, read_text
    from sim.suite import load_design

    report = RepoReport()
    out_root.mkdir(parents=True, exist_ok=True)
    for path in candidate_files(repo):
        tops = find_tops([read_text(path)])
        if not tops:
            report.dropped["no_module"] += 1
            continue
        for top in tops:
            if max_modules and len(report.designs) >= max_modules:
                return report
            name = f"{repo.name}__{top}"
            try:
                inferred = infer(gather_files([path], stop=repo), top)
                if len(inferred.design.rtl) != 1:
                    report.dropped["needs_other_files"] += 1
                    continue
                load_design(write_module_design(inferred.design, name, out_root))
            except (DesignError, SimError, OSError) as exc:
                reason = "does_not_build" if isinstance(exc, DesignError) else type(exc).__name__
                report.dropped[reason] += 1
                if len(report.errors) < 20:
                    report.errors[name] = str(exc).strip().splitlines()[-1][:200] if str(exc).strip() else reason
                logger.info("%s: %s", name, exc)
                continue
            report.designs.append(name)
    return report


def main(argv: list[str] | None = None) -> int:
    """Write the module designs of some repositories and print the report."""
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("repos", nargs="+", type=Path)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    for repo in args.repos:
        r = module_designs(repo.resolve(), args.out)
        sys.stdout.write(json.dumps({"repo": str(repo), "designs": r.designs, "dropped": dict(r.dropped),
                                     "errors": r.errors}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
