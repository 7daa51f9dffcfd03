"""This module defines statement lowering: `StatementLowering`, the part of `Lowerer` that turns
blocks and statements into IR (assignments and their targets, control flow, imports, function and
class definitions with their parameters) and rejects statements outside the subset (`DWF101`),
through `STATEMENT_HANDLERS`, the table from libcst statement classes to lowering methods.

It is a mixin without state of its own: lowering is one walk, whose state (scope, phase, loop depth,
facts, sites) `LoweringState` (`compiler.lower.state`) declares and `Lowerer` (`compiler.lower.lowerer`) sets.
"""

from __future__ import annotations

import difflib
import re
from typing import Callable

import libcst as cst

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from dwf.compiler import ir
from dwf.compiler.effect_rules import call_argument, non_json_description, non_json_help
from dwf.compiler.lower.literals import has_fstring, literal_string
from dwf.compiler.checks.not_offered import module_problem
from dwf.compiler.rules import effects as E
from dwf.compiler.rules import names as N
from dwf.compiler.rules import schemas as S
from dwf.compiler.rules import syntax as X
from dwf.compiler.lower.scopes import Binding, Scope, collect, dotted_name
from dwf.compiler.lower.state import LoweringState
from dwf.compiler.source import Span

AUGMENTED_OPS = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*", cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//", cst.ModuloAssign: "%", cst.PowerAssign: "**",
    cst.LeftShiftAssign: "<<", cst.RightShiftAssign: ">>", cst.BitAndAssign: "&",
    cst.BitOrAssign: "|", cst.BitXorAssign: "^",
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
UNSUPPORTED_STATEMENTS = {
    cst.With: "with", cst.Global: "global", cst.Nonlocal: "nonlocal", cst.Match: "match",
    cst.TryStar: "except*",
}
SIMPLE_STATEMENTS = {cst.Pass: ir.Pass, cst.Break: ir.Break, cst.Continue: ir.Continue}


# How messages name the importable modules.
IMPORTABLE = ", ".join(f"`{m}`" for m in (*B.MODULES, "typing")) + " and `dwf`"


