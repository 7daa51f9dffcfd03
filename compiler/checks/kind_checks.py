"""This module defines the checks that use kinds (`compiler.checks.kind_inference`), one walk over the
IR after lowering: a value whose kind the compiler knows is used in a way that fails at run
time, and the help says what to write instead.

- `DWF328` an awaitable used as a value (attribute, subscript, iteration, argument of a builtin,
  a module function or a facade call, condition, operand, f-string field);
- `DWF213` an attribute that is not a method on a dict or JSON data (`r.verdict` on an ask
  result: `r["verdict"]`);
- `DWF207` an attribute a str, list, dict, set, tuple, int, float, record or actor does not
  have, with the name models reach for (`MISTAKEN_ATTRIBUTES`) or a close match;
- `DWF214` a subscript of a record or an actor;
- `DWF212` a call of a script function whose arguments do not fit its parameters;
- `DWF215` a read of a literal key a TypedDict result does not declare (`r["score"]`,
  `r.get("score")`): its schema is closed, so the key is never there;
- `DWF329` a `world.run` argument whose kind is known and is not `str`.

A check fires only when every alternative of the kind fails, so a value of unknown kind is
never reported. Code that handles the very error a check predicts, inside `try:` with an
`except AttributeError` (or `TypeError`) that names it, is left alone: it is deliberate.
"""

from __future__ import annotations

import difflib

from dwf.grammar import builtins as B

from dwf.compiler import ir
from dwf.compiler.checks import kinds as K
from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.checks.kind_inference import KindInference, ScopeInfo, children
from dwf.compiler.checks.kinds import Kind
from dwf.compiler.checks.not_offered import (attribute_hint, command_argument_hint, receiver_name, record_subscript_hint,
                          result_description, result_key_hint, subscript_hint)
from dwf.compiler.rules import effects as E
from dwf.compiler.rules import names as N
from dwf.compiler.source import SourceFile, Span

JOINS = frozenset({"parallel", "gather", "pipeline"})
TEXT_LIMIT = 48
# What each check's failure raises at run time, for the `except` clauses that expect it.
RAISES = {"DWF207": "AttributeError", "DWF213": "AttributeError", "DWF212": "TypeError", "DWF214": "TypeError",
          "DWF215": "KeyError", "DWF329": "TypeError"}


def check_kinds(body: tuple[ir.Stmt, ...], schemas: dict, arg_types: dict[str, str] | None,
                source: SourceFile, sink: DiagnosticSink, typeddicts: dict[str, dict] | None = None) -> None:
    """`typeddicts`: the canonical schema of each TypedDict, to name the TypedDict of a result."""
    KindChecks(KindInference(body, schemas, arg_types, typeddicts), source, sink).run(body)


def node_text(source: SourceFile, node) -> str:
    """The source text of a node, on one line, shortened for a message."""
    span = node.span
    lines = source.lines[span.line - 1: span.end_line]
    if not lines:
        return "..."
    if len(lines) == 1:
        text = lines[0][span.column - 1: span.end_column - 1]
    else:
        text = " ".join([lines[0][span.column - 1:].strip(), *(l.strip() for l in lines[1:-1]),
                         lines[-1][: span.end_column - 1].strip()])
    if len(text) > TEXT_LIMIT:
        if type(node) in (ir.FacadeCall, ir.Call) and "(" in text:
            return text[: text.index("(")] + "(...)"
        return text[: TEXT_LIMIT - 3] + "..."
    return text


