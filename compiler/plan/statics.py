"""This module defines what the compiler knows about a program without running it, for the
analyses of the approval screen: walks over the IR, the top-level constants (names bound once
to a literal and never changed), the value of a literal expression, and the static size and
items of an iterable (`for x in ["a", "b"]`, `range(MAX_ATTEMPTS)`).

"Static" is deliberately narrow, in the spirit of "better absent than wrong": a size is known
only for literals, `range()` of constants, top-level constants that nothing reassigns, augments,
deletes or mutates anywhere in the script, and `enumerate`/`sorted`/`reversed`/`list`/`tuple`
of those. A filtered comprehension, a slice, a parameter or any result of an effect has no
static size, and the approval screen says "one per item" instead of guessing.

`module_constants` is the IR twin of `compiler.lower.constants.ModuleConstants`, which reads the
syntax tree for schema synthesis before any IR exists; both take the methods that change their
receiver from `grammar.builtins.MUTATING_METHODS`.
"""

from __future__ import annotations

from typing import Iterable

from dwf.grammar.builtins import MUTATING_METHODS

from dwf.compiler import ir

_FIELDS: dict[type, tuple[str, ...]] = {}


def iter_nodes(root) -> Iterable[ir.Node]:
    """Every IR node under `root` (a node or a tuple of nodes), pre-order."""
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.extend(reversed(item))
            continue
        if not isinstance(item, ir.Node):
            continue
        yield item
        names = _FIELDS.get(type(item))
        if names is None:
            names = tuple(f for f in type(item).__dataclass_fields__ if f != "span")
            _FIELDS[type(item)] = names
        children = [getattr(item, name) for name in names]
        stack.extend(reversed([c for c in children if isinstance(c, (ir.Node, tuple))]))


def site_order(site: str) -> tuple[str, int]:
    kind, _, number = site.partition("#")
    return (kind, int(number) if number.isdigit() else 0)



def children(node):
    """The IR nodes directly under `node`, in field order."""
    for name in type(node).__dataclass_fields__:
        if name == "span":
            continue
        value = getattr(node, name)
        if isinstance(value, ir.Node):
            yield value
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, ir.Node):
                    yield item


MAX_STATIC_ITEMS = 10_000


def static_items(node, constants: dict) -> tuple | None:
    """The items a loop or fan-out iterates, when the compiler can know them: a literal list,
    tuple or set (no `*`), a `range()` of constants, a top-level constant never reassigned or
    mutated, or `enumerate`/`sorted`/`reversed`/`list`/`tuple` of one of those. Items that
    are not constants are `None` placeholders; only the count matters then."""
    kind = type(node)
    if kind in (ir.List, ir.Tuple, ir.Set):
        if any(type(e) is ir.Starred for e in node.elts):
            return None
        return tuple(literal_value(e, constants) if is_literal(e, constants) else None for e in node.elts)
    if kind is ir.Dict:
        if any(k is None for k in node.keys):
            return None
        return tuple(literal_value(k, constants) if is_literal(k, constants) else None for k in node.keys)
    if kind is ir.Name and node.scope == ir.GLOBAL and node.id in constants:
        value = constants[node.id]
        if isinstance(value, (list, tuple, dict, str)) and not isinstance(value, str):
            return tuple(value)
        return None
    if kind is ir.Call and type(node.func) is ir.Name and node.func.scope == ir.BUILTIN and not node.keywords:
        name, args = node.func.id, node.args
        if name == "range" and 1 <= len(args) <= 3:
            values = [literal_value(a, constants) if is_literal(a, constants) else None for a in args]
            if all(isinstance(v, int) and not isinstance(v, bool) for v in values) and (len(values) < 3 or values[2]):
                span = range(*values)
                if len(span) <= MAX_STATIC_ITEMS:
                    return tuple(span)
            return None
        if name in ("enumerate", "sorted", "reversed", "list", "tuple") and len(args) == 1:
            items = static_items(args[0], constants)
            if items is None:
                return None
            if name == "enumerate":
                return tuple((i, v) for i, v in enumerate(items))
            if name == "sorted":
                try:
                    return tuple(sorted(items))
                except TypeError:
                    return items
            return tuple(reversed(items)) if name == "reversed" else items
    return None


def is_literal(node, constants: dict) -> bool:
    kind = type(node)
    if kind is ir.Const:
        return True
    if kind in (ir.List, ir.Tuple, ir.Set):
        return all(type(e) is not ir.Starred and is_literal(e, constants) for e in node.elts)
    if kind is ir.Dict:
        return all(k is not None and is_literal(k, constants) and is_literal(v, constants) for k, v in zip(node.keys, node.values))
    if kind is ir.UnaryOp and node.op == "-" and type(node.operand) is ir.Const:
        return isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool)
    if kind is ir.Name:
        return node.scope == ir.GLOBAL and node.id in constants
    return False


def literal_value(node, constants: dict):
    kind = type(node)
    if kind is ir.Const:
        return node.value
    if kind in (ir.List, ir.Tuple, ir.Set):
        return tuple(literal_value(e, constants) for e in node.elts)
    if kind is ir.Dict:
        return {literal_value(k, constants): literal_value(v, constants) for k, v in zip(node.keys, node.values)}
    if kind is ir.UnaryOp:
        return -node.operand.value
    if kind is ir.Name:
        return constants[node.id]
    return None


def module_constants(program: ir.Program) -> dict[str, object]:
    """Top-level names bound exactly once, by `NAME = <literal>` at the top level, and never
    reassigned, augmented, deleted or mutated anywhere in the script."""
    writes: dict[str, int] = {}

    def base(node):
        while type(node) in (ir.Subscript, ir.Attribute):
            node = node.value
        return node.id if type(node) is ir.Name and node.scope == ir.GLOBAL else None

    def bump(name):
        if name is not None:
            writes[name] = writes.get(name, 0) + 1

    for node in iter_nodes(program.body):
        kind = type(node)
        if kind is ir.Assign:
            for target in node.targets:
                for leaf in iter_nodes(target):
                    if type(leaf) is ir.Name and leaf.scope == ir.GLOBAL and (leaf is target or type(target) in (ir.Tuple, ir.List, ir.Starred)):
                        bump(leaf.id)
                if type(target) in (ir.Subscript, ir.Attribute):
                    bump(base(target))
        elif kind in (ir.AugAssign, ir.AnnAssign):
            bump(base(node.target))
        elif kind is ir.For:
            for leaf in iter_nodes(node.target):
                if type(leaf) is ir.Name and leaf.scope == ir.GLOBAL:
                    bump(leaf.id)
        elif kind is ir.NamedExpr:
            bump(node.target.id if node.target.scope == ir.GLOBAL else None)
        elif kind is ir.Delete:
            for target in node.targets:
                bump(base(target))
        elif kind is ir.Call and type(node.func) is ir.Attribute and node.func.attr in MUTATING_METHODS:
            bump(base(node.func.value))
        elif kind is ir.FunctionDef and node.scope == ir.GLOBAL:
            bump(node.name)  # with any `name = ...` that makes two writes: not a constant
    constants: dict[str, object] = {}
    for stmt in program.body:
        if (type(stmt) is ir.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ir.Name
                and writes.get(stmt.targets[0].id) == 1 and is_literal(stmt.value, constants)):
            constants[stmt.targets[0].id] = literal_value(stmt.value, constants)
    return constants
