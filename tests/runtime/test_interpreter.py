"""The interpreter end to end (compile, then run through the Engine with a fake agent port):
every statement and expression kind of LANGUAGE §4, the deliberate evaluation differences
(lazy awaitables, insertion-ordered sets), the modules, records, DWF-level tracebacks,
catchable versus fatal errors, and the joins of §6.3 (`parallel`, `gather`, `pipeline`)."""

from __future__ import annotations

import pytest

from dwf.runtime.interpreter.limits import Limits

from runner import EchoPort, FakeWorld, run, value

SMALL = Limits(steps=200_000)

# ---------------------------------------------------------------- values of pure snippets

CASES: list[tuple[str, str, object]] = [
    # assignment and unpacking
    ("assign-chain", "a = b = [1]\nb.append(2)\nreturn a", [1, 2]),
    ("tuple-unpack", "a, b = 1, 2\na, b = b, a\nreturn [a, b]", [2, 1]),
    ("nested-unpack", "(a, b), c = [1, 2], 3\nreturn [a, b, c]", [1, 2, 3]),
    ("star-unpack-middle", "a, *b, c = 'hello'\nreturn [a, b, c]", ["h", ["e", "l", "l"], "o"]),
    ("star-unpack-empty", "a, *b = [1]\nreturn [a, b]", [1, []]),
    ("star-unpack-first", "*a, b = range(4)\nreturn [a, b]", [[0, 1, 2], 3]),
    ("for-unpack", "out = []\nfor k, v in {'a': 1, 'b': 2}.items():\n    out.append(k * v)\nreturn out", ["a", "bb"]),
    ("annotated", "x: int = 5\ny: str\nreturn x", 5),
    # augmented assignment
    ("aug-name", "x = 5\nx += 2\nx *= 3\nx -= 1\nx //= 4\nx **= 2\nx %= 7\nreturn x", 4),
    ("aug-subscript-dict", "d = {'a': 1}\nd['a'] += 5\nd['a'] *= 2\nreturn d", {"a": 12}),
    ("aug-subscript-list", "l = [1, 2, 3]\nl[-1] -= 10\nl[0] <<= 3\nreturn l", [8, 2, -7]),
    ("aug-nested-subscript", "m = {'x': [0, 0]}\nm['x'][1] += 4\nreturn m", {"x": [0, 4]}),
    ("aug-list-in-place", "a = [1]\nb = a\na += [2]\na *= 2\nreturn b", [1, 2, 1, 2]),
    ("aug-list-extend-iterable", "a = [1]\na += (2, 3)\na += 'xy'\nreturn a", [1, 2, 3, "x", "y"]),
    ("aug-tuple-new", "a = (1,)\nb = a\na += (2,)\nreturn [a, b]", [[1, 2], [1]]),
    ("aug-str", "s = 'a'\ns += 'b'\ns *= 2\nreturn s", "abab"),
    ("aug-set-in-place", "s = {1, 2}\nt = s\ns |= {3}\ns -= {1}\nreturn sorted(t)", [2, 3]),
    ("aug-dict-or", "d = {'a': 1}\ne = d\nd |= {'b': 2}\nreturn e", {"a": 1, "b": 2}),
    # comparisons and boolean logic
    ("chained-compare", "return [1 < 2 < 3, 1 < 3 < 2, 3 > 2 >= 2 == 2, 1 == 1 != 2]", [True, False, True, True]),
    ("chained-compare-once", "calls = []\ndef f(x):\n    calls.append(x)\n    return x\nr = f(1) < f(2) < f(0) < f(5)\nreturn [r, calls]",
     [False, [1, 2, 0]]),
    ("in-notin", "return [1 in [1], 'a' not in 'bcd', 'k' in {'k': 1}, 3 in range(5), 2 in {2}]", [True] * 5),
    ("is", "x = None\ny = [1]\nreturn [x is None, y is not None, x is not False, (y == [1]) is True]",
     [True, True, True, True]),  # `is` only with None/True/False (DWF331)
    ("boolops", "return [1 and 2, 0 and 2, 0 or 'x', '' or [] or None, not 0, not [1]]", [2, 0, "x", None, True, False]),
    ("short-circuit", "def boom():\n    return 1 / 0\nreturn [False and boom(), True or boom()]", [False, True]),
    ("ifexp", "x = 3\nreturn ['big' if x > 2 else 'small', 'big' if x > 5 else 'small']", ["big", "small"]),
    # arithmetic
    ("arith", "return [7 // 2, -7 // 2, 7 % -3, -7 % 3, 2 ** -1, 7 / 2, divmod(-7, 2), -2 ** 2, (-2) ** 2]",
     [3, -4, -2, 2, 0.5, 3.5, [-4, 1], -4, 4]),
    ("bitwise", "return [5 & 3, 5 | 3, 5 ^ 3, ~5, 1 << 10, 1024 >> 3, -1 >> 1]", [1, 7, 6, -6, 1024, 128, -1]),
    ("unary", "x = 4\nreturn [-x, +x, -(-x), not x]", [-4, 4, 4, False]),
    ("bigint", "return 2 ** 200 - 3 ** 100", 2 ** 200 - 3 ** 100),
    ("float-ops", "return [0.1 + 0.2, 1e300 * 10, round(2.675, 2), round(2.5), round(3.5), int(-2.7)]",
     [0.30000000000000004, 1e301, 2.67, 2, 4, -2]),
    ("str-concat-repeat", "return ['ab' + 'cd', 'ab' * 3, 3 * [0], [1] + [2], (1,) + (2,)]",
     ["abcd", "ababab", [0, 0, 0], [1, 2], [1, 2]]),
    # subscripts and slices
    ("slices", "s = 'abcdefg'\nl = list(range(10))\nreturn [s[1:3], s[::-1], s[-2:], l[::3], l[8:2:-2], s[:100], l[5:5]]",
     ["bc", "gfedcba", "fg", [0, 3, 6, 9], [8, 6, 4], "abcdefg", []]),
    ("slice-assign", "l = [0, 1, 2, 3]\nl[1:3] = ['a', 'b', 'c']\nl[:0] = [9]\nreturn l", [9, 0, "a", "b", "c", 3]),
    ("slice-delete", "l = list(range(6))\ndel l[::2]\nreturn l", [1, 3, 5]),
    ("range-subscript", "r = range(0, 20, 3)\nreturn [r[2], r[-1], list(r[1:3]), len(r)]", [6, 18, [3, 6], 7]),
    # del
    ("del", "x = 1\nl = [1, 2, 3]\nd = {'a': 1, 'b': 2}\ndel l[0], d['a']\ndel x\nreturn [l, d]", [[2, 3], {"b": 2}]),
    # if / loops
    ("if-elif-else", "out = []\nfor x in [1, 5, 10]:\n    if x < 2:\n        out.append('s')\n    elif x < 6:\n        out.append('m')\n"
     "    else:\n        out.append('l')\nreturn out", ["s", "m", "l"]),
    ("for-else", "for i in range(3):\n    pass\nelse:\n    i = 'done'\nreturn i", "done"),
    ("for-break-no-else", "for i in range(3):\n    if i == 1:\n        break\nelse:\n    i = 'done'\nreturn i", 1),
    ("while-else", "i = 0\nwhile i < 3:\n    i += 1\nelse:\n    i *= 10\nreturn i", 30),
    ("while-break", "i = 0\nwhile True:\n    i += 1\n    if i == 5:\n        break\nelse:\n    i = -1\nreturn i", 5),
    ("nested-break-continue", "out = []\nfor i in range(4):\n    if i == 1:\n        continue\n    for j in range(4):\n"
     "        if j == 2:\n            break\n        if j == 0:\n            continue\n        out.append((i, j))\n    if i == 3:\n"
     "        break\nreturn out", [[0, 1], [2, 1], [3, 1]]),
    ("continue-in-while", "i = 0\nout = []\nwhile i < 5:\n    i += 1\n    if i % 2:\n        continue\n    out.append(i)\nreturn out", [2, 4]),
    ("for-over-dict", "return [k for k in {'b': 1, 'a': 2}]", ["b", "a"]),
    ("for-over-string", "out = ''\nfor c in 'abc':\n    out = c + out\nreturn out", "cba"),
    ("loop-var-after", "for i in range(3):\n    pass\nreturn i", 2),
    # functions
    ("def-defaults", "def f(a, b=2, c='x'):\n    return [a, b, c]\nreturn [f(1), f(1, 3), f(1, c='y'), f(a=0, b=0)]",
     [[1, 2, "x"], [1, 3, "x"], [1, 2, "y"], [0, 0, "x"]]),
    ("def-star-args", "def f(a, *rest, **kw):\n    return [a, rest, kw]\nreturn [f(1), f(1, 2, 3, k=4), f(*[5, 6], **{'z': 7})]",
     [[1, [], {}], [1, [2, 3], {"k": 4}], [5, [6], {"z": 7}]]),
    ("call-star-mixed", "def f(*a, **k):\n    return [a, k]\nreturn f(0, *(1, 2), 3, *'ab', x=1, **{'y': 2})",
     [[0, 1, 2, 3, "a", "b"], {"x": 1, "y": 2}]),
    ("lambda", "f = lambda x, y=10: x * y\nreturn [f(2), f(2, 3), (lambda: 'k')(), sorted([3, 1, 2], key=lambda v: -v)]",
     [20, 6, "k", [3, 2, 1]]),
    ("nested-def-closure", "def outer(n):\n    def inner(m):\n        return n + m\n    return inner\nadd5 = outer(5)\nreturn [add5(1), outer(1)(1)]",
     [6, 2]),
    ("closure-sees-later-binding", "def make():\n    def get():\n        return x\n    x = 1\n    f = get\n    x = 2\n    return f\nreturn make()()", 2),
    ("closure-over-loop-var", "fs = []\nfor i in range(3):\n    fs.append(lambda: i)\nreturn [f() for f in fs]", [2, 2, 2]),
    ("closure-factory-captures", "def make(i):\n    return lambda: i\nfs = [make(i) for i in range(3)]\nreturn [f() for f in fs]", [0, 1, 2]),
    ("comprehension-closures-late", "fs = [lambda: i for i in range(3)]\nreturn [f() for f in fs]", [2, 2, 2]),
    ("recursion", "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nreturn [fib(15), fib(0)]", [610, 0]),
    ("mutual-recursion", "def even(n):\n    return True if n == 0 else odd(n - 1)\ndef odd(n):\n    return False if n == 0 else even(n - 1)\n"
     "return [even(10), odd(7), even(7)]", [True, True, False]),
    ("recursion-depth-ok", "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\nreturn depth(150)", 150),
    ("return-none", "def f():\n    pass\ndef g():\n    return\nreturn [f(), g()]", [None, None]),
    ("global-read-in-function", "LIMIT = 3\ndef under(x):\n    return x < LIMIT\nreturn [under(1), under(5)]", [True, False]),
    ("function-as-value", "def double(x):\n    return x * 2\nops = {'d': double, 'n': lambda x: -x}\nreturn [ops['d'](4), ops['n'](4), list(map(double, [1, 2]))]",
     [8, -4, [2, 4]]),
    # comprehensions
    ("listcomp", "return [x * x for x in range(6) if x % 2 if x > 1]", [9, 25]),
    ("nested-comp", "return [(i, j) for i in range(3) for j in range(i)]", [[1, 0], [2, 0], [2, 1]]),
    ("dictcomp", "return {k: v for k, v in zip('abc', range(3)) if v != 1}", {"a": 0, "c": 2}),
    ("setcomp-order", "return list({x % 3 for x in [5, 4, 3, 2]})", [2, 1, 0]),
    ("genexp", "return [sum(x for x in range(5)), max(len(w) for w in ['a', 'abc']), list(x for x in 'ab')]", [10, 3, ["a", "b"]]),
    ("comp-scope", "x = 'outer'\ny = [x for x in range(3)]\nreturn x", "outer"),
    ("comp-reads-enclosing", "def f(n):\n    k = 10\n    return [k + i for i in range(n)]\nreturn f(3)", [10, 11, 12]),
    ("walrus", "if (n := len('abcd')) > 3:\n    return n\nreturn -1", 4),
    ("walrus-in-comprehension", "vals = [y for x in range(5) if (y := x * x) > 4]\nreturn [vals, y]", [[9, 16], 16]),
    ("walrus-in-comp-in-function", "def f():\n    [last := c for c in 'xyz']\n    return last\nreturn f()", "z"),
    ("walrus-while", "data = [1, 2, 3]\nout = []\nwhile (item := data.pop()) != 1:\n    out.append(item)\nreturn out", [3, 2]),
    # f-strings
    ("fstring-basic", "name = 'Ada'\nn = 3\nreturn f'{name} has {n} items, {n * 2} doubled, {{literal}}'",
     "Ada has 3 items, 6 doubled, {literal}"),
    ("fstring-conversions", "s = 'é'\nreturn [f'{s!r}', f'{s!s}', f'{s!a}', f'{[1, \"a\"]!r}', f'{None}']",
     ["'é'", "é", "'\\xe9'", "[1, 'a']", "None"]),
    ("fstring-format-specs", "x = 3.14159\nn = 1234567\nreturn [f'{x:.2f}', f'{n:,}', f'{n:>10}', f'{n:#x}', f'{0.25:.0%}', f'{\"ab\":*^6}', f'{7:03d}', f'{x:e}']",
     ["3.14", "1,234,567", "   1234567", "0x12d687", "25%", "**ab**", "007", "3.141590e+00"]),
    ("fstring-nested-spec", "w = 8\np = 3\nx = 2.0 / 3\nreturn [f'{x:{w}.{p}f}', f'{\"r\":>{w}}', f'{x!r:>{w + 12}}']",
     ["   0.667", "       r", "  0.6666666666666666"]),
    ("fstring-conversion-and-spec", "return f'{\"ab\"!r:>6}'", "  'ab'"),
    ("fstring-nested-fstring", "a = 'x'\nreturn f\"<{f'[{a}]'}>\"", "<[x]>"),
    ("fstring-records-and-containers", "d = {'k': [1, 2]}\nreturn f'{d} {d[\"k\"][1]}'", "{'k': [1, 2]} 2"),
    # sets: insertion order everywhere
    ("set-insertion-order", "s = {'b', 'a', 'c'}\ns.add('a')\ns.add('0')\nreturn list(s)", ["b", "a", "c", "0"]),
    ("set-ops-order", "a = {3, 1, 2}\nb = {2, 4, 3}\nreturn [list(a | b), list(a & b), list(a - b), list(a ^ b), list(set('hello'))]",
     [[3, 1, 2, 4], [3, 2], [1], [1, 4], ["h", "e", "l", "o"]]),
    ("set-methods", "s = set([1, 2])\ns.update([3], (4,))\ns.discard(9)\ns.remove(1)\np = s.pop()\n"
     "return [p, list(s), s.issubset({2, 3, 4, 5}), {1}.isdisjoint({2}), sorted(s.union({0}))]", [2, [3, 4], True, True, [0, 3, 4]]),
    ("set-compare", "return [{1, 2} == {2, 1}, {1} < {1, 2}, {1, 2} >= {2}, len({1, 1, 2})]", [True, True, True, 2]),
    # builtins
    ("builtins-misc", "return [abs(-3), all([]), any([0, 1]), bool([]), len('abc'), min(3, 1, 2), max([1, 5, 2]), pow(2, 10), pow(2, 10, 1000), "
     "round(1.2345, 2), sum([1, 2, 3], 10), chr(65), ord('a'), repr('x'), str(1.5), float('2.5'), int('ff', 16), int('  12 ')]",
     [3, True, True, False, 3, 1, 5, 1024, 24, 1.23, 16, "A", 97, "'x'", "1.5", 2.5, 255, 12]),
    ("builtins-iterators", "return [list(enumerate('ab', 1)), list(zip([1, 2, 3], 'ab')), list(reversed([1, 2, 3])), "
     "list(filter(None, [0, 1, '', 'a'])), list(map(lambda a, b: a + b, [1, 2], [10, 20])), sorted({'b': 1, 'a': 2})]",
     [[[1, "a"], [2, "b"]], [[1, "a"], [2, "b"]], [3, 2, 1], [1, "a"], [11, 22], ["a", "b"]]),
    ("sorted-key-reverse", "words = ['bb', 'a', 'ccc', 'dd']\nreturn [sorted(words, key=len), sorted(words, key=len, reverse=True), "
     "min(words, key=len), max(words, key=lambda w: (len(w), w))]", [["a", "bb", "dd", "ccc"], ["ccc", "bb", "dd", "a"], "a", "ccc"]),
    ("isinstance", "return [isinstance(1, int), isinstance(True, int), isinstance(1.0, (int, float)), isinstance({}, dict), "
     "isinstance({1}, set), isinstance('a', list), isinstance(ValueError('x'), Exception)]", [True, True, True, True, True, False, True]),
    ("tuple-list-dict-set-ctors", "return [tuple('ab'), list((1, 2)), dict([('a', 1)], b=2), sorted(set([2, 1, 2])), dict(a=1)]",
     [["a", "b"], [1, 2], {"a": 1, "b": 2}, [1, 2], {"a": 1}]),
    ("map-is-lazy-once", "m = map(lambda x: x * 2, [1, 2])\nreturn [list(m), list(m)]", [[2, 4], []]),
    ("repr-of-values", "def f():\n    pass\nreturn [repr(f), repr(len), repr(ValueError), repr(range(3)), repr(map(str, [])), repr({1}), repr(set()), repr((1,))]",
     ["<function f>", "<built-in function len>", "<class 'ValueError'>", "range(0, 3)", "<map object>", "{1}", "set()", "(1,)"]),
    # str / list / dict methods
    ("str-methods", "s = '  Hello, World  '\nreturn [s.strip(), s.lower().strip(), s.split(','), 'a-b-c'.rsplit('-', 1), 'x'.join(['1', '2']), "
     "'abc'.upper(), 'Ab'.swapcase(), 'hello'.replace('l', 'L', 1), 'abc'.startswith(('x', 'a')), 'a\\nb'.splitlines(), "
     "'ab'.center(6, '*'), '5'.zfill(3), 'abc'.find('c'), 'title me'.title(), 'a,b'.partition(','), 'pre_x'.removeprefix('pre_')]",
     ["Hello, World", "hello, world", ["  Hello", " World  "], ["a-b", "c"], "1x2", "ABC", "aB", "heLlo", True, ["a", "b"],
      "**ab**", "005", 2, "Title Me", ["a", ",", "b"], "x"]),
    ("list-methods", "l = [3, 1, 2]\nl.append(4)\nl.extend([5])\nl.insert(0, 0)\nl.remove(3)\np = l.pop()\nl.sort(reverse=True)\n"
     "c = l.copy()\nl.reverse()\nreturn [l, p, c, l.index(2), l.count(1)]", [[0, 1, 2, 4], 5, [4, 2, 1, 0], 2, 1]),
    ("list-sort-key", "l = ['bb', 'a', 'ccc']\nl.sort(key=lambda s: -len(s))\nreturn l", ["ccc", "bb", "a"]),
    ("dict-methods", "d = {'a': 1}\nd.update({'b': 2}, c=3)\nd.setdefault('a', 9)\nd.setdefault('z', 0)\nv = d.pop('b')\n"
     "return [d, v, d.get('q'), d.get('q', 5), list(d.keys()), list(d.values()), [list(i) for i in d.items()], d.pop('q', None)]",
     [{"a": 1, "c": 3, "z": 0}, 2, None, 5, ["a", "c", "z"], [1, 3, 0], [["a", 1], ["c", 3], ["z", 0]], None]),
    ("int-float-methods", "return [(255).bit_length(), (7).bit_count(), (2.0).is_integer(), (5).real, (3).conjugate()]", [8, 3, True, 5, 3]),
    # try / except / else / finally
    ("try-except-as", "try:\n    {}['k']\nexcept KeyError as e:\n    return [str(e), repr(e), e.args]", ["'k'", "KeyError('k')", ["k"]]),
    ("try-else-finally", "log_ = []\ntry:\n    log_.append('body')\nexcept ValueError:\n    log_.append('except')\nelse:\n"
     "    log_.append('else')\nfinally:\n    log_.append('finally')\nreturn log_", ["body", "else", "finally"]),
    ("try-except-order", "try:\n    int('x')\nexcept KeyError:\n    return 'key'\nexcept (TypeError, ValueError) as e:\n"
     "    return ['value', str(e)]\nexcept Exception:\n    return 'any'", ["value", "invalid literal for int() with base 10: 'x'"]),
    ("try-hierarchy", "try:\n    raise AskFailed('no')\nexcept WorkflowError as e:\n    return [isinstance(e, AskFailed), isinstance(e, WorldError), str(e)]",
     [True, False, "no"]),
    ("try-bare-except", "try:\n    1 / 0\nexcept:\n    return 'caught'", "caught"),
    ("finally-runs-on-return", "out = []\ndef f():\n    try:\n        return 'r'\n    finally:\n        out.append('fin')\nreturn [f(), out]", ["r", ["fin"]]),
    ("finally-overrides-return", "def f():\n    try:\n        return 1\n    finally:\n        return 2\nreturn f()", 2),
    ("finally-on-break-continue", "out = []\nfor i in range(3):\n    try:\n        if i == 0:\n            continue\n        if i == 2:\n"
     "            break\n    finally:\n        out.append(i)\nreturn out", [0, 1, 2]),
    ("exception-in-handler-propagates", "try:\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        [][1]\nexcept IndexError as e:\n    return str(e)",
     "list index out of range"),
    ("else-not-protected", "try:\n    try:\n        pass\n    except ValueError:\n        return 'inner'\n    else:\n        raise ValueError('from else')\n"
     "except ValueError as e:\n    return str(e)", "from else"),
    ("bare-raise-reraises", "def g():\n    try:\n        raise ValueError('orig')\n    except ValueError:\n        raise\ntry:\n    g()\n"
     "except ValueError as e:\n    return str(e)", "orig"),
    ("raise-from", "try:\n    try:\n        {}['x']\n    except KeyError as e:\n        raise ValueError('wrapped') from e\n"
     "except ValueError as e:\n    return str(e)", "wrapped"),
    ("raise-from-none", "try:\n    raise TypeError('t') from None\nexcept TypeError as e:\n    return repr(e)", "TypeError('t')"),
    ("raise-class", "try:\n    raise IndexError\nexcept IndexError as e:\n    return [str(e), repr(e), e.args]", ["", "IndexError()", []]),
    ("raise-value-twice", "e = ValueError('v', 2)\ntry:\n    raise e\nexcept ValueError as caught:\n    return [str(caught), caught.args, caught == e]",
     ["('v', 2)", ["v", 2], True]),
    ("exception-as-value", "errors = [ValueError('a'), KeyError('b')]\nreturn [str(e) for e in errors]", ["a", "'b'"]),
    ("assert-passes", "assert 1 + 1 == 2, 'math'\nreturn 'ok'", "ok"),
    ("assert-caught", "try:\n    assert False, 'nope'\nexcept Exception as e:\n    return str(e)", "nope"),
    ("python-errors-caught", "out = []\nfor f in [lambda: 1 / 0, lambda: [][0], lambda: {}['k'], lambda: int('x'), lambda: 1 + 'a', "
     "lambda: [].pop(), lambda: 'abc'.index('z'), lambda: (1, 2).index(3), lambda: float('x')]:\n    try:\n        f()\n"
     "    except Exception as e:\n        out.append(repr(e).split('(')[0])\nreturn out",
     ["ZeroDivisionError", "IndexError", "KeyError", "ValueError", "TypeError", "IndexError", "ValueError", "ValueError", "ValueError"]),
    # modules
    ("json", "import json\nreturn [json.dumps({'b': [1, 2.5, None, True]}), json.dumps({'b': 1, 'a': 2}, sort_keys=True), "
     "json.loads('{\"x\": [1, \"y\"]}'), json.dumps('é'), json.dumps('é', ensure_ascii=False), json.dumps([1], indent=2)]",
     ['{"b": [1, 2.5, null, true]}', '{"a": 2, "b": 1}', {"x": [1, "y"]}, '"\\u00e9"', '"é"', "[\n  1\n]"]),
    ("json-errors", "import json\nout = []\nfor text in ['{', 'NaN', '[1,]']:\n    try:\n        json.loads(text)\n    except ValueError:\n"
     "        out.append('bad')\nreturn out", ["bad", "bad", "bad"]),
    ("re", "import re\nm = re.search(r'(?P<word>\\w+)@(\\w+)', 'mail: ada@host!')\nreturn [m.group(0), m.group('word'), m.group(2), m.groups(), "
     "m.groupdict(), m.span(), m.start(2), re.findall(r'\\d+', 'a1b22c333'), re.findall(r'(\\w)=(\\d)', 'a=1 b=2'), "
     "re.sub(r'(\\w+)@', r'<\\1>@', 'x@y'), re.split(r'[,;]\\s*', 'a, b;c'), re.fullmatch('a+', 'aaa') is not None, "
     "re.match('b', 'abc'), re.sub('a', 'b', 'aaaa', count=2), re.search('A', 'xa', re.I).start()]",
     ["ada@host", "ada", "host", ["ada", "host"], {"word": "ada"}, [6, 14], 10, ["1", "22", "333"], [["a", "1"], ["b", "2"]],
      "<x>@y", ["a", "b", "c"], True, None, "bbaa", 1]),
    ("re-invalid-pattern", "import re\nbad = ['('][0]\ntry:\n    re.match(bad, 'x')\nexcept re.error as e:\n    return str(e)",
     "missing ), unterminated subpattern at position 0"),
    ("math", "import math\nreturn [math.floor(2.7), math.ceil(2.1), math.sqrt(16), math.isqrt(17), math.gcd(12, 18), math.lcm(4, 6), "
     "math.factorial(10), math.comb(5, 2), math.prod([1, 2, 3, 4]), math.fsum([0.1] * 10), math.isclose(0.1 + 0.2, 0.3), "
     "round(math.pi, 5), math.inf > 10 ** 100, math.log(math.e), math.hypot(3, 4), math.trunc(-2.5)]",
     [2, 3, 4.0, 4, 6, 12, 3628800, 10, 24, 1.0, True, 3.14159, True, 1.0, 5.0, -2]),
    ("math-domain-error", "import math\ntry:\n    math.sqrt(-1)\nexcept ValueError as e:\n    return str(e)", "math domain error"),
    # args
    ("args-read-only-mapping", "return [len(args), args.get('x', 'default')]", [0, "default"]),
]


