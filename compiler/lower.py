"""This module defines stage 3, lowering: one walk over the libcst tree that turns every
accepted construct into IR (`compiler.ir`) and reports every construct outside the subset.
libcst stops here; later passes see only IR.

The walk does four jobs at once, so the tree is traversed a single time:

1. **Subset.** A dispatch table maps each libcst node class to a lowering method; a class with
   no entry is rejected (`DWF101`/`DWF102`), so new Python syntax is refused until reviewed.
2. **Names.** Before a scope's body is lowered its bindings are collected (`compiler.scopes`),
   so every `Name` is resolved when it is built: local, free, global, facade, builtin, module,
   type or undefined. Facade identity therefore comes from resolution, never from spelling:
   `def phase(x): ...` makes `phase` a global function, not the facade. Types are typing
   names, TypedDicts and top-level aliases (`Severity = Literal["low", "high"]`), which exist
   only at compile time. `meta` is bound once, by the meta block, which is read first.
3. **Effects.** Facade calls become `FacadeCall` nodes. Site IDs are minted here, per kind, in
   source pre-order: the ID of a call is reserved *before* its receiver and arguments are
   lowered, and helper bodies are numbered where they are written. `phase()` and `log()`
   consume no counter. Only the relative order of effect calls of one kind decides an ID, so
   comments, formatting and phase/log/report edits never renumber an ask.
4. **Facts** for the effect rules (`compiler.effects`): actors, artifacts, report tags, phases
   and what each phase and helper function contains.
"""

from __future__ import annotations

import difflib
import re
from typing import Callable

import libcst as cst

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from . import ir
from .diagnostics import DiagnosticSink
from .effects import FacadeCallChecks, Facts, call_argument, non_json_description, non_json_help
from .literals import decode_fstring_text, has_fstring, literal_string
from .parse import ParsedModule
from .rules import effects as E
from .rules import meta as M
from .rules import names as N
from .rules import schemas as S
from .rules import syntax as X
from .scopes import (ASSIGN, ASYNC_DEF, CLASS, IMPORT_DWF, IMPORT_MODULE, IMPORT_TYPING, Binding,
                     Scope, bind_targets, collect)
from .source import Span

BINARY_OPS = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
    cst.Modulo: "%", cst.Power: "**", cst.LeftShift: "<<", cst.RightShift: ">>",
    cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^",
}
AUGMENTED_OPS = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*", cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//", cst.ModuloAssign: "%", cst.PowerAssign: "**",
    cst.LeftShiftAssign: "<<", cst.RightShiftAssign: ">>", cst.BitAndAssign: "&",
    cst.BitOrAssign: "|", cst.BitXorAssign: "^",
}
UNARY_OPS = {cst.Minus: "-", cst.Plus: "+", cst.Not: "not", cst.BitInvert: "~"}
COMPARE_OPS = {
    cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
    cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.In: "in", cst.NotIn: "not in",
    cst.Is: "is", cst.IsNot: "is not",
}
STATEMENT_HINTS = {
    "with": "read files with `await files.read(path)`; DWF has no context managers",
    "async with": "DWF has no context managers",
    "async for": "iterate with a plain `for`, or fan out with `parallel`/`pipeline`",
    "global": "return values from functions instead of rebinding top-level names",
    "nonlocal": "return values from inner functions instead of rebinding outer names",
    "match": "use `if`/`elif` chains",
    "except*": "use a plain `except`",
}
# Dict methods that would change the read-only `args` mapping.
ARGS_MUTATORS = frozenset({"clear", "pop", "popitem", "setdefault", "update"})
# Facade members whose result is a list of records, not one record.
RECORD_LIST_RESULTS = frozenset({"files.grep", "git.log"})
SHELL_CHARACTERS = re.compile(r"[\s|;&<>$`*?(){}\[\]\\'\"]")


