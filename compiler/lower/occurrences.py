"""This module defines the last lowering pass: it mints the persistent occurrence IDs into the IR.

An effect's occurrence key (`ask#1/for#1[0]/call#4`, RUNTIME §5) names, besides its site, each
enclosing loop or comprehension iteration and each helper call site it runs under. Keys are
journaled and matched again by resume and amend, so these IDs are as persistent as site IDs:
`For.loop_id` (`for#N`), `While.loop_id` (`while#N`), `Comprehension.loop_id` (`comp#N`, one per
`for` clause) and `Call.call_id` (`call#N`), plus `has_effects` on loops (whether an iteration
must extend the path at all). The runtime only reads them.

Numbering rule. Each kind counts from 1 over the whole program, in the order the runtime's
closure compiler numbered them when it still minted them (before issue #12), so journals
written then keep their keys: a pre-order walk of the statements, in which a node is numbered
before its children, and children are visited in field order except where the closure compiler
compiled them in another order (`_ORDER`): an assignment's value before its targets, a `for`
loop's iterable before its target, a conditional expression's test first, a comprehension's
clauses before its element, a format spec before its value, a facade call's receiver after its
arguments, and a dict display key by key. tests/runtime/test_journal_fixture_resume.py resumes a
journal recorded before the change.

`has_effects` is true when the loop body (a comprehension: its clauses and its element; for a
dict comprehension its value, not its key, as before) contains a facade call or a call of
anything but a builtin, anywhere, nested functions included.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from dwf.compiler import ir

# Fields that are minted here, never walked.
_MINTED = frozenset({"span", "loop_id", "call_id", "has_effects"})

# Child visiting order where the closure compiler did not follow field order.
_ORDER: dict[type, tuple[str, ...]] = {
    ir.Assign: ("value", "targets"),
    ir.AugAssign: ("value", "target"),
    ir.AnnAssign: ("value", "target"),
    ir.NamedExpr: ("value", "target"),
    ir.For: ("iter", "target", "body", "orelse"),
    ir.IfExp: ("test", "body", "orelse"),
    ir.FormattedValue: ("format_spec", "value"),
    ir.FacadeCall: ("args", "keywords", "receiver"),
    ir.ListComp: ("generators", "elt"),
    ir.SetComp: ("generators", "elt"),
    ir.GeneratorExp: ("generators", "elt"),
    ir.DictComp: ("generators", "key", "value"),
}

# The kind each numbered node type counts in.
_KINDS: dict[type, str] = {ir.For: "for", ir.While: "while", ir.Comprehension: "comp", ir.Call: "call"}
_COMPREHENSIONS = (ir.ListComp, ir.SetComp, ir.GeneratorExp, ir.DictComp)


def mint_occurrence_ids(body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    """`body` with `loop_id`, `call_id` and `has_effects` set on every loop, comprehension clause
    and call (see the module docstring for the numbering rule)."""
    return _Minter().walk(body)


def has_effects(value: Any) -> bool:
    """Whether an IR subtree contains an effect or a call of a script function (so loops around
    it must extend the occurrence path)."""
    if isinstance(value, ir.FacadeCall):
        return True
    if isinstance(value, ir.Call) and not (isinstance(value.func, ir.Name) and value.func.scope == ir.BUILTIN):
        return True
    if isinstance(value, ir.Node):
        return any(has_effects(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name not in _MINTED)
    if isinstance(value, tuple):
        return any(has_effects(v) for v in value)
    return False


class _Minter:
    def __init__(self) -> None:
        self.counters: dict[str, int] = {}

    def number(self, kind: str) -> str:
        self.counters[kind] = self.counters.get(kind, 0) + 1
        return f"{kind}#{self.counters[kind]}"

    def walk(self, value: Any) -> Any:
        if isinstance(value, ir.Node):
            return self.node(value)
        if isinstance(value, tuple):
            return tuple(self.walk(v) for v in value)
        return value

    def node(self, node: ir.Node) -> ir.Node:
        kind = type(node)
        minted: dict[str, Any] = {}
        numbered = _KINDS.get(kind)
        if numbered is not None:
            minted["call_id" if kind is ir.Call else "loop_id"] = self.number(numbered)
        if kind is ir.AnnAssign and node.value is None:
            return node  # a bare annotation compiles to nothing
        if kind is ir.Dict:  # key, value, key, value, ...
            pairs = [(self.walk(k), self.walk(v)) for k, v in zip(node.keys, node.values)]
            minted["keys"] = tuple(k for k, _ in pairs)
            minted["values"] = tuple(v for _, v in pairs)
        else:
            order = _ORDER.get(kind) or tuple(f.name for f in dataclasses.fields(node) if f.name not in _MINTED)
            for name in order:
                minted[name] = self.walk(getattr(node, name))
        if kind in (ir.For, ir.While):
            minted["has_effects"] = has_effects(minted["body"])
        elif kind in _COMPREHENSIONS:
            element = minted["value"] if kind is ir.DictComp else minted["elt"]
            minted["has_effects"] = has_effects(minted["generators"]) or has_effects(element)
        return dataclasses.replace(node, **minted)
