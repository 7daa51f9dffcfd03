"""Differential snippets for `itertools`: the lazy iterators workflows reach for (batching paths
for fan-out, grouping sorted findings, pairing consecutive versions) and their edge cases and
error messages."""

SNIPPETS: list[tuple[str, str]] = [
    # ---- chain
    ("chain-lists", "import itertools\nreturn list(itertools.chain([1, 2], (3,), 'ab', range(2)))"),
    ("chain-from-iterable", "import itertools\nnested = [['a.py', 'b.py'], [], ['c.py']]\nreturn list(itertools.chain.from_iterable(nested))"),
    ("chain-from-import", "from itertools import chain\nreturn sorted(chain({'b': 1}, {'a': 2}))"),
    ("chain-empty", "import itertools\nreturn [list(itertools.chain()), list(itertools.chain([], ''))]"),
    ("chain-lazy-error", "import itertools\nit = itertools.chain([1], 5)\nseen = []\ntry:\n    for x in it:\n        seen.append(x)\nexcept TypeError as e:\n    return [seen, str(e)]"),
    ("chain-of-generators", "import itertools\nreturn list(itertools.chain((x * 2 for x in range(3)), map(str, [7])))"),
    ("chain-type-name", "import itertools\ntry:\n    len(itertools.chain([1]))\nexcept TypeError as e:\n    return str(e)"),
    # ---- islice
    ("islice-stop", "import itertools\nreturn list(itertools.islice('abcdefg', 3))"),
    ("islice-start-stop-step", "import itertools\nreturn [list(itertools.islice(range(20), 2, 12, 3)), list(itertools.islice('abc', 1, None)), list(itertools.islice('abc', None))]"),
    ("islice-of-generator", "import itertools\nsquares = (n * n for n in range(10 ** 6))\nreturn list(itertools.islice(squares, 5))"),
    ("islice-negative", "import itertools\ntry:\n    itertools.islice('abc', -1)\nexcept ValueError as e:\n    return str(e)"),
    ("islice-bad-step", "import itertools\ntry:\n    itertools.islice('abc', 0, 2, 0)\nexcept ValueError as e:\n    return str(e)"),
    ("islice-first-n-of-count", "import itertools\nreturn list(itertools.islice(itertools.count(10, 5), 4))"),
    # ---- groupby
    ("groupby-sorted-findings", """
import itertools
findings = [
    {"file": "b.py", "line": 3}, {"file": "a.py", "line": 9}, {"file": "a.py", "line": 1},
    {"file": "b.py", "line": 7}, {"file": "c.py", "line": 2},
]
findings.sort(key=lambda f: (f["file"], f["line"]))
report = []
for path, group in itertools.groupby(findings, key=lambda f: f["file"]):
    report.append(f"{path}: {', '.join(str(f['line']) for f in group)}")
return report
"""),
    ("groupby-no-key", "import itertools\nreturn [(k, len(list(g))) for k, g in itertools.groupby('aaabccdaa')]"),
    ("groupby-keyword-key", "import itertools\nwords = ['apple', 'avocado', 'banana', 'blueberry', 'cherry']\nreturn {k: list(g) for k, g in itertools.groupby(words, key=lambda w: w[0])}"),
    ("groupby-by-directory", "import itertools\npaths = sorted(['src/b.py', 'docs/a.md', 'src/a.py', 'docs/b.md'])\nreturn [[d, [p.split('/')[1] for p in g]] for d, g in itertools.groupby(paths, key=lambda p: p.split('/')[0])]"),
    ("groupby-consumed-groups", "import itertools\ngroups = [(k, g) for k, g in itertools.groupby('aabb')]\nreturn [k for k, _ in groups] + [list(g) for _, g in groups]"),
    ("groupby-builtin-key", "import itertools\nreturn [(k, list(g)) for k, g in itertools.groupby(['a', 'bb', 'cc', 'd'], len)]"),
    # ---- product, combinations, permutations
    ("product-two", "import itertools\nreturn list(itertools.product('ab', [1, 2]))"),
    ("product-repeat", "import itertools\nreturn [''.join(p) for p in itertools.product('01', repeat=3)]"),
    ("product-configs", """
import itertools
matrix = {"python": ["3.10", "3.11"], "os": ["linux", "mac"], "db": ["pg"]}
jobs = [dict(zip(matrix, combo)) for combo in itertools.product(*matrix.values())]
return [len(jobs), jobs[0], jobs[-1]]
"""),
    ("product-empty", "import itertools\nreturn [list(itertools.product()), list(itertools.product([], [1])), list(itertools.product('a', repeat=0))]"),
    ("product-negative-repeat", "import itertools\ntry:\n    itertools.product('a', repeat=-1)\nexcept ValueError as e:\n    return str(e)"),
    ("combinations-pairs", "import itertools\nreviewers = ['ana', 'bo', 'cy', 'di']\nreturn [f'{a}+{b}' for a, b in itertools.combinations(reviewers, 2)]"),
    ("combinations-edge", "import itertools\nreturn [list(itertools.combinations('abc', 0)), list(itertools.combinations('abc', 3)), list(itertools.combinations('abc', 4)), len(list(itertools.combinations(range(10), 3)))]"),
    ("combinations-negative", "import itertools\ntry:\n    itertools.combinations('abc', -1)\nexcept ValueError as e:\n    return str(e)"),
    ("combinations-keyword", "import itertools\nreturn list(itertools.combinations(iterable=[1, 2, 3], r=2))"),
    ("combinations-with-replacement", "import itertools\nreturn list(itertools.combinations_with_replacement('ab', 3))"),
    ("permutations-all", "import itertools\nreturn [''.join(p) for p in itertools.permutations('abc')]"),
    ("permutations-r", "import itertools\nreturn [list(itertools.permutations([1, 2, 3], 2)), list(itertools.permutations('ab', 5)), len(list(itertools.permutations(range(6))))]"),
    ("permutations-missing", "import itertools\ntry:\n    itertools.permutations()\nexcept TypeError as e:\n    return str(e)"),
    # ---- zip_longest, pairwise, accumulate
    ("zip-longest-fill", "import itertools\nold = ['a', 'b', 'c']\nnew = ['a', 'x']\nreturn list(itertools.zip_longest(old, new, fillvalue='-'))"),
    ("zip-longest-default", "import itertools\nreturn [list(itertools.zip_longest('ab', [1])), list(itertools.zip_longest()), list(itertools.zip_longest('abc'))]"),
    ("zip-longest-three", "import itertools\nrows = [list(r) for r in itertools.zip_longest([1, 2, 3], 'ab', (True,), fillvalue=0)]\nreturn rows"),
    ("zip-longest-not-iterable", "import itertools\ntry:\n    itertools.zip_longest([1], 5)\nexcept TypeError as e:\n    return str(e)"),
    ("pairwise-versions", "import itertools\nversions = ['1.0', '1.1', '2.0', '2.1']\nreturn [f'{a}->{b}' for a, b in itertools.pairwise(versions)]"),
    ("pairwise-short", "import itertools\nreturn [list(itertools.pairwise('a')), list(itertools.pairwise('')), list(itertools.pairwise(range(4)))]"),
    ("accumulate-sums", "import itertools\nreturn [list(itertools.accumulate([1, 2, 3, 4])), list(itertools.accumulate([]))]"),
    ("accumulate-func", "import itertools\nreturn [list(itertools.accumulate([3, 1, 4, 1, 5], max)), list(itertools.accumulate([1, 2, 3, 4], lambda a, b: a * b))]"),
    ("accumulate-initial", "import itertools\nreturn [list(itertools.accumulate([1, 2, 3], initial=100)), list(itertools.accumulate([], initial=0))]"),
    ("accumulate-strings", "import itertools\nreturn list(itertools.accumulate(['src', '/lib', '/util.py']))"),
    ("accumulate-running-budget", """
import itertools
costs = [0.5, 1.25, 0.75, 2.0]
running = list(itertools.accumulate(costs))
over = [i for i, total in enumerate(running) if total > 2][0]
return [running, over]
"""),
    ("accumulate-script-function", "import itertools\ndef deeper(path, part):\n    return path + '/' + part\nreturn list(itertools.accumulate(['a', 'b', 'c'], deeper))"),
    ("accumulate-type-error", "import itertools\ntry:\n    list(itertools.accumulate([1, 'a']))\nexcept TypeError as e:\n    return str(e)"),
    # ---- infinite and filtering iterators
    ("count-zip", "import itertools\nreturn list(zip(itertools.count(1), ['a', 'b', 'c']))"),
    ("count-float-step", "import itertools\nreturn list(itertools.islice(itertools.count(0.5, 0.25), 4))"),
    ("cycle-round-robin", "import itertools\nreturn list(zip(['t1', 't2', 't3'], itertools.cycle(['w1', 'w2'])))"),
    ("repeat-times", "import itertools\nreturn [list(itertools.repeat('x', 3)), list(itertools.repeat(1, 0)), list(map(pow, range(4), itertools.repeat(2)))]"),
    ("takewhile-dropwhile", "import itertools\nlines = ['# a', '# b', 'code', '# c']\nreturn [list(itertools.takewhile(lambda l: l.startswith('#'), lines)), list(itertools.dropwhile(lambda l: l.startswith('#'), lines))]"),
    ("filterfalse", "import itertools\nreturn [list(itertools.filterfalse(lambda x: x % 2, range(7))), list(itertools.filterfalse(None, [0, 1, '', 'a']))]"),
    ("starmap", "import itertools\nreturn [list(itertools.starmap(pow, [(2, 3), (3, 2)])), list(itertools.starmap(lambda a, b: f'{a}={b}', {'x': 1}.items()))]"),
    ("compress", "import itertools\nreturn list(itertools.compress('abcdef', [1, 0, 1, 0, 1, 1]))"),
    # ---- laziness and iterator behaviour
    ("lazy-exhaustion", "import itertools\nit = itertools.chain('ab', 'c')\nfirst = list(it)\nreturn [first, list(it)]"),
    ("lazy-only-what-is-needed", "import itertools\nseen = []\ndef note(x):\n    seen.append(x)\n    return x\nfirst = list(itertools.islice(map(note, range(100)), 3))\nreturn [first, seen]"),
    ("iterators-in-any-all", "import itertools\nreturn [any(itertools.repeat(True)), all(x < 5 for x in itertools.count())]"),
    ("batched-by-hand", "import itertools\npaths = [f'f{i}.py' for i in range(7)]\nreturn [list(itertools.islice(paths, i, i + 3)) for i in range(0, len(paths), 3)]"),
    ("chain-then-sorted-set", "import itertools\nreturn sorted(set(itertools.chain('hello', 'world')))"),
    ("product-with-dict-values", "import itertools\nreturn [a + b for a, b in itertools.product(['x', 'y'], ['1', '2']) if a != 'y' or b != '2']"),
    ("groupby-run-length", "import itertools\nreturn ''.join(f'{len(list(g))}{k}' for k, g in itertools.groupby('WWWBBW'))"),
    ("permutations-unique", "import itertools\nreturn sorted(set(itertools.permutations('aab')))"),
    ("combinations-sum", "import itertools\nnums = [1, 4, 2, 3]\nreturn [c for c in itertools.combinations(nums, 2) if sum(c) == 5]"),
]

# Python 3.12's `itertools.batched` (the issue asks for it); CPython 3.11 has no such function.
SNIPPETS += [
    ("batched-paths", "import itertools\nreturn [list(b) for b in itertools.batched(['a', 'b', 'c', 'd', 'e'], 2)]"),
    ("batched-error", "import itertools\ntry:\n    itertools.batched('abc', 0)\nexcept ValueError as e:\n    return str(e)"),
]
DELIBERATE = {
    "batched-paths": [["a", "b"], ["c", "d"], ["e"]],
    "batched-error": "n must be at least one",
}
