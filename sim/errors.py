"""The sim error hierarchy: every failure of the tooling itself (not of a testbench)."""

from __future__ import annotations

from pathlib import Path


class SimError(Exception):
    """Base of every error raised by sim/."""


class ToolNotFoundError(SimError):
    """Verilator (or a helper tool) is missing or too old; the message says how to fix it."""


class BuildError(SimError):
    """A build of *trusted* code (a harness, the DUT for cocotb) failed."""

    def __init__(self, message: str, argv: tuple[str, ...] = (), returncode: int = 0,
                 log_path: Path | None = None, tail: str = "") -> None:
        super().__init__(message)
        self.argv = argv
        """Command that failed."""
        self.returncode = returncode
        """Its exit status."""
        self.log_path = log_path
        """Log holding the full output."""
        self.tail = tail
        """Last lines of that log."""


class SimulationError(BuildError):
    """A simulation of trusted code failed to run."""


class CoverageParseError(SimError):
    """A coverage.dat could not be read or parsed; carries the file and line."""

    def __init__(self, message: str, file: str = "", line: int = 0) -> None:
        super().__init__(f"{file}:{line}: {message}" if file else message)
        self.file = file
        """The coverage file."""
        self.line = line
        """1-based line of the first bad record (0 when not line-specific)."""


class DesignError(SimError):
    """A design folder or design.toml is invalid (message names the file and key)."""
