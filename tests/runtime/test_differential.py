"""Differential tests of the pure subset (RUNTIME §2): the same snippet, evaluated by DWF (a
script run through the Engine) and by CPython (`exec` of the same code wrapped in a function),
gives the same value and the same exception type.

Both sides run the snippet inside `snippet_()` and normalize its value with the same `norm_`
source: tuples become lists, sets become `{"$set": [...]}` (compared as sets, since DWF sets
iterate in insertion order and CPython's in hash order), dicts become `{"$dict": [[k, v], ...]}`
(so non-string keys survive JSON), non-finite floats their repr. An exception becomes
`{"error": <type name>}`; CPython's `OverflowError` and `json.JSONDecodeError` are DWF's `ValueError`
(DWF has no name for them).

A hypothesis strategy adds random arithmetic and string expressions of bounded size."""

from __future__ import annotations

import ast
import json
import math
import re
import textwrap

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
    value_ = {{"error": repr(e).split("(")[0]}}
'''

IMPORTS = "import json\nimport math\nimport re\n"
# CPython exception types DWF has no name for, and the DWF type scripts see instead.
PYTHON_ONLY_ERRORS = {"OverflowError": "ValueError", "JSONDecodeError": "ValueError"}


def _body(snippet: str) -> str:
    snippet = textwrap.dedent(snippet).strip("\n")
    try:
        ast.parse(snippet, mode="eval")
    except SyntaxError:
        pass  # statements
    else:
        snippet = "return " + snippet
    return textwrap.indent(snippet, "    ")


def dwf_eval(snippet: str):
    script = IMPORTS + NORM + WRAP.format(body=_body(snippet)) + "return value_\n"
    result = run(script)
    assert result.status == "completed", f"{result.error}\n{result.traceback}"
    return result.value


def cpython_eval(snippet: str):
    namespace = {"json": json, "math": math, "re": re}
    exec(NORM + WRAP.format(body=_body(snippet)), namespace)  # noqa: S102 - the test's own snippets
    value = namespace["value_"]
    if isinstance(value, dict) and value.get("error") in PYTHON_ONLY_ERRORS:
        value = {"error": PYTHON_ONLY_ERRORS[value["error"]]}
    return json.loads(json.dumps(value))


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


SNIPPETS: list[tuple[str, str]] = [
    # arithmetic
    ("floordiv-negatives", "[7 // 2, -7 // 2, 7 // -2, -7 // -2, -1 // 10, 7.5 // 2, -7.5 // 2]"),
    ("mod-negatives", "[7 % 3, -7 % 3, 7 % -3, -7 % -3, 5.5 % 2, -5.5 % 2, 0 % 5]"),
    ("divmod-negatives", "[divmod(7, -2), divmod(-7, 2), divmod(-7.5, 2)]"),
    ("true-division", "[1 / 3, 10 / 4, -9 / 2, 2 ** -2, 0.1 * 3]"),
    ("power", "[2 ** 10, (-2) ** 3, 2 ** 0, 0 ** 0, 10 ** -1, pow(3, 4), pow(3, 4, 5), (-8) ** 2]"),
    ("big-ints", "[2 ** 1000 // 3 ** 300, (10 ** 100 + 1) % 97, -(2 ** 500) // 7, 3 ** 2000 - 3 ** 1999]"),
    ("big-int-str", "[str(2 ** 3000)[:20], len(str(7 ** 1000)), int('9' * 400) % 1000003]"),
    ("big-int-mul", "12345678901234567890 * 98765432109876543210 * 2 ** 64"),
    ("bitwise", "[6 & 3, 6 | 3, 6 ^ 3, ~0, -5 >> 1, 1 << 70, (2 ** 70) >> 65]"),
    ("bool-arithmetic", "[True + True, True * 3, -True, False // 1, isinstance(True, int)]"),
    ("int-float-mix", "[1 + 2.5, 3 * 1.5, 7 - 0.5, 2 ** 0.5, abs(-2.5), abs(-3)]"),
    ("rounding", "[round(2.5), round(3.5), round(-2.5), round(2.675, 2), round(1234.5678, -2), round(7, -1), round(0.125, 2)]"),
    ("int-conversions", "[int(3.9), int(-3.9), int('42'), int(' -7 '), int('0x1f', 16), int('1010', 2), int('z', 36), int(True)]"),
    ("float-conversions", "[float('1e3'), float(' 2.5 '), float(7), float('-inf'), float('1_000.5')]"),
    ("float-repr", "[repr(0.1), repr(1e16), repr(1e-7), str(1.0), str(123456789.0 * 10 ** 10), repr(-0.0), str(2.5e-5)]"),
    ("float-format", "[f'{3.14159:.3f}', f'{1e6:,.2f}', f'{0.5:%}', f'{12345.678:e}', f'{2.0:g}', f'{1e20:g}', f'{-1.5:+.1f}', f'{3.0:08.3f}']"),
    ("int-format", "[f'{255:x}', f'{255:#o}', f'{255:b}', f'{1234567:,}', f'{42:>6}', f'{42:<6}|', f'{42:^7}', f'{-42:06}', f'{65:c}']"),
    ("str-format-spec", "[f'{\"ab\":>5}', f'{\"ab\":_<5}', f'{\"abc\":.2}', f'{\"x\":^5}', f'{\"ü\"!r}', f'{\"ü\"!a}']"),
    ("math-module", "[math.floor(-2.5), math.ceil(-2.5), math.sqrt(2), math.pi, math.gcd(0, 0), math.isqrt(10 ** 20), math.log10(1000), math.copysign(1, -0.0)]"),
    ("comparisons", "[1 < 2 <= 2 < 3, 'a' < 'b' < 'ba', [1, 2] < [1, 3], (1, 2) == (1, 2), 1 == 1.0, 'a' != 'A', None is None]"),
    ("min-max", "[min(3, 1, 2), max('apple', 'pear', 'fig'), min([4, 2, 8]), max([], default=0), min((1, 'b'), (1, 'a')), max([1, 5, 3], key=lambda x: -x)]"),
    ("sum-any-all", "[sum([1, 2, 3]), sum([0.1] * 10), sum([[1], [2]], []), any([]), all([]), any(x > 2 for x in [1, 3]), all(x for x in [1, 0])]"),
    ("abs-divmod-chr-ord", "[abs(-0), divmod(17, 5), chr(0x263a), ord('€'), chr(ord('a') + 1)]"),
    # strings
    ("str-case", "['Hello World'.lower(), 'hello'.upper(), 'hELLO wORLD'.swapcase(), 'hello world'.title(), 'hello'.capitalize(), 'ß'.casefold()]"),
    ("str-strip", "['  x  '.strip(), 'xxhixx'.strip('x'), '--a--'.lstrip('-'), '--a--'.rstrip('-'), '\\t\\n a \\n'.strip()]"),
    ("str-split", "['a,b,,c'.split(','), ' a  b '.split(), 'a b c'.split(None, 1), 'a,b,c'.rsplit(',', 1), 'l1\\nl2\\r\\nl3'.splitlines(), ''.split(','), 'abc'.split('b')]"),
    ("str-join-replace", "['-'.join(['a', 'b', 'c']), ''.join(reversed('abc')), 'aaa'.replace('a', 'b'), 'aaa'.replace('a', 'b', 2), 'abc'.replace('', '-')]"),
    ("str-find", "['hello'.find('l'), 'hello'.rfind('l'), 'hello'.find('z'), 'hello'.index('e'), 'hello'.count('l'), 'aaaa'.count('aa')]"),
    ("str-predicates", "['123'.isdigit(), 'abc'.isalpha(), 'a1'.isalnum(), ' '.isspace(), 'Ab'.istitle(), 'ab'.islower(), 'x_1'.isidentifier(), '½'.isnumeric()]"),
    ("str-pad", "['7'.zfill(3), '-7'.zfill(4), 'ab'.center(7, '*'), 'ab'.ljust(4, '.'), 'ab'.rjust(4), 'a\\tb'.expandtabs(4)]"),
    ("str-affix", "['prefix_x'.removeprefix('prefix_'), 'x.py'.removesuffix('.py'), 'abc'.startswith('ab'), 'abc'.endswith(('x', 'c')), 'a=b=c'.partition('='), 'a=b=c'.rpartition('=')]"),
    ("str-slicing", "s = 'abcdefghij'\nreturn [s[2:5], s[:3], s[-3:], s[::2], s[::-1], s[8:2:-2], s[100:], s[-100:2], s[3:3]]"),
    ("str-ops", "['ab' * 3, 3 * 'x', 'a' + 'b', 'b' in 'abc', 'ab' not in 'abc', len('ünï'), 'abc' * 0, 'x' * -2]"),
    ("str-iteration", "[c.upper() for c in 'abc'] + list('xy') + sorted('banana')"),
    ("str-repr-escapes", "[repr('a\\nb'), repr(\"it's\"), repr('\\x00'), repr('tab\\t'), str(['q\"'])]"),
    ("fstring-nesting", "w = 6\nv = 'x'\nreturn [f'{v:>{w}}', f'{3.14159:.{w - 3}f}', f'{[1, 2]!r:>10}', f'{{}}{v}{{}}']"),
    # lists
    ("list-methods", "l = [3, 1, 2]\nl.append(5)\nl.insert(1, 9)\nl.extend((7, 8))\nl.remove(1)\np = l.pop()\nq = l.pop(0)\nreturn [l, p, q, l.index(9), l.count(2)]"),
    ("list-sort-variants", "l = ['b', 'A', 'c', 'a']\nl.sort()\nm = sorted(l, key=lambda s: s.lower())\nl.sort(reverse=True)\nreturn [l, m]"),
    ("list-slicing", "l = list(range(10))\nreturn [l[1:4], l[::-3], l[-2:], l[5:1], l[::2][1:3]]"),
    ("list-slice-assign", "l = list(range(6))\nl[1:3] = ['a']\nl[-1:] = [7, 8]\nl[::2] = [0, 0, 0]\nreturn l"),
    ("list-slice-delete", "l = list(range(10))\ndel l[2:4]\ndel l[::3]\nreturn l"),
    ("list-ops", "[[1] * 3, [1, 2] + [3], [[0]] * 2, [1, 2] == [1, 2], [1, [2]] < [1, [3]], 3 in [1, 2, 3], len([[]])]"),
    ("list-aliasing", "a = [1, 2]\nb = a\na += [3]\nc = a\na = a + [4]\nreturn [a, b, c]"),
    ("list-copy-reverse", "a = [1, [2]]\nb = a.copy()\nb[1].append(3)\nb.reverse()\nreturn [a, b]"),
    ("list-clear", "a = [1, 2]\nb = a\nb.clear()\nreturn [a, len(b)]"),
    ("nested-list-update", "grid = [[0] * 3 for _ in range(2)]\ngrid[1][2] = 5\ngrid[0][0] += 1\nreturn grid"),
    # dicts
    ("dict-methods", "d = {'b': 1, 'a': 2}\nd['c'] = 3\nd.update({'a': 5}, z=0)\nv = d.pop('b')\nw = d.pop('q', -1)\nreturn [d, v, w, d.get('a'), d.get('x', 'dflt'), list(d), list(d.values())]"),
    ("dict-setdefault-popitem", "d = {}\nd.setdefault('k', []).append(1)\nd.setdefault('k', []).append(2)\nd['j'] = 0\nitem = d.popitem()\nreturn [d, item]"),
    ("dict-order", "d = {}\nfor k in ['z', 'a', 'm']:\n    d[k] = len(d)\ndel d['a']\nd['a'] = 9\nreturn [list(d.items()), list(d.keys())]"),
    ("dict-int-keys", "d = {1: 'a', 2: 'b', (1, 2): 'tuple'}\nd[1.0] = 'float'\nreturn [d, d[(1, 2)], 2 in d]"),
    ("dict-merge", "a = {'x': 1}\nb = {'x': 2, 'y': 3}\nc = a | b\na |= {'z': 0}\nreturn [c, a, {**a, **b}, dict(a, w=1)]"),
    ("dict-from-pairs", "[dict([('a', 1), ('b', 2)]), dict(zip('xyz', range(3))), dict(enumerate('ab'))]"),
    ("dict-comprehension", "{k: v for k, v in [('a', 1), ('b', 2), ('a', 3)]}"),
    ("dict-equality", "[{'a': 1, 'b': 2} == {'b': 2, 'a': 1}, {'a': 1} != {'a': 1.0}, len({'a': 1, 'a': 2})]"),
    # sets (compared as sets)
    ("set-ops", "a = {1, 2, 3}\nb = {3, 4}\nreturn [a | b, a & b, a - b, a ^ b, a <= {1, 2, 3, 4}, a > {1}, a.isdisjoint(b)]"),
    ("set-methods", "s = set('hello')\ns.add('z')\ns.discard('h')\ns.remove('e')\nt = s.copy()\nt.update('ab')\nreturn [s, t, len(s), 'l' in s, s.union([1]), s.intersection('lo'), s.difference('l')]"),
    ("set-in-place", "a = {1, 2}\nb = a\na |= {3}\na &= {2, 3}\na -= {9}\nreturn [a, b, a is b]"),
    ("set-comprehension", "{x % 4 for x in range(10)}"),
    ("set-from-list", "sorted(set([3, 1, 3, 2, 1]))"),
    ("set-pop-len", "s = {5}\nx = s.pop()\nreturn [x, len(s), s]"),
    # tuples
    ("tuple-ops", "t = (1, 2, 3)\nreturn [t + (4,), t * 2, t[1:], t.index(2), t.count(1), t < (1, 3), tuple('ab'), (1,) == (1,)]"),
    ("tuple-unpacking", "a, (b, c), *d = 1, (2, 3), 4, 5\nx, = [9]\nreturn [a, b, c, d, x]"),
    ("star-unpacking", "first, *middle, last = range(6)\n*init, tail = 'abc'\nreturn [first, middle, last, init, tail]"),
    # comprehensions and iteration
    ("comprehensions", "[[x * y for x in range(3)] for y in range(3)] + [[x for x in range(10) if x % 2 if x % 3]]"),
    ("comprehension-multi-for", "[(a, b) for a in 'ab' for b in range(a == 'a', 3)]"),
    ("generator-in-calls", "[sum(x * x for x in range(5)), max(len(s) for s in ['a', 'abc']), list(x for x in 'hi'), sorted((-x for x in [3, 1, 2]))]"),
    ("walrus-comprehension", "vals = [y for x in range(6) if (y := x * 3) % 2 == 0]\nreturn [vals, y]"),
    ("zip-enumerate", "[list(zip('abc', [1, 2])), list(enumerate(['x', 'y'], 10)), list(zip()), [i * v for i, v in enumerate([5, 6])]]"),
    ("map-filter", "[list(map(str, [1, 2])), list(map(lambda a, b: a * b, [1, 2, 3], [4, 5])), list(filter(lambda x: x > 1, [0, 1, 2, 3])), list(filter(None, [0, '', 'a', [], [1]]))]"),
    ("reversed-sorted", "[list(reversed(range(4))), sorted([3, -1, 2], key=abs), sorted(['bb', 'a', 'ccc'], key=len, reverse=True), sorted([(1, 'b'), (1, 'a'), (0, 'z')])]"),
    ("sorted-stable", "data = [('a', 2), ('b', 1), ('c', 2), ('d', 1)]\nreturn sorted(data, key=lambda p: p[1])"),
    ("range-usage", "[list(range(5)), list(range(2, 10, 3)), list(range(10, 0, -4)), len(range(0, 100, 7)), 5 in range(0, 10, 5), range(10)[3], list(range(10))[-1]]"),
    ("for-else-while-else", "out = []\nfor i in range(3):\n    if i == 5:\n        break\nelse:\n    out.append('for-else')\nn = 0\nwhile n < 2:\n    n += 1\nelse:\n    out.append(n)\nreturn out"),
    ("nested-loops-control", "out = []\nfor i in range(4):\n    for j in range(4):\n        if j > i:\n            break\n        if (i + j) % 2:\n            continue\n        out.append(i * 10 + j)\nreturn out"),
    # functions
    ("closures", "def counter():\n    counts = {'n': 0}\n    def inc():\n        counts['n'] += 1\n        return counts['n']\n    return inc\nc = counter()\nc()\nc()\nreturn c()"),
    ("default-and-varargs", "def f(a, b=2, *args, **kw):\n    return [a, b, args, sorted(kw.items())]\nreturn [f(1), f(1, 3, 4, 5, x=1), f(*[1, 2, 3], **{'y': 2})]"),
    ("recursion", "def hanoi(n):\n    return 0 if n == 0 else 2 * hanoi(n - 1) + 1\ndef ack(m, n):\n    if m == 0:\n        return n + 1\n    if n == 0:\n        return ack(m - 1, 1)\n    return ack(m - 1, ack(m, n - 1))\nreturn [hanoi(20), ack(2, 3)]"),
    ("lambda-sorting", "people = [{'n': 'b', 'a': 30}, {'n': 'a', 'a': 30}, {'n': 'c', 'a': 20}]\nreturn [p['n'] for p in sorted(people, key=lambda p: (-p['a'], p['n']))]"),
    # try / except
    ("try-finally-order", "out = []\ndef f():\n    try:\n        out.append('try')\n        return 'ret'\n    finally:\n        out.append('finally')\nr = f()\nreturn [r, out]"),
    ("exception-str-args", "out = []\nfor e in [ValueError('a'), ValueError('a', 2), KeyError('k'), IndexError(), ValueError(5)]:\n    out.append([str(e), repr(e), list(e.args)])\nreturn out"),
    ("exception-caught-types", "out = []\nfor thunk in [lambda: [][0], lambda: {}['x'], lambda: 1 // 0, lambda: int('x'), lambda: 'a' + 1, lambda: [1].index(2), lambda: {1}.remove(2)]:\n"
     "    try:\n        thunk()\n    except (IndexError, KeyError) as e:\n        out.append('lookup')\n    except ZeroDivisionError:\n        out.append('zero')\n    except ValueError:\n        out.append('value')\n    except TypeError:\n        out.append('type')\nreturn out"),
    ("key-error", "d = {'a': 1}\nreturn d['b']"),
    ("index-error", "return [1, 2, 3][3]"),
    ("index-error-str", "return 'abc'[-4]"),
    ("index-error-pop", "return [].pop()"),
    ("zero-division", "return 1 / 0"),
    ("zero-division-floordiv", "return 5 // 0"),
    ("zero-division-mod-float", "return 5.0 % 0"),
    ("value-error-int", "return int('x')"),
    ("value-error-float", "return float('abc')"),
    ("value-error-unpack", "a, b = [1, 2, 3]\nreturn a"),
    ("value-error-index", "return [1, 2].index(5)"),
    ("value-error-math", "return math.sqrt(-1)"),
    ("value-error-chr", "return chr(-1)"),
    ("overflow-is-value-error", "return math.exp(1000)"),
    ("overflow-int-inf", "return int(float('inf'))"),
    ("type-error-add", "return 1 + 'a'"),
    ("type-error-compare", "return [1, 'a'] < ['a', 1]"),
    ("type-error-call", "x = 5\nreturn x()"),
    ("type-error-unhashable", "return {[1]: 2}"),
    ("type-error-subscript", "x = 5\nreturn x[0]"),
    ("type-error-len", "return len(5)"),
    ("type-error-int-none", "return int(None)"),
    ("type-error-sorted-mixed", "return sorted([1, 'a'])"),
    ("key-error-set", "s = set()\nreturn s.pop()"),
    ("assert-error", "assert 1 == 2, 'no'"),
    ("raise-reraise", "try:\n    try:\n        raise KeyError('inner')\n    except KeyError:\n        raise\nexcept KeyError as e:\n    return ['outer', str(e)]"),
    ("raise-in-finally-after-return", "def f():\n    try:\n        return 1\n    finally:\n        raise ValueError('fin')\nreturn f()"),
    # json / re
    ("json-roundtrip", "data = {'a': [1, 2.5, None, True, 'é'], 'b': {'c': []}}\ntext = json.dumps(data)\nreturn [text, json.loads(text) == data, json.dumps(data, sort_keys=True, indent=1)]"),
    ("json-loads", "[json.loads('[1, 2]'), json.loads('\"s\"'), json.loads(' {\"k\": null} '), json.loads('1e3'), json.loads('-0')]"),
    ("json-loads-error", "return json.loads('{bad')"),
    ("re-functions", "[re.findall(r'\\d+', 'a1b22'), re.sub(r'\\s+', ' ', 'a  b\\t c'), re.split(r'\\W+', 'a, b; c'), re.sub(r'(a)(b)?', r'[\\1]', 'abac'), bool(re.fullmatch(r'[a-z]+', 'abc'))]"),
    ("re-match-groups", "m = re.search(r'(?P<k>\\w+)=(?P<v>\\d+)', 'x: key=42;')\nreturn [m.group(0), m.group('k'), m.group(2), m.groups(), m.groupdict(), m.start(), m.end('v'), m.span(1)]"),
    ("re-no-match", "[re.match('b', 'abc'), re.search('z', 'abc'), re.findall('z', 'abc'), re.sub('z', 'y', 'abc')]"),
    ("re-flags", "[re.findall('A', 'aAa', re.IGNORECASE), re.findall('^b', 'a\\nb', re.M), re.match('a.b', 'a\\nb', re.S) is not None]"),
]


def test_enough_snippets() -> None:
    assert len(SNIPPETS) >= 80
    assert len({name for name, _ in SNIPPETS}) == len(SNIPPETS)


@pytest.mark.parametrize("snippet", [pytest.param(code, id=name) for name, code in SNIPPETS])
def test_differential(snippet: str) -> None:
    assert_same(snippet)


def test_harness_reports_errors_as_types() -> None:
    assert cpython_eval("return {}['k']") == {"error": "KeyError"}
    assert dwf_eval("return {}['k']") == {"error": "KeyError"}
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
