"""This module defines helpers for reading literals out of CPython's syntax tree: whether a
string has f-string parts, the value of a field-free string literal, f-string text decoding,
the value of a str/int/float/bool/None literal, and a node's source text without whitespace or
comments (the key of a type expression, and the short quotation in diagnostics), through the
`SourceMap` of the text the node was parsed from."""

from __future__ import annotations

import ast
from typing import Any

NOT_LITERAL = object()  # what `literal_value` returns for a node that is not a literal


def is_string(node: ast.AST | None) -> bool:
    """A str or bytes literal or an f-string (implicit concatenation included)."""
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def is_plain_string(node: ast.AST | None) -> bool:
    """A str or bytes literal without any f-string part."""
    return isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))


def is_ellipsis(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def is_name_constant(node: ast.AST | None, value) -> bool:
    """`None`, `True` or `False` (`value`), which CPython's tree holds as constants."""
    return isinstance(node, ast.Constant) and node.value is value


def has_fstring(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr)


def single_fstring(node: ast.AST, positions) -> list | None:
    """The parts of an f-string that is one token (no implicit concatenation), else None."""
    if not isinstance(node, ast.JoinedStr):
        return None
    pieces = positions.string_pieces(node)
    return pieces[0].parts if len(pieces) == 1 and pieces[0].is_fstring else None


def literal_string(node: ast.AST | None, positions=None) -> str | None:
    """The value of a string literal without fields (implicit concatenation allowed; an
    f-string only alone, when it has no fields)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in node.values):
        if positions is None:
            return None
        pieces = positions.string_pieces(node)
        if len(pieces) == 1:
            return "".join(v.value for v in node.values)
    return None


def decode_fstring_text(raw: str, prefix: str, quote: str) -> str:
    text = raw
    if "\\" in raw and "r" not in prefix:
        text = ast.literal_eval(f"{prefix}{quote}{raw}{quote}")
    return text.replace("{{", "{").replace("}}", "}")


def string_value(node: ast.AST) -> str | bytes | None:
    """The value of a str or bytes literal (None for an f-string or any other node)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        return node.value
    return None


def literal_value(node: ast.AST, numbers: bool = False) -> Any:
    """The value of a str/int/bool/None literal (and float when `numbers`), or `NOT_LITERAL`."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, str) or value is None or isinstance(value, bool):
            return value
        if type(value) is int or (numbers and type(value) is float):
            return value
        return NOT_LITERAL
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = literal_value(node.operand, numbers)
        if type(inner) in (int, float):
            return -inner if isinstance(node.op, ast.USub) else inner
    return NOT_LITERAL


def source_key(node: ast.AST, positions) -> str:
    """Source text without whitespace or comments outside string literals."""
    return getattr(node, "dwf_positions", positions).source_key(node)


def short_source(node: ast.AST, positions) -> str:
    """`source_key`, cut to 60 characters for quoting in a message."""
    text = source_key(node, positions)
    return text if len(text) <= 60 else text[:57] + "..."
