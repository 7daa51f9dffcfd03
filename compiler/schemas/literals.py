"""This module defines literal schemas: a `returns={...}` argument (or a constant bound to a
dict) read as a JSON Schema written out in the script, evaluated without running the script and
checked against the draft 2020-12 meta-schema. `SchemaBuilder` (`compiler.schemas`) hands such
arguments to a `LiteralSchemaEvaluator`.

**Evaluation** follows literals, implicit string concatenation, unary minus, `**` and `*`
spreads of constants, and names of constants, recursively; anything else is DWF405 at the
offending node. Every JSON position of the value remembers the source node it came from.

**Checking.** The value is validated against the draft 2020-12 meta-schema (with regex format
checking); each violation, and each unknown keyword that looks like a misspelt one
(`requried`), is DWF404 at the source position of the offending key or value, following
constants to their definitions. DWF404 paths name a position inside the literal schema
(`$.properties.path.type`, `$.anyOf[1]`, `$["odd key"]`).

**Output.** The schema is canonical (every object's keys sorted, `"$schema"` at the root); its
key is `schema:` + the first 12 hex digits of the SHA-256 of its canonical JSON.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import ast

from dwf.compiler.ir import canonical_json
from dwf.compiler.lower.literals import NOT_LITERAL, literal_value, string_value
from dwf.compiler.rules.base import Rule
from dwf.compiler.rules.schemas import InvalidSchemaLiteral, ReturnsNotConstant

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# Draft 2020-12 keywords (plus the deprecated ones the meta-schema still declares).
_KEYWORDS = frozenset(
    "$schema $id $ref $anchor $dynamicRef $dynamicAnchor $vocabulary $comment $defs definitions "
    "dependencies $recursiveRef $recursiveAnchor allOf anyOf oneOf not if then else dependentSchemas "
    "prefixItems items contains properties patternProperties additionalProperties propertyNames "
    "unevaluatedItems unevaluatedProperties type const enum multipleOf maximum exclusiveMaximum minimum "
    "exclusiveMinimum maxLength minLength pattern maxItems minItems uniqueItems maxContains minContains "
    "maxProperties minProperties required dependentRequired title description default deprecated readOnly "
    "writeOnly examples format contentEncoding contentMediaType contentSchema".split()
)
_KEYWORDS_LOWER = {k.lower(): k for k in _KEYWORDS}
_SUBSCHEMA_KEYS = {"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
                   "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
_SUBSCHEMA_MAPS = {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
_SUBSCHEMA_LISTS = {"allOf", "anyOf", "oneOf", "prefixItems"}
_JSON_TYPES = ["string", "integer", "number", "boolean", "null", "array", "object"]
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NOT_CONSTANT = object()  # a constant that could not be evaluated (already reported)


@cache
def _meta_validator():
    """The validator of JSON Schema itself (draft 2020-12), built when a literal schema needs it."""
    from jsonschema import Draft202012Validator  # deferred: start-up (scripts without literal schemas)

    return Draft202012Validator(Draft202012Validator.META_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)


class LiteralSchemaEvaluator:
    """Evaluates and checks the literal schemas of one script; see the module docstring."""

    def __init__(self, constants: Mapping[str, ast.expr], report: Callable[..., None], positions=None,
                 short_source: Callable[[ast.AST], str] | None = None) -> None:
        self._positions = positions
        self._short_source = short_source
        self._constants = constants
        self._report_to_builder = report  # `report(rule, node, **fields)`
        self._errors = 0

    def evaluate(self, root: ast.expr) -> tuple[str, dict] | None:
        """(key, canonical schema) for a literal schema, or None after reporting."""
        before = self._errors
        locations: dict[tuple, ast.AST] = {}
        key_locations: dict[tuple, ast.AST] = {}
        value = self._constant(root, (), locations, key_locations, [])
        if self._errors != before or value is _NOT_CONSTANT:
            return None
        self._check(value, locations, key_locations)
        if self._errors != before:
            return None
        schema = _sorted_copy(value)
        schema["$schema"] = SCHEMA_DIALECT
        schema = {key: schema[key] for key in sorted(schema)}
        digest = hashlib.sha256(canonical_json(schema).encode("utf-8")).hexdigest()
        return "schema:" + digest[:12], schema

    def _report(self, rule: type[Rule], node: ast.AST, **fields: object) -> None:
        self._errors += 1
        self._report_to_builder(rule, node, **fields)

    def _constant(self, node: ast.expr, path: tuple, locations: dict, key_locations: dict,
                  stack: list[str]) -> Any:
        """Evaluate a compile-time constant, recording the source node of every JSON position."""
        locations[path] = node
        if isinstance(node, ast.Dict):
            result: dict[str, Any] = {}
            literal_keys: set[str] = set()
            for key_node, value_node in zip(node.keys, node.values):
                if key_node is None:
                    spread = self._constant(value_node, path, locations, key_locations, stack)
                    locations[path] = node
                    if isinstance(spread, dict):
                        result.update(spread)
                    elif spread is not _NOT_CONSTANT:
                        self._report(ReturnsNotConstant, value_node, hint="`**` needs a constant dict")
                    continue
                key = self._constant(key_node, path + ("<key>",), {}, {}, stack)
                if key is _NOT_CONSTANT:
                    continue
                if not isinstance(key, str):
                    self._report(InvalidSchemaLiteral, key_node, path=_format_path(path),
                                 detail="JSON object keys must be strings")
                    continue
                if key in literal_keys:
                    self._report(InvalidSchemaLiteral, key_node, path=_format_path(path + (key,)),
                                 detail=f"key `{key}` appears twice")
                literal_keys.add(key)
                key_locations[path + (key,)] = key_node
                result[key] = self._constant(value_node, path + (key,), locations, key_locations, stack)
            return _NOT_CONSTANT if any(v is _NOT_CONSTANT for v in result.values()) else result
        if isinstance(node, (ast.List, ast.Tuple)):
            items: list[Any] = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    spread = self._constant(element.value, path + (len(items),), {}, {}, stack)
                    if isinstance(spread, list):
                        for offset in range(len(spread)):
                            locations[path + (len(items) + offset,)] = element
                        items.extend(spread)
                    elif spread is not _NOT_CONSTANT:
                        self._report(ReturnsNotConstant, element.value, hint="`*` needs a constant list")
                    continue
                items.append(self._constant(element, path + (len(items),), locations, key_locations, stack))
            return _NOT_CONSTANT if any(v is _NOT_CONSTANT for v in items) else items
        if isinstance(node, ast.Name):
            if node.id in self._constants and node.id not in stack:
                stack.append(node.id)
                try:
                    return self._constant(self._constants[node.id], path, locations, key_locations, stack)
                finally:
                    stack.pop()
            self._report(ReturnsNotConstant, node, hint=f"`{node.id}` is not a compile-time constant: use a "
                         "top-level name bound once to a literal and never reassigned or mutated")
            return _NOT_CONSTANT
        value = literal_value(node, numbers=True)
        if isinstance(value, float) and value - value != 0:
            self._report(InvalidSchemaLiteral, node, path=_format_path(path), detail="numbers must be finite")
            return _NOT_CONSTANT
        if value is not NOT_LITERAL:
            return value
        if isinstance(string_value(node), bytes):
            self._report(InvalidSchemaLiteral, node, path=_format_path(path), detail="bytes are not JSON")
            return _NOT_CONSTANT
        if isinstance(node, ast.Set):
            self._report(InvalidSchemaLiteral, node, path=_format_path(path), detail="a set is not JSON; use a list")
            return _NOT_CONSTANT
        self._report(ReturnsNotConstant, node, hint=f"`{self._short_source(node)}` is computed at run time; build the "
                     "schema from literals and top-level constants only")
        return _NOT_CONSTANT

    def _check(self, value: Any, locations: dict, key_locations: dict) -> None:
        if not isinstance(value, dict):
            self._report(ReturnsNotConstant, locations[()], hint="a literal schema must be a dict")
            return
        dialect = value.get("$schema", SCHEMA_DIALECT)
        if dialect not in (SCHEMA_DIALECT, SCHEMA_DIALECT + "#"):
            self._report(InvalidSchemaLiteral, locations[("$schema",)], path="$.$schema",
                         detail=f"`{dialect}` is not JSON Schema draft 2020-12",
                         help=f'remove `$schema` or set it to "{SCHEMA_DIALECT}"')
            value = {k: v for k, v in value.items() if k != "$schema"}
        seen: set[tuple] = set()
        for error in _meta_validator().iter_errors(value):
            path = tuple(error.absolute_path)
            detail = _meta_detail(error, path)
            if (path, detail) in seen:
                continue
            seen.add((path, detail))
            where = path
            while where not in locations:
                where = where[:-1]
            self._report(InvalidSchemaLiteral, locations[where], path=_format_path(path), detail=detail)
        for path, word, known in _misspelt_keywords(value, ()):
            self._report(InvalidSchemaLiteral, key_locations.get(path, locations[path[:-1]]),
                         path=_format_path(path), detail=f"unknown keyword `{word}` (did you mean `{known}`?)")


# ---------------------------------------------------------------------- helpers


def _format_path(segments: tuple) -> str:
    out = ["$"]
    for segment in segments:
        if isinstance(segment, int):
            out.append(f"[{segment}]")
        elif _IDENTIFIER.fullmatch(segment):
            out.append("." + segment)
        else:
            out.append("[" + canonical_json(segment) + "]")
    return "".join(out)


def _sorted_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted_copy(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_copy(item) for item in value]
    return value


def _meta_detail(error: Any, path: tuple) -> str:
    instance = error.instance
    if path and path[-1] == "type":
        bad = [t for t in (instance if isinstance(instance, list) else [instance]) if t not in _JSON_TYPES]
        if bad and isinstance(bad[0], str):
            close = difflib.get_close_matches(bad[0], _JSON_TYPES, n=1, cutoff=0.6)
            return f"`{bad[0]}` is not a JSON Schema type" + (f" (did you mean `{close[0]}`?)" if close else "")
    if path and path[-1] == "items" and isinstance(instance, list):
        return "`items` must be one schema; for fixed positions use `prefixItems` (draft 2020-12)"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def _misspelt_keywords(schema: Any, path: tuple) -> list[tuple[tuple, str, str]]:
    """Keys of a schema object that look like misspelt keywords (`requried`)."""
    found: list[tuple[tuple, str, str]] = []
    if not isinstance(schema, dict):
        return found
    for key, value in schema.items():
        if key not in _KEYWORDS:
            if key.startswith("x-"):
                continue
            known = _KEYWORDS_LOWER.get(key.lower())
            close = [known] if known else difflib.get_close_matches(key, _KEYWORDS, n=1, cutoff=0.8)
            if close:
                found.append((path + (key,), key, close[0]))
        elif key in _SUBSCHEMA_KEYS:
            found += _misspelt_keywords(value, path + (key,))
        elif key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                found += _misspelt_keywords(sub, path + (key, name))
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            for index, sub in enumerate(value):
                found += _misspelt_keywords(sub, path + (key, index))
    return found
