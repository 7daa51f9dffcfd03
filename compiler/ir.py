"""This module defines the DWF intermediate representation: the analyzed program that the
interpreter runs and that the planner draws.

Every node is a frozen, slotted dataclass with a `span`. Names carry their resolved scope;
effect calls carry their site ID; typed asks refer to a schema by key into `Program.schemas`;
the meta block, the approved command set and the phases are fields of `Program`. The module
imports nothing of the syntax tree (lowering is where the tree stops), so the runtime can load IR from
JSON without the front end.

`to_json`/`from_json` round-trip any node through plain JSON with a `"node"` tag per object.
`dump` prints the canonical text form (one node per line, indented), which tests snapshot, and
`Program.ir_hash` is the SHA-256 of the canonical JSON, stable across runs and machines.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Union

from dwf.grammar.meta import Meta

from dwf.compiler.source import Span

# Where a name lives, decided at compile time by name resolution.
LOCAL = "local"  # bound in the enclosing function (or comprehension / lambda)
FREE = "free"  # bound in an enclosing function, read through the closure
GLOBAL = "global"  # bound at the top level of the script
FACADE = "facade"  # a facade name (agent, files, args, ...) not shadowed by the script
BUILTIN = "builtin"  # an allowed builtin function or exception type
MODULE = "module"  # an imported module (json, re, math) bound at top level
TYPE = "type"  # a typing name or a TypedDict class (compile time only)
UNDEFINED = "undefined"  # bound nowhere (already diagnosed)


@dataclass(frozen=True, slots=True)
class Node:
    span: Span

    KIND: ClassVar[str] = "node"


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Const(Node):
    value: None | bool | int | float | str


@dataclass(frozen=True, slots=True)
class FormattedValue(Node):
    value: Expr
    conversion: str | None  # "r", "s", "a" or None
    format_spec: FString | None


@dataclass(frozen=True, slots=True)
class FString(Node):
    parts: tuple[Union[str, FormattedValue], ...]


@dataclass(frozen=True, slots=True)
class Name(Node):
    id: str
    scope: str


@dataclass(frozen=True, slots=True)
class Attribute(Node):
    value: Expr
    attr: str


@dataclass(frozen=True, slots=True)
class Subscript(Node):
    value: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class Slice(Node):
    lower: Expr | None
    upper: Expr | None
    step: Expr | None


@dataclass(frozen=True, slots=True)
class Starred(Node):
    value: Expr


@dataclass(frozen=True, slots=True)
class Keyword(Node):
    name: str | None  # None for `**mapping`
    value: Expr


@dataclass(frozen=True, slots=True)
class Call(Node):
    func: Expr
    args: tuple[Expr, ...]  # may contain Starred
    keywords: tuple[Keyword, ...]
    call_id: str = ""  # "call#N", the call's part of occurrence paths (lower/occurrences.py)


@dataclass(frozen=True, slots=True)
class FacadeCall(Node):
    """A call of a facade member. `site` is None for unsited members (log, budget.*)."""

    op: str  # qualified member: "agent", "ask", "files.read", "world.run", ...
    site: str | None
    receiver: Expr | None  # the actor expression of an ask, else None
    args: tuple[Expr, ...]
    keywords: tuple[Keyword, ...]
    schema: str | None = None  # key into Program.schemas for a typed ask


@dataclass(frozen=True, slots=True)
class BinOp(Node):
    op: str  # "+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class UnaryOp(Node):
    op: str  # "-", "+", "not", "~"
    operand: Expr


@dataclass(frozen=True, slots=True)
class BoolOp(Node):
    op: str  # "and" | "or"
    values: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Compare(Node):
    left: Expr
    ops: tuple[str, ...]  # "==", "!=", "<", "<=", ">", ">=", "in", "not in", "is", "is not"
    comparators: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class IfExp(Node):
    test: Expr
    body: Expr
    orelse: Expr


@dataclass(frozen=True, slots=True)
class Param(Node):
    name: str
    default: Expr | None
    kind: str = "plain"  # "plain" | "star" (*args) | "double_star" (**kwargs)


@dataclass(frozen=True, slots=True)
class Lambda(Node):
    params: tuple[Param, ...]
    body: Expr
    locals: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Comprehension(Node):
    target: Expr
    iter: Expr
    ifs: tuple[Expr, ...]
    loop_id: str = ""  # "comp#N", this clause's part of occurrence paths (lower/occurrences.py)


@dataclass(frozen=True, slots=True)
class ListComp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]
    has_effects: bool = False  # iterations extend occurrence paths (lower/occurrences.py)


@dataclass(frozen=True, slots=True)
class SetComp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]
    has_effects: bool = False  # iterations extend occurrence paths (lower/occurrences.py)


@dataclass(frozen=True, slots=True)
class GeneratorExp(Node):
    elt: Expr
    generators: tuple[Comprehension, ...]
    has_effects: bool = False  # iterations extend occurrence paths (lower/occurrences.py)


@dataclass(frozen=True, slots=True)
class DictComp(Node):
    key: Expr
    value: Expr
    generators: tuple[Comprehension, ...]
    has_effects: bool = False  # iterations extend occurrence paths (lower/occurrences.py)


@dataclass(frozen=True, slots=True)
class Await(Node):
    value: Expr


@dataclass(frozen=True, slots=True)
class NamedExpr(Node):
    target: Name
    value: Expr


@dataclass(frozen=True, slots=True)
class List(Node):
    elts: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Tuple(Node):
    elts: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Set(Node):
    elts: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Dict(Node):
    keys: tuple[Expr | None, ...]  # None marks `**mapping`
    values: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class TypeName(Node):
    """`type(value).__name__`, the one use of `type()` a script may make: the name of the
    value's type as a str (no type object ever reaches the script)."""

    value: Expr


