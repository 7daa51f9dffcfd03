"""This module defines `SourceMap`, what the front end knows about a script's text besides
CPython's syntax tree: where each node is, as the 1-based character `Span`s every DWF output
uses, its source text, and the parts of string literals (`StringPiece`, `FStringField`).

CPython's `ast` gives each node its first and last position, with columns counted in UTF-8
bytes. A DWF span counts characters and never covers the parentheses around an expression
(`(a + b) * c` places `a + b` at `a + b`), where CPython counts them in the range of a tuple
and of a generator expression (a call's only argument: `sum(x for x in y)`). So spans are
computed here once per node, from the tree's positions and, for those two, the text's tokens
(`tokenize`, read once and only when a node needs them).

String literals are one token each (3.11 tokenizes an f-string as one token), so a literal
made of several (`"a" f"{b}"`, implicit concatenation) is read piece by piece, and an
f-string's fields are found by `scan_fstring`, which also parses each field's expression
(CPython 3.11 gives the nodes inside an f-string unreliable positions) and places it in the
script's coordinates.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from dataclasses import dataclass, field
from functools import cached_property

from dwf.compiler.source import SourceFile, Span

_SKIPPED = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                      tokenize.ENDMARKER})
_KEY_SKIPPED = _SKIPPED  # tokens left out of a node's source key
_OPENING = {"(": ")", "[": "]", "{": "}"}
_STRING_START = re.compile(r"([A-Za-z]*)('''|\"\"\"|'|\")")


@dataclass(frozen=True, slots=True)
class Token:
    kind: int
    text: str
    start: tuple[int, int]  # (line, 0-based character column)
    end: tuple[int, int]


@dataclass(slots=True)
class FStringField:
    """One `{...}` field of an f-string: its span (braces included), its expression (a node of
    the script's tree, positioned in the script), the expression's source text, the conversion
    (`"r"`, `"s"`, `"a"` or None), the format spec's parts (None without a spec) and, for a
    self-documenting field (`{x = }`), the text CPython shows before the value."""

    span: Span
    expression: ast.expr
    code: str
    conversion: str | None
    spec: list | None
    debug_text: str | None


@dataclass(slots=True)
class StringPiece:
    """One string token of a literal: its text, span, prefix (lower case) and quote, and for an
    f-string its parts: raw text (`{{` still doubled) and `FStringField`s."""

    text: str
    span: Span
    prefix: str
    quote: str
    parts: list | None = None  # None: not an f-string

    @property
    def is_fstring(self) -> bool:
        return "f" in self.prefix


@dataclass
class SourceMap:
    """Positions, source text and string pieces of one parsed text (see the module docstring)."""

    source: SourceFile
    _spans: dict[int, Span] = field(default_factory=dict)
    _keep: list = field(default_factory=list)  # nodes parsed out of f-strings, kept alive for `_spans`

    # ------------------------------------------------------------ lines and columns

    @cached_property
    def _lines(self) -> list[str]:
        text, offsets = self.source.text, self.source.line_offsets
        return [text[start:end] for start, end in zip(offsets, offsets[1:] + [len(text)])]

    def _char_column(self, line: int, byte_column: int) -> int:
        if line > len(self._lines):
            return byte_column
        text = self._lines[line - 1]
        if text.isascii():
            return byte_column
        return len(text.encode("utf-8", errors="surrogatepass")[:byte_column].decode("utf-8", errors="replace"))

    def _byte_column(self, line: int, char_column: int) -> int:
        text = self._lines[line - 1] if line <= len(self._lines) else ""
        return char_column if text.isascii() else len(text[:char_column].encode("utf-8", errors="surrogatepass"))

    def raw_start(self, node: ast.AST) -> tuple[int, int]:
        return node.lineno, self._char_column(node.lineno, node.col_offset)

    def raw_end(self, node: ast.AST) -> tuple[int, int]:
        return node.end_lineno, self._char_column(node.end_lineno, node.end_col_offset)

    def text_between(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """The text from one (line, 0-based column) to another, newlines as `\\n`."""
        offsets = self.source.line_offsets
        text = self.source.text[offsets[start[0] - 1] + start[1]:offsets[end[0] - 1] + end[1]]
        return text.replace("\r\n", "\n").replace("\r", "\n")

    # ------------------------------------------------------------ tokens

    @cached_property
    def tokens(self) -> list[Token]:
        """The significant tokens of the text (no comments, newlines or indentation)."""
        out: list[Token] = []
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.source.text).readline):
                if tok.type not in _SKIPPED:
                    out.append(Token(tok.type, tok.string, tok.start, tok.end))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            pass  # CPython accepted the text; a difference of the pure-Python tokenizer costs positions only
        return out

    @cached_property
    def comments(self) -> dict[int, tuple[int, str]]:
        """line -> (0-based column, text) of the comment on that line."""
        found: dict[int, tuple[int, str]] = {}
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.source.text).readline):
                if tok.type == tokenize.COMMENT:
                    found[tok.start[0]] = (tok.start[1], tok.string)
        except (tokenize.TokenError, SyntaxError, IndentationError):
            pass
        return found

    @cached_property
    def _starts(self) -> dict[tuple[int, int], int]:
        return {tok.start: index for index, tok in enumerate(self.tokens)}

    @cached_property
    def _ends(self) -> dict[tuple[int, int], int]:
        return {tok.end: index for index, tok in enumerate(self.tokens)}

    @cached_property
    def _start_list(self) -> list[tuple[int, int]]:
        return [tok.start for tok in self.tokens]

    @cached_property
    def _matches(self) -> dict[int, int]:
        """Index of each bracket token -> index of its partner."""
        matches: dict[int, int] = {}
        stack: list[int] = []
        for index, tok in enumerate(self.tokens):
            if tok.kind != tokenize.OP:
                continue
            if tok.text in _OPENING:
                stack.append(index)
            elif tok.text in (")", "]", "}") and stack:
                opening = stack.pop()
                matches[opening], matches[index] = index, opening
        return matches

    def token_index_at(self, position: tuple[int, int]) -> int:
        """The index of the first token starting at or after `position`."""
        return bisect.bisect_left(self._start_list, position)

    def token_before(self, position: tuple[int, int]) -> Token | None:
        index = self.token_index_at(position) - 1
        return self.tokens[index] if index >= 0 else None

    def token_at(self, position: tuple[int, int]) -> Token | None:
        index = self.token_index_at(position)
        return self.tokens[index] if index < len(self.tokens) else None

    def tokens_between(self, start: tuple[int, int], end: tuple[int, int]) -> list[Token]:
        return self.tokens[self.token_index_at(start):self.token_index_at(end)]

    def _tokens_of_text(self, start: tuple[int, int], end: tuple[int, int]) -> list[Token]:
        """The significant tokens of the text from `start` to `end`, tokenized on their own, in
        the script's coordinates (a node inside an f-string, which the script's tokens hold as
        one token)."""
        out: list[Token] = []

        def absolute(position):
            line, column = position
            return start[0] + line - 1, column + (start[1] if line == 1 else 0)

        if start[0] > len(self.source.line_offsets) or end[0] > len(self.source.line_offsets):
            return out  # a node of another text: nothing to read here
        try:
            for tok in tokenize.generate_tokens(io.StringIO(self.text_between(start, end)).readline):
                if tok.type not in _SKIPPED:
                    out.append(Token(tok.type, tok.string, absolute(tok.start), absolute(tok.end)))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            pass
        return out

    def is_parenthesized(self, node: ast.AST) -> bool:
        """Whether a tuple's own range starts and ends with one pair of parentheses."""
        if self.raw_start(node) not in self._starts:  # inside an f-string
            tokens = self._tokens_of_text(self.raw_start(node), self.raw_end(node))
            depth = 0
            for index, tok in enumerate(tokens):
                if tok.kind == tokenize.OP and tok.text in "([{":
                    depth += 1
                elif tok.kind == tokenize.OP and tok.text in ")]}":
                    depth -= 1
                if depth == 0:
                    return index == len(tokens) - 1 and tokens[0].text == "("
            return False
        first = self._starts.get(self.raw_start(node))
        last = self._ends.get(self.raw_end(node))
        return first is not None and last is not None and self.tokens[first].text == "(" \
            and self._matches.get(first) == last

    # ------------------------------------------------------------ spans

    def span(self, node: ast.AST) -> Span:
        """The span of a node: an expression's with its own parentheses."""
        key = id(node)
        found = self._spans.get(key)
        if found is not None:
            return found
        start, end = self.raw_start(node), self.raw_end(node)
        if isinstance(node, (ast.Tuple, ast.GeneratorExp)):
            start, end = self._without_parentheses(start, end)
        found = self._spans[key] = Span(start[0], start[1] + 1, end[0], end[1] + 1)
        return found

    def set_span(self, node: ast.AST, span: Span) -> None:
        self._spans[id(node)] = span
        self._keep.append(node)

    def _without_parentheses(self, start, end):
        """A tuple's or generator expression's range without the parentheses CPython counts in
        it (DWF spans, like libcst's before, never cover an expression's parentheses)."""
        first = self._starts.get(start)
        last = self._ends.get(end)
        if first is None or last is None:
            return start, end
        tokens = self.tokens
        while first < last and tokens[first].text == "(" and self._matches.get(first) == last:
            if first + 1 == last:  # `()`: the empty space between the parentheses
                return tokens[first].end, tokens[last].start
            first, last = first + 1, last - 1
            start, end = tokens[first].start, tokens[last].end
        return start, end

    def code(self, node: ast.AST) -> str:
        """The source text of a node (an expression with its own parentheses)."""
        span = self.span(node)
        return self.text_between((span.line, span.column - 1), (span.end_line, span.end_column - 1))

    def code_of_span(self, span: Span) -> str:
        return self.text_between((span.line, span.column - 1), (span.end_line, span.end_column - 1))

    def source_key(self, node: ast.AST) -> str:
        """Source text without whitespace or comments outside string literals."""
        return source_key_of(self.code(node))

    # ------------------------------------------------------------ names inside nodes

    def name_span(self, node: ast.AST, name: str) -> Span:
        """The span of the name a `def`/`class`/import declares (the first token spelling it)."""
        span = self.span(node)
        for tok in self.tokens_between((span.line, span.column - 1), (span.end_line, span.end_column - 1)):
            if tok.kind == tokenize.NAME and tok.text == name:
                return self.token_span(tok)
        return span

    def param_span(self, node: ast.arg, star: bool = False) -> Span:
        """A parameter's name, with its `*`/`**` when `star` (an annotation is left out)."""
        line, column = self.raw_start(node)
        start = (line, column)
        if star:
            before = self.token_before(start)
            if before is not None and before.text in ("*", "**"):
                start = before.start
        return Span(start[0], start[1] + 1, line, column + len(node.arg) + 1)

    def attribute_name_span(self, node: ast.Attribute) -> Span:
        line, column = self.raw_end(node)
        return Span(line, column - len(node.attr) + 1, line, column + 1)

    def keyword_name_span(self, node: ast.keyword) -> Span:
        line, column = self.raw_start(node)
        return Span(line, column + 1, line, column + len(node.arg or "") + 1)

    def token_span(self, tok: Token) -> Span:
        return Span(tok.start[0], tok.start[1] + 1, tok.end[0], tok.end[1] + 1)

    def operator_span(self, left: ast.AST) -> Span:
        """The span of the operator token after an operand (`a @ b`)."""
        end = self.span(left)
        tok = self.token_at((end.end_line, end.end_column - 1))
        return self.token_span(tok) if tok is not None else end

    def spread_span(self, value: ast.expr) -> Span:
        """A `**value` of a dict display, with its `**`."""
        span = self.span(value)
        before = self.token_before((span.line, span.column - 1))
        if before is not None and before.text == "**":
            return Span(before.start[0], before.start[1] + 1, span.end_line, span.end_column)
        return span

    def decorator_span(self, node: ast.expr) -> Span:
        """A decorator with its `@`."""
        span = self.span(node)
        before = self.token_before((span.line, span.column - 1))
        if before is not None and before.text == "@":
            return Span(before.start[0], before.start[1] + 1, span.end_line, span.end_column)
        return span

    def comprehension_end(self, node: ast.expr) -> Span:
        """Where a comprehension's clauses end: before its closing bracket (or parenthesis)."""
        line, column = self.raw_end(node)
        last = self._ends.get((line, column))
        if last is not None and last > 0:
            end = self.tokens[last - 1].end
            return Span(end[0], end[1] + 1, end[0], end[1] + 1)
        offsets = self.source.line_offsets  # inside an f-string: read the text
        at = len(self.source.text[:offsets[line - 1] + column - 1].rstrip())
        line = bisect.bisect_right(offsets, at)
        return Span(line, at - offsets[line - 1] + 1, line, at - offsets[line - 1] + 1)

    def comprehension_span(self, clause: ast.comprehension, end: Span) -> Span:
        """A `for` clause of a comprehension, as libcst placed it: from the end of the token
        before its `for` (or `async`) to where the comprehension's clauses end."""
        target_start = self.raw_start(clause.target)
        if target_start not in self._starts:  # inside an f-string: one token
            return self._comprehension_span_in_text(target_start, end)
        index = self.token_index_at(target_start) - 1  # the `for`, after any `(` of the target
        while index > 0 and self.tokens[index].text == "(":
            index -= 1
        if index > 0 and self.tokens[index - 1].text == "async":
            index -= 1
        start = self.tokens[index - 1].end if index > 0 else self.tokens[index].start
        return Span(start[0], start[1] + 1, end.end_line, end.end_column)

    def _comprehension_span_in_text(self, target: tuple[int, int], end: Span) -> Span:
        """`comprehension_span` read off the text (an f-string field has no comments)."""
        offsets = self.source.line_offsets
        text = self.source.text
        at = offsets[target[0] - 1] + target[1]
        at = len(text[:at].rstrip().rstrip("(").rstrip())  # before the target: `for`
        at -= len("for")
        before = text[:at].rstrip()
        if before.endswith("async"):
            before = before[:-len("async")].rstrip()
        at = len(before)
        line = bisect.bisect_right(offsets, at)
        return Span(line, at - offsets[line - 1] + 1, end.end_line, end.end_column)

    # ------------------------------------------------------------ string literals

    def string_pieces(self, node: ast.AST) -> list[StringPiece]:
        """The string tokens of a str/bytes/f-string literal (several for implicit concatenation)."""
        cached = getattr(node, "dwf_pieces", None)
        if cached is not None:
            return cached
        start, end = self.raw_start(node), self.raw_end(node)
        pieces = []
        tokens = self.tokens_between(start, end) if start in self._starts else self._tokens_of_text(start, end)
        for tok in tokens:
            if tok.kind != tokenize.STRING:
                continue
            found = _STRING_START.match(tok.text)
            prefix, quote = found[1].lower(), found[2]
            piece = StringPiece(tok.text, self.token_span(tok), prefix, quote)
            if "f" in prefix:
                piece.parts = scan_fstring(self, tok, prefix, quote)
            pieces.append(piece)
        node.dwf_pieces = pieces
        return pieces


