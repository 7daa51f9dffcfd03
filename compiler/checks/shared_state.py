"""This module defines the determinism checks a resume relies on (#19 point 7): state shared by the
items of one join, and identity comparisons.

**Shared state in a join (DWF330).** The items of `parallel`/`gather`/`pipeline` run concurrently
and finish in whatever order their agents answer; a resume replays finished items instantly, in
another order. So an item must not change state another item can see: a list it appends to, a dict
it fills (even with distinct keys: the key order is the order of completion), a set, an attribute.
The walk records, for every `def` and lambda, the mutations it makes (a mutating method such as
`append` or `update` called on a value, an assignment or `del` through a subscript or attribute,
an augmented assignment through them) of values rooted at a name, its calls of script functions,
and whether it awaits. A join's items are the script functions its awaitables call (`work(p) for
p in paths`, each `gather` argument) and its `pipeline` stages (a function name or a lambda),
with the script functions they call, transitively. A mutation there is reported when the item (or
what it calls) awaits and the value is shared between items: a top-level variable, a variable of
a function enclosing the item (not the item's own locals or those of functions nested in it), or
the item function's parameter when every item is given the same variable. Which `def` a name
means is not known here when a name is bound to several; all of them are checked.

**Identity (DWF331).** `is`/`is not` against anything but `None`, `True` or `False` compares object
identity, which a replayed value (decoded from the journal) does not keep: two results that are the
same object live are two objects after a resume.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Callable, Iterator

from dwf.compiler import ir
from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.rules import effects as E

JOINS = ("parallel", "gather", "pipeline")
MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",  # list
    "update", "setdefault", "popitem",  # dict
    "add", "discard", "difference_update", "intersection_update", "symmetric_difference_update",  # set
})
SCRIPT_SCOPES = (ir.LOCAL, ir.GLOBAL, ir.FREE)


@dataclasses.dataclass(eq=False)
class _Function:
    """A `def` or lambda: what it binds, changes, calls, and whether it awaits."""

    node: ir.FunctionDef | ir.Lambda
    parent: _Function | None
    names: frozenset[str]
    params: tuple[str, ...]
    mutations: list[tuple[ir.Name, ir.Node]] = dataclasses.field(default_factory=list)  # (root, mutating node)
    callees: set[str] = dataclasses.field(default_factory=set)
    awaits: bool = False

    def within(self, other: _Function) -> bool:
        """Whether this function is `other` or nested inside it."""
        current: _Function | None = self
        while current is not None:
            if current is other:
                return True
            current = current.parent
        return False


@dataclasses.dataclass
class _Join:
    node: ir.FacadeCall
    items: list[tuple[_Function, dict[str, ir.Name], bool]]  # function, param -> the variable all items get, ordered


def check_shared_state(body: tuple[ir.Stmt, ...], text: Callable[[ir.Node], str], sink: DiagnosticSink) -> None:
    """Report DWF330 and DWF331 in `body`; `text(node)` is a node's source text for messages."""
    walk = _Walk(sink, text)
    walk.block(body, None)
    reported: set[tuple[int, int]] = set()
    for join in walk.joins:
        for item, shared_params, in_completion_order in join.items:
            reached = walk.reached(item)
            if not in_completion_order and not any(function.awaits for function in reached):
                continue  # an item that never waits runs start to end in input order
            for function in reached:
                for root, node in function.mutations:
                    if (node.span.line, node.span.column) in reported or not _shared(root, function, item, shared_params):
                        continue
                    reported.add((node.span.line, node.span.column))
                    _report(sink, text, join.node.op, root, node, function, item)


def _shared(root: ir.Name, function: _Function, item: _Function, shared_params: dict[str, ir.Name]) -> bool:
    if root.scope == ir.GLOBAL:
        return True
    if root.scope == ir.FREE:
        binder = function.parent
        while binder is not None and root.id not in binder.names:
            binder = binder.parent
        return binder is None or not binder.within(item)
    return function is item and root.id in shared_params


def _report(sink: DiagnosticSink, text, join: str, root: ir.Name, node: ir.Node, function: _Function,
            item: _Function) -> None:
    where = "" if function is item else f" (in `{_name(function)}()`, which an item calls)"
    name = root.id
    sink.report(E.SharedStateInJoin, node.span, text=text(node), name=name, join=join, where=where,
                hint=f"return the value from {_describe(item)} instead, and build `{name}` from what `{join}` returns "
                     f"(it keeps the input order): e.g. `values = await {join}(...)`, then "
                     f"`for value in values: ...` at the top level")


def _name(function: _Function) -> str:
    return function.node.name if isinstance(function.node, ir.FunctionDef) else "lambda"


def _describe(function: _Function) -> str:
    return f"`{function.node.name}()`" if isinstance(function.node, ir.FunctionDef) else "the lambda"


def _root(expr: ir.Node) -> ir.Name | None:
    """The name a subscript/attribute chain starts from (`state["a"].items` → `state`)."""
    while type(expr) in (ir.Attribute, ir.Subscript):
        expr = expr.value
    return expr if type(expr) is ir.Name else None


def _targets(target: ir.Node) -> Iterator[ir.Node]:
    if type(target) in (ir.Tuple, ir.List):
        for element in target.elts:
            yield from _targets(element.value if type(element) is ir.Starred else element)
    else:
        yield target


