"""This module defines helpers for reading string literals out of libcst nodes: whether a
string has f-string fields, the value of a field-free literal, and f-string text decoding."""

from __future__ import annotations

import ast

import libcst as cst


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
