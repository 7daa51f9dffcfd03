"""Stage 2, lowering: one walk over CPython's syntax tree that turns every accepted construct into
IR. The tree stops here; later passes see only IR.

- `lowerer.py`: `Lowerer`, the walk's state, its pre-passes and name resolution.
- `state.py`: `LoweringState`, the declared state `Lowerer` and its mixins share.
- `statements.py`: `StatementLowering`, blocks and statements.
- `expressions.py`: `ExpressionLowering`, expressions and calls.
- `facade.py`: `FacadeLowering`, facade recognition, facade calls and their sites.
- `exceptions.py`: `ExceptionClassLowering`, exception class declarations.
- `constants.py`: `ModuleConstants`, the top-level constants schema synthesis may name.
- `occurrences.py`: the last pass, minting the persistent loop and call IDs of occurrence keys.
- `literals.py`: reading literals and source text out of syntax-tree nodes.
- `arguments.py`: `Arg`, a call's arguments in source order.
- `scopes.py`: scopes and the binding pre-pass.

`Lowerer` lives in `lowerer.py`, not here, and the package imports none of its modules, so that
importing `literals` or `scopes` (as `effect_rules.py` does) does not import the whole lowering,
which imports `effect_rules.py` back. `__all__` names the modules.
"""

__all__ = ["arguments", "constants", "exceptions", "expressions", "facade", "literals", "lowerer", "scopes", "state", "statements"]
