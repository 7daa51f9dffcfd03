"""This module defines meta-block extraction: the literal `meta = {...}` is read as data
without evaluating the script, validated against the shipped JSON Schema, and every violation
is reported at the source position of the offending key or value.

Most meta blocks are valid, and jsonschema costs more to import than compiling a short script:
`plainly_valid` decides the common case by hand, and only a block it cannot vouch for is given
to the validator, whose errors the diagnostics are made of."""

from __future__ import annotations

import difflib
import json
import re
from typing import TYPE_CHECKING, Callable

import ast

from dwf.grammar.meta import Meta, meta_schema, value_matches_arg_type

from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.positions import FStringField
from .rules.meta import ArgDefaultMismatch, MetaNotLiteral, MetaSchemaViolation
from dwf.compiler.source import Span

if TYPE_CHECKING:
    import jsonschema

class _Literal:
    """A literal's value plus the syntax-tree node of every value and dict key, by JSON path.
    Every part that is not a literal is recorded in `errors` (and read as None), so that all of
    them are reported at once."""

    def __init__(self, positions) -> None:
        self.positions = positions
        self.values: dict[tuple, ast.AST] = {}
        self.keys: dict[tuple, ast.AST] = {}
        self.errors: list[tuple[ast.AST, str]] = []

    def fail(self, node: ast.AST, detail: str) -> None:
        self.errors.append((node, detail))

    def convert(self, node: ast.expr, path: tuple = ()) -> object:
        self.values[path] = node
        if isinstance(node, ast.Dict):
            result = {}
            for key_node, value_node in zip(node.keys, node.values):
                if key_node is None:
                    self.fail(self.positions.spread_span(value_node), "`**` spreads are not allowed")
                    continue
                reported = len(self.errors)
                key = self.convert_scalar(key_node)
                if not isinstance(key, str):
                    if len(self.errors) == reported:  # not already reported as a non-literal
                        self.fail(key_node, "keys must be strings")
                    self.convert(value_node, path + ("?",))
                    continue
                self.keys[path + (key,)] = key_node
                result[key] = self.convert(value_node, path + (key,))
            return result
        if isinstance(node, (ast.List, ast.Tuple)):
            items = []
            for index, element in enumerate(node.elts):
                if isinstance(element, ast.Starred):
                    self.fail(element, "`*` unpacking is not allowed")
                    continue
                items.append(self.convert(element, path + (index,)))
            return items
        return self.convert_scalar(node)

    def convert_scalar(self, node: ast.expr) -> object:
        if isinstance(node, ast.JoinedStr):
            pieces = self.positions.string_pieces(node)
            if any(isinstance(part, FStringField) for piece in pieces for part in piece.parts or ()):
                return self.fail(node, "f-strings with fields are not allowed")
            if len(pieces) > 1:
                return None  # `"a" f"b"`: libcst gave no value for a concatenation with an f-string
            raw = "".join(pieces[0].parts)
            if "\\" in raw:
                return self.fail(node, "f-strings with fields are not allowed")
            return raw.replace("{{", "{").replace("}}", "}")
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bytes):
                return self.fail(node, "bytes are not allowed")
            if value is Ellipsis or isinstance(value, complex):
                return self._not_literal(node)
            return value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) \
                and isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float):
            value = node.operand.value
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Name):
            return self.fail(node, f"the name `{node.id}` is not a literal")
        if isinstance(node, ast.Call):
            return self.fail(node, "calls are not allowed")
        if isinstance(node, (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)):
            return self.fail(node, "comprehensions are not allowed")
        if isinstance(node, ast.Set):
            return self.fail(node, "sets are not allowed; use a list")
        return self._not_literal(node)

    def _not_literal(self, node: ast.expr) -> None:
        code = " ".join(self.positions.code(node).split())
        return self.fail(node, f"`{code if len(code) <= 40 else code[:39] + '…'}` is not a literal")


def json_path(path) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def extract_meta(node: ast.expr, span_of: Callable[[ast.AST], Span], sink: DiagnosticSink,
                 positions) -> tuple[Meta, list[tuple[str, Span]] | None] | None:
    """Read and validate the meta literal. Returns (value, phases with their spans) or None when
    the block is not a literal at all (reported)."""
    literal = _Literal(positions)
    value = literal.convert(node)
    for error_node, detail in literal.errors:
        sink.report(MetaNotLiteral, error_node if isinstance(error_node, Span) else span_of(error_node), detail=detail)
    if literal.errors:
        return None
    if not isinstance(value, dict):
        sink.report(MetaNotLiteral, span_of(node), detail="it must be a dict")
        return None
    _validate(value, literal, span_of, sink)
    _check_arg_defaults(value, literal, span_of, sink)
    phases = None
    if isinstance(value.get("phases"), list):
        phases = [(item["title"], span_of(literal.values[("phases", i, "title")]))
                  for i, item in enumerate(value["phases"])
                  if isinstance(item, dict) and isinstance(item.get("title"), str)]
    return value, phases


