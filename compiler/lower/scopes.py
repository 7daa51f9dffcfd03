"""This module defines scopes and the binding pre-pass that name resolution needs.

Python decides a name's scope by where it is *bound*, anywhere in the function: a name assigned
anywhere in a function body is local to that function for the whole body. So before lowering a
function (or the module, a lambda, a comprehension) we collect its bindings in one walk that
stops at nested scopes. The walrus operator is the one binding that crosses a scope: inside a
comprehension it binds in the nearest enclosing function or module scope.

Resolution then walks outwards: the scope's own bindings (local), enclosing function scopes
(free), the module (global), then facade names, builtins, and finally "undefined". DWF has no
`global`/`nonlocal`, and class bodies exist only as TypedDict declarations, which bind a type
name at the top level and open no scope for code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import ast

# Binding kinds.
ASSIGN = "assign"
PARAM = "param"
DEF = "def"
ASYNC_DEF = "async_def"
CLASS = "class"
IMPORT_MODULE = "import_module"
IMPORT_TYPING = "import_typing"
IMPORT_DWF = "import_dwf"


@dataclass
class Binding:
    kind: str
    node: ast.AST
    value: ast.expr | None = None  # the assigned value for plain `name = value`
    detail: str | None = None  # imported name for imports


@dataclass
class Scope:
    kind: str  # "module" | "function" | "lambda" | "comprehension"
    parent: Scope | None
    is_async: bool
    function: str | None = None  # name of the enclosing def, for site tables
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    loads: set[str] = field(default_factory=set)  # names read in this scope (for unused checks)

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def binding_scope(self) -> Scope:
        """The scope a walrus inside this scope binds in."""
        scope = self
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        return scope


class BindingCollector:
    """Collects the names bound directly in one scope's body (not in nested scopes), in source
    order. Expressions are walked only for the walrus, the one binding inside an expression."""

    def __init__(self, scope: Scope, walrus_scope: Scope, walrus_possible: bool = True) -> None:
        self.scope = scope
        self.walrus_scope = walrus_scope
        self.walrus_possible = walrus_possible

    # ------------------------------------------------------------ statements

    def statements(self, body: list[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.scope.bind(node.name, Binding(ASYNC_DEF if isinstance(node, ast.AsyncFunctionDef) else DEF, node))
            self._defaults(node.args)  # evaluated in this scope: a walrus there binds here
        elif isinstance(node, ast.ClassDef):
            self.scope.bind(node.name, Binding(CLASS, node))
        elif isinstance(node, ast.Assign):
            single = len(node.targets) == 1
            for target in node.targets:
                self._bind_target(target, node, node.value if single else None)
            self.expression(node.value)
        elif isinstance(node, ast.AnnAssign):
            self._bind_target(node.target, node, node.value)
            self.expression(node.value)
        elif isinstance(node, ast.AugAssign):
            self._bind_target(node.target, node, None)
            self.expression(node.value)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self._bind_target(target, node, None)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                self.scope.bind(bound, Binding(IMPORT_MODULE, node, detail=alias.name))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.names and node.names[0].name == "*":
                return
            kind = IMPORT_TYPING if module == "typing" else IMPORT_DWF if module == "dwf" else IMPORT_MODULE
            for alias in node.names:
                self.scope.bind(alias.asname or alias.name, Binding(kind, node, detail=alias.name))
        elif isinstance(node, ast.If):
            self.expression(node.test)
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._bind_target(node.target, node, None)
            self.expression(node.iter)
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, ast.While):
            self.expression(node.test)
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, (ast.Try, ast.TryStar)):
            self.statements(node.body)
            for handler in node.handlers:
                self.expression(handler.type)
                if handler.name is not None:
                    self.scope.bind(handler.name, Binding(ASSIGN, handler))
                self.statements(handler.body)
            self.statements(node.orelse)
            self.statements(node.finalbody)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._bind_target(item.optional_vars, node, None)
            self.statements(node.body)
        elif isinstance(node, (ast.Expr, ast.Return)):
            self.expression(node.value)
        elif isinstance(node, (ast.Raise, ast.Assert)):
            for child in ast.iter_child_nodes(node):
                self.expression(child)

    def _defaults(self, parameters: ast.arguments) -> None:
        for default in (*parameters.defaults, *parameters.kw_defaults):
            self.expression(default)

    # ------------------------------------------------------------ the walrus

    def expression(self, node: ast.AST | None) -> None:
        if node is None or not self.walrus_possible:
            return
        stack = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.NamedExpr):
                if isinstance(current.target, ast.Name):
                    self.walrus_scope.bind(current.target.id, Binding(ASSIGN, current, current.value))
            elif isinstance(current, ast.Lambda):
                stack.extend(reversed([d for d in (*current.args.defaults, *current.args.kw_defaults) if d is not None]))
                continue
            stack.extend(reversed(list(ast.iter_child_nodes(current))))

    def _bind_target(self, target: ast.AST, node: ast.AST, value) -> None:
        if isinstance(target, ast.Name):
            self.scope.bind(target.id, Binding(ASSIGN, node, value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind_target(element, node, None)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, node, None)


def dotted_name(node: ast.AST) -> str:
    """`a.b.c` for a dotted name (an attribute chain), else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted_name(node.value)}.{node.attr}"
    return ""


def collect(scope: Scope, body, walrus_possible: bool = True) -> None:
    """Add the bindings of `body` (a statement list or an expression) to `scope`. Only a walrus
    can bind a name inside an expression, so when the script has no `:=` expressions are not
    walked."""
    collector = BindingCollector(scope, scope.binding_scope(), walrus_possible)
    if isinstance(body, list):
        collector.statements(body)
    else:
        collector.expression(body)


def bind_targets(scope: Scope, target: ast.AST, node: ast.AST) -> None:
    """Bind the names of an assignment target (comprehension `for` targets, parameters)."""
    BindingCollector(scope, scope)._bind_target(target, node, None)
