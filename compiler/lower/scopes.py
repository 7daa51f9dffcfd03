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

import libcst as cst

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
    node: cst.CSTNode
    value: cst.BaseExpression | None = None  # the assigned value for plain `name = value`
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


class BindingCollector(cst.CSTVisitor):
    """Collects the names bound directly in one scope's body (not in nested scopes)."""

    def __init__(self, scope: Scope, walrus_scope: Scope) -> None:
        self.scope = scope
        self.walrus_scope = walrus_scope
        self._comprehension_depth = 0

    # Nested scopes: bind the name, do not descend (except into parameter defaults, which are
    # evaluated in this scope: a walrus there binds here).
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if self._comprehension_depth == 0:
            self.scope.bind(node.name.value, Binding(ASYNC_DEF if node.asynchronous else DEF, node))
        self._visit_defaults(node.params)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if self._comprehension_depth == 0:
            self.scope.bind(node.name.value, Binding(CLASS, node))
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self._visit_defaults(node.params)
        return False

    def _visit_defaults(self, parameters: cst.Parameters) -> None:
        for param in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params):
            if param.default is not None:
                param.default.visit(self)

    # Comprehensions open their own scope, but a walrus inside one binds out here.
    def _enter_comprehension(self, node: cst.CSTNode) -> bool:
        self._comprehension_depth += 1
        return True

    def _leave_comprehension(self, node: cst.CSTNode) -> None:
        self._comprehension_depth -= 1

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _enter_comprehension
    leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = _leave_comprehension

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if isinstance(node.target, cst.Name):
            self.walrus_scope.bind(node.target.value, Binding(ASSIGN, node, node.value))

    # Ordinary bindings (only outside comprehensions: their targets are comprehension-local).
    def visit_Assign(self, node: cst.Assign) -> None:
        if self._comprehension_depth:
            return
        single = len(node.targets) == 1
        for target in node.targets:
            self._bind_target(target.target, node, node.value if single else None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if not self._comprehension_depth:
            self._bind_target(node.target, node, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not self._comprehension_depth:
            self._bind_target(node.target, node, None)

    def visit_For(self, node: cst.For) -> None:
        if not self._comprehension_depth:
            self._bind_target(node.target, node, None)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self.scope.bind(node.name.name.value, Binding(ASSIGN, node))

    def visit_Del(self, node: cst.Del) -> None:
        self._bind_target(node.target, node, None)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            module = dotted_name(alias.name)
            bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else module.split(".")[0]
            self.scope.bind(bound, Binding(IMPORT_MODULE, node, detail=module))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None else ""
        if isinstance(node.names, cst.ImportStar):
            return
        kind = IMPORT_TYPING if module == "typing" else IMPORT_DWF if module == "dwf" else IMPORT_MODULE
        for alias in node.names:
            imported = dotted_name(alias.name)
            bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else imported
            self.scope.bind(bound, Binding(kind, node, detail=imported))

    def _bind_target(self, target: cst.BaseExpression, node: cst.CSTNode, value) -> None:
        if isinstance(target, cst.Name):
            self.scope.bind(target.value, Binding(ASSIGN, node, value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value, node, None)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, node, None)


def dotted_name(node: cst.BaseExpression) -> str:
    """`a.b.c` for a dotted name (an import's module, an attribute chain), else ""."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted_name(node.value)}.{node.attr.value}"
    return ""


def collect(scope: Scope, body: cst.CSTNode, walrus_possible: bool = True) -> None:
    """Add the bindings of `body` (a statement block or expression) to `scope`.

    Only a walrus can bind a name inside an expression, so when the script has no `:=` the
    walk visits statements alone (a libcst visitor would rebuild every expression node too)."""
    collector = BindingCollector(scope, scope.binding_scope())
    if walrus_possible:
        body.visit(collector)
    else:
        _walk_statements(collector, body)


_SMALL_BINDERS = {
    cst.Assign: BindingCollector.visit_Assign, cst.AnnAssign: BindingCollector.visit_AnnAssign,
    cst.AugAssign: BindingCollector.visit_AugAssign, cst.Del: BindingCollector.visit_Del,
    cst.Import: BindingCollector.visit_Import, cst.ImportFrom: BindingCollector.visit_ImportFrom,
}


def _walk_statements(collector: BindingCollector, node: cst.CSTNode) -> None:
    if isinstance(node, (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite)):
        for statement in node.body:
            _walk_statements(collector, statement)
    elif isinstance(node, cst.SimpleStatementLine):
        for small in node.body:
            binder = _SMALL_BINDERS.get(type(small))
            if binder is not None:
                binder(collector, small)
    elif isinstance(node, cst.FunctionDef):
        collector.visit_FunctionDef(node)
    elif isinstance(node, cst.ClassDef):
        collector.visit_ClassDef(node)
    elif isinstance(node, cst.If):
        _walk_statements(collector, node.body)
        if node.orelse is not None:
            _walk_statements(collector, node.orelse if isinstance(node.orelse, cst.If) else node.orelse.body)
    elif isinstance(node, (cst.For, cst.While)):
        if isinstance(node, cst.For):
            collector.visit_For(node)
        _walk_statements(collector, node.body)
        if node.orelse is not None:
            _walk_statements(collector, node.orelse.body)
    elif isinstance(node, (cst.Try, cst.TryStar)):
        _walk_statements(collector, node.body)
        for handler in node.handlers:
            collector.visit_ExceptHandler(handler)
            _walk_statements(collector, handler.body)
        for part in (node.orelse, node.finalbody):
            if part is not None:
                _walk_statements(collector, part.body)
    elif isinstance(node, cst.With):
        for item in node.items:
            if item.asname is not None:
                collector._bind_target(item.asname.name, node, None)
        _walk_statements(collector, node.body)


def bind_targets(scope: Scope, target: cst.BaseExpression, node: cst.CSTNode) -> None:
    """Bind the names of an assignment target (comprehension `for` targets, parameters)."""
    BindingCollector(scope, scope)._bind_target(target, node, None)
