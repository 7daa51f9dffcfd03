"""This module defines the meta block's JSON Schema (loaded from `meta.schema.json`), the type of
a meta block as data (`Meta`) and the JSON types run arguments may declare."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

ARG_TYPES = ("string", "integer", "number", "boolean", "json")


class Meta(TypedDict, total=False):
    """Meta: a script's meta block as the JSON data it is (`ir.Program.meta`, the journal's run
    rows, `run-started` events). `meta.schema.json` is its definition: a compiled program's meta
    block has been validated against it, so `name` and `description` are there and every
    value has the type below; a `Meta` is empty only where there is no meta block at all."""

    name: str
    description: str
    when_to_use: str
    phases: list[dict[str, str]]  # {"title": ..., "detail": ...}
    args: dict[str, dict[str, Any]]  # name -> {"type": ..., "description", "required", "default"}
    max_concurrency: int
    max_agents: int
    network: bool  # the run's commands may reach the network (the sandbox shares it)


@cache
def meta_schema() -> dict:
    """The meta block's JSON Schema (draft 2020-12), loaded once."""
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