class KindChecks:
    """The walk; see the module docstring."""

    def __init__(self, inference: KindInference, source: SourceFile, sink: DiagnosticSink):
        self.inference = inference
        self.source = source
        self.sink = sink
        self.caught: list[frozenset[str]] = [frozenset()]  # exception names the enclosing `try`s expect

    def run(self, body) -> None:
        self.block(body, self.inference.module)

    # ------------------------------------------------------------ reporting

    def report(self, rule, span: Span, **fields) -> None:
        if RAISES.get(rule.code) in self.caught[-1]:
            return
        self.sink.report(rule, span, **fields)

    def text(self, node) -> str:
        return node_text(self.source, node)

    # ------------------------------------------------------------ statements

    def block(self, body, scope: ScopeInfo) -> None:
        for stmt in body:
            self.stmt(stmt, scope)

    def stmt(self, stmt, scope: ScopeInfo) -> None:
        kind = type(stmt)
        if kind is ir.FunctionDef:
            for param in stmt.params:
                if param.default is not None:
                    self.expr(param.default, scope)
            inner = self.inference.scope_of(stmt)
            if inner is None:
                return
            self.caught.append(frozenset())
            try:
                self.block(stmt.body, inner)
            finally:
                self.caught.pop()
            return
        if kind is ir.Try:
            expected = frozenset(name for handler in stmt.handlers for name in _handled(handler.type))
            self.caught.append(self.caught[-1] | expected)
            try:
                self.block(stmt.body, scope)
            finally:
                self.caught.pop()
            for handler in stmt.handlers:
                if handler.type is not None:
                    self.expr(handler.type, scope)
                self.block(handler.body, scope)
            self.block(stmt.orelse, scope)
            self.block(stmt.finalbody, scope)
            return
        if kind in (ir.If, ir.While):
            self.need_value(stmt.test, scope, "before it is tested")
        elif kind is ir.Assert:
            self.need_value(stmt.test, scope, "before it is tested")
        elif kind is ir.For:
            self.need_value(stmt.iter, scope, "before it is iterated")
        elif kind is ir.Assign and any(type(t) in (ir.Tuple, ir.List) for t in stmt.targets):
            self.need_value(stmt.value, scope, "before it is unpacked")
        elif kind is ir.AugAssign:
            self.need_value(stmt.value, scope, f"before it is used with `{stmt.op}=`")
        for child in children(stmt):
            if isinstance(child, ir.Stmt.__args__):
                self.stmt(child, scope)
            else:
                self.expr(child, scope)

    # ------------------------------------------------------------ expressions

    def expr(self, node, scope: ScopeInfo, called: bool = False) -> None:
        kind = type(node)
        if kind is ir.Attribute:
            self.attribute(node, scope, called)
            self.expr(node.value, scope)
            return
        if kind is ir.Subscript:
            self.subscript(node, scope)
        elif kind is ir.Call:
            self.call(node, scope)
            self.expr(node.func, scope, called=True)
            for part in (*node.args, *node.keywords):
                self.expr(part, scope)
            return
        elif kind is ir.FacadeCall:
            self.facade_call(node, scope)
        elif kind is ir.BinOp:
            for operand in (node.left, node.right):
                self.need_value(operand, scope, f"before it is used with `{node.op}`")
        elif kind is ir.Compare:
            operands = (node.left, *node.comparators)
            for index, operand in enumerate(operands):
                ops = node.ops[max(0, index - 1): index + 1]
                if not all(op in ("is", "is not") for op in ops):
                    self.need_value(operand, scope, "before it is compared")
        elif kind is ir.UnaryOp:
            self.need_value(node.operand, scope, "before it is tested" if node.op == "not" else f"before it is used with `{node.op}`")
        elif kind is ir.BoolOp:
            for value in node.values:
                self.need_value(value, scope, "before it is tested")
        elif kind is ir.IfExp:
            self.need_value(node.test, scope, "before it is tested")
        elif kind is ir.FormattedValue:
            self.need_value(node.value, scope, "before it is formatted")
        elif kind is ir.Lambda:
            inner = self.inference.scope_of(node)
            if inner is None:
                return
            for param in node.params:
                if param.default is not None:
                    self.expr(param.default, scope)
            self.caught.append(frozenset())
            try:
                self.expr(node.body, inner)
            finally:
                self.caught.pop()
            return
        elif kind in (ir.ListComp, ir.SetComp, ir.GeneratorExp, ir.DictComp):
            self.comprehension(node, scope)
            return
        for child in children(node):
            self.expr(child, scope)

    def comprehension(self, node, scope: ScopeInfo) -> None:
        inner = self.inference.scope_of(node)
        if inner is None:
            return
        for index, generator in enumerate(node.generators):
            where = scope if index == 0 else inner
            if not self._is_async_for(generator):  # `async for` is `DWF101` already
                self.need_value(generator.iter, where, "before it is iterated")
            self.expr(generator.iter, where)
            self.expr(generator.target, inner)
            for condition in generator.ifs:
                self.need_value(condition, inner, "before it is tested")
                self.expr(condition, inner)
        for part in ((node.key, node.value) if type(node) is ir.DictComp else (node.elt,)):
            self.expr(part, inner)

    def _is_async_for(self, generator: ir.Comprehension) -> bool:
        span = generator.span
        return self.source.line_text(span.line)[span.column - 1:].lstrip().startswith("async")

    # ------------------------------------------------------------ awaitables

    def awaited_kind(self, node, scope: ScopeInfo) -> Kind | None:
        """The kind of `node` when every alternative of it is an awaitable, else None."""
        kind = self.inference.kind(node, scope)
        if kind is not None and all(k.name == "awaitable" for k in K.alternatives(kind)):
            return kind
        return None

    def need_value(self, node, scope: ScopeInfo, use: str) -> None:
        if node is None or type(node) is ir.Starred:
            if node is not None:
                self.need_value(node.value, scope, "before it is unpacked")
            return
        if self.awaited_kind(node, scope) is not None:
            self.missing_await(node, scope, use)

    def missing_await(self, node, scope: ScopeInfo, use: str) -> None:
        text = self.text(node)
        hint = f"add `await`: `(await {text})`"
        if type(node) is ir.Name:
            assigned = self._awaitable_assignment(node, scope)
            if assigned is not None:
                line, value = assigned
                hint = f"add `await` where `{node.id}` is assigned (line {line}): `{node.id} = await {value}`"
        self.report(E.MissingAwait, node.span, text=text, use=use, hint=hint)

    def _awaitable_assignment(self, node: ir.Name, scope: ScopeInfo) -> tuple[int, str] | None:
        binder = scope.binder(node.id, node.scope)
        for binding in (binder.bindings.get(node.id, ()) if binder is not None else ()):
            if binding.how == "value" and binding.path == () and type(binding.expr) in (ir.FacadeCall, ir.Call):
                return binding.expr.span.line, self.text(binding.expr)
        return None

    # ------------------------------------------------------------ attributes

    def attribute(self, node: ir.Attribute, scope: ScopeInfo, called: bool) -> None:
        kind = self.inference.kind(node.value, scope)
        if kind is None:
            return
        problems = [_attribute_problem(k, node.attr, called) for k in K.alternatives(kind)]
        if any(p is None for p in problems):
            return
        problem = next((p for p in problems if p[0] != "None"), None)
        if problem is None:
            return  # always None: the error is the missing value, not the attribute
        what, known = problem
        end = node.span
        attr_span = Span(end.end_line, end.end_column - len(node.attr), end.end_line, end.end_column)
        if what == "await":
            self.missing_await(node.value, scope, f"before `.{node.attr}{'()' if called else ''}`")
        elif what == "data":
            text = self.text(node.value)
            self.report(N.AttributeOnData, attr_span, text=text, what=K.describe(known), attr=node.attr,
                        hint=subscript_hint(text, node.attr, known))
        else:
            self.report(N.AttributeNotAllowed, attr_span, receiver=receiver_name(known), attr=node.attr,
                        hint=attribute_hint(known, node.attr, self.text(node.value)))

    def subscript(self, node: ir.Subscript, scope: ScopeInfo) -> None:
        if self.awaited_kind(node.value, scope) is not None:
            self.missing_await(node.value, scope, "before it is subscripted")
            return
        kind = self.inference.kind(node.value, scope)
        key = node.index.value if type(node.index) is ir.Const and isinstance(node.index.value, str) else None
        if key is not None:
            self.result_key(node.value, key, node.index.span, scope)
        if kind is None or kind.is_union or kind.name not in K.RECORD_KINDS:
            return
        text = self.text(node.value)
        self.report(N.RecordSubscript, node.span, text=text, what=K.describe(kind), hint=record_subscript_hint(kind, key, text))

    def result_key(self, value, key: str, span: Span, scope: ScopeInfo, method: str = "") -> None:
        """`value[key]` (or `value.get(key)`) where `value` is a TypedDict result without `key`.
        Writes need no check: a name that is ever written to is no longer closed."""
        kind = self.inference.kind(value, scope)
        if kind is None or kind.is_union or kind.name != "dict" or not kind.closed or key in kind.field_names():
            return
        self.report(N.UnknownResultKey, span, text=self.text(value), what=result_description(kind), key=key,
                    hint=result_key_hint(kind, key, method))

    # ------------------------------------------------------------ calls

    def call(self, node: ir.Call, scope: ScopeInfo) -> None:
        func = node.func
        if type(func) is ir.Attribute and func.attr == "get" and node.args and type(node.args[0]) is ir.Const \
                and isinstance(node.args[0].value, str):
            # No `KeyError` to catch here: the default is silently returned.
            self.caught.append(frozenset())
            try:
                self.result_key(func.value, node.args[0].value, node.args[0].span, scope, method="get")
            finally:
                self.caught.pop()
        if type(func) is ir.Name and func.scope == ir.BUILTIN and func.id != "isinstance":
            self._arguments_need_values(node, scope, f"`{func.id}()`")
        elif type(func) is ir.Attribute and type(func.value) is ir.Name and func.value.scope == ir.MODULE:
            module = self.inference.modules.get(func.value.id, func.value.id)
            self._arguments_need_values(node, scope, f"`{module}.{func.attr}()`")
        else:
            for arg in node.args:
                if type(arg) is ir.Starred:
                    self.need_value(arg.value, scope, "before it is unpacked")
            if type(func) is ir.Name and func.scope in (ir.GLOBAL, ir.LOCAL, ir.FREE):
                function = self.inference.function_of(func.id, func.scope, scope)
                if function is not None:
                    self.check_arguments(node, func.id, function.params)

    def _arguments_need_values(self, node, scope: ScopeInfo, callee: str) -> None:
        for arg in node.args:
            if type(arg) is ir.Starred:
                self.need_value(arg.value, scope, "before it is unpacked")
            else:
                self.need_value(arg, scope, f"before it is passed to {callee}")
        for keyword in node.keywords:
            self.need_value(keyword.value, scope, f"before it is passed to {callee}")

    def facade_call(self, node: ir.FacadeCall, scope: ScopeInfo) -> None:
        if node.op in JOINS:
            return
        if node.op == "world.run":
            self.command_arguments(node, scope)
        callee = f"`{node.op}()`"
        for index, arg in enumerate(node.args):
            if node.op == "report" and index == 0 and type(arg) in (ir.FacadeCall, ir.Call):
                continue  # `DWF318` says so already
            self.need_value(arg, scope, f"before it is passed to {callee}")
        for keyword in node.keywords:
            if node.op == "report" and keyword.name == "item" and type(keyword.value) in (ir.FacadeCall, ir.Call):
                continue
            self.need_value(keyword.value, scope, f"before it is passed to {callee}")

    def command_arguments(self, node: ir.FacadeCall, scope: ScopeInfo) -> None:
        """The items of `world.run(cmd, args)`: each one whose kind is known must be a str."""
        given = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.name == "args"), None)
        if given is None:
            return
        if type(given) in (ir.List, ir.Tuple):
            for item in given.elts:
                if type(item) is ir.Starred:
                    self.command_argument(item.value, K.element(self.inference.kind(item.value, scope)), scope, "*")
                else:
                    self.command_argument(item, self.inference.kind(item, scope), scope)
            return
        kind = self.inference.kind(given, scope)
        if kind is not None and not kind.is_union and kind.name in ("list", "tuple"):
            self.command_argument(given, K.element(kind), scope, "[]")

    def command_argument(self, node, kind: Kind | None, scope: ScopeInfo, spread: str = "") -> None:
        """Report `node` (one argument, or a list of them when `spread`: "*" inside the list,
        "[]" for the whole list) when every alternative of `kind` (the argument's, or the
        items') is known and none is a str (JSON data may be one)."""
        if kind is None or any(k.name in ("str", "json") for k in K.alternatives(kind)):
            return
        if kind.name == "awaitable":
            if not spread:
                self.missing_await(node, scope, "before it is passed to `world.run()`")
            return
        text = self.text(node)
        if spread:
            what = "a list of " + " or ".join(f"`{k.name}`" for k in K.alternatives(kind))
            self.report(E.CommandArgumentNotStr, node.span, text=text, what=what,
                        hint=f"convert each item: `{'*' if spread == '*' else ''}[str(a) for a in {text}]`")
            return
        literal = node.value if type(node) is ir.Const else None
        self.report(E.CommandArgumentNotStr, node.span, text=text, what=K.describe(kind),
                    hint=command_argument_hint(kind, text, literal))

    def check_arguments(self, node: ir.Call, name: str, params: tuple[ir.Param, ...]) -> None:
        """A call of a script function against its parameters; the first problem is reported."""
        if any(p.kind not in ("posonly", "plain", "kwonly", "star", "double_star") for p in params):
            return  # a parameter kind this check does not know
        positional = [p for p in params if p.kind in ("posonly", "plain")]
        by_keyword = {p.name for p in params if p.kind in ("plain", "kwonly")}
        has_star = any(p.kind == "star" for p in params)
        has_double_star = any(p.kind == "double_star" for p in params)
        unpacked = any(type(a) is ir.Starred for a in node.args) or any(k.name is None for k in node.keywords)
        given_args = [a for a in node.args if type(a) is not ir.Starred]
        signature = _signature(name, params)
        if not has_star and not any(type(a) is ir.Starred for a in node.args) and len(given_args) > len(positional):
            count = len(positional)
            problem = f"takes at most {count} positional argument{'s' if count != 1 else ''} but {len(given_args)} were given"
            self.report(N.CallArguments, given_args[count].span, name=name, problem=problem, signature=signature)
            return
        filled = {p.name for p in positional[: len(given_args)]} if not any(type(a) is ir.Starred for a in node.args) else set()
        for keyword in node.keywords:
            if keyword.name is None:
                continue
            if keyword.name not in by_keyword and not has_double_star:
                close = difflib.get_close_matches(keyword.name, sorted(by_keyword), n=1)
                problem = f"got an unexpected keyword argument `{keyword.name}`" + (f"; did you mean `{close[0]}`?" if close else "")
                if keyword.name in {p.name for p in params if p.kind == "posonly"}:
                    problem = f"takes `{keyword.name}` by position only"
                self.report(N.CallArguments, _keyword_span(keyword), name=name, problem=problem, signature=signature)
                return
            if keyword.name not in by_keyword:
                continue  # a positional-only name given by keyword goes to `**kwargs`
            if keyword.name in filled:
                self.report(N.CallArguments, _keyword_span(keyword), name=name,
                            problem=f"got multiple values for argument `{keyword.name}`", signature=signature)
                return
            filled.add(keyword.name)
        if unpacked:
            return
        missing = [p.name for p in params if p.kind in ("posonly", "plain", "kwonly") and p.default is None
                   and p.name not in filled]
        if missing:
            self.report(N.CallArguments, node.span, name=name, problem=f"is missing the required argument `{missing[0]}`",
                        signature=signature)