@pytest.mark.parametrize(("snippet", "expected"), [pytest.param(s, e, id=i) for i, s, e in CASES])
def test_value(snippet: str, expected: object) -> None:
    assert value(snippet, SMALL) == expected


def test_case_ids_unique() -> None:
    ids = [i for i, _, _ in CASES]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------- uncaught errors


ERRORS: list[tuple[str, str, str]] = [
    ("uncaught-value-error", "x = 1\nraise ValueError('bad thing')", "ValueError: bad thing"),
    ("uncaught-key-error", "d = {}\nreturn d['missing']", "KeyError: 'missing'"),
    ("assert-fails", "assert 1 > 2, 'one is not bigger'", "AssertionError: one is not bigger"),
    ("assert-fails-no-message", "assert []", "AssertionError"),
    ("unpack-too-many", "a, b = [1, 2, 3]", "ValueError: too many values to unpack (expected 2)"),
    ("unpack-too-few", "a, b, c = [1]", "ValueError: not enough values to unpack (expected 3, got 1)"),
    ("unpack-too-few-star", "a, b, *c = [1]", "ValueError: not enough values to unpack (expected at least 2, got 1)"),
    # Called through a list, so that the run-time error is tested, not `DWF212` at check time.
    ("call-missing-arg", "def f(a, b):\n    return a\n[f][0](1)", "TypeError: f() missing 1 required positional argument: 'b'"),
    ("call-unexpected-kwarg", "def f(a):\n    return a\n[f][0](1, c=2)", "TypeError: f() got an unexpected keyword argument 'c'"),
    ("call-too-many", "def f(a):\n    return a\n[f][0](1, 2)", "TypeError: f() takes 1 positional argument but 2 were given"),
    ("call-multiple-values", "def f(a):\n    return a\n[f][0](1, a=2)", "TypeError: f() got multiple values for argument 'a'"),
    ("not-callable", "x = [1]\nx[0]()", "TypeError: 'int' object is not callable"),
    ("not-iterable", "for x in 5:\n    pass", "TypeError: 'int' object is not iterable"),
    ("bare-raise-outside", "raise", "RuntimeError: No active exception to reraise"),
    ("raise-non-exception", "raise 'text'", "TypeError: exceptions must derive from BaseException"),
    ("return-not-json-set", "def f(x):\n    return set(x)\nreturn [f([1])]", "TypeError: the workflow's return value contains set ({1})"),
    ("return-not-json-function", "def f():\n    pass\nreturn [f]", "TypeError: the workflow's return value contains function (<function f>)"),
    ("return-non-finite", "return float('inf')", "ValueError: the workflow's return value contains a non-finite float"),
    ("return-non-str-key", "return {1: 2}", "TypeError: the workflow's return value has a non-string dict key 1"),
    ("args-read-only", "a = args\na['x'] = 1", "TypeError: `args` is read-only"),
    ("unbound-local", "def f():\n    y = x\n    x = 1\nf()", "UnboundLocalError: cannot access local variable 'x' where it is not associated with a value"),
    ("await-non-awaitable", "async def f():\n    return 1\nx = [1]\nawait x[0]", "TypeError: object int can't be used in 'await' expression"),
]