def source_key_of(code: str) -> str:
    code = code.strip()
    try:
        tokens = tokenize.generate_tokens(io.StringIO(code).readline)
        return "".join(t.string for t in tokens if t.type not in _KEY_SKIPPED)
    except (tokenize.TokenError, SyntaxError):
        return "".join(code.split())


# ---------------------------------------------------------------- f-strings


class _Cursor:
    """Walks an f-string token's text keeping the (line, column) of each character."""

    def __init__(self, text: str, start: tuple[int, int]):
        self.text, self.index = text, 0
        self.line, self.column = start

    def peek(self, ahead: int = 0) -> str:
        position = self.index + ahead
        return self.text[position] if position < len(self.text) else ""

    def position(self) -> tuple[int, int]:
        return self.line, self.column

    def advance(self, count: int = 1) -> str:
        taken = self.text[self.index:self.index + count]
        for offset, char in enumerate(taken):
            if char == "\n" or (char == "\r" and self.peek(offset + 1) != "\n"):
                self.line, self.column = self.line + 1, 0
            elif char != "\r":
                self.column += 1
        self.index += count
        return taken


def scan_fstring(smap: SourceMap, tok: Token, prefix: str, quote: str) -> list:
    """The parts of one f-string token: raw text and `FStringField`s."""
    cursor = _Cursor(tok.text, tok.start)
    cursor.advance(len(prefix) + len(quote))
    raw = "r" in prefix
    stop = len(tok.text) - len(quote)
    return _scan_parts(smap, cursor, stop, raw, in_spec=False)


