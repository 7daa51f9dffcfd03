"""Tests for schema synthesis (`compiler/schemas/__init__.py`): exact schemas for small types, sample
values validated with `jsonschema` for bigger ones, and every DWF4xx finding with its path text
and 1-based position."""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
from collections import Counter

import ast

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dwf.compiler import ir
from dwf.compiler.compile import compile_source
from dwf.compiler.diagnostics import DiagnosticSink
from dwf.compiler.plan.statics import iter_nodes
from dwf.compiler.positions import SourceMap
from dwf.compiler.schemas import SCHEMA_DIALECT, SchemaBuilder
from dwf.compiler.schemas.types import parse_forward_reference
from dwf.compiler.source import SourceFile

S = SCHEMA_DIALECT
STR, INT, NUM, BOOL, NULL = ({"type": t} for t in ("string", "integer", "number", "boolean", "null"))


# ---------------------------------------------------------------------- harness


class Script:
    """Parses a snippet, collects what the lowering pass would hand over, and runs every
    `returns=` argument (in source order) through one SchemaBuilder."""

    def __init__(self, source: str, header: bool = False) -> None:
        self.source = (HEADER if header else "") + textwrap.dedent(source).strip() + "\n"
        module = ast.parse(self.source)
        positions = SourceMap(SourceFile("<test>", self.source))
        typing_names: dict[str, str] = {}
        typeddicts: dict[str, ast.ClassDef] = {}
        values: dict[str, ast.expr] = {}
        bound: Counter[str] = Counter()
        for stmt in module.body:
            if isinstance(stmt, ast.ClassDef) and any(
                isinstance(b, ast.Name) and (typing_names.get(b.id) == "TypedDict" or b.id in typeddicts)
                for b in stmt.bases):
                typeddicts[stmt.name] = stmt
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "typing":
                for alias in stmt.names:
                    typing_names[alias.asname or alias.name] = alias.name
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                values[stmt.targets[0].id] = stmt.value
                bound[stmt.targets[0].id] += 1
            elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr)):  # `X[k] = v`, `X.append(v)`
                bound[re.match(r"\w*", positions.code(stmt)).group()] += 1
        self.sink = DiagnosticSink()
        self.builder = SchemaBuilder(
            typeddicts=typeddicts, typing_names=typing_names,
            constants={name: value for name, value in values.items() if bound[name] == 1},
            span_of=positions.span, sink=self.sink, positions=positions)
        self.builder.check_declarations()
        self.returns = [arg.value for arg in _returns_args(module)]
        self.results = [self.builder.for_returns(expr) for expr in self.returns]

    @property
    def diagnostics(self) -> list[tuple[int, int, str, str]]:
        return [(d.span.line, d.span.column, d.code, d.message) for d in self.sink.sorted()]

    @property
    def helps(self) -> list[str | None]:
        return [d.help for d in self.sink.sorted()]


def _returns_args(module: ast.Module) -> list[ast.keyword]:
    calls = [node for node in ast.walk(module) if isinstance(node, ast.Call)]
    calls.sort(key=lambda call: (call.lineno, call.col_offset))
    return [keyword for call in calls for keyword in call.keywords if keyword.arg == "returns"]


HEADER = "from typing import Annotated, Literal, NotRequired, Optional, Required, TypedDict, Union\n"


def schema(type_source: str, declarations: str = "") -> dict:
    """The schema of one `returns=` type, asserting that nothing was reported."""
    script = Script(textwrap.dedent(declarations) + f"\nask(returns={type_source})\n", header=True)
    assert script.diagnostics == []
    (result,) = script.results
    assert result is not None
    jsonschema.Draft202012Validator.check_schema(result[1])
    return result[1]


def errors(source: str) -> list[tuple[int, int, str, str]]:
    return Script(source).diagnostics


def validator(result: dict) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(result)


def assert_valid(result: dict, good: list, bad: list) -> None:
    check = validator(result)
    for value in good:
        assert check.is_valid(value), (value, [e.message for e in check.iter_errors(value)])
    for value in bad:
        assert not check.is_valid(value), value


def root(**keywords) -> dict:
    return {"$schema": S, **keywords}


# ---------------------------------------------------------------------- builtin types


@pytest.mark.parametrize("source, expected", [
    ("str", STR), ("int", INT), ("float", NUM), ("bool", BOOL), ("None", NULL), ("object", {}),
    ("list[str]", {"type": "array", "items": STR}),
    ("list", {"type": "array", "items": {}}),
    ("tuple[int, ...]", {"type": "array", "items": INT}),
    ("tuple[int, str]", {"type": "array", "prefixItems": [INT, STR], "minItems": 2, "maxItems": 2}),
    ("tuple[()]", {"type": "array", "maxItems": 0}),
    ("tuple", {"type": "array", "items": {}}),
    ("dict[str, int]", {"type": "object", "additionalProperties": INT}),
    ("dict", {"type": "object", "additionalProperties": {}}),
    ("dict[Literal['a', 'b'], bool]",
     {"type": "object", "additionalProperties": BOOL, "propertyNames": {"enum": ["a", "b"]}}),
    ("list[list[tuple[float, float]]]", {"type": "array", "items": {"type": "array", "items": {
        "type": "array", "prefixItems": [NUM, NUM], "minItems": 2, "maxItems": 2}}}),
    ("dict[str, list[int | None]]", {"type": "object", "additionalProperties": {
        "type": "array", "items": {"anyOf": [INT, NULL]}}}),
])
def test_builtin_types(source, expected):
    assert schema(source) == root(**expected)


