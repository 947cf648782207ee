"""The generated reference pages are current, and the site builds with `mkdocs build --strict`."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchwright import docgen
from benchwright.cli import COMMANDS, resolve

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


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_parses_with_the_parser_docgen_documents(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    # The builder is pure (two calls, two equal parsers) and the entry point parses with it:
    # its --help prints exactly the builder's help.
    build = resolve(COMMANDS[name].parser)
    parser = build()
    assert isinstance(parser, argparse.ArgumentParser)
    assert parser.prog == f"benchwright {name}"
    assert build() is not parser
    assert build().format_help() == parser.format_help()
    with pytest.raises(SystemExit) as exited:
        resolve(COMMANDS[name].entry)(["--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == parser.format_help()


def test_the_dispatcher_imports_no_command_package() -> None:
    code = ("import sys, benchwright.cli as c; c.usage(); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'agent', 'sim', 'server', 'training'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


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
