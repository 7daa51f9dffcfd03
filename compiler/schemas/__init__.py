"""This module defines schema synthesis: turning the result type of a typed ask (`returns=T`)
into a canonical JSON Schema (draft 2020-12), and checking literal `returns={...}` schemas.

`SchemaBuilder` is created once per script by the lowering pass with the script's top-level
TypedDict classes, its `from typing import ...` names and its compile-time constants. It is pure
(no I/O): findings go to the `DiagnosticSink`, schemas come back as plain JSON data. It builds on
two neighbours: `compiler.schemas.types` translates type expressions (its base class,
`TypeExpressionTranslator`, which also owns reporting), and `compiler.schemas.literals` evaluates
and checks literal schemas. This module adds TypedDict declarations and the canonical output.
`returns=name` where `name` is lower-case, resolves to nothing and resembles no type is taken for
a variable that is not a compile-time constant (DWF405) rather than an unknown type (DWF402).

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

**Output.** Schemas are canonical: every object's keys are sorted (lists such as `required` and
`enum` keep source order), the root carries `"$schema"`, and results are cached and shared, so
callers must treat them as read-only. The key of a type expression is its source text without
whitespace or comments (`list[Finding]`); the key of a literal schema is `schema:` + the first
12 hex digits of the SHA-256 of its canonical JSON.

The package (this module is `SchemaBuilder` itself):

- `__init__.py`: `SchemaBuilder`, TypedDict declarations and the canonical output.
- `types.py`: type expressions to schemas (`TypeExpressionTranslator`).
- `literals.py`: literal `returns={...}` schemas (`SCHEMA_DIALECT`, `LiteralSchemaEvaluator`).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ast

from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.lower.literals import is_ellipsis, is_name_constant, is_plain_string, string_value
from dwf.compiler.rules.schemas import InvalidTypedDict, ReturnsNotConstant
from dwf.compiler.rules.syntax import NonTypedDictClass
from dwf.compiler.schemas.literals import SCHEMA_DIALECT, LiteralSchemaEvaluator
from dwf.compiler.schemas.types import (Schema, SchemaRef, TypeExpressionTranslator, clean_description, describe,
                           is_type_like)
from dwf.compiler.source import Span

__all__ = ["SCHEMA_DIALECT", "SchemaBuilder"]


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


class SchemaBuilder(TypeExpressionTranslator):
    """Synthesizes and checks result schemas for one script; see the module docstring."""

    def __init__(self, *, typeddicts: dict[str, ast.ClassDef], typing_names: dict[str, str],
                 constants: dict[str, ast.expr], span_of: Callable[[ast.AST], Span],
                 sink: DiagnosticSink, positions) -> None:
        super().__init__(typeddicts=typeddicts, typing_names=typing_names, constants=constants,
                         span_of=span_of, sink=sink, positions=positions)
        self._literal_schemas = LiteralSchemaEvaluator(constants, self._report, positions, self.short_source)
        self._checked = False
        self._decls: dict[str, _Decl] = {}
        self._visiting: set[str] = set()
        self._recursive: frozenset[str] = frozenset()
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

    def for_returns(self, expr: ast.expr) -> tuple[str, dict] | None:
        """Schema for a `returns=` argument: (key, canonical schema) or None after reporting."""
        self.check_declarations()
        if isinstance(expr, ast.Dict):
            return self._literal_schemas.evaluate(expr)
        if isinstance(expr, ast.Name) and self._is_constant(expr.id):
            value = self._constants[expr.id]
            while isinstance(value, ast.Name) and self._is_constant(value.id):
                value = self._constants[value.id]
            if isinstance(value, ast.Dict):
                if expr.id not in self._literals:
                    self._literals[expr.id] = self._literal_schemas.evaluate(value)
                return self._literals[expr.id]
            if not is_type_like(value) and not self._is_typevar(value):
                self._report(ReturnsNotConstant, expr, hint=f"`{expr.id}` is bound to a value that is "
                             "neither a type nor a dict literal")
                return None
        if not is_type_like(expr) and not is_plain_string(expr):
            self._report(ReturnsNotConstant, expr, hint="pass a type such as `list[Finding]`, or a JSON Schema "
                         "dict built from literals and top-level constants")
            return None
        if isinstance(expr, ast.Name) and self._looks_like_variable(expr.id):
            self._report(ReturnsNotConstant, expr, hint=f"`{expr.id}` is not a compile-time constant: bind the "
                         "schema dict once at the top level and never reassign or mutate it")
            return None
        key = self.source_key(expr)
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
    def typeddict_bodies(self) -> dict[str, dict]:
        """The canonical object schema of every well-formed TypedDict that is inlined where it
        is used (the recursive ones are `$ref`s), for naming the TypedDict of a result."""
        self.check_declarations()
        bodies: dict[str, dict] = {}
        for name in self._typeddicts:
            if name in self._recursive:
                continue
            try:
                bodies[name] = self._canon(SchemaRef(name), set())
            except _Broken:
                continue
        return bodies

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
            self._report(InvalidTypedDict, self._positions.name_span(cls, name), detail=f"TypedDict `{name}` cannot be generic",
                         hint="declare one TypedDict per concrete shape")
        for arg in cls.bases:
            base = arg.value if isinstance(arg, ast.Starred) else arg
            base_name = base.id if isinstance(arg, ast.Name) else None
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
                         f"`{self.source_key(base)}`",
                         hint=f"did you mean `{close[0]}`?" if close else
                         "a TypedDict may inherit only from `TypedDict` and other TypedDicts of the script")
            bases_ok = False
        total = True
        for arg in cls.keywords:
            keyword = arg.arg
            if keyword == "total" and (is_name_constant(arg.value, True) or is_name_constant(arg.value, False)):
                total = arg.value.value is True
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

    def _read_body(self, name: str, cls: ast.ClassDef, fields: dict[str, _Field], origin: dict[str, str],
                   total: bool, refs: set[str]) -> str | None:
        statements = cls.body
        description = None
        previous: _Field | None = None
        for index, stmt in enumerate(statements):
            field_before, previous = previous, None
            if isinstance(stmt, ast.Expr) and is_plain_string(stmt.value):
                text = string_value(stmt.value)
                if isinstance(text, str):
                    if index == 0:
                        description = clean_description(text)
                    elif field_before is not None:
                        field_before.description = clean_description(text)
                    continue
            if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and is_ellipsis(stmt.value)):
                continue
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                fname = stmt.target.id
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
                    schema, required = self._field_type(stmt.annotation, f"{name}.{fname}", total)
                finally:
                    self._refs = saved
                previous = fields[fname] = _Field(fname, schema, required)
                origin[fname] = name
                continue
            if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
                fname = stmt.targets[0].id
                self._report(NonTypedDictClass, stmt, detail=f"TypedDict field `{fname}` has no annotation",
                             help=f"write `{fname}: <type>`")
                continue
            self._report(NonTypedDictClass, stmt, detail=f"TypedDict `{name}` may contain only annotated fields, "
                         f"docstrings and `pass`, not {_describe_statement(stmt, self.short_source)}")
        return description

    def _field_type(self, node: ast.expr, path: str, total: bool) -> tuple[Schema | None, bool]:
        """A field annotation: `Required`/`NotRequired` and `Annotated` may wrap the type."""
        required: bool | None = None
        descriptions: list[str | None] = []
        saved = self._anchor
        try:
            while True:
                if is_plain_string(node):
                    parsed = self._parse_forward(node, path)
                    if parsed is None:
                        return None, total
                    self._anchor = self._anchor or node
                    node = parsed
                    continue
                head = self._typing_head(node)
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
            schema = describe(schema, text)
        return schema, total if required is None else required

    def _body(self, name: str) -> dict:
        decl = self._decls[name]
        if not decl.ok:
            raise _Broken(name)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {f.name: describe(f.schema, f.description) for f in decl.fields},
            "additionalProperties": False,
        }
        required = [f.name for f in decl.fields if f.required]
        if required:
            schema["required"] = required
        if decl.description:
            schema["description"] = decl.description
        return schema
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
        if isinstance(value, SchemaRef):
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


_LIBCST_NAMES = {"Delete": "Del", "AsyncFor": "For", "AsyncWith": "With"}  # the names messages have used


def _describe_statement(stmt: ast.stmt, short_source) -> str:
    target = short_source(stmt.target) if isinstance(stmt, ast.AnnAssign) else ""
    kinds = {ast.FunctionDef: "a method", ast.AsyncFunctionDef: "a method", ast.ClassDef: "a nested class",
             ast.If: "an `if` statement", ast.For: "a `for` loop", ast.While: "a `while` loop",
             ast.Try: "a `try` statement", ast.With: "a `with` statement", ast.Assign: "an assignment",
             ast.AugAssign: "an assignment", ast.AnnAssign: f"an annotated assignment to `{target}`",
             ast.Import: "an import", ast.ImportFrom: "an import", ast.Expr: "an expression statement"}
    name = type(stmt).__name__
    return kinds.get(type(stmt), f"a `{_LIBCST_NAMES.get(name, name)}` statement")
