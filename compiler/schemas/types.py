"""This module defines the translation of type expressions (the `T` of `returns=T`, and the
field types of TypedDicts) into schemas under construction: JSON Schema dicts in which each
TypedDict is still a `SchemaRef`, for `SchemaBuilder` (`compiler.schemas`) to inline or move to
`$defs`. `TypeExpressionTranslator` is the base class of `SchemaBuilder`; it owns reporting.

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

**Paths** in DWF401/402/403/407 messages name the offending part of the JSON value: the root is
`$` for a `returns=` expression and the class name for a TypedDict field (the defect is reported
once, in the declaration: `Finding.when`, `Report.items[].tags.*`); `.name` is an object property,
`[]` the items of a list (or of `tuple[T, ...]`), `[0]` a tuple position, `.*` the values of a
`dict[str, T]`. Union members and `Annotated` add no segment: they describe the same JSON value
and the diagnostic's span points at the member.
"""

from __future__ import annotations

import difflib
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ast

from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.lower.literals import NOT_LITERAL, is_ellipsis, is_plain_string, literal_value, string_value
from dwf.compiler.lower.literals import short_source as _short_source, source_key as _source_key
from dwf.compiler.rules.base import Rule
from dwf.compiler.rules.schemas import DictKeyNotStr, TooManyUnionMembers, UnknownTypeName, UnsupportedType
from dwf.compiler.positions import SourceMap
from dwf.compiler.source import SourceFile, Span

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
    "AsyncGenerator": _FUNCTION, "Iterator": _FUNCTION, "AsyncIterator": _FUNCTION,
    "Iterable": ("`{name}` is not supported in result types (JSON has arrays, not iterators)", "use `list[...]`"),
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


@dataclass(frozen=True, slots=True)
class SchemaRef:
    """A reference to a TypedDict inside a schema under construction, resolved by
    `SchemaBuilder._finish`."""

    name: str
    extra: tuple[tuple[str, Any], ...] = ()  # keywords added at this use (a description)


Schema = dict | SchemaRef  # a schema under construction


