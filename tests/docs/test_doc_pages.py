"""The generated reference pages are current, and the site builds with `mkdocs build --strict`."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from benchwright import docgen

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rel", sorted(str(p) for p in docgen.pages()), ids=lambda r: Path(r).name)
def test_generated_page_is_current(rel: str) -> None:
    committed = (ROOT / rel).read_text(encoding="utf-8")
    assert committed == docgen.pages()[Path(rel)], f"{rel} is out of date: run `python -m benchwright.docgen`"


def test_cli_page_lists_every_command_and_option() -> None:
    text = (ROOT / "docs/reference/cli.md").read_text(encoding="utf-8")
    for name, _, parser in docgen.command_parsers():
        assert f"## `benchwright {name}`" in text
        for action in parser._actions:
            for option in action.option_strings:
                assert f"{option}" in text, (name, option)


def test_parser_markdown_of_a_small_parser() -> None:
    p = argparse.ArgumentParser(prog="benchwright demo", description="Demo <design> | pipes.")
    p.add_argument("design", help="a folder")
    p.add_argument("--sim-calls", type=int, default=400, help="budget (default: %(default)s)")
    p.add_argument("--mode", choices=("a", "b"), default="a", help="how")
    p.add_argument("-v", "--verbose", action="store_true", help="log")
    text = docgen.parser_markdown("demo", "a demo", p)
    assert "Demo &lt;design&gt; \\| pipes." in text
    assert "| `--sim-calls SIM_CALLS` | `400` | budget (default: 400) |" in text
    assert "| `--mode MODE` | `a` | how (one of: `a`, `b`) |" in text
    assert "| `-v, --verbose` |  | log |" in text


def test_capture_parser_runs_nothing() -> None:
    ran = []

    def entry(argv: list[str]) -> int:
        p = argparse.ArgumentParser(prog="x")
        p.add_argument("--flag")
        p.parse_args(argv)
        ran.append(True)
        return 0

    parser = docgen.capture_parser(entry)
    assert parser.prog == "x"
    assert not ran
    assert argparse.ArgumentParser(prog="y").parse_args([]) == argparse.Namespace()  # parse_args restored


def test_every_operation_has_a_checked_example() -> None:
    from agent.program.ops import SPECS

    docs = docgen.operation_docs()
    assert [d.name for d in docs] == [s.name for s in SPECS]
    assert all(d.examples for d in docs)


def test_vscode_page_lists_every_setting_and_command() -> None:
    package = json.loads((ROOT / "editors/vscode/package.json").read_text(encoding="utf-8"))
    text = (ROOT / "docs/reference/vscode.md").read_text(encoding="utf-8")
    for command in package["contributes"]["commands"]:
        assert f"`{command['command']}`" in text
    for key in package["contributes"]["configuration"]["properties"]:
        assert f"| `{key}` |" in text


def test_ts_string_list() -> None:
    source = "export const RESTART_KEYS: readonly string[] = [\n  'python.interpreter',\n  'policy.backend',\n];"
    assert docgen.ts_string_list(source, "RESTART_KEYS") == ("python.interpreter", "policy.backend")


def test_readme_links_resolve() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t.split("#", 1)[0] for t in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in t]
    assert targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, missing


def test_readme_is_short() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150
