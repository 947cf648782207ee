"""Static guard for untrusted testbenches: reject what could escape the run directory.

A generated testbench may not call the shell, bind C code, or name files outside its
run directory. The check runs on the source with comments removed (string literals kept,
since file names live in them), before anything is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

COCOTB_AUDIT_SITE = Path(__file__).parent / "cocotb_site"
"""Folder whose sitecustomize installs the audit-hook sandbox; first on PYTHONPATH for generated cocotb tests."""

_FILE_TASKS = ("$fopen", "$dumpfile", "$readmemh", "$readmemb", "$writememh", "$writememb")
"""System tasks whose first argument names a file."""

_READ_MODES = frozenset({"r", "rb"})
"""`$fopen` modes that cannot create or change a file (no mode at all opens for writing)."""

_SV_ESCAPES = {"n": "\n", "t": "\t", "v": "\v", "f": "\f", "a": "\a"}


@dataclass(frozen=True)
class Violation:
    """One reason a testbench is refused."""

    line: int
    """1-based line in the testbench."""
    text: str
    """What is wrong and why."""


def strip_comments(src: str) -> str:
    """Blank out // and /* */ comments, keeping strings, newlines and column positions."""
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '"':
            j = i + 1
            while j < n and src[j] != '"' and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            out.append(src[i : j + 1])
            i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in src[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def sv_unescape(text: str) -> str:
    r"""The value of an SV string literal's body: `\\056` (octal), `\\x2e`, `\\n`, `\\\\` decoded."""

    def one(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc[0] in "01234567":
            return chr(int(esc, 8) & 0xFF)
        if esc[0] == "x":
            return chr(int(esc[1:], 16)) if len(esc) > 1 else "x"
        return _SV_ESCAPES.get(esc, esc)

    return re.sub(r"\\([0-7]{1,3}|x[0-9A-Fa-f]{0,2}|.)", one, text, flags=re.S)


def _unsafe_path(path: str) -> bool:
    """True for absolute paths, parent-directory escapes and home expansion (after unescaping)."""
    for form in {path, sv_unescape(path)}:
        if form.startswith(("/", "~", "\\")) or ".." in re.split(r"[\\/]", form) or ":" in form[:3] \
                or "\0" in form:
            return True
    return False


def check_sv(src: str) -> list[Violation]:
    """Violations of the sandbox policy in a SystemVerilog testbench (empty = allowed)."""
    code = strip_comments(src)
    found: list[Violation] = []

    def line_of(pos: int) -> int:
        return code.count("\n", 0, pos) + 1

    # Calls are looked for with string contents blanked (`$display("$system")` is text).
    bare = re.sub(r'"(?:[^"\\\n]|\\.)*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', code)
    for m in re.finditer(r"\$system\b", bare):
        found.append(Violation(line_of(m.start()), "`$system` runs a shell command; not allowed in a testbench"))
    for m in re.finditer(r"\b(?:import|export)\s+\"DPI(?:-C)?\"", code):
        found.append(Violation(line_of(m.start()), "DPI imports/exports bind native code; not allowed in a testbench"))
    for m in re.finditer(r"\$c(?:pure)?\s*\(", bare):
        found.append(Violation(line_of(m.start()), "`$c` embeds C++ code; not allowed in a testbench"))
    for m in re.finditer(r"`systemc_\w+", bare):
        found.append(Violation(line_of(m.start()), f"`{m.group(0)[1:]}` embeds C++ code; not allowed in a testbench"))
    for m in re.finditer(r"`include\b\s*(\"[^\"\n]*\"|<[^>\n]*>)?", code):
        if m.group(1) is None:
            found.append(Violation(line_of(m.start()), "`include needs a literal file name"))
        elif _unsafe_path(m.group(1)[1:-1]):
            found.append(Violation(line_of(m.start()), f"`include of {m.group(1)[1:-1]!r} reaches outside the design"))
    for task in _FILE_TASKS:
        for m in re.finditer(re.escape(task) + r"\s*\(\s*", code):
            rest = code[m.end() :]
            lit = re.match(r'"((?:[^"\\\n]|\\.)*)"', rest)
            if lit:
                if _unsafe_path(lit.group(1)):
                    found.append(
                        Violation(line_of(m.start()), f"{task}({lit.group(1)!r}): files must stay in the run directory (use a relative name)")
                    )
            elif task in ("$fopen", "$dumpfile", "$writememh", "$writememb"):
                # A computed file name could be anything; only a literal can be checked.
                # `$fopen(name)` without a mode opens for writing, as does any mode but r/rb.
                args = rest.split(")", 1)[0]
                mode = re.search(r",\s*\"([^\"]*)\"\s*$", args)
                writes = task != "$fopen" or mode is None or mode.group(1).strip() not in _READ_MODES
                if writes:
                    found.append(
                        Violation(line_of(m.start()), f"{task} with a computed file name for writing; use a relative string literal")
                    )
    return sorted(found, key=lambda v: v.line)


_COCOTB_ALLOWED = frozenset(
    {
        "cocotb", "cocotb_tools", "random", "math", "itertools", "collections", "functools",
        "typing", "dataclasses", "enum", "operator", "statistics", "__future__", "logging",
        "decimal", "fractions", "struct", "string", "re", "copy", "heapq", "bisect",
    }
)
"""Top-level modules a generated cocotb test may import."""

_COCOTB_ALLOWED_EXACT = frozenset({"cocotbext.axi", "cocotbext.uart"})
"""Packages (exactly these, not `cocotbext` or its other members) a generated test may import.

The engine's cocotb companion drives AXI4-Lite, AXI-Stream, APB and AXI responders through
cocotbext-axi and serial inputs through cocotbext-uart (both pinned in requirements/base.txt)
instead of hand-written drivers; the audit-hook sandbox still applies to everything they do.
"""

_COCOTB_BANNED_CALLS = frozenset({
    "open", "exec", "eval", "compile", "__import__", "breakpoint", "input",
    # Reflection reaches any module through an allowed one (`getattr(logging, "os")`).
    "getattr", "setattr", "delattr", "vars", "globals", "locals", "attrgetter", "methodcaller",
})
"""Builtins (and operator helpers) a generated cocotb test may not call or even name."""

_COCOTB_BANNED_ATTRS = frozenset({
    "os", "sys", "subprocess", "socket", "shutil", "pathlib", "io", "builtins", "importlib", "ctypes",
    "posix", "signal", "threading", "multiprocessing", "tempfile", "glob", "codecs", "pty", "modules",
    "system", "popen", "fork", "forkpty", "spawn", "import_module", "load_module",
})
"""Attributes that lead from an allowed module to the OS (`logging.os`, `typing.sys.modules`)."""

_COCOTB_PRIVATE_OK = frozenset({"_log", "_name", "_path", "_def_name", "_def_file"})
"""Underscore attributes of cocotb handles that tests use (`dut._log.info`)."""


def check_cocotb(src: str) -> list[Violation]:
    """Violations in a generated cocotb test: imports off the allow-list, file/exec builtins."""
    import ast

    try:
        tree = ast.parse(src)
    except SyntaxError as exc:
        return [Violation(exc.lineno or 0, f"Python syntax error: {exc.msg}")]
    except ValueError as exc:  # NUL bytes (3.11), lone surrogates (UnicodeEncodeError)
        return [Violation(0, f"Python source is not valid text: {exc}")]
    found: list[Violation] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                if name.split(".")[0] not in _COCOTB_ALLOWED and name not in _COCOTB_ALLOWED_EXACT:
                    found.append(Violation(node.lineno, f"import of {name!r} is not allowed in a generated test"))
        elif isinstance(node, ast.Name) and node.id in _COCOTB_BANNED_CALLS:
            found.append(Violation(node.lineno, f"call to {node.id}() is not allowed in a generated test"))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr.endswith("__"):
            found.append(Violation(node.lineno, f"dunder attribute access {node.attr!r} is not allowed"))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and node.attr not in _COCOTB_PRIVATE_OK:
            # `random._os`, `subprocess._posixsubprocess`, `dataclasses._create_fn` (exec).
            found.append(Violation(node.lineno, f"private attribute access {node.attr!r} is not allowed"))
        elif isinstance(node, ast.Attribute) and (node.attr in _COCOTB_BANNED_ATTRS or node.attr in _COCOTB_BANNED_CALLS
                                                  or node.attr.startswith(("exec", "spawn"))):
            found.append(Violation(node.lineno, f"attribute {node.attr!r} reaches the OS; not allowed in a generated test"))
    return sorted(found, key=lambda v: v.line)
