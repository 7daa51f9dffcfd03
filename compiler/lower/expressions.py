"""This module defines expression lowering: `ExpressionLowering`, the part of `Lowerer` that
turns expressions into IR (names, literals and f-strings, attributes and subscripts with their
static checks, operators, lambdas, displays, comprehensions and calls) and rejects expressions
outside the subset (`DWF102`), through `EXPRESSION_HANDLERS`, the table from libcst expression
classes to lowering methods. A call that denotes a facade member is handed to
`FacadeLowering.facade_call` (`compiler.lower.facade`).

It is a mixin without state of its own: lowering is one walk, and `Lowerer` (`compiler.lower.lowerer`)
defines the walk's state (scope, phase, loop depth, facts, sites).
"""

from __future__ import annotations

import difflib
import re
from typing import Callable

import libcst as cst
from libcst.metadata import CodePosition

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from dwf.compiler import ir
from dwf.compiler.lower.literals import decode_fstring_text, has_fstring, literal_string
from dwf.compiler.lower.statements import STATEMENT_HINTS
from dwf.compiler.checks.regex_checks import check_regex_call
from dwf.compiler.rules import effects as E
from dwf.compiler.rules import meta as M
from dwf.compiler.rules import names as N
from dwf.compiler.rules import syntax as X
from dwf.compiler.lower.scopes import IMPORT_MODULE, Scope, bind_targets, collect
from dwf.compiler.lower.state import LoweringState
from dwf.compiler.source import Span

BINARY_OPS = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
    cst.Modulo: "%", cst.Power: "**", cst.LeftShift: "<<", cst.RightShift: ">>",
    cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^",
}
UNARY_OPS = {cst.Minus: "-", cst.Plus: "+", cst.Not: "not", cst.BitInvert: "~"}
COMPARE_OPS = {
    cst.Equal: "==", cst.NotEqual: "!=", cst.LessThan: "<", cst.LessThanEqual: "<=",
    cst.GreaterThan: ">", cst.GreaterThanEqual: ">=", cst.In: "in", cst.NotIn: "not in",
    cst.Is: "is", cst.IsNot: "is not",
}
# The builtin types whose methods a script may reference as functions (`key=str.lower`), in
# the order hints list them.
TYPES_WITH_METHODS = ("str", "list", "dict", "set", "frozenset", "tuple", "int", "float", "range", "slice")
UNSUPPORTED_EXPRESSIONS = {
    cst.Yield: ("`yield` (generators)", "build and return a list instead"),
    cst.Ellipsis: ("`...` as a value", "use `None`"),
}