class TypeExpressionTranslator:
    """Translates the type expressions of one script into schemas under construction and
    reports what cannot be one; see the module docstring."""

    def __init__(self, *, typeddicts: dict[str, ast.ClassDef], typing_names: dict[str, str],
                 constants: dict[str, ast.expr], span_of: Callable[[ast.AST], Span],
                 sink: DiagnosticSink, positions) -> None:
        self._positions = positions
        self._typeddicts = typeddicts
        self._typing = typing_names
        self._constants = constants
        self._span_of = span_of
        self._sink = sink
        self._errors = 0
        self._anchor: ast.AST | None = None  # span for nodes parsed from a forward reference
        self._refs: set[str] | None = None  # collects TypedDict references of the field being built
        self._aliases: dict[str, tuple[Schema | None, frozenset[str]]] = {}
        self._alias_stack: list[str] = []

    # ------------------------------------------------------------------ reporting

    def _report(self, rule: type[Rule], node: ast.AST | Span, **fields: object) -> None:
        self._errors += 1
        where = self._anchor or node
        self._sink.report(rule, where if isinstance(where, Span) else self._span_of(where), **fields)

    def _unsupported(self, node: ast.AST, path: str, detail: str, hint: str) -> None:
        self._report(UnsupportedType, node, path=path, detail=detail, hint=hint)

    def source_key(self, node: ast.AST) -> str:
        return _source_key(node, self._positions)

    def short_source(self, node: ast.AST) -> str:
        return _short_source(node, self._positions)

    def _unknown_name(self, node: ast.AST, name: str, path: str) -> None:
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


    # ------------------------------------------------------------------ type expressions

    def _type(self, node: ast.expr, path: str) -> Schema | None:
        if is_name_like(node):
            return self._named(node, path)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, path)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            members = [self._type(operand, path) for operand in _union_operands(node)]
            return self._union(members, node, path)
        if is_plain_string(node):
            parsed = self._parse_forward(node, path)
            if parsed is None:
                return None
            saved, self._anchor = self._anchor, self._anchor or node
            try:
                return self._type(parsed, path)
            finally:
                self._anchor = saved
        if isinstance(node, ast.Attribute):
            self._unknown_name(node, self.source_key(node) if node.attr not in _UNSUPPORTED else node.attr, path)
            return None
        self._unsupported(node, path, f"`{self.short_source(node)}` is not a type",
                          "use `str`, `int`, `float`, `bool`, `None`, `object`, `list[...]`, `dict[str, ...]`, "
                          "`Literal[...]` or a TypedDict")
        return None

    def _named(self, node: ast.expr, path: str) -> Schema | None:
        name = name_of(node)
        if name == "None":
            return {"type": "null"}
        if name in self._typeddicts:
            if self._refs is not None:
                self._refs.add(name)
            return SchemaRef(name)
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

    def _alias(self, node: ast.Name, name: str, path: str) -> Schema | None:
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
        if not is_type_like(value):
            if isinstance(value, ast.Dict):
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

    def _subscript(self, node: ast.Subscript, path: str) -> Schema | None:
        head = node.value
        if not is_name_like(head):
            if isinstance(head, ast.Attribute):
                self._type(head, path)  # reports the unknown or unsupported dotted name
            else:
                self._unsupported(node, path, f"`{self.short_source(node)}` is not a type",
                                  "write `list[T]`, `dict[str, T]`, `Literal[...]` and so on")
            return None
        name = name_of(head)
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
            return None if parts is None else describe(self._type(parts[0], path), parts[1])
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

    def _arguments(self, node: ast.Subscript, path: str, count: int | None = None) -> list | None:
        args = []
        for element in _subscript_elements(node, getattr(node, "dwf_positions", self._positions)):
            if isinstance(element, (ast.Slice, ast.Starred)):
                self._unsupported(element, path, f"`{self.short_source(element)}` is not a type argument",
                                  "write type arguments separated by commas")
                return None
            args.append(element)
        if count is not None and len(args) != count:
            head = self.short_source(node.value)
            self._unsupported(node, path, f"`{head}[...]` takes {count} type argument"
                              f"{'s' if count > 1 else ''}, not {len(args)}", f"write `{head}[T]`")
            return None
        return args

    def _container(self, kind: str, node: ast.AST, args: list | None, path: str) -> Schema | None:
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
            self._report(DictKeyNotStr, args[0], path=path, key=self.short_source(args[0]))
            return None
        # tuple
        if args is None:
            return {"type": "array", "items": {}}
        if len(args) == 2 and is_ellipsis(args[1]):
            items = self._type(args[0], path + "[]")
            return None if items is None else {"type": "array", "items": items}
        if len(args) == 1 and isinstance(args[0], ast.Tuple) and not args[0].elts:
            return {"type": "array", "maxItems": 0}
        positions = []
        for index, arg in enumerate(args):
            if is_ellipsis(arg):
                self._unsupported(arg, path, "`...` is allowed only as `tuple[T, ...]`",
                                  "write `tuple[T, ...]` or list every position")
                positions.append(None)
            else:
                positions.append(self._type(arg, f"{path}[{index}]"))
        if any(p is None for p in positions):
            return None
        return {"type": "array", "prefixItems": positions, "minItems": len(args), "maxItems": len(args)}

    def _literal_type(self, node: ast.Subscript, path: str) -> Schema | None:
        values: list[Any] = []
        ok = True
        pending = self._arguments(node, path)
        if pending is None:
            return None
        for arg in pending:
            if isinstance(arg, ast.Subscript) and self._typing_head(arg) == "Literal":
                nested = self._literal_type(arg, path)
                ok &= nested is not None
                values.extend(nested["enum"] if nested else [])
                continue
            value = literal_value(arg)
            if value is NOT_LITERAL:
                self._unsupported(arg, path, f"`{self.short_source(arg)}` cannot be a `Literal` member",
                                  "`Literal` members are str, int or bool literals, or `None`")
                ok = False
            else:
                values.append(value)
        values = _unique(values)
        if len(values) > MAX_UNION_MEMBERS:
            self._report(TooManyUnionMembers, node, path=path, count=len(values))
            return None
        return {"enum": values} if ok else None

    def _annotated(self, node: ast.Subscript, path: str) -> tuple[ast.expr, str | None] | None:
        args = self._arguments(node, path)
        if args is None:
            return None
        texts = [string_value(arg) for arg in args[1:]]
        if len(args) != 2 or not isinstance(texts[0], str):
            self._unsupported(node, path, "`Annotated[...]` takes a type and one description string",
                              'write `Annotated[T, "what the value means"]`')
            return None
        return args[0], clean_description(texts[0]) or None

    def _union(self, members: list[Schema | None], node: ast.AST, path: str) -> Schema | None:
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

    def _parse_forward(self, node: ast.expr, path: str) -> ast.expr | None:
        text = string_value(node)
        try:
            if not isinstance(text, str):
                raise ValueError
            return parse_forward_reference(text.strip())
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._unsupported(node, path, f"`{self.short_source(node)}` is not a type expression",
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

    def _is_typevar(self, value: ast.expr) -> bool:
        return (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and self._typing.get(value.func.id) in _TYPEVAR_FACTORIES)

    def _typing_head(self, node: ast.expr) -> str | None:
        """The typing name a subscript's head resolves to (`NR[int]` → `NotRequired`)."""
        if isinstance(node, ast.Subscript) and is_name_like(node.value):
            name = name_of(node.value)
            if name not in self._typeddicts:
                return self._typing.get(name)
        return None


# ---------------------------------------------------------------------- helpers


def is_name_like(node: ast.AST) -> bool:
    """A name, or one of the constants libcst read as names (`None`, `True`, `False`)."""
    return isinstance(node, ast.Name) or (isinstance(node, ast.Constant) and (node.value is None or node.value is True
                                                                               or node.value is False))


def name_of(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else repr(node.value)


def is_type_like(node: ast.expr) -> bool:
    """Whether an expression has the shape of a type: a name, a dotted name, a subscript or a
    `|` union."""
    return is_name_like(node) or isinstance(node, (ast.Attribute, ast.Subscript)) or (
        isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr))


def _subscript_elements(node: ast.Subscript, positions) -> list[ast.expr]:
    """The elements of a subscript's index as written: `x[a, b]` has two, `x[(a, b)]` one."""
    index = node.slice
    if isinstance(index, ast.Tuple) and not positions.is_parenthesized(index):
        return list(index.elts)
    return [index]


def parse_forward_reference(text: str) -> ast.expr:
    """A forward reference's expression, its nodes carrying the `SourceMap` of its own text."""
    tree = compile(text, "<forward reference>", "eval", ast.PyCF_ONLY_AST, dont_inherit=True)
    positions = SourceMap(SourceFile("<forward reference>", text))
    for node in ast.walk(tree):
        node.dwf_positions = positions
    return tree.body


def _member_key(schema: Schema) -> str:
    return json.dumps(schema, sort_keys=True, default=lambda ref: ["$ref", ref.name, ref.extra])


def _union_operands(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_operands(node.left) + _union_operands(node.right)
    return [node]


def _unique(values: list[Any]) -> list[Any]:
    seen: set[tuple] = set()
    out = []
    for value in values:
        key = (type(value).__name__, value)
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def describe(schema: Schema | None, text: str | None) -> Schema | None:
    """`schema` with `text` as its description (a later description replaces an earlier one)."""
    if schema is None or not text:
        return schema
    if isinstance(schema, SchemaRef):
        return SchemaRef(schema.name, tuple((k, v) for k, v in schema.extra if k != "description")
                         + (("description", text),))
    return {**schema, "description": text}


def clean_description(text: str) -> str:
    """A docstring or `Annotated` text with its indentation removed."""
    return inspect.cleandoc(text)
