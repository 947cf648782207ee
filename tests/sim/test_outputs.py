"""sim.sandbox.outputs: what the host reads back from a run directory, on real files (no mocks)."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from sim.sandbox.outputs import (
    UnsafeOutputError,
    append_output,
    copy_outputs,
    list_outputs,
    read_output,
    read_output_tail,
    read_output_text,
    write_output,
)

SECRET = b"CANARY-0123456789"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A run directory next to a 'host' folder holding a canary."""
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "canary.txt").write_bytes(SECRET)
    run = tmp_path / "run"
    run.mkdir()
    return run


def within(seconds: float, fn, *args, **kw):  # -> whatever fn returns
    """Call fn in a thread; fail (instead of hanging the suite) when it blocks."""
    box: dict[str, object] = {}

    def go() -> None:
        try:
            box["value"] = fn(*args, **kw)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{fn.__name__} blocked for {seconds} s"
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


def test_regular_file_is_read(run: Path) -> None:
    (run / "coverage.dat").write_bytes(b"abc\xff")
    assert read_output(run / "coverage.dat", 10) == b"abc\xff"
    assert read_output_text(run / "coverage.dat", 10) == "abc\ufffd"


@pytest.mark.parametrize(("make", "needle"), [
    (lambda run: (run / "f").symlink_to(run.parent / "host" / "canary.txt"), "symbolic link"),
    (lambda run: (run / "f").symlink_to("/dev/zero"), "symbolic link"),
    (lambda run: (run / "f").symlink_to(run.parent / "host"), "symbolic link"),
    (lambda run: (run / "f").mkdir(), "a directory"),
    (lambda run: os.mkfifo(run / "f"), "named pipe"),
    (lambda run: os.link(run.parent / "host" / "canary.txt", run / "f"), "2 hard links"),
], ids=["symlink-host-file", "symlink-dev-zero", "symlink-dir", "directory", "fifo", "hard-link"])
def test_what_is_not_a_plain_file_is_refused_at_once(run: Path, make, needle: str) -> None:
    make(run)
    with pytest.raises(UnsafeOutputError, match=needle) as info:
        within(5, read_output, run / "f", 1 << 20)
    assert str(run / "f") in str(info.value)
    # A log tail says why there is none: one line naming the file and the same reason.
    assert within(5, read_output_tail, run / "f", 1024) == f"[benchwright] {info.value}\n".encode()


def test_socket_is_refused(run: Path) -> None:
    path = run / "s"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        with pytest.raises(UnsafeOutputError, match="socket"):
            within(5, read_output, path, 100)


