"""Progress a person can follow: one bar for the whole run and one per running design.

Workers send `Event`s (started, a step done, finished, lost); `Board` folds them into the
state of every design and renders it as text (pure: the time is an argument). `View`
writes it to a terminal, redrawn in place, or as one line per event to a log.
"""

from __future__ import annotations

import enum
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO


class EventKind(enum.Enum):
    """What happened to a design."""

    START = "start"
    """A worker began an attempt."""
    STEP = "step"
    """An episode step ended."""
    DONE = "done"
    """The row is in."""
    LOST = "lost"
    """The worker was lost; the design is queued again (or given up)."""
    RESUMED = "resumed"
    """An earlier run's row was reused."""


@dataclass(frozen=True)
class Event:
    """One progress report (picklable: it comes from worker processes)."""

    name: str
    """Design name."""
    kind: EventKind
    """What happened."""
    attempt: int = 1
    """Which attempt at the design (1 unless a worker was lost)."""
    worker: str = ""
    """Where it runs (node, host, process)."""
    step: int = 0
    """The step that ended (STEP)."""
    sim_calls: float = 0.0
    """Simulator calls spent so far in this attempt's episode."""
    overall: float | None = None
    """Best overall coverage so far, or the row's."""
    detail: str = ""
    """A status or a reason (DONE, LOST)."""


@dataclass
class DesignState:
    """What is known of one design."""

    state: str = "queued"
    """queued, running, done or resumed."""
    attempt: int = 1
    """Current attempt."""
    worker: str = ""
    """Current worker."""
    step: int = -1
    """Last step ended (-1: none yet)."""
    sim_calls: float = 0.0
    """Simulator calls spent."""
    overall: float | None = None
    """Best coverage so far."""
    started: float = 0.0
    """When the current attempt started (monotonic seconds)."""
    lost: int = 0
    """Attempts lost with their worker."""


def bar(fraction: float, width: int) -> str:
    """`#####-----` for a fraction in [0, 1]."""
    filled = max(0, min(width, round(width * fraction)))
    return "#" * filled + "-" * (width - filled)


@dataclass
class Board:
    """The state of every design of a run."""

    names: list[str]
    """Designs in run order."""
    budget: float
    """Simulator calls per design (all samples), the scale of a design's bar."""
    label: str = "bench"
    """Command name at the head of the whole-run line."""
    started: float = field(default_factory=time.monotonic)
    """Start of the run."""
    designs: dict[str, DesignState] = field(default_factory=dict)
    """State by name (filled from `names`)."""

    def __post_init__(self) -> None:
        for name in self.names:
            self.designs.setdefault(name, DesignState())

    def apply(self, event: Event, now: float) -> None:
        """Fold one event in."""
        d = self.designs.setdefault(event.name, DesignState())
        if event.kind is EventKind.START:
            d.state, d.attempt, d.worker, d.started, d.step, d.sim_calls = \
                "running", event.attempt, event.worker, now, -1, 0.0
        elif event.kind is EventKind.STEP and event.attempt == d.attempt:
            d.step, d.sim_calls = event.step, event.sim_calls
            d.overall = event.overall if event.overall is not None else d.overall
        elif event.kind is EventKind.LOST:
            # Queued again; when its retries are used up a DONE with the failed row follows.
            d.lost += 1
            d.state, d.attempt = "queued", event.attempt + 1
        elif event.kind in (EventKind.DONE, EventKind.RESUMED):
            d.state = "resumed" if event.kind is EventKind.RESUMED else "done"
            d.overall = event.overall

    def counts(self) -> dict[str, int]:
        """Designs per state."""
        out: dict[str, int] = {}
        for d in self.designs.values():
            out[d.state] = out.get(d.state, 0) + 1
        return out

    def finished(self) -> int:
        """Designs with a row."""
        return sum(d.state in ("done", "resumed") for d in self.designs.values())

    def head(self, now: float) -> str:
        """The whole-run line."""
        total = len(self.designs)
        c = self.counts()
        lost = sum(d.lost for d in self.designs.values())
        parts = [f"{self.finished()}/{total} done", f"{c.get('running', 0)} running"]
        if c.get("resumed"):
            parts.append(f"{c['resumed']} resumed")
        if lost:
            parts.append(f"{lost} worker(s) lost")
        return f"{self.label} [{bar(self.finished() / max(1, total), 30)}] {' · '.join(parts)} · {now - self.started:.0f} s"

    def design_line(self, name: str, now: float) -> str:
        """One running design's line: its own bar (simulator calls against the budget) and where it runs."""
        d = self.designs[name]
        cov = f"{d.overall:5.1f} %" if d.overall is not None else "    - %"
        retry = f" attempt {d.attempt}" if d.attempt > 1 else ""
        return (f"  {name[:32]:<32} [{bar(d.sim_calls / max(1.0, self.budget), 16)}] "
                f"{d.sim_calls:4.0f}/{self.budget:.0f} calls {cov} {now - d.started:5.0f} s  {d.worker}{retry}")

    def lines(self, now: float) -> list[str]:
        """The whole run, then each running design."""
        running = [n for n in self.names if self.designs[n].state == "running"]
        return [self.head(now), *(self.design_line(n, now) for n in running)]


