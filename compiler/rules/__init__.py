"""The diagnostic catalogue: every rule the compiler can report, by code.

- `base.py`: `Rule`, the shape of a catalogue entry, and `REGISTRY`, `RETIRED`, `GROUPS`.
- `syntax.py`: parse errors (DWF0xx) and constructs outside the syntax subset (DWF1xx).
- `names.py`: names, determinism and the sandbox (DWF2xx).
- `effects.py`: the facade and its effects (DWF3xx).
- `schemas.py`: result-type schemas (DWF4xx).
- `meta.py`: the meta block and run arguments (DWF5xx).
- `internal.py`: internal compiler errors (DWF9xx).

Importing this package registers every rule; `REGISTRY` maps code -> rule class and
`all_rules()` lists them in code order.
"""

from . import effects, internal, meta, names, schemas, syntax  # noqa: F401  (registers rules)
from .base import GROUPS, REGISTRY, RETIRED, Rule


def all_rules() -> list[type[Rule]]:
    """all_rules: every rule of the catalogue, in code order."""
    return [REGISTRY[code] for code in sorted(REGISTRY)]


def lookup(code: str) -> type[Rule] | None:
    """lookup: the rule with this code (any case), or None."""
    return REGISTRY.get(code.upper())


__all__ = ["GROUPS", "REGISTRY", "RETIRED", "Rule", "all_rules", "lookup"]
