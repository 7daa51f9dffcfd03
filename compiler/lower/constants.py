"""This module defines the module constants lowering knows before any IR exists: the top-level
names bound exactly once by `name = value` and never changed, read off CPython's syntax tree.

Literal `returns={...}` schemas may name such a constant (`returns=FINDING`), so schema
synthesis (`compiler.schemas`) needs them while the script is being lowered. Its twin over the
IR, `compiler.plan.statics.module_constants`, serves the approval screen, which reads the IR
only; the two cannot merge because this one runs before the IR is built. Both take the methods
that change their receiver from the one table, `grammar.builtins.MUTATING_METHODS`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cached_property

import ast

from dwf.grammar.builtins import MUTATING_METHODS

from dwf.compiler.lower.scopes import ASSIGN, Scope


class ModuleConstants(Mapping):
    """ModuleConstants: name -> value expression of each top-level name bound exactly once by
    `name = value` and never reassigned, augmented, deleted or mutated; computed on first use
    (only scripts with literal-dict schemas need it)."""

    def __init__(self, module_scope: Scope, module: ast.Module):
        self._module_scope = module_scope
        self._module = module

    @cached_property
    def _constants(self) -> dict[str, ast.expr]:
        candidates = {name: bindings[0].value for name, bindings in self._module_scope.bindings.items()
                      if len(bindings) == 1 and bindings[0].kind == ASSIGN and bindings[0].value is not None}
        mutated = mutated_names(self._module)
        return {name: value for name, value in candidates.items() if name not in mutated}

    def __getitem__(self, key: str) -> ast.expr:
        return self._constants[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._constants)

    def __len__(self) -> int:
        return len(self._constants)


def mutated_names(module: ast.Module) -> set[str]:
    """Every name whose value a statement may change: item or attribute assignment (a direct
    target), augmented assignment, `del` of one target and calls of a mutating method."""
    names: set[str] = set()

    def base(node: ast.AST) -> None:
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        if isinstance(node, ast.Name):
            names.add(node.id)

    for node in ast.walk(module):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, (ast.Subscript, ast.Attribute)):
                    base(target)
        elif isinstance(node, ast.AugAssign):
            base(node.target)
        elif isinstance(node, ast.Delete) and len(node.targets) == 1:
            base(node.targets[0])
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
                base(node.func.value)
    return names
