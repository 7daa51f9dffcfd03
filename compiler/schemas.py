"""This module defines schema synthesis: turning the result type of a typed ask (`returns=T`)
into a canonical JSON Schema (draft 2020-12), and checking literal `returns={...}` schemas.

`SchemaBuilder` is created once per script by the lowering pass with the script's top-level
TypedDict classes, its `from typing import ...` names and its compile-time constants. It is pure
(no I/O): findings go to the `DiagnosticSink`, schemas come back as plain JSON data.

**Type expressions** map as in LANGUAGE §5: `str int float bool None` → `string integer number
boolean null`, `object` → `{}` (any JSON), `Literal[...]` → `enum`, `list[T]`/`tuple[T, ...]` →
`items`, `tuple[A, B]` → `prefixItems` + `minItems`/`maxItems`, `dict[str, T]` →
`additionalProperties` (`dict[Literal["a", "b"], T]` adds `propertyNames`), unions (`A | B`,
`Optional`, `Union`) → `anyOf`, `Annotated[T, "text"]` → `T` with a `description`, a TypedDict
→ a closed object. Bare `list`, `tuple` and `dict` mean `list[object]` and so on. A string is
a forward reference (`list["Step"]`); a constant bound to a type expression is a type alias
(`Severity = Literal["low", "high"]`; builtin type names are never shadowed by constants, and
`constants` is consulted only for other names, so the caller may compute it lazily). Unions are
flattened (nested unions, aliases, `Optional`), deduplicated, and their literal members merged
into one `enum`; a union made only of literals and `None` becomes a single `enum`, otherwise
`None` is the member `{"type": "null"}`. A union or `Literal` with more than 100 members is
DWF403.

**TypedDicts.** Every declaration is checked once, by `check_declarations` (bases, keywords,
body statements, then each field's type), whether or not an ask uses it, so each defect is
reported exactly once, where it is written. Fields of base TypedDicts come first, in base order;
`required` lists the required fields in declaration order (`total=` applies to the fields of the
class that says it; `Required[...]`/`NotRequired[...]` override it). The class docstring becomes
`description`; a string statement directly after a field becomes that property's `description`
(outermost wins: a field string beats `Annotated` text, which beats the TypedDict's docstring).

**The `$defs` rule.** A TypedDict that takes part in a recursion (it can reach itself through
field types: a tree of nodes, or mutual recursion) lives in the root's `$defs` under its class
name and is referenced everywhere, the root included, as `{"$ref": "#/$defs/Name"}`. Every other
TypedDict is inlined where it is used. So a schema without recursion has no `$defs`, and
`$defs` holds exactly the recursive TypedDicts the schema reaches.

**Paths** in DWF401/402/403/407 messages name the offending part of the JSON value: the root is
`$` for a `returns=` expression and the class name for a TypedDict field (the defect is reported
once, in the declaration: `Finding.when`, `Report.items[].tags.*`); `.name` is an object property,
`[]` the items of a list (or of `tuple[T, ...]`), `[0]` a tuple position, `.*` the values of a
`dict[str, T]`. Union members and `Annotated` add no segment: they describe the same JSON value
and the diagnostic's span points at the member. DWF404 paths name a position inside the literal
schema (`$.properties.path.type`, `$.anyOf[1]`, `$["odd key"]`).

**Literal schemas.** `returns={...}` (or a constant bound to a dict) is evaluated without running
the script: literals, implicit string concatenation, unary minus, `**` and `*` spreads of
constants, and names of constants, recursively; anything else is DWF405 at the offending node.
The value is validated against the draft 2020-12 meta-schema (with regex format checking); each
violation, and each unknown keyword that looks like a misspelt one (`requried`), is DWF404 at
the source position of the offending key or value, following constants to their definitions.
`returns=name` where `name` is lower-case, resolves to nothing and resembles no type is taken for
a variable that is not a compile-time constant (DWF405) rather than an unknown type (DWF402).

**Output.** Schemas are canonical: every object's keys are sorted (lists such as `required` and
`enum` keep source order), the root carries `"$schema"`, and results are cached and shared, so
callers must treat them as read-only. The key of a type expression is its source text without
whitespace or comments (`list[Finding]`); the key of a literal schema is `schema:` + the first
12 hex digits of the SHA-256 of its canonical JSON.
"""

from __future__ import annotations

import difflib
import hashlib
import inspect
import io
import json
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from jsonschema import Draft202012Validator

from .diagnostics import DiagnosticSink
from .ir import canonical_json
from .rules.base import Rule
from .rules.schemas import (
    DictKeyNotStr,
    InvalidSchemaLiteral,
    InvalidTypedDict,
    ReturnsNotConstant,
    TooManyUnionMembers,
    UnknownTypeName,
    UnsupportedType,
)
from .rules.syntax import NonTypedDictClass
from .source import Span

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
MAX_UNION_MEMBERS = 100

_PRIMITIVES: dict[str, dict] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "object": {},
}
_CONTAINERS = {"list": "list", "tuple": "tuple", "dict": "dict", "List": "list", "Tuple": "tuple", "Dict": "dict"}
_SUPPORTED_TYPING = {"Literal", "Optional", "Union", "Annotated", "Required", "NotRequired", "TypedDict",
                     "List", "Dict", "Tuple"}
_TYPE_NAMES = ["str", "int", "float", "bool", "None", "object", "list", "tuple", "dict"]