class Lowerer:
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
        self.meta_value: object = None
        self.meta_arg_names: set[str] | None = None
        self._meta_node: cst.Assign | None = None
        self.actor_bindings: dict[tuple[int, str], str] = {}
        self.pending_unused: list[tuple[Scope, str, Span, str]] = []
        self.schemas: dict[str, object] = {}
        self._schema_builder_factory = schema_builder_factory
        self._schema_builder = None
        self.typeddicts: dict[str, cst.ClassDef] = {}
        self.typing_names: dict[str, str] = {}
        self.type_aliases: set[str] = set()

    # ------------------------------------------------------------ helpers

    def span(self, node: cst.CSTNode) -> Span:
        return Span.from_code_range(self.positions[node])

    def report(self, rule, node_or_span, **fields) -> None:
        span = node_or_span if isinstance(node_or_span, Span) else self.span(node_or_span)
        self.sink.report(rule, span, **fields)

    def mint(self, kind: str) -> str:
        self.counters[kind] = self.counters.get(kind, 0) + 1
        return f"{kind}#{self.counters[kind]}"

    @property
    def function(self) -> str | None:
        return self.function_stack[-1] if self.function_stack else None

    @property
    def at_top_level(self) -> bool:
        return self.scope.kind == "module" and not self.block_kinds

    def code(self, node: cst.CSTNode) -> str:
        return self.parsed.module.code_for_node(node)

    # ------------------------------------------------------------ program

    def lower_module(self) -> tuple[ir.Stmt, ...]:
        module = self.parsed.module
        self._walrus_possible = ":=" in self.parsed.source.text
        collect(self.scope, module, self._walrus_possible)
        self._collect_types(module)
        self._find_type_aliases(module)
        self._find_meta(module)
        self._check_meta_bindings(self.scope)
        if self._schema_builder_factory is not None:
            self._schema_builder = self._schema_builder_factory(self)
            if self._schema_builder is not None:
                self._schema_builder.check_declarations()
        body = self.lower_block(module.body)
        self._check_unused_awaitables()
        return body

    def _collect_types(self, module: cst.Module) -> None:
        for name, bindings in self.scope.bindings.items():
            for binding in bindings:
                if binding.kind == IMPORT_TYPING:
                    self.typing_names[name] = binding.detail or name
        for statement in module.body:
            if isinstance(statement, cst.ClassDef) and self._is_typeddict(statement):
                self.typeddicts[statement.name.value] = statement

    def _find_type_aliases(self, module: cst.Module) -> None:
        """Top-level names bound once to a type expression (`Severity = Literal["low", "high"]`)
        are type aliases: compile-time only, like TypedDicts, so they resolve as types."""
        for statement in module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                    name = small.targets[0].target.value
                    if len(self.scope.bindings.get(name, ())) == 1 and self._is_type_expression(small.value):
                        self.type_aliases.add(name)

    def _is_type_expression(self, node: cst.BaseExpression) -> bool:
        """Whether a value is unmistakably a type: it mentions a typing name, a TypedDict or an
        alias as a whole, as a subscript head, inside `list[...]`/`dict[...]`/`tuple[...]`, or
        in a `|` union of types."""
        if isinstance(node, cst.Name):
            return self._resolve(node.value) == ir.TYPE
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            if self._resolve(node.value.value) == ir.TYPE:
                return True
            return node.value.value in ("list", "dict", "tuple") and self._resolve(node.value.value) == ir.BUILTIN and any(
                isinstance(e.slice, cst.Index) and self._is_type_expression(e.slice.value) for e in node.slice)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            operands = (node.left, node.right)
            return any(self._is_type_expression(o) for o in operands) or all(
                isinstance(o, cst.Name) and (o.value == "None" or (o.value in ("str", "int", "float", "bool")
                                                                    and self._resolve(o.value) == ir.BUILTIN))
                for o in operands)
        return False

    def _is_typeddict(self, node: cst.ClassDef) -> bool:
        for base in node.bases:
            if base.keyword is None and isinstance(base.value, cst.Name):
                name = base.value.value
                if self.typing_names.get(name) == "TypedDict":
                    return True
                if name != node.name.value and any(
                    isinstance(s, cst.ClassDef) and s.name.value == name and self._is_typeddict(s)
                    for s in self.parsed.module.body
                ):
                    return True
        return False

    # ------------------------------------------------------------ blocks and statements

    def lower_block(self, statements) -> tuple[ir.Stmt, ...]:
        saved_phase = self.phase
        out: list[ir.Stmt] = []
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    lowered = self.lower_statement(small)
                    if lowered is not None:
                        out.append(lowered)
            else:
                lowered = self.lower_statement(statement)
                if lowered is not None:
                    out.append(lowered)
        self.phase = saved_phase
        return tuple(out)

    def lower_suite(self, suite: cst.BaseSuite, kind: str | None = None) -> tuple[ir.Stmt, ...]:
        if kind:
            self.block_kinds.append(kind)
        try:
            return self.lower_block(suite.body)
        finally:
            if kind:
                self.block_kinds.pop()

    def lower_statement(self, node: cst.CSTNode) -> ir.Stmt | None:
        handler = STATEMENT_HANDLERS.get(type(node))
        if handler is None:
            construct = UNSUPPORTED_STATEMENTS.get(type(node), type(node).__name__)
            if isinstance(node, cst.With) and node.asynchronous:
                construct = "async with"
            return self.lower_statement_unsupported(node, construct)
        return handler(self, node)

    def _head_span(self, node: cst.CSTNode) -> Span:
        """The first line of a compound statement without its trailing comment, so a diagnostic
        does not cover the body."""
        span = self.span(node)
        if span.end_line > span.line:
            line_text = self.parsed.source.line_text(span.line)
            header = getattr(getattr(node, "body", None), "header", None)
            if header is not None and header.comment is not None:
                line_text = line_text[: line_text.rfind(header.comment.value)]
            return Span(span.line, span.column, span.line, len(line_text.rstrip()) + 1)
        return span

    def _keyword_span(self, node: cst.CSTNode, keyword: str) -> Span:
        """The span of the keyword(s) a statement starts with (`async with`, `except*`, ...)."""
        span = self.span(node)
        pattern = r"\s*".join(re.escape(word) for word in keyword.replace("*", " *").split())
        found = re.compile(rf"\s*({pattern})").match(self.parsed.source.line_text(span.line), span.column - 1)
        if found is None:
            return self._head_span(node)
        return Span(span.line, found.start(1) + 1, span.line, found.end(1) + 1)

    def stmt_expr(self, node: cst.Expr) -> ir.Stmt | None:
        value = node.value
        span = self.span(node)
        if isinstance(value, cst.Call) and self._facade_function(value.func) == "phase":
            return self._phase_marker(value, span)
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)) and not has_fstring(value):
            return None  # docstrings and string statements
        if isinstance(value, cst.Ellipsis):
            return ir.Pass(span)
        lowered = self.expr(value)
        what = self._awaitable_description(lowered)
        if what:
            self.report(E.AwaitableNotAwaited, value, what=what)
        return ir.ExprStmt(span, lowered)

    def _phase_marker(self, call: cst.Call, span: Span) -> ir.Stmt | None:
        self.facts.phase_marked = True
        self._check_arguments(call, F.FUNCTIONS["phase"], "phase")
        argument = call_argument(call, 0, "name")
        name = literal_string(argument) if argument is not None else None
        if name is None or not name.strip():
            if argument is not None:  # a missing name is `DWF319`
                self.report(E.PhaseNameNotLiteral, argument)
            return None
        name = name.strip()
        self.phase = name
        self.facts.phase_spans.setdefault(name, span)
        self.facts.phase_has_step.setdefault(name, False)
        self.facts.phase_refs.setdefault(name, set())
        return ir.Phase(span, name)

    def stmt_assign(self, node: cst.Assign) -> ir.Stmt:
        span = self.span(node)
        if self.at_top_level and _assigns_name(node) in self.type_aliases:
            return None  # a type alias exists only at compile time
        if self._meta_node is None and self.scope.kind == "module" and _assigns_meta(node):
            self.report(X.NotTopLevel, node.targets[0].target, what="The meta block")
            if self.facts.meta_span is None:  # the script has a meta block, only misplaced
                self.facts.meta_span = self.span(node.targets[0].target)
        value = self.expr(node.value)
        for assign_target in node.targets:
            self._check_starred_targets(assign_target.target)
        targets = tuple(self.target(t.target) for t in node.targets)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            what = self._awaitable_description(value)
            if what:
                self.pending_unused.append((self.scope, name, self.span(node.value), what))
            if isinstance(value, ir.FacadeCall) and value.op == "agent":
                self.actor_bindings[(id(self.scope), name)] = value.site or ""
        return ir.Assign(span, targets, value)

    def stmt_ann_assign(self, node: cst.AnnAssign) -> ir.Stmt:
        value = self.expr(node.value) if node.value is not None else None
        return ir.AnnAssign(self.span(node), self.target(node.target), value)

    def stmt_aug_assign(self, node: cst.AugAssign) -> ir.Stmt:
        op = AUGMENTED_OPS.get(type(node.operator))
        if op is None:
            self.report(X.UnsupportedExpression, node.operator, construct="The `@=` operator", hint="DWF has no matrix operator")
            op = "+"
        target = self.target(node.target)
        return ir.AugAssign(self.span(node), target, op, self.expr(node.value))

    def stmt_if(self, node: cst.If) -> ir.Stmt:
        test = self.expr(node.test)
        body = self.lower_suite(node.body, "branch")
        orelse: tuple[ir.Stmt, ...] = ()
        if isinstance(node.orelse, cst.If):
            self.block_kinds.append("branch")
            try:
                orelse = (self.stmt_if(node.orelse),)
            finally:
                self.block_kinds.pop()
        elif isinstance(node.orelse, cst.Else):
            orelse = self.lower_suite(node.orelse.body, "branch")
        return ir.If(self.span(node), test, body, orelse)

    def stmt_for(self, node: cst.For) -> ir.Stmt | None:
        if node.asynchronous:
            return self.lower_statement_unsupported(node, "async for")
        target = self.target(node.target)
        iterable = self.expr(node.iter)
        self.loop_depth += 1
        try:
            body = self.lower_suite(node.body, "loop")
        finally:
            self.loop_depth -= 1
        orelse = self.lower_suite(node.orelse.body, "branch") if node.orelse else ()
        return ir.For(self.span(node), target, iterable, body, orelse)

    def lower_statement_unsupported(self, node: cst.CSTNode, construct: str) -> None:
        if isinstance(node, cst.TryStar):
            node = node.handlers[0]  # the offending token is the first `except*`
        self.report(X.UnsupportedStatement, self._keyword_span(node, construct), construct=construct,
                    hint=STATEMENT_HINTS.get(construct, "rewrite it with the statements DWF allows"))
        return None

    def stmt_while(self, node: cst.While) -> ir.Stmt:
        test = self.expr(node.test)
        self.loop_depth += 1
        try:
            body = self.lower_suite(node.body, "loop")
        finally:
            self.loop_depth -= 1
        orelse = self.lower_suite(node.orelse.body, "branch") if node.orelse else ()
        return ir.While(self.span(node), test, body, orelse)

    def stmt_try(self, node: cst.Try) -> ir.Stmt:
        body = self.lower_suite(node.body, "try")
        handlers = []
        for handler in node.handlers:
            kind = self.expr(handler.type) if handler.type is not None else None
            name = handler.name.name.value if handler.name and isinstance(handler.name.name, cst.Name) else None
            handlers.append(ir.ExceptHandler(self.span(handler), kind, name, self.lower_suite(handler.body, "branch")))
        orelse = self.lower_suite(node.orelse.body, "branch") if node.orelse else ()
        finalbody = self.lower_suite(node.finalbody.body, "try") if node.finalbody else ()
        return ir.Try(self.span(node), body, tuple(handlers), orelse, finalbody)

    def stmt_return(self, node: cst.Return) -> ir.Stmt:
        value = self.expr(node.value) if node.value is not None else None
        if value is not None and self.scope.kind == "module":
            what = non_json_description(value, self)
            if what:
                self.report(E.ReportNotJson, node.value, what=what, action="returned from the workflow", help=non_json_help(what))
        return ir.Return(self.span(node), value)

    def stmt_raise(self, node: cst.Raise) -> ir.Stmt:
        exc = self.expr(node.exc) if node.exc is not None else None
        cause = self.expr(node.cause.item) if node.cause is not None else None
        return ir.Raise(self.span(node), exc, cause)

    def stmt_assert(self, node: cst.Assert) -> ir.Stmt:
        msg = self.expr(node.msg) if node.msg is not None else None
        return ir.Assert(self.span(node), self.expr(node.test), msg)

    def stmt_del(self, node: cst.Del) -> ir.Stmt:
        targets = node.target.elements if isinstance(node.target, (cst.Tuple, cst.List)) else None
        items = [e.value for e in targets] if targets is not None else [node.target]
        lowered = []
        for item in items:
            if isinstance(item, cst.Name):
                lowered.append(self.target(item))
            elif isinstance(item, cst.Subscript):
                self._check_args_mutation(item)
                lowered.append(self.expr(item))
            else:
                self.report(X.InvalidDeleteTarget, item)
        return ir.Delete(self.span(node), tuple(lowered))

    def stmt_simple(self, node: cst.CSTNode) -> ir.Stmt:
        return SIMPLE_STATEMENTS[type(node)](self.span(node))

    def stmt_import(self, node: cst.Import) -> ir.Stmt | None:
        span = self.span(node)
        if not self.at_top_level:
            self.report(X.NotTopLevel, node, what="Imports")
        result = None
        for alias in node.names:
            module = _dotted(alias.name)
            root = module.split(".")[0]
            bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else root
            if module in B.MODULES:
                result = ir.Import(span, module, bound)
                if len(node.names) > 1:
                    result = None  # handled below as several statements is not possible; keep first
            else:
                self._report_bad_module(alias.name, module)
        if len(node.names) > 1:
            self.report(N.ImportNotAllowed, node.names[1].name, detail="Import one module per statement",
                        help=f"write {' and '.join(f'`import {_dotted(a.name)}`' for a in node.names)} on separate lines")
        return result

    def _report_bad_module(self, node: cst.CSTNode, module: str) -> None:
        root = module.split(".")[0]
        if root in B.NONDETERMINISTIC_MODULES:
            why, hint = B.NONDETERMINISTIC_MODULES[root]
            self.report(N.NondeterministicModule, node, module=root, why=why, hint=hint)
        elif root == "typing":
            self.report(N.ImportNotAllowed, node, detail="Import typing names with `from typing import ...`",
                        help=f"write `from typing import {', '.join(B.TYPING_NAMES[:3])}, ...`")
        else:
            self.report(N.ImportNotAllowed, node, detail=f"The module `{module}` cannot be imported in DWF scripts",
                        help="only `json`, `re`, `math`, `typing` and `dwf` can be imported: the compiler must prove the script deterministic")

    def stmt_import_from(self, node: cst.ImportFrom) -> ir.Stmt | None:
        if not self.at_top_level:
            self.report(X.NotTopLevel, node, what="Imports")
        if node.relative:
            self.report(X.UnsupportedStatement, node.relative[0], construct="relative import",
                        hint="a DWF script is self-contained; only `json`, `re`, `math`, `typing` and `dwf` can be imported")
            return None
        module = _dotted(node.module) if node.module is not None else ""
        if isinstance(node.names, cst.ImportStar):
            self.report(X.UnsupportedStatement, node.names, construct="import *",
                        hint="name what you import, e.g. `from typing import TypedDict, Literal`")
            return None
        if module == "typing":
            allowed = B.TYPING_NAMES
        elif module == "dwf":
            allowed = tuple(sorted(F.FACADE_NAMES))
        else:
            self._report_bad_module(node.module, module)
            return None
        for alias in node.names:
            name = _dotted(alias.name)
            if name not in allowed:
                close = difflib.get_close_matches(name, allowed, n=1)
                hint = f"did you mean `{close[0]}`?" if close else f"allowed: {', '.join(allowed)}"
                if module == "typing" and name == "Any":
                    hint = "`Any` would let any result through; describe the shape with a TypedDict, or use `object`"
                self.report(N.ImportNotAllowed, alias, detail=f"`{module}.{name}` cannot be imported", help=hint)
        return None

    def stmt_function(self, node: cst.FunctionDef) -> ir.Stmt:
        span = self.span(node)
        for decorator in node.decorators:
            self.report(X.Decorator, decorator)
        name = node.name.value
        self._check_name(name, node.name)
        scope_of_name = ir.GLOBAL if self.scope.kind == "module" else ir.LOCAL
        function_scope = Scope("function", self.scope, is_async=node.asynchronous is not None, function=name)
        params = self.params(node.params, function_scope)
        collect(function_scope, node.body, self._walrus_possible)
        self._check_meta_bindings(function_scope)
        outer_scope, outer_phase, outer_loop, outer_blocks = self.scope, self.phase, self.loop_depth, self.block_kinds
        self.scope, self.phase, self.loop_depth, self.block_kinds = function_scope, None, 0, ["function"]
        self.function_stack.append(name)
        self.facts.function_has_step.setdefault(name, False)
        self.facts.function_refs.setdefault(name, set())
        try:
            body = self.lower_block(node.body.body)
        finally:
            self.function_stack.pop()
            self.scope, self.phase, self.loop_depth, self.block_kinds = outer_scope, outer_phase, outer_loop, outer_blocks
        return ir.FunctionDef(span, name, params, body, node.asynchronous is not None,
                              tuple(sorted(function_scope.bindings)), scope_of_name)

    def params(self, parameters: cst.Parameters, scope: Scope) -> tuple[ir.Param, ...]:
        out: list[ir.Param] = []
        if parameters.posonly_params or isinstance(parameters.posonly_ind, cst.ParamSlash):
            slash = self.span(parameters.posonly_ind) if isinstance(parameters.posonly_ind, cst.ParamSlash) else self.span(parameters)
            self.report(X.UnsupportedParameter, Span.point(slash.line, slash.column),
                        detail="Positional-only parameters (`/`) are not allowed")
        if isinstance(parameters.star_arg, cst.ParamStar):
            star = self.span(parameters.star_arg)
            self.report(X.UnsupportedParameter, Span.point(star.line, star.column), detail="Keyword-only parameters are not allowed")
        elif parameters.kwonly_params:
            self.report(X.UnsupportedParameter, parameters.kwonly_params[0].name, detail="Keyword-only parameters are not allowed")
        # Rejected parameters are still bound, so their uses do not read as undefined names.
        for param in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params):
            out.append(self._param(param, "plain", scope))
        if isinstance(parameters.star_arg, cst.Param):
            out.append(self._param(parameters.star_arg, "star", scope))
        if parameters.star_kwarg is not None:
            out.append(self._param(parameters.star_kwarg, "double_star", scope))
        seen: set[str] = set()
        for param, node in zip(out, (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params,
                                     *([parameters.star_arg] if isinstance(parameters.star_arg, cst.Param) else []),
                                     *([parameters.star_kwarg] if parameters.star_kwarg is not None else []))):
            if param.name in seen:
                self.report(X.UnsupportedParameter, node.name, detail=f"The parameter `{param.name}` is declared twice",
                            help="give each parameter its own name")
            seen.add(param.name)
        return tuple(out)

    def _param(self, param: cst.Param, kind: str, scope: Scope) -> ir.Param:
        name = param.name.value
        self._check_name(name, param.name)
        scope.bind(name, Binding("param", param))
        default = None
        if param.default is not None:
            default = self.expr(param.default)
            if not _is_literal_default(default):
                self.report(X.UnsupportedParameter, param.default,
                            detail=f"The default of `{name}` must be a literal (a string, number, boolean, None or tuple of them)",
                            help="use `None` as the default and build the value in the body")
        return ir.Param(self.span(param), name, default, kind)

    def stmt_class(self, node: cst.ClassDef) -> ir.Stmt | None:
        name = node.name.value
        for decorator in node.decorators:
            self.report(X.Decorator, decorator)
        if node.name.value in self.typeddicts and self.typeddicts[name] is node:
            if not self.at_top_level:
                self.report(X.NotTopLevel, self._head_span(node), what="TypedDict declarations")
            return None
        if self._is_typeddict(node):
            self.report(X.NotTopLevel, self._head_span(node), what="TypedDict declarations")
            return None
        for base in node.bases:
            if base.keyword is None and isinstance(base.value, cst.Name) and self._resolve(base.value.value) == ir.UNDEFINED:
                self._report_undefined(base.value, base.value.value)
                if base.value.value == "TypedDict":
                    return None  # a TypedDict declaration that forgot its import
        if _is_field_body(node):
            # Shaped like a TypedDict but declared without one: a schema declaration problem.
            self.report(S.InvalidTypedDict, self._head_span(node),
                        detail=f"The class `{name}` is not a TypedDict",
                        help=f"declare it as `class {name}(TypedDict):` (with `from typing import TypedDict`)")
            return None
        self.report(X.NonTypedDictClass, self._head_span(node),
                    detail=f"The class `{name}` is not a TypedDict; DWF only allows `class {name}(TypedDict)` declarations")
        return None

    def stmt_global(self, node: cst.CSTNode) -> None:
        return self.lower_statement_unsupported(node, "global" if isinstance(node, cst.Global) else "nonlocal")

    # ------------------------------------------------------------ meta

    def _find_meta(self, module: cst.Module) -> None:
        """Read the meta block, the first top-level `meta = ...`, before anything is lowered,
        so that `args[...]` lookups anywhere can be checked against its arguments."""
        from .meta import extract_meta  # local import: meta depends on this module's helpers

        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                node = next((small for small in statement.body if isinstance(small, cst.Assign) and _assigns_meta(small)), None)
                if node is not None:
                    break
        else:
            return
        self._meta_node = node
        self.facts.meta_span = self.span(node.targets[0].target)
        extracted = extract_meta(node.value, self.span, self.sink)
        if extracted is None:
            return
        self.meta_value, phases = extracted
        self.facts.meta_phases = phases
        args_decl = self.meta_value.get("args") if isinstance(self.meta_value, dict) else None
        self.meta_arg_names = set(args_decl) if isinstance(args_decl, dict) else set()

    def _check_meta_bindings(self, scope: Scope) -> None:
        """`meta` is bound once, by the meta block; any other binding in any scope is `DWF504`
        (a misplaced meta block without a top-level one is `DWF106` instead)."""
        if self._meta_node is None:
            return
        for binding in scope.bindings.get("meta", ()):
            if binding.node is not self._meta_node:
                self.report(M.DuplicateMeta, _bound_name(binding.node, "meta"), first_line=self.facts.meta_span.line)

    # ------------------------------------------------------------ targets

    def target(self, node: cst.BaseExpression) -> ir.Expr:
        span = self.span(node)
        if isinstance(node, cst.Name):
            self._check_name(node.value, node)
            return ir.Name(span, node.value, self._resolve(node.value))
        if isinstance(node, (cst.Tuple, cst.List)):
            elts = tuple(self.target(e.value) if not isinstance(e, cst.StarredElement)
                         else ir.Starred(self.span(e), self.target(e.value)) for e in node.elements)
            return ir.Tuple(span, elts) if isinstance(node, cst.Tuple) else ir.List(span, elts)
        if isinstance(node, cst.StarredElement):
            return ir.Starred(span, self.target(node.value))
        if isinstance(node, cst.Subscript):
            self._check_args_mutation(node)
            return self.expr(node)
        if isinstance(node, cst.Attribute):
            self.report(X.InvalidAssignmentTarget, node, target=f"the attribute `{self.code(node)}`")
            return ir.Invalid(span, "attribute target")
        self.report(X.InvalidAssignmentTarget, node, target=f"`{self.code(node)}`")
        return ir.Invalid(span, "target")

    def _check_starred_targets(self, target: cst.BaseExpression) -> None:
        """A starred target must sit in a tuple or list, at most one per level (as in CPython)."""
        if isinstance(target, cst.StarredElement):
            self.report(X.InvalidAssignmentTarget, target, target="a starred name outside a tuple or list",
                        help="write `first, *rest = values`")
        elif isinstance(target, (cst.Tuple, cst.List)):
            starred = [e for e in target.elements if isinstance(e, cst.StarredElement)]
            for extra in starred[1:]:
                self.report(X.InvalidAssignmentTarget, extra, target="two starred names in one unpacking",
                            help="use one `*name` per unpacking")
            for element in target.elements:
                inner = element.value
                if isinstance(inner, (cst.Tuple, cst.List)):
                    self._check_starred_targets(inner)

    def _check_args_mutation(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.Name) and node.value.value == "args" and self._resolve("args") == ir.FACADE:
            self.report(N.ReadOnlyArgs, node)

    # ------------------------------------------------------------ names

    def _resolve(self, name: str) -> str:
        scope: Scope | None = self.scope
        while scope is not None:
            if name in scope.bindings:
                if scope.kind == "module":
                    return self._module_binding_kind(name, scope.bindings[name])
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
            return ir.UNDEFINED  # a rejected class; already diagnosed
        return ir.GLOBAL

    def _check_name(self, name: str, node: cst.CSTNode) -> bool:
        if name.startswith("__"):
            self.report(N.DunderName, node, name=name)
            return False
        return True

    def name(self, node: cst.Name) -> ir.Expr:
        span = self.span(node)
        value = node.value
        if value in ("None", "True", "False"):
            return ir.Const(span, {"None": None, "True": True, "False": False}[value])
        if not self._check_name(value, node):
            return ir.Invalid(span, "dunder")
        scope = self._resolve(value)
        self._note_load(value, scope)
        if scope == ir.UNDEFINED:
            self._report_undefined(node, value)
        elif scope == ir.FACADE and value in F.FUNCTIONS:
            self.report(E.FacadeAsValue, node, name=value)
        elif scope == ir.TYPE:
            self.report(N.TypingOutsideAnnotation, node, name=value)
        return ir.Name(span, value, scope)

    def _note_load(self, name: str, scope_kind: str) -> None:
        scope: Scope | None = self.scope
        while scope is not None:
            scope.loads.add(name)
            if name in scope.bindings:
                break
            scope = scope.parent
        if scope_kind in (ir.GLOBAL, ir.LOCAL, ir.FREE):
            self._note_function_reference(name)

    def _note_function_reference(self, name: str) -> None:
        # A reference to a helper counts as using it in the current phase / function (calls
        # and functions handed to pipeline alike), so its asks count for the phase.
        if self.function is not None:
            self.facts.function_refs.setdefault(self.function, set()).add(name)
        if self.phase is not None:
            self.facts.phase_refs.setdefault(self.phase, set()).add(name)

    def _rejected_module(self, name: str) -> str | None:
        """The nondeterministic module (`time`, `os`, ...) a top-level name is imported as."""
        for binding in self.scope.module().bindings.get(name, ()):
            root = (binding.detail or "").split(".")[0]
            if binding.kind == IMPORT_MODULE and root in B.NONDETERMINISTIC_MODULES:
                return root
        return None

    def _report_undefined(self, node: cst.CSTNode, name: str) -> None:
        rejected = self._rejected_module(name)
        if rejected:
            why, hint = B.NONDETERMINISTIC_MODULES[rejected]
            self.report(N.NondeterministicModule, node, module=rejected, why=why, hint=hint)
        elif name in B.FORBIDDEN_BUILTINS:
            self.report(N.ForbiddenBuiltin, node, name=name, hint=B.FORBIDDEN_BUILTINS[name])
        elif name in B.NONDETERMINISTIC_MODULES:
            why, hint = B.NONDETERMINISTIC_MODULES[name]
            self.report(N.NondeterministicModule, node, module=name, why=why, hint=hint)
        elif name in B.MODULES:
            self.report(N.UndefinedName, node, name=name, hint=f"add `import {name}` at the top of the script")
        elif name in B.TYPING_NAMES:
            self.report(N.UndefinedName, node, name=name, hint=f"add `from typing import {name}` at the top of the script")
        else:
            visible = set(F.FACADE_NAMES) | set(B.BUILTINS)
            scope: Scope | None = self.scope
            while scope is not None:
                visible |= set(scope.bindings)
                scope = scope.parent
            close = difflib.get_close_matches(name, sorted(visible), n=1)
            hint = f"did you mean `{close[0]}`?" if close else "define it before use, or pass it in through `args`"
            self.report(N.UndefinedName, node, name=name, hint=hint)

    # ------------------------------------------------------------ expressions

    def expr(self, node: cst.BaseExpression) -> ir.Expr:
        handler = EXPRESSION_HANDLERS.get(type(node))
        if isinstance(node, cst.Yield) and isinstance(node.value, cst.From):
            self.report(X.UnsupportedExpression, node, construct="`yield from` (generators)", hint="build and return a list instead")
            return ir.Invalid(self.span(node), "yield from")
        if handler is None:
            construct, hint = UNSUPPORTED_EXPRESSIONS.get(type(node), (f"The expression `{type(node).__name__}`", "rewrite it with the expressions DWF allows"))
            self.report(X.UnsupportedExpression, node, construct=construct, hint=hint)
            return ir.Invalid(self.span(node), type(node).__name__)
        return handler(self, node)

    def const_number(self, node) -> ir.Expr:
        return ir.Const(self.span(node), node.evaluated_value)

    def imaginary(self, node) -> ir.Expr:
        self.report(X.UnsupportedExpression, node, construct="A complex number", hint="JSON has no complex numbers; use two floats")
        return ir.Invalid(self.span(node), "imaginary")

    def string(self, node: cst.BaseString) -> ir.Expr:
        span = self.span(node)
        if has_fstring(node):
            return ir.FString(span, tuple(self._fstring_parts(node)))
        value = node.evaluated_value
        if isinstance(value, bytes):
            self.report(X.UnsupportedExpression, node, construct="A bytes literal", hint="DWF works with text; use a str literal")
            return ir.Invalid(span, "bytes")
        return ir.Const(span, value)

    def _fstring_parts(self, node: cst.BaseString) -> list:
        if isinstance(node, cst.ConcatenatedString):
            return _merge_text(self._fstring_parts(node.left) + self._fstring_parts(node.right))
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            if isinstance(value, bytes):
                self.report(X.UnsupportedExpression, node, construct="A bytes literal", hint="DWF works with text; use a str literal")
                return []
            return [value]
        prefix = node.prefix.lower().replace("f", "")
        quote = node.quote
        return _merge_text(self._fstring_content(node.parts, prefix, quote))

    def _fstring_content(self, parts, prefix: str, quote: str) -> list:
        out: list = []
        for part in parts:
            if isinstance(part, cst.FormattedStringText):
                out.append(decode_fstring_text(part.value, prefix, quote))
            else:
                conversion = part.conversion if part.conversion else None
                spec = None
                if part.format_spec is not None:
                    spec = ir.FString(self.span(part), tuple(_merge_text(self._fstring_content(part.format_spec, prefix, quote))))
                out.append(ir.FormattedValue(self.span(part), self.expr(part.expression), conversion, spec))
        return out

    def attribute(self, node: cst.Attribute) -> ir.Expr:
        span = self.span(node)
        attr = node.attr.value
        if attr.startswith("__") or attr in B.FORBIDDEN_METHODS:
            self.expr(node.value)  # the receiver is checked too: `x.__class__.__base__` has two dunders
            if attr.startswith("__"):
                self.report(N.DunderName, node.attr, name=attr)
                return ir.Invalid(span, "dunder")
            self.report(N.StrFormat, node.attr, method=attr)
            return ir.Invalid(span, "format")
        container = self._facade_container(node.value)
        if container is not None:
            members = F.members_of(container)
            if attr in members:
                self.report(E.FacadeAsValue, node, name=f"{container}.{attr}")
            elif attr not in F.CONTAINER_ATTRIBUTES.get(container, ()):
                self._unknown_member(node.attr, container, attr)
            return ir.Attribute(span, self.expr(node.value), attr)
        if attr in ARGS_MUTATORS and isinstance(node.value, cst.Name) and node.value.value == "args" \
                and self._resolve("args") == ir.FACADE:
            self.report(N.ReadOnlyArgs, node.attr)
        if attr == "ask":
            self.report(E.FacadeAsValue, node, name=f"{self.code(node.value)}.ask")
        value = self.expr(node.value)
        self._check_static_attribute(node, value, attr)
        return ir.Attribute(span, value, attr)

    def _unknown_member(self, node: cst.CSTNode, container: str, attr: str) -> None:
        choices = sorted(set(F.members_of(container)) | set(F.CONTAINER_ATTRIBUTES.get(container, ())))
        close = difflib.get_close_matches(attr, choices, n=1)
        hint = f"did you mean `{container}.{close[0]}`?" if close else f"`{container}` offers: {', '.join(choices)}"
        if container == "files" and attr in ("write", "write_text", "append", "delete", "remove"):
            hint = "scripts cannot write files; ask an agent to change the workspace, or publish with `artifact.markdown(...)`"
        self.report(E.UnknownFacadeMember, node, container=container, member=attr, hint=hint)

    def _check_static_attribute(self, node: cst.Attribute, value: ir.Expr, attr: str) -> None:
        if isinstance(value, ir.Name) and value.scope == ir.MODULE:
            module = self._module_of(value.id)
            allowed = B.MODULES.get(module, ())
            if attr not in allowed:
                close = difflib.get_close_matches(attr, allowed, n=1)
                hint = f"did you mean `{module}.{close[0]}`?" if close else f"`{module}` offers: {', '.join(allowed)}"
                self.report(N.AttributeNotAllowed, node.attr, receiver=module, attr=attr, hint=hint)
            return
        record = self._static_record(node.value)
        if record is not None:
            fields = F.AGENT_ATTRIBUTES + ("ask",) if record == "Agent" else F.RECORDS[record]
            if attr not in fields:
                close = difflib.get_close_matches(attr, fields, n=1)
                hint = f"did you mean `{close[0]}`?" if close else f"`{record}` has: {', '.join(fields)}"
                self.report(N.AttributeNotAllowed, node.attr, receiver=record, attr=attr, hint=hint)
            return
        kind = _static_type(value)
        if kind is not None and attr not in B.METHODS[kind]:
            close = difflib.get_close_matches(attr, B.METHODS[kind], n=1)
            hint = f"did you mean `{close[0]}`?" if close else f"`{kind}` offers: {', '.join(B.METHODS[kind])}"
            self.report(N.AttributeNotAllowed, node.attr, receiver=kind, attr=attr, hint=hint)

    def _static_record(self, node: cst.BaseExpression, seen: frozenset = frozenset()) -> str | None:
        """The record type (`RunResult`, ...) or `Agent` an expression is known to hold: an
        awaited facade call that returns one record, an `agent()` call, or a name bound only to
        such values."""
        if isinstance(node, cst.Await) and isinstance(node.expression, cst.Call):
            member = self._facade_member(node.expression)
            if member is not None and member.returns in F.RECORDS and member.qualified not in RECORD_LIST_RESULTS:
                return member.returns
            return None
        if isinstance(node, cst.Call):
            return "Agent" if self._facade_function(node.func) == "agent" else None
        if isinstance(node, cst.Name) and node.value not in seen and self._resolve(node.value) in (ir.GLOBAL, ir.LOCAL, ir.FREE):
            scope: Scope | None = self.scope
            while scope is not None and node.value not in scope.bindings:
                scope = scope.parent
            bindings = scope.bindings[node.value] if scope else []
            if bindings and all(b.kind == ASSIGN and b.value is not None for b in bindings):
                records = {self._static_record(b.value, seen | {node.value}) for b in bindings}
                if len(records) == 1:
                    return records.pop()
        return None

    def _facade_member(self, node: cst.Call) -> F.Member | None:
        """The facade member a call denotes (not for `Agent.ask`, whose receiver is dynamic)."""
        function_name = self._facade_function(node.func)
        if function_name is not None:
            return F.FUNCTIONS[function_name]
        if isinstance(node.func, cst.Attribute):
            container = self._facade_container(node.func.value)
            if container is not None:
                return F.members_of(container).get(node.func.attr.value)
        return None

    def _module_of(self, name: str) -> str:
        for binding in self.scope.module().bindings.get(name, ()):
            if binding.kind == IMPORT_MODULE:
                return binding.detail or name
        return name

    def subscript(self, node: cst.Subscript) -> ir.Expr:
        span = self.span(node)
        container = self._facade_container(node.value)
        if container is not None:
            index = node.slice[0].slice if len(node.slice) == 1 else None
            member = literal_string(index.value) if isinstance(index, cst.Index) else None
            members = F.members_of(container)
            example = f"{container}.{member}" if member in members else f"{container}.{next(iter(members))}"
            self.report(E.FacadeSubscript, node, help=f"call the member by name, e.g. `{example}(...)`")
        elif isinstance(node.value, cst.Name) and node.value.value in F.FUNCTIONS and self._resolve(node.value.value) == ir.FACADE:
            self.report(E.FacadeSubscript, node, help=f"`{node.value.value}` is a function: call `{node.value.value}(...)` directly")
            return ir.Invalid(span, "facade subscript")
        value = self.expr(node.value)
        elements = [self._slice_element(e.slice) for e in node.slice]
        index = elements[0] if len(elements) == 1 and len(node.slice) == 1 and node.slice[0].comma is cst.MaybeSentinel.DEFAULT else ir.Tuple(span, tuple(elements))
        if isinstance(value, ir.Name) and value.id == "args" and value.scope == ir.FACADE:
            self._check_argument_name(index)
        return ir.Subscript(span, value, index)

    def _check_argument_name(self, index: ir.Expr) -> None:
        if self.meta_arg_names is None or not isinstance(index, ir.Const) or not isinstance(index.value, str):
            return
        if index.value not in self.meta_arg_names:
            declared = sorted(self.meta_arg_names)
            close = difflib.get_close_matches(index.value, declared, n=1)
            hint = (f"did you mean `{close[0]}`?" if close else
                    f"declared arguments: {', '.join(declared)}" if declared else
                    "declare it in `meta[\"args\"]`")
            self.sink.report(M.UnknownArgument, index.span, name=index.value, hint=hint)

    def _slice_element(self, node) -> ir.Expr:
        if isinstance(node, cst.Index):
            if node.star is not None:
                self.report(X.UnsupportedExpression, node, construct="A starred subscript", hint="index with a single value or a slice")
            return self.expr(node.value)
        return ir.Slice(self.span(node),
                        self.expr(node.lower) if node.lower is not None else None,
                        self.expr(node.upper) if node.upper is not None else None,
                        self.expr(node.step) if node.step is not None else None)

    def binary(self, node: cst.BinaryOperation) -> ir.Expr:
        op = BINARY_OPS.get(type(node.operator))
        if op is None:
            self.report(X.UnsupportedExpression, node.operator, construct="The `@` operator", hint="DWF has no matrix operator")
            return ir.Invalid(self.span(node), "@")
        return ir.BinOp(self.span(node), op, self.expr(node.left), self.expr(node.right))

    def unary(self, node: cst.UnaryOperation) -> ir.Expr:
        return ir.UnaryOp(self.span(node), UNARY_OPS[type(node.operator)], self.expr(node.expression))

    def boolean(self, node: cst.BooleanOperation) -> ir.Expr:
        op = "and" if isinstance(node.operator, cst.And) else "or"
        values = [self.expr(node.left)]
        right = self.expr(node.right)
        if isinstance(right, ir.BoolOp) and right.op == op and not node.right.lpar:
            values.extend(right.values)
        else:
            values.append(right)
        return ir.BoolOp(self.span(node), op, tuple(values))

    def comparison(self, node: cst.Comparison) -> ir.Expr:
        left = self.expr(node.left)
        ops = tuple(COMPARE_OPS[type(t.operator)] for t in node.comparisons)
        return ir.Compare(self.span(node), left, ops, tuple(self.expr(t.comparator) for t in node.comparisons))

    def if_exp(self, node: cst.IfExp) -> ir.Expr:
        body = self.expr(node.body)
        test = self.expr(node.test)
        return ir.IfExp(self.span(node), test, body, self.expr(node.orelse))

    def await_(self, node: cst.Await) -> ir.Expr:
        start = self.span(node)
        keyword = Span(start.line, start.column, start.line, start.column + len("await"))
        if not self.scope.binding_scope().is_async or self.scope.binding_scope().kind == "lambda":
            self.report(X.AwaitOutsideAsync, keyword)
        value = self.expr(node.expression)
        if isinstance(value, ir.FacadeCall):
            member = F.BY_QUALIFIED.get(value.op)
            if member is not None and not member.awaitable:
                self.report(E.NotAwaitable, keyword, name=value.op)
        return ir.Await(self.span(node), value)

    def named_expr(self, node: cst.NamedExpr) -> ir.Expr:
        value = self.expr(node.value)
        target = node.target
        name = target.value if isinstance(target, cst.Name) else "_"
        binding_scope = self.scope.binding_scope()
        scope_kind = ir.GLOBAL if binding_scope.kind == "module" else ir.LOCAL if binding_scope is self.scope else ir.FREE
        return ir.NamedExpr(self.span(node), ir.Name(self.span(target), name, scope_kind), value)

    def lambda_(self, node: cst.Lambda) -> ir.Expr:
        scope = Scope("lambda", self.scope, is_async=False, function=self.function)
        params = self.params(node.params, scope)
        collect(scope, node.body, self._walrus_possible)
        self._check_meta_bindings(scope)
        outer = self.scope
        self.scope = scope
        try:
            body = self.expr(node.body)
        finally:
            self.scope = outer
        return ir.Lambda(self.span(node), params, body, tuple(sorted(scope.bindings)))

    def collection(self, node) -> ir.Expr:
        span = self.span(node)
        elts = tuple(ir.Starred(self.span(e), self.expr(e.value)) if isinstance(e, cst.StarredElement) else self.expr(e.value)
                     for e in node.elements)
        return {cst.List: ir.List, cst.Tuple: ir.Tuple, cst.Set: ir.Set}[type(node)](span, elts)

    def dict_(self, node: cst.Dict) -> ir.Expr:
        keys, values = [], []
        for element in node.elements:
            if isinstance(element, cst.StarredDictElement):
                keys.append(None)
                values.append(self.expr(element.value))
            else:
                keys.append(self.expr(element.key))
                values.append(self.expr(element.value))
        return ir.Dict(self.span(node), tuple(keys), tuple(values))

    def comprehension(self, node) -> ir.Expr:
        span = self.span(node)
        scope = Scope("comprehension", self.scope, is_async=self.scope.binding_scope().is_async, function=self.function)
        fors = []
        clause = node.for_in
        while clause is not None:
            if clause.asynchronous is not None:
                self.report(X.UnsupportedStatement, self._keyword_span(clause, "async for"), construct="async for",
                            hint=STATEMENT_HINTS["async for"])
            bind_targets(scope, clause.target, clause)
            fors.append(clause)
            clause = clause.inner_for_in
        self._check_meta_bindings(scope)
        first_iter = self.expr(fors[0].iter)  # evaluated in the enclosing scope
        outer = self.scope
        self.scope = scope
        self.loop_depth += 1
        try:
            if isinstance(node, cst.DictComp):
                key, value = self.expr(node.key), self.expr(node.value)
            else:
                elt = self.expr(node.elt)
            generators = []
            for index, clause in enumerate(fors):
                target = self.target(clause.target)
                iterable = first_iter if index == 0 else self.expr(clause.iter)
                ifs = tuple(self.expr(condition.test) for condition in clause.ifs)
                generators.append(ir.Comprehension(self.span(clause), target, iterable, ifs))
        finally:
            self.loop_depth -= 1
            self.scope = outer
        if isinstance(node, cst.DictComp):
            return ir.DictComp(span, key, value, tuple(generators))
        cls = {cst.ListComp: ir.ListComp, cst.SetComp: ir.SetComp, cst.GeneratorExp: ir.GeneratorExp}[type(node)]
        return cls(span, elt, tuple(generators))

    # ------------------------------------------------------------ calls

    def call(self, node: cst.Call) -> ir.Expr:
        function_name = self._facade_function(node.func)
        if function_name is not None:
            return self.facade_call(node, F.FUNCTIONS[function_name], receiver=None)
        if isinstance(node.func, cst.Attribute):
            attr = node.func.attr.value
            container = self._facade_container(node.func.value)
            if container is not None:
                members = F.members_of(container)
                if attr in members:
                    return self.facade_call(node, members[attr], receiver=None)
            elif attr == "ask" and not isinstance(node.func.value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.List, cst.Dict)):
                return self.facade_call(node, F.BY_QUALIFIED["Agent.ask"], receiver=node.func.value)
        func = self.expr(node.func)
        args, keywords = self.arguments(node.args)
        return ir.Call(self.span(node), func, args, keywords)

    def arguments(self, arguments, skip: tuple[str, ...] = ()) -> tuple[tuple[ir.Expr, ...], tuple[ir.Keyword, ...]]:
        args: list[ir.Expr] = []
        keywords: list[ir.Keyword] = []
        given: set[str] = set()
        for arg in arguments:
            if arg.keyword is not None:
                if arg.keyword.value in given:
                    self.report(X.RepeatedKeyword, arg.keyword, name=arg.keyword.value)
                given.add(arg.keyword.value)
                if arg.keyword.value in skip:
                    continue
                keywords.append(ir.Keyword(self.span(arg), arg.keyword.value, self.expr(arg.value)))
            elif arg.star == "**":
                keywords.append(ir.Keyword(self.span(arg), None, self.expr(arg.value)))
            elif arg.star == "*":
                args.append(ir.Starred(self.span(arg), self.expr(arg.value)))
            else:
                args.append(self.expr(arg.value))
        return tuple(args), tuple(keywords)

    def _facade_function(self, func: cst.BaseExpression) -> str | None:
        if isinstance(func, cst.Name) and func.value in F.FUNCTIONS and self._resolve(func.value) == ir.FACADE:
            return func.value
        return None

    def _facade_container(self, node: cst.BaseExpression, seen: frozenset = frozenset()) -> str | None:
        """The facade container an expression denotes: `files`, or a name bound only to it
        (directly or through other such names: `f = files; g = f`)."""
        if not isinstance(node, cst.Name) or node.value in seen:
            return None
        kind = self._resolve(node.value)
        if kind == ir.FACADE and node.value in F.CONTAINERS:
            return node.value
        if kind in (ir.GLOBAL, ir.LOCAL, ir.FREE):
            scope: Scope | None = self.scope
            while scope is not None and node.value not in scope.bindings:
                scope = scope.parent
            bindings = scope.bindings[node.value] if scope else []
            if bindings and all(b.kind == ASSIGN and isinstance(b.value, cst.Name) for b in bindings):
                containers = {self._facade_container(b.value, seen | {node.value}) for b in bindings}
                if len(containers) == 1:
                    return containers.pop()
        return None

    def facade_call(self, node: cst.Call, member: F.Member, receiver: cst.BaseExpression | None) -> ir.Expr:
        span = self.span(node)
        if member.name == "hole":
            self.report(E.HoleNotSupported, node.func)
        if member.name == "phase":
            self.report(E.PhaseNotStatement, node)
            return ir.Invalid(span, "phase")
        site = self.mint(member.site_kind) if member.site_kind else None
        checks = FacadeCallChecks(self, node, member, site)
        checks.before_arguments()
        lowered_receiver = self.expr(receiver) if receiver is not None else None
        skip = ("returns",) if "returns" in member.signature.keyword_only else ()  # a type, not a value
        args, keywords = self.arguments(node.args, skip)
        self._check_arguments(node, member, member.qualified if member.container != "Agent" else "ask")
        schema = checks.after_arguments(args, keywords, lowered_receiver)
        op = member.qualified if member.container != "Agent" else "ask"
        return ir.FacadeCall(span, op, site, lowered_receiver, args, keywords, schema)

    def _check_arguments(self, node: cst.Call, member: F.Member, display: str) -> None:
        """Check a facade call against its signature; the first problem is reported at the
        offending argument (or at the call when one is missing)."""
        signature = member.signature
        positional = [a for a in node.args if a.keyword is None and not a.star]
        has_star = any(a.star for a in node.args)
        given: set[str] = set()
        problem, where = None, node
        if len(positional) > len(signature.positional) and signature.variadic is None:
            count = len(signature.positional)
            problem = f"takes at most {count} positional argument{'s' if count != 1 else ''} but {len(positional)} were given"
            where = positional[count].value
        given.update(signature.positional[: len(positional)])
        keywords_seen: set[str] = set()
        for arg in node.args:
            if arg.keyword is None or problem is not None:
                continue
            keyword = arg.keyword.value
            if keyword in keywords_seen:
                continue  # a repeated keyword is `DWF110`
            keywords_seen.add(keyword)
            allowed = signature.positional + signature.keyword_only
            if keyword not in allowed:
                close = difflib.get_close_matches(keyword, allowed, n=1)
                problem = f"got an unexpected keyword argument `{keyword}`" + (f" (did you mean `{close[0]}`?)" if close else "")
                where = arg.keyword
            elif keyword in given:
                problem, where = f"got multiple values for argument `{keyword}`", arg.keyword
            given.add(keyword)
        if problem is None and not has_star:
            missing = [p for p in signature.positional[: signature.required] if p not in given]
            if missing:
                problem = f"is missing the required argument `{missing[0]}`"
        if problem:
            self.report(E.FacadeArguments, where, name=display, problem=problem, signature=signature.render(display))

    # ------------------------------------------------------------ awaitables

    def _awaitable_description(self, value: ir.Expr) -> str | None:
        if isinstance(value, ir.FacadeCall):
            member = F.BY_QUALIFIED.get(value.op if value.op != "ask" else "Agent.ask")
            if member is not None and member.awaitable:
                return f"This `{value.op}()` call" if value.op != "ask" else "This ask"
        if isinstance(value, ir.Call) and isinstance(value.func, ir.Name):
            if self._is_async_function(value.func.id):
                return f"This call of `async def {value.func.id}`"
        return None

    def _is_async_function(self, name: str) -> bool:
        return self._binds_only(name, (ASYNC_DEF,))

    def _binds_only(self, name: str, kinds: tuple[str, ...]) -> bool:
        """Whether every binding of `name` visible here is of one of `kinds` (e.g. a `def`)."""
        scope: Scope | None = self.scope
        while scope is not None and name not in scope.bindings:
            scope = scope.parent
        if scope is None:
            return False
        bindings = scope.bindings[name]
        return all(b.kind in kinds for b in bindings)

    def _check_unused_awaitables(self) -> None:
        for scope, name, span, what in self.pending_unused:
            if name not in scope.loads:
                self.sink.report(E.AwaitableNotAwaited, span, what=f"{what} (assigned to `{name}`)")


