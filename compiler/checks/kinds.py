"""This module defines kinds: what the compiler knows statically about a value, and how kinds
combine. The inference that assigns kinds to IR expressions is `compiler.checks.kind_inference`; the
checks that use them are `compiler.checks.kind_checks`.

A kind is a `Kind` value, or `None` for "unknown". Unknown is the top of the lattice and absorbs
everything, so a check that needs a kind never fires on a value the compiler cannot see:

- scalars `str`, `int`, `float`, `bool`, `None`;
- containers `list`, `set`, `tuple`, `dict` and `iterable` (views, generators, `enumerate`, ...),
  with the kind of their elements (`of`), a dict's keys (`key`), a tuple's items (`items`);
- the records facade calls return (`RunResult`, `GrepMatch`, `GitStatus`, `GitCommit`,
  `ArtifactRef`) and `Agent`; `re.Pattern` (`re.compile`) and `re.Match`;
- `json`: any JSON value (an untyped `json.loads`, a `json` run argument); a dict that comes from
  an ask, `json.loads` or `args` is a `dict` whose `origin` says so, with its declared `fields`
  when a `returns=` type gives them; a dict whose schema is closed (a TypedDict:
  `additionalProperties: false`) is `closed`, holds no key but its `fields`, and carries the
  TypedDict's name (`type_name`) when the schema is the body of exactly one of the script's
  TypedDicts;
- `awaitable` with the kind of its result (`of`): an ask, an awaitable facade call or a call of
  an `async def`, before `await`;
- `function` (a `def` or `lambda`), and unions of up to `MAX_ALTERNATIVES` of the above.

`join` is the kind of a value that may come from either side (two bindings of one name, the two
branches of `a if c else b`); a union keeps both, so a check can ask whether an operation fails
for *every* alternative.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

MAX_ALTERNATIVES = 4
RECORD_KINDS = frozenset(F.RECORDS) | {"Agent"}
# Kinds that are JSON data (a JSON value joined with one of them stays JSON).
JSON_LIKE = frozenset({"json", "dict", "list", "str", "int", "float", "bool", "None"})


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    of: Kind | None = None  # element (list, set, iterable), value (dict), result (awaitable)
    key: Kind | None = None  # a dict's keys
    items: tuple[Kind | None, ...] | None = None  # a tuple's items, when its length is known
    fields: tuple[tuple[str, Kind | None], ...] | None = None  # the declared fields of a JSON dict
    alts: frozenset[Kind] | None = None  # the alternatives of a union
    origin: str = ""  # where JSON data comes from: "ask", "json", "args" ("" otherwise)
    closed: bool = False  # a dict that has no keys but its `fields` (a TypedDict result)
    type_name: str = ""  # the TypedDict a closed dict validates against, when known

    @property
    def is_union(self) -> bool:
        return self.alts is not None

    def field_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.fields or ())


STR, INT, FLOAT, BOOL, NONE = Kind("str"), Kind("int"), Kind("float"), Kind("bool"), Kind("None")
PATTERN, MATCH = Kind("re.Pattern"), Kind("re.Match")
JSON = Kind("json")
FUNCTION = Kind("function")
SCALARS = {"str": STR, "int": INT, "float": FLOAT, "bool": BOOL, "None": NONE}


def list_of(of: Kind | None) -> Kind:
    return Kind("list", of=of)


def iterable_of(of: Kind | None) -> Kind:
    return Kind("iterable", of=of)


def awaitable_of(of: Kind | None) -> Kind:
    return Kind("awaitable", of=of)


def alternatives(kind: Kind) -> tuple[Kind, ...]:
    return tuple(sorted(kind.alts, key=_order)) if kind.alts is not None else (kind,)


def _order(kind: Kind) -> tuple:
    return (kind.name == "None", kind.name, repr(kind))


# ---------------------------------------------------------------- joins


def join(a: Kind | None, b: Kind | None) -> Kind | None:
    """The kind of a value that is either an `a` or a `b`."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if not a.is_union and not b.is_union and a.name == b.name:
        return _join_same(a, b)
    if not a.is_union and not b.is_union and {a.name, b.name} <= JSON_LIKE and "json" in (a.name, b.name):
        return JSON
    merged: list[Kind] = []
    for alternative in (*alternatives(a), *alternatives(b)):
        for index, known in enumerate(merged):
            if known.name == alternative.name:
                joined = _join_same(known, alternative)
                if joined is None:
                    return None
                merged[index] = joined
                break
        else:
            merged.append(alternative)
    if len(merged) > MAX_ALTERNATIVES:
        return None
    return merged[0] if len(merged) == 1 else Kind("union", alts=frozenset(merged))


