"""The sandbox escape corpus: a named table of whole scripts that try to reach interpreter
objects, exhaust memory or time, or crash the host. Every one must end as a compile error (no
program) or a clean run failure (`errored`, a message naming the misuse or the limit, and for
limits the script line); no Python object may leak into a returned, logged or reported value;
nothing may hang (each run is bounded by `anyio.fail_after`) or crash (no Python traceback, no
`InternalError`)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dwf.runtime.interpreter.limits import Limits

from escape_kinds import DEFAULT, FAST_REGEX, LIMIT, MISUSE, SMALL, TINY, Escape, compile_error, error, safe_value
from runner import FakeWorld, compile_snippet, run

# Hides a value's kind from the compiler, so that the run-time refusal is what is tested.
HIDE = "def hide(v):\n    return v\n"
CORPUS: list[Escape] = [
    # ---- dunder walks
    compile_error("class-bases-subclasses", "return ().__class__.__bases__[0].__subclasses__()", "DWF202"),
    compile_error("dict-dunder", "x = {}\nreturn x.__dict__", "DWF202"),
    compile_error("function-globals", "def f():\n    pass\nreturn f.__globals__", "DWF202"),
    compile_error("lambda-code", "return (lambda: 0).__code__", "DWF202"),
    compile_error("builtins-name", "return __builtins__", "DWF202"),
    compile_error("dunder-name-binding", "__x = 1\nreturn __x", "DWF202"),
    compile_error("import-dunder", "return __import__('os')", "DWF201"),
    # ---- format-string traversal
    compile_error("str-format-attribute", "x = 1\nreturn '{0.__class__}'.format(x)", "DWF203"),
    compile_error("str-format-map", "return '{a}'.format_map({'a': 1})", "DWF203"),
    compile_error("str-format-on-any-receiver", "fmt = ['{0}'][0]\nreturn fmt.format(1)", "DWF203"),
    error("fstring-huge-nested-width", "x = 1\nreturn f\"{x!r:{'>' * 10 ** 9}}\"", LIMIT + "the string size limit", line=2),
    error("fstring-huge-width", "x = 1\nreturn f'{x:>999999999}'", LIMIT + "the string size limit", line=2),
    error("fstring-width-overflow", "x = 1\nw = 10 ** 30\nreturn f'{x:>{w}}'", LIMIT + "the string size limit", line=3),
    error("fstring-spec-on-function", "def f():\n    pass\nreturn f'{f:>10}'", "TypeError: format spec '>10' cannot be applied to function"),
    safe_value("fstring-of-function", "def f():\n    pass\nreturn [f'{f}', f'{f!r}', f'{len}', f'{[].append}']",
               ["<function f>", "<function f>", "<built-in function len>", "<method append of list>"]),
    # ---- getattr-likes and forbidden builtins
    compile_error("getattr", "return getattr(1, 'real')", "DWF201"),
    compile_error("vars", "return vars()", "DWF201"),
    compile_error("globals", "return globals()", "DWF201"),
    compile_error("locals", "return locals()", "DWF201"),
    compile_error("type", "return type(1)", "DWF201"),
    compile_error("dir", "return dir([])", "DWF201"),
    compile_error("eval", "return eval('1')", "DWF201"),
    compile_error("exec", "exec('x = 1')", "DWF201"),
    compile_error("open", "return open('/etc/passwd')", "DWF201"),
    compile_error("print", "print(1)", "DWF201"),
    compile_error("object", "return object()", "DWF201"),
    compile_error("import-os", "import os\nreturn os.environ", "DWF204"),
    compile_error("import-sys", "import sys", "DWF204"),
    compile_error("from-import-json-internals", "from json import decoder", "DWF205"),
    # ---- attributes of records, functions, agents, modules, exceptions, builtins
    compile_error("len-self", "return len.__self__", "DWF202"),
    compile_error("json-loader", "import json\nreturn json.__loader__", "DWF202"),
    compile_error("json-decoder", "import json\nreturn json.decoder", "DWF207"),
    compile_error("re-template", "import re\nreturn re.template('a')", "DWF207"),
    compile_error("math-dict", "import math\nreturn math.__dict__", "DWF202"),
    error("json-decoder-dynamic", "import json\nm = [json][0]\nreturn m.decoder", MISUSE + "module `json` has no allowed member `decoder`"),
    error("re-template-dynamic", "import re\nm = [re][0]\nreturn m.template('a')", MISUSE + "module `re` has no allowed member `template`"),
    error("math-sys-dynamic", "import math\nm = [math][0]\nreturn m.sys", "AttributeError: module 'math' has no attribute 'sys'"),
    error("record-fields", HIDE + "rs = [await world.run('echo', ['x'])]\nreturn hide(rs[0]).fields", "AttributeError: 'RunResult' object has no attribute 'fields'; its fields are exit_code, stdout, stderr"),
    error("record-type-name", HIDE + "rs = [await world.run('echo', ['x'])]\nreturn hide(rs[0]).type_name", "AttributeError: 'RunResult' object has no attribute 'type_name'"),
    error("record-to-json", HIDE + "rs = [await world.run('echo', ['x'])]\nreturn hide(rs[0]).to_json()", "AttributeError: 'RunResult' object has no attribute 'to_json'"),
    error("record-subscript", HIDE + "rs = [await world.run('echo', ['x'])]\nreturn hide(rs[0])['stdout']", "TypeError: 'RunResult' object is not subscriptable"),
    compile_error("agent-actor-id-static", "a = agent('a')\nreturn a.actor_id", "DWF207"),
    error("agent-actor-id", HIDE + "xs = [agent('a')]\nreturn hide(xs[0]).actor_id", MISUSE + "an agent has no attribute `actor_id`"),
    error("agent-key", HIDE + "xs = [agent('a')]\nreturn hide(xs[0]).key", MISUSE + "an agent has no attribute `key`"),
    error("function-attribute", "def f():\n    pass\nfs = [f]\nreturn fs[0].env", "AttributeError: 'function' object has no attribute 'env'"),
    error("lambda-code-attr", "fs = [lambda: 0]\nreturn fs[0].code", "AttributeError: 'function' object has no attribute 'code'"),
    compile_error("exception-traceback", "try:\n    1 / 0\nexcept Exception as e:\n    return e.__traceback__", "DWF202"),
    error("exception-with-traceback", "try:\n    1 / 0\nexcept Exception as e:\n    return e.with_traceback",
          MISUSE + "`ZeroDivisionError` has no allowed attribute `with_traceback`"),
    error("exception-frames", "try:\n    1 / 0\nexcept Exception as e:\n    return e.frames", "AttributeError: 'ZeroDivisionError' object has no attribute 'frames'"),
    error("exception-type-attribute", "e = [ValueError][0]\nreturn e.mro", MISUSE + "`type` has no allowed attribute `mro`"),
    error("builtin-attribute", "fs = [len]\nreturn fs[0].fn", "AttributeError: 'builtin_function_or_method' object has no attribute 'fn'"),
    error("builtin-type-attribute", "fs = [str]\nreturn fs[0].mro", 'Misuse: `type` has no allowed attribute `mro`'),
    error("awaitable-attribute", HIDE + "async def f():\n    return 1\nxs = [f()]\nreturn hide(xs[0]).start", MISUSE + "`awaitable` has no allowed attribute `start`"),
    error("facade-aliasing-dynamic", "m = [files][0]\nreturn await m.read('a.py')", MISUSE + "`files.read` may only be called directly"),
    error("args-mutation", "a = args\na.update({'x': 1})", "TypeError: `args` is read-only"),
    error("args-ior", "a = args\na |= {'x': 1}", "TypeError: `args` is read-only"),
    error("bool-attribute", "b = [True][0]\nreturn b.imag", MISUSE + "`bool` has no allowed attribute `imag`"),
    # ---- bound-method internals and iterator internals
    compile_error("method-self", "return 'a'.upper.__self__", "DWF202"),
    compile_error("method-func", "return [].append.__func__", "DWF202"),
    error("method-fn-attribute", "m = ['a'.upper][0]\nreturn m.fn", "AttributeError: 'builtin_function_or_method' object has no attribute 'fn'"),
    error("method-receiver-attribute", "m = [[].append][0]\nreturn m.receiver", "AttributeError: 'builtin_function_or_method' object has no attribute 'receiver'"),
    compile_error("iterator-next-dunder", "return map(str, [1]).__next__", "DWF202"),
    error("iterator-private", "return enumerate([1])._it", "AttributeError: 'enumerate' object has no attribute '_it'"),
    error("match-private", "import re\n" + HIDE + "m = hide(re.match('a', 'a'))\nreturn m._string", "AttributeError: 're.Match' object has no attribute '_string'"),
    safe_value("iterator-reprs", "return [repr(map(str, [])), repr(zip()), str(enumerate([])), repr(reversed([1]))]",
               ["<map object>", "<zip object>", "<enumerate object>", "<reversed object>"]),
    # ---- leaking through messages
    safe_value("python-message-names", "def f():\n    pass\nout = []\nfor thunk in [lambda: 1 + f, lambda: int(f), lambda: f < f, lambda: [f].index(0)]:\n"
               "    try:\n        thunk()\n    except Exception as e:\n        out.append(str(e))\nreturn out",
               ["unsupported operand type(s) for +: 'int' and 'function'",
                "int() argument must be a string, a bytes-like object or a real number, not 'function'",
                "'<' not supported between instances of 'function' and 'function'", "0 is not in list"]),
    error("return-function", "def f():\n    pass\nreturn {'f': f}", "TypeError: the workflow's return value contains function (<function f>)"),
    compile_error("return-agent-static", "return agent('a')", "DWF318"),
    error("return-agent", "xs = [agent('a')]\nreturn xs", "TypeError: the workflow's return value contains Agent (<agent a>)"),
    error("return-module", "import json\nm = [json]\nreturn m", "TypeError: the workflow's return value contains module (<module json>)"),
    error("report-awaitable", "async def f():\n    return 1\nx = [f()]\nreport(x)", "TypeError: the reported item contains awaitable"),
    error("complex-result", "return (-8) ** 0.5", "ValueError: math domain error"),
    # ---- recursion bombs
    error("recursive-def", "def f(n):\n    return f(n + 1)\nreturn f(0)", LIMIT + "the recursion limit (200)", line=2),
    error("mutual-recursion", "def a(n):\n    return b(n)\ndef b(n):\n    return a(n)\nreturn a(0)", LIMIT + "the recursion limit (200)", line=4),
    error("recursive-lambda", "f = lambda n: f(n + 1)\nreturn f(0)", LIMIT + "the recursion limit (200)", line=2),
    error("recursion-through-map", "def f(n):\n    return list(map(f, [n + 1]))\nreturn f(0)", LIMIT + "the recursion limit (200)", line=2),
    error("recursion-through-sort-key", "def f(n):\n    return sorted([1, 2], key=lambda x: f(n + 1))\nreturn f(0)",
          LIMIT + "the recursion limit (200)", line=2),
    error("async-recursion", "async def f(n):\n    return await f(n + 1)\nreturn await f(0)", LIMIT + "the recursion limit (200)", line=2),
    error("recursion-in-except", "def f():\n    try:\n        return f()\n    except Exception:\n        return 'caught'\nreturn f()",
          LIMIT + "the recursion limit (200)", line=3),
    # ---- huge ranges, strings, powers, containers
    error("huge-range", "return len(range(10 ** 10))", LIMIT + "the range size limit (10,000,000)", line=1),
    error("huge-range-step", "r = range(0, 10 ** 12, 3)", LIMIT + "the range size limit (10,000,000)", line=1),
    error("huge-string-repeat", "return len('a' * 10 ** 9)", LIMIT + "the string size limit (16,777,216)", line=1),
    error("huge-string-repeat-reversed", "n = 10 ** 9\nreturn len(n * 'ab')", LIMIT + "the string size limit", line=2),
    error("huge-ljust", "return len('a'.ljust(10 ** 9))", LIMIT + "the string size limit", line=1),
    error("huge-center", "return len('a'.center(10 ** 9, 'x'))", LIMIT + "the string size limit", line=1),
    error("huge-zfill", "return '1'.zfill(10 ** 9)", LIMIT + "the string size limit", line=1),
    error("huge-replace", "s = 'a' * 10 ** 6\nreturn len(s.replace('a', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'))", LIMIT + "the string size limit", line=2),
    error("huge-expandtabs", "s = '\\t' * 10 ** 6\nreturn len(s.expandtabs(100))", LIMIT + "the string size limit", line=2),
    error("huge-join", "return len('x'.join(['a' * 10 ** 6] * 100))", LIMIT + "the string size limit", line=1),
    error("huge-join-iterator", "s = 'a' * 10 ** 6\nreturn len(''.join(map(lambda i: s, range(100))))", LIMIT + "the string size limit", line=2),
    error("string-doubling", "s = 'ab'\nfor i in range(100):\n    s = s + s", LIMIT + "the string size limit", line=3),
    error("string-doubling-aug", "s = 'ab'\nwhile True:\n    s += s", LIMIT + "the string size limit", line=3),
    error("string-doubling-fstring", "s = 'ab'\nwhile True:\n    s = f'{s}{s}'", LIMIT + "the string size limit", line=3),
    error("pow-tower", "return 10 ** 10 ** 10", LIMIT + "the power size limit (10,000)", line=1),
    error("pow-big", "return 2 ** 100000", LIMIT + "the power size limit (10,000)", line=1),
    error("pow-builtin", "return pow(3, 10 ** 6)", LIMIT + "the power size limit (10,000)", line=1),
    error("shift-big", "return 1 << 10 ** 9", LIMIT + "the power size limit (10,000)", line=1),
    error("int-doubling", "x = 3\nwhile True:\n    x = x + x", LIMIT + "the power size limit (10,000)", line=3),
    error("int-squaring", "x = 3\nwhile True:\n    x *= x", LIMIT + "the power size limit (10,000)", line=3),
    error("int-sum-growth", "x = 2 ** 9000\nreturn sum([x] * 1000) * x", LIMIT + "the power size limit (10,000)", line=2),
    error("math-factorial", "import math\nreturn math.factorial(10 ** 6)", LIMIT + "the power size limit", line=2),
    error("math-prod", "import math\nreturn math.prod([10 ** 3000] * 100)", LIMIT + "the power size limit", line=2),
    error("math-lcm", "import math\nreturn math.lcm(*range(1, 20000))", LIMIT + "the power size limit", line=2),
    error("list-repeat", "return len([0] * 10 ** 8)", LIMIT + "the container size limit (1,000,000)", line=1),
    error("tuple-repeat", "return len((0, 1) * 10 ** 7)", LIMIT + "the container size limit", line=1),
    error("list-append-loop", "x = []\nwhile True:\n    x.append(1)", LIMIT + "the container size limit (10,000)", Limits(items=10_000), line=3),
    error("list-append-loop-steps", "x = []\nwhile True:\n    x.append(1)", LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("dict-growth", "d = {}\ni = 0\nwhile True:\n    d[i] = i\n    i += 1", LIMIT + "the container size limit (10,000)", Limits(items=10_000), line=4),
    error("dict-update-growth", "d = {}\nfor i in range(100):\n    d.update({(i, j): j for j in range(200)})", LIMIT + "the container size limit (10,000)",
          Limits(items=10_000), line=3),
    error("set-add-growth", "s = set()\nfor i in range(20000):\n    s.add(i)", LIMIT + "the container size limit (10,000)", Limits(items=10_000), line=3),
    error("list-extend-range", "x = [1]\nx.extend(range(10 ** 7))", LIMIT + "the container size limit", line=2),
    error("list-slice-growth", "x = [1]\nwhile True:\n    x[:0] = x", LIMIT + "the container size limit", line=3),
    error("list-concat-growth", "x = [1]\nwhile True:\n    x = x + x", LIMIT + "the container size limit", line=3),
    error("list-aug-growth", "x = [1]\nwhile True:\n    x += x", LIMIT + "the container size limit", line=3),
    error("set-union-growth", "s = set(range(900))\nt = set(range(900, 1800))\nreturn len(s | t)", LIMIT + "the container size limit (1,000)",
          Limits(items=1_000), line=3),
    error("comprehension-growth", "return len([i for i in range(5 * 10 ** 6)])", LIMIT + "the container size limit (10,000)", Limits(items=10_000), line=1),
    error("dict-comprehension-growth", "return len({i: i for i in range(5 * 10 ** 6)})", LIMIT + "the container size limit (10,000)", Limits(items=10_000), line=1),
    error("split-growth", "return len(('a,' * 3 * 10 ** 6).split(','))", LIMIT + "the container size limit", line=1),
    error("list-of-string", "return len(list('a' * 5 * 10 ** 6))", LIMIT + "the container size limit", line=1),
    error("sum-of-lists", "return len(sum([[0] * 1000] * 5000, []))", LIMIT + "the container size limit", line=1),
    error("aliased-json-bomb", "s = 'a' * 10 ** 7\nreturn [s] * 1000", LIMIT + "the workflow's return value is larger than the string size limit"),
    error("aliased-repr-bomb", "s = 'a' * 10 ** 7\nreturn len(str([s] * 1000))", LIMIT + "the string size limit", line=2),
    error("aliased-log-bomb", "s = 'a' * 10 ** 7\nlog([s] * 1000)", LIMIT + "the string size limit", line=2),
    error("aliased-dumps-bomb", "import json\ns = 'a' * 10 ** 7\nreturn len(json.dumps([s] * 1000))", LIMIT + "the value given to json.dumps is larger than the string size limit", line=3),
    error("json-dumps-indent", "import json\nreturn json.dumps([[1]], indent=10 ** 8)", "ValueError: json.dumps() indent must be"),
    # ---- regular expressions
    error("catastrophic-regex", "import re\nreturn re.match(r'(a+)+$', 'a' * 40 + 'b')", LIMIT + "the regular expression time limit", line=2),
    error("catastrophic-regex-search", "import re\nreturn re.search(r'(x+x+)+y', 'x' * 50)", LIMIT + "the regular expression time limit (0.2)",
          FAST_REGEX, line=2),
    error("catastrophic-regex-caught", "import re\ntry:\n    re.findall(r'(a|aa)+$', 'a' * 60 + 'b')\nexcept Exception:\n    return 'caught'",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=3),
    error("catastrophic-regex-sub-in-loop", "import re\nfor i in range(3):\n    x = re.sub(r'(\\w+\\s?)+$', '', 'word ' * 30 + '!')",
          LIMIT + "the regular expression time limit (0.2)", FAST_REGEX, line=3),
    error("regex-sub-expansion", "import re\nreturn len(re.sub('.*', '\\\\g<0>' * 1000, 'a' * 100000))", LIMIT + "the string size limit", line=2),
    error("regex-debug-flag", "import re\nreturn re.match('a', 'a', 128)", "ValueError: re flags may only combine"),
    error("regex-invalid", "import re\nbad = '('\nreturn re.match(bad, 'a')", "re.error: missing ), unterminated subpattern at position 0"),
    # ---- deep nesting
    safe_value("nested-lists-150", "x = " + "[" * 150 + "]" * 150 + "\nreturn len(x)", 1),
    compile_error("nested-lists-500", "x = " + "[" * 500 + "]" * 500 + "\nreturn len(x)", "DWF001"),
    safe_value("nested-parens-150", "x = " + "(" * 150 + "1" + ")" * 150 + "\nreturn x", 1),
    compile_error("nested-parens-500", "x = " + "(" * 500 + "1" + ")" * 500 + "\nreturn x", "DWF001"),
    safe_value("nested-calls-150", "return " + "abs(" * 150 + "-1" + ")" * 150, 1),
    safe_value("nested-fstrings", "a = 'x'\nreturn f\"\"\"{f'{f\"{a!r:>4}\"}'}\"\"\"", " 'x'"),
    compile_error("nested-fstrings-same-quotes", "a = 'x'\nreturn f\"{f\"{a}\"}\"", "DWF001"),
    safe_value("long-expression-chain", "return " + " + ".join(["1"] * 1000), 1000),
    error("nested-data-repr", "x = []\nfor i in range(100000):\n    x = [x]\nreturn len(str(x))", LIMIT + "the recursion limit", line=4),
    error("nested-data-return", "x = []\nfor i in range(1000):\n    x = [x]\nreturn x", "ValueError: the workflow's return value is nested too deeply"),
    error("nested-tuples-hash", "t = ()\nfor i in range(100000):\n    t = (t,)\nreturn len({t})", LIMIT + "the recursion limit (200) was exceeded by tuples", line=3),
    error("nested-tuples-zip", "t = ()\nfor i in range(1000):\n    t = list(zip([t]))[0]", LIMIT + "the recursion limit (200) was exceeded by tuples", line=3),
    error("tuple-dag-hash", "t = ()\nfor i in range(64):\n    t = (t, t)\nreturn len({t})", LIMIT + "the container size limit (1,000,000) was exceeded by "
          "the items of nested tuples", line=3),
    error("tuple-dag-zip", "t = ()\nfor i in range(64):\n    t = list(zip([t], [t]))[0]", LIMIT + "the container size limit", line=3),
    error("tuple-dag-args", "def pack(*a):\n    return a\nt = ()\nfor i in range(64):\n    t = pack(t, t)", LIMIT + "the container size limit", line=5),
    safe_value("tuple-dag-small", "t = ()\nfor i in range(10):\n    t = (t, t)\nreturn len({t: 1})", 1),
    # ---- lists (mutable, so never measured when made) aliased at every level: 61 small lists,
    # 2**61 paths; C walks every path with no step counter, so the walk is charged first
    error("list-dag-equal", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn a == b", LIMIT + "the step limit", line=6),
    error("list-dag-less", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn [a] < [b]", LIMIT + "the step limit", line=6),
    error("list-dag-in", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn a in [0, b]", LIMIT + "the step limit", line=6),
    error("list-dag-sorted", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn sorted([b, a])", LIMIT + "the step limit", line=6),
    error("list-dag-max", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn max(a, b)", LIMIT + "the step limit", line=6),
    error("list-dag-index", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn [a].index(b)", LIMIT + "the step limit", line=6),
    error("list-dag-count", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn [b, a].count(a)", LIMIT + "the step limit", line=6),
    error("list-dag-sort", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nc = [b, a]\nc.sort()", LIMIT + "the step limit", line=7),
    error("list-dag-str", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn len(str(a))", LIMIT + "the string size limit", line=6),
    error("list-dag-fstring", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn len(f\"{a}\")", LIMIT + "the string size limit", line=6),
    error("list-dag-dict-values", "d = {'x': 1}\ne = {'x': 1}\nfor i in range(60):\n    d = {'x': d, 'y': d}\n"
          "    e = {'x': e, 'y': e}\nreturn d == e", LIMIT + "the step limit", line=6),
    error("list-dag-log", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nlog(a)", LIMIT + "the string size limit", line=6),
    error("list-dag-report", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreport(a)", LIMIT, line=6),
    safe_value("list-dag-same-object", "a = [1]\nb = [1]\nfor i in range(60):\n    a = [a, a]\n    b = [b, b]\nreturn [a == a, a != a]", [True, False]),
    safe_value("list-dag-small", "a = [1]\nb = [1]\nfor i in range(10):\n    a = [a, a]\n    b = [b, b]\n"
               "return [a == b, a in [b], len(str(a)), sorted([b, a]) == [a, b]]", [True, True, 7164, True]),
    safe_value("self-containing-list", "x = []\nx.append(x)\nreturn str(x)", "[[...]]"),
    error("json-deep-array", "import json\nx = json.loads('[' * 100000 + ']' * 100000)", "RecursionError: maximum recursion depth exceeded while decoding a JSON document"),
    error("json-deep-return", "import json\nreturn json.loads('[' * 5000 + ']' * 5000)", "ValueError: the workflow's return value is nested too deeply"),
    # ---- steps, conversions, keys
    error("while-true", "while True:\n    pass", LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("while-true-in-function", "def spin():\n    while True:\n        pass\nspin()", LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("busy-comprehension", "return len([0 for a in range(1000) for b in range(1000)])", LIMIT + "the step limit (20,000)", TINY, line=1),
    error("busy-generator", "return sum(a * b for a in range(1000) for b in range(1000))", LIMIT + "the step limit (20,000)", TINY, line=1),
    error("busy-map-lambdas", "return len(list(map(lambda i: i, range(10 ** 6))))", LIMIT + "the step limit (20,000)", TINY, line=1),
    error("busy-sort-key", "return len(sorted(range(10 ** 5), key=lambda i: -i))", LIMIT + "the step limit (20,000)", TINY, line=1),
    # ---- CPU: operations whose cost grows with their data are charged to the step limit
    error("linear-method-loop", "s = 'a' * 10 ** 7\nwhile True:\n    t = s.upper()", LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("linear-concat-loop", "x = [0] * 500000\nwhile True:\n    y = x + [1]", LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("linear-compare-loop", "x = [0] * 10 ** 6\ny = [0] * 10 ** 6\nwhile x == y:\n    pass", LIMIT + "the step limit (200,000)",
          SMALL, line=3),
    error("linear-contains-loop", "x = [0] * 10 ** 6\nwhile 1 not in x:\n    pass", LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("linear-slice-loop", "s = 'a' * 10 ** 7\nwhile True:\n    t = s[1:]", LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("linear-fstring-loop", "s = 'a' * 10 ** 7\nwhile True:\n    t = f'{s}!'", LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("linear-repr-loop", "x = list(range(10 ** 5))\nwhile True:\n    t = str(x)", LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("linear-sum-loop", "while True:\n    sum(range(10 ** 7))", LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("linear-map-builtin-loop", "while True:\n    all(map(abs, range(1, 10 ** 7)))", LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("linear-zip-loop", "while True:\n    all(zip(range(10 ** 7)))", LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("linear-sorted-loop", "x = list(range(10 ** 6))\nwhile True:\n    y = sorted(x)", LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("linear-json-loop", "import json\ns = json.dumps(list(range(10 ** 5)))\nwhile True:\n    json.loads(s)", LIMIT + "the step limit (200,000)",
          SMALL, line=4),
    error("linear-regex-loop", "import re\ns = 'a' * 10 ** 7\nwhile True:\n    re.findall('b', s)", LIMIT + "the step limit (200,000)", SMALL, line=4),
    error("linear-set-ops-loop", "a = set(range(10 ** 6))\nwhile True:\n    b = a | a", LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("int-from-long-string", "return int('9' * 100000)", "ValueError: int() of a string longer than 4300 digits"),
    error("str-of-big-int", "return str(10 ** 5000)", LIMIT + "the power size limit (10,000)", line=1),
    error("sorted-key-raises", "def k(x):\n    raise ValueError('bad key')\nreturn sorted([1, 2], key=k)", "ValueError: bad key"),
    error("sort-method-key-raises", "xs = [2, 1]\nxs.sort(key=lambda x: 1 / 0)", "ZeroDivisionError: division by zero"),
    error("min-key-raises", "return min([1, 2], key=lambda x: {}['k'])", "KeyError: 'k'"),
    error("parallel-of-generator-bomb", "async def f(i):\n    return i\nreturn await parallel(f(i) for i in range(10 ** 6))",
          LIMIT + "the fan-out limit (4,096)", line=3),
    error("parallel-of-map-bomb", "async def f(i):\n    return i\nreturn await parallel(map(f, range(10 ** 6)))", LIMIT + "the fan-out limit (4,096)", line=3),
    error("pipeline-items-bomb", "return await pipeline(range(10 ** 6), lambda p, i, n: p)", LIMIT + "the fan-out limit (4,096)", line=1),
    error("agent-bomb", "xs = [agent() for i in range(5000)]", LIMIT + "the actor limit (1,000)", line=1),
]


def _load(path: Path) -> list[Escape]:
    spec = importlib.util.spec_from_file_location(f"escapes_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CORPUS


# Escapes against each newer surface of the language live in `escapes/<surface>.py`.
CORPUS += [escape for path in sorted((Path(__file__).parent / "escapes").glob("*.py")) for escape in _load(path)]


def _ids(corpus: list[Escape]) -> list[str]:
    return [escape.name for escape in corpus]


def test_names_unique() -> None:
    assert len(set(_ids(CORPUS))) == len(CORPUS)


ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}|object at|built-in method|Traceback \(most recent call last\):\n  File")


def assert_json_and_safe(value: object, where: str) -> None:
    """Only JSON data, and no text that gives away a Python object or its address."""
    if value is None or isinstance(value, (bool, int, float)):
        return
    if isinstance(value, str):
        assert not ADDRESS.search(value), f"{where}: {value!r}"
        return
    if isinstance(value, list):
        for item in value:
            assert_json_and_safe(item, where)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str), f"{where}: key {key!r}"
            assert_json_and_safe(item, where)
        return
    raise AssertionError(f"{where}: {type(value).__name__} {value!r} is not JSON data")


@pytest.mark.parametrize("escape", CORPUS, ids=_ids(CORPUS))
def test_escape(escape: Escape) -> None:
    kind, _, expected = escape.expect.partition(":")
    compiled = compile_snippet(escape.script)
    if kind == "compile":
        assert compiled.program is None, "the compiler accepted the script"
        assert expected in [d.code for d in compiled.diagnostics if d.is_error], compiled.diagnostics
        return
    assert compiled.program is not None, [f"{d.code} {d.message}" for d in compiled.diagnostics if d.is_error]
    events: list[dict] = []
    result = run(escape.script, escape.limits, world=FakeWorld(), listeners=[events.append], timeout=20)
    for event in events:
        if event["type"] in ("log", "report"):
            assert_json_and_safe(event.get("message", event.get("item")), event["type"])
    assert_json_and_safe(result.value, "value")
    assert_json_and_safe(result.reports, "reports")
    if kind == "value":
        assert result.status == "completed", f"{result.error}\n{result.traceback}"
        assert repr(result.value) == expected
        return
    assert result.status == "errored", result
    assert "InternalError" not in result.error
    assert expected in result.error, result.error
    assert_json_and_safe(result.error, "error")
    assert_json_and_safe(result.traceback, "traceback")
    assert "File \"" not in result.traceback and "interpreter.py" not in result.traceback
    if escape.line is not None:
        assert result.error.endswith(f" at line {escape.line}"), result.error
        assert f"line {escape.line}," in result.traceback


def test_limit_errors_name_the_line() -> None:
    for escape in CORPUS:
        if escape.expect.startswith("error:" + LIMIT) and "as JSON" not in escape.expect and "return value" not in escape.expect:
            assert escape.line is not None, f"{escape.name}: a limit case must say which line it fails on"


def test_deeply_nested_source_does_not_crash_the_process() -> None:
    """Source nested past what a recursive parser or pass survives must be a diagnostic, never a
    crashed process (run in a subprocess so a crash cannot take the test session down)."""
    code = ("import sys\nsys.path.insert(0, 'tests/runtime')\nfrom runner import compile_snippet\n"
            "r = compile_snippet('x = ' + '[' * 5000 + ']' * 5000)\nprint(r.program is None)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.strip() == "True"
