"""The diagnostic catalogue: every rule the compiler can report, by code.

Importing this package registers every rule; `REGISTRY` maps code -> rule class and
`all_rules()` lists them in code order.
"""

from . import effects, internal, meta, names, schemas, syntax  # noqa: F401  (registers rules)
from .base import GROUPS, REGISTRY, RETIRED, Rule


def all_rules() -> list[type[Rule]]:
    return [REGISTRY[code] for code in sorted(REGISTRY)]


def lookup(code: str) -> type[Rule] | None:
    return REGISTRY.get(code.upper())


__all__ = ["GROUPS", "REGISTRY", "RETIRED", "Rule", "all_rules", "lookup"]
