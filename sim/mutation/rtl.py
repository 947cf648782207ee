"""Rewrite RTL so every mutant is selectable at run time, and trace the DUT's outputs (pure).

Each mutated span becomes `((bw_mut == K) ? (mutated) : (original))` and a dropped case arm
gets `if (bw_mut != K)` in front of its statement, so one Verilator model holds all mutants
and `+bw_mut=K` picks one (0 runs the original design). Every module with a site declares
`bw_mut` and reads the plusarg; the top module also writes each change of its outputs to
`bw_trace.<instance>.txt` in the run directory. No edit adds a line break, so Verilator's
line numbers still point at the original source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sim.mutation.mutants import Mutant
from sim.mutation.verilog_expr import tokenize

SELECT_VAR = "bw_mut"
"""The selector variable declared in every mutated module."""

PLUSARG = "bw_mut"
"""Plusarg naming the mutant to run (`+bw_mut=K`)."""

TRACE_PREFIX = "bw_trace."
"""Trace files are `bw_trace.<instance path>.txt` in the run directory."""

MAX_TRACE_ELEMENTS = 64
"""Most elements of one unpacked output array that are traced."""


@dataclass(frozen=True)
class TracedPort:
    """An output of the top module as the trace prints it."""

    name: str
    """Port name."""
    dims: tuple[int, ...] = ()
    """Unpacked dimensions (each element is traced on its own)."""


@dataclass(frozen=True)
class _Edit:
    """A site with the mutant it belongs to."""

    start: int
    end: int
    mutant: int
    mutated: str


def _select_decl() -> str:
    return (f" int unsigned {SELECT_VAR}; initial begin if (!$value$plusargs(\"{PLUSARG}=%d\", {SELECT_VAR})) "
            f"{SELECT_VAR} = 0; end ")


def _elements(port: TracedPort) -> list[str]:
    """The traced expressions of one port (each unpacked element separately)."""
    names = [port.name]
    for size in port.dims:
        names = [f"{n}[{i}]" for n in names for i in range(size)]
        if len(names) > MAX_TRACE_ELEMENTS:
            names = names[:MAX_TRACE_ELEMENTS]
    return names


def trace_block(ports: Sequence[TracedPort]) -> str:
    """One-line SV that writes `<time> <value>...` to the trace file whenever an output changes."""
    exprs = [e for p in ports for e in _elements(p)]
    if not exprs:
        return ""
    fmt = "%0t" + " %h" * len(exprs)
    return (" integer bw_trace_fd; initial bw_trace_fd = $fopen($sformatf(\"" + TRACE_PREFIX + "%m.txt\"), \"w\");"
            f" always @({' or '.join(exprs)}) $fwrite(bw_trace_fd, \"{fmt}\\n\", $time, {', '.join(exprs)});"
            " final $fclose(bw_trace_fd); ")


def _render(text: str, start: int, end: int, edits: Sequence[_Edit], fixed: bool = False) -> str:
    """text[start:end] with the edits inside it applied (nested edits inside their parent).

    `edits` is sorted by (start, -end). An edit with mutant 0 inserts its text verbatim; a
    zero-width edit of a mutant guards the statement after it; an edit that overlaps an
    earlier one without nesting in it is dropped. With `fixed`, every edit is applied
    unconditionally (a single mutant's own RTL, for the one-model-per-mutant comparison).
    """
    out: list[str] = []
    pos = start
    i = 0
    while i < len(edits):
        edit = edits[i]
        j = i + 1
        if edit.end > edit.start:
            while j < len(edits) and edits[j].start < edit.end:
                j += 1
        if edit.start < pos:
            i = j
            continue
        out.append(text[pos:edit.start])
        if edit.mutant == 0:
            out.append(edit.mutated)
        elif edit.start == edit.end:  # a dropped case arm: guard the statement that follows
            out.append(" if (1'b0) " if fixed else f" if ({SELECT_VAR} != {edit.mutant}) ")
        elif fixed:
            out.append(f"({edit.mutated})")
        else:
            inner = [e for e in edits[i + 1:j] if e.end <= edit.end]
            out.append(f"(({SELECT_VAR} == {edit.mutant}) ? ({edit.mutated}) : "
                       f"({_render(text, edit.start, edit.end, inner)}))")
        pos = edit.end
        i = j
    out.append(text[pos:end])
    return "".join(out)


def _header_end(text: str, module_at: int) -> int | None:
    """Offset where declarations may go in the module whose name starts at `module_at`.

    That is just past the `;` ending the header (after package imports, parameter and
    port lists), and past any `timeunit`/`timeprecision` that must come first.
    """
    depth = 0
    tokens = tokenize(text[module_at:])
    i = 1
    while i < len(tokens) and tokens[i].text == "import":  # `module m import p::*; #(...)`
        while i < len(tokens) and tokens[i].text != ";":
            i += 1
        i += 1
    for j in range(i, len(tokens)):
        tok = tokens[j]
        if tok.text in ("(", "[", "{", "'{", "'("):
            depth += 1
        elif tok.text in (")", "]", "}"):
            depth -= 1
        elif tok.text == ";" and depth == 0:
            end = j
            while end + 1 < len(tokens) and tokens[end + 1].text in ("timeunit", "timeprecision"):
                end += 1
                while end < len(tokens) and tokens[end].text != ";":
                    end += 1
            return module_at + tokens[min(end, len(tokens) - 1)].end
    return None


def _endmodule(text: str, module_at: int) -> int | None:
    """Offset of the `endmodule` that closes the module whose name starts at `module_at`."""
    for tok in tokenize(text[module_at:]):
        if tok.text == "endmodule":
            return module_at + tok.start
    return None


def instrument(sources: Mapping[str, str], mutants: Sequence[Mutant], top_file: str, top_at: int,
               outputs: Sequence[TracedPort], fixed: bool = False) -> dict[str, str]:
    """The RTL files with every mutant selectable and the top module's outputs traced.

    Args:
        sources: absolute path -> original text of every RTL file.
        mutants: the mutants to build in (ids are the selector values).
        top_file: file holding the top module.
        top_at: offset of the top module's name token in that file.
        outputs: the top module's outputs to trace.
        fixed: apply the (single) mutant unconditionally, without a selector.
    """
    per_file: dict[str, list[_Edit]] = {}
    modules: dict[str, set[int]] = {}
    for m in mutants:
        for site in m.sites:
            per_file.setdefault(site.file, []).append(_Edit(site.start, site.end, m.id, site.mutated))
            modules.setdefault(site.file, set()).add(site.module_at)
    out: dict[str, str] = {}
    for path, text in sources.items():
        edits = list(per_file.get(path, []))
        for module_at in sorted(modules.get(path, set())) if not fixed else ():
            at = _header_end(text, module_at)
            if at is not None:
                edits.append(_Edit(at, at, 0, _select_decl()))
        if path == top_file:
            at = _endmodule(text, top_at)
            if at is not None:
                edits.append(_Edit(at, at, 0, trace_block(outputs)))
        edits.sort(key=lambda e: (e.start, -e.end, e.mutant))
        out[path] = _render(text, 0, len(text), edits, fixed)
    return out


def site_lines(mutant: Mutant, sources: Mapping[str, str]) -> set[tuple[str, int]]:
    """(file, line) of every site of a mutant (for mapping compiler errors back)."""
    lines: set[tuple[str, int]] = set()
    for site in mutant.sites:
        text = sources.get(site.file, "")
        first = text.count("\n", 0, site.start) + 1
        last = text.count("\n", 0, max(site.start, site.end)) + 1
        lines.update((site.file, n) for n in range(first, last + 1))
    return lines
