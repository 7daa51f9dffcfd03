"""This module defines facade lowering: `FacadeLowering`, the part of `Lowerer` that recognizes
what an expression denotes in the facade (a facade function, a container such as `files` or a
name bound only to one, the member a call invokes, whether a value is an actor),
turns facade calls into `FacadeCall` nodes with their site IDs and signature checks, and tracks
awaitables that are never awaited.

Site IDs are minted per kind, in source pre-order: the ID of a call is reserved *before* its
receiver and arguments are lowered, and helper bodies are numbered where they are written.
`phase()` and `log()` consume no counter. Only the relative order of effect calls of one kind
decides an ID, so comments, formatting and phase/log/report edits never renumber an ask.

It is a mixin without state of its own: lowering is one walk, and `Lowerer` (`compiler.lower.lowerer`)
defines the walk's state (scope, phase, loop depth, facts, sites).
"""

from __future__ import annotations

import difflib

import ast

from dwf.grammar import facade as F

from dwf.compiler import ir
from dwf.compiler.effect_rules import FacadeCallChecks
from dwf.compiler.rules import effects as E
from dwf.compiler.lower.arguments import call_args
from dwf.compiler.lower.scopes import ASSIGN, ASYNC_DEF, Scope
from dwf.compiler.lower.state import LoweringState

