"""Mutants of a design, found structurally in Verilator's `--json-only` AST (pure).

The AST decides what to mutate and where: operator nodes (`+`/`-`, `&`/`|`, `&&`/`||`,
`==`/`!=`, `<`/`<=`, `>`/`>=`), `if` and `?:` conditions (inverted), literals in
expressions (off by one), assigned signals (stuck at 0 / 1) and case arms (dropped).
Only elaborated, run-time code counts: parameters, ranges and selects are folded away
or skipped, initial blocks and loop headers are left alone. Verilator's tree is already
simplified (if/else chains become `?:`) and gives an operator only its token's position, so
`sim.mutation.verilog_expr` parses the module's statements from the source tokens to find each
site's extent, and a site is kept only where the tree has a matching run-time node at that
exact position. `sim.mutation.rtl` turns the sites into one RTL copy where every mutant is
selectable at run time.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.analysis import ast_json as ast
from sim.mutation.verilog_expr import (
    ExprError,
    ExprParser,
    Span,
    Token,
    token_at,
    tokenize,
)

SWAPS: dict[str, str] = {
    "+": "-", "-": "+", "&": "|", "|": "&", "&&": "||", "||": "&&",
    "==": "!=", "!=": "==", "===": "!==", "!==": "===",
    "<": "<=", "<=": "<", ">": ">=", ">=": ">", "^": "|", "<<": ">>", ">>": "<<",
}
"""Operator swaps, by source token."""

SWAP_NODES: dict[str, frozenset[str]] = {
    "+": frozenset(("ADD",)), "-": frozenset(("SUB",)),
    "&": frozenset(("AND",)), "|": frozenset(("OR",)),
    "&&": frozenset(("LOGAND", "AND")), "||": frozenset(("LOGOR", "OR")),
    "==": frozenset(("EQ", "EQCASE")), "!=": frozenset(("NEQ", "NEQCASE")),
    "===": frozenset(("EQCASE", "EQ")), "!==": frozenset(("NEQCASE", "NEQ")),
    "^": frozenset(("XOR",)), "<<": frozenset(("SHIFTL",)), ">>": frozenset(("SHIFTR",)),
    "<": frozenset(("LT", "LTS", "GT", "GTS")), "<=": frozenset(("LTE", "LTES", "GTE", "GTES")),
    ">": frozenset(("GT", "GTS", "LT", "LTS")), ">=": frozenset(("GTE", "GTES", "LTE", "LTES")),
}
"""AST node types an operator token may appear as (Verilator swaps compare operands)."""

KINDS: tuple[str, ...] = ("operator", "condition", "constant", "stuck-at", "case-arm")
"""Mutation kinds, in report order."""

SKIPPED_BLOCKS: frozenset[str] = frozenset(("INITIAL", "INITIALSTATIC", "INITIALAUTOMATIC", "FINAL"))
"""Blocks whose statements are never mutated (they run once, before the mutant is chosen)."""


@dataclass(frozen=True)
class Site:
    """One text edit of a mutant."""

    file: str
    """Absolute path of the RTL file."""
    start: int
    """Offset of the first character replaced (or of the insertion point)."""
    end: int
    """Offset just past the replaced text (== start for an insertion)."""
    mutated: str
    """The mutated text of the span (one line), or for an insertion the guard kind `drop`."""
    module_at: int
    """Offset of the enclosing module's name token (where `bw_mut` is declared)."""


@dataclass(frozen=True)
class Mutant:
    """One mutant: a small change to the RTL, selectable at run time by its id."""

    id: int
    """Selector value (1..N; 0 is the original design)."""
    kind: str
    """One of KINDS."""
    file: str
    """Absolute path of the RTL file."""
    line: int
    """1-based line of the change."""
    column: int
    """1-based column of the change."""
    description: str
    """What changed, e.g. "`count + 1` -> `count - 1`"."""
    sites: tuple[Site, ...]
    """The text edits (several for a stuck-at signal assigned in several places)."""


