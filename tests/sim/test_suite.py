from __future__ import annotations

from pathlib import Path

import pytest

from sim.errors import DesignError
from sim.suite import load_design, load_suite, parse_design

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT.parent / "shared" / "benchmarks" / "public"


def test_example_design_loads() -> None:
    d = load_design(ROOT / "examples" / "traffic_light")
    assert d.top == "traffic_light"
    assert d.resets[0].active_low
    assert d.target == 95
    assert d.target_given
    assert d.human_test is not None
    assert d.human_test.kind == "sv"
    assert all(p.is_absolute() for p in d.rtl)


@pytest.mark.skipif(not PUBLIC.is_dir(), reason="public suite not present")
def test_public_suite_loads() -> None:
    designs = load_suite(PUBLIC)
    assert len(designs) == 54
    assert sum(d.human_test is not None for d in designs) == 38
    assert {d.target for d in designs if not d.target_given} == {90.0}


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        pytest.param({"rtl": ["a.sv"]}, "missing required key 'top'", id="no-top"),
        pytest.param({"top": "a", "rtl": []}, "lists no files", id="no-rtl"),
        pytest.param({"top": 3, "rtl": ["a.sv"]}, "must be str", id="bad-top"),
        pytest.param({"top": "a", "rtl": ["a.sv"], "target": "high"}, "must be a number", id="bad-target"),
        pytest.param({"top": "a", "rtl": ["a.sv"], "human_test": {"kind": "vhdl", "top": "t"}}, "sv' or 'cocotb", id="bad-kind"),
        pytest.param({"top": "a", "rtl": ["a.sv"], "resets": [{"active_low": True}]}, "needs a 'name'", id="bad-reset"),
    ],
)
def test_invalid_design_toml(data: dict[str, object], needle: str, tmp_path: Path) -> None:
    with pytest.raises(DesignError, match=needle):
        parse_design(data, tmp_path)


def test_missing_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(DesignError, match="not found"):
        load_design(tmp_path)
    (tmp_path / "design.toml").write_text("top = [unterminated")
    with pytest.raises(DesignError, match="invalid TOML"):
        load_design(tmp_path)
    (tmp_path / "design.toml").write_text('top = "a"\nrtl = ["rtl/missing.sv"]\n')
    with pytest.raises(DesignError, match="RTL file"):
        load_design(tmp_path)
