"""The one way the host reads, copies or writes files in a folder a sandboxed run could write.

A run directory is written by untrusted code: a testbench (or a cocotb test) may leave a
symlink to a file in $HOME or to /dev/zero where coverage.dat should be, a FIFO, a socket,
a directory, a sparse file of hundreds of megabytes, junk bytes, or a hard link. Every
access here starts at a trusted `root` (the run directory as the host created it) and walks
down one component at a time relative to a directory descriptor with O_NOFOLLOW, so a
symlinked parent is refused too. A file is first opened with O_PATH (which opens nothing:
no FIFO, socket or device is ever opened, so nothing can block) and checked to be a regular
file with a single link and a size under the caller's cap; only then is that same inode
opened for reading (through /proc/self/fd) and read in bounded chunks.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from sim.errors import SimError

CHUNK = 1 << 20
"""Bytes per read call."""

MiB = 1 << 20
"""For readable caps."""

_O_PATH = getattr(os, "O_PATH", 0)
"""Linux's open-nothing flag (0 elsewhere: there the non-blocking open below is the fallback)."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""How every directory on the way down is opened: never through a symlink."""


UNTRUSTED = "not read (a run's outputs are untrusted)"
"""Ends every refusal message."""


class UnsafeOutputError(SimError):
    """A file a run left behind was not read (or written) because it is not what it should be.

    The message names the file and the reason (a symlink, a FIFO, too large, ...).
    """

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}; {UNTRUSTED}")
        self.path = path
        """The file."""
        self.reason = reason
        """Why it was refused, in words."""


def size_text(n: int) -> str:
    """`12.3 MiB`, `512 bytes`: a cap or a size in an error message."""
    return f"{n / MiB:.1f} MiB" if n >= MiB else f"{n} bytes"


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def check_regular(st: os.stat_result, cap: int | None) -> str | None:
    """Why a file with this stat may not be read (None when it may): pure."""
    if not stat.S_ISREG(st.st_mode):
        return f"is {kind_of(st.st_mode)}, not a regular file"
    if st.st_nlink != 1:
        return f"has {st.st_nlink} hard links (a run's own outputs have one)"
    if cap is not None and st.st_size > cap:
        return f"is {size_text(st.st_size)}, over the {size_text(cap)} cap for this file"
    return None


def _relative_parts(path: Path, root: Path) -> tuple[str, ...]:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        raise UnsafeOutputError(path, f"is not inside {root}") from None
    if not parts or any(p in ("..", ".") for p in parts):
        raise UnsafeOutputError(path, f"is not a file inside {root}")
    return parts


