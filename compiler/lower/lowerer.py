"""This module defines stage 3, lowering: one walk over CPython's syntax tree that turns every
accepted construct into IR (`compiler.ir`) and reports every construct outside the subset.
The tree stops here; later passes see only IR.

The walk does four jobs at once, so the tree is traversed a single time:

1. **Subset.** A dispatch table maps each `ast` node class to a lowering method; a class with
   no entry is rejected (`DWF101`/`DWF102`), so new Python syntax is refused until reviewed.
2. **Names.** Before a scope's body is lowered its bindings are collected (`compiler.lower.scopes`),
   so every `Name` is resolved when it is built: local, free, global, facade, builtin, module,
   type or undefined. Facade identity therefore comes from resolution, never from spelling:
   `def phase(x): ...` makes `phase` a global function, not the facade. Types are typing
   names, TypedDicts and top-level aliases (`Severity = Literal["low", "high"]`), which exist
   only at compile time. `meta` is bound once, by the meta block, which is read first.
3. **Effects.** Facade calls become `FacadeCall` nodes, and their site IDs are minted as they
   are lowered, in source pre-order (`compiler.lower.facade` states the numbering rules).
4. **Facts** for the effect rules (`compiler.effect_rules`): actors, artifacts, report tags, phases
   and what each phase and helper function contains.

`Lowerer` is assembled from four mixins that share this one walk's state, declared by their base
class `LoweringState` (`compiler.lower.state`) and set in `Lowerer.__init__`: `StatementLowering` (`compiler.lower.statements`: blocks, statements,
definitions, imports, assignment targets), `ExpressionLowering` (`compiler.lower.expressions`:
expressions and calls), `FacadeLowering` (`compiler.lower.facade`: facade recognition, facade
calls and their sites, awaitables never awaited) and `ExceptionClassLowering`
(`compiler.lower.exceptions`: exception class declarations). This module adds the state, the pre-passes
that run before the walk (typing names, TypedDicts, type aliases, the meta block) and name
resolution.
"""

from __future__ import annotations

from typing import Callable

import ast

from dwf.grammar import builtins as B
from dwf.grammar import facade as F
from dwf.grammar.meta import Meta

from dwf.compiler import ir
from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.effect_rules import Facts
from dwf.compiler.lower.exceptions import ExceptionClassLowering
from dwf.compiler.lower.expressions import ExpressionLowering, subscript_elements
from dwf.compiler.lower.literals import is_name_constant
from dwf.compiler.lower.facade import FacadeLowering
from dwf.compiler.lower.statements import StatementLowering, meta_block
from dwf.compiler.lower.occurrences import mint_occurrence_ids
from dwf.compiler.checks.not_offered import undefined_problem
from dwf.compiler.parse import ParsedModule
from dwf.compiler.rules import meta as M
from dwf.compiler.rules import names as N
from dwf.compiler.lower.scopes import CLASS, IMPORT_DWF, IMPORT_MODULE, IMPORT_TYPING, Binding, Scope, collect
from dwf.compiler.source import Span


