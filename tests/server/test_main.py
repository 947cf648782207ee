"""stdout belongs to JSON-RPC: stray prints and inherited child stdout go to stderr."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import os, subprocess, sys
from server.__main__ import _protocol_stdout
rpc = _protocol_stdout()
print("stray print")
os.write(1, b"native write\\n")
subprocess.run(["echo", "child output"], check=True)
rpc.write(b"Content-Length: 2\\r\\n\\r\\n{}")
rpc.flush()
"""


def test_only_the_protocol_reaches_stdout() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, timeout=60, check=True)
    assert out.stdout == b"Content-Length: 2\r\n\r\n{}"
    for text in (b"stray print", b"native write", b"child output"):
        assert text in out.stderr


def test_help_exits_cleanly() -> None:
    out = subprocess.run([sys.executable, "-m", "server", "--help"], capture_output=True, text=True, timeout=60,
                         check=False)
    assert out.returncode == 0
    assert "Benchwright language server" in out.stdout