@pytest.mark.parametrize(("snippet", "message"), [pytest.param(s, m, id=i) for i, s, m in ERRORS])
def test_error(snippet: str, message: str) -> None:
    result = run(snippet, SMALL)
    assert result.status == "errored"
    assert result.error.startswith(message), result.error
    assert result.value is None


# ---------------------------------------------------------------- tracebacks


def test_traceback_names_script_lines_and_functions() -> None:
    result = run("""
def parse(text):
    return int(text)

def total(items):
    out = 0
    for item in items:
        out += parse(item)
    return out

return total(["1", "2", "x"])
""")
    assert result.status == "errored"
    assert result.error == "ValueError: invalid literal for int() with base 10: 'x'"
    trace = result.traceback
    assert trace.splitlines()[0] == "Traceback (most recent call last):"
    # Outermost first, each with the script line and its source text.
    assert [line.strip() for line in trace.splitlines()[1:-1]] == [
        "line 10, col 1, in <script>", 'return total(["1", "2", "x"])',
        "line 6, col 5, in total()", "for item in items:",
        "line 7, col 9, in total()", "out += parse(item)",
        "line 2, col 5, in parse()", "return int(text)",
    ]
    assert trace.splitlines()[-1] == result.error
    # Never an interpreter frame or a Python traceback.
    for leak in ("File \"", ".py\", line", "interpreter.py", "Traceback (most recent call last):\n  File"):
        assert leak not in trace