@dataclass(frozen=True, slots=True)
class Invalid(Node):
    """Placeholder for a construct that was rejected with a diagnostic."""

    what: str


Expr = Union[
    Const, FString, Name, Attribute, Subscript, Slice, Starred, Call, FacadeCall, BinOp, UnaryOp,
    BoolOp, Compare, IfExp, Lambda, ListComp, SetComp, GeneratorExp, DictComp, Await, NamedExpr,
    List, Tuple, Set, Dict, TypeName, Invalid,
]

# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class ExprStmt(Node):
    value: Expr


@dataclass(frozen=True, slots=True)
class Assign(Node):
    targets: tuple[Expr, ...]  # `a = b = value` has two targets
    value: Expr


@dataclass(frozen=True, slots=True)
class AugAssign(Node):
    target: Expr
    op: str
    value: Expr


@dataclass(frozen=True, slots=True)
class AnnAssign(Node):
    target: Expr
    value: Expr | None


@dataclass(frozen=True, slots=True)
class If(Node):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class For(Node):
    target: Expr
    iter: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    loop_id: str = ""  # "for#N", the loop's part of occurrence paths (lower/occurrences.py)
    has_effects: bool = False  # iterations extend occurrence paths


@dataclass(frozen=True, slots=True)
class While(Node):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    loop_id: str = ""  # "while#N", the loop's part of occurrence paths (lower/occurrences.py)
    has_effects: bool = False  # iterations extend occurrence paths


@dataclass(frozen=True, slots=True)
class Break(Node):
    pass


@dataclass(frozen=True, slots=True)
class Continue(Node):
    pass


@dataclass(frozen=True, slots=True)
class Pass(Node):
    pass


@dataclass(frozen=True, slots=True)
class Return(Node):
    value: Expr | None


@dataclass(frozen=True, slots=True)
class ExceptHandler(Node):
    type: Expr | None
    name: str | None
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Try(Node):
    body: tuple[Stmt, ...]
    handlers: tuple[ExceptHandler, ...]
    orelse: tuple[Stmt, ...]
    finalbody: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Raise(Node):
    exc: Expr | None
    cause: Expr | None


@dataclass(frozen=True, slots=True)
class Assert(Node):
    test: Expr
    msg: Expr | None


@dataclass(frozen=True, slots=True)
class Delete(Node):
    targets: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class FunctionDef(Node):
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    is_async: bool
    locals: tuple[str, ...]  # names local to the function, sorted
    scope: str  # where the function's own name is bound (LOCAL or GLOBAL)


@dataclass(frozen=True, slots=True)
class Phase(Node):
    name: str


@dataclass(frozen=True, slots=True)
class ExceptionClass(Node):
    """A top-level `class Name(Base): pass` whose base is an exception class: binds `name` to a
    new exception class derived from `base` when it runs, like CPython's `class` statement."""

    name: str
    base: Expr


@dataclass(frozen=True, slots=True)
class Import(Node):
    module: str  # a module of grammar/builtins.py MODULES
    name: str  # the name it is bound to (`import m as name`); "" for `from m import ...`
    members: tuple[tuple[str, str], ...] = ()  # `from m import member as bound`: (member, bound)


Stmt = Union[
    ExprStmt, Assign, AugAssign, AnnAssign, If, For, While, Break, Continue, Pass, Return, Try,
    Raise, Assert, Delete, FunctionDef, ExceptionClass, Phase, Import,
]

# ---------------------------------------------------------------- program