_ANY = ("`{name}` would accept any value without validation", "use `object` for any JSON value, or a precise type")
_TIME = ("`{name}` values are not JSON",
         'use `str` and describe the format, e.g. `Annotated[str, "ISO 8601 timestamp"]`')
_TEXT = ("`{name}` values are not JSON", "use `str`")
_BYTES = ("`{name}` values are not JSON", "use `str` (for example base64 text)")
_SET = ("`{name}` is not JSON (JSON has no sets)", "use `list[...]`")
_FUNCTION = ("`{name}` describes functions or awaitables, which are not JSON data",
             "results are JSON data: ask for a description or a name instead")
_CLASS = ("`{name}` is a class, not a TypedDict", "declare a `TypedDict` with the fields you need")
_TYPEVAR = ("`{name}` is a bare type variable", "result types must be concrete: write the actual type")
_UNSUPPORTED: dict[str, tuple[str, str]] = {
    "Any": _ANY, "datetime": _TIME, "date": _TIME, "time": _TIME, "timedelta": _TIME,
    "timezone": _TIME, "Decimal": ("`{name}` values are not JSON", "use `float`, or `str` for exact decimals"),
    "UUID": _TEXT, "Path": _TEXT, "PurePath": _TEXT,
    "bytes": _BYTES, "bytearray": _BYTES, "memoryview": _BYTES,
    "set": _SET, "frozenset": _SET, "Set": _SET, "FrozenSet": _SET, "AbstractSet": _SET, "MutableSet": _SET,
    "Callable": _FUNCTION, "Awaitable": _FUNCTION, "Coroutine": _FUNCTION, "Generator": _FUNCTION,
    "AsyncGenerator": _FUNCTION, "Iterator": _FUNCTION, "AsyncIterator": _FUNCTION, "Iterable": _FUNCTION,
    "type": ("`{name}` objects are not JSON data", "use a TypedDict or a builtin type"),
    "Type": ("`{name}` objects are not JSON data", "use a TypedDict or a builtin type"),
    "complex": ("`{name}` numbers are not JSON", "use `float`, or a TypedDict with two `float` fields"),
    "Sequence": ("`{name}` is not supported in result types", "use `list[...]`"),
    "MutableSequence": ("`{name}` is not supported in result types", "use `list[...]`"),
    "Mapping": ("`{name}` is not supported in result types", "use `dict[str, ...]`"),
    "MutableMapping": ("`{name}` is not supported in result types", "use `dict[str, ...]`"),
    "TypeVar": _TYPEVAR, "True": ("`{name}` is a value, not a type", "use `Literal[{name}]` or `bool`"),
    "False": ("`{name}` is a value, not a type", "use `Literal[{name}]` or `bool`"),
    "TypedDict": ("`{name}` alone is not a type", "declare `class Name(TypedDict): ...` and use `Name`"),
    "Required": ("`{name}[...]` is only allowed directly on a TypedDict field", "remove it here"),
    "NotRequired": ("`{name}[...]` is only allowed directly on a TypedDict field", "remove it here"),
}
_CLASSES = ("range slice Exception ValueError TypeError KeyError IndexError ZeroDivisionError WorkflowError "
            "AskFailed WorldError ArtifactError BudgetExceeded RunResult GrepMatch GitStatus GitCommit "
            "ArtifactRef Agent NamedTuple Generic Protocol").split()
_TYPEVAR_FACTORIES = {"TypeVar", "ParamSpec", "TypeVarTuple"}
_JSON_WORDS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None",
               "none": "None", "array": "list[...]", "any": "object"}

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
_META_VALIDATOR = Draft202012Validator(Draft202012Validator.META_SCHEMA,
                                       format_checker=Draft202012Validator.FORMAT_CHECKER)
_EMPTY_MODULE = cst.Module(body=[])
_SKIPPED_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                   tokenize.ENDMARKER}


@dataclass(frozen=True, slots=True)
class _Ref:
    """A reference to a TypedDict inside a schema under construction, resolved by `_finish`."""

    name: str
    extra: tuple[tuple[str, Any], ...] = ()  # keywords added at this use (a description)


Schema = dict | _Ref  # a schema under construction


@dataclass(slots=True)
class _Field:
    name: str
    schema: Schema | None
    required: bool
    description: str | None = None


@dataclass(slots=True)
class _Decl:
    fields: list[_Field]
    description: str | None
    ok: bool
    refs: set[str] = field(default_factory=set)  # TypedDicts its field types mention


class _Broken(Exception):
    """A schema reaches a TypedDict whose declaration was already reported as invalid."""


_BAD = object()  # a constant that could not be evaluated (already reported)


