"""Differential snippets for `collections`: Counter, defaultdict, OrderedDict, deque and
namedtuple, the way workflows use them (counting findings, grouping files, queues of work) plus
their edge cases and error messages."""

SNIPPETS: list[tuple[str, str]] = [
    # ---- Counter: building and reading
    ("counter-from-string", "from collections import Counter\nreturn Counter('abracadabra')"),
    ("counter-from-list", "from collections import Counter\nreturn Counter(['high', 'low', 'high', 'medium', 'high'])"),
    ("counter-from-mapping", "from collections import Counter\nreturn Counter({'a': 3, 'b': -1})"),
    ("counter-from-kwargs", "from collections import Counter\nreturn Counter(cats=4, dogs=8)"),
    ("counter-empty", "from collections import Counter\nc = Counter()\nreturn [c, len(c), repr(c), bool(c)]"),
    ("counter-missing-is-zero", "from collections import Counter\nc = Counter('aab')\nreturn [c['a'], c['z'], 'z' in c, len(c)]"),
    ("counter-module-import", "import collections\nc = collections.Counter('hello')\nreturn c.most_common(1)"),
    ("counter-import-as", "import collections as co\nreturn co.Counter([1, 1, 2])[1]"),
    ("counter-severity-report", """
from collections import Counter
findings = [
    {"path": "a.py", "severity": "high"}, {"path": "b.py", "severity": "low"},
    {"path": "a.py", "severity": "medium"}, {"path": "c.py", "severity": "high"},
]
by_severity = Counter(f["severity"] for f in findings)
by_file = Counter(f["path"] for f in findings)
lines = [f"{sev}: {n}" for sev, n in by_severity.most_common()]
return [lines, by_file.most_common(1), by_severity["critical"]]
"""),
    ("counter-most-common", "from collections import Counter\nc = Counter('abracadabra')\nreturn [c.most_common(), c.most_common(3), c.most_common(0), c.most_common(-1), c.most_common(100)]"),
    ("counter-most-common-ties", "from collections import Counter\nreturn Counter(['b', 'a', 'c', 'a', 'b', 'c']).most_common(2)"),
    ("counter-increment", "from collections import Counter\nc = Counter()\nfor word in 'the cat and the hat'.split():\n    c[word] += 1\nreturn c"),
    ("counter-update-iterable", "from collections import Counter\nc = Counter('ab')\nc.update('abc')\nreturn c"),
    ("counter-update-mapping", "from collections import Counter\nc = Counter(a=1)\nc.update({'a': 2, 'b': 5})\nc.update(b=1)\nreturn c"),
    ("counter-update-none", "from collections import Counter\nc = Counter(a=1)\nc.update()\nc.update(None)\nreturn c"),
    ("counter-subtract", "from collections import Counter\nc = Counter(a=4, b=2, c=0, d=-2)\nc.subtract(Counter(a=1, b=2, c=3, d=4))\nreturn c"),
    ("counter-subtract-iterable", "from collections import Counter\nc = Counter('aaa')\nc.subtract('ab')\nreturn [c, c['b']]"),
    ("counter-elements", "from collections import Counter\nc = Counter(a=2, b=0, c=-1, d=3)\nreturn sorted(c.elements())"),
    ("counter-elements-order", "from collections import Counter\nreturn list(Counter('abab').elements())"),
    ("counter-total", "from collections import Counter\nreturn [Counter('aabbbc').total(), Counter().total(), Counter(a=-3, b=1).total()]"),
    ("counter-add-sub", "from collections import Counter\na = Counter(x=3, y=1)\nb = Counter(x=1, y=2, z=4)\nreturn [a + b, a - b, b - a]"),
    ("counter-and-or", "from collections import Counter\na = Counter(x=3, y=1)\nb = Counter(x=1, y=2, z=4)\nreturn [a & b, a | b]"),
    ("counter-unary", "from collections import Counter\nc = Counter(a=2, b=-3, c=0)\nreturn [+c, -c]"),
    ("counter-inplace-alias", "from collections import Counter\na = Counter(x=1)\nalias = a\na += Counter(x=2, y=1)\na -= Counter(y=5)\nreturn [alias, a == alias]"),
    ("counter-inplace-or-and", "from collections import Counter\na = Counter(x=1, y=4)\na |= Counter(x=3)\nb = Counter(x=5, y=1)\nb &= Counter(x=2, y=3)\nreturn [a, b]"),
    ("counter-add-dict-error", "from collections import Counter\ntry:\n    return Counter(a=1) + {'a': 1}\nexcept TypeError as e:\n    return str(e)"),
    ("counter-equality", "from collections import Counter\nreturn [Counter('ab') == Counter('ba'), Counter(a=1) == Counter(a=1, b=0), Counter(a=1) == {'a': 1}, Counter(a=1) != Counter(a=2)]"),
    ("counter-inclusion", "from collections import Counter\nsmall = Counter(a=1)\nbig = Counter(a=2, b=1)\nreturn [small <= big, small < big, big >= small, big > big, small <= small]"),
    ("counter-isinstance-dict", "from collections import Counter\nc = Counter('ab')\nreturn [isinstance(c, dict), isinstance(c, Counter), isinstance({}, Counter), isinstance(c, list)]"),
    ("counter-json", "import json\nfrom collections import Counter\nreturn json.dumps(Counter(['x', 'y', 'x']), sort_keys=True)"),
    ("counter-dict-methods", "from collections import Counter\nc = Counter('banana')\nreturn [sorted(c.keys()), sorted(c.values()), c.get('n'), c.get('q', -1), c.pop('b'), c]"),
    ("counter-copy-independent", "from collections import Counter\nc = Counter('aa')\nd = c.copy()\nd['a'] += 1\nreturn [c, d, isinstance(d, Counter)]"),
    ("counter-del-and-setdefault", "from collections import Counter\nc = Counter('abc')\ndel c['a']\nc.setdefault('z', 7)\nreturn c"),
    ("counter-dict-conversion", "from collections import Counter\nc = Counter('aab')\nreturn [dict(c), {**c}, list(c.items()), sorted(c)]"),
    ("counter-repr-str", "from collections import Counter\nc = Counter(['x', 'y', 'y'])\nreturn [repr(c), str(c), f'{c}']"),
    ("counter-repr-unorderable", "from collections import Counter\nreturn repr(Counter({'a': 'x', 'b': 1}))"),
    ("counter-unhashable", "from collections import Counter\ntry:\n    Counter([[1], [2]])\nexcept TypeError as e:\n    return str(e)"),
    ("counter-not-iterable", "from collections import Counter\ntry:\n    Counter(5)\nexcept TypeError as e:\n    return str(e)"),
    ("counter-max-by-count", "from collections import Counter\nc = Counter('mississippi')\nreturn [max(c, key=c.get), sorted(c, key=lambda k: (-c[k], k))]"),
    ("counter-of-tuples", "from collections import Counter\npairs = [('a.py', 3), ('b.py', 3), ('a.py', 3)]\nreturn Counter(pairs).most_common()"),
    ("counter-sum-of-counters", "from collections import Counter\nparts = [Counter('ab'), Counter('bc'), Counter('c')]\nreturn sum(parts, Counter())"),
    ("counter-in-loop-over-dirs", """
from collections import Counter
paths = ["src/a.py", "src/b.py", "tests/test_a.py", "docs/x.md", "src/c/d.py"]
per_dir = Counter(p.split("/")[0] for p in paths)
exts = Counter(p.rsplit(".", 1)[-1] for p in paths)
return [per_dir, exts.most_common(1)[0]]
"""),
    # ---- defaultdict
    ("defaultdict-list-grouping", """
from collections import defaultdict
files = ["src/a.py", "src/b.py", "tests/t.py", "README.md"]
by_dir = defaultdict(list)
for f in files:
    head = f.split("/")[0] if "/" in f else "."
    by_dir[head].append(f)
return [dict(by_dir), sorted(by_dir)]
"""),
    ("defaultdict-int", "from collections import defaultdict\nd = defaultdict(int)\nfor ch in 'hello':\n    d[ch] += 1\nreturn d"),
    ("defaultdict-set", "from collections import defaultdict\nd = defaultdict(set)\nfor k, v in [('a', 1), ('a', 1), ('b', 2)]:\n    d[k].add(v)\nreturn [sorted(d), d['a'], d['b']]"),
    ("defaultdict-dict", "from collections import defaultdict\nd = defaultdict(dict)\nd['x']['y'] = 1\nreturn d"),
    ("defaultdict-lambda", "from collections import defaultdict\nd = defaultdict(lambda: 'unknown')\nreturn [d['k'], d, len(d)]"),
    ("defaultdict-script-function", "from collections import defaultdict\ndef fresh():\n    return {'count': 0, 'paths': []}\nd = defaultdict(fresh)\nd['a']['count'] += 1\nd['a']['paths'].append('x')\nreturn dict(d)"),
    ("defaultdict-nested", "from collections import defaultdict\ntree = defaultdict(lambda: defaultdict(int))\ntree['src']['py'] += 2\ntree['docs']['md'] += 1\nreturn {k: dict(v) for k, v in tree.items()}"),
    ("defaultdict-none-factory", "from collections import defaultdict\nd = defaultdict(None, {'a': 1})\ntry:\n    d['missing']\nexcept KeyError as e:\n    return [repr(e), d.default_factory, d]"),
    ("defaultdict-get-does-not-insert", "from collections import defaultdict\nd = defaultdict(list)\nv = d.get('x')\nin_before = 'x' in d\nd['y']\nreturn [v, in_before, 'y' in d, list(d)]"),
    ("defaultdict-initial-data", "from collections import defaultdict\nd = defaultdict(list, {'a': [1]}, b=[2])\nd['a'].append(3)\nreturn d"),
    ("defaultdict-from-pairs", "from collections import defaultdict\nreturn defaultdict(int, [('a', 1), ('b', 2)])"),
    ("defaultdict-repr-types", "from collections import defaultdict, Counter\nreturn [repr(defaultdict(int)), repr(defaultdict(set, {'a': {1}})), repr(defaultdict(None)), repr(defaultdict(Counter))]"),
    ("defaultdict-isinstance", "from collections import defaultdict\nd = defaultdict(list)\nreturn [isinstance(d, dict), isinstance(d, defaultdict), d == {}, d.default_factory == list]"),
    ("defaultdict-bad-factory", "from collections import defaultdict\ntry:\n    defaultdict([])\nexcept TypeError as e:\n    return str(e)"),
    ("defaultdict-copy", "from collections import defaultdict\nd = defaultdict(list, a=[1])\ne = d.copy()\ne['b'].append(2)\nreturn [d, e, isinstance(e, defaultdict)]"),
    ("defaultdict-json", "import json\nfrom collections import defaultdict\nd = defaultdict(list)\nd['x'].append(1)\nreturn json.dumps(d)"),
    ("defaultdict-merge-operator", "from collections import defaultdict\nd = defaultdict(int, a=1)\ne = d | {'b': 2}\ne['c'] += 1\nreturn [e, isinstance(e, defaultdict)]"),
    ("defaultdict-factory-error", "from collections import defaultdict\nd = defaultdict(lambda: 1 // 0)\ntry:\n    d['x']\nexcept ZeroDivisionError as e:\n    return [str(e), len(d)]"),
    # ---- OrderedDict
    ("ordereddict-basic", "from collections import OrderedDict\nod = OrderedDict()\nod['b'] = 1\nod['a'] = 2\nreturn [list(od), od, repr(od)]"),
    ("ordereddict-move-to-end", "from collections import OrderedDict\nod = OrderedDict([(k, None) for k in 'abcde'])\nod.move_to_end('b')\nod.move_to_end('e', last=False)\nreturn ''.join(od)"),
    ("ordereddict-move-missing", "from collections import OrderedDict\nod = OrderedDict(a=1)\ntry:\n    od.move_to_end('z')\nexcept KeyError as e:\n    return repr(e)"),
    ("ordereddict-popitem", "from collections import OrderedDict\nod = OrderedDict([('a', 1), ('b', 2), ('c', 3)])\nreturn [od.popitem(), od.popitem(last=False), od]"),
    ("ordereddict-popitem-empty", "from collections import OrderedDict\ntry:\n    OrderedDict().popitem()\nexcept KeyError as e:\n    return [str(e), repr(e)]"),
    ("ordereddict-equality", "from collections import OrderedDict\na = OrderedDict([('x', 1), ('y', 2)])\nb = OrderedDict([('y', 2), ('x', 1)])\nreturn [a == b, a == dict(b), dict(a) == dict(b), a != b]"),
    ("ordereddict-repr-empty", "from collections import OrderedDict\nreturn [repr(OrderedDict()), str(OrderedDict(a=1))]"),
    ("ordereddict-lru", """
from collections import OrderedDict
cache = OrderedDict()
def touch(key):
    if key in cache:
        cache.move_to_end(key)
    cache[key] = True
    if len(cache) > 2:
        cache.popitem(last=False)
for k in ["a", "b", "a", "c", "d", "a"]:
    touch(k)
return list(cache)
"""),
    ("ordereddict-isinstance-json", "import json\nfrom collections import OrderedDict\nod = OrderedDict(z=1, a=2)\nreturn [isinstance(od, dict), json.dumps(od)]"),
    ("ordereddict-merge", "from collections import OrderedDict\nod = OrderedDict(a=1) | {'b': 2}\nreturn [repr(od), isinstance(od, OrderedDict)]"),
    # ---- deque
    ("deque-queue", """
from collections import deque
queue = deque(["src", "tests"])
visited = []
tree = {"src": ["src/a", "src/b"], "src/a": [], "src/b": ["src/b/c"], "tests": [], "src/b/c": []}
while queue:
    node = queue.popleft()
    visited.append(node)
    queue.extend(tree[node])
return visited
"""),
    ("deque-maxlen-tail", "from collections import deque\nlast = deque(maxlen=3)\nfor line in ['l1', 'l2', 'l3', 'l4', 'l5']:\n    last.append(line)\nreturn [list(last), last.maxlen, repr(last)]"),
    ("deque-both-ends", "from collections import deque\nd = deque([2, 3])\nd.appendleft(1)\nd.append(4)\nd.extendleft([0, -1])\nreturn [list(d), d.pop(), d.popleft(), list(d)]"),
    ("deque-rotate", "from collections import deque\nd = deque(range(5))\nd.rotate(2)\nfirst = list(d)\nd.rotate(-3)\nreturn [first, list(d)]"),
    ("deque-indexing", "from collections import deque\nd = deque('abcde')\nd[0] = 'A'\ndel d[1]\nreturn [d[0], d[-1], list(d), len(d), 'c' in d]"),
    ("deque-index-count-remove", "from collections import deque\nd = deque([1, 2, 3, 2, 1])\nd.remove(2)\nreturn [d.count(1), d.index(3), d.index(1, 1), list(d)]"),
    ("deque-insert-reverse-clear", "from collections import deque\nd = deque([1, 2, 3])\nd.insert(1, 9)\nd.reverse()\nsnapshot = list(d)\nd.clear()\nreturn [snapshot, list(d), bool(d)]"),
    ("deque-repr", "from collections import deque\nreturn [repr(deque()), repr(deque([1, 'a'])), str(deque([], maxlen=0)), repr(deque('ab', 5))]"),
    ("deque-pop-empty", "from collections import deque\ntry:\n    deque().pop()\nexcept IndexError as e:\n    return str(e)"),
    ("deque-popleft-empty", "from collections import deque\ntry:\n    deque().popleft()\nexcept IndexError as e:\n    return str(e)"),
    ("deque-index-error", "from collections import deque\ntry:\n    deque([1])[5]\nexcept IndexError as e:\n    return str(e)"),
    ("deque-remove-missing", "from collections import deque\ntry:\n    deque([1]).remove(7)\nexcept ValueError as e:\n    return str(e)"),
    ("deque-index-missing", "from collections import deque\ntry:\n    deque([1]).index(7)\nexcept ValueError as e:\n    return str(e)"),
    ("deque-negative-maxlen", "from collections import deque\ntry:\n    deque([], -1)\nexcept ValueError as e:\n    return str(e)"),
    ("deque-insert-full", "from collections import deque\nd = deque([1, 2], maxlen=2)\ntry:\n    d.insert(0, 0)\nexcept IndexError as e:\n    return str(e)"),
    ("deque-operators", "from collections import deque\na = deque([1, 2])\nb = a + deque([3])\nc = a * 2\na += [9]\nreturn [list(a), list(b), list(c), deque([1]) == deque([1]), deque([1]) == [1], deque([1, 2]) < deque([1, 3])]"),
    ("deque-maxlen-extend", "from collections import deque\nd = deque(range(10), maxlen=4)\nd.extend('ab')\nd.extendleft('z')\nreturn list(d)"),
    ("deque-copy-sorted-sum", "from collections import deque\nd = deque([3, 1, 2])\ne = d.copy()\ne.append(0)\nreturn [sorted(d), sum(d), max(e), list(reversed(d)), len(e)]"),
    ("deque-mutated-while-iterating", "from collections import deque\nd = deque([1, 2])\nfor x in d:\n    d.append(x)\nreturn list(d)"),
    ("deque-mutated-while-reversed", "from collections import deque\nd = deque([1, 2])\nfirst = list(reversed(d))\nfor x in reversed(d):\n    d.append(x)\nreturn first"),
    ("deque-isinstance", "from collections import deque\nd = deque()\nreturn [isinstance(d, deque), isinstance(d, list), isinstance([], deque)]"),
    ("deque-sliding-window", "from collections import deque\nwindow = deque(maxlen=3)\nsums = []\nfor x in [1, 2, 3, 4, 5]:\n    window.append(x)\n    sums.append(sum(window))\nreturn sums"),
    ("deque-slice-error", "from collections import deque\nd = deque([1, 2])\ntry:\n    return d[0:1]\nexcept TypeError as e:\n    return str(e)"),
    # ---- namedtuple
    ("namedtuple-basic", "from collections import namedtuple\nPoint = namedtuple('Point', ['x', 'y'])\np = Point(1, 2)\nreturn [p.x, p.y, p[0], p[-1], repr(p), list(p), len(p)]"),
    ("namedtuple-string-fields", "from collections import namedtuple\nSpan = namedtuple('Span', 'start end')\nR = namedtuple('R', 'a, b, c')\nreturn [Span(3, 9), R._fields, Span._fields]"),
    ("namedtuple-keywords", "from collections import namedtuple\nHit = namedtuple('Hit', ['path', 'line', 'text'])\nh = Hit(path='a.py', text='TODO', line=3)\nreturn [h, h.line]"),
    ("namedtuple-unpacking", "from collections import namedtuple\nPair = namedtuple('Pair', 'left right')\nleft, right = Pair('a', 'b')\nitems = [Pair(i, i * i) for i in range(3)]\nreturn [left, right, [r for _, r in items], sorted(items, key=lambda p: -p.right)]"),
    ("namedtuple-asdict-replace", "from collections import namedtuple\nP = namedtuple('P', 'x y')\np = P(1, 2)\nq = p._replace(y=5)\nreturn [p._asdict(), q, p, p == (1, 2), q != p]"),
    ("namedtuple-make-defaults", "from collections import namedtuple\nJob = namedtuple('Job', ['name', 'retries', 'timeout'], defaults=[3, 60])\nreturn [Job('build'), Job('test', 1), Job._make(['lint', 0, 5]), Job._field_defaults]"),
    ("namedtuple-equality-hash", "from collections import namedtuple\nP = namedtuple('P', 'x y')\nQ = namedtuple('Q', 'a b')\nseen = {P(1, 2), (1, 2), Q(1, 2)}\nreturn [P(1, 2) == Q(1, 2), len(seen), {P(1, 2): 'v'}[(1, 2)]]"),
    ("namedtuple-isinstance", "from collections import namedtuple\nP = namedtuple('P', 'x')\nQ = namedtuple('Q', 'x')\np = P(1)\nreturn [isinstance(p, tuple), isinstance(p, P), isinstance(p, Q), isinstance((1,), P)]"),
    ("namedtuple-json", "import json\nfrom collections import namedtuple\nP = namedtuple('P', 'x y')\nreturn json.dumps({'p': P(1, [2])})"),
    ("namedtuple-missing-arg", "from collections import namedtuple\nP = namedtuple('P', 'x y z')\ntry:\n    P(1)\nexcept TypeError as e:\n    return str(e)"),
    ("namedtuple-too-many", "from collections import namedtuple\nP = namedtuple('P', 'x y')\ntry:\n    P(1, 2, 3)\nexcept TypeError as e:\n    return str(e)"),
    ("namedtuple-bad-keyword", "from collections import namedtuple\nP = namedtuple('P', 'x y')\ntry:\n    P(1, z=2)\nexcept TypeError as e:\n    return str(e)"),
    ("namedtuple-replace-unknown", "from collections import namedtuple\nP = namedtuple('P', 'x y')\ntry:\n    P(1, 2)._replace(z=3)\nexcept ValueError as e:\n    return str(e)"),
    ("namedtuple-make-wrong-length", "from collections import namedtuple\nP = namedtuple('P', 'x y')\ntry:\n    P._make([1])\nexcept TypeError as e:\n    return str(e)"),
    ("namedtuple-bad-field-names", """
from collections import namedtuple
out = []
for fields in (['x', 'x'], ['_x'], ['class'], ['1a'], 'ok fine'):
    try:
        out.append(namedtuple('T', fields)._fields)
    except ValueError as e:
        out.append(str(e))
return out
"""),
    ("namedtuple-rename", "from collections import namedtuple\nT = namedtuple('T', ['a', 'def', 'a', '_b'], rename=True)\nreturn T._fields"),
    ("namedtuple-missing-attribute", "from collections import namedtuple\nP = namedtuple('P', 'x')\nreturn P(1).z"),
    ("namedtuple-tuple-methods", "from collections import namedtuple\nP = namedtuple('P', 'a b c')\np = P(1, 2, 1)\nreturn [p.count(1), p.index(2), p[1:], p + (4,), max(p)]"),
]

# A defaultdict whose factory is a script function shows DWF's repr of the function: CPython's
# shows its address (`<function <lambda> at 0x7f...>`), which a deterministic run never prints.
SNIPPETS += [
    ("defaultdict-repr-lambda", "from collections import defaultdict\nreturn repr(defaultdict(lambda: 0, {'a': 1}))"),
]
DELIBERATE = {
    "defaultdict-repr-lambda": "defaultdict(<function <lambda>>, {'a': 1})",
}