@dataclass(frozen=True, slots=True)
class Site(Node):
    """One row of the site table."""

    id: str  # "ask#3"
    kind: str
    op: str  # facade member, e.g. "files.read"
    actor: str | None = None  # asks: the actor site or name pattern; actors: the name pattern
    command: str | None = None  # world.run: the literal command
    phase: str | None = None  # the phase the site is lexically in, when static
    function: str | None = None  # the helper function the site is in, if any
    detail: str | None = None  # label, instruction head, artifact id, ...


@dataclass(frozen=True, slots=True)
class Program(Node):
    path: str
    source_sha256: str
    compiler_version: str
    body: tuple[Stmt, ...]
    meta: Meta  # the literal meta block, validated (a dict; `{}` only for a program built without one)
    schemas: tuple[tuple[str, Any], ...]  # (key, canonical JSON Schema), sorted by key
    sites: tuple[Site, ...]
    commands: tuple[str, ...]  # sorted literal world.run commands
    phases: tuple[str, ...]  # phase names in first-appearance order
    globals: tuple[str, ...]  # names bound at the top level, sorted
    # `schemas` as a dict, built once. Derived, so not serialized (`init=False`, see `to_json`).
    schema_index: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "schema_index", dict(self.schemas))

    def schema(self, key: str) -> Any:
        """The canonical JSON Schema stored under `key` (a typed ask's `schema_key`)."""
        return self.schema_index[key]

    @property
    def ir_hash(self) -> str:
        # The display path is not part of what runs, so it is left out of the hash.
        data = to_json(self)
        data["path"] = ""
        return hashlib.sha256(canonical_json(data).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- serialization

NODE_TYPES: dict[str, type[Node]] = {
    cls.__name__: cls
    for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, Node) and cls is not Node
}


@cache
def _serialized_fields(cls: type[Node]) -> tuple[dataclasses.Field, ...]:
    """A node's fields as JSON and `dump` show them: every field but the derived ones."""
    return tuple(f for f in dataclasses.fields(cls) if f.init)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def to_json(value: Any) -> Any:
    if isinstance(value, Node):
        data: dict[str, Any] = {"node": type(value).__name__}
        for f in _serialized_fields(type(value)):
            item = getattr(value, f.name)
            data[f.name] = item.to_json() if f.name == "span" else to_json(item)
        return data
    if isinstance(value, tuple):
        return [to_json(v) for v in value]
    if isinstance(value, float) and value != value:
        raise ValueError("NaN is not JSON")
    return value


def from_json(data: Any) -> Any:
    if isinstance(data, dict) and "node" in data:
        cls = NODE_TYPES[data["node"]]
        kwargs = {}
        for f in _serialized_fields(cls):
            raw = data[f.name]
            if f.name == "span":
                kwargs[f.name] = Span.from_json(raw)
            elif f.name in ("meta",):
                kwargs[f.name] = raw
            elif f.name == "schemas":
                kwargs[f.name] = tuple((k, v) for k, v in raw)
            else:
                kwargs[f.name] = from_json(raw)
        return cls(**kwargs)
    if isinstance(data, list):
        return tuple(from_json(v) for v in data)
    return data


def dump(node: Node) -> str:
    """The canonical text form of an IR tree: stable, readable, one node per line."""
    lines: list[str] = []
    _dump(node, 0, lines, "")
    return "\n".join(lines) + "\n"


def _dump(value: Any, depth: int, lines: list[str], label: str) -> None:
    pad = "  " * depth
    prefix = f"{label}: " if label else ""
    if isinstance(value, Node):
        scalars, children = [], []
        for f in _serialized_fields(type(value)):
            if f.name == "span":
                continue
            item = getattr(value, f.name)
            if isinstance(item, Node) or (isinstance(item, tuple) and any(isinstance(i, Node) for i in item)):
                children.append((f.name, item))
            elif f.name in ("meta", "schemas"):
                children.append((f.name, item))
            else:
                scalars.append(f"{f.name}={json.dumps(to_json(item), ensure_ascii=False, sort_keys=True)}")
        s = value.span
        lines.append(f"{pad}{prefix}{type(value).__name__} @{s.line}:{s.column}" + (" " + " ".join(scalars) if scalars else ""))
        for name, item in children:
            _dump(item, depth + 1, lines, name)
    elif isinstance(value, tuple) and value and all(isinstance(i, Node) for i in value):
        lines.append(f"{pad}{prefix}[{len(value)}]")
        for item in value:
            _dump(item, depth + 1, lines, "")
    elif isinstance(value, tuple) and any(isinstance(i, Node) for i in value):
        lines.append(f"{pad}{prefix}[{len(value)}]")
        for item in value:
            if isinstance(item, Node):
                _dump(item, depth + 1, lines, "")
            else:
                lines.append(f"{pad}  {json.dumps(item, ensure_ascii=False)}")
    else:
        lines.append(f"{pad}{prefix}{canonical_json(to_json(value))}")
