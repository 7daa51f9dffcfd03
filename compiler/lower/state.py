"""This module defines `LoweringState`, the declared state of one lowering walk.

Lowering is one walk over CPython's syntax tree, written as four mixins (`StatementLowering`,
`ExpressionLowering`, `FacadeLowering`, `ExceptionClassLowering`) and `Lowerer`
(`compiler.lower.lowerer`), which combines them. The mixins have no state of their own: they
read and update the walk's, and this base class, which each of them derives from, says what
that state is. `Lowerer.__init__` sets every attribute; the pre-passes and `lower_module` fill
them. The helpers one part calls on another (`expr`, `report`, `span`, name resolution, ...) are
methods of the parts and of `Lowerer`.
"""

from __future__ import annotations

import ast

from dwf.grammar.meta import Meta

from dwf.compiler import ir
from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.effect_rules import Facts
from dwf.compiler.lower.scopes import Scope
from dwf.compiler.parse import ParsedModule
from dwf.compiler.positions import SourceMap
from dwf.compiler.source import Span


class LoweringState:
    """LoweringState: the attributes `Lowerer` and its mixins share during one walk."""

    # The input and where findings go.
    parsed: ParsedModule
    positions: SourceMap
    sink: DiagnosticSink
    # What the walk produces besides the IR: facts for the effect rules, the site table, the
    # per-kind site counters, the literal commands and the schemas of typed asks.
    facts: Facts
    sites: list[ir.Site]
    counters: dict[str, int]
    commands: set[str]
    schemas: dict[str, object]
    # Where the walk is: the lexical phase, the loop depth, the enclosing compound statements
    # ("loop", "branch", "try"), the current scope, the enclosing functions' names, and whether
    # it is inside the type of an `except` clause (where `BaseException` may be named).
    phase: str | None
    loop_depth: int
    block_kinds: list[str]
    scope: Scope
    function_stack: list[str]
    in_except_type: bool
    # The meta block, read before the walk: its value, its declared argument names (None when
    # there is no meta block: `args[...]` is then not checked) and its assignment.
    meta_value: Meta
    meta_arg_names: set[str] | None
    _meta_node: ast.Assign | None
    # Pre-pass results: actors bound to names, unused awaitables to report at the end, the
    # script's TypedDicts, exception classes, `typing` imports and type aliases.
    actor_bindings: dict[tuple[int, str], str]
    pending_unused: list[tuple[Scope, str, Span, str]]
    typeddicts: dict[str, ast.ClassDef]
    exception_classes: dict[str, ast.ClassDef]
    typing_names: dict[str, str]
    type_aliases: set[str]
    # Whether the text has a `:=` at all (most scripts do not: the walrus scan is skipped).
    _walrus_possible: bool
