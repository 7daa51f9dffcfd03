"""This module defines meta-block extraction: the literal `meta = {...}` is read as data
without evaluating the script, validated against the shipped JSON Schema, and every violation
is reported at the source position of the offending key or value."""

from __future__ import annotations

import difflib
from typing import Callable

import jsonschema
import libcst as cst

from dwf.grammar.meta import meta_schema, value_matches_arg_type

from .diagnostics import DiagnosticSink
from .rules.meta import ArgDefaultMismatch, MetaNotLiteral, MetaSchemaViolation
from .source import Span


class _NotLiteral(Exception):
    def __init__(self, node: cst.CSTNode, detail: str):
        self.node, self.detail = node, detail


class _Literal:
    """A literal's value plus the CST node of every value and dict key, by JSON path."""

    def __init__(self) -> None:
        self.values: dict[tuple, cst.CSTNode] = {}
        self.keys: dict[tuple, cst.CSTNode] = {}

    def convert(self, node: cst.BaseExpression, path: tuple = ()) -> object:
        self.values[path] = node
        if isinstance(node, cst.Dict):
            result = {}
            for element in node.elements:
                if isinstance(element, cst.StarredDictElement):
                    raise _NotLiteral(element, "`**` spreads are not allowed")
                key = self.convert_scalar(element.key)
                if not isinstance(key, str):
                    raise _NotLiteral(element.key, "keys must be strings")
                self.keys[path + (key,)] = element.key
                result[key] = self.convert(element.value, path + (key,))
            return result
        if isinstance(node, (cst.List, cst.Tuple)):
            items = []
            for index, element in enumerate(node.elements):
                if isinstance(element, cst.StarredElement):
                    raise _NotLiteral(element, "`*` unpacking is not allowed")
                items.append(self.convert(element.value, path + (index,)))
            return items
        return self.convert_scalar(node)

    def convert_scalar(self, node: cst.BaseExpression) -> object:
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            if _contains_fstring(node):
                raise _NotLiteral(node, "f-strings are not allowed")
            value = node.evaluated_value
            if isinstance(value, bytes):
                raise _NotLiteral(node, "bytes are not allowed")
            return value
        if isinstance(node, cst.FormattedString):
            if all(isinstance(p, cst.FormattedStringText) for p in node.parts) and "\\" not in "".join(p.value for p in node.parts):
                return "".join(p.value for p in node.parts).replace("{{", "{").replace("}}", "}")
            raise _NotLiteral(node, "f-strings with fields are not allowed")
        if isinstance(node, (cst.Integer, cst.Float)):
            return node.evaluated_value
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)) \
                and isinstance(node.expression, (cst.Integer, cst.Float)):
            value = node.expression.evaluated_value
            return -value if isinstance(node.operator, cst.Minus) else value
        if isinstance(node, cst.Name) and node.value in ("None", "True", "False"):
            return {"None": None, "True": True, "False": False}[node.value]
        if isinstance(node, cst.Name):
            raise _NotLiteral(node, f"the name `{node.value}` is not a literal")
        if isinstance(node, cst.Call):
            raise _NotLiteral(node, "calls are not allowed")
        if isinstance(node, (cst.ListComp, cst.DictComp, cst.SetComp, cst.GeneratorExp)):
            raise _NotLiteral(node, "comprehensions are not allowed")
        raise _NotLiteral(node, f"`{type(node).__name__}` is not a literal")


def _contains_fstring(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.FormattedString):
        return any(not isinstance(p, cst.FormattedStringText) for p in node.parts)
    if isinstance(node, cst.ConcatenatedString):
        return _contains_fstring(node.left) or _contains_fstring(node.right)
    return False


def json_path(path) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def extract_meta(node: cst.BaseExpression, span_of: Callable[[cst.CSTNode], Span],
                 sink: DiagnosticSink) -> tuple[object, list[tuple[str, Span]] | None] | None:
    """Read and validate the meta literal. Returns (value, phases with their spans) or None when
    the block is not a literal at all (reported)."""
    literal = _Literal()
    try:
        value = literal.convert(node)
    except _NotLiteral as error:
        sink.report(MetaNotLiteral, span_of(error.node), detail=error.detail)
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


def _validate(value: dict, literal: _Literal, span_of, sink: DiagnosticSink) -> None:
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
        if error.validator == "propertyNames":
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
        return (f"the name {error.instance!r} is not kebab-case",
                "use lowercase letters, digits and `-`, starting with a letter or digit, at most 64 characters")
    if kind == "type":
        return f"expected {_type_name(error.validator_value)}, got {_json_type(error.instance)}", "change the value's type"
    if kind == "enum":
        options = ", ".join(f"\"{o}\"" for o in error.validator_value)
        return f"{error.instance!r} is not one of {options}", f"use one of {options}"
    if kind == "minLength":
        return "must not be empty", "write a short description"
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
            sink.report(ArgDefaultMismatch, span_of(node), arg=name, actual=_json_type(default), expected=arg_type)
