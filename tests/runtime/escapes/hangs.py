"""Hangs (issue #19, "No hangs"): single steps that took seconds or minutes while they were
charged one step, so a loop of them ran for days within the step limit. Each now ends at the
step limit (or is answered at once): work is charged by the sizes it depends on — characters of
strings met through aliased lists, bits of integers, the items of a method's argument, the key
results a sort compares — and where no size predicts the cost (a regex that backtracks) by the
time it took. Each case here would run far past the test's timeout without that charge."""

from dwf.runtime.interpreter.limits import Limits
from escape_kinds import LIMIT, SMALL, error, safe_value

STEPS = LIMIT + "the step limit"
MEDIUM = Limits(steps=2_000_000)
SLOW_REGEX = Limits(steps=200_000, regex_timeout_s=5.0)  # each match stays under the time limit
BIG = "s = 'ab' * (8 * 1024 * 1024 - 10)\n"  # just under the 16 MiB string size limit
KEY = "k = tuple(range(10 ** 5))\n"  # hashed in full at every lookup: CPython caches no tuple's hash
NESTED_KEY = "leaf = tuple(range(5000))\nk = tuple([leaf] * 190)\n"  # 190 items, 950,000 through all paths
DEEP_KEY = "leaf = tuple(range(4000))\nk = leaf\nfor i in range(150):\n    k = (k, leaf)\n"  # 150 deep, 600,000 paths
DAGS = "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\n"  # 2**60 paths each

