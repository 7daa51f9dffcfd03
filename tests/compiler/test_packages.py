"""Each package of the compiler and the grammar maps itself: its `__init__` docstring names every
module of the folder, and its `__all__` names its public API, every class and function of which
has a docstring. A name in `__all__` may be a submodule the package does not import (the API of
`dwf.compiler`, `lower`, `plan` and `checks` is their modules)."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

PACKAGES = ["dwf.grammar", "dwf.compiler", "dwf.compiler.lower", "dwf.compiler.schemas", "dwf.compiler.plan",
            "dwf.compiler.checks", "dwf.compiler.rules"]


def public_api(package):
    for name in package.__all__:
        if hasattr(package, name):
            yield name, getattr(package, name)
        else:
            yield name, importlib.import_module(f"{package.__name__}.{name}")


@pytest.mark.parametrize("name", PACKAGES)
def test_the_package_docstring_maps_every_module(name):
    package = importlib.import_module(name)
    modules = sorted(path.name for path in Path(package.__file__).parent.glob("*.py") if path.name != "__init__.py")
    missing = [module for module in modules if f"`{module}`" not in (package.__doc__ or "")]
    assert not missing, f"{name}'s docstring does not map {missing}"


@pytest.mark.parametrize("name", PACKAGES)
def test_everything_in_all_exists_and_is_documented(name):
    package = importlib.import_module(name)
    assert isinstance(package.__all__, list) and package.__all__
    undocumented = [item for item, value in public_api(package)
                    if (inspect.isclass(value) or inspect.isfunction(value) or inspect.ismodule(value))
                    and not (value.__doc__ or "").strip()]
    assert not undocumented, f"{name}: no docstring on {undocumented}"