class _Walk:
    """One pass over the IR: functions, their mutations and calls, joins, identity comparisons."""

    def __init__(self, sink: DiagnosticSink, text: Callable[[ir.Node], str]):
        self.sink, self.text = sink, text
        self.definitions: dict[str, list[_Function]] = defaultdict(list)
        self.lambdas: dict[int, _Function] = {}  # id of an ir.Lambda -> its record
        self.joins: list[_Join] = []
        self._pending: list[ir.FacadeCall] = []

    def reached(self, item: _Function) -> list[_Function]:
        """`item` and every script function it calls, transitively (every `def` of a called name)."""
        seen, queue = [item], [item]
        while queue:
            for callee in queue.pop().callees:
                for function in self.definitions.get(callee, ()):
                    if function not in seen:
                        seen.append(function)
                        queue.append(function)
        return seen

    def block(self, statements, owner: _Function | None) -> None:
        for statement in statements:
            self.node(statement, owner)
        if owner is None:  # every function is known now: resolve the joins' items
            self.joins = [_Join(node, list(self._items(node))) for node in self._pending]

    def function(self, node: ir.FunctionDef | ir.Lambda, owner: _Function | None) -> _Function:
        params = tuple(param.name for param in node.params)
        for param in node.params:
            if param.default is not None:
                self.node(param.default, owner)
        return _Function(node, owner, frozenset(node.locals) | frozenset(params), params)

    def node(self, node, owner: _Function | None) -> None:
        kind = type(node)
        if kind is ir.FunctionDef:
            function = self.function(node, owner)
            self.definitions[node.name].append(function)
            for statement in node.body:
                self.node(statement, function)
            return
        if kind is ir.Lambda:
            function = self.lambdas[id(node)] = self.function(node, owner)
            self.node(node.body, function)
            return
        if owner is not None:
            self.mutation(node, owner)
            if kind is ir.Await:
                owner.awaits = True
            elif kind is ir.Call and type(node.func) is ir.Name and node.func.scope in SCRIPT_SCOPES:
                owner.callees.add(node.func.id)
        if kind is ir.FacadeCall and node.op in JOINS:
            self._pending.append(node)
        elif kind is ir.Compare:
            self.identity(node)
        for field in dataclasses.fields(node):
            if field.name == "span":
                continue
            value = getattr(node, field.name)
            if isinstance(value, ir.Node):
                self.node(value, owner)
            elif isinstance(value, tuple):
                for part in value:
                    if isinstance(part, ir.Node):
                        self.node(part, owner)

    def mutation(self, node, owner: _Function) -> None:
        kind = type(node)
        changed: list[ir.Node] = []
        if kind is ir.Call and type(node.func) is ir.Attribute and node.func.attr in MUTATING_METHODS:
            changed.append(node.func.value)
        elif kind in (ir.Assign, ir.Delete):
            changed.extend(t.value for target in node.targets for t in _targets(target)
                           if type(t) in (ir.Subscript, ir.Attribute))
        elif kind is ir.AugAssign and type(node.target) in (ir.Subscript, ir.Attribute):
            changed.append(node.target.value)
        for value in changed:
            root = _root(value)
            if root is not None:
                owner.mutations.append((root, node))

    def identity(self, node: ir.Compare) -> None:
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            if op in ("is", "is not") and not (_singleton(left) or _singleton(right)):
                self.sink.report(E.IdentityComparison, node.span, text=self.text(node), op=op,
                                 equal="==" if op == "is" else "!=")
            left = right

    # ------------------------------------------------------------ the items of a join

    def _items(self, join: ir.FacadeCall) -> Iterator[tuple[_Function, dict[str, ir.Name], bool]]:
        if join.op == "pipeline":  # every stage runs for every item; a later one when the one before it finished
            for index, stage in enumerate(join.args[1:]):
                if type(stage) is ir.Lambda:
                    yield self.lambdas[id(stage)], {}, index > 0
                elif type(stage) is ir.Name:
                    yield from ((function, {}, index > 0) for function in self.definitions.get(stage.id, ()))
            return
        args = [arg.value if type(arg) is ir.Starred else arg for arg in join.args]
        listed = []  # awaitables written out one by one: a variable given to two of them is shared
        for value in args:
            if type(value) in (ir.GeneratorExp, ir.ListComp):  # one awaitable per item
                bound = {name.id for generator in value.generators for name in _names(generator.target)}
                for function, given in self._called(value.elt):
                    yield function, {param: name for param, name in given.items() if name.id not in bound}, False
            else:
                listed.extend(self._called(element) for element in
                              (value.elts if type(value) in (ir.List, ir.Tuple) else (value,)))
        uses = defaultdict(int)
        for called in listed:
            for name in {name.id for _, given in called for name in given.values()}:
                uses[name] += 1
        for called in listed:
            for function, given in called:
                yield function, {param: name for param, name in given.items() if uses[name.id] >= 2}, False

    def _called(self, expr) -> list[tuple[_Function, dict[str, ir.Name]]]:
        """The script functions an awaitable calls, each with its parameters given a variable."""
        if type(expr) is not ir.Call or type(expr.func) is not ir.Name:
            return []
        named = [(k.name, k.value) for k in expr.keywords if k.name]
        called = []
        for function in self.definitions.get(expr.func.id, ()):
            pairs = [*zip(function.params, expr.args), *named]
            called.append((function, {param: arg for param, arg in pairs
                                      if type(arg) is ir.Name and arg.scope in SCRIPT_SCOPES}))
        return called


def _singleton(expr) -> bool:
    return type(expr) is ir.Const and (expr.value is None or type(expr.value) is bool)


def _names(target) -> Iterator[ir.Name]:
    if type(target) is ir.Name:
        yield target
    elif type(target) in (ir.Tuple, ir.List):
        for element in target.elts:
            yield from _names(element.value if type(element) is ir.Starred else element)


__all__ = ["MUTATING_METHODS", "check_shared_state"]
