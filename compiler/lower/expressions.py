"""This module defines expression lowering: `ExpressionLowering`, the part of `Lowerer` that
turns expressions into IR (names, literals and f-strings, attributes and subscripts with their
static checks, operators, lambdas, displays, comprehensions and calls) and rejects expressions
outside the subset (`DWF102`), through `EXPRESSION_HANDLERS`, the table from `ast` expression
classes to lowering methods. A call that denotes a facade member is handed to
`FacadeLowering.facade_call` (`compiler.lower.facade`).

It is a mixin without state of its own: lowering is one walk, and `Lowerer` (`compiler.lower.lowerer`)
defines the walk's state (scope, phase, loop depth, facts, sites).
"""

from __future__ import annotations

import difflib
import re
from typing import Callable

import ast

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from dwf.compiler import ir
from dwf.compiler.lower.arguments import Arg, call_args
from dwf.compiler.lower.literals import decode_fstring_text, has_fstring, is_string, literal_string
from dwf.compiler.lower.statements import STATEMENT_HINTS
from dwf.compiler.checks.regex_checks import check_regex_call
from dwf.compiler.rules import effects as E
from dwf.compiler.rules import meta as M
from dwf.compiler.rules import names as N
from dwf.compiler.rules import syntax as X
from dwf.compiler.lower.scopes import IMPORT_MODULE, Scope, bind_targets, collect
from dwf.compiler.lower.state import LoweringState
from dwf.compiler.source import Span

_SURROGATE = re.compile("[\ud800-\udfff]")  # UTF-16 halves: no UTF-8 encodes one alone

BINARY_OPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}
UNARY_OPS = {ast.USub: "-", ast.UAdd: "+", ast.Not: "not", ast.Invert: "~"}
COMPARE_OPS = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}
# The builtin types whose methods a script may reference as functions (`key=str.lower`), in
# the order hints list them.
TYPES_WITH_METHODS = ("str", "list", "dict", "set", "frozenset", "tuple", "int", "float", "range", "slice")
UNSUPPORTED_EXPRESSIONS = {
    ast.Yield: ("`yield` (generators)", "build and return a list instead"),
    "...": ("`...` as a value", "use `None`"),
}