def join_all(kinds) -> Kind | None:
    result: Kind | None = None
    first = True
    for kind in kinds:
        result = kind if first else join(result, kind)
        first = False
        if result is None:
            return None
    return result


def _join_same(a: Kind, b: Kind) -> Kind | None:
    """Two kinds of one name (`list[str]` and `list[int]` give `list[str | int]`)."""
    if a == b:
        return a
    items = None
    if a.items is not None and b.items is not None and len(a.items) == len(b.items):
        items = tuple(join(x, y) for x, y in zip(a.items, b.items))
    of = join(a.of, b.of) if a.items is None and b.items is None else None
    fields = a.fields if a.fields == b.fields else None
    closed = a.closed and b.closed and fields is not None
    return Kind(a.name, of=of, key=join(a.key, b.key), items=items, fields=fields,
                origin=a.origin if a.origin == b.origin else "", closed=closed,
                type_name=a.type_name if closed and a.type_name == b.type_name else "")


def without_elements(kind: Kind | None) -> Kind | None:
    """The kind of a container that may have been changed: its elements are no longer known,
    and a closed dict may have gained keys."""
    if kind is None:
        return None
    if kind.is_union:
        return Kind("union", alts=frozenset(without_elements(k) for k in kind.alts))
    if kind.name in ("list", "set", "dict", "tuple", "iterable"):
        fields = tuple((name, None) for name, _ in kind.fields) if kind.fields else kind.fields
        return replace(kind, of=None, key=None, items=None, fields=fields, closed=False)
    return kind


# ---------------------------------------------------------------- sources


def parse_type(text: str) -> Kind | None:
    """A kind from the notation of `grammar.facade` (`list[GrepMatch]`, `str`, "" for unknown)."""
    if not text:
        return None
    if text.startswith("list[") and text.endswith("]"):
        return list_of(parse_type(text[5:-1]))
    if text == "list":
        return list_of(None)
    if text in SCALARS:
        return SCALARS[text]
    if text in RECORD_KINDS:
        return Kind(text)
    return None


def schema_identity(schema: Mapping) -> str:
    """A text that two object schemas share when they describe the same TypedDict (their
    descriptions and the root's `$schema`/`$defs` aside)."""
    return json.dumps({k: v for k, v in schema.items() if k not in ("description", "$schema", "$defs")},
                      sort_keys=True)


def typeddict_names(bodies: Mapping[str, Mapping]) -> Callable[[Mapping], str]:
    """A function giving the name of the TypedDict whose canonical body (`bodies`: name ->
    body) an object schema is, or "" when none is, or several are (same fields, same types)."""
    by_identity: dict[str, str] = {}
    for name, body in bodies.items():
        identity = schema_identity(body)
        by_identity[identity] = "" if identity in by_identity else name
    return lambda schema: by_identity.get(schema_identity(schema), "") if by_identity else ""


