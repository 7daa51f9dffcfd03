"""The DWF syntax as code: loads `dwf.lark` and parses whole `*.dwf.py` modules with it.

`dwf.lark` is the normative statement of which Python 3.11 syntax DWF accepts; this module is
its only entry point.  Public API:

* `parse_tree(text)` -> `lark.Tree` rooted at `file_input`, or raises `DwfSyntaxError`;
* `accepts(text)` -> bool;
* `DwfSyntaxError(message, line, column)`, 1-based line and column.

How a module is read, and what each step guarantees:

1. Line endings are normalized (`\\r\\n` and `\\r` become `\\n`) and a final newline is added,
   as CPython's tokenizer does.  Lines and columns of tokens in the tree are those of the
   original text (character offsets, `start_pos`, index the normalized text).  NUL characters
   and an indented first statement are rejected here.
2. lark's contextual lexer cuts tokens, choosing only among the terminals the LALR(1) parser
   can shift in its current state; that is what lets f-strings be parsed (their literal text
   is a terminal only inside an f-string).
3. The post-lexer `_Layout` plays CPython's tokenizer: INDENT/DEDENT with its tab rules and
   limits, newlines ignored inside brackets, a line continuation at the end of the file, and
   tokens that CPython would have read as one (`1if`, `2j`, a keyword glued to a name).
4. The LALR(1) parser, built once per process, builds the tree.
5. `_TreeChecker` walks the tree once (iteratively) for the rules CPython checks outside its
   grammar: assignment targets, string escapes, the lexical f-string rules of 3.11, repeated
   keyword arguments and parameters, identifiers, nesting depth.  The first error in source
   order is raised.

Any rejection, from any step, is a `DwfSyntaxError`.  This module imports only lark and the
standard library.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

__all__ = ["GRAMMAR_PATH", "DwfSyntaxError", "accepts", "parse_tree"]

GRAMMAR_PATH = Path(__file__).parent / "dwf.lark"

# CPython's tokenizer limits (Parser/tokenizer.h: MAXINDENT, MAXLEVEL).
MAX_INDENT_LEVELS = 100
MAX_BRACKET_DEPTH = 200
# DWF's own cap on the depth of the syntax tree (CPython's parser stack gives out near 3000).
MAX_NESTING = 1000


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
        tree = parser().parse(source)
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
def parser() -> Lark:
    """The LALR parser of `dwf.lark` with its layout post-lexer, built once."""
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        start="file_input",
        postlex=_Layout(),
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
    return first.isalnum() or first == "_" or not first.isascii()


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
    always_accept = ("_NEWLINE", "LINE_CONT")

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return self._layout(stream)

    def _layout(self, stream: Iterator[Token]) -> Iterator[Token]:
        levels = [(0, 0)]  # (column, alternative column) of each open block
        depth = 0
        previous = None
        last = None
        continued = None
        for token in stream:
            if token.type == "LINE_CONT":
                continued = token
                continue
            continued = None
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
        if continued is not None:
            raise DwfSyntaxError(
                "unexpected end of file after a line continuation",
                continued.line,
                continued.column,
            )
        for _ in levels[1:]:  # close the blocks still open at the end of the file
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
            if len(levels) >= MAX_INDENT_LEVELS:  # the base level counts as one
                raise DwfSyntaxError("too many levels of indentation", line, col)
            levels.append((column, alternative))
            yield _layout_token(self.INDENT_type, indent, newline)
            return
        while column < levels[-1][0]:
            levels.pop()
            yield _layout_token(self.DEDENT_type, indent, newline)
        if column != levels[-1][0]:
            raise DwfSyntaxError("unindent does not match any outer indentation level", line, col)
        if alternative != levels[-1][1]:
            raise DwfSyntaxError("inconsistent use of tabs and spaces in indentation", line, col)


def _layout_token(kind: str, indent: str, newline: Token) -> Token:
    """An _INDENT/_DEDENT placed where the new line's first token starts."""
    end = newline.end_pos
    return Token(
        kind, indent, end, newline.end_line, newline.end_column,
        newline.end_line, newline.end_column, end,
    )


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
    token = error.token if isinstance(error, UnexpectedToken) else None
    if token is not None and token.type == "$END":
        return DwfSyntaxError("unexpected end of file", line, column)
    if token is not None and token.type == "_INDENT":
        return DwfSyntaxError("unexpected indent", line, column)
    if "_INDENT" in _expected(error):
        return DwfSyntaxError("expected an indented block", line, column)
    glued = _glued(source, pos)
    if glued is not None:
        start, message = glued
        return _error_at(source, start, message)
    match = re.match(r"\w+|\S", source[pos:])
    word = match.group(0) if match else ""
    line_text = source[pos - column + 1 : source.find("\n", pos)]
    message = _not_dwf_hint(word, line_text, source[:pos])
    if message is None:
        message = f"invalid syntax: unexpected {word!r}" if word else "invalid syntax"
    return DwfSyntaxError(message, line, column)


