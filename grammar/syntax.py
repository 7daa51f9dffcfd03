"""The DWF syntax as code: loads `dwf.lark` and parses whole `*.dwf.py` modules with it.

`dwf.lark` is the normative statement of which Python 3.11 syntax DWF accepts.  This module
builds the LALR(1) parser once per process and adds what a LALR(1) grammar cannot say (listed
at the top of `dwf.lark`): the indentation post-lexer, the checks on tokens the lexer glued
together, and a few checks on the finished tree (assignment targets, string escapes, the
lexical f-string rules of CPython 3.11, repeated keyword arguments and parameter names).

Public API:

* `parse_tree(text)` -> `lark.Tree` rooted at `file_input`, or `DwfSyntaxError`;
* `accepts(text)` -> bool;
* `DwfSyntaxError(message, line, column)`, 1-based line and column.

Token positions in the tree refer to the text after line endings are normalized (`\\r\\n` and
`\\r` become `\\n`, a final newline is added), which keeps every line and column unchanged.

This module imports only lark and the standard library.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

__all__ = ["GRAMMAR_PATH", "DwfSyntaxError", "accepts", "parse_tree"]

GRAMMAR_PATH = Path(__file__).parent / "dwf.lark"

# CPython's tokenizer limits (Parser/tokenizer.h: MAXINDENT, MAXLEVEL).
MAX_INDENT_LEVELS = 100
MAX_BRACKET_DEPTH = 200


class DwfSyntaxError(Exception):
    """Text that is not DWF syntax; `line` and `column` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message, line, column)
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.message}"


def parse_tree(text: str) -> Tree:
    """Parse a whole DWF module; raise `DwfSyntaxError` for anything the grammar rejects."""
    source = _normalize(text)
    _check_source(source)
    try:
        tree = _parser().parse(source)
    except UnexpectedInput as error:
        raise _from_lark(error, source) from error
    except LarkError as error:  # defensive: any other lark complaint is still a syntax error
        raise DwfSyntaxError(str(error), 1, 1) from error
    _TreeChecker(source).check(tree)
    return tree


def accepts(text: str) -> bool:
    """True when `text` is a syntactically valid DWF module."""
    try:
        parse_tree(text)
    except DwfSyntaxError:
        return False
    return True


@functools.cache
def _parser() -> Lark:
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        start="file_input",
        postlex=_Layout(),
        propagate_positions=True,
        maybe_placeholders=True,
    )


# --------------------------------------------------------------------------- source text


def _normalize(text: str) -> str:
    source = text.replace("\r\n", "\n").replace("\r", "\n")
    if not source.endswith("\n"):
        source += "\n"
    return source


_FIRST_CODE_LINE = re.compile(r"(?:[ \t\f]*(?:#[^\n]*)?\n)*([ \t\f]*)(?=\S)")


def _check_source(source: str) -> None:
    nul = source.find("\0")
    if nul >= 0:
        raise _error_at(source, nul, "source code cannot contain null bytes")
    first = _FIRST_CODE_LINE.match(source)
    if first and first.group(1).rsplit("\f", 1)[-1]:
        raise _error_at(source, first.start(1), "unexpected indent")


def _line_col(source: str, pos: int) -> tuple[int, int]:
    pos = max(0, min(pos, len(source)))
    line = source.count("\n", 0, pos) + 1
    return line, pos - (source.rfind("\n", 0, pos) + 1) + 1


def _error_at(source: str, pos: int, message: str) -> DwfSyntaxError:
    return DwfSyntaxError(message, *_line_col(source, pos))


# ------------------------------------------------------------------------- post-lexer

_KEYWORDS = frozenset(
    "False None True and as assert async await break class continue def del elif else except "
    "finally for from global if import in is lambda nonlocal not or pass raise return try "
    "while with yield".split()
)
_NUMBERS = frozenset({"DEC_NUMBER", "HEX_NUMBER", "OCT_NUMBER", "BIN_NUMBER", "FLOAT_NUMBER"})


