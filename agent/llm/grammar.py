"""GBNF grammar that forces llama.cpp output into the reply shape parse.py accepts."""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def grammar_text(top: str | None = None) -> str:
    """The GBNF source (agent/tb.gbnf) with the file-name rule for `top` appended.

    With `top` the file name is fixed to `tb_<top>.sv`; without it any identifier goes.
    """
    base = resources.files("agent").joinpath("tb.gbnf").read_text(encoding="utf-8")
    if top is None:
        name_rule = 'name    ::= [A-Za-z_] [A-Za-z0-9_]*'
    else:
        if not _IDENT_RE.fullmatch(top):
            raise ValueError(f"top module name {top!r} is not a Verilog identifier")
        name_rule = f'name    ::= "{top}"'
    return base.rstrip("\n") + "\n" + name_rule + "\n"


def make_grammar(top: str | None = None) -> Any:
    """A `llama_cpp.LlamaGrammar` for the reply shape (needs the `llama` extra)."""
    from llama_cpp.llama_grammar import LlamaGrammar

    return LlamaGrammar.from_string(grammar_text(top), verbose=False)