def _expected(error: UnexpectedInput) -> set[str]:
    """Terminals the parser would have accepted (the contextual lexer reports fewer)."""
    state = getattr(error, "state", None)
    try:
        return set(state.parse_conf.parse_table.states[state.position])
    except AttributeError:
        return set(getattr(error, "expected", None) or getattr(error, "allowed", None) or ())


_NUMBER_BEFORE = re.compile(
    r"(?<![\w.])(?:0[xXoObB][\w]*|\d[\d_]*\.?[\d_]*(?:[eE][+-]?[\d_]+)?|\.\d[\d_]*(?:[eE][+-]?[\d_]+)?)$"
)
_WORD_BEFORE = re.compile(r"(?<!\w)\w+$")


def _glued(source: str, pos: int) -> tuple[int, str] | None:
    """`2j`, `1abc`, `iffy` in a state without names: one token for CPython, two for lark."""
    if not (0 < pos < len(source)) or not (source[pos].isalnum() or source[pos] == "_"):
        return None
    before = source[max(0, pos - 100) : pos]
    number = _NUMBER_BEFORE.search(before)
    if number is not None:
        start = pos - len(number.group(0))
        if source[pos] in "jJ":
            return start, "imaginary numbers are not part of DWF"
        return start, "invalid number literal"
    word = _WORD_BEFORE.search(before)
    if word is not None and word.group(0) in _KEYWORDS:
        rest = re.match(r"\w*", source[pos:]).group(0)
        return pos - len(word.group(0)), f"invalid syntax: `{word.group(0)}{rest}` is not a name"
    return None


_PREVIOUS_WORD = re.compile(r"(\w+|\S)\s*$")


def _not_dwf_hint(word: str, line_text: str, before: str) -> str | None:
    """Name the construct when the error sits on something DWF leaves out on purpose."""
    head = _LEADING_WORD.match(line_text)
    head = head.group(1) if head else ""
    previous = _PREVIOUS_WORD.search(before[-200:])
    previous = previous.group(1) if previous else ""
    if previous == "async" and word in ("for", "with"):
        return f"`async {word}` is not part of DWF"
    if word in _NOT_DWF:
        return _NOT_DWF[word]
    if previous == "except" and word == "*":
        return "`except*` is not part of DWF"
    if head == "from" and word == "*":
        return "star imports are not part of DWF"
    if previous == "from" and word == ".":
        return "relative imports are not part of DWF"
    if word == "[" and head in ("def", "async", "class"):
        return "type parameters are not part of DWF"
    if head == previous and previous in ("match", "type", "print"):
        return {
            "match": "`match` statements are not part of DWF",
            "type": "`type` statements are not part of DWF",
            "print": "Python 2 print statement; use `log()`",
        }[previous]
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

# Attributes are never assignable: records and facade objects are read-only (LANGUAGE §6.6).
_ASSIGNABLE = frozenset({"var", "getitem"})
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
_TRIPLE_QUOTES = ('"""', "'''")
_ESCAPE = re.compile(
    r"\\(?:x([0-9a-fA-F]{0,2})|u([0-9a-fA-F]{0,4})|U([0-9a-fA-F]{0,8})|N(\{[^}]*\})?|[\s\S]|$)"
)
_PREFIX = re.compile(r"[a-zA-Z]*")


