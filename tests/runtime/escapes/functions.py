"""Sandbox escapes against function parameters and TypedDict constructors (language issue #11):
defaults that try to keep interpreter objects (facades, actors, modules, builtins, `args`),
defaults that recurse or grow without bound, huge default containers and `*args`, and TypedDict
constructor calls abused with dunder keys, facades and actors. Every default is an ordinary
value evaluated once, under the same limits as any other expression."""

from escape_kinds import LIMIT, MISUSE, SMALL, compile_error, error, safe_value

ISSUE = "from typing import TypedDict\nclass Issue(TypedDict):\n    file: str\n"

CORPUS = [
    # ---- defaults that capture interpreter objects
    error("default-facade-returned", "def f(r=files):\n    return r\nreturn f()", "TypeError: the workflow's return value contains facade"),
    error("default-facade-unsited-read", "def f(r=files):\n    return r.read('x')\nreturn await f()",
          MISUSE + "`files.read` may only be called directly"),
    compile_error("default-facade-function", "def f(x=log):\n    return x\nreturn f()", "DWF301"),
    compile_error("default-facade-function-kwonly", "def f(*, ask=agent):\n    return ask\nreturn f()", "DWF301"),
    error("default-actor-returned", "def f(a=agent('x')):\n    return a\nreturn f()", "TypeError: the workflow's return value contains Agent"),
    error("default-module-returned", "import json\ndef f(m=json):\n    return m\nreturn f()",
          "TypeError: the workflow's return value contains module"),
    safe_value("default-module-used", "import json\ndef f(m=json):\n    return m.dumps([1])\nreturn f()", "[1]"),
    error("default-builtin-returned", "def f(g=len):\n    return g\nreturn f()", "TypeError: the workflow's return value contains builtin_function"),
    error("default-lambda-returned", "g = lambda f=lambda: 0: f\nreturn g()", "TypeError: the workflow's return value contains function"),
    error("default-args-stays-read-only", "def f(a=args):\n    a['k'] = 1\n    return a\nreturn f()", "TypeError: `args` is read-only"),
    compile_error("default-dunder-parameter", "def f(__x=1):\n    return __x\nreturn f()", "DWF202"),
    compile_error("default-dunder-attribute", "def f(x=len.__self__):\n    return x\nreturn f()", "DWF202"),
    safe_value("default-awaitable-runs-once", "def f(x=agent('a').ask('q')):\n    return x\nreturn [await f(), await f()]", ["q", "q"]),
    # ---- defaults that recurse or grow
    error("default-refers-to-its-function", "def f(x=f):\n    return x\nreturn f()", "`f` is used before it is assigned"),
    error("default-shared-recursion", "def f(n, seen=[]):\n    seen.append(n)\n    return f(n + 1)\nreturn f(0)",
          LIMIT + "the recursion limit", line=3),
    error("default-grows-across-calls", "def add(acc=[]):\n    acc.extend(range(1000))\n    return len(acc)\n"
          "for i in range(2000):\n    n = add()\nreturn n", LIMIT + "the container size limit", line=2),
    error("default-huge-list", "def f(x=[0] * 10 ** 7):\n    return len(x)\nreturn f()", LIMIT + "the container size limit", line=1),
    error("default-huge-range", "def f(x=list(range(10 ** 8))):\n    return len(x)\nreturn f()", LIMIT + "the range size limit", line=1),
    error("default-costs-steps", "def f(x=sum(range(10 ** 7))):\n    return x\nreturn f()", LIMIT + "the step limit", SMALL, line=1),
    error("lambda-defaults-in-loop-cost-steps", "fs = [lambda i=i, s=sum(range(1000)): i for i in range(100000)]\nreturn len(fs)",
          LIMIT + "the step limit", SMALL, line=1),
    error("star-args-huge", "def f(*a):\n    return len(a)\nreturn f(*range(2_000_000))", LIMIT + "the container size limit", line=3),
    safe_value("kwargs-dunder-keys-are-data", "def f(**kw):\n    return kw\nreturn f(**{'__class__': 1, '__init__': 2})",
               {"__class__": 1, "__init__": 2}),
    safe_value("posonly-name-into-kwargs", "def f(a, /, **kw):\n    return [a, kw]\nreturn f(1, **{'a': 2})", [1, {"a": 2}]),
    # ---- TypedDict constructor abuse
    safe_value("typeddict-dunder-keys-are-data", ISSUE + "return Issue(**{'__class__': 1, '__dict__': {}})",
               {"__class__": 1, "__dict__": {}}),
    compile_error("typeddict-dunder-keyword", ISSUE + "return Issue(__class__=1)", "DWF327"),
    compile_error("typeddict-as-isinstance-class", ISSUE + "return isinstance({}, Issue)", "DWF208"),
    compile_error("typeddict-of-itself", ISSUE + "return Issue(Issue)", "DWF208"),
    error("typeddict-holding-an-actor", ISSUE + "return Issue(file=agent('x'))", "TypeError: the workflow's return value contains Agent"),
    error("typeddict-of-a-facade", ISSUE + "return Issue(files)", "TypeError: 'facade' object is not iterable"),
    safe_value("typeddict-of-args-is-a-copy", ISSUE + "d = Issue(args)\nd['x'] = 1\nreturn [d, len(args)]", [{"x": 1}, 0]),
    error("typeddict-huge-pairs-not-copied", ISSUE + "big = list(range(100000))\nreturn Issue([big] * 1000)",
          "ValueError: dictionary update sequence element #0 has length 100000; 2 is required"),
    error("typeddict-huge-spread", ISSUE + "return Issue(**{str(i): i for i in range(2_000_000)})",
          LIMIT + "the container size limit", line=4),
]