class FacadeLowering(LoweringState):
    """Recognizes and lowers facade calls; see the module docstring."""

    # ------------------------------------------------------------ sites

    def mint(self, kind: str) -> str:
        self.counters[kind] = self.counters.get(kind, 0) + 1
        return f"{kind}#{self.counters[kind]}"

    # ------------------------------------------------------------ facade recognition

    def _facade_function(self, func: ast.expr) -> str | None:
        if isinstance(func, ast.Name) and func.id in F.FUNCTIONS and self._resolve(func.id) == ir.FACADE:
            return func.id
        return None

    def _facade_container(self, node: ast.expr, seen: frozenset = frozenset()) -> str | None:
        """The facade container an expression denotes: `files`, or a name bound only to it
        (directly or through other such names: `f = files; g = f`)."""
        if not isinstance(node, ast.Name) or node.id in seen:
            return None
        kind = self._resolve(node.id)
        if kind == ir.FACADE and node.id in F.CONTAINERS:
            return node.id
        if kind in (ir.GLOBAL, ir.LOCAL, ir.FREE):
            scope: Scope | None = self.scope
            while scope is not None and node.id not in scope.bindings:
                scope = scope.parent
            bindings = scope.bindings[node.id] if scope else []
            if bindings and all(b.kind == ASSIGN and isinstance(b.value, ast.Name) for b in bindings):
                containers = {self._facade_container(b.value, seen | {node.id}) for b in bindings}
                if len(containers) == 1:
                    return containers.pop()
        return None

    def _facade_member(self, node: ast.Call) -> F.Member | None:
        """The facade member a call denotes (not for `Agent.ask`, whose receiver is dynamic)."""
        function_name = self._facade_function(node.func)
        if function_name is not None:
            return F.FUNCTIONS[function_name]
        if isinstance(node.func, ast.Attribute):
            container = self._facade_container(node.func.value)
            if container is not None:
                return F.members_of(container).get(node.func.attr)
        return None

    def _is_agent(self, node: ast.expr, seen: frozenset = frozenset()) -> bool:
        """Whether an expression is known to hold an actor: an `agent()` call, or a name bound
        only to such values."""
        if isinstance(node, ast.Call):
            return self._facade_function(node.func) == "agent"
        if isinstance(node, ast.Name) and node.id not in seen and self._resolve(node.id) in (ir.GLOBAL, ir.LOCAL, ir.FREE):
            scope: Scope | None = self.scope
            while scope is not None and node.id not in scope.bindings:
                scope = scope.parent
            bindings = scope.bindings[node.id] if scope else []
            return bool(bindings) and all(b.kind == ASSIGN and b.value is not None and self._is_agent(b.value, seen | {node.id})
                                          for b in bindings)
        return False

    def _unknown_member(self, node, container: str, attr: str) -> None:
        choices = sorted(set(F.members_of(container)) | set(F.CONTAINER_ATTRIBUTES.get(container, ())))
        close = difflib.get_close_matches(attr, choices, n=1)
        hint = f"did you mean `{container}.{close[0]}`?" if close else f"`{container}` offers: {', '.join(choices)}"
        if container == "files" and attr in ("write", "write_text", "append", "delete", "remove"):
            hint = "scripts cannot write files; ask an agent to change the workspace, or publish with `artifact.markdown(...)`"
        self.report(E.UnknownFacadeMember, node, container=container, member=attr, hint=hint)

    # ------------------------------------------------------------ facade calls

    def facade_call(self, node: ast.Call, member: F.Member, receiver: ast.expr | None) -> ir.Expr:
        span = self.span(node)
        if member.name == "hole":
            self.report(E.HoleNotSupported, node.func)
        if member.name == "phase":
            self.report(E.PhaseNotStatement, node)
            return ir.Invalid(span, "phase")
        site = self.mint(member.site_kind) if member.site_kind else None
        checks = FacadeCallChecks(self, node, member, site)
        checks.before_arguments()
        lowered_receiver = self.expr(receiver) if receiver is not None else None
        skip = ("returns",) if "returns" in member.signature.keyword_only else ()  # a type, not a value
        args, keywords = self.arguments(call_args(node), skip)
        self._check_arguments(node, member, member.qualified if member.container != "Agent" else "ask")
        schema = checks.after_arguments(args, keywords, lowered_receiver)
        op = member.qualified if member.container != "Agent" else "ask"
        return ir.FacadeCall(span, op, site, lowered_receiver, args, keywords, schema)

    def _check_arguments(self, node: ast.Call, member: F.Member, display: str) -> None:
        """Check a facade call against its signature; the first problem is reported at the
        offending argument (or at the call when one is missing)."""
        signature = member.signature
        arguments = call_args(node)
        positional = [a for a in arguments if a.keyword is None and not a.star]
        has_star = any(a.star for a in arguments)
        given: set[str] = set()
        problem, where = None, node
        if len(positional) > len(signature.positional) and signature.variadic is None:
            count = len(signature.positional)
            problem = f"takes at most {count} positional argument{'s' if count != 1 else ''} but {len(positional)} were given"
            where = positional[count].value
        given.update(signature.positional[: len(positional)])
        keywords_seen: set[str] = set()
        for arg in arguments:
            if arg.keyword is None or problem is not None:
                continue
            keyword = arg.keyword
            if keyword in keywords_seen:
                continue  # a repeated keyword is `DWF110`
            keywords_seen.add(keyword)
            allowed = signature.positional + signature.keyword_only
            if keyword not in allowed:
                close = difflib.get_close_matches(keyword, allowed, n=1)
                hint = F.KEYWORD_HINTS.get(member.qualified, {}).get(keyword) or (f"did you mean `{close[0]}`?" if close else "")
                problem = f"got an unexpected keyword argument `{keyword}`" + (f"; {hint}" if hint else "")
                where = self.positions.keyword_name_span(arg.node)
            elif keyword in given:
                problem, where = f"got multiple values for argument `{keyword}`", self.positions.keyword_name_span(arg.node)
            given.add(keyword)
        if problem is None and not has_star:
            missing = [p for p in signature.positional[: signature.required] if p not in given]
            if missing:
                problem = f"is missing the required argument `{missing[0]}`"
        if problem:
            self.report(E.FacadeArguments, where, name=display, problem=problem, signature=signature.render(display))

    # ------------------------------------------------------------ awaitables

    def _awaitable_description(self, value: ir.Expr) -> str | None:
        if isinstance(value, ir.FacadeCall):
            member = F.BY_QUALIFIED.get(value.op if value.op != "ask" else "Agent.ask")
            if member is not None and member.awaitable:
                return f"This `{value.op}()` call" if value.op != "ask" else "This ask"
        if isinstance(value, ir.Call) and isinstance(value.func, ir.Name):
            if self._is_async_function(value.func.id):
                return f"This call of `async def {value.func.id}`"
        return None

    def _is_async_function(self, name: str) -> bool:
        return self._binds_only(name, (ASYNC_DEF,))

    def _binds_only(self, name: str, kinds: tuple[str, ...]) -> bool:
        """Whether every binding of `name` visible here is of one of `kinds` (e.g. a `def`)."""
        scope: Scope | None = self.scope
        while scope is not None and name not in scope.bindings:
            scope = scope.parent
        if scope is None:
            return False
        bindings = scope.bindings[name]
        return all(b.kind in kinds for b in bindings)

    def _check_unused_awaitables(self) -> None:
        for scope, name, span, what in self.pending_unused:
            if name not in scope.loads:
                self.sink.report(E.AwaitableNotAwaited, span, what=f"{what} (assigned to `{name}`)")
