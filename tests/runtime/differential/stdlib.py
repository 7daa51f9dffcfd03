"""Differential snippets for the small standard modules: `functools.reduce`, `statistics`, the
`string` constants, `textwrap` and `difflib`, as workflows use them (summing costs, timing
statistics for a report, wrapping report text, diffs of config files, suggesting a close
name) plus edge cases and error messages."""

CONFIG_OLD = "name = 'svc'\\nport = 8080\\ndebug = false\\nworkers = 4\\nlog = 'info'\\n"
CONFIG_NEW = "name = 'svc'\\nport = 9090\\ndebug = false\\nworkers = 4\\nlog = 'debug'\\ntimeout = 30\\n"
LOREM = ("DWF runs each workflow step by step, journaling every effect so that a resumed run makes "
         "the same decisions; long report paragraphs are wrapped before they are shown.")

SNIPPETS: list[tuple[str, str]] = [
    # ---- functools.reduce
    ("reduce-sum", "import functools\nreturn functools.reduce(lambda a, b: a + b, [1, 2, 3, 4])"),
    ("reduce-initial", "from functools import reduce\nreturn [reduce(lambda a, b: a + b, [], 0), reduce(lambda a, b: a * b, [2, 3], 10)]"),
    ("reduce-empty-error", "from functools import reduce\ntry:\n    reduce(lambda a, b: a + b, [])\nexcept TypeError as e:\n    return str(e)"),
    ("reduce-single", "from functools import reduce\nreturn [reduce(lambda a, b: 1 / 0, [7]), reduce(max, [3, 9, 2])]"),
    ("reduce-builtin", "from functools import reduce\nreturn [reduce(max, [3, 9, 2]), reduce(min, 'hello'), reduce(pow, [2, 3, 2])]"),
    ("reduce-merge-dicts", "from functools import reduce\nconfigs = [{'a': 1}, {'b': 2}, {'a': 3}]\nreturn reduce(lambda acc, c: {**acc, **c}, configs, {})"),
    ("reduce-script-function", "from functools import reduce\ndef deepest(acc, path):\n    return path if path.count('/') > acc.count('/') else acc\nreturn reduce(deepest, ['a', 'a/b/c', 'a/b'])"),
    ("reduce-generator", "from functools import reduce\nreturn reduce(lambda a, b: a + b, (x * x for x in range(5)))"),
    ("reduce-strings", "from functools import reduce\nreturn reduce(lambda a, b: b + a, 'abc', '')"),
    ("reduce-effects-order", "from functools import reduce\nseen = []\ndef step(a, b):\n    seen.append((a, b))\n    return a + b\ntotal = reduce(step, [1, 2, 3], 10)\nreturn [total, seen]"),
    ("reduce-not-iterable", "from functools import reduce\ntry:\n    reduce(lambda a, b: a, 5)\nexcept TypeError as e:\n    return str(e)"),
    ("reduce-too-few", "from functools import reduce\ntry:\n    reduce(max)\nexcept TypeError as e:\n    return str(e)"),
    ("reduce-callback-error", "from functools import reduce\ntry:\n    reduce(lambda a, b: a + b, [1, 'x'])\nexcept TypeError as e:\n    return str(e)"),
    ("reduce-set-union", "from functools import reduce\nreturn sorted(reduce(lambda a, b: a | b, [{1, 2}, {2, 3}, {5}]))"),
    # ---- statistics
    ("mean-ints-floats", "import statistics\nreturn [statistics.mean([1, 2, 3, 4]), statistics.mean([1, 2, 3]), statistics.mean([0.1, 0.2, 0.3]), statistics.mean([1, 2.5])]"),
    ("mean-durations", "import statistics\ndurations = [12.5, 9.75, 31.0, 14.25, 11.0]\nreturn [round(statistics.mean(durations), 3), statistics.median(durations), statistics.stdev(durations)]"),
    ("mean-generator", "import statistics\nreturn statistics.mean(len(w) for w in 'the quick brown fox'.split())"),
    ("mean-bools", "import statistics\nreturn statistics.mean([True, False, True, True])"),
    ("mean-empty", "import statistics\ntry:\n    statistics.mean([])\nexcept statistics.StatisticsError as e:\n    return str(e)"),
    ("mean-strings-error", "import statistics\ntry:\n    statistics.mean(['a'])\nexcept TypeError as e:\n    return str(e)"),
    ("fmean", "import statistics\nreturn [statistics.fmean([1, 2, 3, 4]), statistics.fmean([0.1] * 3)]"),
    ("median-odd-even", "import statistics\nreturn [statistics.median([5, 1, 3]), statistics.median([4, 1, 3, 2]), statistics.median([1]), statistics.median([2, 2.5])]"),
    ("median-low-high", "import statistics\nreturn [statistics.median_low([1, 3, 5, 7]), statistics.median_high([1, 3, 5, 7]), statistics.median_low(['b', 'a', 'c'])]"),
    ("median-empty", "import statistics\ntry:\n    statistics.median([])\nexcept statistics.StatisticsError as e:\n    return [str(e), isinstance(e, ValueError)]"),
    ("median-strings", "import statistics\nreturn statistics.median(['b', 'c', 'a'])"),
    ("mode", "import statistics\nreturn [statistics.mode([1, 2, 2, 3]), statistics.mode('abbc'), statistics.mode(['x', 'y']), statistics.mode([('a', 1), ('a', 1), ('b', 2)])]"),
    ("mode-empty", "import statistics\ntry:\n    statistics.mode([])\nexcept statistics.StatisticsError as e:\n    return str(e)"),
    ("multimode", "import statistics\nreturn [statistics.multimode('aabbc'), statistics.multimode([]), statistics.multimode([3])]"),
    ("stdev-pstdev", "import statistics\ndata = [2, 4, 4, 4, 5, 5, 7, 9]\nreturn [statistics.stdev(data), statistics.pstdev(data), statistics.variance(data), statistics.pvariance(data)]"),
    ("stdev-floats", "import statistics\nreturn [statistics.stdev([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]), statistics.pstdev([0.0, 0.25, 0.25, 1.25, 1.5, 1.75])]"),
    ("stdev-xbar-mu", "import statistics\ndata = [1, 2, 3, 4]\nm = statistics.mean(data)\nreturn [statistics.stdev(data, m), statistics.pstdev(data, mu=2.5), statistics.variance(data, xbar=m)]"),
    ("stdev-too-few", "import statistics\ntry:\n    statistics.stdev([1])\nexcept statistics.StatisticsError as e:\n    return str(e)"),
    ("pstdev-empty", "import statistics\ntry:\n    statistics.pstdev([])\nexcept statistics.StatisticsError as e:\n    return str(e)"),
    ("variance-single-value", "import statistics\nreturn [statistics.pvariance([5]), statistics.pstdev([3, 3, 3])]"),
    ("quantiles-default", "import statistics\nreturn statistics.quantiles([105, 129, 87, 86, 111, 111, 89, 81, 108, 92, 110, 100, 75, 105, 103, 109, 76, 119, 99, 91, 103, 129, 106, 101, 84, 111, 74, 87, 86, 103, 103, 106, 86, 111, 75, 87, 102, 121, 111, 88, 89, 101, 106, 95, 103, 107, 101, 81, 109, 104])"),
    ("quantiles-n-method", "import statistics\ndata = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nreturn [statistics.quantiles(data, n=10), statistics.quantiles(data, n=4, method='inclusive'), statistics.quantiles([1, 5], n=2)]"),
    ("quantiles-latency-report", """
import statistics
latencies = [120, 95, 430, 101, 99, 87, 250, 133, 105, 98, 1020, 110]
p = statistics.quantiles(latencies, n=100)
return {"p50": p[49], "p90": p[89], "p99": p[98], "mean": round(statistics.mean(latencies), 1)}
"""),
    ("quantiles-errors", """
import statistics
out = []
for data, kwargs in (([1], {}), ([1, 2, 3], {"n": 0}), ([1, 2, 3], {"method": "nearest"})):
    try:
        out.append(statistics.quantiles(data, **kwargs))
    except statistics.StatisticsError as e:
        out.append(str(e))
    except ValueError as e:
        out.append(["ValueError", str(e)])
return out
"""),
    ("statistics-error-is-value-error", "import statistics\ntry:\n    statistics.stdev([])\nexcept ValueError as e:\n    return [str(e), repr(e)]"),
    ("statistics-error-uncaught", "import statistics\nreturn statistics.median_high([])"),
    ("statistics-from-import", "from statistics import mean, median, StatisticsError\ntry:\n    return [mean([1, 3]), median([])]\nexcept StatisticsError as e:\n    return str(e)"),
    ("statistics-big-ints", "import statistics\nreturn [statistics.mean([10 ** 20, 10 ** 20 + 2]), statistics.median([10 ** 30, 1, 2])]"),
    # ---- string
    ("string-constants", "import string\nreturn [string.ascii_lowercase, string.ascii_uppercase, string.digits, string.hexdigits, string.octdigits]"),
    ("string-punctuation-whitespace", "import string\nreturn [string.punctuation, string.whitespace, len(string.printable), string.ascii_letters[:30]]"),
    ("string-slug", "import string\nallowed = set(string.ascii_lowercase + string.digits + '-')\ntitle = 'Fix: crash in Parser (v2)!'\nreturn ''.join(c if c in allowed else '-' for c in title.lower().replace(' ', '-')).strip('-')"),
    ("string-strip-punctuation", "from string import punctuation\nreturn ['hello, world!'.strip(punctuation), ''.join(c for c in 'a.b,c!' if c not in punctuation)]"),
    ("string-capwords", "import string\nreturn [string.capwords('the quick  brown fox'), string.capwords('a-b c-d', '-'), string.capwords('')]"),
    ("string-digits-check", "from string import digits, hexdigits\nreturn [all(c in digits for c in '2024'), all(c in hexdigits for c in 'deadBEEF'), '7' in digits]"),
    # ---- textwrap
    ("wrap-default", f"import textwrap\nreturn textwrap.wrap({LOREM!r})"),
    ("wrap-width", f"import textwrap\nreturn textwrap.wrap({LOREM!r}, width=30)"),
    ("wrap-positional-width", f"import textwrap\nreturn textwrap.wrap({LOREM!r}, 40)"),
    ("wrap-indents", f"import textwrap\nreturn textwrap.wrap({LOREM!r}, width=36, initial_indent='* ', subsequent_indent='  ')"),
    ("wrap-long-words", "import textwrap\nword = 'x' * 25\nreturn [textwrap.wrap(word, 10), textwrap.wrap(word + ' y', 10, break_long_words=False)]"),
    ("wrap-hyphens", "import textwrap\nt = 'a well-known long-standing issue'\nreturn [textwrap.wrap(t, 12), textwrap.wrap(t, 12, break_on_hyphens=False)]"),
    ("wrap-empty-and-spaces", "import textwrap\nreturn [textwrap.wrap(''), textwrap.wrap('   '), textwrap.wrap('a  b   c', 3), textwrap.wrap(' lead', 10, drop_whitespace=False)]"),
    ("wrap-tabs-newlines", "import textwrap\nreturn [textwrap.wrap('a\\tb\\nc', 4), textwrap.wrap('a\\tb', 20, tabsize=4), textwrap.wrap('a\\nb', 10, replace_whitespace=False)]"),
    ("wrap-max-lines", f"import textwrap\nreturn textwrap.wrap({LOREM!r}, width=40, max_lines=2, placeholder=' ...')"),
    ("wrap-sentence-endings", "import textwrap\nreturn textwrap.wrap('First one. Second one.  Third.', 40, fix_sentence_endings=True)"),
    ("wrap-invalid-width", "import textwrap\ntry:\n    textwrap.wrap('abc def', 0)\nexcept ValueError as e:\n    return str(e)"),
    ("fill-default", f"import textwrap\nreturn textwrap.fill({LOREM!r}, width=50)"),
    ("fill-report-item", """
import textwrap
findings = [("a.py", "The function parses the whole file twice; cache the parse tree between the passes."),
            ("b.py", "Unused import.")]
return "\\n".join(textwrap.fill(text, width=40, initial_indent=f"- {path}: ", subsequent_indent="    ") for path, text in findings)
"""),
    ("dedent", "import textwrap\nreturn [textwrap.dedent('    a\\n      b\\n    c\\n'), textwrap.dedent('  a\\n\\n  b'), textwrap.dedent('\\tx\\n\\ty'), textwrap.dedent('a\\n  b')]"),
    ("dedent-mixed", "import textwrap\nreturn [textwrap.dedent('  \\ta\\n  b'), textwrap.dedent('   \\n  a'), textwrap.dedent('')]"),
    ("dedent-prompt", """
import textwrap
prompt = textwrap.dedent('''
    Review the change below.
      - say what is wrong
      - suggest a fix
''').strip()
return prompt
"""),
    ("indent", "import textwrap\nreturn [textwrap.indent('a\\nb\\n', '> '), textwrap.indent('a\\n\\n b\\n', '  '), textwrap.indent('', '#')]"),
    ("indent-predicate", "import textwrap\nreturn [textwrap.indent('a\\n\\nb', '+ ', lambda line: True), textwrap.indent('x\\ny\\n', '# ', predicate=lambda l: l.startswith('y'))]"),
    ("indent-code-block", "import textwrap\ncode = 'def f():\\n    return 1\\n'\nreturn '```\\n' + textwrap.indent(code, '    ') + '```'"),
    ("shorten", f"import textwrap\nreturn [textwrap.shorten({LOREM!r}, width=40), textwrap.shorten('Hello  world!', width=12), textwrap.shorten('Hello  world!', width=11)]"),
    ("shorten-placeholder", f"import textwrap\nreturn [textwrap.shorten({LOREM!r}, 30, placeholder='…'), textwrap.shorten('one two', 3, placeholder='')]"),
    ("shorten-too-small", "import textwrap\ntry:\n    textwrap.shorten('hello world', width=3)\nexcept ValueError as e:\n    return str(e)"),
    ("shorten-title", "from textwrap import shorten\ntitles = ['Fix the flaky integration test in the payment service', 'Bump deps']\nreturn [shorten(t, width=25, placeholder='...') for t in titles]"),
    ("wrap-from-import", "from textwrap import wrap, fill\nreturn [wrap('aa bb cc', 5), fill('aa bb cc', 5)]"),
    ("wrap-not-string", "import textwrap\nreturn textwrap.wrap(5)"),
    # ---- difflib
    ("unified-diff-config", f"import difflib\nold = {CONFIG_OLD!r}.splitlines(keepends=True)\nnew = {CONFIG_NEW!r}.splitlines(keepends=True)\nreturn ''.join(difflib.unified_diff(old, new, fromfile='a/config.toml', tofile='b/config.toml'))"),
    ("unified-diff-lineterm", f"import difflib\nold = {CONFIG_OLD!r}.splitlines()\nnew = {CONFIG_NEW!r}.splitlines()\nreturn list(difflib.unified_diff(old, new, 'old', 'new', lineterm=''))"),
    ("unified-diff-context", f"import difflib\nold = {CONFIG_OLD!r}.splitlines()\nnew = {CONFIG_NEW!r}.splitlines()\nreturn [list(difflib.unified_diff(old, new, n=0, lineterm='')), list(difflib.unified_diff(old, new, n=1, lineterm=''))]"),
    ("unified-diff-identical", "import difflib\nreturn list(difflib.unified_diff(['a\\n'], ['a\\n']))"),
    ("unified-diff-empty-sides", "import difflib\nreturn [list(difflib.unified_diff([], ['x\\n'], lineterm='')), list(difflib.unified_diff(['x\\n'], [], lineterm=''))]"),
    ("unified-diff-dates", "import difflib\nreturn list(difflib.unified_diff(['a'], ['b'], 'f', 't', '2024-01-01', '2024-02-01', lineterm=''))"),
    ("unified-diff-words", "import difflib\nreturn list(difflib.unified_diff('one two three four'.split(), 'zero one tree four'.split(), 'Original', 'Current', lineterm=''))"),
    ("unified-diff-count-changes", f"""
import difflib
old = {CONFIG_OLD!r}.splitlines()
new = {CONFIG_NEW!r}.splitlines()
diff = list(difflib.unified_diff(old, new, lineterm=""))
added = [l[1:] for l in diff if l.startswith("+") and not l.startswith("+++")]
removed = [l[1:] for l in diff if l.startswith("-") and not l.startswith("---")]
return [added, removed]
"""),
    ("unified-diff-type-error", "import difflib\ntry:\n    list(difflib.unified_diff([1], ['a']))\nexcept TypeError as e:\n    return str(e)"),
    ("unified-diff-arg-type-error", "import difflib\ntry:\n    list(difflib.unified_diff(['a'], ['b'], fromfile=3))\nexcept TypeError as e:\n    return str(e)"),
    ("unified-diff-long-file", "import difflib\nold = [f'line {i}' for i in range(200)]\nnew = old[:50] + ['inserted'] + old[50:120] + old[121:]\nreturn list(difflib.unified_diff(old, new, lineterm=''))"),
    ("unified-diff-strings", "import difflib\nreturn list(difflib.unified_diff('abc', 'abd', lineterm=''))"),
    ("close-matches", "import difflib\nreturn [difflib.get_close_matches('appel', ['ape', 'apple', 'peach', 'puppy']), difflib.get_close_matches('wheel', ['while', 'for', 'if'])]"),
    ("close-matches-suggestion", """
import difflib
known = ["review", "triage", "release_notes", "secret_scan"]
asked = "releasenotes"
close = difflib.get_close_matches(asked, known, n=1)
return f"unknown workflow {asked!r}" + (f"; did you mean {close[0]!r}?" if close else "")
"""),
    ("close-matches-n-cutoff", "import difflib\nwords = ['apple', 'apply', 'ample', 'maple', 'apple pie']\nreturn [difflib.get_close_matches('apple', words, n=2), difflib.get_close_matches('apple', words, cutoff=0.9), difflib.get_close_matches('zzz', words)]"),
    ("close-matches-errors", """
import difflib
out = []
for n, cutoff in ((0, 0.5), (1, 1.5)):
    try:
        difflib.get_close_matches('a', ['a'], n, cutoff)
    except ValueError as e:
        out.append(str(e))
return out
"""),
]