class ExpressionLowering(LoweringState):
    """Lowers expressions; see the module docstring."""

    # ------------------------------------------------------------ expressions

    def expr(self, node: ast.expr) -> ir.Expr:
        handler = EXPRESSION_HANDLERS.get(type(node))
        if isinstance(node, ast.YieldFrom):
            self.report(X.UnsupportedExpression, node, construct="`yield from` (generators)", hint="build and return a list instead")
            return ir.Invalid(self.span(node), "yield from")
        if handler is None:
            construct, hint = UNSUPPORTED_EXPRESSIONS.get(type(node), (f"The expression `{type(node).__name__}`", "rewrite it with the expressions DWF allows"))
            self.report(X.UnsupportedExpression, node, construct=construct, hint=hint)
            return ir.Invalid(self.span(node), type(node).__name__)
        return handler(self, node)

    def name(self, node: ast.Name) -> ir.Expr:
        span = self.span(node)
        value = node.id
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

    def constant(self, node: ast.Constant) -> ir.Expr:
        value = node.value
        if isinstance(value, (str, bytes)):
            return self.string(node)
        if value is Ellipsis:
            construct, hint = UNSUPPORTED_EXPRESSIONS["..."]
            self.report(X.UnsupportedExpression, node, construct=construct, hint=hint)
            return ir.Invalid(self.span(node), "Ellipsis")
        if isinstance(value, complex):
            self.report(X.UnsupportedExpression, node, construct="A complex number", hint="JSON has no complex numbers; use two floats")
            return ir.Invalid(self.span(node), "imaginary")
        return ir.Const(self.span(node), value)  # None, True, False, int, float

    def string(self, node: ast.Constant | ast.JoinedStr) -> ir.Expr:
        span = self.span(node)
        if has_fstring(node):
            parts = tuple(self._fstring_parts(node))
            texts = [part for part in parts if isinstance(part, str)]
        else:
            if isinstance(node.value, bytes):
                self.report(X.UnsupportedExpression, node, construct="A bytes literal", hint="DWF works with text; use a str literal")
                return ir.Invalid(span, "bytes")
            texts = [node.value]
        for text in texts:
            found = None if text.isascii() else _SURROGATE.search(text)
            if found is not None:  # no UTF-8 for it: it could be neither hashed, journaled nor sent
                self.report(X.LoneSurrogate, node, code=f"{ord(found.group()):04x}")
                return ir.Invalid(span, "surrogate")
        return ir.FString(span, parts) if has_fstring(node) else ir.Const(span, node.value)

    def _fstring_parts(self, node: ast.JoinedStr) -> list:
        out: list = []
        for piece in self.positions.string_pieces(node):
            if piece.parts is None:
                out.append(ast.literal_eval(piece.text))
            else:
                out.extend(_merge_text(self._fstring_content(piece.parts, piece.prefix.replace("f", ""), piece.quote)))
        return _merge_text(out)

    def _fstring_content(self, parts, prefix: str, quote: str) -> list:
        out: list = []
        for part in parts:
            if isinstance(part, str):
                out.append(decode_fstring_text(part, prefix, quote))
            else:
                conversion = part.conversion
                spec = None
                if part.debug_text is not None:
                    # `f"{x = }"` shows the expression's source text as written, `=` and
                    # whitespace included, then `repr` unless a conversion or a spec is given
                    # (with a spec and no conversion CPython formats the value itself).
                    out.append(part.debug_text)
                    if conversion is None and part.spec is None:
                        conversion = "r"
                if part.spec is not None:
                    spec = ir.FString(part.span, tuple(_merge_text(self._fstring_content(part.spec, prefix, quote))))
                out.append(ir.FormattedValue(part.span, self.expr(part.expression), conversion, spec))
        return out

    def attribute(self, node: ast.Attribute) -> ir.Expr:
        span = self.span(node)
        attr = node.attr
        attr_span = self.positions.attribute_name_span(node)
        if attr == "__name__" and self._is_type_call(node.value):
            return ir.TypeName(span, self.expr(node.value.args[0]))
        if attr.startswith("__") or attr in B.FORBIDDEN_METHODS:
            self.expr(node.value)  # the receiver is checked too: `x.__class__.__base__` has two dunders
            if attr.startswith("__"):
                if attr in ("__class__", "__name__", "__qualname__"):
                    self.report(N.DunderName, attr_span, name=attr, help="write `type(value).__name__` for the name of "
                                "a value's type; it is the one use of `type()` and of a dunder DWF allows")
                else:
                    self.report(N.DunderName, attr_span, name=attr)
                return ir.Invalid(span, "dunder")
            self.report(N.StrFormat, attr_span, method=attr)
            return ir.Invalid(span, "format")
        container = self._facade_container(node.value)
        if container is not None:
            members = F.members_of(container)
            if attr in members:
                self.report(E.FacadeAsValue, node, name=f"{container}.{attr}")
            elif attr not in F.CONTAINER_ATTRIBUTES.get(container, ()):
                self._unknown_member(attr_span, container, attr)
            return ir.Attribute(span, self.expr(node.value), attr)
        if attr in B.DICT_MUTATING_METHODS and isinstance(node.value, ast.Name) and node.value.id == "args" \
                and self._resolve("args") == ir.FACADE:
            self.report(N.ReadOnlyArgs, attr_span)
        if attr == "ask":
            self.report(E.FacadeAsValue, node, name=f"{self.code(node.value)}.ask")
        value = self.expr(node.value)
        self._check_static_attribute(node, value, attr)
        return ir.Attribute(span, value, attr)

    def _is_type_call(self, node: ast.expr) -> bool:
        """`type(<one positional argument>)` with `type` not bound by the script."""
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"
                and self._resolve("type") == ir.UNDEFINED and len(node.args) == 1 and not node.keywords
                and not isinstance(node.args[0], ast.Starred))

    def _check_static_attribute(self, node: ast.Attribute, value: ir.Expr, attr: str) -> None:
        """The members of imported modules and of builtin types (`str.lower`). Attributes of
        values of known kinds are checked after lowering, by `compiler.checks.kind_checks`."""
        if isinstance(value, ir.Name) and value.scope == ir.MODULE:
            module = self._module_of(value.id)
            allowed = B.MODULES.get(module, ())
            if f"{module}.{attr}" in B.REFUSED_MODULE_MEMBERS:
                self.report(N.ModuleMemberRefused, self.positions.attribute_name_span(node), name=f"{module}.{attr}",
                            hint=B.REFUSED_MODULE_MEMBERS[f"{module}.{attr}"])
            elif attr not in allowed:
                close = difflib.get_close_matches(attr, allowed, n=1)
                hint = f"did you mean `{module}.{close[0]}`?" if close else f"`{module}` offers: {', '.join(allowed)}"
                self.report(N.AttributeNotAllowed, self.positions.attribute_name_span(node), receiver=module, attr=attr, hint=hint)
            return
        if isinstance(value, ir.Name) and value.scope == ir.BUILTIN and value.id in B.BUILTIN_FUNCTIONS:
            self._check_type_method(node, value.id, attr)

    def _check_type_method(self, node: ast.Attribute, builtin: str, attr: str) -> None:
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
        self.report(N.AttributeNotAllowed, self.positions.attribute_name_span(node), receiver=builtin, attr=attr, hint=hint)

    def _module_of(self, name: str) -> str:
        for binding in self.scope.module().bindings.get(name, ()):
            if binding.kind == IMPORT_MODULE:
                return binding.detail or name
        return name

    def subscript(self, node: ast.Subscript) -> ir.Expr:
        span = self.span(node)
        container = self._facade_container(node.value)
        elements, is_tuple = subscript_elements(node, self.positions), _is_index_tuple(node, self.positions)
        if container is not None:
            index = elements[0] if len(elements) == 1 else None
            member = literal_string(index, self.positions) if index is not None and not isinstance(index, (ast.Slice, ast.Starred)) else None
            members = F.members_of(container)
            example = f"{container}.{member}" if member in members else f"{container}.{next(iter(members))}"
            self.report(E.FacadeSubscript, node, help=f"call the member by name, e.g. `{example}(...)`")
        elif isinstance(node.value, ast.Name) and node.value.id in F.FUNCTIONS and self._resolve(node.value.id) == ir.FACADE:
            self.report(E.FacadeSubscript, node, help=f"`{node.value.id}` is a function: call `{node.value.id}(...)` directly")
            return ir.Invalid(span, "facade subscript")
        value = self.expr(node.value)
        lowered = [self._slice_element(e) for e in elements]
        index = ir.Tuple(span, tuple(lowered)) if is_tuple else lowered[0]
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
        if isinstance(node, ast.Starred):
            self.report(X.UnsupportedExpression, node, construct="A starred subscript", hint="index with a single value or a slice")
            return self.expr(node.value)
        if not isinstance(node, ast.Slice):
            return self.expr(node)
        return ir.Slice(self.span(node),
                        self.expr(node.lower) if node.lower is not None else None,
                        self.expr(node.upper) if node.upper is not None else None,
                        self.expr(node.step) if node.step is not None else None)

    def binary(self, node: ast.BinOp) -> ir.Expr:
        op = BINARY_OPS.get(type(node.op))
        if op is None:
            self.report(X.UnsupportedExpression, self.positions.operator_span(node.left), construct="The `@` operator",
                        hint="DWF has no matrix operator")
            return ir.Invalid(self.span(node), "@")
        return ir.BinOp(self.span(node), op, self.expr(node.left), self.expr(node.right))

    def unary(self, node: ast.UnaryOp) -> ir.Expr:
        return ir.UnaryOp(self.span(node), UNARY_OPS[type(node.op)], self.expr(node.operand))

    def boolean(self, node: ast.BoolOp) -> ir.Expr:
        """A chain `a and b and c` is the IR's left-nested pairs, `((a and b) and c)`: the shape
        the IR has always had (libcst's tree), which keeps the IR of existing scripts unchanged."""
        op = "and" if isinstance(node.op, ast.And) else "or"
        values = node.values
        result = self.expr(values[0])
        first = self.span(values[0])
        for index in range(1, len(values)):
            right = self.expr(values[index])
            if index == len(values) - 1:
                span = self.span(node)
            else:
                last = self.span(values[index])
                span = Span(first.line, first.column, last.end_line, last.end_column)
            result = ir.BoolOp(span, op, (result, right))
        return result

    def comparison(self, node: ast.Compare) -> ir.Expr:
        left = self.expr(node.left)
        ops = tuple(COMPARE_OPS[type(op)] for op in node.ops)
        return ir.Compare(self.span(node), left, ops, tuple(self.expr(c) for c in node.comparators))

    def if_exp(self, node: ast.IfExp) -> ir.Expr:
        body = self.expr(node.body)
        test = self.expr(node.test)
        return ir.IfExp(self.span(node), test, body, self.expr(node.orelse))

    def await_(self, node: ast.Await) -> ir.Expr:
        start = self.span(node)
        keyword = Span(start.line, start.column, start.line, start.column + len("await"))
        if not self.scope.binding_scope().is_async or self.scope.binding_scope().kind == "lambda":
            self.report(X.AwaitOutsideAsync, keyword)
        value = self.expr(node.value)
        if isinstance(value, ir.FacadeCall):
            member = F.BY_QUALIFIED.get(value.op)
            if member is not None and not member.awaitable:
                self.report(E.NotAwaitable, keyword, name=value.op)
        return ir.Await(self.span(node), value)

    def named_expr(self, node: ast.NamedExpr) -> ir.Expr:
        value = self.expr(node.value)
        target = node.target
        name = target.id if isinstance(target, ast.Name) else "_"
        binding_scope = self.scope.binding_scope()
        scope_kind = ir.GLOBAL if binding_scope.kind == "module" else ir.LOCAL if binding_scope is self.scope else ir.FREE
        return ir.NamedExpr(self.span(node), ir.Name(self.span(target), name, scope_kind), value)

    def lambda_(self, node: ast.Lambda) -> ir.Expr:
        scope = Scope("lambda", self.scope, is_async=False, function=self.function)
        params = self.params(node.args, scope)
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
        elts = tuple(ir.Starred(self.span(e), self.expr(e.value)) if isinstance(e, ast.Starred) else self.expr(e)
                     for e in node.elts)
        return {ast.List: ir.List, ast.Tuple: ir.Tuple, ast.Set: ir.Set}[type(node)](span, elts)

    def dict_(self, node: ast.Dict) -> ir.Expr:
        keys, values = [], []
        for key, value in zip(node.keys, node.values):
            keys.append(self.expr(key) if key is not None else None)
            values.append(self.expr(value))
        return ir.Dict(self.span(node), tuple(keys), tuple(values))

    def comprehension(self, node) -> ir.Expr:
        span = self.span(node)
        scope = Scope("comprehension", self.scope, is_async=self.scope.binding_scope().is_async, function=self.function)
        fors = node.generators
        end = self.positions.comprehension_end(node)
        clause_spans = [self.positions.comprehension_span(clause, end) for clause in fors]
        for clause, clause_span in zip(fors, clause_spans):
            if clause.is_async:
                self.report(X.UnsupportedStatement, self._keyword_span(clause_span, "async for"), construct="async for",
                            hint=STATEMENT_HINTS["async for"])
            bind_targets(scope, clause.target, clause)
        self._check_meta_bindings(scope)
        first_iter = self.expr(fors[0].iter)  # evaluated in the enclosing scope
        outer = self.scope
        self.scope = scope
        self.loop_depth += 1
        try:
            if isinstance(node, ast.DictComp):
                key, value = self.expr(node.key), self.expr(node.value)
            else:
                elt = self.expr(node.elt)
            generators = []
            for index, clause in enumerate(fors):
                target = self.target(clause.target)
                iterable = first_iter if index == 0 else self.expr(clause.iter)
                ifs = tuple(self.expr(condition) for condition in clause.ifs)
                generators.append(ir.Comprehension(clause_spans[index], target, iterable, ifs))
        finally:
            self.loop_depth -= 1
            self.scope = outer
        if isinstance(node, ast.DictComp):
            return ir.DictComp(span, key, value, tuple(generators))
        cls = {ast.ListComp: ir.ListComp, ast.SetComp: ir.SetComp, ast.GeneratorExp: ir.GeneratorExp}[type(node)]
        return cls(span, elt, tuple(generators))

    # ------------------------------------------------------------ calls

    def call(self, node: ast.Call) -> ir.Expr:
        function_name = self._facade_function(node.func)
        if function_name is not None:
            return self.facade_call(node, F.FUNCTIONS[function_name], receiver=None)
        if isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            container = self._facade_container(node.func.value)
            if container is not None:
                members = F.members_of(container)
                if attr in members:
                    return self.facade_call(node, members[attr], receiver=None)
            elif attr == "ask" and not (is_string(node.func.value) or isinstance(node.func.value, (ast.List, ast.Dict))):
                return self.facade_call(node, F.BY_QUALIFIED["Agent.ask"], receiver=node.func.value)
        typeddict = self._constructed_typeddict(node.func)
        if typeddict is not None:
            return self.typeddict_call(node, typeddict)
        func = self.expr(node.func)
        args, keywords = self.arguments(call_args(node))
        call = ir.Call(self.span(node), func, args, keywords)
        check_regex_call(call, self._module_of, self.report)
        return call

    # ------------------------------------------------------------ TypedDict constructors

    def _constructed_typeddict(self, func: ast.expr) -> str | None:
        """The TypedDict a call's callee names (directly or through a type alias), if any."""
        seen: set[str] = set()
        while isinstance(func, ast.Name) and func.id not in seen and self._resolve(func.id) == ir.TYPE:
            seen.add(func.id)
            if func.id in self.typeddicts:
                return func.id
            bindings = self.scope.module().bindings.get(func.id, ())
            if func.id not in self.type_aliases or len(bindings) != 1:
                return None
            func = bindings[0].value
        return None

    def typeddict_call(self, node: ast.Call, typeddict: str) -> ir.Expr:
        """`Issue(file=p, line=3)` is `dict(file=p, line=3)`, exactly as in CPython (a TypedDict
        called is a plain dict; nothing is checked at run time). At check time, a keyword or a
        literal key that is no declared field is DWF327."""
        fields = self._typeddict_fields(typeddict, set())
        arguments = call_args(node)
        keys: list[tuple[str, ast.AST | Span]] = [(a.keyword, self.positions.keyword_name_span(a.node))
                                                  for a in arguments if a.keyword is not None]
        if len(arguments) == 1 and arguments[0].keyword is None and not arguments[0].star \
                and isinstance(arguments[0].value, ast.Dict):
            for element in arguments[0].value.keys:
                key = literal_string(element, self.positions) if element is not None else None
                if isinstance(key, str):
                    keys.append((key, element))
        for key, where in keys:
            if key not in fields:
                close = difflib.get_close_matches(key, fields, n=1)
                hint = (f"did you mean `{close[0]}`?" if close else
                        f"`{typeddict}` declares: {', '.join(f'`{f}`' for f in fields) or 'no fields'}")
                self.report(E.UnknownTypedDictField, where, typeddict=typeddict, field=key, hint=hint)
        self._note_load(node.func.id, ir.TYPE)
        args, keywords = self.arguments(arguments)
        return ir.Call(self.span(node), ir.Name(self.span(node.func), "dict", ir.BUILTIN), args, keywords)

    def _typeddict_fields(self, name: str, seen: set[str]) -> list[str]:
        """The field names of a TypedDict, its bases' first (as the schema orders them)."""
        node = self.typeddicts.get(name)
        if node is None or name in seen:
            return []
        seen.add(name)
        fields: list[str] = []
        for base in node.bases:
            if isinstance(base, ast.Name):
                fields += [f for f in self._typeddict_fields(base.id, seen) if f not in fields]
        for small in node.body:
            if isinstance(small, ast.AnnAssign) and isinstance(small.target, ast.Name) and small.target.id not in fields:
                fields.append(small.target.id)
        return fields

    def arguments(self, arguments: list[Arg], skip: tuple[str, ...] = ()) -> tuple[tuple[ir.Expr, ...], tuple[ir.Keyword, ...]]:
        args: list[ir.Expr] = []
        keywords: list[ir.Keyword] = []
        given: set[str] = set()
        for arg in arguments:
            if arg.keyword is not None:
                if arg.keyword in given:
                    self.report(X.RepeatedKeyword, self.positions.keyword_name_span(arg.node), name=arg.keyword)
                given.add(arg.keyword)
                if arg.keyword in skip:
                    continue
                keywords.append(ir.Keyword(self.span(arg.node), arg.keyword, self.expr(arg.value)))
            elif arg.star == "**":
                keywords.append(ir.Keyword(self.span(arg.node), None, self.expr(arg.value)))
            elif arg.star == "*":
                args.append(ir.Starred(self.span(arg.node), self.expr(arg.value)))
            else:
                args.append(self.expr(arg.value))
        return tuple(args), tuple(keywords)


