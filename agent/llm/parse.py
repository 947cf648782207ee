"""Strict parsing of a model reply into a testbench (`filename:` line + one fenced block).

Every rejection raises FormatError with a corrective message that the episode loop
feeds back to the model verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FENCE_LANGS = frozenset({"systemverilog", "verilog", "sv", ""})
"""Info strings accepted on the opening fence (``` alone included)."""

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE_RE = re.compile(r"^ {0,3}```(?P<info>[^`]*?)\s*$")
_FILENAME_RE = re.compile(r"^\W*filename\W*:\s*(?P<name>.*?)\s*$", re.IGNORECASE)
_TB_NAME_RE = re.compile(r"tb_[A-Za-z0-9_$]*\.sv")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_MODULE_RE = re.compile(r"^\s*module\s+[A-Za-z_]", re.MULTILINE)
_ENDMODULE_RE = re.compile(r"\bendmodule\b")


class FormatError(ValueError):
    """The reply does not have the required shape; `message` tells the model how to fix it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        """Corrective text for the model (also the exception's str)."""


@dataclass(frozen=True)
class ParsedTB:
    """A testbench extracted from a reply."""

    filename: str
    """File name (`tb_<name>.sv`); `tb_<top>.sv` when the reply named none."""
    code: str
    """The code block's text, ending with exactly one newline."""


def format_hint(top: str) -> str:
    """The one-sentence statement of the required format."""
    return (f"Reply with a plain line `filename: tb_{top}.sv` followed by exactly one "
            f"fenced ```systemverilog code block that holds the complete testbench.")


def strip_think(text: str) -> str:
    """Remove `<think>...</think>` sections (Qwen3 reasoning) from a reply."""
    text = _THINK_RE.sub("", text)
    if re.search(r"<think>", text, re.IGNORECASE):
        raise FormatError("The reply ended inside a <think> section and contains no answer.")
    # A stray closing tag (the opening one was in the prompt) hides everything before it.
    parts = re.split(r"</think>", text, flags=re.IGNORECASE)
    return parts[-1]


def _blocks(lines: list[str], top: str) -> tuple[list[tuple[str, int, int]], list[int]]:
    """Fenced blocks as (info, first body line, end line) and the line numbers outside them."""
    blocks: list[tuple[str, int, int]] = []
    outside: list[int] = []
    i = 0
    while i < len(lines):
        m = _FENCE_RE.match(lines[i])
        if not m:
            outside.append(i)
            i += 1
            continue
        info = m.group("info").strip()
        lang = info.split()[0].lower() if info else ""
        if lang not in FENCE_LANGS:
            raise FormatError(
                f"The code block is marked `{info}`, not SystemVerilog. " + format_hint(top))
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
        if end is None:
            raise FormatError(
                "The code block is not closed (no line with only ```); the reply may have "
                "been cut off. Write a shorter complete testbench. " + format_hint(top))
        blocks.append((lang, i + 1, end))
        i = end + 1
    return blocks, outside


def parse_response(text: str, top: str) -> ParsedTB:
    """Extract the testbench from a model reply or raise FormatError.

    Accepts exactly one fenced block (```systemverilog, ```verilog, ```sv or ```),
    an optional `filename: tb_*.sv` line outside it, and `<think>` sections anywhere.
    """
    body = strip_think(text)
    lines = body.replace("\r\n", "\n").split("\n")
    blocks, outside = _blocks(lines, top)
    if not blocks:
        raise FormatError("The reply has no fenced code block. " + format_hint(top))
    if len(blocks) > 1:
        raise FormatError(
            f"The reply has {len(blocks)} fenced code blocks; it must have exactly one, with "
            f"the whole testbench in it. " + format_hint(top))
    names = []
    for i in outside:
        m = _FILENAME_RE.match(lines[i])
        if m:
            names.append(m.group("name").strip("`*'\" "))
    filename = f"tb_{top}.sv"
    if names:
        if len(set(names)) > 1:
            raise FormatError(
                f"The reply names several files ({', '.join(sorted(set(names)))}); give "
                f"exactly one. " + format_hint(top))
        if not _TB_NAME_RE.fullmatch(names[0]):
            raise FormatError(
                f"The file name `{names[0]}` is not of the form `tb_<name>.sv`. "
                + format_hint(top))
        filename = names[0]
    _, start, end = blocks[0]
    code = "\n".join(lines[start:end]).strip("\n")
    if not code.strip():
        raise FormatError("The code block is empty. " + format_hint(top))
    bare = _COMMENT_RE.sub("", code)
    if not _MODULE_RE.search(bare):
        raise FormatError(
            f"The code block has no `module` declaration; it must hold the complete "
            f"testbench module `tb_{top}`. " + format_hint(top))
    if not _ENDMODULE_RE.search(bare):
        raise FormatError(
            "The testbench has no `endmodule`; the module is incomplete. " + format_hint(top))
    return ParsedTB(filename=filename, code=code + "\n")


def format_response(filename: str, code: str) -> str:
    """The canonical reply for a testbench (what SFT targets and the grammar produce)."""
    return f"filename: {filename}\n```systemverilog\n{code.rstrip()}\n```\n"