def _literal_kind(token_type: str) -> str | None:
    """How a literal token's escapes are checked: "str", "bytes", "fstring" or None (raw)."""
    if token_type in ("STRING", "BYTES"):
        return token_type.lower()
    if token_type.startswith(("FSTRING_MIDDLE", "FSTRING_SPEC")):
        return "fstring"
    return None


def _describe(node: Tree) -> str:
    return _DESCRIPTIONS.get(str(node.data), "expression")


def _first_token(node: Tree) -> Token | None:
    stack: list = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Token):
            return item
        if isinstance(item, Tree):
            stack.extend(reversed(item.children))
    return None


def _is_field_statement(statement: Tree) -> bool:
    """Whether a class-body statement fits a TypedDict declaration."""
    if statement.data == "pass_stmt":
        return True
    if statement.data == "annassign_stmt":
        return isinstance(statement.children[0], Tree) and statement.children[0].data == "var"
    if statement.data == "expr_stmt" and len(statement.children) == 1:
        value = statement.children[0]
        return isinstance(value, Tree) and value.data in ("strings", "ellipsis")
    return False


def _subtrees(node: Tree) -> Iterator[tuple[Tree, int]]:
    """Pre-order with depths, iterative: trees can be deeper than Python's recursion limit."""
    stack = [(node, 0)]
    while stack:
        item, depth = stack.pop()
        yield item, depth
        depth += 1
        stack.extend((child, depth) for child in reversed(item.children) if isinstance(child, Tree))