# ---------------------------------------------------------------- helpers


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


def subscript_elements(node: ast.Subscript, positions) -> list[ast.expr]:
    """The elements of a subscript's index as written: `x[a, b]` has two, `x[(a, b)]` one."""
    index = node.slice
    if isinstance(index, ast.Tuple) and not positions.is_parenthesized(index):
        return list(index.elts)
    return [index]


def _is_index_tuple(node: ast.Subscript, positions) -> bool:
    """`x[a, b]` or `x[a,]`: an index that is a tuple without parentheses."""
    return isinstance(node.slice, ast.Tuple) and not positions.is_parenthesized(node.slice)


EXPRESSION_HANDLERS: dict[type, Callable] = {
    ast.Name: ExpressionLowering.name,
    ast.Constant: ExpressionLowering.constant,
    ast.JoinedStr: ExpressionLowering.string,
    ast.Attribute: ExpressionLowering.attribute,
    ast.Subscript: ExpressionLowering.subscript,
    ast.Call: ExpressionLowering.call,
    ast.BinOp: ExpressionLowering.binary,
    ast.UnaryOp: ExpressionLowering.unary,
    ast.BoolOp: ExpressionLowering.boolean,
    ast.Compare: ExpressionLowering.comparison,
    ast.IfExp: ExpressionLowering.if_exp,
    ast.Await: ExpressionLowering.await_,
    ast.NamedExpr: ExpressionLowering.named_expr,
    ast.Lambda: ExpressionLowering.lambda_,
    ast.List: ExpressionLowering.collection,
    ast.Tuple: ExpressionLowering.collection,
    ast.Set: ExpressionLowering.collection,
    ast.Dict: ExpressionLowering.dict_,
    ast.ListComp: ExpressionLowering.comprehension,
    ast.SetComp: ExpressionLowering.comprehension,
    ast.GeneratorExp: ExpressionLowering.comprehension,
    ast.DictComp: ExpressionLowering.comprehension,
}