@dataclass
class _File:
    """A source file: text, tokens and a parser over them."""

    path: str
    text: str
    tokens: list[Token]
    parser: ExprParser


def _short(text: str, limit: int = 60) -> str:
    """One-line, shortened source text for descriptions."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 3] + "..."


def _join(tokens: Sequence[Token], swap: Mapping[int, str] | None = None, offset: int = 0) -> str:
    """Tokens as one line of text (comments dropped), some replaced by index."""
    swap = swap or {}
    return " ".join(swap.get(offset + i, t.text) for i, t in enumerate(tokens))


class _Finder:
    """Walks one module and collects candidate mutants."""

    def __init__(self, files: Mapping[str, _File], file_ids: Mapping[str, str], nodes: Mapping[str, Any]) -> None:
        self.files = files
        """Absolute path -> parsed source."""
        self.file_ids = file_ids
        """Verilator file id -> absolute path (only the design's own RTL files)."""
        self.nodes = nodes
        """addr -> node (dtype lookups)."""
        self.found: dict[tuple[str, int, int, str], tuple[str, str, int, int, str, list[Site]]] = {}
        """(file, start, end, kind) -> (kind, file, line, col, description, sites); deduplicated."""
        self.stuck: dict[tuple[str, int, str], list[tuple[int, int, int, int]]] = {}
        """(file, module offset, signal) -> (rhs start, rhs end, line, col) of each assignment."""
        self.loop_vars: set[str] = set()
        """Variables that control loops in the current module (never stuck)."""

    def locate(self, node: Mapping[str, Any]) -> tuple[_File, int] | None:
        """The file and token index of a node's location, when it is in the design's RTL."""
        fid, line, col = ast.parse_loc(str(node.get("loc", "")))
        path = self.file_ids.get(fid)
        if path is None:
            return None
        src = self.files[path]
        idx = token_at(src.tokens, line, col)
        return (src, idx) if idx is not None else None

    def module(self, module: Mapping[str, Any]) -> None:
        """Collect the mutants of one module.

        Verilator's tree is already simplified (an if/else chain assigning one variable
        becomes a single assignment of nested `?:`), so statements are found in the source
        tokens of the module, and a site is kept only where the tree has a node of the
        right kind at that exact position, in run-time code.
        """
        here = self.locate(module)
        if here is None:
            return
        src, name_idx = here
        module_at = src.tokens[name_idx].start
        runtime: dict[int, list[Mapping[str, Any]]] = {}
        assigned: dict[str, Mapping[str, Any]] = {}
        for n in _runtime_nodes(module):
            loc = self.locate(n)
            if loc is not None and loc[0] is src:
                runtime.setdefault(loc[1], []).append(n)
            if n.get("type") in ("ASSIGN", "ASSIGNDLY", "ASSIGNW"):
                target = _target(n)
                if target is not None:
                    assigned.setdefault(str(target.get("name")), target)
        loops = {str(v.get("name")) for w in ast.walk(module) if w.get("type") in ("WHILE", "DOWHILE")
                 for v in ast.varrefs(ast.first(w, "condp"))}
        end = next((i for i in range(name_idx, len(src.tokens)) if src.tokens[i].text == "endmodule"),
                   len(src.tokens))
        for kind, at, start, close in _statements(src.tokens, name_idx, end):
            region = self._region(src, start, close)
            if region is None:
                continue
            first, last, spans = region
            if not any(k in runtime for k in range(at, last + 1)):
                continue  # a parameter, a declaration's initial value, an initial block
            if kind == "if":
                cond = src.tokens[first:last + 1]
                self._add("condition", src, cond[0].start, cond[-1].end, cond[0],
                          f"condition `{_short(_join(cond))}` inverted", f"!({_join(cond)})", module_at)
            else:
                name = _lvalue(src.tokens, at)
                target = assigned.get(name or "")
                if name is not None and target is not None and name not in loops and self._stuck_ok(target):
                    rhs = src.tokens[first:last + 1]
                    self.stuck.setdefault((src.path, module_at, name), []).append(
                        (rhs[0].start, rhs[-1].end, rhs[0].line, rhs[0].col))
            self._expressions(src, spans, module_at, runtime)
        for n in [n for nodes in runtime.values() for n in nodes if n.get("type") == "CASEITEM"]:
            loc = self.locate(n)
            if loc is None or src.tokens[loc[1]].text != ":" or not ast.kids(n, "stmtsp"):
                continue
            tok = src.tokens[loc[1]]
            label = ", ".join(ast.render(c, self.nodes) or "?" for c in ast.kids(n, "condsp")) or "default"
            self._add("case-arm", src, tok.end, tok.end, tok, f"case arm `{_short(label)}:` dropped", "drop", module_at)

    def _stuck_ok(self, target: Mapping[str, Any]) -> bool:
        """True when `'0`/`'1` can be assigned to the variable (integral, not an enum)."""
        info = ast.type_info(target.get("dtypep"), self.nodes)
        return not (info.name in ("real", "shortreal", "realtime", "string", "chandle") or info.unpacked
                    or info.enum_addr is not None)

    def _region(self, src: _File, start: int, close: str) -> tuple[int, int, list[Span]] | None:
        """Parse the expression at token `start`: its token range and sub-expressions.

        None unless one of the `close` tokens follows it and no macro is inside.
        """
        src.parser.spans.clear()
        try:
            last = src.parser.parse_at(start)
        except ExprError:
            return None
        after = src.tokens[last + 1].text if last + 1 < len(src.tokens) else ""
        if not after or after not in close or any(t.kind == "macro" for t in src.tokens[start:last + 1]):
            return None
        return start, last, list(src.parser.spans)

    def _expressions(self, src: _File, spans: Sequence[Span], module_at: int,
                     runtime: Mapping[int, list[Mapping[str, Any]]]) -> None:
        """Operator, ternary-condition and constant mutants inside one parsed expression."""
        for span in spans:
            if span.in_select:
                continue
            here = runtime.get(span.op if span.op >= 0 else span.first, [])
            types = {str(n.get("type")) for n in here}
            if span.kind == "binary":
                self._operator(src, span, types, module_at)
            elif span.kind == "unary" and src.tokens[span.op].text in ("!", "~") and types & {"NOT", "LOGNOT"}:
                toks = src.tokens[span.first:span.last + 1]
                self._add("operator", src, toks[0].start, toks[-1].end, toks[0],
                          f"`{_short(_join(toks))}` -> `{_short(_join(toks[1:]))}`", _join(toks[1:]), module_at)
            elif span.kind == "cond" and "COND" in types and span.cond is not None:
                a, b = span.cond
                cond = src.tokens[a:b + 1]
                self._add("condition", src, cond[0].start, cond[-1].end, cond[0],
                          f"condition `{_short(_join(cond))}` inverted", f"!({_join(cond)})", module_at)
            elif span.kind == "primary" and span.first == span.last and src.tokens[span.first].kind == "number":
                self._constant(src, span, here, module_at)

    def _operator(self, src: _File, span: Span, types: set[str], module_at: int) -> None:
        op = src.tokens[span.op]
        swap = SWAPS.get(op.text)
        if swap is None or not types & SWAP_NODES[op.text]:
            return
        toks = src.tokens[span.first:span.last + 1]
        before, after = _join(toks), _join(toks, {span.op: swap}, span.first)
        self._add("operator", src, toks[0].start, toks[-1].end, op,
                  f"`{_short(before)}` -> `{_short(after)}`", after, module_at)

    def _constant(self, src: _File, span: Span, here: Sequence[Mapping[str, Any]], module_at: int) -> None:
        tok = src.tokens[span.first]
        consts = [ast.parse_const(str(n.get("name", ""))) for n in here if n.get("type") == "CONST"]
        if not consts or any(c is None or c.wildcard for c in consts):
            return
        self._add("constant", src, tok.start, tok.end, tok, f"constant `{tok.text}` -> `{tok.text} + 1`",
                  f"({tok.text} + 1'b1)", module_at)

    def _add(self, kind: str, src: _File, start: int, end: int, tok: Token, description: str, mutated: str,
             module_at: int) -> None:
        key = (src.path, start, end, kind)
        if key not in self.found:
            self.found[key] = (kind, src.path, tok.line, tok.col, description,
                               [Site(src.path, start, end, mutated, module_at)])

    def stuck_mutants(self) -> list[tuple[str, str, int, int, str, list[Site]]]:
        """Stuck-at-0 and stuck-at-1 candidates, one pair per assigned signal."""
        out = []
        for (path, module_at, name), places in sorted(self.stuck.items()):
            places = sorted(set(places))
            line, col = places[0][2], places[0][3]
            for value in ("0", "1"):
                sites = [Site(path, s, e, f"'{value}", module_at) for s, e, _, _ in places]
                out.append(("stuck-at", path, line, col, f"`{name}` stuck at {value}", sites))
        return out


def _runtime_nodes(module: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Nodes of the code that runs while simulating.

    That is always blocks, continuous assignments, functions and tasks; not initial or
    final blocks, loop headers or declarations.
    """
    out: list[Mapping[str, Any]] = []
    stack: list[tuple[Mapping[str, Any], bool]] = [(c, False) for c in ast.children(module)]
    while stack:
        node, inside = stack.pop()
        kind = str(node.get("type", ""))
        if kind in SKIPPED_BLOCKS or kind == "VAR":
            continue
        inside = inside or kind in ("ALWAYS", "ALWAYSPOST", "ASSIGNW", "FUNC", "TASK", "CFUNC")
        if inside:
            out.append(node)
        for key, value in node.items():
            if isinstance(value, list):
                if kind in ("WHILE", "DOWHILE") and key in ("condp", "incsp", "precondsp"):
                    continue
                stack.extend((c, inside) for c in value if isinstance(c, dict))
    return out


def _target(assign: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The VARREF an assignment writes (through selects), or None."""
    lhs = ast.first(assign, "lhsp")
    while lhs is not None and lhs.get("type") in ("SEL", "ARRAYSEL", "WORDSEL"):
        lhs = ast.first(lhs, "fromp")
    return lhs if lhs is not None and lhs.get("type") == "VARREF" else None


_STATEMENT_START: frozenset[str] = frozenset((";", "begin", "end", "else", ")", ":", "endcase", "fork", "join", "do"))
"""Tokens after which a statement (and so a nonblocking assignment's target) may start."""

_LOOP_HEADS: frozenset[str] = frozenset(("for", "while", "repeat", "foreach", "wait"))
"""Keywords whose parenthesised header is never mutated (loop control, waits)."""


def _lvalue_at(tokens: Sequence[Token], at: int) -> int | None:
    """Token index of the variable assigned by the `=`/`<=` token at `at` (`x`, `x[3]`), else None."""
    j = at - 1
    while j >= 0 and tokens[j].text == "]":
        depth = 0
        while j >= 0:
            if tokens[j].text == "]":
                depth += 1
            elif tokens[j].text == "[":
                depth -= 1
                if depth == 0:
                    break
            j -= 1
        j -= 1
    if j < 0 or tokens[j].kind != "ident":
        return None
    return j


def _lvalue(tokens: Sequence[Token], at: int) -> str | None:
    """The variable assigned by the `=`/`<=` token at `at`, else None."""
    j = _lvalue_at(tokens, at)
    return tokens[j].text if j is not None else None


def _statements(tokens: Sequence[Token], lo: int, hi: int) -> list[tuple[str, int, int, str]]:
    """Where expressions start between tokens lo and hi.

    One (kind, anchor token, first expression token, closers) per `if (...)` condition
    and per assignment's right-hand side; loop headers are skipped.
    """
    out: list[tuple[str, int, int, str]] = []
    i = lo
    while i < hi:
        text = tokens[i].text
        nxt = tokens[i + 1].text if i + 1 < len(tokens) else ""
        if text in _LOOP_HEADS and nxt == "(":
            depth, i = 0, i + 1
            while i < hi:
                depth += {"(": 1, ")": -1}.get(tokens[i].text, 0)
                i += 1
                if depth == 0:
                    break
            continue
        if text == "if" and nxt == "(":
            out.append(("if", i, i + 2, ")"))
        elif text == "=":
            out.append(("assign", i, i + 1, ";,"))
        elif text == "<=":
            j = _lvalue_at(tokens, i)
            if j is not None and j > lo and tokens[j - 1].text in _STATEMENT_START:
                out.append(("assign", i, i + 1, ";"))
        i += 1
    return out


def find_mutants(tree: Mapping[str, Any], sources: Mapping[str, str],
                 modules: Sequence[Mapping[str, Any]] | None = None) -> list[Mutant]:
    """Every mutant of the design's own RTL files, ids 1..N in file/line order.

    Args:
        tree: the `--json-only` tree with the meta under `meta` (as `sim.analysis.interface.read_tree` gives).
        sources: absolute path -> text of each RTL file that may be mutated.
        modules: the MODULE nodes of the elaborated hierarchy (default: every module).
    """
    meta_files = tree.get("meta", {}).get("files", {})
    wanted = {str(Path(p).resolve()): p for p in sources}
    file_ids: dict[str, str] = {}
    for fid, info in meta_files.items():
        for key in ("realpath", "filename"):
            real = str(Path(str(info.get(key, ""))).resolve()) if info.get(key) else ""
            if real in wanted:
                file_ids[fid] = wanted[real]
                break
    files = {}
    for path, text in sources.items():
        tokens = tokenize(text)
        files[path] = _File(path, text, tokens, ExprParser(tokens))
    finder = _Finder(files, file_ids, ast.index(tree))
    seen_modules: set[str] = set()
    for module in modules if modules is not None else ast.kids(tree, "modulesp"):
        if module.get("type") != "MODULE" or str(module.get("loc", "")) in seen_modules:
            continue  # packages, interfaces and the constant pool hold no mutated code
        seen_modules.add(str(module.get("loc", "")))
        finder.module(module)
    candidates = [*finder.found.values(), *finder.stuck_mutants()]
    candidates.sort(key=lambda c: (c[1], c[2], c[3], KINDS.index(c[0]), c[4]))
    return [Mutant(i + 1, kind, path, line, col, desc, tuple(sites))
            for i, (kind, path, line, col, desc, sites) in enumerate(candidates)]


def sample(mutants: Sequence[Mutant], cap: int | None, seed: str = "") -> list[Mutant]:
    """At most `cap` mutants, spread over the kinds (round robin), renumbered 1..n.

    The draw is seeded by `seed` (the design name), so every testbench of a design is
    judged on the same mutants.
    """
    chosen: list[Mutant] = list(mutants)
    if cap is not None and len(mutants) > cap:
        rng = random.Random(f"bw-mutants:{seed}")
        pools = {k: [m for m in mutants if m.kind == k] for k in KINDS}
        for pool in pools.values():
            rng.shuffle(pool)
        chosen = []
        while len(chosen) < cap:
            for kind in KINDS:
                if pools[kind] and len(chosen) < cap:
                    chosen.append(pools[kind].pop())
        chosen.sort(key=lambda m: m.id)
    return [Mutant(i + 1, m.kind, m.file, m.line, m.column, m.description, m.sites) for i, m in enumerate(chosen)]


def by_kind(mutants: Iterable[Mutant]) -> dict[str, int]:
    """Kind -> count, in KINDS order."""
    counts = dict.fromkeys(KINDS, 0)
    for m in mutants:
        counts[m.kind] = counts.get(m.kind, 0) + 1
    return {k: v for k, v in counts.items() if v}
