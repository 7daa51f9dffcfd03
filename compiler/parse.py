"""This module defines stage 1, parsing: libcst parses the text once, one `MetadataWrapper`
(without the defensive deep copy, since the tree comes straight from the parser) resolves
positions once, and a syntax error becomes exactly one `DWF001` at the right place. Between the
two, the limits of `compiler.limits` are checked over CPython's tree (a `DWF003`), so libcst
never sees a text that could crash it."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Mapping

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from dwf.compiler.diagnostics import Diagnostic
from dwf.compiler.limits import nesting_problem, size_problem
from .rules.syntax import ScriptTooLarge, SyntaxError_
from dwf.compiler.source import Span, SourceFile


@dataclass
class ParsedModule:
    source: SourceFile
    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]

    def span(self, node: cst.CSTNode) -> Span:
        return Span.from_code_range(self.positions[node])


def parse(source: SourceFile) -> ParsedModule | Diagnostic:
    # CPython's parser goes first. It is the authority on Python syntax (libcst accepts a few
    # things 3.11 rejects: repeated keyword arguments, 3.12 f-string forms), its messages are
    # the clearest, and it refuses absurd nesting with an error, where libcst's native parser
    # would overflow the C stack and kill the process. Over its tree, the limits that CPython's
    # parser does not hold for libcst (size, `and`/`or` chains: `compiler.limits`).
    too_large = size_problem(len(source.text.encode("utf-8", errors="surrogatepass")))
    if too_large is not None:
        return ScriptTooLarge.diagnostic(Span.point(1, 1), detail=too_large)
    cpython = _cpython_tree(source)
    if isinstance(cpython, Diagnostic):
        return cpython
    too_deep = nesting_problem(cpython)
    if too_deep is not None:
        line, column, detail = too_deep
        return ScriptTooLarge.diagnostic(Span.point(line, column), detail=detail)
    try:
        module = cst.parse_module(source.text)
    except (cst.ParserSyntaxError, cst.CSTValidationError) as error:  # the latter: `"a" b"b"`
        return _syntax_diagnostic(source, error)
    except (RecursionError, MemoryError) as error:
        return SyntaxError_.diagnostic(Span.point(1, 1), detail=f"the script is too deeply nested ({type(error).__name__})")
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    # `wrapper.resolve(PositionProvider)` would also run libcst's batchable-provider pass, a
    # full traversal that does nothing when no batchable provider is asked for (libcst 1.9);
    # generating the one provider directly resolves positions in a single codegen pass.
    try:
        positions = PositionProvider()._gen(wrapper)
    except RecursionError:  # libcst's position pass recurses once per nesting level
        return SyntaxError_.diagnostic(Span.point(1, 1), detail="the script is nested too deeply to analyze")
    return ParsedModule(source, wrapper.module, positions)


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


_LIBCST_LOCATION = re.compile(r"^(?:parser error: )?error at (\d+):(\d+): ")


def _syntax_diagnostic(source: SourceFile, error: cst.ParserSyntaxError | cst.CSTValidationError) -> Diagnostic:
    """Place and word the error as CPython would (its messages are the clearest, e.g.
    "expected ':'"); fall back to libcst's own location when CPython accepts the text."""
    try:
        compile(source.text, source.path, "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as cpython:
        line, column = cpython.lineno or 1, cpython.offset or 1
        detail = cpython.msg
    except (ValueError, RecursionError, MemoryError):  # NUL bytes, absurd nesting
        line, column, detail = getattr(error, "raw_line", 1), getattr(error, "raw_column", 0) + 1, "invalid syntax"
    else:
        if isinstance(error, cst.CSTValidationError):
            return SyntaxError_.diagnostic(Span.point(1, 1), detail=str(error).rstrip("."))
        message = error.message.strip()
        found = _LIBCST_LOCATION.match(message)
        if found:
            line, column = int(found[1]), int(found[2]) + 1
            message = message[found.end():]
        else:
            line, column = error.raw_line, error.raw_column + 1
        detail = message
    line = min(max(1, line), len(source.lines) + 1)
    return SyntaxError_.diagnostic(Span.point(line, max(1, column)), detail=detail.rstrip("."))
