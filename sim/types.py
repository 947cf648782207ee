"""Plain value types shared by the simulator layer and everything above it."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

Command: TypeAlias = list[str]
"""One argv, as given to subprocess (no shell)."""

METRICS: tuple[str, ...] = ("line", "branch", "toggle", "expr")
"""Coverage metrics Benchwright scores, in report order (Verilator's `t` key / page prefix)."""

DEFAULT_TARGET = 90.0
"""Coverage pass threshold (percent) for designs whose design.toml gives none."""


class Status(enum.StrEnum):
    """Outcome of one simulation, as the agent and the editor see it."""

    OK = "ok"
    COMPILE_ERROR = "compile_error"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    COVERAGE_ERROR = "coverage_error"


@dataclass(frozen=True)
class Message:
    """One structured compiler/linter message."""

    file: str
    """Path as the tool printed it (absolute where Verilator was given absolute paths)."""
    line: int
    """1-based line; 0 when the tool gave none."""
    column: int
    """1-based column; 0 when the tool gave none."""
    severity: str
    """`error` or `warning` (Verilator `%Error`/`%Warning`)."""
    tag: str
    """Verilator warning tag (e.g. `WIDTHTRUNC`), or '' for untagged errors."""
    text: str
    """The message text without the location prefix."""


@dataclass(frozen=True)
class MetricSummary:
    """Covered/total for one metric."""

    covered: int
    """Points with count >= 1."""
    total: int
    """All points of this metric (after waivers)."""

    @property
    def percent(self) -> float:
        """Covered share in percent; 100 when there are no points."""
        return 100.0 * self.covered / self.total if self.total else 100.0


@dataclass(frozen=True)
class CoverageSummary:
    """Per-metric coverage and the overall score (mean of the enabled, non-empty metrics)."""

    metrics: dict[str, MetricSummary]
    """Metric name -> summary, for every enabled metric that has points."""

    @property
    def overall(self) -> float:
        """Mean of the metrics' percentages (the analogue of IMC's Overall Average)."""
        if not self.metrics:
            return 0.0
        return sum(m.percent for m in self.metrics.values()) / len(self.metrics)

    def percents(self) -> dict[str, float]:
        """Metric -> percent, rounded to 0.01."""
        return {k: round(v.percent, 2) for k, v in self.metrics.items()}


@dataclass(frozen=True)
class UncoveredPoint:
    """A coverage point nobody reached, located in the source."""

    kind: str
    """Metric: line, branch, toggle or expr."""
    file: str
    """Absolute path of the RTL file."""
    line: int
    """1-based line of the point."""
    comment: str
    """Verilator's description (`if`, `else`, `state[1]:0->1`, `(a==0) => 1`)."""
    source: str
    """The source line's text, stripped ('' when the file cannot be read)."""
    hier: str = ""
    """Instance path the point belongs to."""


@dataclass(frozen=True)
class SimResult:
    """Observation `o = (status, coverage, log)` of one simulation."""

    status: Status
    """How the run ended."""
    coverage: CoverageSummary | None = None
    """DUT-restricted coverage; None unless the run produced a coverage file."""
    uncovered: tuple[UncoveredPoint, ...] = ()
    """DUT points with count 0."""
    messages: tuple[Message, ...] = ()
    """Structured compiler messages (errors first)."""
    build_s: float = 0.0
    """Seconds spent building (0 on a cache hit)."""
    run_s: float = 0.0
    """Seconds spent simulating."""
    log_tail: str = ""
    """Last lines of the failing step's log, for feedback."""
    detail: str = ""
    """One-line human explanation of a non-ok status."""
    notes: tuple[str, ...] = ()
    """Things the user should know (e.g. a metric disabled because it crashed Verilator)."""
    coverage_dat: Path | None = None
    """The raw coverage.dat of this run."""
    lcov: Path | None = None
    """lcov .info written for this run (absolute source paths)."""
    run_dir: Path | None = None
    """Directory the simulation ran in."""
    cached: bool = False
    """True when the build came from the content-hash cache."""
    report: Any = None
    """The DUT-restricted `sim.run.coverage.CoverageReport` (for merging trials); None without coverage."""
    extra: dict[str, object] = field(default_factory=dict)
    """Free-form diagnostics (command lines, tool version)."""
    seed: int | None = None
    """The simulator seed the run used (`+verilator+seed+N`, or cocotb's RANDOM_SEED); None when nothing ran."""

    @property
    def overall(self) -> float:
        """Overall coverage, 0 for a run without coverage."""
        return self.coverage.overall if self.coverage is not None else 0.0