def test_traceback_of_limit_names_the_line() -> None:
    result = run("x = 1\ndef spin():\n    while True:\n        x = 2\nspin()", Limits(steps=5_000))
    assert result.status == "errored"
    assert result.error == "LimitExceeded: the step limit (5,000) was exceeded at line 4"
    assert "line 5, col 1, in <script>" in result.traceback
    assert "line 4, col 9, in spin()" in result.traceback


def test_traceback_through_lambda_and_builtin() -> None:
    result = run("xs = [1, 0]\nys = sorted(xs, key=lambda x: 1 / x)\n")
    assert result.error == "ZeroDivisionError: division by zero"
    assert "line 2, col 1, in <script>" in result.traceback


def test_traceback_from_async_function() -> None:
    result = run("async def work(n):\n    x = n\n    return 10 // n\nawait work(0)")
    assert result.error == "ZeroDivisionError: integer division or modulo by zero"
    assert "line 3, col 5, in work()" in result.traceback
    assert "line 4, col 1, in <script>" in result.traceback


@pytest.mark.parametrize("body, message, line", [
    ("d = {'a': 1}\nfor k in d.keys():\n    d[k * 2] = 0", "RuntimeError: dictionary changed size during iteration", 2),
    ("s = {1}\nn = 0\nfor x in s:\n    s.add(x + 1)", "RuntimeError: Set changed size during iteration", 3),
    ("def prune(d):\n    return {k: d.pop(k) for k in d}\nprune({'a': 1, 'b': 2})", "RuntimeError: dictionary changed size during iteration", 2),
])
def test_traceback_of_changed_size_during_iteration(body: str, message: str, line: int) -> None:
    """Changing what a loop iterates is a script exception naming the loop's line, as in CPython."""
    result = run(body)
    assert result.error == message
    assert f"line {line}, col" in result.traceback
    assert "InternalError" not in result.traceback and "File \"" not in result.traceback