# What `grammar/meta.schema.json` allows, for `plainly_valid` (tests/compiler/test_meta_fast_path.py
# checks against the schema that everything it accepts is valid).
_META_KEYS = frozenset({"name", "description", "when_to_use", "phases", "args", "max_concurrency", "max_agents"})
_PHASE_KEYS = frozenset({"title", "detail"})
_ARG_KEYS = frozenset({"type", "description", "required", "default"})
_ARG_TYPES = frozenset({"string", "integer", "number", "boolean", "json"})
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_ARG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def plainly_valid(meta: object) -> bool:
    """True only when `meta` certainly satisfies the meta schema; False also for some valid
    blocks (a float cap of 2.0, say), which the validator then accepts."""
    if not isinstance(meta, dict) or not meta.keys() <= _META_KEYS:
        return False
    name, description = meta.get("name"), meta.get("description")
    if not (isinstance(name, str) and _NAME.fullmatch(name) and isinstance(description, str)
            and 1 <= len(description) <= 500 and isinstance(meta.get("when_to_use", ""), str)):
        return False
    phases, declared = meta.get("phases", []), meta.get("args", {})
    if not isinstance(phases, list) or not isinstance(declared, dict):
        return False
    for phase in phases:
        if not (isinstance(phase, dict) and phase.keys() <= _PHASE_KEYS and isinstance(phase.get("title"), str)
                and phase["title"] and isinstance(phase.get("detail", ""), str)):
            return False
    for key, spec in declared.items():
        if not (isinstance(key, str) and _ARG_NAME.fullmatch(key) and isinstance(spec, dict)
                and spec.keys() <= _ARG_KEYS and isinstance(spec.get("type"), str) and spec["type"] in _ARG_TYPES
                and isinstance(spec.get("description", ""), str) and isinstance(spec.get("required", False), bool)):
            return False
    return all(type(meta[cap]) is int and meta[cap] >= 1 for cap in ("max_concurrency", "max_agents") if cap in meta)


def _validate(value: dict, literal: _Literal, span_of, sink: DiagnosticSink) -> None:
    if plainly_valid(value):
        return
    import jsonschema  # deferred: start-up (only a meta block `plainly_valid` cannot vouch for)

    schema = meta_schema()
    validator = jsonschema.Draft202012Validator(schema)
    for error in sorted(validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.message)):
        path = tuple(error.absolute_path)
        node = literal.values.get(path, literal.values[()])
        if error.validator == "additionalProperties":
            allowed = sorted(error.schema.get("properties", {}))
            for key in sorted(set(error.instance) - set(allowed)):
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"did you mean `{close[0]}`?" if close else f"allowed keys: {', '.join(allowed)}"
                sink.report(MetaSchemaViolation, span_of(literal.keys[path + (key,)]),
                            path=json_path(path + (key,)), detail=f"unknown key `{key}`", help=hint)
            continue
        if "propertyNames" in error.absolute_schema_path:  # the instance is the offending key
            key = error.instance
            key_node = literal.keys.get(path + (key,), node)
            sink.report(MetaSchemaViolation, span_of(key_node), path=json_path(path + (key,)),
                        detail=f"`{key}` is not a valid argument name", help="argument names are identifiers: letters, digits and `_`")
            continue
        detail, hint = _describe(error, path)
        sink.report(MetaSchemaViolation, span_of(node), path=json_path(path), detail=detail, help=hint)


def _describe(error: jsonschema.ValidationError, path: tuple) -> tuple[str, str]:
    kind = error.validator
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        return f"the required key `{missing}` is missing", f"add \"{missing}\": ... to this dict"
    if kind == "pattern" and path == ("name",):
        return (f"the name {json.dumps(error.instance)} is not kebab-case",
                "use lowercase letters, digits and `-`, starting with a letter or digit, at most 64 characters")
    if kind == "type":
        return f"expected {_type_name(error.validator_value)}, got {_json_type(error.instance)}", "change the value's type"
    if kind == "enum":
        options = ", ".join(f"\"{o}\"" for o in error.validator_value)
        close = difflib.get_close_matches(str(error.instance), [str(o) for o in error.validator_value], n=1)
        return (f"{json.dumps(error.instance)} is not one of {options}",
                f"did you mean \"{close[0]}\"?" if close else f"use one of {options}")
    if kind == "minLength":
        what = path[-1] if path and isinstance(path[-1], str) else "value"
        return "must not be empty", f"write a short {what}"
    if kind == "maxLength":
        return f"is longer than {error.validator_value} characters", "shorten it"
    if kind == "minimum":
        return f"must be at least {error.validator_value}", "use a positive number"
    return error.message, "see the meta block's schema in the language reference"


def _type_name(value) -> str:
    names = {"string": "a string", "object": "a dict", "array": "a list", "integer": "an integer",
             "boolean": "a boolean", "number": "a number", "null": "None"}
    if isinstance(value, list):
        return " or ".join(names.get(v, v) for v in value)
    return names.get(value, str(value))


def _json_type(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a dict"


def _check_arg_defaults(value: dict, literal: _Literal, span_of, sink: DiagnosticSink) -> None:
    declared = value.get("args")
    if not isinstance(declared, dict):
        return
    for name, spec in declared.items():
        if not isinstance(spec, dict) or "default" not in spec or not isinstance(spec.get("type"), str):
            continue
        arg_type, default = spec["type"], spec["default"]
        if arg_type in ("string", "integer", "number", "boolean") and not value_matches_arg_type(default, arg_type):
            node = literal.values[("args", name, "default")]
            help = f"make the default {_type_name(arg_type)} or change the type"
            if isinstance(default, str):
                try:
                    parsed = json.loads(default)
                except ValueError:
                    parsed = None
                if parsed is not None and value_matches_arg_type(parsed, arg_type):
                    help = f"write {default} without quotes"
            sink.report(ArgDefaultMismatch, span_of(node), arg=name, actual=_json_type(default), expected=arg_type,
                        help=help)