class ExpressionLowering(LoweringState):
    """Lowers expressions; see the module docstring."""

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
        elif scope == ir.BUILTIN and value in B.EXCEPT_ONLY_TYPES and not self.in_except_type:
            self.report(X.BaseExceptionOutsideExcept, node)
        return ir.Name(span, value, scope)

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
                if part.equal is not None:
                    # `f"{x = }"` shows the expression's source text as written, `=` and
                    # whitespace included, then `repr` unless a conversion or a spec is given
                    # (with a spec and no conversion CPython formats the value itself).
                    out.append(self._self_documenting_text(part))
                    if conversion is None and part.format_spec is None:
                        conversion = "r"
                if part.format_spec is not None:
                    spec = ir.FString(self.span(part), tuple(_merge_text(self._fstring_content(part.format_spec, prefix, quote))))
                out.append(ir.FormattedValue(self.span(part), self.expr(part.expression), conversion, spec))
        return out

    def _self_documenting_text(self, part: cst.FormattedStringExpression) -> str:
        """CPython's text for `{expr=}`: the source from after `{` through `=` and the
        whitespace after it, exactly as written (generated code would lose line indentation)."""
        source = self.parsed.source
        end = self.positions[part.equal].end
        after = _PYTHON_SPACES.match(source.text, source.line_offsets[end.line - 1] + end.column).end() - \
            source.line_offsets[end.line - 1]
        return source.text_between(self.positions[part].start, CodePosition(end.line, after))[1:]

    def attribute(self, node: cst.Attribute) -> ir.Expr:
        span = self.span(node)
        attr = node.attr.value
        if attr == "__name__" and self._is_type_call(node.value):
            return ir.TypeName(span, self.expr(node.value.args[0].value))
        if attr.startswith("__") or attr in B.FORBIDDEN_METHODS:
            self.expr(node.value)  # the receiver is checked too: `x.__class__.__base__` has two dunders
            if attr.startswith("__"):
                if attr in ("__class__", "__name__", "__qualname__"):
                    self.report(N.DunderName, node.attr, name=attr, help="write `type(value).__name__` for the name of "
                                "a value's type; it is the one use of `type()` and of a dunder DWF allows")
                else:
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
        if attr in B.DICT_MUTATING_METHODS and isinstance(node.value, cst.Name) and node.value.value == "args" \
                and self._resolve("args") == ir.FACADE:
            self.report(N.ReadOnlyArgs, node.attr)
        if attr == "ask":
            self.report(E.FacadeAsValue, node, name=f"{self.code(node.value)}.ask")
        value = self.expr(node.value)
        self._check_static_attribute(node, value, attr)
        return ir.Attribute(span, value, attr)

    def _is_type_call(self, node: cst.BaseExpression) -> bool:
        """`type(<one positional argument>)` with `type` not bound by the script."""
        return (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "type"
                and self._resolve("type") == ir.UNDEFINED and len(node.args) == 1
                and node.args[0].keyword is None and not node.args[0].star)

    def _check_static_attribute(self, node: cst.Attribute, value: ir.Expr, attr: str) -> None:
        """The members of imported modules and of builtin types (`str.lower`). Attributes of
        values of known kinds are checked after lowering, by `compiler.checks.kind_checks`."""
        if isinstance(value, ir.Name) and value.scope == ir.MODULE:
            module = self._module_of(value.id)
            allowed = B.MODULES.get(module, ())
            if f"{module}.{attr}" in B.REFUSED_MODULE_MEMBERS:
                self.report(N.ModuleMemberRefused, node.attr, name=f"{module}.{attr}",
                            hint=B.REFUSED_MODULE_MEMBERS[f"{module}.{attr}"])
            elif attr not in allowed:
                close = difflib.get_close_matches(attr, allowed, n=1)
                hint = f"did you mean `{module}.{close[0]}`?" if close else f"`{module}` offers: {', '.join(allowed)}"
                self.report(N.AttributeNotAllowed, node.attr, receiver=module, attr=attr, hint=hint)
            return
        if isinstance(value, ir.Name) and value.scope == ir.BUILTIN and value.id in B.BUILTIN_FUNCTIONS:
            self._check_type_method(node, value.id, attr)

    def _check_type_method(self, node: cst.Attribute, builtin: str, attr: str) -> None:
        """`str.lower`, `list.sort`, `dict.fromkeys`: a method referenced through its type is a
        function value; anything else on a builtin is refused here rather than at run time."""
        methods = B.METHODS.get(builtin) if builtin in TYPES_WITH_METHODS else None
        if methods is None:
            typed = ", ".join(f"`{kind}`" for kind in TYPES_WITH_METHODS)
            hint = f"`{builtin}` is a function with no attributes; methods can be referenced through the types {typed}"
        elif attr in B.VALUE_ATTRIBUTES and attr in methods:
            hint = f"`{attr}` is an attribute of each `{builtin}` value, not a method: write `value.{attr}` (or `lambda v: v.{attr}`)"
        elif attr not in methods:
            close = difflib.get_close_matches(attr, methods, n=1)
            hint = f"did you mean `{builtin}.{close[0]}`?" if close else f"`{builtin}` offers: {', '.join(methods)}"
        else:
            return
        self.report(N.AttributeNotAllowed, node.attr, receiver=builtin, attr=attr, hint=hint)

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
        typeddict = self._constructed_typeddict(node.func)
        if typeddict is not None:
            return self.typeddict_call(node, typeddict)
        func = self.expr(node.func)
        args, keywords = self.arguments(node.args)
        call = ir.Call(self.span(node), func, args, keywords)
        check_regex_call(call, self._module_of, self.report)
        return call

    # ------------------------------------------------------------ TypedDict constructors

    def _constructed_typeddict(self, func: cst.BaseExpression) -> str | None:
        """The TypedDict a call's callee names (directly or through a type alias), if any."""
        seen: set[str] = set()
        while isinstance(func, cst.Name) and func.value not in seen and self._resolve(func.value) == ir.TYPE:
            seen.add(func.value)
            if func.value in self.typeddicts:
                return func.value
            bindings = self.scope.module().bindings.get(func.value, ())
            if func.value not in self.type_aliases or len(bindings) != 1:
                return None
            func = bindings[0].value
        return None

    def typeddict_call(self, node: cst.Call, typeddict: str) -> ir.Expr:
        """`Issue(file=p, line=3)` is `dict(file=p, line=3)`, exactly as in CPython (a TypedDict
        called is a plain dict; nothing is checked at run time). At check time, a keyword or a
        literal key that is no declared field is DWF327."""
        fields = self._typeddict_fields(typeddict, set())
        keys: list[tuple[str, cst.CSTNode]] = [(a.keyword.value, a.keyword) for a in node.args if a.keyword is not None]
        if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star \
                and isinstance(node.args[0].value, cst.Dict):
            for element in node.args[0].value.elements:
                key = literal_string(element.key) if isinstance(element, cst.DictElement) else None
                if isinstance(key, str):
                    keys.append((key, element.key))
        for key, where in keys:
            if key not in fields:
                close = difflib.get_close_matches(key, fields, n=1)
                hint = (f"did you mean `{close[0]}`?" if close else
                        f"`{typeddict}` declares: {', '.join(f'`{f}`' for f in fields) or 'no fields'}")
                self.report(E.UnknownTypedDictField, where, typeddict=typeddict, field=key, hint=hint)
        self._note_load(node.func.value, ir.TYPE)
        args, keywords = self.arguments(node.args)
        return ir.Call(self.span(node), ir.Name(self.span(node.func), "dict", ir.BUILTIN), args, keywords)

    def _typeddict_fields(self, name: str, seen: set[str]) -> list[str]:
        """The field names of a TypedDict, its bases' first (as the schema orders them)."""
        node = self.typeddicts.get(name)
        if node is None or name in seen:
            return []
        seen.add(name)
        fields: list[str] = []
        for base in node.bases:
            if base.keyword is None and isinstance(base.value, cst.Name):
                fields += [f for f in self._typeddict_fields(base.value.value, seen) if f not in fields]
        for statement in node.body.body:
            for small in getattr(statement, "body", ()):
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                        and small.target.value not in fields:
                    fields.append(small.target.value)
        return fields

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