# ---------------------------------------------------------------- helpers


def _handled(node) -> list[str]:
    if type(node) is ir.Name:
        return [node.id]
    if type(node) is ir.Tuple:
        return [n for e in node.elts for n in _handled(e)]
    return []


def _keyword_span(keyword: ir.Keyword) -> Span:
    start = keyword.span
    return Span(start.line, start.column, start.line, start.column + len(keyword.name or ""))


def _signature(name: str, params: tuple[ir.Param, ...]) -> str:
    parts: list[str] = []
    for index, param in enumerate(params):
        if param.kind == "kwonly" and not any(p.kind in ("star", "kwonly") for p in params[:index]):
            parts.append("*")
        text = {"star": f"*{param.name}", "double_star": f"**{param.name}"}.get(param.kind, param.name)
        parts.append(text + ("=..." if param.default is not None else ""))
        if param.kind == "posonly" and (index + 1 == len(params) or params[index + 1].kind != "posonly"):
            parts.append("/")
    return f"{name}({', '.join(parts)})"


def _attribute_problem(kind: Kind, attr: str, called: bool) -> tuple[str, Kind] | None:
    """Why `attr` fails on a value of `kind`: ("await" | "data" | "attribute", kind), "None"
    for None, or None when it may work."""
    if kind.name == "None":
        return ("None", kind)
    if kind.name == "awaitable":
        return ("await", kind)
    names = K.attribute_names(kind)
    if names is None or attr in names:
        return None
    if kind.name in ("dict", "json"):
        if attr in kind.field_names() or not (called or attr in B.MISTAKEN_ATTRIBUTES["dict"]):
            return ("data", kind)
    return ("attribute", kind)
