"""This module defines run-argument validation against `meta["args"]` (LANGUAGE §3): every
problem is reported at once (unknown name, missing required, wrong type), and defaults fill in."""

from __future__ import annotations

import difflib
from typing import Any

from dwf.grammar.meta import Meta, value_matches_arg_type


class ArgumentError(Exception):
    """ArgumentError: the given run arguments do not fit meta's `args`; `problems` lists each, and
    `names[i]` is the argument `problems[i]` is about (for `$.path: message` forms)."""

    def __init__(self, problems: list[str], names: list[str] | None = None):
        super().__init__("; ".join(problems))
        self.problems = problems
        self.names = names if names is not None else [""] * len(problems)


def validate_args(meta: Meta, given: dict[str, Any]) -> dict[str, Any]:
    """The run's arguments: `given`, checked against meta's `args`, with defaults filled in."""
    declared = meta.get("args", {})
    problems: list[str] = []
    names: list[str] = []

    def problem(name: str, message: str) -> None:
        names.append(name)
        problems.append(message)

    values: dict[str, Any] = {}
    for name in given:
        if name not in declared:
            close = difflib.get_close_matches(name, list(declared), n=1)
            if close:
                problem(name, f"unknown argument `{name}` (did you mean `{close[0]}`?)")
            elif declared:
                problem(name, f"unknown argument `{name}` (declared: {', '.join(sorted(declared))})")
            else:
                problem(name, f"unknown argument `{name}`: this workflow declares no arguments")
    for name, spec in declared.items():
        arg_type = spec.get("type", "json")
        if name in given:
            value = given[name]
            if not value_matches_arg_type(value, arg_type):
                problem(name, f"argument `{name}` must be of type {arg_type}, got {value!r}")
                continue
            values[name] = value
        elif "default" in spec:
            values[name] = spec["default"]
        elif spec.get("required"):
            problem(name, f"missing required argument `{name}` ({arg_type})")
    if problems:
        raise ArgumentError(problems, names)
    return values
