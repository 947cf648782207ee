"""sim.project.manifest: real-repository manifests (`[[design]] repo=, top=`), parsed and inferred."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sim.errors import DesignError
from sim.project.inputs import load_designs
from sim.project.manifest import parse_manifest, read_manifest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pwm_timer"


def test_entries_resolve_repos_and_name_designs() -> None:
    data = {"design": [{"repo": "wbuart32", "top": "wbuart", "target": 90, "reference": 94.62},
                       {"repo": "/abs/sha", "top": "sha256", "name": "sha"}]}
    first, second = parse_manifest(data, Path("/suite"))
    assert (first.repo, first.top, first.name, first.target, first.reference) == \
        (Path("/suite/wbuart32"), "wbuart", "wbuart32__wbuart", 90.0, 94.62)
    assert (second.repo, second.name, second.target, second.reference) == (Path("/abs/sha"), "sha", None, None)


@pytest.mark.parametrize(("data", "message"), [
    pytest.param({}, "no [[design]]", id="empty"),
    pytest.param({"design": [{"repo": "a"}]}, "needs repo", id="no-top"),
    pytest.param({"design": [{"repo": "a", "top": "t", "reference": "high"}]}, "'reference' must be a number",
                 id="bad-number"),
    pytest.param({"design": [{"repo": "a", "top": "t"}, {"repo": "a", "top": "t"}]}, "several entries named a__t",
                 id="duplicate"),
])
def test_invalid_manifests_say_what_is_wrong(data: dict[str, object], message: str) -> None:
    with pytest.raises(DesignError, match=message[:20].replace("[", r"\[")):
        parse_manifest(data, Path("/suite"))


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "real.toml"
    bad.write_text("[[design]\n")
    with pytest.raises(DesignError, match="invalid TOML"):
        read_manifest(bad)


@pytest.mark.simulator_required
def test_bench_reads_a_manifest_and_infers_each_entry(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "pwm")
    (tmp_path / "real.toml").write_text(
        '[[design]]\nrepo = "pwm"\ntop = "pwm_timer"\ntarget = 80\nreference = 91.5\n\n'
        '[[design]]\nrepo = "pwm"\ntop = "prescaler"\n\n'
        '[[design]]\nrepo = "pwm"\ntop = "no_such_module"\n')
    warnings: list[str] = []
    designs = load_designs([tmp_path / "real.toml"], warn=warnings.append)
    assert [(d.name, d.top, d.target, d.target_given) for d in designs] == [
        ("pwm__pwm_timer", "pwm_timer", 80.0, True), ("pwm__prescaler", "prescaler", designs[1].target, False)]
    assert [p.name for p in designs[1].rtl] == ["prescaler.sv"]
    assert designs[0].clocks == ("clk",)
    assert len(warnings) == 1
    assert "pwm__no_such_module: skipped" in warnings[0]
    with pytest.raises(DesignError, match="--top does not apply"):
        load_designs([tmp_path / "real.toml"], top="pwm_timer")