@contextlib.contextmanager
def open_dir(root: Path, parts: Iterable[str] = (), *, create: bool = False) -> Iterator[int]:
    """A descriptor of `root/parts...`; `root`'s own last component and every part below it are never symlinks.

    `root`'s parent is the trusted anchor (resolved normally: /tmp may be a symlink). With
    `create`, missing folders below `root` are made.
    """
    fd = os.open(root.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, name in enumerate((root.name, *parts)):
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create or depth == 0:  # `root` itself is never made (a part may share its name)
                    raise
                os.mkdir(name, 0o755, dir_fd=fd)
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafeOutputError(root.joinpath(*parts), f"{name!r} on its path is not a plain folder "
                                            "(a symbolic link or a file)") from None
                raise
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def _open_regular(dir_fd: int, name: str, path: Path, cap: int | None) -> tuple[int, os.stat_result]:
    """A read descriptor of the regular file `name` in `dir_fd` and its stat, or UnsafeOutputError."""
    if _O_PATH:
        probe = os.open(name, _O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            st = os.fstat(probe)
            why = check_regular(st, cap)
            if why is not None:
                raise UnsafeOutputError(path, why)
            # The very inode just checked, opened for reading (no path lookup to race with).
            fd = os.open(f"/proc/self/fd/{probe}", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        finally:
            os.close(probe)
    else:  # pragma: no cover - non-Linux: a non-blocking open never waits for a FIFO's writer
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise UnsafeOutputError(path, "is a symbolic link, not a regular file") from None
            if exc.errno == errno.ENXIO:
                raise UnsafeOutputError(path, "is a socket, not a regular file") from None
            raise
    st = os.fstat(fd)
    why = check_regular(st, cap)
    if why is not None:
        os.close(fd)
        raise UnsafeOutputError(path, why)
    return fd, st


@contextlib.contextmanager
def open_output(path: Path, *, root: Path | None = None, cap: int | None = None) -> Iterator[tuple[int, int]]:
    """(descriptor, size) of a run's regular file, checked as the module says; closed on exit.

    `root` is the folder the run could write (default: the file's own folder); every
    component from it down to the file is opened without following symlinks.

    Raises:
        UnsafeOutputError: a symlink, FIFO, socket, device, directory, hard link, or over `cap`.
        FileNotFoundError: the file (or a folder on its path) does not exist.
    """
    root = path.parent if root is None else root
    *dirs, name = _relative_parts(path, root)
    with open_dir(root, dirs) as dir_fd:
        fd, st = _open_regular(dir_fd, name, path, cap)
    try:
        yield fd, st.st_size
    finally:
        os.close(fd)


def _read_fd(fd: int, limit: int, path: Path, cap: int | None) -> bytes:
    """At most `limit` bytes from `fd`, in chunks; a file that grew past `cap` is refused."""
    parts: list[bytes] = []
    got = 0
    while got < limit:
        chunk = os.read(fd, min(CHUNK, limit - got))
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        got += len(chunk)
    if cap is not None and os.read(fd, 1):
        raise UnsafeOutputError(path, f"grew past the {size_text(cap)} cap while being read")
    return b"".join(parts)


def read_output(path: Path, cap: int, *, root: Path | None = None) -> bytes:
    """The whole content of a run's regular file of at most `cap` bytes (see `open_output`)."""
    with open_output(path, root=root, cap=cap) as (fd, _size):
        return _read_fd(fd, cap, path, cap)


def read_output_text(path: Path, cap: int, *, root: Path | None = None) -> str:
    """`read_output` decoded as UTF-8, undecodable bytes replaced."""
    return read_output(path, cap, root=root).decode("utf-8", errors="replace")


REFUSED_PREFIX = "[benchwright] "
"""Starts the line that stands in a log tail for a log that was refused (see `read_output_tail`)."""


def read_output_tail(path: Path, max_bytes: int, *, root: Path | None = None) -> bytes:
    """The last `max_bytes` of a run's regular file (a log of any size), or b"" when there is none to read.

    Never raises (a log tail is best-effort context for an error message): a missing or
    unreadable file gives b"", a refused one (the run replaced its log with a symlink, a
    FIFO, ...) one line naming the file and the reason, so the result says why there is no log.
    """
    try:
        with open_output(path, root=root) as (fd, size):
            os.lseek(fd, max(0, size - max_bytes), os.SEEK_SET)
            return _read_fd(fd, max_bytes, path, None)
    except UnsafeOutputError as exc:
        return f"{REFUSED_PREFIX}{exc}\n".encode()
    except OSError:
        return b""


def refusal_notes(tail: str) -> tuple[str, ...]:
    """The refusal lines `read_output_tail` put in a log tail (for a result's notes)."""
    return tuple(line.removeprefix(REFUSED_PREFIX) for line in tail.splitlines()
                 if line.startswith(REFUSED_PREFIX) and line.endswith(UNTRUSTED))


def list_outputs(root: Path, suffixes: tuple[str, ...], limit: int,
                 prefix: str = "") -> tuple[list[str], list[tuple[str, str]]]:
    """Names in `root` starting with `prefix` and ending in one of `suffixes`: (regular files, at most `limit`; [(name, why refused)]).

    Entries are inspected without following symlinks; everything that is not a regular
    file with one link is refused by name, and past `limit` the rest is counted, not listed.
    """
    keep: list[str] = []
    refused: list[tuple[str, str]] = []
    extra = 0
    with open_dir(root) as fd, os.scandir(fd) as entries:
        for entry in entries:
            if not entry.name.endswith(suffixes) or not entry.name.startswith(prefix):
                continue
            why = check_regular(entry.stat(follow_symlinks=False), None)
            if why is not None:
                refused.append((entry.name, why))
            elif len(keep) < limit:
                keep.append(entry.name)
            else:
                extra += 1
    if extra:
        refused.append((f"{extra} more", f"files past the limit of {limit}"))
    return sorted(keep), refused


@dataclass(frozen=True)
class Copied:
    """What `copy_outputs` did."""

    copied: tuple[str, ...]
    """Names copied."""
    refused: tuple[tuple[str, str], ...]
    """(name, why) of everything not copied."""

    def notes(self) -> tuple[str, ...]:
        """One line per refused file, for a result's notes."""
        return tuple(f"not copied: {name}: {why}" for name, why in self.refused)


def _copy_fd(fd: int, target: Path, limit: int, source: Path) -> int:
    """Copy `fd` to a new file `target` in chunks; bytes copied. A source growing past `limit` is refused."""
    target.unlink(missing_ok=True)  # never write through a symlink someone left in the destination
    written = 0
    with target.open("xb") as fh:
        while chunk := os.read(fd, CHUNK):
            written += len(chunk)
            if written > limit:  # grew after the check (a process still writing)
                raise UnsafeOutputError(source, f"grew past the {size_text(limit)} cap")
            fh.write(chunk)
    return written


def copy_outputs(root: Path, names: Iterable[str], dest: Path, cap: int, total_cap: int | None = None) -> Copied:
    """Copy regular files `names` of the run directory `root` into `dest`; everything else is refused by name.

    Each file is at most `cap` bytes and all of them together at most `total_cap` (default
    4 x `cap`); files are copied in chunks, so memory stays at one chunk whatever the sizes.
    """
    dest.mkdir(parents=True, exist_ok=True)
    total = 4 * cap if total_cap is None else total_cap
    budget = total
    copied: list[str] = []
    refused: list[tuple[str, str]] = []
    for name in dict.fromkeys(names):
        limit = min(cap, budget)
        try:
            with open_output(root / name, root=root, cap=limit) as (fd, _size):
                budget -= _copy_fd(fd, dest / name, limit, root / name)
        except UnsafeOutputError as exc:
            (dest / name).unlink(missing_ok=True)
            why = exc.reason if limit == cap else f"{exc.reason} (all files together: {size_text(total)})"
            refused.append((name, why))
            continue
        except FileNotFoundError:
            continue
        except OSError as exc:
            refused.append((name, exc.strerror or str(exc)))
            continue
        copied.append(name)
    return Copied(tuple(copied), tuple(refused))


def write_output(path: Path, data: bytes, *, root: Path | None = None) -> Path:
    """Write `data` as a new regular file at `path` inside `root`, replacing whatever entry is there.

    Folders below `root` are made when missing and never followed through a symlink; an
    existing symlink, FIFO or file at `path` is unlinked (never opened), a directory there is
    refused. For the host's own files in a folder something untrusted could have prepared (a
    run directory, a cloned workspace's .benchwright/).

    Raises:
        UnsafeOutputError: a directory stands at `path`, or a folder on the way is a symlink.
    """
    root = path.parent if root is None else root
    *dirs, name = _relative_parts(path, root)
    with open_dir(root, dirs, create=True) as dir_fd:
        try:
            os.unlink(name, dir_fd=dir_fd)  # unlink never follows a symlink
        except FileNotFoundError:
            pass
        except OSError as exc:
            if exc.errno not in (errno.EISDIR, errno.EPERM):  # EPERM: macOS's answer for a directory
                raise
            raise UnsafeOutputError(path, "is a directory; not written") from None
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644,
                     dir_fd=dir_fd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    return path


def append_output(path: Path, data: bytes, *, root: Path | None = None) -> bool:
    """Append to a log a run could have replaced; False (nothing written) unless it is still a regular file."""
    try:
        with open_output(path, root=root) as (fd, _size):
            # The checked inode itself, reopened for appending (Linux; elsewhere this gives up).
            out = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, UnsafeOutputError):
        return False
    try:
        os.write(out, data)
    except OSError:
        return False
    finally:
        os.close(out)
    return True


def open_log(path: Path) -> BinaryIO:
    """A log opened for appending (created when missing); whatever else stands at `path` is refused.

    O_NOFOLLOW and O_NONBLOCK: a symlink fails, a FIFO fails at once instead of waiting for a reader.

    Raises:
        UnsafeOutputError: `path` is a symlink, FIFO, socket, device or directory.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     0o644)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENOTDIR):
            raise UnsafeOutputError(path, f"cannot be used as a log ({exc.strerror})") from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafeOutputError(path, f"is {kind_of(mode)}, not a regular file")
    return os.fdopen(fd, "ab")
