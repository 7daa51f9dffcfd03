"""This module defines statement lowering: `StatementLowering`, the part of `Lowerer` that turns
blocks and statements into IR (assignments and their targets, control flow, imports, function and
class definitions with their parameters) and rejects statements outside the subset (`DWF101`),
through `STATEMENT_HANDLERS`, the table from `ast` statement classes to lowering methods.

It is a mixin without state of its own: lowering is one walk, whose state (scope, phase, loop depth,
facts, sites) `LoweringState` (`compiler.lower.state`) declares and `Lowerer` (`compiler.lower.lowerer`) sets.
"""

from __future__ import annotations

import difflib
import re
from typing import Callable

import ast

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from dwf.compiler import ir
from dwf.compiler.effect_rules import call_argument, non_json_description, non_json_help
from dwf.compiler.lower.literals import has_fstring, is_ellipsis, is_plain_string, is_string, literal_string
from dwf.compiler.checks.not_offered import module_problem
from dwf.compiler.rules import effects as E
from dwf.compiler.rules import names as N
from dwf.compiler.rules import schemas as S
from dwf.compiler.rules import syntax as X
from dwf.compiler.lower.scopes import Binding, Scope, collect, dotted_name
from dwf.compiler.lower.state import LoweringState
from dwf.compiler.source import Span