class StatementLowering(LoweringState):
    """Lowers statements, blocks and assignment targets; see the module docstring."""

    # ------------------------------------------------------------ blocks and statements

    def lower_block(self, statements) -> tuple[ir.Stmt, ...]:
        saved_phase = self.phase
        out: list[ir.Stmt] = []
        marked: str | None = None  # the phase a marker just opened, until a statement follows
        for statement in statements:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else (statement,):
                lowered = self.lower_statement(small)
                if lowered is not None:
                    out.append(lowered)
                if type(lowered) is ir.Phase:
                    marked = lowered.name
                elif marked is not None:
                    self.facts.phase_filled.add(marked)  # a phase is a label: any statement fills it
                    marked = None
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
        return ir.Phase(span, name)

    def stmt_assign(self, node: cst.Assign) -> ir.Stmt:
        span = self.span(node)
        if self.at_top_level and assigned_name(node) in self.type_aliases:
            return None  # a type alias exists only at compile time
        if self._meta_node is None and self.scope.kind == "module" and assigns_meta(node):
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
            self.in_except_type = True
            try:
                kind = self.expr(handler.type) if handler.type is not None else None
            finally:
                self.in_except_type = False
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

    # ------------------------------------------------------------ imports

    def stmt_import(self, node: cst.Import) -> ir.Stmt | None:
        span = self.span(node)
        if not self.at_top_level:
            self.report(X.NotTopLevel, node, what="Imports")
        result = None
        for alias in node.names:
            module = dotted_name(alias.name)
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
                        help=f"write {' and '.join(f'`import {dotted_name(a.name)}`' for a in node.names)} on separate lines")
        return result

    def _report_bad_module(self, node: cst.CSTNode, module: str) -> None:
        if module in B.REFUSED_MODULE_MEMBERS:
            self.report(N.ModuleMemberRefused, node, name=module, hint=B.REFUSED_MODULE_MEMBERS[module])
            return
        rule, fields = module_problem(module)
        self.report(rule, node, **fields)

    def stmt_import_from(self, node: cst.ImportFrom) -> ir.Stmt | None:
        if not self.at_top_level:
            self.report(X.NotTopLevel, node, what="Imports")
        if node.relative:
            self.report(X.UnsupportedStatement, node.relative[0], construct="relative import",
                        hint=f"a DWF script is self-contained; only {IMPORTABLE} can be imported")
            return None
        module = dotted_name(node.module) if node.module is not None else ""
        if isinstance(node.names, cst.ImportStar):
            self.report(X.UnsupportedStatement, node.names, construct="import *",
                        hint="name what you import, e.g. `from typing import TypedDict, Literal`")
            return None
        if module == "typing":
            allowed = B.TYPING_NAMES
        elif module == "dwf":
            allowed = tuple(sorted(F.FACADE_NAMES))
        elif module == "__future__":  # CPython's own parser has checked its place; DWF has no use for it
            allowed = B.FUTURE_FEATURES
        elif module in B.MODULES:
            allowed = B.MODULES[module]
        else:
            self._report_bad_module(node.module, module)
            return None
        members = []
        for alias in node.names:
            name = dotted_name(alias.name)
            if name in allowed:
                bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
                members.append((name, bound))
            elif f"{module}.{name}" in B.REFUSED_MODULE_MEMBERS:
                self.report(N.ModuleMemberRefused, alias, name=f"{module}.{name}",
                            hint=B.REFUSED_MODULE_MEMBERS[f"{module}.{name}"])
            else:
                close = difflib.get_close_matches(name, allowed, n=1)
                hint = f"did you mean `{close[0]}`?" if close else f"allowed: {', '.join(allowed)}"
                if module == "typing" and name == "NamedTuple":
                    hint = "use `from collections import namedtuple` and `Point = namedtuple(\"Point\", [\"x\", \"y\"])`"
                self.report(N.ImportNotAllowed, alias, detail=f"`{module}.{name}` cannot be imported", help=hint)
        if module in B.MODULES and members:
            return ir.Import(self.span(node), module, "", tuple(members))
        return None

    # ------------------------------------------------------------ definitions

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
        try:
            body = self.lower_block(node.body.body)
        finally:
            self.function_stack.pop()
            self.scope, self.phase, self.loop_depth, self.block_kinds = outer_scope, outer_phase, outer_loop, outer_blocks
        return ir.FunctionDef(span, name, params, body, node.asynchronous is not None,
                              tuple(sorted(function_scope.bindings)), scope_of_name)

    def params(self, parameters: cst.Parameters, scope: Scope) -> tuple[ir.Param, ...]:
        """The parameters in source order: positional-only, plain, `*args`, keyword-only,
        `**kwargs` (a bare `*` has no parameter of its own). Defaults are lowered here, in the
        enclosing scope, where they are evaluated: once, when the `def` or `lambda` runs."""
        nodes: list[tuple[cst.Param, str]] = [(p, "posonly") for p in parameters.posonly_params]
        nodes += [(p, "plain") for p in parameters.params]
        if isinstance(parameters.star_arg, cst.Param):
            nodes.append((parameters.star_arg, "star"))
        nodes += [(p, "kwonly") for p in parameters.kwonly_params]
        if parameters.star_kwarg is not None:
            nodes.append((parameters.star_kwarg, "double_star"))
        defaults = [self.expr(param.default) if param.default is not None else None for param, _ in nodes]
        out: list[ir.Param] = []
        seen: set[str] = set()
        for (param, kind), default in zip(nodes, defaults):
            name = param.name.value
            self._check_name(name, param.name)
            if name in seen:
                self.report(X.UnsupportedParameter, param.name, detail=f"The parameter `{name}` is declared twice",
                            help="give each parameter its own name")
            seen.add(name)
            scope.bind(name, Binding("param", param))
            out.append(ir.Param(self.span(param), name, default, kind))
        return tuple(out)

    def stmt_class(self, node: cst.ClassDef) -> ir.Stmt | None:
        name = node.name.value
        for decorator in node.decorators:
            self.report(X.Decorator, decorator)
        if any(dotted_name(base.value).split(".")[-1] == "NamedTuple" for base in node.bases if base.keyword is None):
            fields = [s.body[0].target.value for s in getattr(node.body, "body", ())
                      if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.AnnAssign)
                      and isinstance(s.body[0].target, cst.Name)]
            self.report(N.NamedTupleClass, self._head_span(node), name=name,
                        fields=", ".join(f'"{f}"' for f in fields) or '"x", "y"')
            return None
        if node.name.value in self.typeddicts and self.typeddicts[name] is node:
            if not self.at_top_level:
                self.report(X.NotTopLevel, self._head_span(node), what="TypedDict declarations")
            return None
        if self._is_typeddict(node):
            self.report(X.NotTopLevel, self._head_span(node), what="TypedDict declarations")
            return None
        if self.exception_classes.get(name) is node or self.is_exception_like(node):
            return self.lower_exception_class(node)
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


# ---------------------------------------------------------------- helpers


def assigned_name(node: cst.Assign) -> str | None:
    """The name a plain `name = value` assignment binds."""
    if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        return node.targets[0].target.value
    return None


def assigns_meta(node: cst.Assign) -> bool:
    return assigned_name(node) == "meta"


def meta_block(module: cst.Module) -> cst.Assign | None:
    """The meta block: the first top-level `meta = ...`, if any."""
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            node = next((small for small in statement.body if isinstance(small, cst.Assign) and assigns_meta(small)), None)
            if node is not None:
                return node
    return None


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


STATEMENT_HANDLERS: dict[type, Callable] = {
    cst.Expr: StatementLowering.stmt_expr,
    cst.Assign: StatementLowering.stmt_assign,
    cst.AnnAssign: StatementLowering.stmt_ann_assign,
    cst.AugAssign: StatementLowering.stmt_aug_assign,
    cst.If: StatementLowering.stmt_if,
    cst.For: StatementLowering.stmt_for,
    cst.While: StatementLowering.stmt_while,
    cst.Try: StatementLowering.stmt_try,
    cst.Return: StatementLowering.stmt_return,
    cst.Raise: StatementLowering.stmt_raise,
    cst.Assert: StatementLowering.stmt_assert,
    cst.Del: StatementLowering.stmt_del,
    cst.Pass: StatementLowering.stmt_simple,
    cst.Break: StatementLowering.stmt_simple,
    cst.Continue: StatementLowering.stmt_simple,
    cst.Import: StatementLowering.stmt_import,
    cst.ImportFrom: StatementLowering.stmt_import_from,
    cst.FunctionDef: StatementLowering.stmt_function,
    cst.ClassDef: StatementLowering.stmt_class,
    cst.Global: StatementLowering.stmt_global,
    cst.Nonlocal: StatementLowering.stmt_global,
}
