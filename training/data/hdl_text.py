"""Modules in Verilog text, without a parser: definitions, instantiations, tops.

Pure functions over source text (comments and strings stripped first); what `designs` and
`repos` use to pick a training record's top before Verilator sees it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_STRING_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_MODULE_DEF_RE = re.compile(r"\b(?:module|macromodule)\s+(?:automatic\s+|static\s+)?([A-Za-z_]\w*)")
# `leaf u0 (` or `leaf #(...) u0 (` at a statement start (line start, after `;`, `)`, begin/end/else).
_INST_RE = re.compile(r"(?m)(?:^|(?<=;)|(?<=\))|(?<=\bbegin)|(?<=\bend)|(?<=\belse))\s*([A-Za-z_]\w*)\s*"
                      r"(?:#\s*\(|(?:\\\S+|[A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?\()")
_DEF_BEFORE_RE = re.compile(r"\b(?:module|macromodule)\s+(?:automatic\s+|static\s+)?$")
_KEYWORDS = frozenset(["module", "macromodule", "endmodule", "input", "output", "inout", "wire", "reg", "logic", "assign", "always", "always_ff", "always_comb", "always_latch", "initial", "begin", "end", "if", "else", "case", "casez", "casex", "endcase", "for", "while", "function", "task", "endfunction", "endtask", "generate", "endgenerate", "genvar", "parameter", "localparam", "integer", "typedef", "enum", "struct", "return", "default", "posedge", "negedge", "or", "and", "not", "xor", "nand", "nor", "buf", "bufif0", "bufif1", "notif0", "notif1", "signed", "unsigned", "automatic", "int", "bit", "byte"])


def strip_code(text: str) -> str:
    """Verilog text without comments and string literals (what the top detection reads)."""
    return _STRING_RE.sub('""', _COMMENT_RE.sub(" ", text))


def module_graph(texts: Iterable[str]) -> tuple[list[str], set[str]]:
    """(modules defined, in order; module names instantiated somewhere) of some RTL texts."""
    defined: list[str] = []
    bodies: list[str] = []
    for text in texts:
        code = strip_code(text)
        defined += _MODULE_DEF_RE.findall(code)
        bodies.append(code)
    names = set(defined)
    used: set[str] = set()
    for code in bodies:
        for m in _INST_RE.finditer(code):
            # A definition `module foo (` matches the pattern too; skip it.
            if m.group(1) in names and m.group(1) not in _KEYWORDS \
                    and not _DEF_BEFORE_RE.search(code[max(0, m.start(1) - 40): m.start(1)]):
                used.add(m.group(1))
    return defined, used


def find_tops(texts: Iterable[str]) -> list[str]:
    """Modules that nothing else instantiates (a single-top repository has exactly one)."""
    defined, used = module_graph(texts)
    return [d for d in dict.fromkeys(defined) if d not in used]
