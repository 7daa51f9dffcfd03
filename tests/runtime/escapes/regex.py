"""Escapes against `re`'s pattern and match objects: catastrophic backtracking through
`compile`, `finditer` steps and function replacements (the time bound applies to every
operation, never to the script code a replacement runs, which the step limit bounds), reaching
the real `re.Pattern`/`re.Match` or the method closures through attributes, results that would
outgrow the size limits (templates, function replacements, lookahead groups that repeat the
text), and recursion through replacement functions."""

from dwf.runtime.interpreter.limits import Limits

from escape_kinds import FAST_REGEX, LIMIT, MISUSE, SMALL, TINY, compile_error, error, safe_value

# The timer must be off while a replacement function runs: this loop runs far longer than the
# regular-expression time limit and must end at the step limit.
SLOW_SCRIPT = Limits(steps=2_000_000, regex_timeout_s=0.05)

CORPUS = [
    # ---- catastrophic backtracking, through every entry point
    error("regex-compiled-catastrophic", "import re\np = re.compile(r'(a+)+$')\nreturn p.search('a' * 40 + 'b')",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=3),
    error("regex-compiled-catastrophic-pos", "import re\np = re.compile(r'(x+x+)+y')\nreturn p.match('--' + 'x' * 50, 2)",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=3),
    error("regex-finditer-catastrophic", "import re\nfor m in re.finditer(r'(x+x+)+y', 'x' * 50):\n    pass",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=2),
    error("regex-finditer-late-step", "import re\nn = 0\nfor m in re.compile(r'ab|(x+x+)+y').finditer('ab ' * 500 + 'x' * 50):\n"
          "    n += 1", LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=3),
    error("regex-finditer-list", "import re\nreturn len(list(re.finditer(r'(a|aa)+$', 'a' * 60 + 'b')))",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=2),
    error("regex-sub-function-catastrophic", "import re\nreturn re.sub(r'(a|aa)+$', lambda m: 'x', 'a' * 60 + 'b')",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=2),
    error("regex-pattern-subn-catastrophic", "import re\np = re.compile(r'(\\w+\\s?)+$')\nreturn p.subn('', 'word ' * 30 + '!')",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=3),
    error("regex-pattern-split-catastrophic", "import re\nreturn re.compile(r'(a+)+,').split('a' * 40 + 'b')",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=2),
    error("regex-catastrophic-in-replacement", "import re\ndef f(m):\n    return str(re.match(r'(a+)+$', 'a' * 40 + 'b'))\n"
          "return re.sub('x', f, 'x')", LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=3),
    error("regex-catastrophic-caught-as-re-error", "import re\ntry:\n    re.compile(r'(a+)+$').match('a' * 40 + 'b')\n"
          "except re.error:\n    return 'caught'", LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=3),
    error("regex-slow-replacement-is-steps", "import re\ndef f(m):\n    while True:\n        pass\nreturn re.sub('a', f, 'a')",
          LIMIT + "the step limit (2,000,000)", SLOW_SCRIPT, line=3),
    error("regex-slow-finditer-body-is-steps", "import re\nfor m in re.finditer('a', 'aa'):\n    while True:\n        pass",
          LIMIT + "the step limit (2,000,000)", SLOW_SCRIPT, line=3),
    # ---- recursion through replacement functions and iterators
    error("regex-replacement-recursion", "import re\ndef f(m):\n    return re.sub('a', f, m.group())\nreturn re.sub('a', f, 'a')",
          LIMIT + "the recursion limit (200)", line=3),
    error("regex-finditer-recursion", "import re\ndef f(s):\n    return [f(m.group()) for m in re.finditer('a', s)]\nreturn f('a')",
          LIMIT + "the recursion limit (200)", line=3),
    error("regex-pattern-nested-too-deep", "import re\nreturn re.compile('(' * 30000 + ')' * 30000)", LIMIT + "the recursion limit", line=2),
    # ---- reaching the real objects
    compile_error("regex-match-re-class", "import re\nm = re.match('a', 'a')\nreturn m.re.__class__", "DWF202"),
    compile_error("regex-pattern-dict", "import re\nreturn re.compile('a').__dict__", "DWF202"),
    compile_error("regex-method-self", "import re\nreturn re.compile('a').search.__self__", "DWF202"),
    compile_error("regex-pattern-compiled-static", "import re\nreturn re.compile('a').compiled", "DWF207"),
    error("regex-pattern-compiled", "import re\ndef hide(v):\n    return v\nps = [re.compile('a')]\nreturn hide(ps[0]).compiled", "AttributeError: 're.Pattern' object has no attribute 'compiled'"),
    error("regex-match-re-compiled", "import re\nm = re.match('a', 'a')\nreturn m.re.compiled.search", "AttributeError: 're.Pattern' object has no attribute 'compiled'"),
    error("regex-match-spans", "import re\ndef hide(v):\n    return v\nms = [re.match('a', 'a')]\nreturn hide(ms[0]).spans", "AttributeError: 're.Match' object has no attribute 'spans'"),
    error("regex-match-get-item-method", "import re\ndef hide(v):\n    return v\nms = [re.match('a', 'a')]\nreturn hide(ms[0]).get_item", "AttributeError: 're.Match' object has no attribute 'get_item'"),
    error("regex-pattern-scanner", "import re\ndef hide(v):\n    return v\nps = [re.compile('a')]\nreturn hide(ps[0]).scanner('a')", 'Misuse: `re.Pattern` has no allowed attribute `scanner`'),
    error("regex-pattern-private", "import re\ndef hide(v):\n    return v\nps = [re.compile('a')]\nreturn hide(ps[0])._pattern", "AttributeError: 're.Pattern' object has no attribute '_pattern'"),
    error("regex-method-closure", "import re\nf = re.compile('a').search\nreturn f.fn", "AttributeError: 'function' object has no attribute 'fn'"),
    error("regex-finditer-internals", "import re\nit = re.finditer('a', 'a')\nreturn it._it", "AttributeError: 'callable_iterator' object has no attribute '_it'"),
    error("regex-return-pattern", "import re\nreturn {'p': re.compile('a+')}",
          "TypeError: the workflow's return value contains re.Pattern (re.compile('a+')), which is not JSON data"),
    error("regex-return-match", "import re\nreturn [re.match('a', 'a')]",
          "TypeError: the workflow's return value contains re.Match (<re.Match object; span=(0, 1), match='a'>), which is not JSON data"),
    error("regex-dumps-match", "import json\nimport re\nreturn json.dumps(re.search('b', 'ab'))", "TypeError: Object of type re.Match is not JSON serializable"),
    safe_value("regex-reprs", "import re\np = re.compile(r'(?P<w>\\w+)', re.I)\nm = p.match('Hi')\nlog(m)\nlog(p)\n"
               "return [repr(p), str(m), repr(p.search), repr(m.group), repr(re.finditer('a', 'a')), f'{m.re}', repr(re.error)]",
               ["re.compile('(?P<w>\\\\w+)', re.IGNORECASE)", "<re.Match object; span=(0, 2), match='Hi'>",
                "<built-in function re.Pattern.search>", "<built-in function re.Match.group>", "<callable_iterator object>",
                "re.compile('(?P<w>\\\\w+)', re.IGNORECASE)", "<class 're.error'>"]),
    safe_value("regex-groupindex-copy", "import re\np = re.compile('(?P<a>x)')\ng = p.groupindex\ng['b'] = 2\n"
               "return [p.groupindex, p.groups, p.match('x').groupdict()]", [{"a": 1}, 1, {"a": "x"}]),
    safe_value("regex-error-value", "import re\nbad = '('\ntry:\n    re.compile(bad)\nexcept re.error as e:\n    return [str(e), repr(e), list(e.args)]",
               ["missing ), unterminated subpattern at position 0", "error('missing ), unterminated subpattern at position 0')",
                ["missing ), unterminated subpattern at position 0"]]),
    safe_value("regex-replacement-odd-callables", "import re\nout = []\nasync def later(m):\n    return 'x'\n"
               "for fn in [ValueError, later, re.compile, lambda m: [m]]:\n    try:\n        re.sub('a', fn, 'a')\n"
               "    except TypeError as e:\n        out.append(str(e))\nreturn out",
               ["sequence item 0: expected str instance, ValueError found", "sequence item 0: expected str instance, awaitable found",
                "first argument must be string or compiled pattern", "sequence item 0: expected str instance, list found"]),
    # ---- results that outgrow the limits
    error("regex-sub-literal-growth", "import re\nreturn len(re.sub('', 'x' * 1000, 'a' * 100000))", LIMIT + "the string size limit", line=2),
    error("regex-sub-function-growth", "import re\nbig = 'x' * 10 ** 6\nreturn len(re.sub('a', lambda m: big, 'a' * 100))",
          LIMIT + "the string size limit", line=3),
    error("regex-pattern-sub-template-growth", "import re\np = re.compile('(.*)')\nreturn len(p.sub(r'\\1' * 1000, 'a' * 100000))",
          LIMIT + "the string size limit", line=3),
    error("regex-expand-growth", "import re\nm = re.match('(.*)', 'a' * 10 ** 6)\nreturn len(m.expand(r'\\1' * 100))",
          LIMIT + "the string size limit", line=3),
    error("regex-escape-growth", "import re\nreturn len(re.escape('.' * 10 ** 7))", LIMIT + "the string size limit", line=2),
    error("regex-findall-lookahead-quadratic", "import re\nreturn len(re.findall(r'(?=(.*))', 'a' * 100000))",
          LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("regex-split-lookahead-quadratic", "import re\nreturn len(re.split(r'(?=(.*))', 'a' * 100000))",
          LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("regex-groups-repeat-text", "import re\nm = re.match('(?=(.*))' * 50, 'a' * 10 ** 6)\nwhile True:\n    g = m.groups()",
          LIMIT + "the step limit (200,000)", SMALL, line=4),
    error("regex-finditer-items", "import re\nreturn len(list(re.finditer('a', 'a' * 20000)))", LIMIT + "the container size limit (10,000)",
          Limits(items=10_000), line=2),
    error("regex-finditer-steps", "import re\nn = 0\nfor m in re.finditer('', 'a' * 10 ** 6):\n    n += 1", LIMIT + "the step limit (20,000)",
          TINY, line=4),
    error("regex-sub-function-steps", "import re\nreturn len(re.sub('', lambda m: '', 'a' * 10 ** 6))", LIMIT + "the step limit (20,000)",
          TINY, line=2),
    error("regex-findall-items", "import re\nreturn len(re.compile('').findall('a' * 20000))", LIMIT + "the container size limit (10,000)",
          Limits(items=10_000), line=2),
    compile_error("regex-invalid-literal", "import re\nreturn re.match('(', 'a')", "DWF223"),
    compile_error("regex-flag-as-count", "import re\nreturn re.sub('a', 'b', 'aaa', re.I)", "DWF224"),
    error("regex-flag-debug-compile", "import re\nreturn re.compile('a', 128)", "ValueError: re flags may only combine"),
]
