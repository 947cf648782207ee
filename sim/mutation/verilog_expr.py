"""A small Verilog tokenizer and expression-span parser (pure).

Verilator's AST gives an operator node the location of its operator token only, and the
locations of folded or re-sized constants point elsewhere, so the full source extent of an
expression cannot be read off the tree. Mutation rewriting needs those extents: the AST
says *which* operator, condition or constant to mutate (by position); this module finds
the text it spans by parsing the expression that starts at a statement's known position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<number>(?:\d[\d_]*\s*)?'[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|'[01xXzZ](?![\w'])
              |\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)
  | (?P<ident>[A-Za-z_$][\w$]*|\\\S+)
  | (?P<macro>`[A-Za-z_]\w*)
  | (?P<op><<<=|>>>=|<<<|>>>|===|!==|==\?|!=\?|<->|'\{|'\(|->|::|\+:|-:|<<|>>|<=|>=|==|!=|&&|\|\||\*\*
             |~&|~\||~\^|\^~|\+\+|--|[-+*/%&|^~!<>=?:;,.#@(){}\[\]'])
    """,
    re.VERBOSE | re.DOTALL,
)

BINARY_PRECEDENCE: dict[str, int] = {
    "->": 0, "<->": 0,
    "||": 2, "&&": 3, "|": 4, "^": 5, "~^": 5, "^~": 5, "&": 6,
    "==": 7, "!=": 7, "===": 7, "!==": 7, "==?": 7, "!=?": 7,
    "<": 8, "<=": 8, ">": 8, ">=": 8, "inside": 8,
    "<<": 9, ">>": 9, "<<<": 9, ">>>": 9,
    "+": 10, "-": 10, "*": 11, "/": 11, "%": 11, "**": 12,
}
"""Binary operators and their binding strength (IEEE 1800 table 11-2; `?:` is 1)."""

UNARY_OPS: frozenset[str] = frozenset(("+", "-", "!", "~", "&", "|", "^", "~&", "~|", "~^", "^~"))
"""Prefix operators."""

_CLOSERS = {"(": ")", "[": "]", "{": "}", "'{": "}", "'(": ")"}


class ExprError(ValueError):
    """The text at a position is not an expression this parser understands."""


@dataclass(frozen=True)
class Token:
    """One lexical token with its place in the file."""

    kind: str
    """`number`, `ident`, `string`, `macro` or `op`."""
    text: str
    """The token's text."""
    line: int
    """1-based line of its first character."""
    col: int
    """1-based column of its first character (Verilator's convention)."""
    start: int
    """Offset of its first character in the file text."""
    end: int
    """Offset just past its last character."""


def tokenize(text: str) -> list[Token]:
    """Tokens of a Verilog file (comments and whitespace dropped); unknown bytes are skipped."""
    tokens: list[Token] = []
    line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    line = 0
    pos = 0
    while pos < len(text):
        match = _TOKEN_RE.match(text, pos)
        if match is None:
            pos += 1
            continue
        kind = match.lastgroup or ""
        if kind not in ("ws", "comment"):
            while line + 1 < len(line_starts) and line_starts[line + 1] <= pos:
                line += 1
            tokens.append(Token(kind, match.group(), line + 1, pos - line_starts[line] + 1, pos, match.end()))
        pos = match.end()
    return tokens


@dataclass(frozen=True)
class Span:
    """A parsed (sub)expression: tokens [first, last] of the token list."""

    first: int
    """Index of its first token."""
    last: int
    """Index of its last token."""
    op: int = -1
    """Index of its operator token (binary, unary, or the `?` of a conditional); -1 for primaries."""
    kind: str = "primary"
    """`binary`, `unary`, `cond` or `primary`."""
    cond: tuple[int, int] | None = None
    """For `cond`: token range of the condition operand."""
    lhs: tuple[int, int] | None = None
    """For `binary`: token range of the left operand."""
    rhs: tuple[int, int] | None = None
    """For `binary`: token range of the right operand."""
    in_select: bool = False
    """True when inside `[...]`, a replication count or a cast size (must stay constant)."""


