"""This module defines the meta block's JSON Schema (loaded from `meta.schema.json`) and the
JSON types run arguments may declare."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

ARG_TYPES = ("string", "integer", "number", "boolean", "json")


@cache
def meta_schema() -> dict:
    return json.loads((Path(__file__).parent / "meta.schema.json").read_text(encoding="utf-8"))


def value_matches_arg_type(value: object, arg_type: str) -> bool:
    """Whether a JSON value fits a declared argument type (bools are not integers)."""
    if arg_type == "json":
        return True
    if arg_type == "string":
        return isinstance(value, str)
    if arg_type == "boolean":
        return isinstance(value, bool)
    if arg_type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if arg_type == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and value not in (float("inf"), float("-inf"))
    return False
