"""This module defines the compiler version recorded in every IR program and journal row.

It is a constant (kept equal to `pyproject.toml`'s version by `tests/test_packaging.py`), so
start-up does not pay for `importlib.metadata`."""

COMPILER_VERSION = "0.1.0"