class _TreeChecker:
    """Checks a parsed module for what the LALR grammar leaves open; raises the first error."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.errors: list[tuple[int, str]] = []
        self.checks = {
            "assign_stmt": self._assign_stmt,
            "augassign_stmt": self._augassign_stmt,
            "annassign_stmt": self._annassign_stmt,
            "for_stmt": self._first_child_is_target,
            "comp_for": self._first_child_is_target,
            "del_stmt": self._del_stmt,
            "arguments": self._arguments,
            "parameters": self._parameters,
            "lambda_params": self._parameters,
            "fstring": self._fstring,
            "classdef": self._classdef,
        }

    def check(self, tree: Tree) -> None:
        checks = self.checks
        for node, depth in _subtrees(tree):
            if depth > MAX_NESTING:
                self._fail(node, f"expression nested too deeply (more than {MAX_NESTING} levels)")
                break
            check = checks.get(node.data)
            if check is not None:
                check(node)
            for child in node.children:
                if isinstance(child, Token):
                    if child.type == "NAME":
                        if not child.value.isascii() and not child.value.isidentifier():
                            self._name(child)
                        continue
                    kind = _literal_kind(child.type)
                    if kind is not None:
                        self._literal(child, kind)
        if self.errors:
            pos, message = min(self.errors)
            raise _error_at(self.source, pos, message)

    def _fail(self, where: Tree | Token | int, message: str) -> None:
        if isinstance(where, Tree):
            where = _first_token(where) or 0
        if isinstance(where, Token):
            where = where.start_pos
        self.errors.append((where, message))

    # ---- targets (what CPython's ast.c checked before 3.9)

    def _assign_stmt(self, node: Tree) -> None:
        for target in node.children[:-1]:
            self._target(target)

    def _first_child_is_target(self, node: Tree) -> None:
        self._target(node.children[0])

    def _augassign_stmt(self, node: Tree) -> None:
        target = node.children[0]
        if target.data not in _ASSIGNABLE:
            self._fail(target, f"{_describe(target)} is an illegal target for augmented assignment")

    def _annassign_stmt(self, node: Tree) -> None:
        target = node.children[0]
        if target.data in ("tuple", "list"):
            self._fail(target, f"only a single target (not a {target.data}) can be annotated")
        elif target.data not in _ASSIGNABLE:
            self._fail(target, f"illegal target for annotation: {_describe(target)}")

    def _target(self, target: Tree) -> None:
        pending = [target]
        while pending:
            node = pending.pop()
            if node.data in _ASSIGNABLE:
                continue
            if node.data in ("tuple", "list"):
                starred = [c for c in node.children if c.data == "star_expr"]
                if len(starred) > 1:
                    self._fail(starred[1], "multiple starred expressions in assignment")
                for child in node.children:
                    pending.append(child.children[0] if child.data == "star_expr" else child)
                continue
            self._fail(node, f"cannot assign to {_describe(node)}")

    def _del_stmt(self, node: Tree) -> None:
        pending = [node.children[0]]
        while pending:
            target = pending.pop()
            if target.data in _DELETABLE:
                continue
            if target.data in ("tuple", "list"):
                pending.extend(target.children)
            elif target.data == "getattr":
                self._fail(target, "`del` deletes names and subscripts only, not attributes")
            else:
                self._fail(target, f"cannot delete {_describe(target)}")

    # ---- class bodies: classes exist only as TypedDict declarations (LANGUAGE §5)

    def _classdef(self, node: Tree) -> None:
        suite = node.children[-1]
        pending = list(suite.children) if suite.data == "suite" else [suite]
        while pending:
            statement = pending.pop()
            if not isinstance(statement, Tree):
                continue
            if statement.data == "simple_stmt":
                pending.extend(statement.children)
            elif not _is_field_statement(statement):
                self._fail(statement, "a class body holds only annotated fields, docstrings and `pass` "
                                      "(classes are TypedDict declarations)")

    # ---- calls and definitions (CPython's compiler rules)

    def _arguments(self, node: Tree) -> None:
        seen: set[str] = set()
        for child in node.children:
            if isinstance(child, Tree) and child.data == "kwarg":
                name = child.children[0]
                if name in seen:
                    self._fail(name, f"keyword argument repeated: {name}")
                seen.add(name)

    def _parameters(self, node: Tree) -> None:
        """Parameter order, as CPython checks it: `/` once, after a parameter and before `*`;
        no plain parameter after a defaulted one before `*`; one `*`, a bare one followed by a
        keyword-only parameter; nothing after `**kwargs`; no name twice."""
        seen: set[str] = set()
        section = "positional"  # then "keyword" after `*`, "closed" after `**kwargs`
        positional = defaulted = slash = bare = False
        for child in node.children:
            if not isinstance(child, Tree):
                continue
            kind = child.data.removeprefix("lambda_")
            if section == "closed":
                self._fail(child, "arguments cannot follow var-keyword argument")
            if kind == "slash":
                if section != "positional":
                    self._fail(child, "/ must be ahead of *")
                if slash:
                    self._fail(child, "/ may appear only once")
                if not positional:
                    self._fail(child, "at least one argument must precede /")
                slash = True
                continue
            if kind in ("star_param", "bare_star"):
                if section != "positional":
                    self._fail(child, "* argument may appear only once")
                section, bare = "keyword", kind == "bare_star"
                if kind == "bare_star":
                    continue
            elif kind == "kwargs_param":
                if bare:
                    self._fail(child, "named arguments must follow bare *")
                section = "closed"
            elif section == "positional":
                positional = True
                if kind == "default_param":
                    defaulted = True
                elif defaulted:
                    self._fail(child, "non-default argument follows default argument")
            else:
                bare = False  # a keyword-only parameter
            name = child.children[0]
            if name in seen:
                self._fail(name, f"duplicate argument {str(name)!r} in function definition")
            seen.add(name)
        if bare:
            self._fail(node, "named arguments must follow bare *")

    # ---- names and literals

    def _name(self, token: Token) -> None:
        for offset, char in enumerate(token.value):
            if not ("a" + char).isidentifier() or (offset == 0 and not char.isidentifier()):
                self._fail(token.start_pos + offset, f"invalid character {char!r} (U+{ord(char):04X})")
                return
        self._fail(token, f"invalid identifier {token.value!r}")

    def _literal(self, token: Token, kind: str) -> None:
        if kind == "fstring":  # literal or format-spec text of a non-raw f-string
            self._escapes(token.value, token.start_pos, is_bytes=False)
            return
        value = token.value
        prefix = _PREFIX.match(value).group(0).lower()
        quote = 3 if value[len(prefix) : len(prefix) + 3] in _TRIPLE_QUOTES else 1
        start = token.start_pos + len(prefix) + quote
        body = value[len(prefix) + quote : len(value) - quote]
        if kind == "bytes" and not body.isascii():
            offset = next(i for i, char in enumerate(body) if not char.isascii())
            self._fail(start + offset, "bytes can only contain ASCII literal characters")
            return
        if "r" not in prefix:
            self._escapes(body, start, is_bytes=kind == "bytes")

    def _escapes(self, body: str, start: int, *, is_bytes: bool) -> None:
        if "\\" not in body:
            return
        for match in _ESCAPE.finditer(body):
            problem = _escape_problem(match, is_bytes=is_bytes)
            if problem:
                self._fail(start + match.start(), f"invalid escape sequence: {problem}")
                return

    # ---- f-strings (the lexical rules of CPython 3.11)

    def _fstring(self, node: Tree) -> None:
        start, end = node.children[0], node.children[-1]
        quote = start.value.lstrip("fFrR")
        source = self.source
        pos = start.end_pos
        # CPython 3.11 first finds the end of the whole literal, honouring backslashes only.
        while pos < len(source) and not source.startswith(quote, pos):
            if source[pos] == "\\":
                pos += 1
            elif source[pos] == "\n" and len(quote) == 1:
                self._fail(start, "unterminated f-string (Python 3.11)")
                return
            pos += 1
        if pos != end.start_pos:
            self._fail(pos, f"f-string: a replacement field reuses the quote {quote} (Python 3.11)")
            return
        for child in node.children[1:-1]:
            if isinstance(child, Tree):
                self._field(child)

    def _field(self, field: Tree) -> None:
        open_brace, expression, debug, conversion, spec, close_brace = field.children
        begin = open_brace.end_pos
        if debug is not None:
            finish = debug.children[0].start_pos
        elif conversion is not None:
            finish = conversion.start_pos
        elif spec is not None:
            finish = spec.children[0].start_pos
        else:
            finish = close_brace.start_pos
        text = self.source[begin:finish]
        backslash = text.find("\\")
        if backslash >= 0:
            self._fail(begin + backslash, "f-string expression part cannot include a backslash")
        if "#" in text:
            literals = list(_literal_spans(expression))
            for match in re.finditer("#", text):
                at = begin + match.start()
                if not any(low <= at < high for low, high in literals):
                    self._fail(at, "f-string expression part cannot include '#'")
                    break
        if conversion is not None and self.source[conversion.end_pos] not in ":}":
            self._fail(conversion.end_pos, "f-string: expecting '}' after the conversion")
        if spec is not None:
            for child in spec.children:
                if isinstance(child, Tree):
                    self._field(child)


def _literal_spans(expression: Tree) -> Iterator[tuple[int, int]]:
    """Source spans of the string literals inside a replacement field's expression."""
    stack = [expression]
    while stack:
        node = stack.pop()
        if node.data == "fstring":
            yield node.children[0].start_pos, node.children[-1].end_pos
            continue
        for child in node.children:
            if isinstance(child, Tree):
                stack.append(child)
            elif isinstance(child, Token) and child.type in ("STRING", "BYTES"):
                yield child.start_pos, child.end_pos


def _escape_problem(match: re.Match, *, is_bytes: bool) -> str | None:
    kind = match.group(0)[1:2]
    if kind == "x":
        return None if len(match.group(1)) == 2 else "truncated \\xXX escape"
    if is_bytes:
        return None
    if kind == "u":
        return None if len(match.group(2)) == 4 else "truncated \\uXXXX escape"
    if kind == "U":
        digits = match.group(3)
        if len(digits) != 8:
            return "truncated \\UXXXXXXXX escape"
        return "illegal Unicode character" if int(digits, 16) > 0x10FFFF else None
    if kind == "N":
        name = match.group(4)
        if not name or len(name) < 3:
            return "malformed \\N character escape"
        try:
            found = unicodedata.lookup(name[1:-1])
        except KeyError:
            return "unknown Unicode character name"
        return None if len(found) == 1 else "unknown Unicode character name"
    return None
