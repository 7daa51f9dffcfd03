"""The DWF compiler: source text to diagnostics, site IDs, schemas and the analyzed IR.

- `source.py`, `parse.py`, `diagnostics.py`, `ir.py`, `meta.py`, `compile.py`, `render.py`, `ruledocs.py`,
  `version.py`: the stages and their shared types.
- `lower/`: stage 3, libcst to IR.
- `schemas/`: schema synthesis for typed asks.
- `checks/`: checks over the lowered program (kinds, repeated actors, names not offered, `re` calls).
- `effect_rules.py`: the effect rules over the facts lowering collects.
- `rules/`: the rule catalogue.
- `plan/`: the approval screen (reads IR only).
"""
