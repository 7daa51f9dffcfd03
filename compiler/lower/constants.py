"""This module defines the module constants lowering knows before any IR exists: the top-level
names bound exactly once by `name = value` and never changed, read off the libcst tree.

Literal `returns={...}` schemas may name such a constant (`returns=FINDING`), so schema
synthesis (`compiler.schemas`) needs them while the script is being lowered. Its twin over the
IR, `compiler.plan.statics.module_constants`, serves the approval screen, which reads the IR
only; the two cannot merge because this one runs before the IR is built. Both take the methods
that change their receiver from the one table, `grammar.builtins.MUTATING_METHODS`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cached_property

import libcst as cst

from dwf.grammar.builtins import MUTATING_METHODS

from dwf.compiler.lower.scopes import ASSIGN, Scope


class ModuleConstants(Mapping):
    """ModuleConstants: name -> value expression of each top-level name bound exactly once by
    `name = value` and never reassigned, augmented, deleted or mutated; computed on first use
    (only scripts with literal-dict schemas need it)."""

    def __init__(self, module_scope: Scope, module: cst.Module):
        self._module_scope = module_scope
        self._module = module

    @cached_property
    def _constants(self) -> dict[str, cst.BaseExpression]:
        candidates = {name: bindings[0].value for name, bindings in self._module_scope.bindings.items()
                      if len(bindings) == 1 and bindings[0].kind == ASSIGN and bindings[0].value is not None}
        mutated = MutationScan()
        self._module.visit(mutated)
        return {name: value for name, value in candidates.items() if name not in mutated.names}

    def __getitem__(self, key: str) -> cst.BaseExpression:
        return self._constants[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._constants)

    def __len__(self) -> int:
        return len(self._constants)


class MutationScan(cst.CSTVisitor):
    """MutationScan: collects in `names` every name whose value a statement may change: item or
    attribute assignment, augmented assignment, `del` and calls of a mutating method."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def _base(self, node: cst.BaseExpression) -> None:
        while isinstance(node, (cst.Subscript, cst.Attribute)):
            node = node.value
        if isinstance(node, cst.Name):
            self.names.add(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, (cst.Subscript, cst.Attribute)):
            self._base(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._base(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._base(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in MUTATING_METHODS:
            self._base(node.func.value)