AUGMENTED_OPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
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
    ast.With: "with", ast.AsyncWith: "async with", ast.Global: "global", ast.Nonlocal: "nonlocal",
    ast.Match: "match", ast.TryStar: "except*",
}
SIMPLE_STATEMENTS = {ast.Pass: ir.Pass, ast.Break: ir.Break, ast.Continue: ir.Continue}


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
            lowered = self.lower_statement(statement)
            if lowered is not None:
                out.append(lowered)
            if type(lowered) is ir.Phase:
                marked = lowered.name
            elif marked is not None:
                self.facts.phase_filled.add(marked)  # a phase is a label: any statement fills it
                marked = None
        self.phase = saved_phase
        return tuple(out)

    def lower_suite(self, suite: list[ast.stmt], kind: str | None = None) -> tuple[ir.Stmt, ...]:
        if kind:
            self.block_kinds.append(kind)
        try:
            return self.lower_block(suite)
        finally:
            if kind:
                self.block_kinds.pop()

    def lower_statement(self, node: ast.stmt) -> ir.Stmt | None:
        handler = STATEMENT_HANDLERS.get(type(node))
        if handler is None:
            construct = UNSUPPORTED_STATEMENTS.get(type(node), type(node).__name__)
            return self.lower_statement_unsupported(node, construct)
        return handler(self, node)

    def _head_span(self, node: ast.AST) -> Span:
        """The first line of a compound statement without its trailing comment, so a diagnostic
        does not cover the body."""
        span = self.span(node)
        if span.end_line > span.line:
            line_text = self.parsed.source.line_text(span.line)
            comment = self.positions.comments.get(span.line)
            if comment is not None:
                line_text = line_text[: comment[0]]
            return Span(span.line, span.column, span.line, len(line_text.rstrip()) + 1)
        return span

    def _keyword_span(self, node: ast.AST | Span, keyword: str) -> Span:
        """The span of the keyword(s) a statement starts with (`async with`, `except*`, ...)."""
        span = node if isinstance(node, Span) else self.span(node)
        pattern = r"\s*".join(re.escape(word) for word in keyword.replace("*", " *").split())
        found = re.compile(rf"\s*({pattern})").match(self.parsed.source.line_text(span.line), span.column - 1)
        if found is None:
            return span if isinstance(node, Span) else self._head_span(node)
        return Span(span.line, found.start(1) + 1, span.line, found.end(1) + 1)

    def stmt_expr(self, node: ast.Expr) -> ir.Stmt | None:
        value = node.value
        span = self.span(node)
        if isinstance(value, ast.Call) and self._facade_function(value.func) == "phase":
            return self._phase_marker(value, span)
        if is_plain_string(value) and not has_fstring(value):
            return None  # docstrings and string statements
        if is_ellipsis(value):
            return ir.Pass(span)
        lowered = self.expr(value)
        what = self._awaitable_description(lowered)
        if what:
            self.report(E.AwaitableNotAwaited, value, what=what)
        return ir.ExprStmt(span, lowered)

    def _phase_marker(self, call: ast.Call, span: Span) -> ir.Stmt | None:
        self.facts.phase_marked = True
        self._check_arguments(call, F.FUNCTIONS["phase"], "phase")
        argument = call_argument(call, 0, "name")
        name = literal_string(argument, self.positions) if argument is not None else None
        if name is None or not name.strip():
            if argument is not None:  # a missing name is `DWF319`
                self.report(E.PhaseNameNotLiteral, argument)
            return None
        name = name.strip()
        self.phase = name
        self.facts.phase_spans.setdefault(name, span)
        return ir.Phase(span, name)

    def stmt_assign(self, node: ast.Assign) -> ir.Stmt:
        span = self.span(node)
        if self.at_top_level and assigned_name(node) in self.type_aliases:
            return None  # a type alias exists only at compile time
        if self._meta_node is None and self.scope.kind == "module" and assigns_meta(node):
            self.report(X.NotTopLevel, node.targets[0], what="The meta block")
            if self.facts.meta_span is None:  # the script has a meta block, only misplaced
                self.facts.meta_span = self.span(node.targets[0])
        value = self.expr(node.value)
        for assign_target in node.targets:
            self._check_starred_targets(assign_target)
        targets = tuple(self.target(t) for t in node.targets)
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            what = self._awaitable_description(value)
            if what:
                self.pending_unused.append((self.scope, name, self.span(node.value), what))
            if isinstance(value, ir.FacadeCall) and value.op == "agent":
                self.actor_bindings[(id(self.scope), name)] = value.site or ""
        return ir.Assign(span, targets, value)

    def stmt_ann_assign(self, node: ast.AnnAssign) -> ir.Stmt:
        value = self.expr(node.value) if node.value is not None else None
        return ir.AnnAssign(self.span(node), self.target(node.target), value)

    def stmt_aug_assign(self, node: ast.AugAssign) -> ir.Stmt:
        op = AUGMENTED_OPS.get(type(node.op))
        if op is None:
            self.report(X.UnsupportedExpression, self.positions.operator_span(node.target), construct="The `@=` operator",
                        hint="DWF has no matrix operator")
            op = "+"
        target = self.target(node.target)
        return ir.AugAssign(self.span(node), target, op, self.expr(node.value))

    def stmt_if(self, node: ast.If) -> ir.Stmt:
        test = self.expr(node.test)
        body = self.lower_suite(node.body, "branch")
        orelse = self.lower_suite(node.orelse, "branch") if node.orelse else ()
        return ir.If(self.span(node), test, body, orelse)

    def stmt_for(self, node: ast.For) -> ir.Stmt | None:
        if isinstance(node, ast.AsyncFor):
            return self.lower_statement_unsupported(node, "async for")
        target = self.target(node.target)
        iterable = self.expr(node.iter)
        self.loop_depth += 1
        try:
            body = self.lower_suite(node.body, "loop")
        finally:
            self.loop_depth -= 1
        orelse = self.lower_suite(node.orelse, "branch") if node.orelse else ()
        return ir.For(self.span(node), target, iterable, body, orelse)

    def lower_statement_unsupported(self, node: ast.AST, construct: str) -> None:
        if isinstance(node, ast.TryStar):
            node = node.handlers[0]  # the offending token is the first `except*`
        self.report(X.UnsupportedStatement, self._keyword_span(node, construct), construct=construct,
                    hint=STATEMENT_HINTS.get(construct, "rewrite it with the statements DWF allows"))
        return None

    def stmt_while(self, node: ast.While) -> ir.Stmt:
        test = self.expr(node.test)
        self.loop_depth += 1
        try:
            body = self.lower_suite(node.body, "loop")
        finally:
            self.loop_depth -= 1
        orelse = self.lower_suite(node.orelse, "branch") if node.orelse else ()
        return ir.While(self.span(node), test, body, orelse)

    def stmt_try(self, node: ast.Try) -> ir.Stmt:
        body = self.lower_suite(node.body, "try")
        handlers = []
        for handler in node.handlers:
            self.in_except_type = True
            try:
                kind = self.expr(handler.type) if handler.type is not None else None
            finally:
                self.in_except_type = False
            handlers.append(ir.ExceptHandler(self.span(handler), kind, handler.name, self.lower_suite(handler.body, "branch")))
        orelse = self.lower_suite(node.orelse, "branch") if node.orelse else ()
        finalbody = self.lower_suite(node.finalbody, "try") if node.finalbody else ()
        return ir.Try(self.span(node), body, tuple(handlers), orelse, finalbody)

    def stmt_return(self, node: ast.Return) -> ir.Stmt:
        value = self.expr(node.value) if node.value is not None else None
        if value is not None and self.scope.kind == "module":
            what = non_json_description(value, self)
            if what:
                self.report(E.ReportNotJson, node.value, what=what, action="returned from the workflow", help=non_json_help(what))
        return ir.Return(self.span(node), value)

    def stmt_raise(self, node: ast.Raise) -> ir.Stmt:
        exc = self.expr(node.exc) if node.exc is not None else None
        cause = self.expr(node.cause) if node.cause is not None else None
        return ir.Raise(self.span(node), exc, cause)

    def stmt_assert(self, node: ast.Assert) -> ir.Stmt:
        msg = self.expr(node.msg) if node.msg is not None else None
        return ir.Assert(self.span(node), self.expr(node.test), msg)

    def stmt_del(self, node: ast.Delete) -> ir.Stmt:
        items = node.targets
        if len(items) == 1 and isinstance(items[0], (ast.Tuple, ast.List)):
            items = items[0].elts  # `del (a, b)` deletes each, as `del a, b` does
        lowered = []
        for item in items:
            if isinstance(item, ast.Name):
                lowered.append(self.target(item))
            elif isinstance(item, ast.Subscript):
                self._check_args_mutation(item)
                lowered.append(self.expr(item))
            else:
                self.report(X.InvalidDeleteTarget, item)
        return ir.Delete(self.span(node), tuple(lowered))

    def stmt_simple(self, node: ast.stmt) -> ir.Stmt:
        return SIMPLE_STATEMENTS[type(node)](self.span(node))

    # ------------------------------------------------------------ imports

    def stmt_import(self, node: ast.Import) -> ir.Stmt | None:
        span = self.span(node)
        if not self.at_top_level:
            self.report(X.NotTopLevel, node, what="Imports")
        result = None
        for alias in node.names:
            module = alias.name
            root = module.split(".")[0]
            bound = alias.asname or root
            if module in B.MODULES:
                result = ir.Import(span, module, bound)
                if len(node.names) > 1:
                    result = None  # handled below as several statements is not possible; keep first
            else:
                self._report_bad_module(self._alias_name_span(alias), module)
        if len(node.names) > 1:
            self.report(N.ImportNotAllowed, self._alias_name_span(node.names[1]), detail="Import one module per statement",
                        help=f"write {' and '.join(f'`import {a.name}`' for a in node.names)} on separate lines")
        return result

    def _alias_name_span(self, alias: ast.alias) -> Span:
        """The dotted name of an import alias, without its `as ...`."""
        span = self.span(alias)
        if alias.asname is None:
            return span
        tokens = self.positions.tokens_between((span.line, span.column - 1), (span.end_line, span.end_column - 1))
        names = tokens[:next((i for i, t in enumerate(tokens) if t.text == "as"), len(tokens))]
        return Span(span.line, span.column, names[-1].end[0], names[-1].end[1] + 1) if names else span

    def _module_span(self, node: ast.ImportFrom) -> Span:
        """The module of a `from ... import`, from after `from` (and its dots) to `import`."""
        span = self.span(node)
        tokens = self.positions.tokens_between((span.line, span.column - 1), (span.end_line, span.end_column - 1))
        names = []
        for tok in tokens[1:]:
            if tok.text == "import":
                break
            if tok.text not in (".", "..."):
                names.append(tok)
        if not names:
            return span
        return Span(names[0].start[0], names[0].start[1] + 1, names[-1].end[0], names[-1].end[1] + 1)

    def _report_bad_module(self, node: ast.AST | Span, module: str) -> None:
        if module in B.REFUSED_MODULE_MEMBERS:
            self.report(N.ModuleMemberRefused, node, name=module, hint=B.REFUSED_MODULE_MEMBERS[module])
            return
        rule, fields = module_problem(module)
        self.report(rule, node, **fields)

    def stmt_import_from(self, node: ast.ImportFrom) -> ir.Stmt | None:
        if not self.at_top_level:
            self.report(X.NotTopLevel, node, what="Imports")
        if node.level:
            span = self.span(node)
            dot = next((t for t in self.positions.tokens_between((span.line, span.column - 1), (span.end_line, span.end_column))
                        if t.text in (".", "...")), None)
            where = Span(dot.start[0], dot.start[1] + 1, dot.start[0], dot.start[1] + 2) if dot is not None else span
            self.report(X.UnsupportedStatement, where,
                        construct="relative import",
                        hint=f"a DWF script is self-contained; only {IMPORTABLE} can be imported")
            return None
        module = node.module or ""
        if node.names[0].name == "*":
            self.report(X.UnsupportedStatement, node.names[0], construct="import *",
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
            self._report_bad_module(self._module_span(node), module)
            return None
        members = []
        for alias in node.names:
            name = alias.name
            if name in allowed:
                bound = alias.asname or name
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

    def stmt_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ir.Stmt:
        span = self.span(node)
        for decorator in node.decorator_list:
            self.report(X.Decorator, self.positions.decorator_span(decorator))
        name = node.name
        is_async = isinstance(node, ast.AsyncFunctionDef)
        self._check_name(name, self._def_name_span(node))
        scope_of_name = ir.GLOBAL if self.scope.kind == "module" else ir.LOCAL
        function_scope = Scope("function", self.scope, is_async=is_async, function=name)
        params = self.params(node.args, function_scope)
        collect(function_scope, node.body, self._walrus_possible)
        self._check_meta_bindings(function_scope)
        outer_scope, outer_phase, outer_loop, outer_blocks = self.scope, self.phase, self.loop_depth, self.block_kinds
        self.scope, self.phase, self.loop_depth, self.block_kinds = function_scope, None, 0, ["function"]
        self.function_stack.append(name)
        try:
            body = self.lower_block(node.body)
        finally:
            self.function_stack.pop()
            self.scope, self.phase, self.loop_depth, self.block_kinds = outer_scope, outer_phase, outer_loop, outer_blocks
        return ir.FunctionDef(span, name, params, body, is_async,
                              tuple(sorted(function_scope.bindings)), scope_of_name)

    def params(self, parameters: ast.arguments, scope: Scope) -> tuple[ir.Param, ...]:
        """The parameters in source order: positional-only, plain, `*args`, keyword-only,
        `**kwargs` (a bare `*` has no parameter of its own). Defaults are lowered here, in the
        enclosing scope, where they are evaluated: once, when the `def` or `lambda` runs."""
        positional = [*parameters.posonlyargs, *parameters.args]
        # `defaults` belong to the last positional parameters; `kw_defaults` pair with kwonly ones.
        padded = [None] * (len(positional) - len(parameters.defaults)) + list(parameters.defaults)
        nodes: list[tuple[ast.arg, str, ast.expr | None]] = [
            (p, "posonly", d) for p, d in zip(parameters.posonlyargs, padded)]
        nodes += [(p, "plain", d) for p, d in zip(parameters.args, padded[len(parameters.posonlyargs):])]
        if parameters.vararg is not None:
            nodes.append((parameters.vararg, "star", None))
        nodes += [(p, "kwonly", d) for p, d in zip(parameters.kwonlyargs, parameters.kw_defaults)]
        if parameters.kwarg is not None:
            nodes.append((parameters.kwarg, "double_star", None))
        defaults = [self.expr(default) if default is not None else None for _, _, default in nodes]
        out: list[ir.Param] = []
        seen: set[str] = set()
        for (param, kind, _), default in zip(nodes, defaults):
            name = param.arg
            name_span = self.positions.param_span(param)
            self._check_name(name, name_span)
            if name in seen:
                self.report(X.UnsupportedParameter, name_span, detail=f"The parameter `{name}` is declared twice",
                            help="give each parameter its own name")
            seen.add(name)
            scope.bind(name, Binding("param", param))
            out.append(ir.Param(self.positions.param_span(param, star=kind in ("star", "double_star")), name, default, kind))
        return tuple(out)

    def _def_name_span(self, node: ast.AST) -> Span:
        """The name a `def` or `class` declares."""
        span = self.span(node)
        tokens = self.positions.tokens_between((span.line, span.column - 1), (span.end_line, span.end_column - 1))
        for index, tok in enumerate(tokens[:-1]):
            if tok.text in ("def", "class"):
                return self.positions.token_span(tokens[index + 1])
        return span

    def stmt_class(self, node: ast.ClassDef) -> ir.Stmt | None:
        name = node.name
        for decorator in node.decorator_list:
            self.report(X.Decorator, self.positions.decorator_span(decorator))
        if any(dotted_name(base).split(".")[-1] == "NamedTuple" for base in node.bases if not isinstance(base, ast.Starred)):
            fields = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                      and self._first_on_line(s)]
            self.report(N.NamedTupleClass, self._head_span(node), name=name,
                        fields=", ".join(f'"{f}"' for f in fields) or '"x", "y"')
            return None
        if node.name in self.typeddicts and self.typeddicts[name] is node:
            if not self.at_top_level:
                self.report(X.NotTopLevel, self._head_span(node), what="TypedDict declarations")
            return None
        if self._is_typeddict(node):
            self.report(X.NotTopLevel, self._head_span(node), what="TypedDict declarations")
            return None
        if self.exception_classes.get(name) is node or self.is_exception_like(node):
            return self.lower_exception_class(node)
        for base in node.bases:
            if isinstance(base, ast.Name) and self._resolve(base.id) == ir.UNDEFINED:
                self._report_undefined(base, base.id)
                if base.id == "TypedDict":
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

    def stmt_global(self, node: ast.stmt) -> None:
        return self.lower_statement_unsupported(node, "global" if isinstance(node, ast.Global) else "nonlocal")

    def _first_on_line(self, statement: ast.stmt) -> bool:
        """Whether a statement is the first of its line (libcst read `a: int; b: str` as one line)."""
        before = self.positions.token_before(self.positions.raw_start(statement))
        return before is None or before.text != ";"

    # ------------------------------------------------------------ targets

    def target(self, node: ast.expr) -> ir.Expr:
        span = self.span(node)
        if isinstance(node, ast.Name):
            self._check_name(node.id, node)
            return ir.Name(span, node.id, self._resolve(node.id))
        if isinstance(node, (ast.Tuple, ast.List)):
            elts = tuple(self.target(e) for e in node.elts)
            return ir.Tuple(span, elts) if isinstance(node, ast.Tuple) else ir.List(span, elts)
        if isinstance(node, ast.Starred):
            return ir.Starred(span, self.target(node.value))
        if isinstance(node, ast.Subscript):
            self._check_args_mutation(node)
            return self.expr(node)
        if isinstance(node, ast.Attribute):
            self.report(X.InvalidAssignmentTarget, node, target=f"the attribute `{self.code(node)}`")
            return ir.Invalid(span, "attribute target")
        self.report(X.InvalidAssignmentTarget, node, target=f"`{self.code(node)}`")
        return ir.Invalid(span, "target")

    def _check_starred_targets(self, target: ast.expr) -> None:
        """A starred target must sit in a tuple or list, at most one per level (as in CPython)."""
        if isinstance(target, ast.Starred):
            self.report(X.InvalidAssignmentTarget, target, target="a starred name outside a tuple or list",
                        help="write `first, *rest = values`")
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = [e for e in target.elts if isinstance(e, ast.Starred)]
            for extra in starred[1:]:
                self.report(X.InvalidAssignmentTarget, extra, target="two starred names in one unpacking",
                            help="use one `*name` per unpacking")
            for element in target.elts:
                inner = element.value if isinstance(element, ast.Starred) else element
                if isinstance(inner, (ast.Tuple, ast.List)):
                    self._check_starred_targets(inner)

    def _check_args_mutation(self, node: ast.Subscript) -> None:
        if isinstance(node.value, ast.Name) and node.value.id == "args" and self._resolve("args") == ir.FACADE:
            self.report(N.ReadOnlyArgs, node)


