"""A throwaway Ray cluster on this machine: a head and worker nodes, for the tests and measurements.

Each node is a `ray start --block` process in its own process group, started with free
ports and its own environment (a node's `BENCHWRIGHT_CACHE` is its own build cache, as a
separate machine's would be). Teardown signals those groups only: `ray stop` would stop
every Ray process of the machine, other users' clusters included.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

ADDRESS_LINE = re.compile(r"ray start --address='([^']+)'")
"""The line of `ray start --head` that gives the address to join."""

PER_NODE_PORTS = ("--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
                  "--dashboard-agent-grpc-port", "--metrics-export-port", "--runtime-env-agent-port")
"""Ports with fixed defaults that two nodes (or two clusters) on one machine would fight over."""


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def ray_executable() -> str:
    """The `ray` command beside this Python (the venv's)."""
    return str(Path(sys.executable).with_name("ray"))


class LocalCluster:
    """A head and `nodes - 1` workers on this machine; a context manager."""

    def __init__(self, nodes: int = 2, cpus: int = 1, temp_dir: Path | None = None,
                 node_env: Sequence[Mapping[str, str]] = ()) -> None:
        self.nodes = nodes
        """Nodes, the head included."""
        self.cpus = cpus
        """CPUs each node offers (the tasks it runs at once)."""
        self.temp_dir = temp_dir
        """Ray's session folder (short paths: its socket names must fit 107 bytes)."""
        self.node_env = list(node_env)
        """Extra environment of node k (the head is 0)."""
        self.address = ""
        """`HOST:PORT` of the head, once started."""
        self.procs: list[subprocess.Popen[str]] = []
        """The `ray start --block` processes, head first."""

    def _argv(self, head: bool) -> list[str]:
        argv = [ray_executable(), "start", "--block", "--num-cpus", str(self.cpus), "--disable-usage-stats"]
        if head:
            argv += ["--head", "--port", str(free_port()), "--include-dashboard", "false",
                     "--dashboard-port", str(free_port())]
            if self.temp_dir is not None:
                argv += ["--temp-dir", str(self.temp_dir)]
        else:
            argv += ["--address", self.address]
        for flag in PER_NODE_PORTS:
            argv += [flag, str(free_port())]
        return argv

    def _spawn(self, k: int) -> subprocess.Popen[str]:
        env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0",
               **(self.node_env[k] if k < len(self.node_env) else {})}
        proc = subprocess.Popen(self._argv(k == 0), stdout=subprocess.PIPE if k == 0 else subprocess.DEVNULL,
                                stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
        self.procs.append(proc)
        return proc

    def start(self, timeout_s: float = 90.0) -> str:
        """Start the nodes and wait until all have joined; returns the head's address.

        Raises:
            RuntimeError: the head printed no address, or the workers did not join in time.
        """
        head = self._spawn(0)
        assert head.stdout is not None
        output = []
        for line in head.stdout:
            output.append(line)
            found = ADDRESS_LINE.search(line)
            if found:
                self.address = found.group(1)
                break
        if not self.address:
            self.stop()
            raise RuntimeError("ray start --head gave no address:\n" + "".join(output[-20:]))
        # Keep reading what the head prints, so that a full pipe never blocks it.
        threading.Thread(target=head.stdout.read, daemon=True).start()
        for k in range(1, self.nodes):
            self._spawn(k)
        self._wait_for_nodes(timeout_s)
        return self.address

    def _wait_for_nodes(self, timeout_s: float) -> None:
        """Poll `ray status` until every node is alive."""
        env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            status = subprocess.run([ray_executable(), "status", "--address", self.address], capture_output=True,
                                    text=True, env=env, check=False, timeout=60)
            if status.stdout.count("node_") >= self.nodes:
                return
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the {self.nodes} nodes did not join within {timeout_s:.0f} s")

    def members(self) -> dict[int, str]:
        """Every process of the cluster's nodes with its title (`ray::ray_task`: a worker running a design).

        Members are found by session, not process group: Ray gives its workers groups of their own.
        """
        sessions = {p.pid for p in self.procs}
        out: dict[int, str] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                pid = int(entry.name)
                if os.getsid(pid) in sessions:
                    out[pid] = (entry / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
            except OSError:  # gone meanwhile, or not ours to read
                continue
        return out

    def stop(self) -> None:
        """Stop every node: SIGINT to its process group (ray start cleans up), SIGKILL if it lingers."""
        for proc in reversed(self.procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGINT)
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=15)
            # Processes ray start left in its group (raylet, workers) go with it.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            if proc.stdout is not None:
                proc.stdout.close()
        for pid in self.members():  # workers in groups of their own that outlived their raylet
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.procs.clear()

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