# ---------------------------------------------------------------- catchable versus fatal


FATAL = [
    ("power-limit", "x = 10 ** 10 ** 10", "the power size limit (10,000) was exceeded"),
    ("step-limit", "while True:\n        pass", "the step limit (200,000) was exceeded"),
    ("recursion-limit", "def f():\n        return f()\n    f()", "the recursion limit (200) was exceeded"),
    ("string-limit", "x = 'a' * 10 ** 9", "the string size limit"),
    ("container-limit", "x = [0] * 10 ** 8", "the container size limit"),
    ("misuse", "def hide(v):\n        return v\n    hide('a').encode", "Misuse: `str` has no allowed attribute `encode`"),
]


@pytest.mark.parametrize(("body", "message"), [pytest.param(b, m, id=i) for i, b, m in FATAL])
def test_fatal_errors_are_not_caught(body: str, message: str) -> None:
    result = run(f"""
caught = []
try:
    {body}
except Exception as e:
    caught.append(1)
    return "caught by Exception"
except:
    return "caught by bare except"
finally:
    caught.append(2)
return "finished"
""", SMALL)
    assert result.status == "errored"
    assert message in result.error
    assert "caught" not in result.error


def test_fatal_error_in_parallel_is_not_none() -> None:
    result = run("""
async def work(n):
    if n == 1:
        return 2 ** 100000
    return n
try:
    return await parallel([work(0), work(1), work(2)])
except Exception:
    return "caught"
""")
    assert result.status == "errored"
    assert result.error == "LimitExceeded: the power size limit (10,000) was exceeded at line 3"
    assert "line 3, col 9, in work()" in result.traceback


