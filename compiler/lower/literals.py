"""This module defines helpers for reading literals and source text out of libcst nodes: whether
a string has f-string fields, the value of a field-free string literal, f-string text decoding,
the value of a str/int/float/bool/None literal, and a node's source text without whitespace or
comments (the key of a type expression, and the short quotation in diagnostics)."""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Any

import libcst as cst

NOT_LITERAL = object()  # what `literal_value` returns for a node that is not a literal
_EMPTY_MODULE = cst.Module(body=[])
_SKIPPED_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                   tokenize.ENDMARKER}


def has_fstring(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.FormattedString):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return has_fstring(node.left) or has_fstring(node.right)
    return False


def literal_string(node: cst.BaseExpression) -> str | None:
    """The value of a string literal without fields (implicit concatenation allowed)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and not has_fstring(node):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString) and all(isinstance(p, cst.FormattedStringText) for p in node.parts):
        prefix = node.prefix.lower().replace("f", "")
        return "".join(decode_fstring_text(p.value, prefix, node.quote) for p in node.parts)
    return None


def decode_fstring_text(raw: str, prefix: str, quote: str) -> str:
    text = raw
    if "\\" in raw and "r" not in prefix:
        text = ast.literal_eval(f"{prefix}{quote}{raw}{quote}")
    return text.replace("{{", "{").replace("}}", "}")


def string_value(node: cst.CSTNode) -> str | bytes | None:
    """The value of a str or bytes literal (None for an f-string or any other node)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return node.evaluated_value
    return None


def literal_value(node: cst.BaseExpression, numbers: bool = False) -> Any:
    """The value of a str/int/bool/None literal (and float when `numbers`), or `NOT_LITERAL`."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = string_value(node)
        return value if isinstance(value, str) else NOT_LITERAL
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.Integer) or (numbers and isinstance(node, cst.Float)):
        return node.evaluated_value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = literal_value(node.expression, numbers)
        if type(inner) in (int, float):
            return -inner if isinstance(node.operator, cst.Minus) else inner
    return NOT_LITERAL


def source_key(node: cst.CSTNode) -> str:
    """Source text without whitespace or comments outside string literals."""
    code = _EMPTY_MODULE.code_for_node(node).strip()
    try:
        tokens = tokenize.generate_tokens(io.StringIO(code).readline)
        return "".join(t.string for t in tokens if t.type not in _SKIPPED_TOKENS)
    except (tokenize.TokenError, SyntaxError):
        return "".join(code.split())


def short_source(node: cst.CSTNode) -> str:
    """`source_key`, cut to 60 characters for quoting in a message."""
    text = source_key(node)
    return text if len(text) <= 60 else text[:57] + "..."
