"""This module defines the check for fixed actor names in helpers that run more than once: a
literal `agent("reviewer")` inside a `def` that a loop, a comprehension, a join or a second
call site reaches creates a second actor of that name, which the run refuses
(`DuplicateActorName`) after the asks before it were paid for. `DWF311` already reports a
literal name written inside a loop; this pass follows calls of script functions.

How it works. One walk over the IR records, for every function defined by a `def` (by name and
defining scope), where it is used: each call site, and whether a call or a reference (a
function passed as a value, e.g. a `pipeline` stage or a `map` callback) sits where it repeats —
inside a loop or comprehension body, or inside a lambda. A function *may run more than once*
when it is referenced as a value, called where it repeats, called at two or more sites, or
called by a function that may run more than once (a fixed point over the call graph, so
recursion counts). Every literal actor name inside such a function is reported once, at the
name. Names bound to more than one `def` are left alone (which one runs is not known here).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from dwf.compiler import ir
from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.rules import effects as E

FUNCTION_SCOPES = (ir.LOCAL, ir.GLOBAL, ir.FREE)


def check_repeated_helper_actors(body: tuple[ir.Stmt, ...], sink: DiagnosticSink) -> None:
    uses = _Uses()
    uses.block(body, owner=None, repeats=False)
    defined = {name: defs[0] for name, defs in uses.definitions.items() if len(defs) == 1}
    repeated = {name for name in defined if name in uses.repeated_use or uses.call_sites[name] >= 2}
    changed = True
    while changed:  # callees of a repeated function repeat too
        changed = False
        for caller in list(repeated):
            for callee in uses.callees[caller]:
                if callee in defined and callee not in repeated:
                    repeated.add(callee)
                    changed = True
    for name in sorted(repeated, key=lambda n: (defined[n].span.line, defined[n].span.column)):
        for literal in uses.literal_actors[name]:
            sink.report(E.LiteralActorNameInLoop, literal.span, name=literal.value, where=f"each time `{name}()` runs",
                        help=f"`{name}()` runs more than once, and each run creates an actor with this fixed "
                             f"name: build the name from its arguments (e.g. f\"{literal.value}-{{item}}\"), "
                             f"or create the actor once and pass it in")


class _Uses:
    """The walk: what each `def`-bound name is used for, and by whom."""

    def __init__(self) -> None:
        self.definitions: dict[str, list[ir.FunctionDef]] = defaultdict(list)
        self.call_sites: dict[str, int] = defaultdict(int)
        self.repeated_use: set[str] = set()
        self.callees: dict[str | None, set[str]] = defaultdict(set)
        self.literal_actors: dict[str, list[ir.Const]] = defaultdict(list)

    def block(self, statements, owner: str | None, repeats: bool) -> None:
        for statement in statements:
            self.node(statement, owner, repeats)

    def node(self, node, owner: str | None, repeats: bool) -> None:
        kind = type(node)
        if kind is ir.FunctionDef:
            self.definitions[node.name].append(node)
            for param in node.params:
                if param.default is not None:
                    self.node(param.default, owner, repeats)
            self.block(node.body, owner=node.name, repeats=False)  # a loop inside a def repeats within it only
            return
        if kind in (ir.For, ir.While):
            self.node(node.iter if kind is ir.For else node.test, owner, repeats)
            if kind is ir.For:
                self.node(node.target, owner, repeats)
            self.block(node.body, owner, True)
            self.block(node.orelse, owner, repeats)
            return
        if kind in (ir.ListComp, ir.SetComp, ir.GeneratorExp, ir.DictComp):
            first, *rest = node.generators
            self.node(first.iter, owner, repeats)  # evaluated once, outside the comprehension
            for generator in (first, *rest):
                if generator is not first:
                    self.node(generator.iter, owner, True)
                self.node(generator.target, owner, True)
                for condition in generator.ifs:
                    self.node(condition, owner, True)
            for part in ((node.key, node.value) if kind is ir.DictComp else (node.elt,)):
                self.node(part, owner, True)
            return
        if kind is ir.Lambda:
            for param in node.params:
                if param.default is not None:
                    self.node(param.default, owner, repeats)
            self.node(node.body, owner, True)
            return
        if kind is ir.Call and type(node.func) is ir.Name and node.func.scope in FUNCTION_SCOPES:
            name = node.func.id
            self.call_sites[name] += 1
            self.callees[owner].add(name)
            if repeats:
                self.repeated_use.add(name)
            for part in (*node.args, *node.keywords):
                self.node(part, owner, repeats)
            return
        if kind is ir.Name:
            if node.scope in FUNCTION_SCOPES:  # a function handed on as a value may run any number of times
                self.repeated_use.add(node.id)
            return
        if kind is ir.FacadeCall and node.op == "agent" and owner is not None and not repeats:
            literal = node.args[0] if node.args else next((k.value for k in node.keywords if k.name == "name"), None)
            if type(literal) is ir.Const and isinstance(literal.value, str) and literal.value:
                self.literal_actors[owner].append(literal)
        for field in dataclasses.fields(node):
            if field.name == "span":
                continue
            value = getattr(node, field.name)
            if isinstance(value, ir.Node):
                self.node(value, owner, repeats)
            elif isinstance(value, tuple):
                for item in value:
                    if isinstance(item, ir.Node):
                        self.node(item, owner, repeats)
