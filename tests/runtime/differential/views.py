"""Differential snippets for dict views (`keys()`, `values()`, `items()`): live views of their
dict, set-like keys and items views, identity-compared values views, their reprs, that they
are not lists; and changing a dict or a set while iterating it (`RuntimeError`), directly, through
a view, in comprehensions and in builtins that iterate lazily."""

SNIPPETS: list[tuple[str, str]] = [
    # ---- live: a view sees later insertions and deletions
    ("keys-see-insertion", """
d = {'a': 1}
k = d.keys()
d['b'] = 2
return [list(k), len(k), 'b' in k]
"""),
    ("keys-see-deletion", """
d = {'a': 1, 'b': 2, 'c': 3}
k = d.keys()
del d['b']
d.pop('c')
return [list(k), len(k), 'b' in k]
"""),
    ("values-see-changes", """
d = {'a': 1}
v = d.values()
d['a'] = 10
d['b'] = 20
return [list(v), sum(v), 10 in v, 1 in v]
"""),
    ("items-see-changes", """
d = {'x': 0}
items = d.items()
d['x'] += 5
d['y'] = 1
return [list(items), ('x', 5) in items, ('x', 0) in items]
"""),
    ("views-after-clear", """
d = {'a': 1, 'b': 2}
k, v, i = d.keys(), d.values(), d.items()
d.clear()
return [len(k), len(v), len(i), list(k), bool(k), bool(v)]
"""),
    ("views-after-update-setdefault", """
d = {'a': 1}
k = d.keys()
d.update({'b': 2}, c=3)
d.setdefault('d', 4)
d |= {'e': 5}
return list(k)
"""),
    ("views-after-popitem", """
d = {'a': 1, 'b': 2}
i = d.items()
last = d.popitem()
return [last, list(i)]
"""),
    ("view-of-copy-is-not-live", """
d = {'a': 1}
k = d.copy().keys()
d['b'] = 2
return list(k)
"""),
    ("view-follows-object-not-name", """
d = {'a': 1}
k = d.keys()
d = {'z': 0}
d['y'] = 1
return [list(k), list(d.keys())]
"""),
    ("view-bool-and-len", """
d = {}
k = d.keys()
before = [bool(k), len(k), not k]
d['x'] = 1
return before + [bool(k), len(k), not k]
"""),
    ("view-passed-to-function", """
def count_big(values):
    return len([v for v in values if v > 10])
scores = {'a': 5, 'b': 50}
view = scores.values()
first = count_big(view)
scores['c'] = 99
return [first, count_big(view)]
"""),
    ("view-live-across-loop", """
d = {}
k = d.keys()
sizes = []
for name in ['x', 'y', 'z']:
    d[name] = len(k)
    sizes.append(len(k))
return [sizes, d]
"""),
    ("view-in-list-is-live", """
d = {'a': 1}
views = [d.keys(), d.values()]
d['b'] = 2
return [list(views[0]), list(views[1])]
"""),
    # ---- iteration
    ("for-over-items-unpacking", """
totals = {'a.py': 3, 'b.py': 0, 'c.py': 7}
out = []
for path, count in totals.items():
    if count:
        out.append(f'{path}: {count}')
return out
"""),
    ("for-over-keys-and-values", """
d = {'x': 1, 'y': 2}
return [[k for k in d.keys()], [v * 10 for v in d.values()]]
"""),
    ("comprehension-over-items", """
d = {'a': 1, 'b': 2, 'c': 3}
return [{k: v for k, v in d.items() if v % 2}, {v for v in d.values()}, [(v, k) for k, v in d.items()]]
"""),
    ("enumerate-zip-views", """
d = {'a': 10, 'b': 20}
return [list(enumerate(d.items())), list(zip(d.keys(), d.values())), list(enumerate(d.values(), 1))]
"""),
    ("reversed-views", """
d = {'a': 1, 'b': 2, 'c': 3}
return [list(reversed(d.keys())), list(reversed(d.values())), list(reversed(d.items())), list(reversed(d))]
"""),
    ("reversed-empty-views", "[list(reversed({}.keys())), list(reversed({}.items())), list(reversed({}))]"),
    ("list-tuple-set-of-views", """
d = {'b': 2, 'a': 1}
return [list(d.keys()), tuple(d.values()), set(d.items()), list(d.items())]
"""),
    ("sorted-views", """
d = {'b': 3, 'a': 1, 'c': 2}
return [sorted(d.keys()), sorted(d.values(), reverse=True), sorted(d.items()), sorted(d.items(), key=lambda kv: kv[1])]
"""),
    ("sorted-items-by-value-desc", """
counts = {'bug': 4, 'docs': 1, 'feature': 4, 'test': 2}
ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
return [name for name, _ in ranked[:3]]
"""),
    ("min-max-views", """
d = {'a': 3, 'b': 9, 'c': 1}
return [max(d.values()), min(d.keys()), max(d.items(), key=lambda kv: kv[1]), min(d, key=d.get), max(d.values(), default=0)]
"""),
    ("min-empty-view", "min({}.values())"),
    ("max-empty-view-default", "max({}.values(), default=None)"),
    ("sum-any-all-views", """
d = {'a': 1, 'b': 0, 'c': 2}
return [sum(d.values()), any(d.values()), all(d.values()), all({}.values()), sum(v for v in d.values() if v)]
"""),
    ("join-keys", """
deps = {'requests': '2.0', 'rich': '13'}
return [', '.join(deps.keys()), '\\n'.join(f'{k}=={v}' for k, v in deps.items())]
"""),
    ("join-values-not-str", "d = {'a': 1}\nreturn ''.join(d.values())"),
    ("sum-keys-str", "d = {'a': 1}\nreturn sum(d.keys())"),
    ("unpack-views", """
d = {'first': 1, 'second': 2, 'third': 3}
a, b, c = d.keys()
head, *rest = d.values()
(k1, v1), *_ = d.items()
return [a, b, c, head, rest, k1, v1]
"""),
    ("unpack-view-too-many", "d = {'a': 1, 'b': 2, 'c': 3}\nx, y = d.keys()\nreturn x"),
    ("star-views-in-calls-and-displays", """
def total(*numbers):
    return sum(numbers)
d = {'a': 1, 'b': 2}
return [total(*d.values()), [*d.keys(), *d.values()], (*d.items(),), {*d.keys()}]
"""),
    ("dict-from-items-and-inverted", """
d = {'a': 1, 'b': 2}
return [dict(d.items()), dict(zip(d.values(), d.keys())), {v: k for k, v in d.items()}]
"""),
    ("update-from-other-items", """
base = {'a': 1}
extra = {'b': 2, 'a': 3}
base.update(extra.items())
return base
"""),
    ("extend-update-union-with-views", """
d = {'x': 1, 'y': 2}
names = ['w']
names.extend(d.keys())
s = {'z'}
s.update(d.keys())
return [names, s, s.union(d.values()), {0}.issubset(d.values()), {1}.issubset(d.values())]
"""),
    ("map-filter-over-views", """
d = {'a': -1, 'b': 2, 'c': -3}
return [list(map(abs, d.values())), list(filter(lambda kv: kv[1] > 0, d.items())), list(map(lambda k: k.upper(), d.keys()))]
"""),
    ("dict-from-keys-view", "d = {'a': 1}\nreturn dict(d.keys())"),
    ("nested-dict-views", """
config = {'db': {'host': 'h', 'port': 5432}, 'cache': {'ttl': 60}}
return [sorted(k for section in config.values() for k in section.keys()), [list(s.items()) for s in config.values()]]
"""),
    ("views-of-json-data", """
data = json.loads('{"b": 1, "a": [1, 2]}')
return [list(data.keys()), list(data.values()), 'a' in data.keys()]
"""),
    # ---- membership
    ("in-keys-values-items", """
d = {'a': [1, 2], 'b': None}
return ['a' in d.keys(), 'z' not in d.keys(), [1, 2] in d.values(), None in d.values(), ('a', [1, 2]) in d.items(),
        ('a', [1]) in d.items(), ('a',) in d.items(), 'a' in d.items(), ('z', None) in d.items()]
"""),
    ("in-keys-unhashable", "d = {'a': 1}\nreturn [1] in d.keys()"),
    ("in-items-unhashable-key", "d = {'a': 1}\nreturn ([1], 1) in d.items()"),
    ("in-values-unhashable-ok", "d = {'a': {'x': 1}}\nreturn [{'x': 1} in d.values(), [] in d.values()]"),
    ("in-keys-numeric-equality", "d = {1: 'one', 2.0: 'two'}\nreturn [1.0 in d.keys(), 2 in d.keys(), True in d.keys(), (1, 'one') in d.items(), (1.0, 'one') in d.items()]"),
    # ---- keys views are set-like
    ("keys-difference", """
old = {'a': 1, 'b': 2, 'c': 3}
new = {'b': 2, 'c': 30, 'd': 4}
return [old.keys() - new.keys(), new.keys() - old.keys(), old.keys() - {'a'}, old.keys() - ['a', 'zz'], old.keys() - 'ab']
"""),
    ("keys-intersection", """
old = {'a': 1, 'b': 2, 'c': 3}
new = {'b': 2, 'c': 30, 'd': 4}
return [old.keys() & new.keys(), old.keys() & {'c', 'x'}, old.keys() & ['a', 'a'], sorted(old.keys() & new.keys()), {'a', 'b', 'c', 'd', 'e'} & old.keys()]
"""),
    ("keys-union-symmetric", """
a = {'x': 1, 'y': 2}
b = {'y': 0, 'z': 3}
return [a.keys() | b.keys(), a.keys() ^ b.keys(), a.keys() | ['w'], a.keys() ^ {'x', 'q'}, a.keys() | b]
"""),
    ("keys-operators-reflected", """
d = {'a': 1, 'b': 2}
return [{'a', 'z'} - d.keys(), ['a', 'z'] - d.keys(), {'a', 'z'} & d.keys(), ('a', 'q') & d.keys(), {'z'} | d.keys(),
        ['z'] | d.keys(), {'a', 'z'} ^ d.keys(), 'abz' - d.keys()]
"""),
    ("keys-operators-return-sets", """
d = {'a': 1}
result = d.keys() | {'b'}
result.add('c')
return [isinstance(result, set), sorted(result), isinstance(d.keys() - set(), set), isinstance(d.keys() & d.keys(), set)]
"""),
    ("keys-operators-not-live", """
d = {'a': 1}
union = d.keys() | {'b'}
d['c'] = 3
return [sorted(union), sorted(d.keys() | {'b'})]
"""),
    ("keys-difference-not-iterable", "d = {'a': 1}\nreturn d.keys() - 5"),
    ("keys-reflected-not-iterable", "d = {'a': 1}\nreturn 5 - d.keys()"),
    ("keys-or-not-iterable", "d = {'a': 1}\nreturn d.keys() | None"),
    ("keys-and-not-iterable", "d = {'a': 1}\nreturn d.keys() & 3.5"),
    ("keys-difference-unhashable", "d = {'a': 1}\nreturn d.keys() - [['a']]"),
    ("keys-plus-is-unsupported", "d = {'a': 1}\nreturn d.keys() + ['b']"),
    ("keys-times-is-unsupported", "d = {'a': 1}\nreturn d.keys() * 2"),
    ("keys-equality", """
d = {'a': 1, 'b': 2}
return [d.keys() == {'a', 'b'}, {'b', 'a'} == d.keys(), d.keys() == {'b': 0, 'a': 0}.keys(), d.keys() != {'a'},
        d.keys() == ['a', 'b'], d.keys() == ('a', 'b'), d.keys() == d, d.keys() == d.keys(), d.keys() != d.keys()]
"""),
    ("keys-equality-numeric", "[{1: 'a', 2: 'b'}.keys() == {1.0, 2}, {True: 1}.keys() == {1}, {}.keys() == set()]"),
    ("keys-subset-comparisons", """
d = {'a': 1, 'b': 2}
return [d.keys() <= {'a', 'b'}, d.keys() < {'a', 'b'}, d.keys() < {'a', 'b', 'c'}, d.keys() >= {'a'}, d.keys() > {'a', 'b'},
        {'a'} <= d.keys(), {'a'} < d.keys(), {'a', 'b', 'c'} > d.keys(), d.keys() <= {'a': 0, 'b': 0, 'c': 0}.keys()]
"""),
    ("keys-compare-with-list-raises", "d = {'a': 1}\nreturn d.keys() < ['a', 'b']"),
    ("keys-compare-with-int-raises", "d = {'a': 1}\nreturn d.keys() >= 1"),
    ("keys-equal-to-items", "d = {'a': 1}\nreturn [d.keys() == d.items(), {('a', 1)} == d.items(), d.items() == {('a', 1)}]"),
    ("keys-isdisjoint", """
d = {'a': 1, 'b': 2}
k = d.keys()
return [k.isdisjoint({'c'}), k.isdisjoint(['c', 'a']), k.isdisjoint('xyz'), k.isdisjoint({}.keys()), k.isdisjoint(k),
        {}.keys().isdisjoint({}.keys()), k.isdisjoint({'b': 0}), k.isdisjoint(range(3))]
"""),
    ("keys-isdisjoint-not-iterable", "d = {'a': 1}\nreturn d.keys().isdisjoint(5)"),
    ("keys-isdisjoint-unhashable", "d = {'a': 1}\nreturn d.keys().isdisjoint([[1]])"),
    ("set-augmented-with-view-rebinds", """
d = {'b': 1}
s = {'a'}
alias = s
s |= d.keys()
t = {'a', 'b'}
t_alias = t
t -= d.keys()
return [s, alias, s == alias, t, t_alias, t == t_alias]
"""),
    ("set-augmented-and-xor-with-view", """
d = {'a': 1, 'c': 3}
s = {'a', 'b'}
s &= d.keys()
u = {'a', 'b'}
u ^= d.keys()
return [s, u]
"""),
    ("set-method-with-view", """
d = {'a': 1, 'c': 3}
s = {'a', 'b'}
return [s.intersection(d.keys()), s.difference(d.keys()), s.symmetric_difference(d.keys()), s.isdisjoint(d.keys()), s.issuperset(d.keys())]
"""),
    ("set-operator-with-list-raises", "s = {1}\nreturn s | [2]"),
    ("set-compare-with-list-raises", "s = {1}\nreturn s <= [1]"),
    ("view-augmented-assignment", """
d = {'a': 1}
k = d.keys()
k |= {'b'}
k -= {'a'}
return [k, list(d.keys())]
"""),
    # ---- items views are set-like too
    ("items-set-operators", """
old = {'a': 1, 'b': 2, 'c': 3}
new = {'a': 1, 'b': 20, 'd': 4}
return [old.items() - new.items(), old.items() & new.items(), old.items() | new.items(), old.items() ^ new.items()]
"""),
    ("items-changed-keys", """
before = {'x.py': 'h1', 'y.py': 'h2', 'z.py': 'h3'}
after = {'x.py': 'h1', 'y.py': 'h9', 'w.py': 'h4'}
changed = sorted({path for path, _ in before.items() ^ after.items()})
added = sorted(after.keys() - before.keys())
removed = sorted(before.keys() - after.keys())
return [changed, added, removed]
"""),
    ("items-with-sets-and-lists", """
d = {'a': 1, 'b': 2}
return [d.items() & {('a', 1), ('b', 3)}, d.items() - [('a', 1)], d.items() | [('c', 3)], [('a', 1), ('z', 0)] - d.items()]
"""),
    ("items-comparisons", """
a = {'x': [1], 'y': 2}
b = {'y': 2, 'x': [1]}
return [a.items() == b.items(), a.items() <= b.items(), {'y': 2}.items() < a.items(), a.items() != {'x': [2], 'y': 2}.items(),
        a.items() == {('y', 2)}]
"""),
    ("items-xor-unhashable-equal-values", "[{1: [1]}.items() ^ {1: [1]}.items(), {1: [1], 2: 2}.items() ^ {1: [1]}.items()]"),
    ("items-xor-unhashable-different-values", "return {1: [1]}.items() ^ {1: [2]}.items()"),
    ("items-difference-unhashable", "d = {'a': [1]}\nreturn d.items() - set()"),
    ("items-intersection-unhashable-small", "d = {'a': [1]}\nreturn d.items() & {('a', 1), ('b', 2)}"),
    ("items-intersection-unhashable-large", "d = {'a': [1], 'b': 2, 'c': 3}\nreturn d.items() & {('b', 2), ('x', 0)}"),
    ("items-isdisjoint", """
d = {'a': 1, 'b': [2]}
i = d.items()
return [i.isdisjoint({('a', 2)}), i.isdisjoint([('b', [2])]), i.isdisjoint(['ab']), i.isdisjoint({'a': 1}.items()), i.isdisjoint([])]
"""),
    ("items-of-unhashable-to-set", "d = {'a': [1]}\nreturn set(d.items())"),
    # ---- values views: not set-like, identity equality
    ("values-identity-equality", """
d = {'a': 1}
v = d.values()
return [d.values() == d.values(), v == v, v != v, d.values() != d.values(), d.values() == [1], {'a': 1}.values() == {'a': 1}.values()]
"""),
    ("values-in-list-identity", """
d = {'a': 1}
v = d.values()
return [v in [v], d.values() in [d.values()], [v].count(v), [d.values()].count(d.values())]
"""),
    ("values-difference-unsupported", "d = {'a': 1}\nreturn d.values() - {1}"),
    ("values-or-unsupported", "d = {'a': 1}\nreturn {1} | d.values()"),
    ("values-and-unsupported", "d = {'a': 1}\nreturn d.values() & d.values()"),
    ("values-order-unsupported", "d = {'a': 1}\nreturn d.values() < d.values()"),
    ("values-hashable-by-identity", "d = {'a': 1}\nv = d.values()\nreturn [len({v, v}), len({d.values(), d.values()})]"),
    ("keys-unhashable", "d = {'a': 1}\nreturn {d.keys()}"),
    ("items-unhashable-as-key", "d = {'a': 1}\nreturn {d.items(): 1}"),
    # ---- not lists
    ("views-are-not-lists", """
d = {'a': 1}
k, v, i = d.keys(), d.values(), d.items()
return [isinstance(k, list), isinstance(v, list), isinstance(i, list), isinstance(k, set), isinstance(i, (list, tuple, set, dict)),
        isinstance(list(k), list)]
"""),
    ("keys-not-subscriptable", "d = {'a': 1}\nreturn d.keys()[0]"),
    ("values-not-subscriptable", "d = {'a': 1}\nreturn d.values()[0]"),
    ("items-not-subscriptable", "d = {'a': 1}\nreturn d.items()[-1]"),
    ("keys-slice-not-subscriptable", "d = {'a': 1}\nreturn d.keys()[:1]"),
    ("keys-item-assignment", "d = {'a': 1}\nk = d.keys()\nk[0] = 'b'\nreturn k"),
    ("keys-item-deletion", "d = {'a': 1}\nk = d.keys()\ndel k[0]\nreturn k"),
    ("view-not-callable", "d = {'a': 1}\nk = d.keys()\nreturn k()"),
    ("first-key-the-right-way", """
d = {'z': 1, 'a': 2}
first = list(d.keys())[0]
last = list(d.values())[-1]
try:
    d.keys()[0]
except TypeError as e:
    message = str(e)
return [first, last, message]
"""),
    ("view-not-json", """
d = {'a': 1}
try:
    json.dumps(d.keys())
except TypeError:
    return ['TypeError', json.dumps(list(d.keys())), json.dumps(dict(d.items()))]
"""),
    ("view-format-spec", "d = {'a': 1}\nreturn f'{d.keys():>20}'"),
    # ---- str and repr
    ("views-str-repr", """
d = {'a': 1, 'b': 'two'}
return [str(d.keys()), repr(d.values()), str(d.items()), repr({}.keys()), str({}.values()), repr({}.items())]
"""),
    ("views-in-fstrings", """
d = {'x': [1, 2], 'y': None}
return [f'{d.keys()}', f'{d.values()!r}', f'{d.items()!s}', f'{d.keys()=}', f'{d.items()!a}']
"""),
    ("views-nested-repr", """
d = {'k': (1, 'a'), 'n': {'inner': [1]}}
return [repr([d.keys(), d.values()]), str({'v': d.items()}), repr((d.keys(),)), str(d.values())]
"""),
    ("views-repr-quotes-and-unicode", """
d = {"it's": 'é', 'q"': '\\n'}
return [repr(d.keys()), repr(d.values()), repr(d.items())]
"""),
    ("repr-dict-holding-own-keys", "d = {}\nd['k'] = d.keys()\nreturn [repr(d), repr(d['k']), str(d.values())]"),
    ("repr-dict-holding-own-values", "d = {}\nd['v'] = d.values()\nreturn [repr(d), repr(d['v']), str(d.items())]"),
    ("repr-dict-holding-own-items", "d = {}\nd['i'] = d.items()\nreturn [repr(d), repr(d['i']), str(d.keys())]"),
    ("repr-dict-holding-all-views", "d = {}\nd['k'] = d.keys()\nd['v'] = d.values()\nd['i'] = d.items()\nreturn repr(d)"),
    ("repr-dict-holding-itself-via-items", "d = {'x': 1}\nd['self'] = d\nreturn [repr(d.items()), repr(d.values())]"),
    ("repr-list-holding-values-of-itself", "xs = []\nd = {'xs': xs}\nxs.append(d.values())\nreturn [repr(xs), repr(d)]"),
    # ---- changing a dict while iterating it
    ("dict-insert-while-iterating", """
d = {'a': 1}
for key in d:
    d[key + '2'] = 0
return d
"""),
    ("dict-delete-while-iterating", """
d = {'a': 1, 'b': 2}
for key in d:
    del d[key]
return d
"""),
    ("keys-view-pop-while-iterating", """
d = {'a': 1, 'b': 2}
for key in d.keys():
    if d[key] == 1:
        d.pop(key)
return d
"""),
    ("values-view-insert-while-iterating", """
d = {'a': 1}
for value in d.values():
    d['copy'] = value
return d
"""),
    ("items-view-insert-while-iterating", """
d = {'a': 1}
for key, value in d.items():
    d[key.upper()] = value
return d
"""),
    ("dict-popitem-while-iterating", """
d = {'a': 1, 'b': 2, 'c': 3}
for key in d:
    d.popitem()
return d
"""),
    ("dict-clear-while-iterating", """
d = {'a': 1, 'b': 2}
for key in d:
    d.clear()
return d
"""),
    ("dict-change-caught", """
d = {'a': 1, 'b': 2}
try:
    for key in d:
        d[key * 2] = 0
except RuntimeError as e:
    return ['caught', str(e), repr(e), list(e.args), len(d)]
"""),
    ("dict-change-caught-as-exception", """
d = {'a': 1}
try:
    for key in d.items():
        d.clear()
except Exception as e:
    return ['caught', str(e), isinstance(e, RuntimeError), isinstance(e, ValueError)]
"""),
    ("dict-change-not-caught-by-other-types", """
d = {'a': 1}
try:
    for key in d:
        del d[key]
except (ValueError, TypeError, KeyError):
    return 'wrong handler'
"""),
    ("dict-change-in-function", """
def strip_empty(d):
    for key in d:
        if not d[key]:
            del d[key]
    return d
try:
    return strip_empty({'a': 1, 'b': 0, 'c': 0})
except RuntimeError as e:
    return str(e)
"""),
    ("dict-change-in-list-comprehension", """
d = {'a': 1, 'b': 2}
return [d.setdefault(k * 2, 0) for k in d]
"""),
    ("dict-change-in-dict-comprehension", """
d = {'a': 1, 'b': 2}
return {k: d.pop(k) for k in d}
"""),
    ("dict-change-in-set-comprehension", """
d = {'a': 1}
return {d.setdefault(k + '!', 1) for k in d.keys()}
"""),
    ("dict-change-in-generator-all", """
d = {'a': 1, 'b': 2}
return all(d.pop(k) for k in d)
"""),
    ("dict-change-in-map", """
d = {'a': 1}
return list(map(lambda k: d.setdefault(k + k, 0), d))
"""),
    ("dict-change-in-min-key", """
d = {'a': 1, 'b': 2}
return min(d, key=lambda k: d.pop(k))
"""),
    ("dict-change-in-max-key-values", """
d = {'a': 1, 'b': 2}
return max(d.values(), key=lambda v: d.setdefault(str(v) * 3, v))
"""),
    ("dict-change-in-reversed", """
d = {'a': 1, 'b': 2}
for key in reversed(d):
    d[key + '+'] = 0
return d
"""),
    ("dict-change-in-enumerate", """
d = {'a': 1}
for i, key in enumerate(d.keys()):
    d[i] = key
return d
"""),
    ("dict-change-in-zip", """
d = {'a': 1, 'b': 2}
for key, n in zip(d, range(5)):
    d[n] = key
return d
"""),
    ("dict-sorted-then-mutated-is-fine", """
d = {'b': 1, 'a': 2}
for key in sorted(d):
    d[key + '2'] = d.pop(key)
return d
"""),
    ("dict-list-copy-then-mutated-is-fine", """
d = {'a': 1, 'b': 0, 'c': 0}
for key in list(d):
    if not d[key]:
        del d[key]
for key, value in list(d.items()):
    d[key * 2] = value
return d
"""),
    ("dict-sorted-key-mutates-is-fine", """
d = {'b': 1, 'a': 2}
keys = sorted(d, key=lambda k: d.setdefault(k * 3, 0))
return [keys, d]
"""),
    ("dict-same-size-update-is-fine", """
d = {'a': 1, 'b': 2}
for key in d:
    d[key] = d[key] * 10
for key, value in d.items():
    d.update({key: value + 1})
return d
"""),
    ("dict-change-then-break-is-fine", """
d = {'a': 1, 'b': 2}
for key in d:
    d['new'] = 0
    break
return d
"""),
    ("dict-keys-replaced-same-size", """
d = {'a': 1, 'b': 2}
for key in d:
    del d[key]
    d[key + '!'] = 0
return d
"""),
    ("dict-iterate-other-dict-is-fine", """
src = {'a': 1, 'b': 2}
dst = {}
for key, value in src.items():
    dst[value] = key
    dst[key] = value
return dst
"""),
    ("nested-iteration-same-dict", """
d = {'a': 1, 'b': 2}
return [(x, y) for x in d for y in d.values()]
"""),
    # ---- changing a set while iterating it
    ("set-add-while-iterating", """
s = {1, 2}
for x in s:
    s.add(x + 10)
return s
"""),
    ("set-discard-while-iterating", """
s = {1, 2, 3}
for x in s:
    s.discard(x)
return s
"""),
    ("set-update-while-iterating-caught", """
s = {'a'}
try:
    for x in s:
        s.update([x + '1', x + '2'])
except RuntimeError as e:
    return [str(e), len(s)]
"""),
    ("set-change-in-comprehension", """
seen = {1}
return [seen.add(x + 1) for x in seen]
"""),
    ("set-pop-while-iterating", """
s = {1, 2, 3}
for x in s:
    s.pop()
return s
"""),
    ("set-augmented-in-loop", """
s = {1}
for x in s:
    s |= {x + 1}
return s
"""),
    ("set-same-element-readded-is-fine", """
s = {1, 2}
for x in s:
    s.add(x)
return sorted(s)
"""),
    ("set-copy-then-mutated-is-fine", """
s = {1, 2}
for x in s.copy():
    s.add(x * 10)
for x in list(s):
    s.discard(x)
return s
"""),
    # ---- RuntimeError as a named type
    ("runtime-error-raise-and-catch", """
try:
    raise RuntimeError('pipeline stalled')
except RuntimeError as e:
    return [str(e), repr(e), list(e.args)]
"""),
    ("runtime-error-uncaught", "raise RuntimeError('no progress after 3 rounds')"),
    ("runtime-error-isinstance", "e = RuntimeError('x')\nreturn [isinstance(e, RuntimeError), isinstance(e, Exception), isinstance(ValueError('y'), RuntimeError)]"),
    ("runtime-error-tuple-handler", """
out = []
for thunk in [lambda: {}['k'], lambda: 1 / 0]:
    try:
        thunk()
    except (RuntimeError, KeyError) as e:
        out.append('runtime-or-key')
    except Exception:
        out.append('other')
d = {'a': 1}
try:
    for k in d:
        d['b'] = 2
except (RuntimeError, KeyError) as e:
    out.append(str(e))
return out
"""),
]