@dataclass
class ExprParser:
    """Precedence-climbing parser over a token list, recording every sub-expression's span."""

    tokens: list[Token]
    """The file's tokens."""
    spans: list[Span] = field(default_factory=list)
    """Every sub-expression parsed so far."""
    _pos: int = 0
    _select: int = 0

    def parse_at(self, index: int) -> int:
        """Parse one expression starting at token `index`; the index of its last token."""
        self._pos = index
        first = self._pos
        self._expr(0)
        if self._pos == first:
            raise ExprError("empty expression")
        return self._pos - 1

    # -- helpers -------------------------------------------------------------------------

    def _peek(self, ahead: int = 0) -> Token | None:
        i = self._pos + ahead
        return self.tokens[i] if i < len(self.tokens) else None

    def _text(self, ahead: int = 0) -> str:
        tok = self._peek(ahead)
        return tok.text if tok is not None else ""

    def _expect(self, text: str) -> None:
        if self._text() != text:
            raise ExprError(f"expected {text!r}, got {self._text()!r}")
        self._pos += 1

    def _skip_balanced(self) -> None:
        """Skip a bracketed group starting at the current opener."""
        depth = 0
        while self._pos < len(self.tokens):
            t = self.tokens[self._pos].text
            if t in _CLOSERS:
                depth += 1
            elif t in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    self._pos += 1
                    return
            self._pos += 1
        raise ExprError("unbalanced brackets")

    def _add(self, span: Span) -> None:
        self.spans.append(Span(span.first, span.last, span.op, span.kind, span.cond, span.lhs, span.rhs,
                               self._select > 0))

    # -- grammar -------------------------------------------------------------------------

    def _expr(self, min_prec: int) -> tuple[int, int]:
        first = self._pos
        self._unary()
        while True:
            tok = self._peek()
            if tok is None or tok.kind not in ("op", "ident"):
                break
            op = tok.text
            if op == "?" and min_prec <= 1:
                q = self._pos
                cond = (first, q - 1)
                self._pos += 1
                self._expr(1)
                self._expect(":")
                self._expr(1)
                self._add(Span(first, self._pos - 1, q, "cond", cond=cond))
                continue
            prec = BINARY_PRECEDENCE.get(op)
            if prec is None or prec < min_prec or (op == "inside" and tok.kind != "ident"):
                break
            if tok.kind == "ident" and op != "inside":
                break
            at = self._pos
            self._pos += 1
            lhs = (first, at - 1)
            if op == "inside":
                if self._text() != "{":
                    raise ExprError("inside without a set")
                self._skip_balanced()
            else:
                # `**` and the implications are right-associative; the others left.
                self._expr(prec if op in ("**", "->", "<->") else prec + 1)
            self._add(Span(first, self._pos - 1, at, "binary", lhs=lhs, rhs=(at + 1, self._pos - 1)))
        return first, self._pos - 1

    def _unary(self) -> None:
        tok = self._peek()
        if tok is None:
            raise ExprError("unexpected end")
        if tok.kind == "op" and tok.text in UNARY_OPS:
            at = self._pos
            self._pos += 1
            self._unary()
            self._add(Span(at, self._pos - 1, at, "unary"))
            return
        self._primary()

    def _primary(self) -> None:
        tok = self._peek()
        if tok is None:
            raise ExprError("unexpected end")
        first = self._pos
        if tok.kind in ("number", "string"):
            self._pos += 1
        elif tok.kind == "ident":
            if tok.text in ("begin", "end", "if", "else", "case", "endcase", "assign", "always"):
                raise ExprError(f"keyword {tok.text!r} in an expression")
            self._pos += 1
            if self._text() == "(":  # a function call
                self._call_args()
        elif tok.text == "(":
            self._pos += 1
            self._expr(0)
            self._expect(")")
        elif tok.text == "{":
            self._concat()
        elif tok.text == "'{":
            self._skip_balanced()
        else:
            raise ExprError(f"unexpected token {tok.text!r}")
        self._postfix()
        self._add(Span(first, self._pos - 1))

    def _call_args(self) -> None:
        self._expect("(")
        if self._text() == ")":
            self._pos += 1
            return
        while True:
            if self._text() in (",", ")"):  # an empty argument
                pass
            else:
                self._expr(0)
            if self._text() == ",":
                self._pos += 1
                continue
            self._expect(")")
            return

    def _concat(self) -> None:
        self._expect("{")
        if self._text() in ("<<", ">>"):  # streaming concatenation: no mutation sites inside
            self._pos -= 1
            self._skip_balanced()
            return
        self._select += 1
        try:
            self._expr(0)
        finally:
            self._select -= 1
        if self._text() == "{":  # replication {n{...}}: the count above must stay constant
            self._concat()
            self._expect("}")
            return
        while self._text() == ",":
            self._pos += 1
            self._expr(0)
        self._expect("}")

    def _postfix(self) -> None:
        while True:
            t = self._text()
            if t == "[":
                self._pos += 1
                self._select += 1
                try:
                    self._expr(0)
                    if self._text() in (":", "+:", "-:"):
                        self._pos += 1
                        self._expr(0)
                finally:
                    self._select -= 1
                self._expect("]")
            elif t in (".", "::"):
                self._pos += 1
                if self._peek() is None or self.tokens[self._pos].kind != "ident":
                    raise ExprError("member name expected")
                self._pos += 1
                if self._text() == "(":
                    self._call_args()
            elif t == "'(":
                self._pos += 1
                self._expr(0)
                self._expect(")")
            else:
                return


def token_at(tokens: list[Token], line: int, col: int) -> int | None:
    """Index of the token starting at line:col, or None."""
    lo, hi = 0, len(tokens)
    while lo < hi:
        mid = (lo + hi) // 2
        if (tokens[mid].line, tokens[mid].col) < (line, col):
            lo = mid + 1
        else:
            hi = mid
    if lo < len(tokens) and (tokens[lo].line, tokens[lo].col) == (line, col):
        return lo
    return None