def _starts_word(token: Token) -> bool:
    first = token.value[:1]
    return first.isalnum() or first == "_"


class _Layout(Indenter):
    """Indentation as CPython's tokenizer does it, plus checks on adjacent tokens.

    Emits _INDENT/_DEDENT after each logical newline outside brackets.  A column counts tabs
    to the next multiple of 8 and, as an alternative, as 1; both counts must order the lines
    the same way (else TabError in CPython).  A form feed resets the column.
    """

    NL_type = "_NEWLINE"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return self._layout(stream)

    def _layout(self, stream: Iterator[Token]) -> Iterator[Token]:
        levels = [(0, 0)]  # (column, alternative column) of each open block
        depth = 0
        previous = None
        last = None
        for token in stream:
            last = token
            if token.type == self.NL_type:
                if depth == 0:
                    yield token
                    yield from self._indentation(token, levels)
                continue
            if previous is not None:
                _check_adjacent(previous, token)
            previous = token
            yield token
            if token.type in self.OPEN_PAREN_types:
                depth += 1
                if depth > MAX_BRACKET_DEPTH:
                    raise DwfSyntaxError("too many nested parentheses", token.line, token.column)
            elif token.type in self.CLOSE_PAREN_types:
                depth = max(0, depth - 1)
        while len(levels) > 1:
            levels.pop()
            if last is None:
                yield Token(self.DEDENT_type, "", 0, 1, 1, 1, 1, 0)
            else:
                yield Token.new_borrow_pos(self.DEDENT_type, "", last)

    def _indentation(self, newline: Token, levels: list[tuple[int, int]]) -> Iterator[Token]:
        if "\n" not in newline.value:
            return
        indent = newline.value.rsplit("\n", 1)[1].rsplit("\f", 1)[-1]
        column = alternative = 0
        for char in indent:
            if char == "\t":
                column = (column // self.tab_len + 1) * self.tab_len
            else:
                column += 1
            alternative += 1
        line, col = newline.end_line, newline.end_column
        top, top_alternative = levels[-1]
        if column > top:
            if alternative <= top_alternative:
                raise DwfSyntaxError("inconsistent use of tabs and spaces in indentation", line, col)
            if len(levels) > MAX_INDENT_LEVELS:
                raise DwfSyntaxError("too many levels of indentation", line, col)
            levels.append((column, alternative))
            yield Token.new_borrow_pos(self.INDENT_type, indent, newline)
            return
        while column < levels[-1][0]:
            levels.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent, newline)
        if column != levels[-1][0]:
            raise DwfSyntaxError("unindent does not match any outer indentation level", line, col)
        if alternative != levels[-1][1]:
            raise DwfSyntaxError("inconsistent use of tabs and spaces in indentation", line, col)


def _check_adjacent(previous: Token, token: Token) -> None:
    """Reject tokens that CPython's tokenizer would have read as one (or as an error)."""
    glued = token.start_pos == previous.end_pos and _starts_word(token)
    if glued and previous.type in _NUMBERS:
        if token.value[:1] in "jJ":
            message = "imaginary numbers are not part of DWF"
        else:
            message = "invalid number literal"
        raise DwfSyntaxError(message, previous.line, previous.column)
    if glued and previous.type != "NAME" and previous.value in _KEYWORDS:
        raise DwfSyntaxError(
            f"invalid syntax: `{previous.value}{token.value}` is not a name",
            previous.line,
            previous.column,
        )
    if previous.type == "NAME" and previous.value == "print" and token.value == ">>":
        raise DwfSyntaxError(
            "Python 2 `print >>` form; use `log()`", previous.line, previous.column
        )


# ------------------------------------------------------------------ lark errors -> DWF

_NOT_DWF = {
    "with": "`with` statements are not part of DWF",
    "yield": "generators (`yield`) are not part of DWF",
    "global": "`global` is not part of DWF",
    "nonlocal": "`nonlocal` is not part of DWF",
    "@": "decorators and the `@` operator are not part of DWF",
    "`": "backticks are not Python 3 syntax",
}
_LEADING_WORD = re.compile(r"[ \t]*(\w+)")


