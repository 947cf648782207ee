"""EDA `-f` filelists: `+incdir+`, `+define+`, `-y`, `-v`, `+libext+`, nested `-f`/`-F`.

`parse_filelist(text, base, read)` is pure: the caller hands in how to read a nested list,
so the tests need no files. `read_filelist(path)` is the shell that reads from disk.
Relative paths resolve against the folder of the list that names them (`-F` semantics);
that is what makes a list usable from any working directory, and what most projects mean.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from sim.errors import DesignError

MAX_DEPTH = 16
"""Deepest `-f` nesting followed (a list that includes itself is an error before that)."""

_ENV = re.compile(r"\$(?:\{(\w+)\}|\((\w+)\)|(\w+))")
"""`$VAR`, `${VAR}` and `$(VAR)`: filelists commonly root paths at an environment variable."""

_VALUE_OPTIONS = frozenset(("-f", "-F", "-y", "-v", "-I", "-D", "--top-module", "-top", "--top",
                            "-top-module", "-o", "--Mdir", "-Mdir", "-j", "--timescale"))
"""Options whose value is the next token (so that value is not mistaken for a file)."""


@dataclass(frozen=True)
class FileList:
    """What a filelist says about a design."""

    files: tuple[Path, ...] = ()
    """Source files in the order listed (absolute)."""
    include_dirs: tuple[Path, ...] = ()
    """`+incdir+` / `-I` directories (absolute)."""
    defines: tuple[str, ...] = ()
    """`+define+` / `-D` values, `NAME` or `NAME=VALUE`."""
    library_dirs: tuple[Path, ...] = ()
    """`-y` directories searched for modules nobody listed (absolute)."""
    library_files: tuple[Path, ...] = ()
    """`-v` files whose modules are used only when instantiated (absolute)."""
    library_exts: tuple[str, ...] = ()
    """`+libext+` suffixes for `-y` lookups (`.v`, `.sv`)."""
    top: str = ""
    """`--top-module`/`-top` given in the list ('' when none)."""
    ignored: tuple[str, ...] = ()
    """Options that do not describe the design (kept to tell the user)."""
    lists: tuple[Path, ...] = ()
    """Every filelist read, the outermost first."""


def _strip_comments(text: str) -> str:
    """Drop `//`, `/* */` and `#` comments (all three occur in real filelists).

    A `#` starts a comment at the start of a line or after whitespace, so `+define+X=#1`
    keeps its value.
    """
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return "\n".join(re.split(r"(?:^|\s)#", raw.split("//", 1)[0], maxsplit=1)[0] for raw in text.splitlines())


def expand_env(token: str, env: Mapping[str, str]) -> str:
    """Substitute `$VAR`, `${VAR}`, `$(VAR)`; unknown variables are left as written."""
    def sub(match: re.Match[str]) -> str:
        name = next(g for g in match.groups() if g)
        return env.get(name, match.group(0))

    return _ENV.sub(sub, token)


def tokens(text: str) -> list[str]:
    """The whitespace-separated (shell-quoted) tokens of a filelist, comments removed."""
    out: list[str] = []
    for line in _strip_comments(text).splitlines():
        try:
            out += shlex.split(line, posix=True)
        except ValueError:  # an unbalanced quote: take the line as plain words
            out += line.split()
    return out


def _plus_values(token: str, prefix: str) -> list[str]:
    """`+incdir+a+b` -> ['a', 'b']."""
    return [v for v in token[len(prefix):].split("+") if v]


def parse_filelist(text: str, base: Path, read: Callable[[Path], str],
                   env: Mapping[str, str] | None = None, *, _stack: tuple[Path, ...] = ()) -> FileList:
    """Parse one filelist's text; nested lists are fetched with `read(path)`.

    Args:
        text: the list's contents.
        base: folder relative paths in this list resolve against.
        read: returns the text of a nested list (raise OSError when it is missing).
        env: variables for `$VAR` expansion (none when None).

    Raises:
        DesignError: a nested list is missing, or the lists include each other.
    """
    env = env or {}
    files: list[Path] = []
    incdirs: list[Path] = []
    defines: list[str] = []
    libdirs: list[Path] = []
    libfiles: list[Path] = []
    libexts: list[str] = []
    ignored: list[str] = []
    lists: list[Path] = list(_stack[-1:])
    top = ""

    def path_of(value: str) -> Path:
        path = Path(expand_env(value, env)).expanduser()
        return Path(os.path.normpath(path if path.is_absolute() else base / path))

    items = tokens(text)
    i = 0
    while i < len(items):
        tok = items[i]
        value = items[i + 1] if i + 1 < len(items) else ""
        takes_value = tok in _VALUE_OPTIONS
        i += 2 if takes_value else 1
        if takes_value and not value:
            ignored.append(tok)
        elif tok in ("-f", "-F"):
            # Only the spaced form: glued `-fno-inline` is a Verilator optimisation flag.
            nested = path_of(value)
            if nested in _stack or len(_stack) >= MAX_DEPTH:
                chain = " -> ".join(str(p) for p in (*_stack, nested))
                raise DesignError(f"{nested}: filelists include each other ({chain})")
            try:
                sub_text = read(nested)
            except OSError as exc:
                raise DesignError(f"{nested}: filelist not found ({exc.strerror or exc})") from None
            sub = parse_filelist(sub_text, nested.parent, read, env, _stack=(*_stack, nested))
            files += sub.files
            incdirs += sub.include_dirs
            defines += sub.defines
            libdirs += sub.library_dirs
            libfiles += sub.library_files
            libexts += sub.library_exts
            ignored += sub.ignored
            lists += [p for p in sub.lists if p not in lists]
            top = top or sub.top
        elif tok.startswith("+incdir+"):
            incdirs += [path_of(v) for v in _plus_values(tok, "+incdir+")]
        elif tok.startswith("-I"):
            incdirs.append(path_of(value if tok == "-I" else tok[2:]))
        elif tok.startswith("+define+"):
            defines += _plus_values(tok, "+define+")
        elif tok.startswith("-D"):
            defines.append(value if tok == "-D" else tok[2:])
        elif tok == "-y":
            libdirs.append(path_of(value))
        elif tok == "-v":
            libfiles.append(path_of(value))
        elif tok.startswith("+libext+"):
            libexts += _plus_values(tok, "+libext+")
        elif tok in ("--top-module", "-top", "--top", "-top-module"):
            top = value
        elif takes_value:
            ignored += [tok, value]
        elif tok.startswith(("-", "+")):
            ignored.append(tok)
        else:
            files.append(path_of(tok))
    return FileList(
        files=tuple(dict.fromkeys(files)), include_dirs=tuple(dict.fromkeys(incdirs)),
        defines=tuple(dict.fromkeys(defines)), library_dirs=tuple(dict.fromkeys(libdirs)),
        library_files=tuple(dict.fromkeys(libfiles)), library_exts=tuple(dict.fromkeys(libexts)),
        top=top, ignored=tuple(ignored), lists=tuple(lists),
    )


def read_filelist(path: Path, env: Mapping[str, str] | None = None) -> FileList:
    """Read and parse a filelist from disk (nested lists too); `env` defaults to os.environ.

    Raises:
        DesignError: the list or a nested one is missing, or they include each other.
    """
    path = Path(os.path.normpath(path.resolve()))
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise DesignError(f"{path}: filelist not found ({exc.strerror or exc})") from None

    def read(p: Path) -> str:
        return p.read_text(encoding="utf-8", errors="replace")

    return parse_filelist(text, path.parent, read, os.environ if env is None else env, _stack=(path,))
