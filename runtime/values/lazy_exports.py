"""This module defines `lazy_exports`, how a runtime package exports names that load on first use
(PEP 562). The packages `dwfc` or a worker process imports at start-up (`values`, `interpreter`,
`host`) export this way, so importing the package does not load every module in it."""

from __future__ import annotations

from importlib import import_module
from typing import Any, Callable


def lazy_exports(package: str, homes: dict[str, str]) -> tuple[list[str], Callable[[str], Any]]:
    """lazy_exports(package, homes): the `__all__` and the module `__getattr__` of `package`,
    whose public names live in its submodules as `homes` says (name -> module name)."""
    def attribute(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{homes[name]}"), name)

    return sorted(homes), attribute