def _scan_parts(smap: SourceMap, cursor: _Cursor, stop: int, raw: bool, in_spec: bool) -> list:
    parts: list = []
    text: list[str] = []
    while cursor.index < stop:
        char = cursor.peek()
        if in_spec and char == "}":
            break
        if char == "\\" and not raw:
            if cursor.peek(1) == "N" and cursor.peek(2) == "{":
                closing = cursor.text.find("}", cursor.index)
                text.append(cursor.advance(closing + 1 - cursor.index))
            else:
                text.append(cursor.advance(2))
            continue
        if char in "{}" and cursor.peek(1) == char and not in_spec:
            text.append(cursor.advance(2))
            continue
        if char == "{":
            if text:
                parts.append("".join(text))
                text = []
            parts.append(_scan_field(smap, cursor, stop, raw))
            continue
        text.append(cursor.advance())
    if text:
        parts.append("".join(text))
    return parts


def _scan_field(smap: SourceMap, cursor: _Cursor, stop: int, raw: bool) -> FStringField:
    start = cursor.position()
    cursor.advance()  # `{`
    expression_start = cursor.position()
    begin = cursor.index
    depth = 0
    string_quote: str | None = None
    while cursor.index < stop:
        char = cursor.peek()
        if string_quote is not None:
            if cursor.text.startswith(string_quote, cursor.index):
                cursor.advance(len(string_quote))
                string_quote = None
            else:
                cursor.advance(2 if char == "\\" else 1)
            continue
        if char in "'\"":
            string_quote = char * 3 if cursor.text.startswith(char * 3, cursor.index) else char
            cursor.advance(len(string_quote))
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and char == "!" and cursor.peek(1) != "=":
            break
        elif depth == 0 and char == ":":
            break
        elif depth == 0 and char == "=" and cursor.peek(1) != "=" and cursor.text[cursor.index - 1] not in "=!<>":
            break
        cursor.advance()
    expression_text = cursor.text[begin:cursor.index]
    debug_text = None
    if cursor.peek() == "=":
        cursor.advance()
        while cursor.peek() in " \t\n\r\x0b\x0c" and cursor.peek():
            cursor.advance()
        debug_text = cursor.text[begin:cursor.index].replace("\r\n", "\n").replace("\r", "\n")
    conversion = None
    if cursor.peek() == "!":
        cursor.advance()
        conversion = cursor.advance()
    spec = None
    if cursor.peek() == ":":
        cursor.advance()
        spec = _scan_parts(smap, cursor, stop, raw, in_spec=True)
    cursor.advance()  # `}`
    end = cursor.position()
    expression = _parse_field_expression(smap, expression_text, expression_start)
    return FStringField(Span(start[0], start[1] + 1, end[0], end[1] + 1), expression,
                        expression_text.strip().replace("\r\n", "\n").replace("\r", "\n"), conversion, spec, debug_text)


