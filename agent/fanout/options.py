"""How a run fans out: the options, and the command-line flags `bench` and `run-all` share."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

SHIP_CHOICES = ("auto", "always", "never")
"""Values of `--ship` (agent.fanout.ray_backend.SHIP_MODES; repeated so the CLI needs no Ray import)."""


@dataclass(frozen=True)
class FanoutOptions:
    """Where designs run, and what a restarted run reuses."""

    ray: str = ""
    """Ray cluster: '' runs on this machine; `auto` (the cluster `ray start` began here), `local`
    (a private Ray with `workers` CPUs) or an address (`HOST:6379`, `ray://HOST:10001`)."""
    workers: int = 1
    """Processes on this machine without Ray (1: this process), or the CPUs of `--ray local`."""
    resume: bool = False
    """Reuse the rows an earlier run left in the output folder for the same design files and settings."""
    retries: int = 2
    """Times a design whose Ray worker was lost is run again before it is reported lost."""
    ship: str = "auto"
    """When a Ray worker is sent a design's files: `auto` (its copy at the driver's path is missing
    or differs), `always`, `never` (every node has the repository at the same path)."""


def add_fanout_args(p: argparse.ArgumentParser) -> None:
    """`--ray`, `--resume`, `--retries`, `--ship` (both commands have their own `--jobs`)."""
    p.add_argument("--ray", metavar="ADDRESS", default="",
                   help="run the designs as tasks of a Ray cluster: ADDRESS is `auto` (the cluster `ray start --head` "
                        "started on this machine), `local` (a private one with --jobs CPUs) or a head's address "
                        "(HOST:PORT); each worker builds and simulates in its own sandbox and cache, a design "
                        "whose worker is lost runs again")
    p.add_argument("--resume", action="store_true",
                   help="skip designs an earlier run into the same --out finished with the same files and "
                        "settings (their rows are reused)")
    p.add_argument("--retries", type=int, default=2,
                   help="times a design whose Ray worker was lost runs again (default: %(default)s)")
    p.add_argument("--ship", choices=SHIP_CHOICES, default="auto",
                   help="send a design's files to a Ray worker: when its copy at the same path is missing or "
                        "differs (auto), always, or never (default: %(default)s)")


def fanout_options(args: argparse.Namespace) -> FanoutOptions:
    """The options the parsed flags ask for."""
    return FanoutOptions(ray=args.ray, workers=max(1, args.jobs), resume=args.resume,
                         retries=max(0, args.retries), ship=args.ship)


def fanout_requested(args: argparse.Namespace) -> bool:
    """Whether `bench` was asked for anything only the fan-out runner does."""
    return bool(args.ray or args.resume)