class SchemaBuilder:
    """Synthesizes and checks result schemas for one script; see the module docstring."""

    def __init__(self, *, typeddicts: dict[str, cst.ClassDef], typing_names: dict[str, str],
                 constants: dict[str, cst.BaseExpression], span_of: Callable[[cst.CSTNode], Span],
                 sink: DiagnosticSink) -> None:
        self._typeddicts = typeddicts
        self._typing = typing_names
        self._constants = constants
        self._span_of = span_of
        self._sink = sink
        self._errors = 0
        self._anchor: cst.CSTNode | None = None  # span for nodes parsed from a forward reference
        self._refs: set[str] | None = None  # collects TypedDict references of the field being built
        self._checked = False
        self._decls: dict[str, _Decl] = {}
        self._visiting: set[str] = set()
        self._recursive: frozenset[str] = frozenset()
        self._aliases: dict[str, tuple[Schema | None, frozenset[str]]] = {}
        self._alias_stack: list[str] = []
        self._inlined: dict[str, tuple[dict, frozenset[str]]] = {}
        self._defs: dict[str, tuple[dict, frozenset[str]]] = {}
        self._closures: dict[str, frozenset[str]] = {}
        self._defs_for: dict[frozenset[str], dict[str, dict]] = {}
        self._results: dict[str, tuple[str, dict]] = {}
        self._literals: dict[str, tuple[str, dict] | None] = {}

    # ------------------------------------------------------------------ interface

    def check_declarations(self) -> None:
        """Validate every TypedDict declaration once (bases/keywords, body statements, fields)."""
        if self._checked:
            return
        self._checked = True
        for name in self._typeddicts:
            self._declare(name)
        self._recursive = _on_cycles({name: decl.refs for name, decl in self._decls.items()})

    def for_returns(self, expr: cst.BaseExpression) -> tuple[str, dict] | None:
        """Schema for a `returns=` argument: (key, canonical schema) or None after reporting."""
        self.check_declarations()
        if isinstance(expr, cst.Dict):
            return self._literal(expr)
        if isinstance(expr, cst.Name) and self._is_constant(expr.value):
            value = self._constants[expr.value]
            while isinstance(value, cst.Name) and self._is_constant(value.value):
                value = self._constants[value.value]
            if isinstance(value, cst.Dict):
                if expr.value not in self._literals:
                    self._literals[expr.value] = self._literal(value)
                return self._literals[expr.value]
            if not _is_type_like(value) and not self._is_typevar(value):
                self._report(ReturnsNotConstant, expr, hint=f"`{expr.value}` is bound to a value that is "
                             "neither a type nor a dict literal")
                return None
        if not _is_type_like(expr) and not isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
            self._report(ReturnsNotConstant, expr, hint="pass a type such as `list[Finding]`, or a JSON Schema "
                         "dict built from literals and top-level constants")
            return None
        if isinstance(expr, cst.Name) and self._looks_like_variable(expr.value):
            self._report(ReturnsNotConstant, expr, hint=f"`{expr.value}` is not a compile-time constant: bind the "
                         "schema dict once at the top level and never reassign or mutate it")
            return None
        key = _source_key(expr)
        if key in self._results:
            return self._results[key]
        schema = self._type(expr, "$")
        if schema is None:
            return None
        try:
            result = (key, self._finish(schema))
        except _Broken:
            return None
        self._results[key] = result
        return result

    # ------------------------------------------------------------------ reporting

    def _report(self, rule: type[Rule], node: cst.CSTNode, **fields: object) -> None:
        self._errors += 1
        self._sink.report(rule, self._span_of(self._anchor or node), **fields)

    def _unsupported(self, node: cst.CSTNode, path: str, detail: str, hint: str) -> None:
        self._report(UnsupportedType, node, path=path, detail=detail, hint=hint)

    def _unknown_name(self, node: cst.CSTNode, name: str, path: str) -> None:
        """DWF401 for names that are known not to be JSON types, DWF402 for the rest."""
        if name in _UNSUPPORTED:
            detail, hint = _UNSUPPORTED[name]
            return self._unsupported(node, path, detail.format(name=name), hint.format(name=name))
        if name in _CLASSES:
            return self._unsupported(node, path, _CLASS[0].format(name=name), _CLASS[1])
        if name in _SUPPORTED_TYPING:
            hint = f"import it: `from typing import {name}`"
        elif name in _JSON_WORDS:
            hint = f"use `{_JSON_WORDS[name]}`"
        elif "." in name:
            hint = "result types use builtins, names imported from `typing` and TypedDicts declared in the script"
        else:
            close = difflib.get_close_matches(name, self._type_candidates(), n=1, cutoff=0.6)
            hint = (f"did you mean `{close[0]}`?" if close else
                    f"declare `class {name}(TypedDict): ...` at the top level, or use a builtin type such as `str`")
        self._report(UnknownTypeName, node, name=name, path=path, hint=hint)

    # ------------------------------------------------------------------ TypedDict declarations

    def _declare(self, name: str) -> _Decl:
        if name in self._decls:
            return self._decls[name]
        self._visiting.add(name)
        cls = self._typeddicts[name]
        before = self._errors
        fields: dict[str, _Field] = {}
        origin: dict[str, str] = {}
        refs: set[str] = set()
        bases_ok = True
        if getattr(cls, "type_parameters", None) is not None:
            self._report(InvalidTypedDict, cls.name, detail=f"TypedDict `{name}` cannot be generic",
                         hint="declare one TypedDict per concrete shape")
        for arg in cls.bases:
            base = arg.value
            base_name = base.value if isinstance(base, cst.Name) and not arg.star else None
            if base_name is not None and base_name not in self._typeddicts and \
                    self._typing.get(base_name) == "TypedDict":
                continue
            if base_name in self._typeddicts:
                if base_name in self._visiting:
                    self._report(InvalidTypedDict, base, detail=f"TypedDict `{name}` inherits from itself "
                                 f"through `{base_name}`", hint="remove the circular base")
                    bases_ok = False
                    continue
                decl = self._declare(base_name)
                bases_ok &= decl.ok
                refs |= decl.refs
                for f in decl.fields:
                    if f.name in fields and fields[f.name] is not f:
                        self._report(InvalidTypedDict, base, detail=f"Field `{f.name}` is inherited from both "
                                     f"`{origin[f.name]}` and `{base_name}`", hint="rename one of the fields")
                    fields[f.name], origin[f.name] = f, origin.get(f.name, base_name)
                continue
            close = difflib.get_close_matches(base_name or "", [*self._typeddicts, "TypedDict"], n=1, cutoff=0.6)
            self._report(InvalidTypedDict, base, detail=f"TypedDict `{name}` has an unsupported base "
                         f"`{_source_key(base)}`",
                         hint=f"did you mean `{close[0]}`?" if close else
                         "a TypedDict may inherit only from `TypedDict` and other TypedDicts of the script")
            bases_ok = False
        total = True
        for arg in cls.keywords:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "total" and isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False"):
                total = arg.value.value == "True"
            elif keyword == "total":
                self._report(InvalidTypedDict, arg.value, detail="`total=` must be `True` or `False`",
                             hint="write `total=False` to make every field of this class optional")
            else:
                self._report(InvalidTypedDict, arg, detail=f"TypedDict `{name}` has an unsupported keyword "
                             f"`{keyword or '**'}=`", hint="only `total=True` or `total=False` is allowed")
        description = self._read_body(name, cls, fields, origin, total, refs)
        decl = _Decl(list(fields.values()), description, bases_ok and self._errors == before, refs)
        self._visiting.discard(name)
        self._decls[name] = decl
        return decl

    def _read_body(self, name: str, cls: cst.ClassDef, fields: dict[str, _Field], origin: dict[str, str],
                   total: bool, refs: set[str]) -> str | None:
        statements: list[cst.CSTNode] = []
        for stmt in cls.body.body:
            statements.extend(stmt.body if isinstance(stmt, cst.SimpleStatementLine) else [stmt])
        description = None
        previous: _Field | None = None
        for index, stmt in enumerate(statements):
            field_before, previous = previous, None
            if isinstance(stmt, cst.Expr) and isinstance(stmt.value, (cst.SimpleString, cst.ConcatenatedString)):
                text = _string_value(stmt.value)
                if isinstance(text, str):
                    if index == 0:
                        description = _clean(text)
                    elif field_before is not None:
                        field_before.description = _clean(text)
                    continue
            if isinstance(stmt, cst.Pass) or (isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Ellipsis)):
                continue
            if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name):
                fname = stmt.target.value
                if stmt.value is not None:
                    self._report(InvalidTypedDict, stmt.value, detail=f"TypedDict field `{fname}` has a default "
                                 "value", hint="remove the default; mark optional fields `NotRequired[...]`")
                if fname in fields:
                    where = "twice" if origin[fname] == name else f"again (it is inherited from `{origin[fname]}`)"
                    self._report(InvalidTypedDict, stmt.target, detail=f"TypedDict field `{fname}` is declared "
                                 f"{where}", hint="give each field one declaration")
                    continue
                saved, self._refs = self._refs, refs
                try:
                    schema, required = self._field_type(stmt.annotation.annotation, f"{name}.{fname}", total)
                finally:
                    self._refs = saved
                previous = fields[fname] = _Field(fname, schema, required)
                origin[fname] = name
                continue
            if isinstance(stmt, cst.Assign) and all(isinstance(t.target, cst.Name) for t in stmt.targets):
                fname = stmt.targets[0].target.value
                self._report(NonTypedDictClass, stmt, detail=f"TypedDict field `{fname}` has no annotation",
                             help=f"write `{fname}: <type>`")
                continue
            self._report(NonTypedDictClass, stmt, detail=f"TypedDict `{name}` may contain only annotated fields, "
                         f"docstrings and `pass`, not {_describe_statement(stmt)}")
        return description

    def _field_type(self, node: cst.BaseExpression, path: str, total: bool) -> tuple[Schema | None, bool]:
        """A field annotation: `Required`/`NotRequired` and `Annotated` may wrap the type."""
        required: bool | None = None
        descriptions: list[str | None] = []
        saved = self._anchor
        try:
            while True:
                if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
                    parsed = self._parse_forward(node, path)
                    if parsed is None:
                        return None, total
                    self._anchor = self._anchor or node
                    node = parsed
                    continue
                head = _typing_head(node, self)
                if head in ("Required", "NotRequired"):
                    args = self._arguments(node, path, 1)
                    if args is None:
                        return None, total
                    if required is not None:
                        self._unsupported(node, path, "`Required` and `NotRequired` cannot be nested",
                                          "keep one of them")
                        return None, total
                    required, node = head == "Required", args[0]
                    continue
                if head == "Annotated":
                    parts = self._annotated(node, path)
                    if parts is None:
                        return None, total
                    node, text = parts
                    descriptions.append(text)
                    continue
                break
            schema = self._type(node, path)
        finally:
            self._anchor = saved
        for text in reversed(descriptions):
            schema = _describe(schema, text)
        return schema, total if required is None else required

    def _body(self, name: str) -> dict:
        decl = self._decls[name]
        if not decl.ok:
            raise _Broken(name)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {f.name: _describe(f.schema, f.description) for f in decl.fields},
            "additionalProperties": False,
        }
        required = [f.name for f in decl.fields if f.required]
        if required:
            schema["required"] = required
        if decl.description:
            schema["description"] = decl.description
        return schema

    # ------------------------------------------------------------------ type expressions

    def _type(self, node: cst.BaseExpression, path: str) -> Schema | None:
        if isinstance(node, cst.Name):
            return self._named(node, path)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, path)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            members = [self._type(operand, path) for operand in _union_operands(node)]
            return self._union(members, node, path)
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            parsed = self._parse_forward(node, path)
            if parsed is None:
                return None
            saved, self._anchor = self._anchor, self._anchor or node
            try:
                return self._type(parsed, path)
            finally:
                self._anchor = saved
        if isinstance(node, cst.Attribute):
            self._unknown_name(node, _source_key(node) if node.attr.value not in _UNSUPPORTED else node.attr.value,
                               path)
            return None
        self._unsupported(node, path, f"`{_short(node)}` is not a type",
                          "use `str`, `int`, `float`, `bool`, `None`, `object`, `list[...]`, `dict[str, ...]`, "
                          "`Literal[...]` or a TypedDict")
        return None

    def _named(self, node: cst.Name, path: str) -> Schema | None:
        name = node.value
        if name == "None":
            return {"type": "null"}
        if name in self._typeddicts:
            if self._refs is not None:
                self._refs.add(name)
            return _Ref(name)
        if name in self._typing:
            typing_name = self._typing[name]
            if typing_name in _CONTAINERS:
                return self._container(_CONTAINERS[typing_name], node, None, path)
            if typing_name in ("Literal", "Optional", "Union", "Annotated"):
                self._unsupported(node, path, f"`{name}` needs arguments", f"write `{name}[...]`")
            elif typing_name in _UNSUPPORTED or typing_name in _CLASSES:
                self._unknown_name(node, typing_name, path)
            else:
                self._unsupported(node, path, f"`typing.{typing_name}` is not supported in result types",
                                  "use builtin types, `Literal`, `Optional`, `Union`, `Annotated` or a TypedDict")
            return None
        if self._is_constant(name):
            return self._alias(node, name, path)
        if name in _PRIMITIVES:
            return dict(_PRIMITIVES[name])
        if name in ("list", "tuple", "dict"):
            return self._container(name, node, None, path)
        self._unknown_name(node, name, path)
        return None

    def _alias(self, node: cst.Name, name: str, path: str) -> Schema | None:
        value = self._constants[name]
        if name in self._aliases:
            schema, refs = self._aliases[name]
            if self._refs is not None:
                self._refs |= refs
            return schema
        if name in self._alias_stack:
            self._unsupported(node, path, f"type alias `{name}` refers to itself",
                              "use a TypedDict for recursive data")
            return None
        if self._is_typevar(value):
            self._unsupported(node, path, _TYPEVAR[0].format(name=name), _TYPEVAR[1])
            return None
        if not _is_type_like(value):
            if isinstance(value, cst.Dict):
                self._unsupported(node, path, f"`{name}` is a JSON Schema dict, which can only be the whole "
                                  "`returns=` argument", "declare the shape as a TypedDict to use it inside a type")
            else:
                self._unsupported(node, path, f"`{name}` is a value, not a type",
                                  "use a type such as `str`, a TypedDict, or `Literal[...]` for fixed values")
            return None
        outer_refs, self._refs = self._refs, set()
        saved, self._anchor = self._anchor, None
        self._alias_stack.append(name)
        try:
            schema = self._type(value, path)
        finally:
            self._alias_stack.pop()
            self._anchor = saved
            refs, self._refs = self._refs, outer_refs
        self._aliases[name] = (schema, frozenset(refs))
        if outer_refs is not None:
            outer_refs |= refs
        return schema

    def _subscript(self, node: cst.Subscript, path: str) -> Schema | None:
        head = node.value
        if not isinstance(head, cst.Name):
            if isinstance(head, cst.Attribute):
                self._type(head, path)  # reports the unknown or unsupported dotted name
            else:
                self._unsupported(node, path, f"`{_short(node)}` is not a type", "write `list[T]`, `dict[str, T]`, "
                                  "`Literal[...]` and so on")
            return None
        name = head.value
        if name in self._typeddicts:
            self._unsupported(node, path, f"TypedDict `{name}` is not generic", f"write `{name}`")
            return None
        kind = self._typing.get(name) if name in self._typing else None
        if kind is None and self._is_constant(name):
            self._unsupported(node, path, f"`{name}` is not generic", f"write `{name}` without arguments")
            return None
        if kind is None and name not in ("list", "tuple", "dict"):
            if name in _PRIMITIVES or name == "None":
                self._unsupported(node, path, f"`{name}` takes no type arguments", f"write `{name}`")
            else:
                self._unknown_name(head, name, path)
            return None
        kind = kind or name
        if kind in _CONTAINERS:
            return self._container(_CONTAINERS[kind], node, self._arguments(node, path), path)
        if kind == "Literal":
            return self._literal_type(node, path)
        if kind == "Annotated":
            parts = self._annotated(node, path)
            return None if parts is None else _describe(self._type(parts[0], path), parts[1])
        if kind in ("Optional", "Union"):
            args = self._arguments(node, path, 1 if kind == "Optional" else None)
            if args is None:
                return None
            members = [self._type(arg, path) for arg in args]
            if kind == "Optional":
                members.append({"type": "null"})
            return self._union(members, node, path)
        self._named(head, path)  # reports why this typing construct is not a result type
        return None

    def _arguments(self, node: cst.Subscript, path: str, count: int | None = None) -> list | None:
        args = []
        for element in node.slice:
            if not isinstance(element.slice, cst.Index) or element.slice.star is not None:
                self._unsupported(element, path, f"`{_short(element)}` is not a type argument",
                                  "write type arguments separated by commas")
                return None
            args.append(element.slice.value)
        if count is not None and len(args) != count:
            self._unsupported(node, path, f"`{_short(node.value)}[...]` takes {count} type argument"
                              f"{'s' if count > 1 else ''}, not {len(args)}", f"write `{_short(node.value)}[T]`")
            return None
        return args

    def _container(self, kind: str, node: cst.CSTNode, args: list | None, path: str) -> Schema | None:
        if kind == "list":
            if args is not None and len(args) != 1:
                self._unsupported(node, path, f"`list[...]` takes 1 type argument, not {len(args)}",
                                  "write `list[T]`, or `tuple[A, B]` for fixed positions")
                return None
            items = self._type(args[0], path + "[]") if args else {}
            return None if items is None else {"type": "array", "items": items}
        if kind == "dict":
            if args is None:
                return {"type": "object", "additionalProperties": {}}
            if len(args) != 2:
                self._unsupported(node, path, f"`dict[...]` takes 2 type arguments, not {len(args)}",
                                  "write `dict[str, T]`")
                return None
            key = self._type(args[0], path)
            value = self._type(args[1], path + ".*")
            if key is None or value is None:
                return None
            schema: dict[str, Any] = {"type": "object", "additionalProperties": value}
            plain_key = {k: v for k, v in key.items() if k != "description"} if isinstance(key, dict) else None
            if plain_key == {"type": "string"}:
                return schema
            if plain_key is not None and list(plain_key) == ["enum"] and all(isinstance(v, str) for v in
                                                                               plain_key["enum"]):
                schema["propertyNames"] = plain_key
                return schema
            self._report(DictKeyNotStr, args[0], path=path, key=_short(args[0]))
            return None
        # tuple
        if args is None:
            return {"type": "array", "items": {}}
        if len(args) == 2 and isinstance(args[1], cst.Ellipsis):
            items = self._type(args[0], path + "[]")
            return None if items is None else {"type": "array", "items": items}
        if len(args) == 1 and isinstance(args[0], cst.Tuple) and not args[0].elements:
            return {"type": "array", "maxItems": 0}
        positions = []
        for index, arg in enumerate(args):
            if isinstance(arg, cst.Ellipsis):
                self._unsupported(arg, path, "`...` is allowed only as `tuple[T, ...]`",
                                  "write `tuple[T, ...]` or list every position")
                positions.append(None)
            else:
                positions.append(self._type(arg, f"{path}[{index}]"))
        if any(p is None for p in positions):
            return None
        return {"type": "array", "prefixItems": positions, "minItems": len(args), "maxItems": len(args)}

    def _literal_type(self, node: cst.Subscript, path: str) -> Schema | None:
        values: list[Any] = []
        ok = True
        pending = self._arguments(node, path)
        if pending is None:
            return None
        for arg in pending:
            if isinstance(arg, cst.Subscript) and _typing_head(arg, self) == "Literal":
                nested = self._literal_type(arg, path)
                ok &= nested is not None
                values.extend(nested["enum"] if nested else [])
                continue
            value = _literal_member(arg)
            if value is _BAD:
                self._unsupported(arg, path, f"`{_short(arg)}` cannot be a `Literal` member",
                                  "`Literal` members are str, int or bool literals, or `None`")
                ok = False
            else:
                values.append(value)
        values = _unique(values)
        if len(values) > MAX_UNION_MEMBERS:
            self._report(TooManyUnionMembers, node, path=path, count=len(values))
            return None
        return {"enum": values} if ok else None

    def _annotated(self, node: cst.Subscript, path: str) -> tuple[cst.BaseExpression, str | None] | None:
        args = self._arguments(node, path)
        if args is None:
            return None
        texts = [_string_value(arg) for arg in args[1:]]
        if len(args) != 2 or not isinstance(texts[0], str):
            self._unsupported(node, path, "`Annotated[...]` takes a type and one description string",
                              'write `Annotated[T, "what the value means"]`')
            return None
        return args[0], _clean(texts[0]) or None

    def _union(self, members: list[Schema | None], node: cst.CSTNode, path: str) -> Schema | None:
        if any(m is None for m in members):
            return None
        flat: list[Schema] = []
        for member in members:
            if isinstance(member, dict) and list(member) == ["anyOf"]:
                flat.extend(member["anyOf"])
            else:
                flat.append(member)

        def literal(m: Schema) -> bool:
            return isinstance(m, dict) and (list(m) == ["enum"] or m == {"type": "null"})

        if all(literal(m) for m in flat) and any("enum" in m for m in flat):
            values = _unique([v for m in flat for v in (m["enum"] if "enum" in m else [None])])
            count, result = len(values), {"enum": values}
        else:
            out: list[Any] = []
            enum: list[Any] | None = None
            seen: set[str] = set()
            for m in flat:
                if isinstance(m, dict) and list(m) == ["enum"]:
                    if enum is None:
                        enum = []
                        out.append(enum)
                    enum.extend(m["enum"])
                    continue
                key = _member_key(m)
                if key not in seen:
                    seen.add(key)
                    out.append(m)
            enum_values = _unique(enum) if enum is not None else []
            out = [{"enum": enum_values} if m is enum else m for m in out]
            count = len(out) - (1 if enum is not None else 0) + len(enum_values)
            result = out[0] if len(out) == 1 else {"anyOf": out}
        if count > MAX_UNION_MEMBERS:
            self._report(TooManyUnionMembers, node, path=path, count=count)
            return None
        return result

    def _parse_forward(self, node: cst.BaseExpression, path: str) -> cst.BaseExpression | None:
        text = _string_value(node)
        try:
            if not isinstance(text, str):
                raise ValueError
            return cst.parse_expression(text.strip())
        except (cst.ParserSyntaxError, ValueError):
            self._unsupported(node, path, f"`{_short(node)}` is not a type expression",
                              "a string in a type is a forward reference such as `\"Step\"`")
            return None

    def _type_candidates(self) -> list[str]:
        return [*self._typeddicts, *self._typing, *_TYPE_NAMES]

    def _looks_like_variable(self, name: str) -> bool:
        """An unresolvable lower-case `returns=name` is a (non-constant) variable, not a misspelt type."""
        known = (name in self._typeddicts or name in self._typing or name == "None" or name in _PRIMITIVES
                 or name in _CONTAINERS or name in _UNSUPPORTED or name in _CLASSES or name in _JSON_WORDS
                 or name in self._constants)
        return not known and name[:1].islower() and not difflib.get_close_matches(
            name, self._type_candidates(), n=1, cutoff=0.6)

    def _is_constant(self, name: str) -> bool:
        """A constant usable as an alias or a literal schema. Builtin type names are never
        shadowed, and `constants` is consulted last: the caller may compute it lazily."""
        return (name not in self._typeddicts and name not in self._typing and name not in _PRIMITIVES
                and name not in ("None", "list", "tuple", "dict") and name in self._constants)

    def _is_typevar(self, value: cst.BaseExpression) -> bool:
        return (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
                and self._typing.get(value.func.value) in _TYPEVAR_FACTORIES)

    # ------------------------------------------------------------------ canonical output

    def _finish(self, root: Schema) -> dict:
        needed: set[str] = set()
        schema = dict(self._canon(root, needed))
        if needed:
            key = frozenset(needed)
            if key not in self._defs_for:
                names = set().union(*(self._closure(name) for name in needed))
                self._defs_for[key] = {name: self._def(name)[0] for name in sorted(names)}
            schema["$defs"] = self._defs_for[key]
        schema["$schema"] = SCHEMA_DIALECT
        return {key: schema[key] for key in sorted(schema)}

    def _def(self, name: str) -> tuple[dict, frozenset[str]]:
        """The `$defs` entry of a recursive TypedDict and the recursive TypedDicts it refers to."""
        if name not in self._defs:
            needed: set[str] = set()
            self._defs[name] = (self._canon(self._body(name), needed), frozenset(needed))
        return self._defs[name]

    def _closure(self, name: str) -> frozenset[str]:
        if name not in self._closures:
            seen, stack = {name}, [name]
            while stack:
                for other in self._def(stack.pop())[1]:
                    if other not in seen:
                        seen.add(other)
                        stack.append(other)
            self._closures[name] = frozenset(seen)
        return self._closures[name]

    def _canon(self, value: Any, needed: set[str]) -> Any:
        """A sorted-key copy with TypedDict references inlined or turned into `$ref`."""
        if isinstance(value, dict):
            return {key: self._canon(value[key], needed) for key in sorted(value)}
        if isinstance(value, list):
            return [self._canon(item, needed) for item in value]
        if isinstance(value, _Ref):
            if value.name in self._recursive:
                needed.add(value.name)
                base: dict = {"$ref": f"#/$defs/{value.name}"}
            else:
                if value.name not in self._inlined:
                    inner: set[str] = set()
                    self._inlined[value.name] = (self._canon(self._body(value.name), inner), frozenset(inner))
                base, inner_needed = self._inlined[value.name]
                needed |= inner_needed
            if not value.extra:
                return base
            merged = {**base, **dict(value.extra)}
            return {key: merged[key] for key in sorted(merged)}
        return value

    # ------------------------------------------------------------------ literal schemas

    def _literal(self, root: cst.BaseExpression) -> tuple[str, dict] | None:
        before = self._errors
        locations: dict[tuple, cst.CSTNode] = {}
        key_locations: dict[tuple, cst.CSTNode] = {}
        value = self._constant(root, (), locations, key_locations, [])
        if self._errors != before or value is _BAD:
            return None
        self._check_literal(value, locations, key_locations)
        if self._errors != before:
            return None
        schema = _sorted_copy(value)
        schema["$schema"] = SCHEMA_DIALECT
        schema = {key: schema[key] for key in sorted(schema)}
        digest = hashlib.sha256(canonical_json(schema).encode("utf-8")).hexdigest()
        return "schema:" + digest[:12], schema

    def _constant(self, node: cst.BaseExpression, path: tuple, locations: dict, key_locations: dict,
                  stack: list[str]) -> Any:
        """Evaluate a compile-time constant, recording the source node of every JSON position."""
        locations[path] = node
        if isinstance(node, cst.Dict):
            result: dict[str, Any] = {}
            literal_keys: set[str] = set()
            for element in node.elements:
                if isinstance(element, cst.StarredDictElement):
                    spread = self._constant(element.value, path, locations, key_locations, stack)
                    locations[path] = node
                    if isinstance(spread, dict):
                        result.update(spread)
                    elif spread is not _BAD:
                        self._report(ReturnsNotConstant, element.value, hint="`**` needs a constant dict")
                    continue
                key = self._constant(element.key, path + ("<key>",), {}, {}, stack)
                if key is _BAD:
                    continue
                if not isinstance(key, str):
                    self._report(InvalidSchemaLiteral, element.key, path=_format_path(path),
                                 detail="JSON object keys must be strings")
                    continue
                if key in literal_keys:
                    self._report(InvalidSchemaLiteral, element.key, path=_format_path(path + (key,)),
                                 detail=f"key `{key}` appears twice")
                literal_keys.add(key)
                key_locations[path + (key,)] = element.key
                result[key] = self._constant(element.value, path + (key,), locations, key_locations, stack)
            return _BAD if any(v is _BAD for v in result.values()) else result
        if isinstance(node, (cst.List, cst.Tuple)):
            items: list[Any] = []
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    spread = self._constant(element.value, path + (len(items),), {}, {}, stack)
                    if isinstance(spread, list):
                        for offset in range(len(spread)):
                            locations[path + (len(items) + offset,)] = element
                        items.extend(spread)
                    elif spread is not _BAD:
                        self._report(ReturnsNotConstant, element.value, hint="`*` needs a constant list")
                    continue
                items.append(self._constant(element.value, path + (len(items),), locations, key_locations, stack))
            return _BAD if any(v is _BAD for v in items) else items
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.value]
            if node.value in self._constants and node.value not in stack:
                stack.append(node.value)
                try:
                    return self._constant(self._constants[node.value], path, locations, key_locations, stack)
                finally:
                    stack.pop()
            self._report(ReturnsNotConstant, node, hint=f"`{node.value}` is not a compile-time constant: use a "
                         "top-level name bound once to a literal and never reassigned or mutated")
            return _BAD
        value = _literal_member(node, numbers=True)
        if isinstance(value, float) and value - value != 0:
            self._report(InvalidSchemaLiteral, node, path=_format_path(path), detail="numbers must be finite")
            return _BAD
        if value is not _BAD:
            return value
        if isinstance(_string_value(node), bytes):
            self._report(InvalidSchemaLiteral, node, path=_format_path(path), detail="bytes are not JSON")
            return _BAD
        if isinstance(node, cst.Set):
            self._report(InvalidSchemaLiteral, node, path=_format_path(path), detail="a set is not JSON; use a list")
            return _BAD
        self._report(ReturnsNotConstant, node, hint=f"`{_short(node)}` is computed at run time; build the schema "
                     "from literals and top-level constants only")
        return _BAD

    def _check_literal(self, value: Any, locations: dict, key_locations: dict) -> None:
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
        for error in _META_VALIDATOR.iter_errors(value):
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


