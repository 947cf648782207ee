"""`python -m server` / `benchwright lsp`: the language server on stdio.

stdout belongs to JSON-RPC. Before serving, file descriptor 1 is moved aside for the
protocol and fd 1 itself is pointed at stderr, so a stray `print`, a native library's
log line or a child process that inherits stdout can never corrupt the stream.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
from typing import BinaryIO


def _protocol_stdout() -> BinaryIO:
    """A private handle on the real stdout; fd 1 and sys.stdout now go to stderr."""
    sys.stdout.flush()
    rpc = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return rpc


def build_parser() -> argparse.ArgumentParser:
    """The parser of `benchwright lsp` (pure; the log level's default reads BENCHWRIGHT_LOG_LEVEL)."""
    parser = argparse.ArgumentParser(prog="benchwright lsp", description="Benchwright language server (stdio).")
    parser.add_argument("--log-level", default=os.environ.get("BENCHWRIGHT_LOG_LEVEL", "INFO"),
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="stderr log level (default: %(default)s)")
    parser.add_argument("--stdio", action="store_true", help="accepted for client compatibility (always stdio)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Serve LSP on stdio until the client exits; returns the exit status."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(stream=sys.stderr, level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # pygls logs every message at INFO; keep stderr readable.
    logging.getLogger("pygls").setLevel(max(logging.WARNING, logging.getLevelName(args.log_level)))
    from server.features import make_server

    rpc = _protocol_stdout()
    ls = make_server()
    try:
        ls.start_io(sys.stdin.buffer, rpc)
    finally:
        ls.shutdown_jobs()
        # The lint shadow folder lives only as long as this server: one per editor session otherwise piles up in /tmp.
        shutil.rmtree(ls.shadow_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