def test_typing_container_aliases():
    script = Script("""
        from typing import Dict, List as L, Tuple
        ask(returns=L[Dict[str, Tuple[int, ...]]])
    """)
    assert script.diagnostics == []
    assert script.results[0][1] == root(type="array", items={
        "type": "object", "additionalProperties": {"type": "array", "items": INT}})


def test_sample_values_for_nested_containers():
    result = schema("dict[str, list[tuple[str, int | None]]]")
    assert_valid(result,
                 good=[{}, {"a": []}, {"a": [["x", 1], ["y", None]], "b": [["z", 0]]}],
                 bad=[[], {"a": [["x"]]}, {"a": [["x", 1, 2]]}, {"a": [["x", 1.5]]}, {"a": [[1, 1]]}])


# ---------------------------------------------------------------------- literals and unions


@pytest.mark.parametrize("source, expected", [
    ("Literal['low', 'high']", {"enum": ["low", "high"]}),
    ("Literal[1, -2, True, None, 'x']", {"enum": [1, -2, True, None, "x"]}),
    ("Literal['a', Literal['b', 'a']]", {"enum": ["a", "b"]}),
    ("Literal[1, True]", {"enum": [1, True]}),  # JSON tells 1 and true apart
    ("Literal['a'] | Literal['b'] | None", {"enum": ["a", "b", None]}),
    ("Optional[Literal['a', 'b']]", {"enum": ["a", "b", None]}),
    ("str | None", {"anyOf": [STR, NULL]}),
    ("Optional[int]", {"anyOf": [INT, NULL]}),
    ("Union[int, str, None]", {"anyOf": [INT, STR, NULL]}),
    ("Union[int, Union[str, Optional[bool]]]", {"anyOf": [INT, STR, BOOL, NULL]}),
    ("(int | str) | (bool | int)", {"anyOf": [INT, STR, BOOL]}),
    ("int | int", INT),
    ("None | Optional[None]", NULL),
    ("Union[int]", INT),
    ("Literal['a', 'b'] | int | Literal['c']", {"anyOf": [{"enum": ["a", "b", "c"]}, INT]}),
    ("list[str] | dict[str, str]", {"anyOf": [{"type": "array", "items": STR},
                                             {"type": "object", "additionalProperties": STR}]}),
])
def test_literals_and_unions(source, expected):
    assert schema(source) == root(**expected)


def test_type_aliases_are_flattened_into_unions():
    declarations = """
        Level = Literal["low", "high"]
        MaybeLevel = Optional[Level]
        Scores = dict[str, int]
    """
    assert schema("MaybeLevel | Literal['none']", declarations) == root(enum=["low", "high", None, "none"])
    assert schema("list[Scores]", declarations) == root(type="array", items={
        "type": "object", "additionalProperties": INT})


# ---------------------------------------------------------------------- TypedDicts

FINDING = '''
    class Finding(TypedDict):
        """One problem found in a file."""
        path: str
        severity: Literal["low", "medium", "high"]
        summary: str
        line: NotRequired[int]
'''


def test_typeddict_exact():
    assert schema("Finding", FINDING) == root(
        type="object",
        description="One problem found in a file.",
        properties={"path": STR, "severity": {"enum": ["low", "medium", "high"]}, "summary": STR, "line": INT},
        required=["path", "severity", "summary"],
        additionalProperties=False,
    )


def test_typeddict_inlined_in_list_and_values_validate():
    result = schema("list[Finding]", FINDING)
    assert "$defs" not in result
    assert result["items"]["required"] == ["path", "severity", "summary"]
    good = {"path": "a.py", "severity": "low", "summary": "s"}
    assert_valid(result,
                 good=[[], [good], [{**good, "line": 3}]],
                 bad=[[{**good, "severity": "urgent"}], [{**good, "extra": 1}], [{"path": "a.py"}],
                      [{**good, "line": "3"}], good])


def test_optional_typeddict_is_inlined_in_any_of():
    inline = schema("Finding", FINDING)
    del inline["$schema"]
    assert schema("Optional[Finding]", FINDING) == root(anyOf=[inline, NULL])
    assert schema("Finding | Finding", FINDING) == root(**inline)


def test_total_false_required_and_not_required():
    result = schema("Options", """
        class Options(TypedDict, total=False):
            a: int
            b: Required[str]
            c: NotRequired[bool]
    """)
    assert result["required"] == ["b"]
    assert_valid(result, good=[{"b": "x"}, {"a": 1, "b": "x", "c": True}], bad=[{}, {"a": 1}, {"b": "x", "d": 1}])


def test_inheritance_puts_base_fields_first_with_their_own_totality():
    result = schema("Child", """
        class Base(TypedDict, total=False):
            \"\"\"Base docs are not inherited.\"\"\"
            note: str
            id: Required[int]

        class Child(Base):
            name: str
            extra: NotRequired[list[str]]
    """)
    assert list(result["properties"]) == sorted(["note", "id", "name", "extra"])  # canonical: sorted keys
    assert result["required"] == ["id", "name"]
    assert "description" not in result
    assert_valid(result, good=[{"id": 1, "name": "n"}, {"id": 1, "name": "n", "note": "", "extra": []}],
                 bad=[{"name": "n"}, {"id": 1}, {"id": 1, "name": "n", "other": 0}])


