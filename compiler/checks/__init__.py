"""Checks over the lowered program (and two that lowering calls) that report diagnostics.

- `kinds.py`: kinds, what the compiler knows statically about a value.
- `kind_inference.py`: kind inference over the IR.
- `kind_checks.py`: the checks that use kinds, one walk over the IR after lowering.
- `repeated_actors.py`: fixed actor names in helpers that run more than once.
- `shared_state.py`: the determinism checks a resume relies on: state shared by a join's items
  (DWF330) and identity comparisons (DWF331).
- `not_offered.py`: the diagnostics for names, modules and attributes outside the language (called by
  lowering).
- `regex_checks.py`: the check-time checks of `re` calls (called by lowering on each call).

The package imports none of them (lowering imports two, `compiler.compile` the others):
`__all__` names the modules.
"""

__all__ = ["kind_checks", "kind_inference", "kinds", "not_offered", "regex_checks", "repeated_actors", "shared_state"]