def from_schema(schema: object, origin: str = "ask", name_of: Callable[[Mapping], str] | None = None) -> Kind | None:
    """The kind of a value that validates against a JSON Schema (an ask's `returns=`);
    `name_of` names the TypedDict of an object schema (`typeddict_names`)."""
    if not isinstance(schema, dict):
        return None
    if "anyOf" in schema and isinstance(schema["anyOf"], list):
        return join_all(from_schema(s, origin, name_of) for s in schema["anyOf"]) if schema["anyOf"] else None
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return join_all(_constant_kind(v) for v in schema["enum"])
    if "const" in schema:
        return _constant_kind(schema["const"])
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties")
        fields = tuple((name, from_schema(sub, origin, name_of)) for name, sub in properties.items()) \
            if isinstance(properties, dict) and properties else None
        closed = fields is not None and schema.get("additionalProperties") is False \
            and "patternProperties" not in schema
        return Kind("dict", key=STR, of=JSON, fields=fields, origin=origin, closed=closed,
                    type_name=name_of(schema) if closed and name_of is not None else "")
    if kind == "array":
        return Kind("list", of=from_schema(schema.get("items"), origin, name_of) if "items" in schema else JSON)
    if kind in ("string", "integer", "boolean", "null"):
        return {"string": STR, "integer": INT, "boolean": BOOL, "null": NONE}[kind]
    return None  # numbers (int or float), references, anything richer


def _constant_kind(value: object) -> Kind | None:
    if value is None:
        return NONE
    return {str: STR, int: INT, float: FLOAT, bool: BOOL}.get(type(value))


def of_constant(value: object) -> Kind | None:
    return _constant_kind(value)


ARG_KINDS = {"string": STR, "integer": INT, "boolean": BOOL, "json": JSON}


# ---------------------------------------------------------------- operations


def element(kind: Kind | None) -> Kind | None:
    """The kind of the items iteration gives."""
    if kind is None:
        return None
    if kind.is_union:
        return join_all(element(k) for k in alternatives(kind))
    if kind.name in ("list", "set", "iterable"):
        return kind.of
    if kind.name == "tuple":
        return join_all(kind.items) if kind.items else kind.of
    if kind.name == "dict":
        return kind.key
    if kind.name == "str":
        return STR
    if kind.name == "json":
        return JSON
    return None


def item(kind: Kind | None, index: object, index_kind: Kind | None, is_slice: bool) -> Kind | None:
    """The kind of `value[index]` (`index` is the literal index, if any)."""
    if kind is None:
        return None
    if kind.is_union:
        return None
    if kind.name == "str":
        return STR
    if kind.name == "list":
        return kind if is_slice else kind.of
    if kind.name == "tuple":
        if is_slice:
            return Kind("tuple", of=element(kind))
        if kind.items is not None and isinstance(index, int) and not isinstance(index, bool) \
                and -len(kind.items) <= index < len(kind.items):
            return kind.items[index]
        return element(kind)
    if kind.name == "dict":
        if kind.fields is not None and isinstance(index, str):
            return dict(kind.fields).get(index, kind.of)
        return kind.of
    if kind.name == "json":
        return JSON
    return None


def field(kind: Kind | None, attr: str) -> Kind | None:
    """The kind of a record's field or an actor's `name`."""
    if kind is None or kind.is_union:
        return None
    if kind.name in F.RECORD_FIELD_TYPES:
        return parse_type(F.RECORD_FIELD_TYPES[kind.name].get(attr, ""))
    if kind.name == "Agent" and attr == "name":
        return STR
    return None


_STR_RESULTS = {
    **dict.fromkeys(("capitalize", "casefold", "center", "expandtabs", "join", "ljust", "lower", "lstrip",
                     "removeprefix", "removesuffix", "replace", "rjust", "rstrip", "strip", "swapcase",
                     "title", "upper", "zfill"), STR),
    **dict.fromkeys(("split", "rsplit", "splitlines"), list_of(STR)),
    **dict.fromkeys(("count", "find", "index", "rfind", "rindex"), INT),
    **dict.fromkeys(("endswith", "startswith", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit",
                     "isidentifier", "islower", "isnumeric", "isprintable", "isspace", "istitle",
                     "isupper"), BOOL),
    "partition": Kind("tuple", items=(STR, STR, STR)), "rpartition": Kind("tuple", items=(STR, STR, STR)),
}


