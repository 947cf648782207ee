"""Static guard for untrusted testbenches: reject what could escape the run directory.

A generated testbench may not call the shell, bind C code, or name files outside its
run directory. The check runs on the source with comments removed (string literals kept,
since file names live in them), before anything is built.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FILE_TASKS = ("$fopen", "$dumpfile", "$readmemh", "$readmemb", "$writememh", "$writememb")
"""System tasks whose first argument names a file."""



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


def _unsafe_path(path: str) -> bool:
    """True for absolute paths, parent-directory escapes and home expansion."""
    return path.startswith(("/", "~", "\\")) or ".." in re.split(r"[\\/]", path) or ":" in path[:3]


def check_sv(src: str) -> list[Violation]:
    """Violations of the sandbox policy in a SystemVerilog testbench (empty = allowed)."""
    code = strip_comments(src)
    found: list[Violation] = []

    def line_of(pos: int) -> int:
        return code.count("\n", 0, pos) + 1

    # Calls are looked for with string contents blanked (`$display("$system")` is text).
    bare = re.sub(r'"[^"\n]*"', lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', code)
    for m in re.finditer(r"\$system\b", bare):
        found.append(Violation(line_of(m.start()), "`$system` runs a shell command; not allowed in a testbench"))
    for m in re.finditer(r"\b(?:import|export)\s+\"DPI(?:-C)?\"", code):
        found.append(Violation(line_of(m.start()), "DPI imports/exports bind native code; not allowed in a testbench"))
    for m in re.finditer(r"`include\s+\"([^\"]*)\"", code):
        if _unsafe_path(m.group(1)):
            found.append(Violation(line_of(m.start()), f"`include of {m.group(1)!r} reaches outside the design"))
    for task in _FILE_TASKS:
        for m in re.finditer(re.escape(task) + r"\s*\(\s*", code):
            rest = code[m.end() :]
            lit = re.match(r"\"([^\"]*)\"", rest)
            if lit:
                if _unsafe_path(lit.group(1)):
                    found.append(
                        Violation(line_of(m.start()), f"{task}({lit.group(1)!r}): files must stay in the run directory (use a relative name)")
                    )
            elif task in ("$fopen", "$dumpfile", "$writememh", "$writememb"):
                # A computed file name could be anything; only a literal can be checked.
                args = rest.split(")", 1)[0]
                writes = task != "$fopen" or re.search(r",\s*\"[wa]", args) is not None
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

_COCOTB_BANNED_CALLS = frozenset({"open", "exec", "eval", "compile", "__import__", "breakpoint", "input"})
"""Builtins a generated cocotb test may not call."""


def check_cocotb(src: str) -> list[Violation]:
    """Violations in a generated cocotb test: imports off the allow-list, file/exec builtins."""
    import ast

    try:
        tree = ast.parse(src)
    except SyntaxError as exc:
        return [Violation(exc.lineno or 0, f"Python syntax error: {exc.msg}")]
    found: list[Violation] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                if name.split(".")[0] not in _COCOTB_ALLOWED:
                    found.append(Violation(node.lineno, f"import of {name!r} is not allowed in a generated test"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _COCOTB_BANNED_CALLS:
            found.append(Violation(node.lineno, f"call to {node.func.id}() is not allowed in a generated test"))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__") and node.attr.endswith("__"):
            found.append(Violation(node.lineno, f"dunder attribute access {node.attr!r} is not allowed"))
    return sorted(found, key=lambda v: v.line)