def _from_lark(error: UnexpectedInput, source: str) -> DwfSyntaxError:
    line, column = error.line, error.column
    if not isinstance(line, int) or line < 1:
        line, column = _line_col(source, len(source))
    if not isinstance(column, int) or column < 1:
        column = 1
    pos = _offset(source, line, column)
    word = re.match(r"\w+|\S", source[pos:])
    word = word.group(0) if word else ""
    line_text = source[pos - column + 1 : source.find("\n", pos)]
    message = None
    if isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            message = "unexpected end of file"
        elif token.type == "_INDENT":
            message = "unexpected indent"
        elif "_INDENT" in error.expected:
            message = "expected an indented block"
        else:
            word = str(token.value) if token.value else word
    if message is None:
        message = _not_dwf_hint(word, line_text, source[:pos])
    if message is None:
        if isinstance(error, UnexpectedCharacters):
            message = f"invalid syntax: unexpected character {word[:1]!r}"
        elif word:
            message = f"invalid syntax: unexpected {word!r}"
        else:
            message = "invalid syntax"
    return DwfSyntaxError(message, line, column)


def _not_dwf_hint(word: str, line_text: str, before: str) -> str | None:
    if word in _NOT_DWF:
        return _NOT_DWF[word]
    head = _LEADING_WORD.match(line_text)
    head = head.group(1) if head else ""
    if word in ("for", "with") and before.rstrip().endswith("async"):
        return f"`async {word}` is not part of DWF"
    if word == "*" and before.rstrip().endswith("except"):
        return "`except*` is not part of DWF"
    if word == "*" and head == "from":
        return "star imports are not part of DWF"
    if word == "." and head == "from":
        return "relative imports are not part of DWF"
    if word == "/" and head in ("def", "async", "lambda") or word == "/" and "lambda" in line_text:
        return "positional-only parameters are not part of DWF"
    if head in ("match", "case") and line_text.rstrip().endswith(":"):
        return "`match` statements are not part of DWF"
    if head == "type" and "=" in line_text:
        return "`type` statements are not part of DWF"
    if head == "print":
        return "Python 2 print statement; use `log()`"
    return None


def _offset(source: str, line: int, column: int) -> int:
    pos = 0
    for _ in range(line - 1):
        nxt = source.find("\n", pos)
        if nxt < 0:
            return len(source)
        pos = nxt + 1
    return min(pos + column - 1, len(source))


# ------------------------------------------------------------------- tree checks

_ASSIGNABLE = frozenset({"var", "getattr", "getitem"})
_DELETABLE = frozenset({"var", "getitem"})
_DESCRIPTIONS = {
    "funccall": "function call",
    "number": "literal",
    "strings": "literal",
    "const_none": "None",
    "const_true": "True",
    "const_false": "False",
    "ellipsis": "ellipsis",
    "ternary": "conditional expression",
    "lambdef": "lambda",
    "comparison": "comparison",
    "await_expr": "await expression",
    "assign_expr": "named expression",
    "listcomp": "list comprehension",
    "setcomp": "set comprehension",
    "dictcomp": "dict comprehension",
    "genexp": "generator expression",
    "dict": "dict literal",
    "set": "set display",
    "star_expr": "starred",
    "getattr": "attribute",
    "tuple": "tuple",
    "list": "list",
}
_STRING_TOKENS = re.compile(r"STRING|BYTES|FSTRING_(R?MIDDLE|R?SPEC)_\w+")
_ESCAPE = re.compile(
    r"\\(?:x([0-9a-fA-F]{0,2})|u([0-9a-fA-F]{0,4})|U([0-9a-fA-F]{0,8})|N(\{[^}]*\})?|[\s\S]|$)"
)
_PREFIX = re.compile(r"[a-zA-Z]*")


