"""This module defines stage 1, parsing: CPython's own parser (`ast`) parses the text once, a
syntax error becomes exactly one `DWF001` at the place CPython names, and the limits of
`compiler.limits` are checked over the tree (a `DWF003`). The parsed module carries the
`SourceMap` (`compiler.positions`) that turns the tree's positions into DWF spans and source
text."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from dwf.compiler.diagnostics import Diagnostic
from dwf.compiler.limits import nesting_problem, size_problem
from dwf.compiler.positions import SourceMap
from .rules.syntax import ScriptTooLarge, SyntaxError_
from dwf.compiler.source import Span, SourceFile


@dataclass
class ParsedModule:
    source: SourceFile
    module: ast.Module
    positions: SourceMap = field(repr=False)

    def span(self, node: ast.AST) -> Span:
        return self.positions.span(node)

    def code(self, node: ast.AST) -> str:
        return self.positions.code(node)


def parse(source: SourceFile) -> ParsedModule | Diagnostic:
    # CPython's parser is the authority on Python syntax and its messages are the clearest; it
    # refuses absurd nesting with an error. Over its tree, the limits it does not hold (size,
    # `and`/`or` chains: `compiler.limits`), since the lowering recurses once per level.
    too_large = size_problem(len(source.text.encode("utf-8", errors="surrogatepass")))
    if too_large is not None:
        return ScriptTooLarge.diagnostic(Span.point(1, 1), detail=too_large)
    tree = _cpython_tree(source)
    if isinstance(tree, Diagnostic):
        return tree
    too_deep = nesting_problem(tree)
    if too_deep is not None:
        line, column, detail = too_deep
        return ScriptTooLarge.diagnostic(Span.point(line, column), detail=detail)
    return ParsedModule(source, tree, SourceMap(source))


def _cpython_tree(source: SourceFile) -> ast.Module | Diagnostic:
    """CPython's syntax tree of the text, or its syntax error as a `DWF001`."""
    try:
        return compile(source.text, source.path, "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                       dont_inherit=True)
    except SyntaxError as error:
        line = min(max(1, error.lineno or 1), len(source.lines) + 1)
        return SyntaxError_.diagnostic(Span.point(line, max(1, error.offset or 1)), detail=error.msg.rstrip("."))
    except ValueError as error:  # e.g. NUL bytes
        return SyntaxError_.diagnostic(Span.point(1, 1), detail=str(error).rstrip("."))
    except (RecursionError, MemoryError) as error:
        return SyntaxError_.diagnostic(Span.point(1, 1), detail=f"the script is too deeply nested ({type(error).__name__})")