# ---------------------------------------------------------------- module-level helpers


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _assigns_name(node: cst.Assign) -> str | None:
    """The name a plain `name = value` assignment binds."""
    if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        return node.targets[0].target.value
    return None


def _assigns_meta(node: cst.Assign) -> bool:
    return _assigns_name(node) == "meta"


def _bound_name(node: cst.CSTNode, name: str) -> cst.CSTNode:
    """The first `Name` node spelling `name` inside a binding statement (its target)."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node.name
    found: list[cst.Name] = []

    class Finder(cst.CSTVisitor):
        def visit_Name(self, candidate: cst.Name) -> bool:
            if candidate.value == name and not found:
                found.append(candidate)
            return False

    node.visit(Finder())
    return found[0] if found else node


def _merge_text(parts: list) -> list:
    merged: list = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if merged and isinstance(merged[-1], str):
                merged[-1] += part
                continue
        merged.append(part)
    return merged


def _is_field_body(node: cst.ClassDef) -> bool:
    """Whether a class body holds only what a TypedDict declaration may: annotated fields,
    strings, `...` and `pass` (the same shape `grammar/dwf.lark` accepts)."""
    body = node.body.body
    smalls = [small for line in body for small in (line.body if isinstance(line, cst.SimpleStatementLine) else [line])]
    if isinstance(node.body, cst.SimpleStatementSuite):
        smalls = list(node.body.body)
    for small in smalls:
        if isinstance(small, cst.Pass):
            continue
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
            continue
        if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString,
                                                                    cst.FormattedString, cst.Ellipsis)):
            continue
        return False
    return True


def _is_literal_default(value: ir.Expr) -> bool:
    if isinstance(value, ir.Const):
        return True
    if isinstance(value, ir.UnaryOp) and value.op in ("-", "+") and isinstance(value.operand, ir.Const):
        return True
    if isinstance(value, ir.Tuple):
        return all(_is_literal_default(e) for e in value.elts)
    return False


def _static_type(value: ir.Expr) -> str | None:
    if isinstance(value, ir.Const):
        v = value.value
        if isinstance(v, bool) or v is None:
            return None
        return {str: "str", int: "int", float: "float"}.get(type(v))
    if isinstance(value, ir.FString):
        return "str"
    if isinstance(value, (ir.List, ir.ListComp)):
        return "list"
    if isinstance(value, (ir.Dict, ir.DictComp)):
        return "dict"
    if isinstance(value, (ir.Set, ir.SetComp)):
        return "set"
    if isinstance(value, ir.Tuple):
        return "tuple"
    return None


UNSUPPORTED_STATEMENTS = {
    cst.With: "with", cst.Global: "global", cst.Nonlocal: "nonlocal", cst.Match: "match",
    cst.TryStar: "except*",
}
UNSUPPORTED_EXPRESSIONS = {
    cst.Yield: ("`yield` (generators)", "build and return a list instead"),
    cst.Ellipsis: ("`...` as a value", "use `None`"),
}
SIMPLE_STATEMENTS = {cst.Pass: ir.Pass, cst.Break: ir.Break, cst.Continue: ir.Continue}

STATEMENT_HANDLERS: dict[type, Callable] = {
    cst.Expr: Lowerer.stmt_expr,
    cst.Assign: Lowerer.stmt_assign,
    cst.AnnAssign: Lowerer.stmt_ann_assign,
    cst.AugAssign: Lowerer.stmt_aug_assign,
    cst.If: Lowerer.stmt_if,
    cst.For: Lowerer.stmt_for,
    cst.While: Lowerer.stmt_while,
    cst.Try: Lowerer.stmt_try,
    cst.Return: Lowerer.stmt_return,
    cst.Raise: Lowerer.stmt_raise,
    cst.Assert: Lowerer.stmt_assert,
    cst.Del: Lowerer.stmt_del,
    cst.Pass: Lowerer.stmt_simple,
    cst.Break: Lowerer.stmt_simple,
    cst.Continue: Lowerer.stmt_simple,
    cst.Import: Lowerer.stmt_import,
    cst.ImportFrom: Lowerer.stmt_import_from,
    cst.FunctionDef: Lowerer.stmt_function,
    cst.ClassDef: Lowerer.stmt_class,
    cst.Global: Lowerer.stmt_global,
    cst.Nonlocal: Lowerer.stmt_global,
}

EXPRESSION_HANDLERS: dict[type, Callable] = {
    cst.Name: Lowerer.name,
    cst.Integer: Lowerer.const_number,
    cst.Float: Lowerer.const_number,
    cst.Imaginary: Lowerer.imaginary,
    cst.SimpleString: Lowerer.string,
    cst.ConcatenatedString: Lowerer.string,
    cst.FormattedString: Lowerer.string,
    cst.Attribute: Lowerer.attribute,
    cst.Subscript: Lowerer.subscript,
    cst.Call: Lowerer.call,
    cst.BinaryOperation: Lowerer.binary,
    cst.UnaryOperation: Lowerer.unary,
    cst.BooleanOperation: Lowerer.boolean,
    cst.Comparison: Lowerer.comparison,
    cst.IfExp: Lowerer.if_exp,
    cst.Await: Lowerer.await_,
    cst.NamedExpr: Lowerer.named_expr,
    cst.Lambda: Lowerer.lambda_,
    cst.List: Lowerer.collection,
    cst.Tuple: Lowerer.collection,
    cst.Set: Lowerer.collection,
    cst.Dict: Lowerer.dict_,
    cst.ListComp: Lowerer.comprehension,
    cst.SetComp: Lowerer.comprehension,
    cst.GeneratorExp: Lowerer.comprehension,
    cst.DictComp: Lowerer.comprehension,
}
