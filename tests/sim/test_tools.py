from __future__ import annotations

from pathlib import Path

import pytest

from sim.errors import ToolNotFoundError
from sim.tools import ENV_VAR, SETTING, find_verilator, parse_version


def _fake_verilator(tmp_path: Path, version_line: str, with_coverage: bool = True) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "verilator"
    tool.write_text(f"#!/bin/sh\necho '{version_line}'\n")
    tool.chmod(0o755)
    if with_coverage:
        cov = bin_dir / "verilator_coverage"
        cov.write_text("#!/bin/sh\nexit 0\n")
        cov.chmod(0o755)
    return tool


def test_parse_version() -> None:
    assert parse_version("Verilator 5.052 2026-09-05 rev v5.052") == (5, 52)
    assert parse_version("Verilator 5.006 2023-01-22 rev (Debian 5.006-3)") == (5, 6)
    assert parse_version("rev vUNKNOWN") is None


def test_too_old_verilator_names_the_fix(tmp_path: Path) -> None:
    tool = _fake_verilator(tmp_path, "Verilator 5.006 2023-01-22 rev (Debian 5.006-3)")
    find_verilator.cache_clear()
    with pytest.raises(ToolNotFoundError) as err:
        find_verilator(str(tool))
    msg = str(err.value)
    assert "too old" in msg
    assert "5.036" in msg
    assert ENV_VAR in msg
    assert SETTING in msg


def test_missing_verilator_names_the_fix(tmp_path: Path) -> None:
    find_verilator.cache_clear()
    with pytest.raises(ToolNotFoundError) as err:
        find_verilator(str(tmp_path / "nope" / "verilator"))
    assert "not found" in str(err.value)
    assert ENV_VAR in str(err.value)


def test_unrecognised_version_output(tmp_path: Path) -> None:
    tool = _fake_verilator(tmp_path, "rev vUNKNOWN-built")
    find_verilator.cache_clear()
    with pytest.raises(ToolNotFoundError, match="not a Verilator version"):
        find_verilator(str(tool))


def test_env_var_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _fake_verilator(tmp_path, "Verilator 5.052 2026-09-05 rev v5.052")
    monkeypatch.setenv(ENV_VAR, str(tool))
    find_verilator.cache_clear()
    try:
        found = find_verilator()
        assert found.verilator == tool
        assert found.version == (5, 52)
        assert found.coverage == tool.parent / "verilator_coverage"
    finally:
        find_verilator.cache_clear()


@pytest.mark.simulator_required
def test_bundled_verilator_is_5052() -> None:
    find_verilator.cache_clear()
    tool = find_verilator()
    assert tool.version >= (5, 52)
    assert tool.coverage.is_file()
