"""The kind lattice (`compiler/checks/kinds.py`) and kind inference over the IR
(`compiler/checks/kind_inference.py`): joins keep unions and let unknown absorb everything, result
schemas map to kinds, and names get the join of their bindings through loops, unpacking,
comprehensions and `+=`, losing element kinds when their container may change."""

from __future__ import annotations

import pytest

from dwf.compiler import ir
from dwf.compiler.checks import kinds as K
from dwf.compiler.compile import compile_source
from dwf.compiler.checks.kind_inference import KindInference
from dwf.compiler.checks.kinds import Kind

META = 'meta = {"name": "kinds", "description": "Kind inference."}\n'


def test_join_keeps_unions_and_unknown_absorbs():
    assert K.join(K.STR, K.STR) == K.STR
    union = K.join(K.STR, K.NONE)
    assert union.is_union and set(K.alternatives(union)) == {K.STR, K.NONE}
    assert K.join(union, K.STR) == union
    assert K.join(K.STR, None) is None and K.join(None, K.INT) is None
    assert K.join(K.list_of(K.STR), K.list_of(K.INT)).of == K.join(K.STR, K.INT)
    assert K.join(K.JSON, Kind("dict")) == K.JSON
    many = K.join_all([K.STR, K.INT, K.FLOAT, K.BOOL, K.NONE])
    assert many is None  # more alternatives than a union keeps


def test_result_schemas_become_kinds():
    verdict = {"type": "object", "properties": {"verdict": {"enum": ["ok", "bad"]}, "reasons": {"type": "array", "items": {"type": "string"}}}}
    kind = K.from_schema(verdict)
    assert kind.name == "dict" and kind.origin == "ask" and kind.field_names() == ("verdict", "reasons")
    assert K.item(kind, "reasons", None, False) == K.list_of(K.STR)
    assert K.item(kind, "verdict", None, False) == K.STR
    assert K.from_schema({"type": "array", "items": verdict}).of == kind
    assert K.from_schema({"anyOf": [verdict, {"type": "null"}]}) == K.join(kind, K.NONE)
    assert K.from_schema({"type": "number"}) is None
    assert K.from_schema({"$ref": "#/$defs/Node"}) is None


def test_a_changed_container_forgets_its_elements():
    kind = K.without_elements(Kind("dict", key=K.STR, of=K.INT, fields=(("a", K.INT),)))
    assert kind.name == "dict" and kind.of is None and kind.key is None and kind.fields == (("a", None),)


def _kinds(body: str) -> dict[str, Kind | None]:
    result = compile_source(META + body)
    assert result.program is not None, [f"{d.code} {d.message}" for d in result.diagnostics]
    inference = KindInference(result.program.body, dict(result.program.schemas), {})
    return {name: inference.name_kind(name, ir.GLOBAL, inference.module) for name in inference.module.bindings}


@pytest.mark.parametrize(("body", "name", "expected"), [
    ("text = await files.read('a')\n", "text", K.STR),
    ("for m in await files.grep('x'):\n    pass\n", "m", Kind("GrepMatch")),
    ("for i, c in enumerate(await git.log(2)):\n    pass\n", "c", Kind("GitCommit")),
    ("for i, c in enumerate(await git.log(2)):\n    pass\n", "i", K.INT),
    ("first, second = 'a', 3\n", "second", K.INT),
    ("paths = [m.path for m in await files.grep('x')]\n", "paths", K.list_of(K.STR)),
    ("n = 0\nfor p in await files.glob('*'):\n    n += 1\n", "n", K.INT),
    ("n = 0\nn += 0.5\n", "n", None),
    ("x = 'a'\nx = None\n", "x", K.join(K.STR, K.NONE)),
    ("x = 'a'\nx = x.upper()\n", "x", None),
    ("t = files.read('a')\nreport(await gather(t))\n", "t", K.awaitable_of(K.STR)),
    ("t = files.read('a')\nv = await t\n", "v", K.STR),
    ("rows = ['a']\nrows.append(1)\n", "rows", K.list_of(None)),
    ("rows = ['a']\nalias = rows\nalias.append(1)\n", "rows", K.list_of(None)),
    ("rows = [['a']]\nfor row in rows:\n    row.append(1)\n", "rows", K.list_of(None)),
    ("def f(xs):\n    return xs\nrows = ['a']\nf(rows)\n", "rows", K.list_of(None)),
    ("rows = ['a']\nn = len(rows)\n", "rows", K.list_of(K.STR)),
    ("r = await world.run('ls')\nout = r.stdout\n", "out", K.STR),
    ("s = await git.status()\nb = s.branch\n", "b", None),
])
def test_names_get_the_join_of_their_bindings(body, name, expected):
    assert _kinds(body)[name] == expected