def test_multiple_bases_and_diamond():
    result = schema("D", """
        class A(TypedDict):
            a: int
        class B(A):
            b: int
        class C(A):
            c: int
        class D(B, C):
            d: int
    """)
    assert result["required"] == ["a", "b", "c", "d"]


def test_descriptions_from_docstring_field_strings_and_annotated():
    result = schema("Doc", '''
        class Inner(TypedDict):
            """Inner docstring."""
            x: int

        class Doc(TypedDict):
            """
            A multi-line docstring,
                indented.
            """
            plain: str
            "What `plain` holds."
            annotated: Annotated[int, "Count of things."]
            both: Annotated[int, "loses"]
            "wins"
            "a second string is not a description"
            inner: Inner
            inner_described: Inner
            "Overrides the docstring here."
            optional: NotRequired[Annotated[str, "inside NotRequired"]]
            outer: Annotated[NotRequired[str], "outside NotRequired"]
            undocumented: bool
    ''')
    props = result["properties"]
    assert result["description"] == "A multi-line docstring,\n    indented."
    assert props["plain"] == {"type": "string", "description": "What `plain` holds."}
    assert props["annotated"] == {"type": "integer", "description": "Count of things."}
    assert props["both"] == {"type": "integer", "description": "wins"}
    assert props["inner"]["description"] == "Inner docstring."
    assert props["inner_described"]["description"] == "Overrides the docstring here."
    assert props["optional"] == {"type": "string", "description": "inside NotRequired"}
    assert props["outer"] == {"type": "string", "description": "outside NotRequired"}
    assert props["undocumented"] == BOOL
    assert result["required"] == ["plain", "annotated", "both", "inner", "inner_described", "undocumented"]


def test_annotated_at_the_root_and_in_containers():
    assert schema('Annotated[list[Annotated[str, "a path"]], "changed files"]') == root(
        type="array", items={"type": "string", "description": "a path"}, description="changed files")


def test_typeddict_body_may_hold_pass_ellipsis_and_one_line_form():
    assert schema("E", "class E(TypedDict): pass\n") == root(type="object", properties={},
                                                             additionalProperties=False)
    assert schema("F", "class F(TypedDict):\n    ...\n    a: int; 'doc of a'\n")["properties"] == {
        "a": {"type": "integer", "description": "doc of a"}}


def test_typing_names_may_be_renamed():
    script = Script("""
        from typing import TypedDict as TD, NotRequired as NR, Literal as L
        class X(TD, total=True):
            a: NR[L["x"]]
        ask(returns=X)
    """)
    assert script.diagnostics == []
    assert script.results[0][1]["properties"] == {"a": {"enum": ["x"]}}
    assert "required" not in script.results[0][1]


# ---------------------------------------------------------------------- recursion


TREE = '''
    class Node(TypedDict):
        """A tree node."""
        name: str
        children: list["Node"]
        parent: NotRequired[Optional[Node]]
'''


def test_self_recursion_uses_defs_and_ref():
    result = schema("Node", TREE)
    ref = {"$ref": "#/$defs/Node"}
    assert result == {
        "$schema": S,
        "$ref": "#/$defs/Node",
        "$defs": {"Node": {
            "type": "object",
            "description": "A tree node.",
            "properties": {"name": STR, "children": {"type": "array", "items": ref},
                           "parent": {"anyOf": [ref, NULL]}},
            "required": ["name", "children"],
            "additionalProperties": False,
        }},
    }
    leaf = {"name": "leaf", "children": []}
    assert_valid(result,
                 good=[leaf, {"name": "root", "children": [leaf, {"name": "mid", "children": [leaf]}]},
                       {"name": "x", "children": [], "parent": None}],
                 bad=[{"name": "root"}, {"name": "root", "children": [{"name": "bad"}]},
                      {"name": "root", "children": [{"name": "x", "children": [], "extra": 1}]}])


def test_mutual_recursion_and_non_recursive_neighbours():
    declarations = '''
        class Meta(TypedDict):
            author: str

        class Section(TypedDict):
            title: str
            blocks: list["Block"]
            meta: Meta

        class Block(TypedDict):
            text: NotRequired[str]
            section: NotRequired[Section]

        class Document(TypedDict):
            sections: list[Section]
            meta: Meta
    '''
    result = schema("Document", declarations)
    assert sorted(result["$defs"]) == ["Block", "Section"]
    assert result["properties"]["sections"] == {"type": "array", "items": {"$ref": "#/$defs/Section"}}
    meta = {"type": "object", "properties": {"author": STR}, "required": ["author"], "additionalProperties": False}
    assert result["properties"]["meta"] == meta  # not recursive: inlined
    assert result["$defs"]["Section"]["properties"]["meta"] == meta
    m = {"author": "a"}
    assert_valid(result,
                 good=[{"sections": [], "meta": m},
                       {"sections": [{"title": "t", "meta": m, "blocks": [
                           {"text": "x"}, {"section": {"title": "u", "meta": m, "blocks": []}}]}], "meta": m}],
                 bad=[{"sections": [{"title": "t", "meta": m, "blocks": [{"section": {"title": "u"}}]}], "meta": m},
                      {"sections": [{"title": "t", "meta": {}, "blocks": []}], "meta": m}])
    assert schema("list[Meta]", declarations) == root(type="array", items=meta)
    assert sorted(schema("Block", declarations)["$defs"]) == ["Block", "Section"]


