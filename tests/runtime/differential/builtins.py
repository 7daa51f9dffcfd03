"""Differential snippets for the builtins the language issue added: `dict.fromkeys`, methods
referenced through their type (`key=str.lower`, `map(str.strip, xs)`, `list.sort(xs)`),
`iter`/`next` and `StopIteration`, `frozenset`, `hex`/`oct`/`bin`, `callable`, `slice`,
`ascii`, `range.index`/`count` and its attributes, nested tuples in `isinstance`,
`str.translate`/`str.maketrans` and the `json.dumps` options (`separators`, `default`, keys that
are not strings, `indent`, `sort_keys`, `ensure_ascii`), with their errors."""

SNIPPETS: list[tuple[str, str]] = [
    # ---- dict.fromkeys
    ("fromkeys-default-none", "dict.fromkeys(['a', 'b', 'c'])"),
    ("fromkeys-with-value", "dict.fromkeys(['lint', 'test', 'build'], 'pending')"),
    ("fromkeys-dedupes-in-order", "list(dict.fromkeys(['b', 'a', 'b', 'c', 'a']))"),
    ("fromkeys-from-string", "dict.fromkeys('abca', 0)"),
    ("fromkeys-from-range", "dict.fromkeys(range(4), False)"),
    ("fromkeys-from-generator", "dict.fromkeys((p.split('/')[0] for p in ['src/a.py', 'src/b.py', 'docs/x.md']), 0)"),
    ("fromkeys-shared-value", """
        d = dict.fromkeys(['x', 'y'], [])
        d['x'].append(1)
        return d
    """),
    ("fromkeys-through-instance", "{}.fromkeys([1, 2], 'v')"),
    ("fromkeys-then-count", """
        counts = dict.fromkeys(['error', 'warning', 'note'], 0)
        for level in ['error', 'note', 'error']:
            counts[level] += 1
        return counts
    """),
    ("fromkeys-err-unhashable", "dict.fromkeys([[1], [2]])"),
    ("fromkeys-err-keyword", "dict.fromkeys(['a'], value=0)"),
    ("fromkeys-err-no-args", "dict.fromkeys()"),
    ("fromkeys-err-too-many", "dict.fromkeys([1], 2, 3)"),
    ("fromkeys-err-not-iterable", "dict.fromkeys(5)"),
    # ---- methods referenced through their type
    ("unbound-sorted-key-lower", "sorted(['beta', 'Alpha', 'gamma', 'Delta'], key=str.lower)"),
    ("unbound-sorted-key-casefold", "sorted(['Straße', 'strasse', 'STRASSE', 'apple'], key=str.casefold)"),
    ("unbound-map-strip", "list(map(str.strip, ['  a ', 'b  ', '\\tc\\n']))"),
    ("unbound-map-upper", "list(map(str.upper, 'abc'))"),
    ("unbound-call-directly", "[str.lower('ABC'), str.upper('x'), str.title('hello world'), str.strip('  y  ')]"),
    ("unbound-with-arguments", "[str.split('a,b,c', ','), str.replace('aaa', 'a', 'b', 2), str.startswith('main.py', 'main')]"),
    ("unbound-join", "str.join(', ', ['lint', 'test', 'build'])"),
    ("unbound-filter-isdigit", "list(filter(str.isdigit, ['1', 'a', '22', '3b', '']))"),
    ("unbound-max-key-len", "max(['a', 'abc', 'ab'], key=len)"),
    ("unbound-min-key-method", "min(['Zed', 'alpha', 'Beta'], key=str.lower)"),
    ("unbound-list-sort", """
        xs = [3, 1, 2]
        list.sort(xs)
        return xs
    """),
    ("unbound-list-sort-key-reverse", """
        xs = ['b', 'C', 'a']
        list.sort(xs, key=str.lower, reverse=True)
        return xs
    """),
    ("unbound-list-append", """
        xs = []
        list.append(xs, 1)
        list.extend(xs, [2, 3])
        return [xs, list.count(xs, 2), list.index(xs, 3)]
    """),
    ("unbound-dict-get", "list(map(dict.get, [{'a': 1}, {'b': 2}], ['a', 'a']))"),
    ("unbound-dict-items", "sorted(dict.items({'b': 2, 'a': 1}))"),
    ("unbound-dict-keys-of-many", "[sorted(dict.keys(d)) for d in [{'x': 1, 'y': 2}, {}]]"),
    ("unbound-dict-update", """
        d = {'a': 1}
        dict.update(d, {'b': 2})
        dict.setdefault(d, 'c', 3)
        return d
    """),
    ("unbound-set-union", "sorted(set.union({1, 2}, {3}, [4, 1]))"),
    ("unbound-set-intersection", "sorted(set.intersection({1, 2, 3}, {2, 3, 4}))"),
    ("unbound-set-add", """
        s = {1}
        set.add(s, 2)
        return sorted(s)
    """),
    ("unbound-tuple-count", "[tuple.count((1, 2, 1), 1), tuple.index(('a', 'b'), 'b')]"),
    ("unbound-int-methods", "[int.bit_length(255), int.bit_count(7), int.bit_length(True), int.conjugate(-4)]"),
    ("unbound-float-is-integer", "[float.is_integer(2.0), float.is_integer(2.5)]"),
    ("unbound-range-and-slice", "[range.index(range(10, 20), 15), range.count(range(5), 3), slice.indices(slice(None, None, 2), 5)]"),
    ("unbound-frozenset-union", "sorted(frozenset.union(frozenset([1]), [2, 3]))"),
    ("unbound-as-value-identity", "[str.lower == str.lower, str.lower == str.lower, str.lower == str.upper]"),
    ("unbound-in-dict-of-handlers", """
        handlers = {'upper': str.upper, 'lower': str.lower, 'title': str.title}
        return {name: fn('hello World') for name, fn in handlers.items()}
    """),
    ("unbound-passed-to-function", """
        def apply_all(fn, items):
            return [fn(item) for item in items]
        return apply_all(str.capitalize, ['alpha', 'beta'])
    """),
    ("unbound-repr", "[repr(str.lower), repr(list.sort), repr(dict.get), repr(set.union), repr(int.bit_length)]"),
    ("unbound-str-of", "str(str.join)"),
    ("unbound-callable", "[callable(str.lower), callable(dict.fromkeys), callable(list.append)]"),
    ("unbound-err-wrong-receiver", "str.lower(5)"),
    ("unbound-err-wrong-receiver-none", "str.strip(None)"),
    ("unbound-err-list-method-on-tuple", "list.count((1, 2), 1)"),
    ("unbound-err-set-method-on-frozenset", "set.union(frozenset(), [1])"),
    ("unbound-err-float-method-on-int", "float.is_integer(1)"),
    ("unbound-err-dict-method-on-list", "dict.get([1], 0)"),
    ("unbound-err-no-receiver", "str.lower()"),
    ("unbound-err-no-receiver-sort", "list.sort()"),
    ("unbound-err-in-map", "list(map(str.upper, ['a', 1]))"),
    ("unbound-err-extra-argument", "str.upper('a', 1)"),
    ("unbound-err-caught", """
        try:
            str.lower(42)
        except TypeError as error:
            return str(error)
    """),
    # ---- iter and next
    ("next-first-item", "next(iter([10, 20, 30]))"),
    ("next-walk", """
        it = iter(['a', 'b', 'c'])
        return [next(it), next(it), next(it), next(it, 'done')]
    """),
    ("next-default-on-empty", "next(iter([]), None)"),
    ("next-first-match-generator", "next((p for p in ['a.md', 'b.py', 'c.py'] if p.endswith('.py')), None)"),
    ("next-first-match-none", "next((p for p in ['a.md'] if p.endswith('.py')), 'no python files')"),
    ("next-on-map", """
        it = map(int, ['1', '2'])
        return [next(it), next(it), next(it, -1)]
    """),
    ("next-on-zip-and-enumerate", "[next(zip('ab', [1, 2])), next(enumerate(['x'], 5)), next(reversed([1, 2, 3]))]"),
    ("next-on-filter", "next(filter(None, [0, '', 'x', 'y']))"),
    ("next-on-dict", """
        it = iter({'first': 1, 'second': 2})
        return [next(it), next(it)]
    """),
    ("next-on-string", """
        it = iter('hé')
        return [next(it), next(it), next(it, '')]
    """),
    ("next-on-set-and-range", "[next(iter({7})), next(iter(range(3, 9))), next(iter(frozenset([4])))]"),
    ("iter-skip-header", """
        lines = iter(['name,count', 'a,1', 'b,2'])
        header = next(lines).split(',')
        return [dict(zip(header, line.split(','))) for line in lines]
    """),
    ("iter-pairs-from-one-iterator", """
        it = iter([1, 2, 3, 4, 5, 6])
        return list(zip(it, it))
    """),
    ("iter-of-iterator-is-itself", """
        it = iter([1, 2])
        return [iter(it) == it, next(iter(it)), list(it)]
    """),
    ("iter-for-loop-resumes", """
        it = iter(range(6))
        first = []
        for x in it:
            first.append(x)
            if x == 2:
                break
        return [first, list(it)]
    """),
    ("iter-sees-list-growth", """
        xs = [1]
        it = iter(xs)
        xs.append(2)
        return list(it)
    """),
    ("iter-exhausted-stays-exhausted", """
        it = iter([1])
        return [list(it), list(it), next(it, 'empty')]
    """),
    ("iter-callable-sentinel", """
        queue = ['a', 'b', '', 'c']
        return list(iter(lambda: queue.pop(0), ''))
    """),
    ("iter-repr-names", "[repr(iter([]))[:15], repr(iter(())).split(' ')[0], repr(iter('a')).split(' ')[0], repr(iter({})).split(' ')[0]]"),
    ("stopiteration-raised", "next(iter([]))"),
    ("stopiteration-caught", """
        it = iter([1])
        next(it)
        try:
            next(it)
        except StopIteration as error:
            return ['stopped', str(error), repr(error), list(error.args)]
    """),
    ("stopiteration-is-exception", """
        try:
            next(iter(()))
        except Exception as error:
            return isinstance(error, StopIteration)
    """),
    ("stopiteration-raise-own", """
        try:
            raise StopIteration('no more pages')
        except StopIteration as error:
            return str(error)
    """),
    ("stopiteration-ends-map", "list(map(next, [iter([1]), iter([]), iter([3])]))"),
    ("stopiteration-ends-filter", "len(list(filter(lambda it: next(it), [iter([1]), iter([]), iter([2])])))"),
    ("stopiteration-ends-callable-iterator", """
        pending = ['b', 'a']
        def take():
            if not pending:
                raise StopIteration
            return pending.pop()
        return list(iter(take, None))
    """),
    ("stopiteration-in-generator-is-runtime-error", """
        it = iter([1])
        try:
            return sum(next(it) for _ in range(3))
        except RuntimeError as error:
            return str(error)
    """),
    ("stopiteration-in-list-comprehension-propagates", """
        it = iter([1])
        try:
            return [next(it) for _ in range(3)]
        except StopIteration:
            return 'exhausted'
    """),
    ("stopiteration-from-sort-key-propagates", """
        try:
            return sorted([iter([]), iter([])], key=next)
        except StopIteration:
            return 'key raised'
    """),
    ("next-err-not-iterator", "next([1, 2])"),
    ("next-err-not-iterator-str", "next('abc')"),
    ("next-err-no-args", "next()"),
    ("iter-err-not-iterable", "iter(5)"),
    ("iter-err-none", "iter(None)"),
    ("iter-err-no-args", "iter()"),
    ("iter-err-sentinel-not-callable", "iter(1, 2)"),
    ("iter-err-dict-changed", """
        d = {'a': 1}
        it = iter(d)
        d['b'] = 2
        try:
            next(it)
        except RuntimeError as error:
            return str(error)
    """),
    # ---- frozenset
    ("frozenset-basic", "sorted(frozenset([3, 1, 2, 3]))"),
    ("frozenset-empty", "[len(frozenset()), repr(frozenset()), bool(frozenset()), frozenset() == set()]"),
    ("frozenset-repr", "[repr(frozenset([1])), str(frozenset({2})), repr(frozenset([(1, 2)]))]"),
    ("frozenset-as-dict-key", """
        groups = {}
        for owners in [['ann', 'bob'], ['bob', 'ann'], ['cy']]:
            key = frozenset(owners)
            groups[key] = groups.get(key, 0) + 1
        return sorted((sorted(k), v) for k, v in groups.items())
    """),
    ("frozenset-in-set", "len({frozenset([1, 2]), frozenset([2, 1]), frozenset([3])})"),
    ("frozenset-equality", "[frozenset([1, 2]) == {1, 2}, {1, 2} == frozenset([2, 1]), frozenset([1]) != frozenset([1, 2])]"),
    ("frozenset-membership", "[2 in frozenset([1, 2]), 'x' not in frozenset('abc'), len(frozenset('hello'))]"),
    ("frozenset-operators", """
        a, b = frozenset([1, 2, 3]), frozenset([2, 3, 4])
        return [sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b)]
    """),
    ("frozenset-operators-with-sets", """
        fs, s = frozenset([1, 2]), {2, 3}
        return [isinstance(fs | s, frozenset), isinstance(s | fs, set), isinstance(s | fs, frozenset), sorted(s - fs), sorted(fs & s)]
    """),
    ("frozenset-comparisons", "[frozenset([1]) <= {1, 2}, frozenset([1]) < frozenset([1]), {1, 2} >= frozenset([2]), frozenset([1, 2]) > {1}]"),
    ("frozenset-methods", """
        fs = frozenset(['a', 'b'])
        return [sorted(fs.union('c')), sorted(fs.intersection(['b', 'z'])), sorted(fs.difference({'a'})),
                sorted(fs.symmetric_difference(['b', 'q'])), fs.isdisjoint(['x']), fs.issubset('abc'), fs.issuperset('a')]
    """),
    ("frozenset-copy-is-same", """
        fs = frozenset([1])
        return [fs.copy() == fs, fs.copy() == fs]
    """),
    ("frozenset-of-frozenset-is-same", """
        fs = frozenset([1])
        return frozenset(fs) == fs
    """),
    ("frozenset-set-conversions", "[sorted(set(frozenset([1, 2]))), sorted(frozenset({3, 4})), sorted(list(frozenset('ab')))]"),
    ("frozenset-augmented-makes-new", """
        a = frozenset([1])
        b = a
        a |= {2}
        return [sorted(a), sorted(b)]
    """),
    ("frozenset-set-augmented-with-frozenset", """
        s = {1}
        s |= frozenset([2])
        s -= frozenset([1])
        return sorted(s)
    """),
    ("frozenset-isinstance", "[isinstance(frozenset(), frozenset), isinstance(frozenset(), set), isinstance(set(), frozenset)]"),
    ("frozenset-sum-and-sorted", "[sum(frozenset([1, 2, 3])), max(frozenset('abc')), sorted(frozenset([2, 1]), reverse=True)]"),
    ("frozenset-dedupe-pairs", """
        edges = [('a', 'b'), ('b', 'a'), ('a', 'c')]
        return len({frozenset(e) for e in edges})
    """),
    ("frozenset-err-unhashable", "frozenset([[1], [2]])"),
    ("frozenset-err-too-many", "frozenset([1], [2])"),
    ("frozenset-err-no-add", """
        try:
            frozenset([1]) + frozenset([2])
        except TypeError as error:
            return str(error)
    """),
    ("frozenset-err-or-list", "frozenset([1]) | [2]"),
    ("frozenset-err-json", "json.dumps(frozenset([1]))"),
    # ---- hex, oct, bin
    ("hex-oct-bin", "[hex(255), oct(8), bin(5), hex(0), bin(0), oct(-8), hex(-255)]"),
    ("hex-big-and-bool", "[hex(2 ** 64), bin(True), oct(False)]"),
    ("hex-roundtrip", "[int(hex(48879), 16), int(bin(10), 2), int(oct(64), 8)]"),
    ("hex-padded-listing", "[hex(b)[2:].rjust(2, '0') for b in [0, 15, 16, 255]]"),
    ("hex-err-float", "hex(1.5)"),
    ("hex-err-str", "bin('5')"),
    ("hex-err-none", "oct(None)"),
    ("hex-err-no-args", "hex()"),
    # ---- callable
    ("callable-values", """
        def f():
            return 1
        return [callable(f), callable(lambda: 0), callable(len), callable(str), callable('x'.upper), callable(ValueError)]
    """),
    ("callable-non-callables", "[callable(1), callable('len'), callable(None), callable([len]), callable({})]"),
    ("callable-dispatch", """
        defaults = {'retries': 3, 'name': lambda: 'generated'}
        return {k: v() if callable(v) else v for k, v in defaults.items()}
    """),
    ("callable-err-no-args", "callable()"),
    # ---- slice
    ("slice-basic", "[[0, 1, 2, 3, 4][slice(1, 3)], 'abcdef'[slice(None, None, -1)], (1, 2, 3)[slice(2)]]"),
    ("slice-repr", "[repr(slice(1, 3)), repr(slice(None, None, -1)), str(slice(5)), repr(slice('a', [1], None))]"),
    ("slice-attributes", """
        s = slice(1, 10, 2)
        return [s.start, s.stop, s.step, slice(4).start, slice(4).stop]
    """),
    ("slice-indices", "[slice(None, None, -1).indices(5), slice(-3, None).indices(10), slice(0, 100, 3).indices(7)]"),
    ("slice-reused-for-columns", """
        name, size = slice(0, 8), slice(8, None)
        rows = ['main.py 1200', 'util.py 88']
        return [(r[name].strip(), int(r[size])) for r in rows]
    """),
    ("slice-assignment", """
        xs = [0, 1, 2, 3, 4]
        xs[slice(1, 3)] = ['a', 'b', 'c']
        del xs[slice(0, 1)]
        return xs
    """),
    ("slice-of-range", "[list(range(10)[slice(2, 8, 3)]), repr(range(10)[slice(None, None, -1)])]"),
    ("slice-equality", "[slice(1, 2) == slice(1, 2), slice(1, 2) == slice(1, 3), slice(1, 2) < slice(1, 3)]"),
    ("slice-isinstance", "[isinstance(slice(1), slice), isinstance(slice(1), tuple)]"),
    ("slice-huge-bounds", "[[1, 2, 3][slice(-10 ** 30, 10 ** 30)], 'abc'[slice(None, None, 10 ** 20)]]"),
    ("slice-err-unhashable", "{slice(1, 2): 1}"),
    ("slice-err-no-args", "slice()"),
    ("slice-err-too-many", "slice(1, 2, 3, 4)"),
    ("slice-err-bad-bound", "[1, 2][slice('a', None)]"),
    ("slice-err-zero-step", "[1, 2][slice(None, None, 0)]"),
    ("slice-err-dict-index", "{'a': 1}[slice(1)]"),
    ("slice-err-indices-negative", "slice(1).indices(-1)"),
    # ---- ascii
    ("ascii-strings", "[ascii('plain'), ascii('café'), ascii('naïve ☃'), ascii('emoji 😀')]"),
    ("ascii-containers", "[ascii(['ü', 1]), ascii({'k': 'é'}), ascii(('x',)), ascii(None), ascii(1.5)]"),
    ("ascii-quotes", "[ascii(\"it's\"), ascii('say \"hi\"'), ascii('both \\' and \"')]"),
    ("ascii-control-chars", "ascii('tab\\tnew\\nline\\x00')"),
    ("ascii-err-no-args", "ascii()"),
    # ---- range.index, range.count, attributes
    ("range-index-count", "[range(10, 20).index(13), range(0, 20, 5).count(15), range(5).count(7), range(10, 0, -2).index(4)]"),
    ("range-attributes", """
        r = range(2, 20, 3)
        return [r.start, r.stop, r.step, range(5).start, range(5).step, len(r)]
    """),
    ("range-count-bool-and-float", "[range(3).count(True), range(3).count(1.0), range(3).index(2.0)]"),
    ("range-index-err", "range(10).index(11)"),
    ("range-index-err-step", "range(0, 10, 2).index(3)"),
    ("range-isinstance", "[isinstance(range(3), range), isinstance([0, 1], range)]"),
    # ---- nested tuples in isinstance
    ("isinstance-nested-tuples", "[isinstance(1.5, (int, (float, str))), isinstance('a', (int, (float, (str,)))), isinstance([], (int, (float, str)))]"),
    ("isinstance-empty-tuples", "[isinstance(1, ()), isinstance(1, ((), (int,)))]"),
    ("isinstance-number-types", """
        NUMBER = (int, float)
        values = [1, 2.5, '3', True, None]
        return [isinstance(v, (NUMBER, (bool,))) for v in values] + [isinstance(v, (str, NUMBER)) for v in values]
    """),
    ("isinstance-dispatch-table", """
        SCALARS = (str, (int, float), bool)
        CONTAINERS = (list, tuple, (dict, (set, frozenset)))
        out = []
        for v in ['a', 1, [1], {'a': 1}, frozenset(), None]:
            out.append('scalar' if isinstance(v, SCALARS) else 'container' if isinstance(v, CONTAINERS) else 'other')
        return out
    """),
    ("isinstance-err-not-type", "isinstance(1, (str, 'int'))"),
    ("isinstance-err-builtin-function", "isinstance(1, len)"),
    ("isinstance-short-circuit", "isinstance(1, (int, 'not a type'))"),
    # ---- str.translate and str.maketrans
    ("maketrans-two-strings", "'hello world'.translate(str.maketrans('lo', '01'))"),
    ("maketrans-three-strings", "'hello, world!'.translate(str.maketrans('', '', ',!'))"),
    ("maketrans-mapping-and-delete", "'a-b_c'.translate(str.maketrans('-_', '  ', 'c'))"),
    ("maketrans-dict", "str.maketrans({'a': '1', 'b': None, 99: 'C'})"),
    ("maketrans-dict-used", "'abcabc'.translate(str.maketrans({'a': 'AA', 'b': None}))"),
    ("maketrans-table-is-dict", "sorted(str.maketrans('ab', 'xy').items())"),
    ("maketrans-through-instance", "'abc'.translate(''.maketrans('abc', 'xyz'))"),
    ("translate-with-ord-dict", "'tab\\tand\\nnewline'.translate({ord('\\t'): ' ', ord('\\n'): ' '})"),
    ("translate-int-values", "'abc'.translate({97: 65, 98: None, 99: 'see'})"),
    ("translate-list-table", "'\\x00\\x01\\x02z'.translate(['zero', 'one', None])"),
    ("translate-slugify", """
        table = str.maketrans({c: '-' for c in ' /_.'})
        return 'Release Notes/v1.2_final'.lower().translate(table)
    """),
    ("translate-unmapped-unchanged", "'xyz'.translate({})"),
    ("translate-unbound", "str.translate('abc', {97: 'b'})"),
    ("maketrans-err-unequal", "str.maketrans('ab', 'c')"),
    ("maketrans-err-one-non-dict", "str.maketrans('abc')"),
    ("maketrans-err-long-key", "str.maketrans({'ab': 'x'})"),
    ("maketrans-err-bad-key", "str.maketrans({(1,): 'x'})"),
    ("maketrans-err-third-not-str", "str.maketrans('a', 'b', 5)"),
    ("translate-err-bad-value", "'abc'.translate({97: 1.5})"),
    ("translate-err-out-of-range", "'abc'.translate({97: 0x110000})"),
    ("translate-err-not-subscriptable", "'abc'.translate(5)"),
    # ---- json.dumps options
    ("json-non-str-keys", "json.dumps({1: 'a', True: 'b', None: 'c', 1.5: 'd'})"),
    ("json-int-keys", "json.dumps({404: 'not found', 200: 'ok', -1: 'unknown'})"),
    ("json-bool-none-keys", "json.dumps({False: 0, None: 1})"),
    ("json-float-keys", "json.dumps({0.1: 'a', 2.0: 'b', 1e20: 'c'})"),
    ("json-key-collision", "json.dumps({1: 'int', '1': 'str'})"),
    ("json-int-keys-roundtrip", "json.loads(json.dumps({1: [1, 2], 2: {3: 4}}))"),
    ("json-err-tuple-key", "json.dumps({(1, 2): 'pair'})"),
    ("json-err-frozenset-key", "json.dumps({frozenset(): 'x'})"),
    ("json-separators-compact", "json.dumps({'a': [1, 2], 'b': None}, separators=(',', ':'))"),
    ("json-separators-custom", "json.dumps([1, {'k': 'v'}], separators=(' ; ', ' = '))"),
    ("json-separators-list", "json.dumps({'a': 1, 'b': 2}, separators=[',', ':'])"),
    ("json-indent-int", "json.dumps({'name': 'x', 'tags': ['a', 'b'], 'meta': {}}, indent=2)"),
    ("json-indent-str", "json.dumps({'b': [1], 'a': []}, indent='\\t')"),
    ("json-indent-zero", "json.dumps([1, [2, 3]], indent=0)"),
    ("json-indent-and-separators", "json.dumps({'a': [1, 2]}, indent=1, separators=(',', ': '))"),
    ("json-sort-keys", "json.dumps({'b': 1, 'a': {'d': 2, 'c': 3}}, sort_keys=True)"),
    ("json-sort-int-keys", "json.dumps({10: 'x', 2: 'y'}, sort_keys=True)"),
    ("json-err-sort-mixed-keys", "json.dumps({1: 'a', 'b': 2}, sort_keys=True)"),
    ("json-ensure-ascii", "[json.dumps('café ☃'), json.dumps('café ☃', ensure_ascii=False), json.dumps({'ü': '😀'})]"),
    ("json-default-set-to-list", "json.dumps({'tags': {'b', 'a'}}, default=sorted)"),
    ("json-default-str", "json.dumps({'when': range(3), 'what': slice(1)}, default=str)"),
    ("json-default-function", """
        def encode(value):
            if isinstance(value, (set, frozenset)):
                return {'$set': sorted(value)}
            raise TypeError(f'cannot encode {value!r}')
        return json.dumps([{1, 2}, frozenset(['x'])], default=encode)
    """),
    ("json-default-nested-result", "json.dumps({1}, default=lambda o: [list(o), {'n': len(o)}])"),
    ("json-default-not-called-for-json", "json.dumps([1, 'a', None, [True]], default=lambda o: 1 / 0)"),
    ("json-default-raises", """
        def encode(value):
            raise ValueError('no encoding for this value')
        try:
            json.dumps({'x': {1}}, default=encode)
        except ValueError as error:
            return str(error)
    """),
    ("json-default-returns-itself", "json.dumps({1}, default=lambda o: o)"),
    ("json-default-returns-non-json-again", "json.dumps([{1}], default=lambda o: frozenset(o))"),
    ("json-err-no-default", "json.dumps({'a': {1, 2}})"),
    ("json-err-no-default-function", """
        def f():
            return 1
        return json.dumps([f])
    """),
    ("json-err-circular", """
        xs = [1]
        xs.append(xs)
        return json.dumps(xs)
    """),
    ("json-err-circular-dict", """
        d = {}
        d['self'] = d
        return json.dumps(d)
    """),
    ("json-err-positional-option", "json.dumps([1], 2)"),
    ("json-all-options", "json.dumps({2: 'b', 1: {'x', 'y'}}, sort_keys=True, indent=2, separators=(',', ' -> '), default=sorted, ensure_ascii=False)"),
]