def _parse_field_expression(smap: SourceMap, text: str, start: tuple[int, int]) -> ast.expr:
    """Parse a field's expression as CPython does (`(text)`) and move its nodes to where the
    text is in the script."""
    tree = ast.parse("(" + text + ")", mode="eval")
    line, column = start
    byte_column = smap._byte_column(line, column)
    for node in ast.walk(tree):
        if not hasattr(node, "lineno"):
            continue
        if node.lineno == 1:
            node.col_offset += byte_column - 1
        if node.end_lineno == 1:
            node.end_col_offset += byte_column - 1
        node.lineno += line - 1
        node.end_lineno += line - 1
    smap._keep.append(tree)
    for node in ast.walk(tree.body):
        if isinstance(node, (ast.Tuple, ast.GeneratorExp)):
            span = _without_parentheses_in_text(smap, node)
            if span is not None:
                smap.set_span(node, span)
    return tree.body


def _without_parentheses_in_text(smap: SourceMap, node: ast.expr) -> Span | None:
    """`SourceMap._without_parentheses` for a node inside an f-string (the script's tokens
    hold an f-string as one token): its own text is tokenized."""
    start, end = smap.raw_start(node), smap.raw_end(node)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(smap.text_between(start, end)).readline)
                  if t.type not in _SKIPPED]
    except (tokenize.TokenError, SyntaxError):
        return None
    depth, first, last = 0, 0, len(tokens) - 1
    if last < 1 or tokens[first].string != "(" or tokens[last].string != ")":
        return None
    for index, tok in enumerate(tokens):  # the first `(` must close at the last token
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(tok.string, 0) if tok.type == tokenize.OP else 0
        if depth == 0 and index < last:
            return None
    inner_start, inner_end = (tokens[1].start, tokens[-2].end) if last > 1 else (tokens[0].end, tokens[-1].start)

    def absolute(position):
        line, column = position
        return start[0] + line - 1, column + (start[1] if line == 1 else 0)

    (line, column), (end_line, end_column) = absolute(inner_start), absolute(inner_end)
    return Span(line, column + 1, end_line, end_column + 1)