def test_recursive_field_with_description_keeps_ref():
    result = schema("T", '''
        class T(TypedDict):
            next: NotRequired["T"]
            "The next one."
    ''')
    assert result["$defs"]["T"]["properties"]["next"] == {"$ref": "#/$defs/T", "description": "The next one."}


# ---------------------------------------------------------------------- keys and canonical form


def test_keys_are_source_text_without_whitespace_or_comments():
    script = Script(textwrap.dedent(FINDING) + textwrap.dedent("""
        ask(returns=list[ Finding ])
        ask(returns=dict[
            str,  # keys are paths
            Literal["a b", 'c'],
        ])
        ask(returns=Literal["ab"])
        ask(returns=Literal["a b"])
    """), header=True)
    keys = [key for key, _ in script.results]
    assert keys == ["list[Finding]", "dict[str,Literal[\"a b\",'c'],]", 'Literal["ab"]', 'Literal["a b"]']


def test_results_are_canonical_and_cached():
    asks = "ask(returns=list[Node])\nask(returns=list[Node])\nask(returns=dict[str, Node])\n"
    script = Script(textwrap.dedent(TREE) + asks, header=True)
    first, second, third = script.results
    assert first is second
    for _key, result in script.results:
        text = json.dumps(result)
        assert text == json.dumps(result, sort_keys=True)
        assert result["$schema"] == S and list(result)[:2] == ["$defs", "$schema"]
    assert third[1]["additionalProperties"] == {"$ref": "#/$defs/Node"}


def test_check_declarations_runs_once():
    script = Script("from typing import Any\nclass X(TypedDict):\n    a: Any\nask(returns=X)\nask(returns=X)\n",
                    header=True)
    script.builder.check_declarations()
    assert script.results == [None, None]
    assert [d[2] for d in script.diagnostics] == ["DWF401"]


def test_constants_are_not_consulted_for_ordinary_types():
    class Untouchable(dict):
        def __contains__(self, key):
            raise AssertionError(f"constants consulted for {key!r}")

        def __getitem__(self, key):
            raise AssertionError(f"constants consulted for {key!r}")

    script = Script(FINDING, header=True)
    builder = SchemaBuilder(typeddicts=script.builder._typeddicts, typing_names=script.builder._typing,
                            constants=Untouchable(), span_of=script.builder._span_of, sink=DiagnosticSink(),
                            positions=script.builder._positions)
    for source in ["list[Finding]", "Optional[dict[str, tuple[int, ...]]]", "Literal['a'] | None", "str", "object"]:
        assert builder.for_returns(parse_forward_reference(source)) is not None  # nodes with their own SourceMap


# ---------------------------------------------------------------------- literal dict schemas