def test_script_errors_are_values() -> None:
    assert value("""
errors = []
for thunk in [lambda: 1 / 0, lambda: {}["k"]]:
    try:
        thunk()
    except Exception as e:
        errors.append(e)
return [isinstance(errors[0], ZeroDivisionError), isinstance(errors[1], KeyError), str(errors[1])]
""") == [True, True, "'k'"]


# ---------------------------------------------------------------- lazy awaitables


def test_ask_is_dispatched_only_when_awaited() -> None:
    port = EchoPort()
    assert value("""
a = agent("a")
b = agent("b")
first = a.ask("one")
second = await b.ask("two")
log("between")
return [await first, second]
""", port=port) == ["one", "two"]
    assert [entry for entry in port.log if entry[0] == "start"] == [("start", "two"), ("start", "one")]


def test_awaitable_never_awaited_never_runs() -> None:
    port = EchoPort()
    assert value("""
a = agent("a")
x = a.ask("never")
y = a.ask("once")
if len(args) > 10:
    await x
return await y
""", port=port) == "once"
    assert port.turns == 1


def test_awaitable_awaited_twice_runs_once() -> None:
    port = EchoPort()
    assert value("""
a = agent("a")
x = a.ask("hello")
first = await x
second = await x
both = await parallel([x, x])
return [first, second, both]
""", port=port) == ["hello", "hello", ["hello", "hello"]]
    assert port.turns == 1