def _on_cycles(graph: dict[str, set[str]]) -> frozenset[str]:
    """The nodes that lie on a cycle: members of a strongly connected component with more than
    one member or with an edge to itself (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[str] = set()
    for start in graph:
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while not component or component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    if len(component) > 1 or node in graph[node]:
                        found.update(component)
    return frozenset(found)


def _is_type_like(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)) or (
        isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr))


def _typing_head(node: cst.BaseExpression, builder: SchemaBuilder) -> str | None:
    """The typing name a subscript's head resolves to (`NR[int]` → `NotRequired`)."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
        name = node.value.value
        if name not in builder._typeddicts:
            return builder._typing.get(name)
    return None


def _member_key(schema: Schema) -> str:
    return json.dumps(schema, sort_keys=True, default=lambda ref: ["$ref", ref.name, ref.extra])


def _union_operands(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return _union_operands(node.left) + _union_operands(node.right)
    return [node]


def _string_value(node: cst.CSTNode) -> str | bytes | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return node.evaluated_value
    return None


def _literal_member(node: cst.BaseExpression, numbers: bool = False) -> Any:
    """The value of a str/int/bool/None literal (and float when `numbers`), or `_BAD`."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = _string_value(node)
        return value if isinstance(value, str) else _BAD
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.Integer) or (numbers and isinstance(node, cst.Float)):
        return node.evaluated_value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = _literal_member(node.expression, numbers)
        if type(inner) in (int, float):
            return -inner if isinstance(node.operator, cst.Minus) else inner
    return _BAD


def _unique(values: list[Any]) -> list[Any]:
    seen: set[tuple] = set()
    out = []
    for value in values:
        key = (type(value).__name__, value)
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def _describe(schema: Schema | None, text: str | None) -> Schema | None:
    if schema is None or not text:
        return schema
    if isinstance(schema, _Ref):
        return _Ref(schema.name, tuple((k, v) for k, v in schema.extra if k != "description")
                    + (("description", text),))
    return {**schema, "description": text}


def _clean(text: str) -> str:
    return inspect.cleandoc(text)


def _source_key(node: cst.CSTNode) -> str:
    """Source text without whitespace or comments outside string literals."""
    code = _EMPTY_MODULE.code_for_node(node).strip()
    try:
        tokens = tokenize.generate_tokens(io.StringIO(code).readline)
        return "".join(t.string for t in tokens if t.type not in _SKIPPED_TOKENS)
    except (tokenize.TokenError, SyntaxError):
        return "".join(code.split())


def _short(node: cst.CSTNode) -> str:
    text = _source_key(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _describe_statement(stmt: cst.CSTNode) -> str:
    kinds = {cst.FunctionDef: "a method", cst.ClassDef: "a nested class", cst.If: "an `if` statement",
             cst.For: "a `for` loop", cst.While: "a `while` loop", cst.Try: "a `try` statement",
             cst.With: "a `with` statement", cst.Assign: "an assignment", cst.AugAssign: "an assignment",
             cst.AnnAssign: "an annotated assignment to `" + (_short(stmt.target) if isinstance(stmt, cst.AnnAssign)
                                                              else "") + "`",
             cst.Import: "an import", cst.ImportFrom: "an import", cst.Expr: "an expression statement"}
    return kinds.get(type(stmt), f"a `{type(stmt).__name__}` statement")


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
