"""This module defines kind inference over the IR: `KindInference` gives the kind
(`compiler.checks.kinds`) of any expression, given the kinds of the names it reads.

Names are flow-insensitive, as in Python's own scoping: a name's kind is the join of what every
binding of it in its scope gives (assignments, `for` targets over an iterable of a known element
kind, comprehension variables, walrus targets, tuple unpacking by position, `+=`). A parameter,
an `except` name, an import or any binding the inference cannot see makes the name unknown, and
a name whose kind depends on itself (`x = x + 1`) is unknown unless it is an augmented assignment
that keeps the kind of the other bindings (`items = []; items += [...]`).

Containers change: `xs.append(v)`, `xs[k] = v`, `del xs[k]` and passing `xs` to a script
function may add items of any kind, so the elements of a name that is ever mutated (or of any
name it was copied from: `ys = xs`, `for row in rows`) are unknown. A parameter of any function
is unknown, whatever its callers pass.

The scope tree is built from the IR once (`ScopeInfo` per module, function, lambda and
comprehension), then kinds are computed on demand and memoized.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dwf.grammar import facade as F
from dwf.grammar.builtins import MUTATING_METHODS

from dwf.compiler import ir
from dwf.compiler.checks import kinds as K
from dwf.compiler.checks.kinds import Kind

# Builtins that read their arguments without keeping or changing them.
PURE_BUILTINS = frozenset({"abs", "all", "any", "bool", "divmod", "float", "int", "isinstance", "len", "max",
                           "min", "pow", "repr", "round", "sorted", "str", "sum", "chr", "ord", "list", "set",
                           "tuple", "dict", "enumerate", "zip", "reversed", "range", "filter", "map"})


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def children(node) -> list:
    """The IR nodes directly under `node`, in field order (the field names are cached per
    node class: this walk runs on every script)."""
    names = _CHILD_FIELDS.get(type(node))
    if names is None:
        names = tuple(f for f in type(node).__dataclass_fields__ if f != "span")
        _CHILD_FIELDS[type(node)] = names
    found = []
    for name in names:
        value = getattr(node, name)
        if isinstance(value, ir.Node):
            found.append(value)
        elif type(value) is tuple:
            found.extend(item for item in value if isinstance(item, ir.Node))
    return found


@dataclass
class Binding:
    """One binding of a name: how its value is obtained, evaluated in `scope`."""

    how: str  # "value" | "element" | "augment" | "function" | "unknown"
    scope: ScopeInfo
    expr: ir.Node | None = None  # the value, the iterable, the augment's operand, the def/lambda
    path: tuple[int, ...] | None = ()  # position inside a tuple target (None: a starred part)
    op: str = ""  # the augmented operator


@dataclass(eq=False)
class ScopeInfo:
    kind: str  # "module" | "function" | "lambda" | "comprehension"
    parent: ScopeInfo | None
    node: ir.Node | None = None
    bindings: dict[str, list[Binding]] = field(default_factory=dict)

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    def binding_scope(self) -> ScopeInfo:
        scope = self
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        return scope

    def binder(self, name: str, where: str) -> ScopeInfo | None:
        """The scope a name read here with resolution `where` (LOCAL, FREE, GLOBAL) lives in."""
        if where == ir.GLOBAL:
            scope = self
            while scope.parent is not None:
                scope = scope.parent
            return scope
        if where == ir.LOCAL:
            return self
        if where == ir.FREE:
            scope = self.parent
            while scope is not None and name not in scope.bindings:
                scope = scope.parent
            return scope
        return None


class KindInference:
    """Kinds of the expressions of one script's IR; see the module docstring."""

    def __init__(self, body: tuple[ir.Stmt, ...], schemas: dict[str, object], arg_types: dict[str, str] | None,
                 typeddicts: dict[str, dict] | None = None):
        self.schemas = schemas
        self.typeddict_name = K.typeddict_names(typeddicts or {})
        self.typeddicts = frozenset(typeddicts or ())
        self.arg_types = arg_types or {}
        self.module = ScopeInfo("module", None)
        self.scopes: dict[int, ScopeInfo] = {}  # id(def, lambda or comprehension node) -> its scope
        self.modules: dict[str, str] = {}  # a name bound by `import` -> the module
        self._mutations: list[tuple[ScopeInfo, ir.Node]] = []
        self._names: dict[tuple[int, str], Kind | None] = {}
        self._exprs: dict[int, Kind | None] = {}
        self._in_progress: set[tuple[int, str]] = set()
        self._collect_block(body, self.module)
        self.mutated: set[tuple[int, str]] = self._mutated_names()

    # ------------------------------------------------------------ scope tree

    def _collect_block(self, body, scope: ScopeInfo) -> None:
        for stmt in body:
            self._collect_stmt(stmt, scope)

    def _collect_stmt(self, stmt, scope: ScopeInfo) -> None:
        kind = type(stmt)
        if kind is ir.Assign:
            for target in stmt.targets:
                self._bind_target(target, Binding("value", scope, stmt.value), scope)
        elif kind is ir.AnnAssign:
            if stmt.value is not None:
                self._bind_target(stmt.target, Binding("value", scope, stmt.value), scope)
        elif kind is ir.AugAssign:
            if type(stmt.target) is ir.Name:
                scope.bind(stmt.target.id, Binding("augment", scope, stmt.value, op=stmt.op))
            else:
                self._note_mutation(stmt.target, scope)
        elif kind is ir.For:
            self._bind_target(stmt.target, Binding("element", scope, stmt.iter), scope)
        elif kind is ir.FunctionDef:
            scope.bind(stmt.name, Binding("function", scope, stmt))
            inner = ScopeInfo("function", scope, stmt)
            self.scopes[id(stmt)] = inner
            for param in stmt.params:
                inner.bind(param.name, Binding("unknown", inner))
                if param.default is not None:
                    self._collect_expr(param.default, scope)
            self._collect_block(stmt.body, inner)
            return
        elif kind is ir.Try:
            for handler in stmt.handlers:
                if handler.name:
                    scope.bind(handler.name, Binding("unknown", scope))
        elif kind is ir.Import:
            scope.bind(stmt.name, Binding("unknown", scope))
            self.modules[stmt.name] = stmt.module
            return
        elif kind is ir.Delete:
            for target in stmt.targets:
                if type(target) is not ir.Name:
                    self._note_mutation(target, scope)
        for child in children(stmt):
            if isinstance(child, ir.Stmt.__args__):
                self._collect_stmt(child, scope)
            elif type(child) is not ir.ExceptHandler:
                self._collect_expr(child, scope)
            else:
                if child.type is not None:
                    self._collect_expr(child.type, scope)
                self._collect_block(child.body, scope)

    def _bind_target(self, target, binding: Binding, scope: ScopeInfo, path: tuple[int, ...] | None = ()) -> None:
        kind = type(target)
        if kind is ir.Name:
            scope.bind(target.id, Binding(binding.how, binding.scope, binding.expr, path))
        elif kind in (ir.Tuple, ir.List):
            for index, element in enumerate(target.elts):
                self._bind_target(element, binding, scope, None if path is None else (*path, index))
        elif kind is ir.Starred:
            self._bind_target(target.value, binding, scope, None)
        elif kind is ir.Subscript:
            self._note_mutation(target, scope)
            self._collect_expr(target, scope)

    def _collect_expr(self, node, scope: ScopeInfo) -> None:
        stack = [node]
        while stack:
            item = stack.pop()
            kind = type(item)
            if kind is ir.Lambda:
                inner = ScopeInfo("lambda", scope, item)
                self.scopes[id(item)] = inner
                for param in item.params:
                    inner.bind(param.name, Binding("unknown", inner))
                    if param.default is not None:
                        stack.append(param.default)
                self._collect_expr(item.body, inner)
                continue
            if kind in (ir.ListComp, ir.SetComp, ir.GeneratorExp, ir.DictComp):
                self._collect_comprehension(item, scope)
                continue
            if kind is ir.NamedExpr:
                scope.binding_scope().bind(item.target.id, Binding("value", scope, item.value))
            elif kind is ir.Call:
                self._note_call(item, scope)
            stack.extend(children(item))

    def _collect_comprehension(self, node, scope: ScopeInfo) -> None:
        inner = ScopeInfo("comprehension", scope, node)
        self.scopes[id(node)] = inner
        for index, generator in enumerate(node.generators):
            where = scope if index == 0 else inner  # the first iterable is evaluated outside
            self._collect_expr(generator.iter, where)
            self._bind_target(generator.target, Binding("element", where, generator.iter), inner)
            for condition in generator.ifs:
                self._collect_expr(condition, inner)
        parts = (node.key, node.value) if type(node) is ir.DictComp else (node.elt,)
        for part in parts:
            self._collect_expr(part, inner)

    # ------------------------------------------------------------ mutations

    def _note_call(self, call: ir.Call, scope: ScopeInfo) -> None:
        func = call.func
        if type(func) is ir.Attribute and func.attr in MUTATING_METHODS:
            self._note_mutation(func.value, scope)
        if type(func) is ir.Name and func.scope in (ir.BUILTIN, ir.MODULE):
            if func.id in PURE_BUILTINS or func.scope == ir.MODULE:
                return
        if type(func) is ir.Attribute and type(func.value) is ir.Name and func.value.scope == ir.MODULE:
            return
        if type(func) is ir.Attribute:
            return  # a method of a plain value keeps its arguments as they are
        # A script function (or anything unknown) may change what it is given.
        for argument in (*call.args, *(k.value for k in call.keywords)):
            self._note_mutation(argument, scope)

    def _note_mutation(self, node, scope: ScopeInfo) -> None:
        self._mutations.append((scope, node))

    def _mutated_names(self) -> set[tuple[int, str]]:
        scopes = {id(s): s for s in (self.module, *self.scopes.values())}
        pending = [key for scope, node in self._mutations for key in self._roots(node, scope)]
        mutated: set[tuple[int, str]] = set()
        while pending:
            key = pending.pop()
            if key in mutated:
                continue
            mutated.add(key)
            scope, name = scopes[key[0]], key[1]
            for binding in scope.bindings.get(name, ()):
                if binding.how in ("value", "element") and binding.expr is not None:
                    pending.extend(self._roots(binding.expr, binding.scope))
        return mutated

    def _roots(self, node, scope: ScopeInfo) -> list[tuple[int, str]]:
        """The names whose value `node` may be (a part of)."""
        kind = type(node)
        if kind is ir.Name:
            binder = scope.binder(node.id, node.scope)
            return [(id(binder), node.id)] if binder is not None else []
        if kind in (ir.Subscript, ir.Attribute, ir.Starred):
            return self._roots(node.value, scope)
        if kind is ir.IfExp:
            return self._roots(node.body, scope) + self._roots(node.orelse, scope)
        if kind is ir.BoolOp:
            return [r for v in node.values for r in self._roots(v, scope)]
        if kind is ir.NamedExpr:
            return self._roots(node.value, scope)
        return []

    # ------------------------------------------------------------ names

    def scope_of(self, node) -> ScopeInfo | None:
        """The scope a def, lambda or comprehension opens (None for a node the scope tree did
        not reach, which is then left unchecked)."""
        return self.scopes.get(id(node))

    def name_kind(self, name: str, where: str, scope: ScopeInfo) -> Kind | None:
        if where == ir.FACADE and name == "args":
            fields = tuple((arg, K.ARG_KINDS.get(arg_type)) for arg, arg_type in sorted(self.arg_types.items()))
            return Kind("dict", key=K.STR, of=K.JSON, fields=fields or None, origin="args")
        binder = scope.binder(name, where)
        if binder is None:
            return None
        key = (id(binder), name)
        if key in self._names:
            return self._names[key]
        if key in self._in_progress:
            return None
        self._in_progress.add(key)
        try:
            result = self._bindings_kind(binder.bindings.get(name, ()))
        finally:
            self._in_progress.discard(key)
        if key in self.mutated:
            result = K.without_elements(result)
        self._names[key] = result
        return result

    def _bindings_kind(self, bindings: list[Binding]) -> Kind | None:
        plain = [b for b in bindings if b.how != "augment"]
        if not plain:
            return None
        result = K.join_all(self._binding_kind(b) for b in plain)
        for binding in bindings:
            if result is None:
                return None
            if binding.how == "augment" and K.binary(binding.op, result, self.kind(binding.expr, binding.scope)) != result:
                return None
        return result

    def _binding_kind(self, binding: Binding) -> Kind | None:
        if binding.how == "function":
            return K.FUNCTION
        if binding.how == "unknown" or binding.path is None:
            return None
        value = self.kind(binding.expr, binding.scope)
        if binding.how == "element":
            value = K.element(value)
        for index in binding.path:
            if value is None:
                return None
            if value.name == "tuple" and value.items is not None:
                value = value.items[index] if index < len(value.items) else None
            else:
                value = K.element(value)
        return value

    def function_of(self, name: str, where: str, scope: ScopeInfo):
        """The `def` or `lambda` a name is bound to, when that is its only binding."""
        binder = scope.binder(name, where)
        bindings = binder.bindings.get(name, ()) if binder is not None else ()
        if len(bindings) != 1:
            return None
        binding = bindings[0]
        if binding.how == "function":
            return binding.expr
        if binding.how == "value" and binding.path == () and type(binding.expr) is ir.Lambda:
            return binding.expr
        return None

    def is_async_function(self, name: str, where: str, scope: ScopeInfo) -> bool:
        binder = scope.binder(name, where)
        bindings = binder.bindings.get(name, ()) if binder is not None else ()
        return bool(bindings) and all(b.how == "function" and b.expr.is_async for b in bindings)

    # ------------------------------------------------------------ expressions

    def kind(self, node, scope: ScopeInfo) -> Kind | None:
        if node is None:
            return None
        key = id(node)
        if key in self._exprs:
            return self._exprs[key]
        result = self._kind(node, scope)
        self._exprs[key] = result
        return result

    def _kind(self, node, scope: ScopeInfo) -> Kind | None:
        kind = type(node)
        if kind is ir.Const:
            return K.of_constant(node.value)
        if kind is ir.FString:
            return K.STR
        if kind is ir.Name:
            return self.name_kind(node.id, node.scope, scope)
        if kind is ir.Attribute:
            return K.field(self.kind(node.value, scope), node.attr)
        if kind is ir.Call:
            return self._call(node, scope)
        if kind is ir.FacadeCall:
            return self._facade_call(node, scope)
        if kind is ir.Await:
            inner = self.kind(node.value, scope)
            if inner is None:
                return None
            if all(k.name == "awaitable" for k in K.alternatives(inner)):
                return K.join_all(k.of for k in K.alternatives(inner))
            return None
        if kind is ir.Subscript:
            index = node.index
            literal = index.value if type(index) is ir.Const else None
            return K.item(self.kind(node.value, scope), literal, None, type(index) is ir.Slice)
        if kind is ir.BinOp:
            return K.binary(node.op, self.kind(node.left, scope), self.kind(node.right, scope))
        if kind is ir.BoolOp:
            return K.join_all(self.kind(v, scope) for v in node.values)
        if kind is ir.Compare:
            return K.BOOL
        if kind is ir.UnaryOp:
            if node.op == "not":
                return K.BOOL
            operand = self.kind(node.operand, scope)
            return operand if operand in (K.INT, K.FLOAT) else None
        if kind is ir.IfExp:
            return K.join(self.kind(node.body, scope), self.kind(node.orelse, scope))
        if kind is ir.NamedExpr:
            return self.kind(node.value, scope)
        if kind in (ir.List, ir.Set):
            return Kind(kind.__name__.lower(), of=self._elements(node.elts, scope))
        if kind is ir.Tuple:
            if any(type(e) is ir.Starred for e in node.elts):
                return Kind("tuple", of=self._elements(node.elts, scope))
            return Kind("tuple", items=tuple(self.kind(e, scope) for e in node.elts))
        if kind is ir.Dict:
            if any(k is None for k in node.keys):
                return Kind("dict")
            return Kind("dict", key=K.join_all(self.kind(k, scope) for k in node.keys) if node.keys else None,
                        of=K.join_all(self.kind(v, scope) for v in node.values) if node.values else None)
        if kind in (ir.ListComp, ir.SetComp, ir.GeneratorExp, ir.DictComp) and self.scope_of(node) is None:
            return None
        if kind in (ir.ListComp, ir.SetComp, ir.GeneratorExp):
            inner = self.scope_of(node)
            name = {ir.ListComp: "list", ir.SetComp: "set", ir.GeneratorExp: "iterable"}[kind]
            return Kind(name, of=self.kind(node.elt, inner))
        if kind is ir.DictComp:
            inner = self.scope_of(node)
            return Kind("dict", key=self.kind(node.key, inner), of=self.kind(node.value, inner))
        if kind is ir.Lambda:
            return K.FUNCTION
        return None

    def _elements(self, elts, scope: ScopeInfo) -> Kind | None:
        if not elts:
            return None
        return K.join_all(K.element(self.kind(e.value, scope)) if type(e) is ir.Starred else self.kind(e, scope)
                          for e in elts)

    def _call(self, node: ir.Call, scope: ScopeInfo) -> Kind | None:
        func = node.func
        if type(func) is ir.Attribute:
            receiver = func.value
            if type(receiver) is ir.Name and receiver.scope == ir.MODULE:
                return _module_result(self.modules.get(receiver.id, receiver.id), func.attr)
            return K.method_result(self.kind(receiver, scope), func.attr)
        if type(func) is ir.Name:
            if func.scope == ir.BUILTIN:
                return self._builtin(func.id, node, scope)
            if func.scope in (ir.GLOBAL, ir.LOCAL, ir.FREE) and self.is_async_function(func.id, func.scope, scope):
                return K.awaitable_of(None)
        return None

    def _builtin(self, name: str, node: ir.Call, scope: ScopeInfo) -> Kind | None:
        fixed = {"len": K.INT, "str": K.STR, "repr": K.STR, "chr": K.STR, "ord": K.INT, "bool": K.BOOL,
                 "isinstance": K.BOOL, "any": K.BOOL, "all": K.BOOL, "int": K.INT, "float": K.FLOAT}
        if name in fixed:
            return fixed[name]
        if node.keywords and name not in ("sorted", "max", "min"):
            return None
        args = node.args
        if any(type(a) is ir.Starred for a in args):
            return None
        first = K.element(self.kind(args[0], scope)) if args else None
        if name in ("sorted", "list", "reversed", "filter") and args:
            source = args[-1] if name == "filter" else args[0]
            of = K.element(self.kind(source, scope))
            return K.list_of(of) if name in ("sorted", "list") else K.iterable_of(of)
        if name == "set" and args:
            return Kind("set", of=first)
        if name == "tuple" and args:
            return Kind("tuple", of=first)
        if name in ("list", "set", "dict", "tuple") and not args:
            return Kind(name)
        if name == "range":
            return K.iterable_of(K.INT)
        if name == "enumerate" and args:
            return K.iterable_of(Kind("tuple", items=(K.INT, first)))
        if name == "zip" and args:
            return K.iterable_of(Kind("tuple", items=tuple(K.element(self.kind(a, scope)) for a in args)))
        if name in ("min", "max") and len(args) == 1 and not any(k.name == "default" for k in node.keywords):
            return first
        return None

    def _facade_call(self, node: ir.FacadeCall, scope: ScopeInfo) -> Kind | None:
        if node.op == "ask":
            result = K.from_schema(self.schemas.get(node.schema), name_of=self.typeddict_name) if node.schema else K.STR
            if node.schema in self.typeddicts and result is not None and result.closed:
                result = replace(result, type_name=node.schema)  # `returns=A` names A, whatever shares its fields
            return K.awaitable_of(result)
        member = F.BY_QUALIFIED.get(node.op)
        if member is None:
            return None
        result = K.parse_type(F.RESULT_TYPES.get(node.op, ""))
        if node.op == "gather" and not node.keywords:
            result = K.list_of(self._gathered(node.args, scope))
        return K.awaitable_of(result) if member.awaitable else result

    def _gathered(self, args, scope: ScopeInfo) -> Kind | None:
        """The kind of each result of `gather(...)`: what its awaitables give."""
        if not args:
            return None
        parts = [K.element(self.kind(a.value, scope)) if type(a) is ir.Starred else self.kind(a, scope) for a in args]
        results = []
        for part in parts:
            if part is None or part.name != "awaitable":
                return None
            results.append(part.of)
        return K.join_all(results)


def _module_result(module: str, member: str) -> Kind | None:
    if module == "re":
        return K.regex_result(member)
    return {("json", "loads"): Kind("json"), ("json", "dumps"): K.STR}.get((module, member))
