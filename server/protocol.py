"""The custom protocol surface shared with the VS Code extension (docs/protocol.md).

Every name the extension relies on is defined here and nowhere else; the TypeScript
twins live in `editors/vscode/src/common/constants.ts`. Payloads are dataclasses with
snake_case fields; `settings.CONVERTER` turns them into camelCase JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SERVER_NAME = "benchwright"
"""`serverInfo.name`."""

COVERAGE = "benchwright/coverage"
"""Notification: the coverage of one simulation."""

STATUS = "benchwright/status"
"""Notification: what the server is busy with (status-bar spinner)."""

AMBIGUOUS_TOP = "benchwright/ambiguousTop"
"""Notification: several modules could be the top of a document's design (the client offers a pick)."""

TOP_SETTING = "benchwright.project.top"
"""The setting that names the top (what the client's pick writes)."""

GENERATE_TESTBENCH = "benchwright.generateTestbench"
"""Command `[uri]`: run an episode from s_0 and propose the TB as a WorkspaceEdit."""

IMPROVE_COVERAGE = "benchwright.improveCoverage"
"""Command `[uri]`: run an episode from the current TB and propose the result."""

SHOW_REPORT = "benchwright.showReport"
"""Command `[uri]`: the last coverage report as markdown."""

RESTART = "benchwright.server.restart"
"""Command handled by the client (restarts the server); never registered here."""

DOCTOR = "benchwright.doctor"
"""Command `[]`: tool paths, versions, last command lines."""

ACCEPT_BEHAVIOUR = "benchwright.acceptNewBehaviour"
"""Command `[uri]`: record the current testbench's checks again from the design as it is now,
offered as one WorkspaceEdit (the code action of a check-mismatch diagnostic)."""

DIAGNOSTIC_SOURCE_LINT = "verilator"
"""`Diagnostic.source` of lint diagnostics."""

DIAGNOSTIC_SOURCE_COVERAGE = "benchwright"
"""`Diagnostic.source` of uncovered-line hints."""

UNCOVERED_CODE = "uncovered"
"""`Diagnostic.code` of uncovered-line hints (their code action offers Improve coverage)."""

FINDING_CODE = "protocol-finding"
"""`Diagnostic.code` of a handshake rule the design broke while the testbench ran (a finding)."""

MISMATCH_CODE = "check-mismatch"
"""`Diagnostic.code` of an output whose recorded check failed after an edit (its code action offers
Accept new behaviour)."""

WORKSPACE_TRUSTED = "workspaceTrusted"
"""initializationOptions key: false for an untrusted workspace (lint only); absent means trusted."""

UNTRUSTED_RESTRICTION = "lint only (untrusted workspace)"
"""`restriction` of `benchwright/status` in an untrusted workspace."""

UNTRUSTED_DETAIL = ("This workspace is not trusted: Benchwright only lints it. It never builds or simulates "
                    "its testbenches and does not generate testbenches. Trust the workspace to enable them.")
"""`restriction_detail` in an untrusted workspace."""

UNTRUSTED_REFUSAL = ("this workspace is not trusted, so Benchwright does not build or simulate its files; "
                     "trust the workspace to generate or improve testbenches")
"""ProposalResult.message for Generate Testbench / Improve Coverage in an untrusted workspace."""

NO_SANDBOX_RESTRICTION = "no OS sandbox"
"""`restriction` when simulations would run without the OS sandbox (the fallback)."""

SANDBOX_REFUSED_RESTRICTION = "no simulation (OS sandbox unavailable)"
"""`restriction` when the sandbox is required but cannot be set up: simulations are refused."""

State = Literal["idle", "linting", "simulating", "generating"]
"""Values of `benchwright/status` `state`."""


@dataclass
class MetricParams:
    """Covered/total of one metric."""

    covered: int
    """Points with count >= 1."""
    total: int
    """All points."""
    percent: float
    """covered / total in percent, rounded to 0.01."""


@dataclass
class SummaryParams:
    """Per-metric coverage and the overall score."""

    overall: float | None
    """Mean of the metrics' percentages; None without coverage."""
    target: float
    """Target percent of the design."""
    metrics: dict[str, MetricParams] = field(default_factory=dict)
    """Metric name -> counts."""


@dataclass
class PointParams:
    """One coverage point (lines are 1-based; covered when count >= 1)."""

    line: int
    """1-based line."""
    kind: str
    """line, branch, toggle or expr."""
    count: int
    """Hit count."""
    comment: str
    """Verilator's description (`if`, `else`, `state[1]:0->1`)."""


@dataclass
class FileParams:
    """The points of one RTL file."""

    uri: str
    """The file."""
    points: list[PointParams] = field(default_factory=list)
    """Its points, in line order."""


@dataclass
class CoverageParams:
    """Payload of `benchwright/coverage`."""

    design: str
    """Design name."""
    top: str
    """DUT top module."""
    root_uri: str
    """Design folder."""
    testbench_uri: str | None
    """The testbench simulated (None when none was found)."""
    version: int | None
    """Version of the saved document that triggered it (None: not from a document)."""
    status: str
    """ok, compile_error, runtime_error, timeout or coverage_error."""
    detail: str
    """One line: why, for a non-ok status."""
    summary: SummaryParams
    """Coverage numbers."""
    holes: int
    """Uncovered DUT points."""
    files: list[FileParams] = field(default_factory=list)
    """Every RTL file with points."""
    lcov_path: str | None = None
    """lcov tracefile under `<workspace>/.benchwright/coverage/`."""
    build_seconds: float = 0.0
    """Build time (0 on a cache hit)."""
    run_seconds: float = 0.0
    """Simulation time."""
    testbench_source: str = ""
    """Where the testbench came from (setting, proposal, design.toml, the repository's own, tb/)."""


@dataclass
class TopCandidateParams:
    """One possible top module."""

    name: str
    """Module name."""
    uri: str
    """File declaring it."""
    line: int
    """0-based line of the declaration."""


@dataclass
class AmbiguousTopParams:
    """Payload of `benchwright/ambiguousTop`."""

    uri: str
    """The document whose design is ambiguous."""
    candidates: list[TopCandidateParams]
    """The possible tops, in file order."""
    setting: str = TOP_SETTING
    """The setting a pick writes (workspace scope)."""
    message: str = ""
    """One line for the user."""


@dataclass
class StatusParams:
    """Payload of `benchwright/status`."""

    state: State
    """What the server is doing."""
    message: str = ""
    """Free text for the tooltip."""
    restriction: str = ""
    """What the server persistently does not do, for the status-bar text ('' when nothing is restricted).

    Every status carries the current value; the client shows the latest one until the next status.
    """
    restriction_detail: str = ""
    """Why, and what to do about it, for the tooltip ('' with no restriction)."""


@dataclass
class ProposalResult:
    """Result of generateTestbench / improveCoverage."""

    applied: bool
    """True when the client applied the WorkspaceEdit."""
    testbench_uri: str | None = None
    """The proposed testbench file."""
    overall: float | None = None
    """Overall coverage of the proposal."""
    cancelled: bool = False
    """True when the run was cancelled (nothing was proposed)."""
    message: str = ""
    """Why nothing was proposed, when nothing was."""