class Lowerer(StatementLowering, ExpressionLowering, FacadeLowering, ExceptionClassLowering):
    """Lowers one parsed script to IR; see the module docstring."""

    def __init__(self, parsed: ParsedModule, sink: DiagnosticSink, schema_builder_factory: Callable | None = None):
        self.parsed = parsed
        self.positions = parsed.positions
        self.sink = sink
        self.facts = Facts()
        self.sites: list[ir.Site] = []
        self.counters: dict[str, int] = {}
        self.commands: set[str] = set()
        self.phase: str | None = None
        self.loop_depth = 0
        self.block_kinds: list[str] = []  # enclosing compound statements: "loop", "branch", "try"
        self.scope = Scope("module", None, is_async=True)
        self.function_stack: list[str] = []
        self.meta_value: Meta = {}  # the meta block once read (`_find_meta`)
        self.meta_arg_names: set[str] | None = None
        self._meta_node: ast.Assign | None = None
        self.actor_bindings: dict[tuple[int, str], str] = {}
        self.pending_unused: list[tuple[Scope, str, Span, str]] = []
        self.schemas: dict[str, object] = {}
        self._schema_builder_factory = schema_builder_factory
        self._schema_builder = None
        self.typeddicts: dict[str, ast.ClassDef] = {}
        self.exception_classes: dict[str, ast.ClassDef] = {}  # top-level classes derived from an exception type
        self.in_except_type = False  # lowering the type of an `except` clause (where `BaseException` may be named)
        self.typing_names: dict[str, str] = {}
        self.type_aliases: set[str] = set()
        self._module_kinds: dict[str, str] = {}  # top-level name -> its kind (`_module_binding_kind`)

    # ------------------------------------------------------------ helpers

    def span(self, node: ast.AST) -> Span:
        return self.positions.span(node)

    def report(self, rule, node_or_span, **fields) -> None:
        span = node_or_span if isinstance(node_or_span, Span) else self.span(node_or_span)
        self.sink.report(rule, span, **fields)

    @property
    def function(self) -> str | None:
        return self.function_stack[-1] if self.function_stack else None

    @property
    def at_top_level(self) -> bool:
        return self.scope.kind == "module" and not self.block_kinds

    def code(self, node: ast.AST) -> str:
        return self.positions.code(node)

    def typeddict_bodies(self) -> dict[str, dict]:
        """The canonical schema of each TypedDict of the script (see `SchemaBuilder`)."""
        return self._schema_builder.typeddict_bodies() if self._schema_builder is not None else {}

    # ------------------------------------------------------------ program

    def lower_module(self) -> tuple[ir.Stmt, ...]:
        module = self.parsed.module
        self._walrus_possible = ":=" in self.parsed.source.text
        collect(self.scope, module.body, self._walrus_possible)
        self._collect_types(module)
        self._find_type_aliases(module)
        self._find_meta(module)
        self._check_meta_bindings(self.scope)
        if self._schema_builder_factory is not None:
            self._schema_builder = self._schema_builder_factory(self)
            if self._schema_builder is not None:
                self._schema_builder.check_declarations()
        body = mint_occurrence_ids(self.lower_block(module.body))
        self._check_unused_awaitables()
        return body

    def _collect_types(self, module: ast.Module) -> None:
        for name, bindings in self.scope.bindings.items():
            for binding in bindings:
                if binding.kind == IMPORT_TYPING:
                    self.typing_names[name] = binding.detail or name
        for statement in module.body:
            if isinstance(statement, ast.ClassDef) and self._is_typeddict(statement):
                self.typeddicts[statement.name] = statement
        self.find_exception_classes(module)

    def _find_type_aliases(self, module: ast.Module) -> None:
        """Top-level names bound once to a type expression (`Severity = Literal["low", "high"]`)
        are type aliases: compile-time only, like TypedDicts, so they resolve as types."""
        for small in module.body:
            if isinstance(small, ast.Assign) and len(small.targets) == 1 and isinstance(small.targets[0], ast.Name):
                name = small.targets[0].id
                if len(self.scope.bindings.get(name, ())) == 1 and self._is_type_expression(small.value):
                    self.type_aliases.add(name)

    def _is_type_expression(self, node: ast.expr) -> bool:
        """Whether a value is unmistakably a type: it mentions a typing name, a TypedDict or an
        alias as a whole, as a subscript head, inside `list[...]`/`dict[...]`/`tuple[...]`, or
        in a `|` union of types."""
        if isinstance(node, ast.Name):
            return self._resolve(node.id) == ir.TYPE
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            if self._resolve(node.value.id) == ir.TYPE:
                return True
            return node.value.id in ("list", "dict", "tuple") and self._resolve(node.value.id) == ir.BUILTIN and any(
                not isinstance(e, (ast.Slice, ast.Starred)) and self._is_type_expression(e)
                for e in subscript_elements(node, self.positions))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            operands = (node.left, node.right)
            return any(self._is_type_expression(o) for o in operands) or all(
                is_name_constant(o, None) or (isinstance(o, ast.Name) and o.id in ("str", "int", "float", "bool")
                                              and self._resolve(o.id) == ir.BUILTIN)
                for o in operands)
        return False

    def _is_typeddict(self, node: ast.ClassDef) -> bool:
        for base in node.bases:
            if isinstance(base, ast.Name):
                name = base.id
                if self.typing_names.get(name) == "TypedDict":
                    return True
                if name != node.name and any(
                    isinstance(s, ast.ClassDef) and s.name == name and self._is_typeddict(s)
                    for s in self.parsed.module.body
                ):
                    return True
        return False

    # ------------------------------------------------------------ meta

    def _find_meta(self, module: ast.Module) -> None:
        """Read the meta block, the first top-level `meta = ...`, before anything is lowered,
        so that `args[...]` lookups anywhere can be checked against its arguments."""
        from dwf.compiler.meta import extract_meta  # deferred: start-up (only scripts with a meta block)

        node = meta_block(module)
        if node is None:
            return
        self._meta_node = node
        self.facts.meta_span = self.span(node.targets[0])
        extracted = extract_meta(node.value, self.span, self.sink, self.positions)
        if extracted is None:
            return
        self.meta_value, phases = extracted
        self.facts.meta_phases = phases
        args_decl = self.meta_value.get("args")
        self.meta_arg_names = set(args_decl) if isinstance(args_decl, dict) else set()

    def _check_meta_bindings(self, scope: Scope) -> None:
        """`meta` is bound once, by the meta block; any other binding in any scope is `DWF504`
        (a misplaced meta block without a top-level one is `DWF106` instead)."""
        if self._meta_node is None:
            return
        for binding in scope.bindings.get("meta", ()):
            if binding.node is not self._meta_node:
                self.report(M.DuplicateMeta, _bound_name(self.positions, binding.node, "meta"),
                            first_line=self.facts.meta_span.line)

    # ------------------------------------------------------------ names

    def _resolve(self, name: str) -> str:
        scope: Scope | None = self.scope
        while scope is not None:
            if name in scope.bindings:
                if scope.kind == "module":
                    # Every top-level binding is known before lowering starts: one answer per name
                    # (a name bound n times would otherwise cost n per use, quadratic in the script).
                    kind = self._module_kinds.get(name)
                    if kind is None:
                        kind = self._module_kinds[name] = self._module_binding_kind(name, scope.bindings[name])
                    return kind
                return ir.LOCAL if scope is self.scope else ir.FREE
            scope = scope.parent
        if name in F.FACADE_NAMES:
            return ir.FACADE
        if name in B.BUILTINS:
            return ir.BUILTIN
        return ir.UNDEFINED

    def _module_binding_kind(self, name: str, bindings: list[Binding]) -> str:
        if name in self.type_aliases:
            return ir.TYPE
        kinds = {b.kind for b in bindings}
        if kinds <= {IMPORT_TYPING, CLASS} and (IMPORT_TYPING in kinds or name in self.typeddicts):
            return ir.TYPE
        if kinds == {IMPORT_MODULE}:
            if all(b.detail in B.MODULES for b in bindings):
                return ir.MODULE
            if self._rejected_module(name):
                return ir.UNDEFINED  # each use is reported, like a use without the import

        if kinds == {IMPORT_DWF} and name in F.FACADE_NAMES:
            return ir.FACADE
        if kinds == {CLASS}:
            # An exception class is a top-level variable; any other class was rejected.
            return ir.GLOBAL if name in self.exception_classes else ir.UNDEFINED
        return ir.GLOBAL

    def _check_name(self, name: str, node: ast.AST | Span) -> bool:
        if name.startswith("__") and name in B.FORBIDDEN_BUILTINS:  # `__import__`, `__name__`: say what to write instead
            rule, fields = undefined_problem(name, ())
            self.report(rule, node, **fields)
            return False
        if name.startswith("__"):
            self.report(N.DunderName, node, name=name)
            return False
        return True

    def _note_load(self, name: str, scope_kind: str) -> None:
        scope: Scope | None = self.scope
        while scope is not None:
            scope.loads.add(name)
            if name in scope.bindings:
                break
            scope = scope.parent

    def _rejected_module(self, name: str) -> str | None:
        """The nondeterministic module (`time`, `os`, ...) a top-level name is imported as."""
        for binding in self.scope.module().bindings.get(name, ()):
            root = (binding.detail or "").split(".")[0]
            if binding.kind == IMPORT_MODULE and root in B.NONDETERMINISTIC_MODULES:
                return root
        return None

    def _report_undefined(self, node: ast.AST | Span, name: str) -> None:
        rejected = self._rejected_module(name)
        if rejected:
            why, hint = B.NONDETERMINISTIC_MODULES[rejected]
            self.report(N.NondeterministicModule, node, module=rejected, why=why, hint=hint)
            return
        visible: set[str] = set()
        scope: Scope | None = self.scope
        while scope is not None:
            visible |= set(scope.bindings)
            scope = scope.parent
        rule, fields = undefined_problem(name, visible)
        self.report(rule, node, **fields)


# ---------------------------------------------------------------- helpers

def _bound_name(positions, node: ast.AST, name: str) -> ast.AST | Span:
    """Where a binding statement spells `name`: its first `Name` node, or the name a `def`,
    `class`, parameter, import or `except ... as` declares."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
                         ast.ExceptHandler)):
        return positions.name_span(node, name)
    if isinstance(node, ast.arg):
        return positions.param_span(node)
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Name) and current.id == name:
            return current
        stack.extend(reversed(list(ast.iter_child_nodes(current))))
    return node
