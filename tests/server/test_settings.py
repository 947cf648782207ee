"""Settings precedence and validation: defaults < initializationOptions < workspace/configuration."""

from __future__ import annotations

from typing import Any

import pytest

from server.settings import (
    CONVERTER,
    Settings,
    camel,
    merge,
    parse_settings,
    section_of,
    snake,
    trust_of,
)
from server.trust import sandbox_mode
from sim.sandbox.bwrap import SandboxMode


def options_seed(settings: Any) -> int:
    """The simulator seed the server's SimOptions get from these settings."""
    from server.outcomes import sim_options

    return sim_options(settings).seed


def resolved(init: Any, pulled: Any) -> tuple[Settings, list[str]]:
    settings, errors = parse_settings(merge(section_of(init), section_of(pulled)))
    return settings, [e.key for e in errors]


@pytest.mark.parametrize(("init", "pulled", "check", "errors"), [
    pytest.param(None, None, lambda s: s == Settings(), [], id="defaults"),
    pytest.param({"lint": {"debounceMs": 50}}, None, lambda s: s.lint.debounce_ms == 50, [], id="init-bare"),
    pytest.param({"benchwright": {"lint": {"debounceMs": 50}}}, None, lambda s: s.lint.debounce_ms == 50, [],
                 id="init-wrapped"),
    pytest.param({"lint.debounceMs": 7, "policy.simCalls": 9}, None,
                 lambda s: (s.lint.debounce_ms, s.policy.sim_calls) == (7, 9), [], id="init-dotted"),
    pytest.param({"lint": {"debounceMs": 50}}, {"benchwright": {"lint": {"debounceMs": 80}}},
                 lambda s: s.lint.debounce_ms == 80, [], id="workspace-wins"),
    pytest.param({"coverage": {"target": 80}}, {"coverage": {"hints": False}},
                 lambda s: (s.coverage.target, s.coverage.hints) == (80, False), [], id="deep-merge"),
    pytest.param({"sim": {"verilatorPath": "/opt/v"}}, {"sim": {"verilatorPath": None}},
                 lambda s: s.sim.verilator_path == "/opt/v", [], id="null-ignored"),
    pytest.param({"project": {"includeDirs": ["inc"], "defines": ["W=8"], "top": "t"}}, None,
                 lambda s: (s.project.include_dirs, s.project.defines, s.project.top) == (["inc"], ["W=8"], "t"),
                 [], id="project"),
    pytest.param({"unknownKey": 1, "lint": {"other": 2}}, None, lambda s: s == Settings(), [], id="unknown-ignored"),
    pytest.param({"lint": {"debounceMs": "soon"}, "policy": {"rounds": 2}}, None,
                 lambda s: (s.lint.debounce_ms, s.policy.rounds) == (300, 2), ["lint.debounceMs"], id="bad-type"),
    pytest.param({"simulateOnSave": "yes"}, None, lambda s: s.simulate_on_save is True, ["simulateOnSave"],
                 id="no-coercion"),
    pytest.param({"policy": {"backend": "gpt"}}, None, lambda s: s.policy.backend == "heuristic",
                 ["policy.backend"], id="bad-enum"),
    pytest.param({"coverage": {"metrics": ["line", "fsm"], "target": 120}}, None,
                 lambda s: s.coverage == Settings().coverage, ["coverage.metrics", "coverage.target"], id="semantic"),
    pytest.param({"lint": 5}, None, lambda s: s.lint.debounce_ms == 300, ["lint"], id="not-an-object"),
    pytest.param({"lint": {"debounceMs": -1}, "policy": {"simCalls": 0}}, None,
                 lambda s: (s.lint.debounce_ms, s.policy.sim_calls) == (300, 400),
                 ["lint.debounceMs", "policy.simCalls"], id="ranges"),
    pytest.param({"sim": {"verilatorArgs": ["-Wall", 3]}}, None, lambda s: s.sim.verilator_args == [],
                 ["sim.verilatorArgs"], id="bad-list-item"),
    pytest.param(None, {"sim": {"sandbox": "require"}}, lambda s: s.sim.sandbox == "require", [], id="sandbox"),
    pytest.param({"sim": {"sandbox": "maybe"}}, None, lambda s: s.sim.sandbox == "auto", ["sim.sandbox"],
                 id="bad-sandbox"),
    pytest.param(None, {"sim": {"seed": 42}}, lambda s: (s.sim.seed, options_seed(s)) == (42, 42), [], id="seed"),
    pytest.param({"sim": {"seed": 0}}, None, lambda s: options_seed(s) == 1, ["sim.seed"], id="zero-seed"),
    pytest.param({"benchwright": {"lint": {"debounceMs": 5}}, "workspaceTrusted": False}, None,
                 lambda s: s.lint.debounce_ms == 5, [], id="init-wrapped-with-trust"),
])
def test_settings_table(init: Any, pulled: Any, check: Any, errors: list[str]) -> None:
    settings, got = resolved(init, pulled)
    assert check(settings)
    assert sorted(got) == sorted(errors)


def test_error_text_names_the_full_key() -> None:
    _, errors = parse_settings({"lint": {"debounceMs": "x"}})
    assert str(errors[0]).startswith("benchwright.lint.debounceMs: ")


def test_names_round_trip() -> None:
    for name in ("debounce_ms", "openai_base_url", "simulate_on_save", "metrics"):
        assert snake(camel(name)) == name
    data = CONVERTER.unstructure(Settings())
    assert data["lint"] == {"debounceMs": 300}
    assert data["policy"]["openaiBaseUrl"] == ""
    assert CONVERTER.structure(data, Settings) == Settings()


@pytest.mark.parametrize(("options", "trusted"), [
    pytest.param(None, True, id="no-options"),
    pytest.param({"benchwright": {}}, True, id="absent"),
    pytest.param({"benchwright": {}, "workspaceTrusted": None}, True, id="null"),
    pytest.param({"benchwright": {}, "workspaceTrusted": True}, True, id="true"),
    pytest.param({"benchwright": {}, "workspaceTrusted": False}, False, id="false"),
    pytest.param({"benchwright": {}, "workspaceTrusted": "yes"}, False, id="not-a-bool-is-untrusted"),
    pytest.param({"lint": {"debounceMs": 0}, "workspaceTrusted": False}, False, id="bare-section"),
])
def test_trust_flag(options: Any, trusted: bool) -> None:
    assert trust_of(options) is trusted


@pytest.mark.parametrize(("value", "mode"), [
    ("auto", None), ("require", SandboxMode.REQUIRE), ("off", SandboxMode.OFF)])
def test_sandbox_setting_maps_to_sim_options(value: str, mode: SandboxMode | None) -> None:
    from server.outcomes import sim_options

    settings, errors = parse_settings({"sim": {"sandbox": value}})
    assert errors == []
    assert sandbox_mode(settings) is mode
    assert sim_options(settings).sandbox is mode