def test_awaitable_awaited_concurrently_runs_once() -> None:
    port = EchoPort(delays={"slow": 0.2})
    assert value("""
x = agent("a").ask("slow")
return await parallel([x, x])
""", port=port) == ["slow", "slow"]
    assert port.turns == 1


def test_awaitable_cancelled_by_a_strict_join_fails_later_awaits() -> None:
    """A sibling cancelled by `gather` does not leak its cancellation into a later await."""
    port = EchoPort(fail=lambda request: request.instructions == "bad", delays={"slow": 0.5})
    result = run("""
x = agent("a").ask("slow")
try:
    await gather(x, agent("b").ask("bad"))
except AskFailed:
    pass
try:
    return await x
except WorkflowError as e:
    return str(e)
""", port=port)
    assert result.status == "completed", result.error
    assert result.value == "ask ask#1 was cancelled before it finished"


def test_async_function_call_is_lazy_and_runs_once() -> None:
    assert value("""
calls = []
async def work(n):
    calls.append(n)
    return n * 10
pending = work(1)
before = list(calls)
result = await pending
again = await pending
return [before, result, again, calls]
""") == [[], 10, 10, [1]]


def test_failed_awaitable_raises_each_time() -> None:
    port = EchoPort(fail=lambda request: True)
    assert value("""
a = agent("a")
x = a.ask("boom")
out = []
for _ in range(2):
    try:
        await x
    except AskFailed as e:
        out.append("failed")
return out
""", port=port) == ["failed", "failed"]
    assert port.turns == 1


def test_awaits_inside_assignment_targets() -> None:
    """Subscript targets whose container or index awaits are evaluated when the value is
    stored (never a coroutine object used as a key)."""
    assert value("""
async def v(x):
    return x
d = {}
d[await v("k")] = 1
l = [[1], [2]]
l[await v(0)][0] = 5
a, l[await v(1)] = 7, 8
l[await v(1)] = [await v(9)]
for d[await v("loop")] in [10, 20]:
    pass
del d[await v("k")]
m = {"x": 1}
m[await v("x")] += 4
return [d, l, a, m, [y for d[await v("c")] in [1] for y in [d["c"]]]]
""") == [{"loop": 20, "c": 1}, [[5], [9]], 7, {"x": 5}, [1]]


def test_awaits_in_every_expression_position() -> None:
    assert value("""
async def v(x):
    return x
def f(*a, **k):
    return [a, k]
n = 0
while await v(n < 3):
    n += await v(1)
out = [
    await v(5) if await v(True) else 0, (await v(1)) + (await v(2)), not await v(0), [await v(1), *await v([2, 3])],
    f(await v(1), *await v([2]), k=await v(3), **await v({"z": 1})), f"{await v(1)}-{await v('a')!r:>5}",
    {await v("a"): await v(1)}, [await v(i) for i in range(3) if await v(i != 1)], (m := await v(4)) + m, n,
    (await v("abc"))[await v(1):], (await v([1, 2]))[await v(0)],
]
assert await v(True), await v("message")
try:
    raise await v(ValueError("raised"))
except ValueError as e:
    out.append(str(e))
return out
""") == [5, 3, True, [1, 2, 3], [[1, 2], {"k": 3, "z": 1}], "1-  'a'", {"a": 1}, [0, 2], 8, 3, "bc", 1, "raised"]


# ---------------------------------------------------------------- joins