def regex_result(attr: str) -> Kind | None:
    """The kind `re.<attr>(...)` or `pattern.<attr>(...)` returns."""
    if attr == "compile":
        return PATTERN
    if attr in ("match", "search", "fullmatch"):
        return join(MATCH, NONE)  # a match or None: an attribute outside the match's fails either way
    if attr == "finditer":
        return iterable_of(MATCH)
    if attr in ("sub", "escape"):
        return STR
    if attr in ("findall", "split"):
        return list_of(None)
    if attr == "subn":
        return Kind("tuple", items=(STR, INT))
    return None


def method_result(kind: Kind | None, attr: str) -> Kind | None:
    """The kind a method call returns, for the methods whose result does not depend on the
    arguments."""
    if kind is None or kind.is_union:
        return None
    if kind.name == "re.Pattern":
        return regex_result(attr) if attr != "compile" else None
    if kind.name == "re.Match":
        return {"start": INT, "end": INT, "span": Kind("tuple", items=(INT, INT)), "expand": STR}.get(attr)
    if kind.name == "str":
        return _STR_RESULTS.get(attr)
    if kind.name == "list":
        return {"copy": kind, "count": INT, "index": INT, "pop": kind.of}.get(attr)
    if kind.name == "set":
        return {"copy": kind}.get(attr)
    if kind.name in ("dict", "json"):
        value = kind.of if kind.name == "dict" else JSON
        key = kind.key if kind.name == "dict" else STR
        if attr == "keys":
            return iterable_of(key)
        if attr == "values":
            return iterable_of(value)
        if attr == "items":
            return iterable_of(Kind("tuple", items=(key, value)))
        if attr == "copy" and kind.name == "dict":
            return kind
    return None


def binary(op: str, left: Kind | None, right: Kind | None) -> Kind | None:
    if left is None or right is None or left.is_union or right.is_union:
        return None
    names = (left.name, right.name)
    if op == "+" and names == ("str", "str"):
        return STR
    if op == "+" and names == ("list", "list"):
        return list_of(join(left.of, right.of))
    if op == "%" and left.name == "str":
        return STR
    if op == "*" and sorted(names) == ["int", "str"]:
        return STR
    if op in ("+", "-", "*", "//", "%") and names == ("int", "int"):
        return INT
    if op == "/" and set(names) <= {"int", "float"}:
        return FLOAT
    if op in ("+", "-", "*") and set(names) <= {"int", "float"} and "float" in names:
        return FLOAT
    return None


# ---------------------------------------------------------------- attributes


def attribute_names(kind: Kind) -> tuple[str, ...] | None:
    """The attributes a (non-union) kind offers, or None when they are not checked."""
    if kind.name in B.METHODS and kind.name in ("str", "list", "dict", "set", "tuple", "int", "float",
                                                "re.Pattern", "re.Match"):
        return B.METHODS[kind.name]
    if kind.name in F.RECORDS:
        return F.RECORDS[kind.name]
    if kind.name == "Agent":
        return F.AGENT_ATTRIBUTES + ("ask",)
    if kind.name == "json":
        return tuple(sorted({a for k in ("dict", "list", "str", "int", "float") for a in B.METHODS[k]}))
    return None


def describe(kind: Kind) -> str:
    """A short noun phrase for messages: "a str", "a `RunResult` record", "an ask result"."""
    if kind.is_union:
        return " or ".join(describe(k) for k in alternatives(kind))
    if kind.name in F.RECORDS:
        return f"a `{kind.name}` record"
    if kind.name == "Agent":
        return "an actor"
    if kind.name == "dict" and kind.origin == "ask":
        return "an ask result (plain JSON data)"
    if kind.name == "dict" and kind.origin == "json":
        return "JSON data (a dict)"
    if kind.name == "dict" and kind.origin == "args":
        return "the run's arguments (a read-only dict)"
    if kind.name == "json":
        return "JSON data"
    if kind.name == "awaitable":
        return "an awaitable"
    if kind.name == "None":
        return "None"
    article = "an" if kind.name[0] in "aeiou" else "a"
    return f"{article} {kind.name}"