def test_device_node_is_refused(run: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mknod needs root")
    os.mknod(run / "zero", 0o600 | 0o020000, os.makedev(1, 5))  # a character device: /dev/zero's numbers
    with pytest.raises(UnsafeOutputError, match="character device"):
        within(5, read_output, run / "zero", 100)


def test_sparse_file_over_the_cap_names_file_and_cap(run: Path) -> None:
    path = run / "coverage.dat"
    with path.open("wb") as fh:
        fh.truncate(200 << 20)
    start = time.monotonic()
    with pytest.raises(UnsafeOutputError, match=r"is 200\.0 MiB, over the 64\.0 MiB cap") as info:
        read_output(path, 64 << 20)
    assert time.monotonic() - start < 1.0
    assert str(path) in str(info.value)
    assert len(read_output_tail(path, 4096)) == 4096  # a tail reads only its end


def test_symlinked_parent_and_replaced_root_are_refused(run: Path) -> None:
    (run.parent / "host" / "sub").mkdir()
    (run.parent / "host" / "sub" / "coverage.dat").write_bytes(SECRET)
    (run / "sub").symlink_to(run.parent / "host" / "sub")
    with pytest.raises(UnsafeOutputError, match="not a plain folder"):
        read_output(run / "sub" / "coverage.dat", 100, root=run)
    # The run directory itself swapped for a symlink (its parent is the trusted anchor).
    moved = run.parent / "run-moved"
    run.rename(moved)
    run.symlink_to(run.parent / "host")
    with pytest.raises(UnsafeOutputError, match="not a plain folder"):
        read_output(run / "canary.txt", 100)


def test_paths_outside_the_root_are_refused(run: Path) -> None:
    with pytest.raises(UnsafeOutputError, match="not inside"):
        read_output(run.parent / "host" / "canary.txt", 100, root=run)
    with pytest.raises(UnsafeOutputError, match="not a file inside"):
        read_output(run / ".." / "host" / "canary.txt", 100, root=run)


def test_missing_file_is_file_not_found(run: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_output(run / "nope", 10)
    assert read_output_tail(run / "nope", 10) == b""


def test_tail_of_a_big_log(run: Path) -> None:
    (run / "run.log").write_bytes(b"x" * 100_000 + b"\nlast line\n")
    assert read_output_tail(run / "run.log", 10) == b"last line\n"[-10:]
    assert read_output_tail(run / "run.log", 11).endswith(b"last line\n")


def test_listing_and_copy_refuse_by_name(run: Path, tmp_path: Path) -> None:
    (run / "coverage.dat").write_bytes(b"dat")
    (run / "run.log").write_bytes(b"log")
    (run / "evil.log").symlink_to(run.parent / "host" / "canary.txt")
    os.mkfifo(run / "pipe.log")
    (run / "dir.dat").mkdir()
    for i in range(30):
        (run / f"f{i}.log").write_bytes(b"x")
    names, refused = list_outputs(run, (".log", ".dat"), limit=5)
    assert len(names) == 5
    why = dict(refused)
    assert "symbolic link" in why["evil.log"]
    assert "named pipe" in why["pipe.log"]
    assert "directory" in why["dir.dat"]
    assert why["27 more"] == "files past the limit of 5"
    dest = tmp_path / "out"
    done = within(10, copy_outputs, run, ["coverage.dat", "run.log", "evil.log", "pipe.log", "missing.log"],
                  dest, 1 << 20)
    assert done.copied == ("coverage.dat", "run.log")
    assert [n for n, _ in done.refused] == ["evil.log", "pipe.log"]
    assert sorted(p.name for p in dest.iterdir()) == ["coverage.dat", "run.log"]
    assert all(SECRET not in p.read_bytes() for p in dest.iterdir())
    assert done.notes()[0].startswith("not copied: evil.log: is a symbolic link")


def test_write_replaces_a_planted_symlink_without_touching_its_target(run: Path) -> None:
    canary = run.parent / "host" / "canary.txt"
    (run / "coverage.info").symlink_to(canary)
    write_output(run / "coverage.info", b"TN:x\n")
    assert canary.read_bytes() == SECRET
    assert not (run / "coverage.info").is_symlink()
    assert (run / "coverage.info").read_bytes() == b"TN:x\n"
    os.mkfifo(run / "fifo.info")
    within(5, write_output, run / "fifo.info", b"y")
    assert (run / "fifo.info").read_bytes() == b"y"
    (run / "dir.info").mkdir()
    with pytest.raises(UnsafeOutputError, match="is a directory"):
        write_output(run / "dir.info", b"z")


def test_write_makes_folders_but_never_through_a_symlink(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    write_output(ws / ".benchwright" / "coverage" / "d.info", b"a", root=ws)
    assert (ws / ".benchwright" / "coverage" / "d.info").read_bytes() == b"a"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws / ".benchwright" / "coverage").rename(tmp_path / "old")
    (ws / ".benchwright" / "coverage").symlink_to(elsewhere)
    with pytest.raises(UnsafeOutputError, match="not a plain folder"):
        write_output(ws / ".benchwright" / "coverage" / "d.info", b"b", root=ws)
    assert list(elsewhere.iterdir()) == []


def test_write_makes_a_folder_named_like_the_root(tmp_path: Path) -> None:
    # An inferred design is named after its repository folder: .benchwright/generated/<name>/ under <name>/.
    ws = tmp_path / "uart16550"
    ws.mkdir()
    target = ws / ".benchwright" / "generated" / "uart16550" / "tb_uart_top.sv"
    write_output(target, b"module tb; endmodule\n", root=ws)
    assert target.read_bytes() == b"module tb; endmodule\n"
    with pytest.raises(FileNotFoundError):
        write_output(tmp_path / "gone" / "x.info", b"a", root=tmp_path / "gone")  # the root itself is never made


def test_append_only_to_a_regular_file(run: Path) -> None:
    (run / "run.log").write_bytes(b"a")
    assert append_output(run / "run.log", b"b")
    assert (run / "run.log").read_bytes() == b"ab"
    os.mkfifo(run / "fifo.log")
    assert within(5, append_output, run / "fifo.log", b"x") is False
    (run / "link.log").symlink_to(run.parent / "host" / "canary.txt")
    assert append_output(run / "link.log", b"x") is False
    assert (run.parent / "host" / "canary.txt").read_bytes() == SECRET