def literal_key(result: dict) -> str:
    text = json.dumps(result, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "schema:" + hashlib.sha256(text.encode()).hexdigest()[:12]


def test_literal_schema_with_constants():
    script = Script("""
        CATEGORIES = ["bug", "style"]
        SEVERITY = {"enum": ["low", "high"]}
        BASE = {"type": "object", "additionalProperties": False}
        SCAN = {"type": "array", "items": {
            **BASE,
            "properties": {"category": {"enum": CATEGORIES}, "severity": SEVERITY,
                           "line": {"type": "integer", "minimum": 1}},
            "required": ("category", *["line"]),
            "description": "one " "finding",
        }}
        ask(returns=SCAN)
        ask(returns={"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "properties": {"category": {"enum": ["bug", "style"]}, "severity": {"enum": ["low", "high"]},
                           "line": {"type": "integer", "minimum": 1}},
            "required": ["category", "line"], "description": "one finding"}})
    """)
    assert script.diagnostics == []
    (key, result), (key2, result2) = script.results
    assert result == result2 and key == key2 == literal_key(result)
    assert result == {"$schema": S, "type": "array", "items": {
        "type": "object", "additionalProperties": False, "description": "one finding",
        "properties": {"category": {"enum": ["bug", "style"]}, "severity": {"enum": ["low", "high"]},
                       "line": {"type": "integer", "minimum": 1}},
        "required": ["category", "line"]}}
    assert json.dumps(result) == json.dumps(result, sort_keys=True)
    assert_valid(result, good=[[], [{"category": "bug", "line": 3}]],
                 bad=[[{"category": "perf", "line": 3}], [{"category": "bug", "line": 0}]])


def test_literal_schema_keeps_explicit_dialect_and_negative_numbers():
    script = Script(f'ask(returns={{"$schema": "{S}", "type": "integer", "minimum": -5, "maximum": +5.5}})')
    assert script.diagnostics == []
    assert script.results[0][1] == {"$schema": S, "type": "integer", "minimum": -5, "maximum": 5.5}


def test_literal_schema_errors_point_at_the_offending_value():
    script = Script("""
        ITEM = {"type": "strng"}
        ask(returns={"type": "array", "items": ITEM})
        ask(returns={"type": "object", "properties": {"a": {"type": ["string", "nul"]}}, "required": "a"})
        ask(returns={"type": "array", "items": [{"type": "string"}]})
        ask(returns={"pattern": "[", "minItems": -1})
    """)
    assert script.results == [None, None, None, None]
    assert script.diagnostics == [
        (1, 17, "DWF404", "Invalid JSON Schema at `$.items.type`: `strng` is not a JSON Schema type "
                          "(did you mean `string`?)"),
        (3, 61, "DWF404", "Invalid JSON Schema at `$.properties.a.type`: `nul` is not a JSON Schema type "
                          "(did you mean `null`?)"),
        (3, 94, "DWF404", "Invalid JSON Schema at `$.required`: 'a' is not of type 'array'"),
        (4, 40, "DWF404", "Invalid JSON Schema at `$.items`: `items` must be one schema; for fixed positions "
                          "use `prefixItems` (draft 2020-12)"),
        (5, 25, "DWF404", "Invalid JSON Schema at `$.pattern`: '[' is not a 'regex'"),
        (5, 42, "DWF404", "Invalid JSON Schema at `$.minItems`: -1 is less than the minimum of 0"),
    ]
    assert script.helps[0] == "the literal must be a valid JSON Schema (draft 2020-12)"


def test_literal_schema_misspelt_keywords_duplicates_and_keys():
    script = Script("""
        ask(returns={"type": "object", "requried": ["a"], "x-custom": 1, "properties": {"a": {"Type": "string", "titel": "A", "kind": 3}}})
        ask(returns={"type": "object", "type": "array"})
        ask(returns={"type": "object", 1: "x", "const": b"raw", "enum": {1, 2}, "maximum": 1e999})
        ask(returns={"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "my key": {"requried": 1}})
    """)
    assert script.results == [None, None, None, None]
    assert script.diagnostics == [
        (1, 32, "DWF404", "Invalid JSON Schema at `$.requried`: unknown keyword `requried` "
                          "(did you mean `required`?)"),
        (1, 87, "DWF404", "Invalid JSON Schema at `$.properties.a.Type`: unknown keyword `Type` "
                          "(did you mean `type`?)"),
        (1, 105, "DWF404", "Invalid JSON Schema at `$.properties.a.titel`: unknown keyword `titel` "
                           "(did you mean `title`?)"),
        (2, 32, "DWF404", "Invalid JSON Schema at `$.type`: key `type` appears twice"),
        (3, 32, "DWF404", "Invalid JSON Schema at `$`: JSON object keys must be strings"),
        (3, 49, "DWF404", "Invalid JSON Schema at `$.const`: bytes are not JSON"),
        (3, 65, "DWF404", "Invalid JSON Schema at `$.enum`: a set is not JSON; use a list"),
        (3, 84, "DWF404", "Invalid JSON Schema at `$.maximum`: numbers must be finite"),
        (4, 25, "DWF404", "Invalid JSON Schema at `$.$schema`: `http://json-schema.org/draft-07/schema#` is not "
                          "JSON Schema draft 2020-12"),
    ]
    assert script.helps[-1] == f'remove `$schema` or set it to "{S}"'


def test_returns_not_constant():
    script = Script("""
        cats = ["a"]
        cats.append("b")
        schema = {"type": "object"}
        schema["required"] = ["x"]
        LIMIT = 3
        ask(returns={"type": "array", "items": {"enum": cats}})
        ask(returns=make_schema())
        ask(returns=schema)
        ask(returns={"type": "string", "description": f"about {LIMIT}"})
        ask(returns=LIMIT)
        ask(returns=[str])
        ask(returns={**cats})
    """)
    assert script.results == [None] * 7
    assert [(line, col, code) for line, col, code, _ in script.diagnostics] == [
        (6, 49, "DWF405"), (7, 13, "DWF405"), (8, 13, "DWF405"), (9, 47, "DWF405"),
        (10, 13, "DWF405"), (11, 13, "DWF405"), (12, 16, "DWF405")]
    assert {m for *_, m in script.diagnostics} == {
        "`returns=` must be a type or a compile-time constant JSON Schema dict"}
    assert script.helps[0] == ("`cats` is not a compile-time constant: use a top-level name bound once to a literal "
                               "and never reassigned or mutated")
    assert script.helps[2] == ("`schema` is not a compile-time constant: bind the schema dict once at the top level "
                               "and never reassign or mutate it")
    assert script.helps[4] == "`LIMIT` is bound to a value that is neither a type nor a dict literal"


# ---------------------------------------------------------------------- type errors, paths and positions


def test_unsupported_types_at_the_root_with_paths():
    script = Script("""
        from typing import Any, Callable, Optional, TypeVar
        T = TypeVar("T")
        ask(returns=Any)
        ask(returns=list[datetime])
        ask(returns=dict[str, set[str]])
        ask(returns=tuple[int, bytes])
        ask(returns=Optional[Callable[[int], str]])
        ask(returns=list[T])
        ask(returns=RunResult)
        ask(returns=type)
        ask(returns=list[datetime.date])
    """)
    assert script.results == [None] * 9
    assert script.diagnostics == [
        (3, 13, "DWF401", "Unsupported result type at `$`: `Any` would accept any value without validation"),
        (4, 18, "DWF401", "Unsupported result type at `$[]`: `datetime` values are not JSON"),
        (5, 23, "DWF401", "Unsupported result type at `$.*`: `set` is not JSON (JSON has no sets)"),
        (6, 24, "DWF401", "Unsupported result type at `$[1]`: `bytes` values are not JSON"),
        (7, 22, "DWF401", "Unsupported result type at `$`: `Callable` describes functions or awaitables, "
                          "which are not JSON data"),
        (8, 18, "DWF401", "Unsupported result type at `$[]`: `T` is a bare type variable"),
        (9, 13, "DWF401", "Unsupported result type at `$`: `RunResult` is a class, not a TypedDict"),
        (10, 13, "DWF401", "Unsupported result type at `$`: `type` objects are not JSON data"),
        (11, 18, "DWF401", "Unsupported result type at `$[]`: `date` values are not JSON"),
    ]
    helps = script.helps
    assert helps[0] == "use `object` for any JSON value, or a precise type"
    assert helps[1] == 'use `str` and describe the format, e.g. `Annotated[str, "ISO 8601 timestamp"]`'
    assert helps[2] == "use `list[...]`"


def test_errors_inside_typeddicts_are_reported_once_with_class_rooted_paths():
    script = Script('''
        from typing import Any
        class Finding(TypedDict):
            path: str
            severity: Any
        class Report(TypedDict):
            items: list[Finding]
            tags: dict[str, list[frozenset[str]]]
            pair: NotRequired[tuple[str, "Findng"]]
        ask(returns=list[Finding])
        ask(returns=Report)
        ask(returns=Finding)
    ''', header=True)
    assert script.results == [None, None, None]
    assert script.diagnostics == [
        (5, 15, "DWF401", "Unsupported result type at `Finding.severity`: `Any` would accept any value without "
                          "validation"),
        (8, 26, "DWF401", "Unsupported result type at `Report.tags.*[]`: `frozenset` is not JSON (JSON has no sets)"),
        (9, 34, "DWF402", "Unknown type `Findng` at `Report.pair[1]`"),
    ]
    assert script.helps[2] == "did you mean `Finding`?"


def test_unknown_names_with_hints():
    script = Script("""
        from typing import TypedDict
        class Finding(TypedDict):
            path: str
        ask(returns=list[Findings])
        ask(returns=Literal["a"])
        ask(returns=string)
        ask(returns=Frobnicator)
        ask(returns=list[foo.Bar])
    """)
    assert [(line, col, code, m) for line, col, code, m in script.diagnostics] == [
        (4, 18, "DWF402", "Unknown type `Findings` at `$[]`"),
        (5, 13, "DWF402", "Unknown type `Literal` at `$`"),
        (6, 13, "DWF402", "Unknown type `string` at `$`"),
        (7, 13, "DWF402", "Unknown type `Frobnicator` at `$`"),
        (8, 18, "DWF402", "Unknown type `foo.Bar` at `$[]`"),
    ]
    assert script.helps == [
        "did you mean `Finding`?",
        "import it: `from typing import Literal`",
        "use `str`",
        "declare `class Frobnicator(TypedDict): ...` at the top level, or use a builtin type such as `str`",
        "result types use builtins, names imported from `typing` and TypedDicts declared in the script",
    ]


def test_malformed_type_expressions():
    script = Script("""
        Severity = Literal["low", "high"]
        Loop = list["Loop"]
        SCHEMA = {"type": "string"}
        ask(returns=list[int, str])
        ask(returns=dict[str])
        ask(returns=Literal[1.5, "a"])
        ask(returns=Annotated[int, 3])
        ask(returns=str[int])
        ask(returns=list["list[int"])
        ask(returns=Loop)
        ask(returns=list[SCHEMA])
        ask(returns=Severity[int])
        ask(returns=tuple[int, ..., str])
        ask(returns=NotRequired[int])
        ask(returns=list[3])
    """, header=True)
    assert script.results == [None] * 12
    # The self-referencing alias is reported where the recursion is written (line 3).
    assert [d[:3] for d in script.diagnostics] == [
        (3, 13, "DWF401"), (5, 13, "DWF401"), (6, 13, "DWF401"), (7, 21, "DWF401"), (8, 13, "DWF401"),
        (9, 13, "DWF401"), (10, 18, "DWF401"), (12, 18, "DWF401"), (13, 13, "DWF401"), (14, 24, "DWF401"),
        (15, 13, "DWF401"), (16, 18, "DWF401")]
    messages = [d[3].split(": ", 1)[1] for d in script.diagnostics]
    assert script.diagnostics[0][3].startswith("Unsupported result type at `$[]`: ")
    assert messages == [
        "type alias `Loop` refers to itself",
        "`list[...]` takes 1 type argument, not 2",
        "`dict[...]` takes 2 type arguments, not 1",
        "`1.5` cannot be a `Literal` member",
        "`Annotated[...]` takes a type and one description string",
        "`str` takes no type arguments",
        "`\"list[int\"` is not a type expression",
        "`SCHEMA` is a JSON Schema dict, which can only be the whole `returns=` argument",
        "`Severity` is not generic",
        "`...` is allowed only as `tuple[T, ...]`",
        "`NotRequired[...]` is only allowed directly on a TypedDict field",
        "`3` is not a type",
    ]


def test_too_many_union_members():
    many = ", ".join(f'"v{i}"' for i in range(101))
    half = ", ".join(f'"w{i}"' for i in range(60))
    other = ", ".join(f'"x{i}"' for i in range(41))
    script = Script(f"ask(returns=Literal[{many}])\nask(returns=Literal[{half}] | Literal[{other}] | int)\n"
                    f"ask(returns=Literal[{half}] | Literal[{half}])\n", header=True)
    assert script.diagnostics == [
        (2, 13, "DWF403", "The type at `$` has 101 members; the limit is 100"),
        (3, 13, "DWF403", "The type at `$` has 102 members; the limit is 100"),
    ]
    assert script.results[2][1]["enum"][-1] == "w59"  # duplicates do not count
    assert script.helps[0] == "use a wider type such as `str` and describe the allowed values"


def test_dict_keys_must_be_str():
    script = Script("""
        class X(TypedDict):
            counts: dict[int, str]
        ask(returns=dict[Literal[1, 2], str])
        ask(returns=list[dict[tuple[str, str], int]])
    """, header=True)
    assert script.diagnostics == [
        (3, 18, "DWF407", "JSON object keys are strings, but the type at `X.counts` uses `int` keys"),
        (4, 18, "DWF407", "JSON object keys are strings, but the type at `$` uses `Literal[1,2]` keys"),
        (5, 23, "DWF407", "JSON object keys are strings, but the type at `$[]` uses `tuple[str,str]` keys"),
    ]
    assert script.helps[0] == "use `dict[str, ...]`"


def test_forward_reference_errors_point_at_the_string():
    script = Script("""
        class A(TypedDict):
            b: "list[Bee]"
            c: NotRequired["NotRequired[int]"]
    """, header=True)
    assert script.diagnostics == [
        (3, 8, "DWF402", "Unknown type `Bee` at `A.b[]`"),
        (4, 20, "DWF401", "Unsupported result type at `A.c`: `Required` and `NotRequired` cannot be nested"),
    ]


# ---------------------------------------------------------------------- declaration errors


def test_invalid_typeddict_declarations():
    script = Script('''
        class Base(TypedDict):
            a: int
        class X(Base, Generic, total="no", metaclass=M):
            """Docs."""
            path: str = ""
            path: int
            a: str
            loose = 3
            self.x: int
        class Y(Z):
            pass
        ask(returns=X)
        ask(returns=list[Base])
    ''', header=True)
    assert script.results[0] is None and script.results[1] is not None
    assert script.diagnostics == [
        (4, 15, "DWF406", "TypedDict `X` has an unsupported base `Generic`"),
        (4, 30, "DWF406", "`total=` must be `True` or `False`"),
        (4, 36, "DWF406", "TypedDict `X` has an unsupported keyword `metaclass=`"),
        (6, 17, "DWF406", "TypedDict field `path` has a default value"),
        (7, 5, "DWF406", "TypedDict field `path` is declared twice"),
        (8, 5, "DWF406", "TypedDict field `a` is declared again (it is inherited from `Base`)"),
        (9, 5, "DWF104", "TypedDict field `loose` has no annotation"),
        (10, 5, "DWF104", "TypedDict `X` may contain only annotated fields, docstrings and `pass`, not an "
                          "annotated assignment to `self.x`"),
    ]
    helps = script.helps
    assert helps[0] == "a TypedDict may inherit only from `TypedDict` and other TypedDicts of the script"
    assert helps[3] == "remove the default; mark optional fields `NotRequired[...]`"
    assert helps[6] == "write `loose: <type>`"
    assert helps[7] == "declare result shapes as `class Name(TypedDict):` with annotated fields only"


def test_non_field_statements_in_typeddict_body():
    script = Script('''
        class X(TypedDict):
            a: int
            def total(self):
                return 1
            if True:
                b: int
            print(a)
            class Inner(TypedDict):
                c: int
    ''', header=True)
    assert [(line, col, code) for line, col, code, _ in script.diagnostics] == [
        (4, 5, "DWF104"), (6, 5, "DWF104"), (8, 5, "DWF104"), (9, 5, "DWF104")]
    assert [m.rsplit("not ", 1)[1] for *_, m in script.diagnostics] == [
        "a method", "an `if` statement", "an expression statement", "a nested class"]


def test_base_typos_and_inheritance_cycles():
    script = Script('''
        class A(TypedDict):
            a: int
        class B(A, TypeDict):
            b: int
        class C(B):
            c: int
    ''', header=True)
    assert script.diagnostics == [(4, 12, "DWF406", "TypedDict `B` has an unsupported base `TypeDict`")]
    assert script.helps == ["did you mean `TypedDict`?"]
    # Python cannot even define a cycle, but the builder must not loop on one.
    text = "class P(Q):\n    a: int\nclass Q(P):\n    b: int\n"
    module = ast.parse(text)
    positions = SourceMap(SourceFile("<test>", text))
    sink = DiagnosticSink()
    classes = {stmt.name: stmt for stmt in module.body}
    builder = SchemaBuilder(typeddicts=classes, typing_names={}, constants={},
                            span_of=positions.span, sink=sink, positions=positions)
    builder.check_declarations()
    assert [(d.span.line, d.span.column, d.code, d.message) for d in sink.sorted()] == [
        (3, 9, "DWF406", "TypedDict `Q` inherits from itself through `P`")]


def test_an_unused_broken_typeddict_is_still_reported():
    assert Script("class Unused(TypedDict):\n    when: datetime\n", header=True).diagnostics == [
        (3, 11, "DWF401", "Unsupported result type at `Unused.when`: `datetime` values are not JSON")]


def test_schema_of_a_typeddict_using_a_broken_one_is_none_without_a_second_report():
    script = Script("class Bad(TypedDict):\n    x: bytes\nclass Good(TypedDict):\n    bad: Bad\n"
                    "ask(returns=Good)\nask(returns=list[Good])\n", header=True)
    assert script.results == [None, None]
    assert [d[:3] for d in script.diagnostics] == [(3, 8, "DWF401")]


# ---------------------------------------------------------------------- property test

_LEAVES = st.sampled_from([
    ("str", st.text(max_size=3)), ("int", st.integers()), ("bool", st.booleans()), ("None", st.none()),
    ("float", st.floats(allow_nan=False, allow_infinity=False)),
    ("Literal['a', 1]", st.sampled_from(["a", 1])),
])


def _compound(children):
    return st.one_of(
        children.map(lambda c: (f"list[{c[0]}]", st.lists(c[1], max_size=3))),
        children.map(lambda c: (f"dict[str, {c[0]}]", st.dictionaries(st.text(max_size=2), c[1], max_size=3))),
        st.tuples(children, children).map(
            lambda p: (f"tuple[{p[0][0]}, {p[1][0]}]", st.tuples(p[0][1], p[1][1]).map(list))),
        st.tuples(children, children).map(lambda p: (f"{p[0][0]} | {p[1][0]}", st.one_of(p[0][1], p[1][1]))),
        children.map(lambda c: (f'Annotated[{c[0]}, "d"]', c[1])),
    )


@settings(max_examples=60, deadline=None)
@given(st.recursive(_LEAVES, _compound, max_leaves=6).flatmap(lambda t: st.tuples(st.just(t[0]), t[1])))
def test_generated_types_accept_their_values(case):
    source, value = case
    result = schema(source)
    assert validator(result).is_valid(value), (source, value)


# ---------------------------------------------------------------------- typing aliases (issue #11)

TYPING_PAIRS = [
    ("List[str]", "list[str]"),
    ("List[Finding]", "list[Finding]"),
    ("Dict[str, int]", "dict[str, int]"),
    ("Dict[str, List[Finding]]", "dict[str, list[Finding]]"),
    ("Tuple[int, ...]", "tuple[int, ...]"),
    ("Tuple[str, int]", "tuple[str, int]"),
    ("Optional[List[str]]", "list[str] | None"),
    ("Union[Finding, List[Finding]]", "Finding | list[Finding]"),
    ("Dict[Literal['a', 'b'], Tuple[str, ...]]", "dict[Literal['a', 'b'], tuple[str, ...]]"),
    ("List", "list"),
    ("Dict", "dict"),
]
TYPING_SCRIPT = '''\
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Literal, Mapping, Optional, Sequence, Set, Tuple
from typing import TypedDict, Union

meta = {{"name": "typing-names", "description": "Typing names in result types."}}


class Finding(TypedDict):
    path: str
    tags: List[str]
    scores: Dict[str, float]


phase("Ask")
a = agent("a")
left = await a.ask("left", returns={left})
right = await a.ask("right", returns={right})
return [left, right]
'''


def _compiled_schemas(text: str) -> list[dict]:
    result = compile_source(text)
    assert [d.code for d in result.diagnostics if d.severity == "error"] == []
    return [result.program.schema(node.schema) for node in _typed_asks(result.program)]


def _typed_asks(program) -> list:
    return [n for n in iter_nodes(program.body) if type(n) is ir.FacadeCall and n.schema is not None]


@pytest.mark.parametrize(("typing_form", "builtin_form"), TYPING_PAIRS)
def test_typing_aliases_synthesize_the_builtin_schemas(typing_form, builtin_form):
    left, right = _compiled_schemas(TYPING_SCRIPT.format(left=typing_form, right=builtin_form))
    assert left == right
    jsonschema.Draft202012Validator.check_schema(left)


@pytest.mark.parametrize(("typing_form", "code", "fragment"), [
    ("Set[str]", "DWF401", "JSON has no sets"),
    ("FrozenSet[str]", "DWF401", "JSON has no sets"),
    ("set[str]", "DWF401", "JSON has no sets"),
    ("List[Any]", "DWF401", "would accept any value"),
    ("Callable[[str], str]", "DWF401", "describes functions"),
    ("Iterable[str]", "DWF401", "use `list[...]`"),
    ("Sequence[str]", "DWF401", "use `list[...]`"),
    ("Mapping[str, int]", "DWF401", "use `dict[str, ...]`"),
])
def test_typing_names_that_are_not_json_stay_refused_in_result_types(typing_form, code, fragment):
    result = compile_source(TYPING_SCRIPT.format(left=typing_form, right="str"))
    found = [d for d in result.diagnostics if d.severity == "error"]
    assert [d.code for d in found] == [code]
    assert fragment in d_text(found[0])


def d_text(diagnostic) -> str:
    return f"{diagnostic.message} {diagnostic.help or ''}"


def test_any_and_callable_are_fine_outside_result_types():
    text = TYPING_SCRIPT.format(left="str", right="str").replace("return [left, right]", '''\
def apply(fn: Callable[[str], str], items: Sequence[str], extra: Any = None) -> List[Any]:
    return [fn(item) for item in items]


seen: Set[str] = set()
lookup: Mapping[str, Any] = {"k": 1}
pairs: Iterable[Tuple[str, int]] = [("a", 1)]
frozen: Optional[FrozenSet[str]] = None
return apply(lambda s: s.upper(), [left, right])''')
    result = compile_source(text)
    assert [d.code for d in result.diagnostics if d.severity == "error"] == []
