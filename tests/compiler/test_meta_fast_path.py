"""`compiler.meta.plainly_valid`, the check that lets a valid meta block skip jsonschema (issue
#18): whatever it accepts, the meta schema accepts (generated blocks near the schema's edges),
and it accepts the meta block of every example, so compiling them needs no validator."""

from __future__ import annotations

import ast
from pathlib import Path

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from dwf.compiler.meta import plainly_valid
from dwf.grammar.meta import meta_schema

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = jsonschema.Draft202012Validator(meta_schema())

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.floats(-1, 3, allow_nan=False),
                    st.sampled_from(["", "a", "review-code", "Not Kebab", "x" * 64, "x" * 65, "ok\n", "string",
                                     "integer", "json", "number", "boolean", "n", "_n1", "1n", "d" * 501]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.sampled_from(["title", "detail", "type", "x"]),
                                                                        inner, max_size=3)), max_leaves=6)
phase = st.dictionaries(st.sampled_from(["title", "detail", "extra"]), scalars, max_size=3)
arg_spec = st.dictionaries(st.sampled_from(["type", "description", "required", "default", "extra"]), values,
                           max_size=4)
meta = st.fixed_dictionaries(
    {},
    optional={"name": scalars, "description": scalars, "when_to_use": scalars,
              "phases": st.one_of(st.lists(phase, max_size=3), scalars),
              "args": st.one_of(st.dictionaries(st.sampled_from(["n", "_n1", "1n", "a-b", ""]), arg_spec, max_size=3),
                                scalars),
              "max_concurrency": scalars, "max_agents": scalars, "unknown": scalars})

valid_meta = st.fixed_dictionaries(  # near-valid blocks, so that accepted ones are common
    {"name": st.sampled_from(["review-code", "a", "x" * 64, "ok\n"]), "description": st.sampled_from(["a", "d" * 500])},
    optional={"phases": st.lists(st.fixed_dictionaries({"title": st.sampled_from(["Work", ""])},
                                                       optional={"detail": st.sampled_from(["", "d", None])}),
                                 max_size=3),
              "args": st.dictionaries(st.sampled_from(["n", "_n1", "a-b"]),
                                      st.fixed_dictionaries({"type": st.sampled_from(["string", "json", "list"])},
                                                            optional={"required": st.sampled_from([True, 1]),
                                                                      "default": values}), max_size=2),
              "max_concurrency": st.sampled_from([1, 0, True, 2.0]), "max_agents": st.sampled_from([3, -1])})


@settings(max_examples=3000, deadline=None)
@given(st.one_of(meta, valid_meta))
def test_what_it_accepts_the_schema_accepts(value):
    if plainly_valid(value):
        assert list(VALIDATOR.iter_errors(value)) == []


def test_it_accepts_and_refuses_at_the_edges():
    base = {"name": "review-code", "description": "d", "phases": [{"title": "Work"}],
            "args": {"n": {"type": "integer", "required": True, "default": 1}}, "max_concurrency": 2}
    assert plainly_valid(base)
    for change in ({"name": "Review"}, {"description": ""}, {"phases": [{"title": ""}]}, {"max_agents": True},
                   {"args": {"n": {"type": "list"}}}, {"args": {"1n": {"type": "json"}}}, {"extra": 1}):
        assert not plainly_valid({**base, **change}), change


def example_metas() -> list[tuple[str, dict]]:
    found = []
    for path in sorted((ROOT / "examples").glob("*.dwf.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["meta"]:
                found.append((path.name, ast.literal_eval(node.value)))
    return found


def test_it_accepts_every_examples_meta_block():
    metas = example_metas()
    assert len(metas) >= 10
    assert [name for name, value in metas if not plainly_valid(value)] == []