# ---------------------------------------------------------------- helpers


def assigned_name(node: ast.Assign) -> str | None:
    """The name a plain `name = value` assignment binds."""
    if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    return None


def assigns_meta(node: ast.Assign) -> bool:
    return assigned_name(node) == "meta"


def meta_block(module: ast.Module) -> ast.Assign | None:
    """The meta block: the first top-level `meta = ...`, if any."""
    for statement in module.body:
        if isinstance(statement, ast.Assign) and assigns_meta(statement):
            return statement
    return None


def _is_field_body(node: ast.ClassDef) -> bool:
    """Whether a class body holds only what a TypedDict declaration may: annotated fields,
    strings, `...` and `pass` (the same shape `grammar/dwf.lark` accepts)."""
    for small in node.body:
        if isinstance(small, ast.Pass):
            continue
        if isinstance(small, ast.AnnAssign) and isinstance(small.target, ast.Name):
            continue
        if isinstance(small, ast.Expr) and (is_string(small.value) or is_ellipsis(small.value)):
            continue
        return False
    return True


STATEMENT_HANDLERS: dict[type, Callable] = {
    ast.Expr: StatementLowering.stmt_expr,
    ast.Assign: StatementLowering.stmt_assign,
    ast.AnnAssign: StatementLowering.stmt_ann_assign,
    ast.AugAssign: StatementLowering.stmt_aug_assign,
    ast.If: StatementLowering.stmt_if,
    ast.For: StatementLowering.stmt_for,
    ast.AsyncFor: StatementLowering.stmt_for,
    ast.While: StatementLowering.stmt_while,
    ast.Try: StatementLowering.stmt_try,
    ast.Return: StatementLowering.stmt_return,
    ast.Raise: StatementLowering.stmt_raise,
    ast.Assert: StatementLowering.stmt_assert,
    ast.Delete: StatementLowering.stmt_del,
    ast.Pass: StatementLowering.stmt_simple,
    ast.Break: StatementLowering.stmt_simple,
    ast.Continue: StatementLowering.stmt_simple,
    ast.Import: StatementLowering.stmt_import,
    ast.ImportFrom: StatementLowering.stmt_import_from,
    ast.FunctionDef: StatementLowering.stmt_function,
    ast.AsyncFunctionDef: StatementLowering.stmt_function,
    ast.ClassDef: StatementLowering.stmt_class,
    ast.Global: StatementLowering.stmt_global,
    ast.Nonlocal: StatementLowering.stmt_global,
}