def _describe(node: Tree) -> str:
    return _DESCRIPTIONS.get(str(node.data), "expression")


class _TreeChecker:
    """Checks a parsed module for what the LALR grammar leaves open; raises the first error."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.errors: list[tuple[int, str]] = []

    def check(self, tree: Tree) -> None:
        for node in tree.iter_subtrees():
            method = getattr(self, "_check_" + str(node.data), None)
            if method is not None:
                method(node)
        for token in tree.scan_values(lambda v: isinstance(v, Token)):
            if _STRING_TOKENS.fullmatch(token.type):
                self._check_literal(token)
        if self.errors:
            pos, message = min(self.errors)
            raise _error_at(self.source, pos, message)

    def _fail(self, pos: int, message: str) -> None:
        self.errors.append((pos, message))

    def _fail_node(self, node: Tree | Token, message: str) -> None:
        if isinstance(node, Token):
            self._fail(node.start_pos, message)
        else:
            self._fail(node.meta.start_pos, message)

    # ---- targets

    def _check_assign_stmt(self, node: Tree) -> None:
        for target in node.children[:-1]:
            self._target(target)

    def _check_for_stmt(self, node: Tree) -> None:
        self._target(node.children[0])

    def _check_comp_for(self, node: Tree) -> None:
        self._target(node.children[0])

    def _check_augassign_stmt(self, node: Tree) -> None:
        target = node.children[0]
        if target.data not in _ASSIGNABLE:
            self._fail_node(
                target, f"{_describe(target)} is an illegal target for augmented assignment"
            )

    def _check_annassign_stmt(self, node: Tree) -> None:
        target = node.children[0]
        if target.data in ("tuple", "list"):
            self._fail_node(target, f"only a single target (not a {target.data}) can be annotated")
        elif target.data not in _ASSIGNABLE:
            self._fail_node(target, f"illegal target for annotation: {_describe(target)}")

    def _target(self, target: Tree) -> None:
        pending = [target]
        while pending:
            node = pending.pop()
            if node.data in _ASSIGNABLE:
                continue
            if node.data in ("tuple", "list"):
                starred = [c for c in node.children if c.data == "star_expr"]
                if len(starred) > 1:
                    self._fail_node(starred[1], "multiple starred expressions in assignment")
                for child in node.children:
                    pending.append(child.children[0] if child.data == "star_expr" else child)
                continue
            self._fail_node(node, f"cannot assign to {_describe(node)}")

    def _check_del_stmt(self, node: Tree) -> None:
        pending = [node.children[0]]
        while pending:
            target = pending.pop()
            if target.data in _DELETABLE:
                continue
            if target.data in ("tuple", "list"):
                pending.extend(target.children)
            elif target.data == "getattr":
                self._fail_node(target, "`del` deletes names and subscripts only, not attributes")
            else:
                self._fail_node(target, f"cannot delete {_describe(target)}")

    # ---- calls and definitions

    def _check_arguments(self, node: Tree) -> None:
        seen: set[str] = set()
        for child in node.children:
            if isinstance(child, Tree) and child.data == "kwarg":
                name = child.children[0]
                if name.value in seen:
                    self._fail_node(name, f"keyword argument repeated: {name.value}")
                seen.add(name.value)

    def _check_parameters(self, node: Tree) -> None:
        seen: set[str] = set()
        for child in node.children:
            if isinstance(child, Tree):
                name = child.children[0]
                if name.value in seen:
                    self._fail_node(name, f"duplicate argument {name.value!r} in function definition")
                seen.add(name.value)

    _check_lambda_params = _check_parameters

    # ---- literals

    def _check_literal(self, token: Token) -> None:
        kind = token.type
        if kind.startswith("FSTRING_"):
            if kind.startswith(("FSTRING_RMIDDLE", "FSTRING_RSPEC")):  # raw f-string text
                return
            self._escapes(token.value, token.start_pos, is_bytes=False)
            return
        prefix = _PREFIX.match(token.value).group(0).lower()
        quote = 3 if token.value[len(prefix) : len(prefix) + 3] in ('"""', "'''") else 1
        start = token.start_pos + len(prefix) + quote
        body = token.value[len(prefix) + quote : len(token.value) - quote]
        if kind == "BYTES":
            for offset, char in enumerate(body):
                if ord(char) > 0x7F:
                    self._fail(start + offset, "bytes can only contain ASCII literal characters")
                    return
        if "r" not in prefix:
            self._escapes(body, start, is_bytes=kind == "BYTES")

    def _escapes(self, body: str, start: int, *, is_bytes: bool) -> None:
        if "\\" not in body:
            return
        for match in _ESCAPE.finditer(body):
            kind = match.group(0)[1:2]
            problem = None
            if kind == "x" and len(match.group(1)) != 2:
                problem = "truncated \\xXX escape"
            elif is_bytes:
                pass
            elif kind == "u" and len(match.group(2)) != 4:
                problem = "truncated \\uXXXX escape"
            elif kind == "U":
                digits = match.group(3)
                if len(digits) != 8:
                    problem = "truncated \\UXXXXXXXX escape"
                elif int(digits, 16) > 0x10FFFF:
                    problem = "illegal Unicode character"
            elif kind == "N":
                name = match.group(4)
                if not name or len(name) < 3:
                    problem = "malformed \\N character escape"
                else:
                    try:
                        if len(unicodedata.lookup(name[1:-1])) != 1:
                            problem = "unknown Unicode character name"
                    except KeyError:
                        problem = "unknown Unicode character name"
            if problem:
                self._fail(start + match.start(), f"invalid escape sequence: {problem}")
                return

    # ---- f-strings (the lexical rules of CPython 3.11)

    def _check_fstring(self, node: Tree) -> None:
        start, end = node.children[0], node.children[-1]
        quote = start.value.lstrip("fFrR")
        source = self.source
        pos = start.end_pos
        # CPython 3.11 first finds the end of the whole literal, honouring backslashes only.
        while pos < len(source) and not source.startswith(quote, pos):
            if source[pos] == "\\":
                pos += 1
            elif source[pos] == "\n" and len(quote) == 1:
                self._fail(start.start_pos, "unterminated f-string (Python 3.11)")
                return
            pos += 1
        if pos != end.start_pos:
            self._fail(pos, f"f-string: a replacement field reuses the quote {quote} (Python 3.11)")
            return
        for child in node.children[1:-1]:
            if isinstance(child, Tree):
                self._field(child)

    def _field(self, field: Tree) -> None:
        expression, debug, conversion, spec = field.children
        begin = field.meta.start_pos + 1
        following = [c for c in (debug, conversion, spec) if c is not None]
        if following:
            first = following[0]
            finish = first.start_pos if isinstance(first, Token) else first.meta.start_pos
        else:
            finish = field.meta.end_pos - 1
        text = self.source[begin:finish]
        backslash = text.find("\\")
        if backslash >= 0:
            self._fail(begin + backslash, "f-string expression part cannot include a backslash")
        literals: list[tuple[int, int]] = []
        for sub in expression.iter_subtrees():
            if sub.data == "fstring":
                literals.append((sub.meta.start_pos, sub.meta.end_pos))
            elif sub.data == "strings":
                literals.extend(
                    (t.start_pos, t.end_pos) for t in sub.children if isinstance(t, Token)
                )
        for hash_at in (m.start() + begin for m in re.finditer("#", text)):
            if not any(lo <= hash_at < hi for lo, hi in literals):
                self._fail(hash_at, "f-string expression part cannot include '#'")
                break
        if conversion is not None and self.source[conversion.end_pos : conversion.end_pos + 1] not in (":", "}"):
            self._fail(conversion.end_pos, "f-string: expecting '}' after the conversion")
        if spec is not None:
            for child in spec.children:
                if isinstance(child, Tree):
                    self._field(child)
