"""Differential tests of the pure subset (RUNTIME §2): the same snippet, evaluated by DWF (a
script run through the Engine) and by CPython (`exec` of the same code wrapped in a function),
gives the same value, or the same exception type and message.

The snippets live in `differential/<category>.py`, one module per category, each defining
`SNIPPETS: list[tuple[name, code]]` (and, where DWF differs on purpose, `DELIBERATE: dict[name,
value]`); a snippet's test id is `<category>/<name>`. A snippet that is an
expression is returned; otherwise it is a function body that returns its value. Its imports and
class declarations (unindented `class` lines and their bodies: DWF declares TypedDicts only at
the top level) are hoisted to the top of the script.

Both sides run the snippet inside `snippet_()` and normalize its value with the same `norm_`
source: tuples become lists, sets become `{"$set": [...]}` (compared as sets, since DWF sets
iterate in insertion order and CPython's in hash order), dicts become `{"$dict": [[k, v], ...]}`
(so non-string keys survive JSON), non-finite floats their repr. An exception becomes
`{"error": <type name>, "message": str(e)}`.

Deliberate differences are asserted as such (CPython's value differs, DWF gives the value
listed), and a test keeps them and the table in `docs/design.md` ("Deliberate differences from
CPython") naming the same snippets.

A hypothesis strategy adds random arithmetic and string expressions of bounded size."""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner import run

NORM = '''
def norm_(v):
    if isinstance(v, set):
        return {"$set": [norm_(x) for x in v]}
    if isinstance(v, (list, tuple)):
        return [norm_(x) for x in v]
    if isinstance(v, dict):
        return {"$dict": [[norm_(k), norm_(x)] for k, x in v.items()]}
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return {"$float": repr(v)}
    return v
'''

WRAP = '''
def snippet_():
{body}
try:
    value_ = norm_(snippet_())
except Exception as e:
    value_ = {{"error": repr(e).split("(")[0], "message": str(e)}}
'''

IMPORTS = "import json\nimport math\nimport re\n"
CATEGORIES = Path(__file__).parent / "differential"


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"differential_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODULES = [_load(path) for path in sorted(CATEGORIES.glob("*.py"))]
SNIPPETS: list[tuple[str, str]] = [(f"{m.__name__.removeprefix('differential_')}/{name}", code)
                                   for m in MODULES for name, code in m.SNIPPETS]
# Snippets where DWF deliberately differs from CPython: name -> the normalized value DWF gives,
# from each category's `DELIBERATE`. Each is a row of the table in docs/design.md ("Deliberate
# differences from CPython").
DELIBERATE: dict[str, object] = {f"{m.__name__.removeprefix('differential_')}/{name}": value
                                 for m in MODULES for name, value in getattr(m, "DELIBERATE", {}).items()}


def _body(snippet: str) -> str:
    snippet = textwrap.dedent(snippet).strip("\n")
    try:
        ast.parse(snippet, mode="eval")
    except SyntaxError:
        pass  # statements
    else:
        snippet = "return " + snippet
    return textwrap.indent(snippet, "    ")


def _hoisted_lines(snippet: str) -> list[bool]:
    """Which lines of a snippet belong at the top of the script: its own imports
    (`from collections import Counter`) and class declarations (`class RetryError(Exception):`
    with its indented body), which DWF allows only at the top level."""
    hoisted, in_class = [], False
    for line in snippet.splitlines():
        in_class = line.startswith("class ") or (in_class and line[:1] in (" ", "\t"))
        hoisted.append(in_class or line.startswith(("import ", "from ")))
    return hoisted


def _imports(snippet: str) -> str:
    """The snippet's hoisted lines (imports and classes), as they are."""
    return "".join(line.rstrip() + "\n" for line, up in zip(snippet.splitlines(), _hoisted_lines(snippet)) if up)


def _without_imports(snippet: str) -> str:
    return "\n".join(line for line, up in zip(snippet.splitlines(), _hoisted_lines(snippet)) if not up)


def dwf_eval(snippet: str):
    script = IMPORTS + _imports(snippet) + NORM + WRAP.format(body=_body(_without_imports(snippet))) + "return value_\n"
    result = run(script)
    assert result.status == "completed", f"{result.error}\n{result.traceback}"
    return result.value


def cpython_eval(snippet: str):
    namespace = {"json": json, "math": math, "re": re}
    exec(_imports(snippet) + NORM + WRAP.format(body=_body(_without_imports(snippet))), namespace)  # noqa: S102 - the test's own snippets
    return json.loads(json.dumps(namespace["value_"]))


def canonical(value):
    """Sets compare as sets: sort their normalized items by their JSON text."""
    if isinstance(value, dict):
        if set(value) == {"$set"}:
            return {"$set": sorted((canonical(v) for v in value["$set"]), key=lambda v: json.dumps(v, sort_keys=True))}
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def assert_same(snippet: str) -> None:
    expected = canonical(cpython_eval(snippet))
    actual = canonical(dwf_eval(snippet))
    assert actual == expected, f"DWF {actual!r} != CPython {expected!r} for:\n{snippet}"


def test_enough_snippets() -> None:
    assert len(SNIPPETS) >= 1000
    assert len({name for name, _ in SNIPPETS}) == len(SNIPPETS)