def test_parallel_keeps_input_order() -> None:
    port = EchoPort(delays={"slow": 0.3, "mid": 0.1})
    assert value("""
items = ["slow", "fast", "mid"]
return await parallel(agent().ask(item) for item in items)
""", port=port) == ["slow", "fast", "mid"]
    ends = [text for event, text in port.log if event == "end"]
    assert ends == ["fast", "mid", "slow"]  # they really ran concurrently


def test_parallel_failures_become_none() -> None:
    port = EchoPort(fail=lambda request: "bad" in request.instructions)
    assert value("""
async def check(n):
    if n == 3:
        raise ValueError("three")
    return n
asks = [agent().ask(t) for t in ["ok-1", "bad-2", "ok-3"]]
return [await parallel(asks), await parallel([check(1), check(3), check(4)]), await parallel([])]
""", port=port) == [["ok-1", None, "ok-3"], [1, None, 4], []]


def test_parallel_accepts_any_iterable() -> None:
    assert value("""
async def f(x):
    return x + 1
return [await parallel(map(f, [1, 2])), await parallel((f(i) for i in range(2))), await parallel(tuple([f(5)]))]
""") == [[2, 3], [1, 2], [6]]


def test_parallel_rejects_non_awaitables() -> None:
    result = run("x = [1, 2]\nawait parallel(x)")
    assert result.status == "errored"
    assert "parallel() needs awaitables" in result.error


def test_gather_is_strict() -> None:
    port = EchoPort(fail=lambda request: request.instructions == "bad", delays={"slow": 0.5})
    assert value("""
ok = await gather(agent().ask("a"), agent().ask("b"))
try:
    await gather(agent().ask("slow"), agent().ask("bad"))
except AskFailed as e:
    return [ok, "strict", str(e).startswith("ask#")]
""", port=port) == [["a", "b"], "strict", True]
    # The slow sibling was cancelled, not awaited to the end.
    assert ("end", "slow") not in port.log


def test_gather_star_args() -> None:
    assert value("""
async def f(x):
    return x * 2
return await gather(*[f(i) for i in range(4)])
""") == [0, 2, 4, 6]


def test_pipeline_has_no_barrier() -> None:
    """Item 1 runs both stages while item 0 is still in its first stage."""
    port = EchoPort(delays={"s1-0": 0.6})

    result = run("""
async def first(previous, item, index):
    return await agent().ask(f"s1-{item}")

async def second(previous, item, index):
    return await agent().ask(f"s2-{item}<-{previous}")

return await pipeline([0, 1], first, second)
""", port=port)
    assert result.status == "completed", result.error
    assert result.value == ["s2-0<-s1-0", "s2-1<-s1-1"]
    order = port.log
    assert order.index(("end", "s2-1<-s1-1")) < order.index(("end", "s1-0"))
    assert order.index(("start", "s1-0")) < order.index(("start", "s2-1<-s1-1"))


def test_pipeline_stage_arguments_and_failures() -> None:
    assert value("""
async def stage1(previous, item, index):
    if item == "b":
        raise ValueError("no b")
    return [previous, item, index]

def stage2(previous, item, index):
    return previous + [index * 10]

return await pipeline(["a", "b", "c"], stage1, stage2, lambda p, i, n: p + ["done"])
""") == [["a", "a", 0, 0, "done"], None, ["c", "c", 2, 20, "done"]]


def test_pipeline_fatal_error_propagates() -> None:
    result = run("""
def stage(previous, item, index):
    return "x" * 10 ** 9
try:
    return await pipeline([1], stage)
except Exception:
    return "caught"
""")
    assert result.status == "errored"
    assert result.error.startswith("LimitExceeded: the string size limit")


def test_pipeline_ask_failure_becomes_none() -> None:
    port = EchoPort(fail=lambda request: request.instructions == "2")
    assert value("""
async def ask(previous, item, index):
    return await agent().ask(str(item))
return await pipeline([1, 2, 3], ask)
""", port=port) == ["1", None, "3"]


# ---------------------------------------------------------------- records and facade values


def test_records_attributes_and_json() -> None:
    world = FakeWorld()
    result = run("""
r = await world.run("echo", ["hi", "there"])
matches = await files.grep("x")
status = await git.status()
commits = await git.log()
first = matches[0]
return {
    "exit": r.exit_code, "out": r.stdout, "err": r.stderr, "record": r,
    "match": [first.path, first.line, first.text], "branch": status.branch, "clean": status.clean,
    "subject": commits[0].subject, "repr": repr(r), "is_dict": isinstance(r, dict),
}
""", world=world)
    assert result.status == "completed", result.traceback
    assert result.value == {
        "exit": 0, "out": "hi there", "err": "", "record": {"exit_code": 0, "stdout": "hi there", "stderr": ""},
        "match": ["a.py", 1, "x = 1"], "branch": "main", "clean": False, "subject": "first",
        "repr": "RunResult(exit_code=0, stdout='hi there', stderr='')", "is_dict": False,
    }


def test_agent_name_attribute() -> None:
    assert value('a = agent("reviewer")\nb = agent()\nreturn [a.name, b.name, repr(a)]') == ["reviewer", None, "<agent reviewer>"]


def test_world_error_is_catchable() -> None:
    assert value("""
try:
    await files.read("nope.txt")
except WorldError as e:
    return ["world", str(e)]
""", world=FakeWorld()) == ["world", "no such file: nope.txt"]


def test_typed_ask_returns_json_data() -> None:
    port = EchoPort(respond=lambda request: {"path": "a.py", "count": 2})
    assert value("""
from typing import TypedDict
class Item(TypedDict):
    path: str
    count: int
item = await agent().ask("find", returns=Item)
return [item["path"], item["count"] + 1]
""", port=port) == ["a.py", 3]


def test_budget_and_log_facade() -> None:
    assert value('log("hello")\nreturn [budget.total, budget.spent(), budget.remaining()]', budget=100) == [100, 0, 100]
