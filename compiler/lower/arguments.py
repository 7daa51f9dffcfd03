"""This module defines `Arg`, one argument of a call or one base or keyword of a class
statement in source order, as the lowering reads them: CPython's tree keeps positional
arguments and keywords in two lists, and the lowering needs them in the order they are written
(site IDs are minted in source order; the first problem is reported at the first offending
argument)."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Arg:
    node: ast.AST  # the expression, the `Starred` or the `keyword`: its span is the argument's
    value: ast.expr
    keyword: str | None = None
    star: str = ""  # "", "*" or "**"


def call_args(node: ast.Call | ast.ClassDef) -> list[Arg]:
    """The arguments of a call (or the bases and keywords of a class) in source order (kept on
    the node: the lowering and the effect rules ask for them several times per call)."""
    cached = getattr(node, "dwf_args", None)
    if cached is None:
        cached = node.dwf_args = _in_source_order(node)
    return cached


def _in_source_order(node: ast.Call | ast.ClassDef) -> list[Arg]:
    positional = node.args if isinstance(node, ast.Call) else node.bases
    out = [Arg(a, a.value, None, "*") if isinstance(a, ast.Starred) else Arg(a, a) for a in positional]
    keywords = [Arg(k, k.value, k.arg, "" if k.arg is not None else "**") for k in node.keywords]
    if not keywords:
        return out
    if not out:
        return keywords
    merged = out + keywords
    merged.sort(key=lambda a: (a.node.lineno, a.node.col_offset))
    return merged