# ---------------------------------------------------------------- helpers


_PYTHON_SPACES = re.compile(r"[ \t\n\r\x0b\x0c]*")  # what CPython skips after `=` in `{x = }`


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


EXPRESSION_HANDLERS: dict[type, Callable] = {
    cst.Name: ExpressionLowering.name,
    cst.Integer: ExpressionLowering.const_number,
    cst.Float: ExpressionLowering.const_number,
    cst.Imaginary: ExpressionLowering.imaginary,
    cst.SimpleString: ExpressionLowering.string,
    cst.ConcatenatedString: ExpressionLowering.string,
    cst.FormattedString: ExpressionLowering.string,
    cst.Attribute: ExpressionLowering.attribute,
    cst.Subscript: ExpressionLowering.subscript,
    cst.Call: ExpressionLowering.call,
    cst.BinaryOperation: ExpressionLowering.binary,
    cst.UnaryOperation: ExpressionLowering.unary,
    cst.BooleanOperation: ExpressionLowering.boolean,
    cst.Comparison: ExpressionLowering.comparison,
    cst.IfExp: ExpressionLowering.if_exp,
    cst.Await: ExpressionLowering.await_,
    cst.NamedExpr: ExpressionLowering.named_expr,
    cst.Lambda: ExpressionLowering.lambda_,
    cst.List: ExpressionLowering.collection,
    cst.Tuple: ExpressionLowering.collection,
    cst.Set: ExpressionLowering.collection,
    cst.Dict: ExpressionLowering.dict_,
    cst.ListComp: ExpressionLowering.comprehension,
    cst.SetComp: ExpressionLowering.comprehension,
    cst.GeneratorExp: ExpressionLowering.comprehension,
    cst.DictComp: ExpressionLowering.comprehension,
}