CORPUS = [
    # ---- integers: CPython's big-int work is quadratic (or worse) in the digits
    safe_value("round-huge-negative-digits", "return [round(5, -10 ** 8), round(-7, -10 ** 18), round(10 ** 20, -19)]",
               [0, 0, 100000000000000000000]),
    error("pow-modular-10000-bits", "b = 2 ** 9999 + 12345\nm = 2 ** 9999 + 7\nreturn pow(b - 3, b, m)", STEPS, SMALL, line=3),
    error("pow-modular-loop", "b = 2 ** 4000 + 1\nm = 2 ** 4000 + 7\nwhile True:\n    pow(b, b, m)", STEPS, MEDIUM, line=4),
    error("int-power-loop", "while True:\n    x = 3 ** 6000", STEPS, MEDIUM, line=2),
    error("int-floordiv-loop", "x = 3 ** 6000\ny = 7 ** 2500\nwhile True:\n    q = x // y", STEPS, MEDIUM, line=4),
    error("int-mod-loop", "x = 3 ** 6000\ny = 7 ** 2500\nwhile True:\n    q = x % y", STEPS, MEDIUM, line=4),
    error("int-divmod-loop", "x = 3 ** 6000\ny = 7 ** 2500\nwhile True:\n    q = divmod(x, y)", STEPS, MEDIUM, line=4),
    error("int-multiply-loop", "x = 3 ** 3000\nwhile True:\n    y = x * x", STEPS, MEDIUM, line=3),
    error("int-str-loop", "x = 3 ** 6000\nwhile True:\n    t = str(x)", STEPS, MEDIUM, line=3),
    error("int-fstring-loop", "x = 3 ** 6000\nwhile True:\n    t = f'{x}'", STEPS, MEDIUM, line=3),
    error("int-percent-loop", "x = 3 ** 6000\nwhile True:\n    t = '%d' % x", STEPS, MEDIUM, line=3),
    error("int-parse-loop", "t = '7' * 4300\nwhile True:\n    x = int(t)", STEPS, MEDIUM, line=3),
    error("int-json-loop", "import json\nxs = [3 ** 6000] * 1000\nwhile True:\n    json.dumps(xs)", STEPS, MEDIUM, line=4),
    # ---- a 16 MiB string held a million times: C compares or scans every character each time
    error("big-strings-sorted", BIG + "xs = [s] * 10 ** 6\nreturn len(sorted(xs))", STEPS, SMALL, line=3),
    error("big-strings-sort-method", BIG + "xs = [s] * 10 ** 6\nxs.sort()", STEPS, SMALL, line=3),
    error("big-strings-compared", BIG + "t = s[:-1] + 'c'\nxs = [s] * 10 ** 6\nys = [t] * 10 ** 6\nreturn xs == ys", STEPS, line=5),
    error("big-strings-in", BIG + "t = s[:-1] + 'c'\nxs = [s] * 10 ** 6\nreturn t in xs", STEPS, line=4),
    error("big-strings-count", BIG + "t = s[:-1] + 'c'\nxs = [s] * 10 ** 6\nreturn xs.count(t)", STEPS, line=4),
    error("big-strings-index", BIG + "t = s[:-1] + 'c'\nxs = [s] * (10 ** 6 - 1) + [t]\nreturn xs.index(t)", STEPS, line=4),
    error("big-strings-max", BIG + "t = s[:-1] + 'c'\nreturn max([s] * (10 ** 6 - 1) + [t])", STEPS, line=3),
    error("big-strings-set", BIG + "xs = [s[1:], s[2:]] * 10 ** 5\nreturn len(set(xs))", STEPS, line=3),
    # ---- key= results are compared by C too: aliased lists as keys walk 2**60 paths
    error("dag-key-sorted", DAGS + "return sorted([0, 1], key=lambda i: [a, b][i])", STEPS, line=6),
    error("dag-key-sort-method", DAGS + "xs = [0, 1]\nxs.sort(key=lambda i: [a, b][i])", STEPS, line=7),
    error("dag-key-max", DAGS + "return max([0, 1], key=lambda i: [a, b][i])", STEPS, line=6),
    error("dag-key-min", DAGS + "return min([0, 1], key=lambda i: [a, b][i])", STEPS, line=6),
    safe_value("small-keys-still-sort", "return sorted(['b', 'A', 'c'], key=str.lower) + [max([3, 1, 2], key=lambda x: -x)]",
               ["A", "b", "c", 1]),
    # ---- a method charged for its receiver only: an empty receiver and a big argument
    error("set-isdisjoint-big-argument", "big = list(range(10 ** 6))\nwhile True:\n    set().isdisjoint(big)", STEPS, SMALL, line=3),
    error("set-issubset-big-argument", "big = list(range(10 ** 6))\nwhile True:\n    set().issubset(big)", STEPS, SMALL, line=3),
    error("set-union-big-argument", "big = list(range(10 ** 6))\nwhile True:\n    set().union(big)", STEPS, SMALL, line=3),
    error("join-many-pieces", "xs = ['ab'] * 10 ** 6\nwhile True:\n    ''.join(xs)", STEPS, SMALL, line=3),
    # ---- a tuple key is hashed in full at every lookup (CPython caches only a str's hash)
    error("tuple-key-lookup-loop", "t = tuple(range(10 ** 6))\nd = {}\nwhile True:\n    t in d", STEPS, SMALL, line=4),
    error("tuple-key-store-loop", KEY + "d = {}\nwhile True:\n    d[k] = 1", STEPS, SMALL, line=4),
    error("tuple-key-subscript-loop", KEY + "d = {k: 1}\nwhile True:\n    d[k]", STEPS, SMALL, line=4),
    error("tuple-key-augmented-loop", KEY + "d = {k: 1}\nwhile True:\n    d[k] += 1", STEPS, SMALL, line=4),
    error("tuple-key-delete-loop", KEY + "d = {}\nwhile True:\n    d[k] = 1\n    del d[k]", STEPS, SMALL, line=4),
    error("tuple-key-dict-display-loop", KEY + "while True:\n    d = {k: 1}", STEPS, SMALL, line=3),
    error("tuple-key-set-display-loop", KEY + "while True:\n    s = {k}", STEPS, SMALL, line=3),
    error("tuple-key-dict-comprehension-loop", KEY + "while True:\n    d = {k: 1 for _ in range(2)}", STEPS, SMALL, line=3),
    error("tuple-key-set-comprehension-loop", KEY + "while True:\n    s = {k for _ in range(2)}", STEPS, SMALL, line=3),
    error("tuple-key-set-add-loop", KEY + "s = set()\nwhile True:\n    s.add(k)", STEPS, SMALL, line=4),
    error("tuple-key-set-discard-loop", KEY + "s = set()\nwhile True:\n    s.discard(k)", STEPS, SMALL, line=4),
    error("tuple-key-dict-get-loop", KEY + "d = {}\nwhile True:\n    d.get(k)", STEPS, SMALL, line=4),
    error("tuple-key-dict-setdefault-loop", KEY + "d = {}\nwhile True:\n    d.setdefault(k, 0)", STEPS, SMALL, line=4),
    error("tuple-key-dict-pop-loop", KEY + "d = {}\nwhile True:\n    d.pop(k, None)", STEPS, SMALL, line=4),
    error("tuple-keys-set-of-list-loop", KEY + "ks = [k] * 1000\nwhile True:\n    set(ks)", STEPS, SMALL, line=4),
    error("tuple-keys-fromkeys-loop", KEY + "ks = [k] * 1000\nwhile True:\n    dict.fromkeys(ks)", STEPS, SMALL, line=4),
    error("tuple-keys-counter-loop", "import collections\n" + KEY + "ks = [k] * 1000\nwhile True:\n    collections.Counter(ks)",
          STEPS, SMALL, line=5),
    error("nested-tuple-key-loop", NESTED_KEY + "d = {}\nwhile True:\n    d[k] = 1", STEPS, SMALL, line=5),
    error("deep-tuple-key-loop", DEEP_KEY + "s = set()\nwhile True:\n    s.add(k)", STEPS, SMALL, line=7),
    error("frozenset-key-loop", "k = frozenset(range(10 ** 5))\nj = frozenset(range(10 ** 5))\nd = {k: 1}\nwhile True:\n"
          "    d[j]", STEPS, SMALL, line=5),
    safe_value("small-tuple-keys-still-work", "d = {(1, 2): 'a'}\nd[(3, (4, 5))] = 'b'\ns = {(1, 2)}\ns.add((6,))\n"
               "return [d[(1, 2)], d.get((3, (4, 5))), (6,) in s, len({(i, i) for i in range(3)})]", ["a", "b", True, 3]),
    # ---- a regular expression just under the time limit, caught and retried: its time is charged
    error("regex-under-time-limit-loop", "import re\ns = 'a' * 16 + 'b'\nwhile True:\n    re.match('(a*)*$', s)",
          STEPS, SLOW_REGEX, line=4),
    error("regex-under-time-limit-caught", "import re\ns = 'a' * 28 + 'b'\nwhile True:\n    try:\n"
          "        re.fullmatch('(a|aa)*c', s)\n    except Exception:\n        pass", STEPS, SLOW_REGEX, line=5),
]