def event_line(board: Board, event: Event, now: float) -> str:
    """One log line for an event (a log has no room for redrawn bars)."""
    clock = f"[{now - board.started:6.0f} s {board.finished()}/{len(board.designs)}]"
    where = f" on {event.worker}" if event.worker else ""
    attempt = f" (attempt {event.attempt})" if event.attempt > 1 else ""
    cov = f" {event.overall:.2f} %" if event.overall is not None else ""
    text = {
        EventKind.START: f"start {event.name}{where}{attempt}",
        EventKind.STEP: f"step {event.step} {event.name}: {event.sim_calls:.0f} calls,{cov or ' -'}",
        EventKind.DONE: f"done {event.name}:{cov} {event.detail}".rstrip(),
        EventKind.LOST: f"lost {event.name}{where}{attempt}: {event.detail}",
        EventKind.RESUMED: f"resumed {event.name}:{cov} (an earlier run's row)",
    }[event.kind]
    return f"{clock} {text}"


class View:
    """Writes the board: redrawn in place on a terminal, a line per event otherwise."""

    def __init__(self, board: Board, stream: TextIO | None = None, tty: bool | None = None) -> None:
        self.board = board
        """What is shown."""
        self.stream = stream or sys.stderr
        """Where it is written."""
        self.tty = self.stream.isatty() if tty is None else tty
        """Redraw in place (a terminal) or append lines (a log)."""
        self.drawn = 0
        """Lines of the last drawing (erased before the next)."""
        self.last = 0.0
        """When it was last drawn (redraws are limited to a few per second)."""

    def on_event(self, event: Event) -> None:
        """Apply an event and show it."""
        now = time.monotonic()
        self.board.apply(event, now)
        if not self.tty:
            self.stream.write(event_line(self.board, event, now) + "\n")
            self.stream.flush()
        elif event.kind is not EventKind.STEP or now - self.last > 0.2:
            self.draw(now)

    def tick(self) -> None:
        """Redraw the clocks (a terminal only; called while waiting)."""
        now = time.monotonic()
        if self.tty and now - self.last > 1.0:
            self.draw(now)

    def draw(self, now: float) -> None:
        """Erase the last drawing and draw the board."""
        lines = self.board.lines(now)
        erase = f"\x1b[{self.drawn}F\x1b[J" if self.drawn else ""
        self.stream.write(erase + "".join(line[:160] + "\n" for line in lines))
        self.stream.flush()
        self.drawn, self.last = len(lines), now

    def close(self) -> None:
        """Leave the final state on screen."""
        if self.tty:
            self.draw(time.monotonic())