@pytest.mark.parametrize("name, snippet", [pytest.param(name, code, id=name) for name, code in SNIPPETS])
def test_differential(name: str, snippet: str) -> None:
    if name in DELIBERATE:
        assert canonical(cpython_eval(snippet)) != canonical(DELIBERATE[name]), f"{name} no longer differs from CPython"
        assert canonical(dwf_eval(snippet)) == canonical(DELIBERATE[name])
    else:
        assert_same(snippet)


def test_deliberate_differences_are_documented() -> None:
    design = (Path(__file__).parents[2] / "docs" / "design.md").read_text(encoding="utf-8")
    section = design.split("## Deliberate differences from CPython", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z0-9_/-]+)` \|", section, re.M))
    assert documented == set(DELIBERATE)


def test_harness_reports_errors_as_types() -> None:
    assert cpython_eval("return {}['k']") == {"error": "KeyError", "message": "'k'"}
    assert dwf_eval("return {}['k']") == {"error": "KeyError", "message": "'k'"}
    assert canonical(dwf_eval("return {2, 1}")) == canonical(cpython_eval("return {1, 2}"))


# ---------------------------------------------------------------- random expressions

SMALL_INTS = st.integers(min_value=-20, max_value=20)
WORDS = st.text(alphabet="abcAB -_1é", max_size=5)


def _int_expr(children):
    """Integer-valued expressions (may raise ZeroDivisionError/ValueError, as in CPython)."""
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "//", "%", "&", "|", "^", "<", "==", ">="]), children) \
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    power = st.tuples(children, st.integers(min_value=0, max_value=6)).map(lambda t: f"({t[0]} ** {t[1]})")
    shift = st.tuples(children, st.integers(min_value=0, max_value=40)).map(lambda t: f"({t[0]} << {t[1]})")
    unary = st.tuples(st.sampled_from(["-", "~", "+", "not "]), children).map(lambda t: f"({t[0]}{t[1]})")
    calls = st.tuples(st.sampled_from(["abs", "len", "bool", "int"]), children).map(
        lambda t: f"{t[0]}({t[1]})" if t[0] != "len" else f"len(str({t[1]}))")
    minmax = st.tuples(st.sampled_from(["min", "max"]), children, children).map(lambda t: f"{t[0]}({t[1]}, {t[2]})")
    ternary = st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})")
    division = st.tuples(children, children).map(lambda t: f"round({t[0]} / {t[1]}, 6)")
    return st.one_of(binary, power, shift, unary, calls, minmax, ternary, division)


INT_EXPRESSIONS = st.recursive(SMALL_INTS.map(str), _int_expr, max_leaves=12)


def _str_expr(children):
    concat = st.tuples(children, children).map(lambda t: f"({t[0]} + {t[1]})")
    repeat = st.tuples(children, st.integers(min_value=-1, max_value=3)).map(lambda t: f"({t[0]} * {t[1]})")
    method = st.tuples(children, st.sampled_from(["upper()", "lower()", "strip()", "title()", "swapcase()", "strip('a')",
                                                   "replace('a', 'xy')", "lstrip('-')", "zfill(4)", "center(6, '*')",
                                                   "capitalize()", "removeprefix('a')"])).map(lambda t: f"{t[0]}.{t[1]}")
    index = st.tuples(children, st.integers(min_value=-6, max_value=6)).map(lambda t: f"{t[0]}[{t[1]}]")
    slicing = st.tuples(children, st.integers(-6, 6), st.integers(-6, 6), st.sampled_from([1, 2, -1, -2])) \
        .map(lambda t: f"{t[0]}[{t[1]}:{t[2]}:{t[3]}]")
    fstring = st.tuples(children.filter(lambda c: '"' not in c), st.sampled_from(["", "!r", ":>6", ":_<5", "!r:^9", ":.2"])) \
        .map(lambda t: f'f"{{{t[0]}{t[1]}}}"')
    joined = st.tuples(children, children).map(lambda t: f"'|'.join([{t[0]}, {t[1]}])")
    from_int = INT_EXPRESSIONS.map(lambda e: f"str({e})")
    return st.one_of(concat, repeat, method, index, slicing, fstring, joined, from_int)


STR_EXPRESSIONS = st.recursive(WORDS.map(repr), _str_expr, max_leaves=8)
STR_TESTS = st.tuples(STR_EXPRESSIONS, st.sampled_from([
    "len({})", "{}.split()", "{}.split('a')", "sorted({})", "{}.find('a')", "{}.count('b')", "{}.isalpha()",
    "{}.startswith('a')", "'a' in {}", "{} < 'b'", "int({})", "list(enumerate({}))[:3]", "{}.partition('-')",
])).map(lambda t: t[1].format(t[0]))

EXPRESSIONS = st.one_of(INT_EXPRESSIONS, STR_EXPRESSIONS, STR_TESTS)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS)
def test_random_expressions(expression: str) -> None:
    assert_same(expression)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(INT_EXPRESSIONS, STR_EXPRESSIONS), min_size=1, max_size=4))
def test_random_expression_lists(expressions: list[str]) -> None:
    assert_same("[" + ", ".join(expressions) + "]")
