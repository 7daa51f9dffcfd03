"""Escape cases for dict views (`keys()`, `values()`, `items()`) and self-documenting f-string
fields (`f"{x=}"`): no view attribute reaches the dict's internals or a Python object, views of
`args` stay read-only, a view never becomes JSON, reprs of views inside their own dict stop at
`...`, and every walk, repr, set operation and tuple a view makes stays within the limits."""

from escape_kinds import LIMIT, MISUSE, SMALL, Limits, compile_error, error, safe_value

ARGS_META = ('\nmeta = {"name": "views", "description": "Views of args.", "args": {"paths": {"type": "json", '
             '"default": ["a.py", "b.py"]}, "mode": {"type": "string", "default": "fast"}}}\n')
# A dict whose values alias each other at every level: 61 small dicts, 2**61 paths.
DAG = "a = {'x': 1}\nb = {'x': 1}\nfor i in range(60):\n    a = {'x': a, 'y': a}\n    b = {'x': b, 'y': b}\n"

CORPUS = [
    # ---- no attribute reaches the dict, its Python view or the items check
    error("view-mapping", "d = {'a': 1}\nreturn d.keys().mapping", "mapping"),
    error("view-values-mapping", "d = {'a': 1}\nv = [d.values()][0]\nreturn v.mapping", "mapping"),
    error("view-backing", "d = {'a': 1}\nreturn d.keys().backing", "backing"),
    error("view-check-pair", "d = {'a': 1}\nreturn d.items().check_pair", "check_pair"),
    error("view-private-dict", "d = {'a': 1}\nreturn d.items()._dict", "_dict"),
    error("view-of-view", "d = {'a': 1}\nreturn d.keys().keys()", "keys"),
    error("view-copy", "d = {'a': 1}\nreturn d.values().copy()", "copy"),
    error("view-isdisjoint-internals", "d = {'a': 1}\nm = d.keys().isdisjoint\nreturn m.fn", "AttributeError: 'builtin_function_or_method' object has no attribute 'fn'"),
    error("view-isdisjoint-receiver", "d = {'a': 1}\nm = d.items().isdisjoint\nreturn m.receiver", "AttributeError: 'builtin_function_or_method' object has no attribute 'receiver'"),
    compile_error("view-dunder-iter", "d = {'a': 1}\nreturn d.keys().__iter__()", "DWF202"),
    compile_error("view-dunder-class", "d = {'a': 1}\nreturn d.items().__class__", "DWF202"),
    safe_value("view-method-reprs", "d = {'a': 1}\nreturn [repr(d.keys), f'{d.keys().isdisjoint}', str(d.items().isdisjoint)]",
               ["<method keys of dict>", "<method isdisjoint of dict_keys>", "<method isdisjoint of dict_items>"]),
    safe_value("view-python-messages", "d = {'a': 1}\nout = []\nfor thunk in [lambda: d.keys() + 1, lambda: {d.keys()}, lambda: d.values() < d.values(),\n"
               "                  lambda: d.keys() < [1], lambda: d.items()(), lambda: [1].index(d.keys()), lambda: d.values() - {1}]:\n"
               "    try:\n        thunk()\n    except Exception as e:\n        out.append(str(e))\nreturn out",
               ["unsupported operand type(s) for +: 'dict_keys' and 'int'", "unhashable type: 'dict_keys'",
                "'<' not supported between instances of 'dict_values' and 'dict_values'",
                "'<' not supported between instances of 'dict_keys' and 'list'", "'dict_items' object is not callable",
                "dict_keys(['a']) is not in list", "unsupported operand type(s) for -: 'dict_values' and 'set'"]),
    # ---- views of `args`: live, read-only, never a way to change it
    safe_value("args-views", "return [list(args.keys()), list(args.values()), [list(p) for p in args.items()], len(args.keys()),\n"
               "        'mode' in args.keys(), sorted(args.keys() | {'z'}), str(args.keys())]" + ARGS_META,
               [["paths", "mode"], [["a.py", "b.py"], "fast"], [["paths", ["a.py", "b.py"]], ["mode", "fast"]], 2, True,
                ["mode", "paths", "z"], "dict_keys(['paths', 'mode'])"]),
    error("args-view-update", "args.keys().update({'x': 1})" + ARGS_META, "update"),
    error("args-items-subscript", "i = args.items()\ni['mode'] = 'slow'" + ARGS_META,
          "TypeError: 'dict_items' object does not support item assignment"),
    safe_value("args-view-mutated-copy", "k = args.keys() - set()\nk.add('new')\nreturn [sorted(k), list(args.keys())]" + ARGS_META,
               [["mode", "new", "paths"], ["paths", "mode"]]),
    # ---- a view is never JSON: returned, reported, logged, dumped
    error("return-keys-view", "d = {'a': 1}\nreturn d.keys()",
          "TypeError: the workflow's return value contains a dict_keys view, which is not JSON data; make it a list first"),
    error("return-nested-items-view", "d = {'a': 1}\nreturn {'pairs': d.items()}", "contains a dict_items view, which is not JSON data"),
    error("report-values-view", "d = {'a': 1}\nreport(d.values())", "contains a dict_values view, which is not JSON data"),
    error("dumps-view", "import json\nd = {'a': 1}\nreturn json.dumps({'k': d.keys()})", "TypeError: Object of type dict_keys is not JSON serializable"),
    safe_value("log-view", "d = {'a': [1]}\nlog(d.items())\nlog(f'{d.keys()=}')\nreturn 'logged'", "logged"),
    safe_value("return-list-of-view", "d = {'b': 1, 'a': 2}\nreturn [list(d.keys()), sorted(d.values()), dict(d.items())]",
               [["b", "a"], [1, 2], {"b": 1, "a": 2}]),
    # ---- reprs of views inside their own dict stop; large ones are refused, not built
    safe_value("self-containing-keys", "d = {}\nd['k'] = d.keys()\nreturn [repr(d), str(d['k'])]", ["{'k': dict_keys(['k'])}", "dict_keys(['k'])"]),
    safe_value("self-containing-values", "d = {}\nd['v'] = d.values()\nreturn [repr(d), str(d.values())]",
               ["{'v': dict_values([...])}", "dict_values([dict_values([...])])"]),
    safe_value("self-containing-items", "d = {}\nd['i'] = d.items()\nreturn repr(d)", "{'i': dict_items([('i', ...)])}"),
    safe_value("self-containing-views-compare", "d = {}\nd['k'] = d.keys()\nd['i'] = d.items()\nreturn [d.keys() == {'k', 'i'}, ('k', d['k']) in d.items(), len(d.values())]",
               [True, True, 2]),
    error("view-repr-huge", "d = {i: 'a' * 10 ** 6 for i in range(100)}\nreturn len(str(d.values()))", LIMIT + "the string size limit", line=2),
    error("view-items-repr-huge", "s = 'x' * 10 ** 7\nd = {'a': s, 'b': s}\nreturn len(repr(d.items()))", LIMIT + "the string size limit", line=3),
    error("view-repr-dag", DAG + "return len(str(a.values()))", LIMIT + "the string size limit", line=6),
    error("view-fstring-dag", DAG + "return len(f'{a.items()=}')", LIMIT + "the string size limit", line=6),
    error("view-log-dag", DAG + "log(a.keys())\nlog(a.values())", LIMIT + "the string size limit", line=7),
    safe_value("view-keys-of-dag", DAG + "return [str(a.keys()), len(a.keys() | b.keys()), a.keys() == b.keys(), list(reversed(a.keys()))]",
               ["dict_keys(['x', 'y'])", 2, True, ["y", "x"]]),
    # ---- comparisons and set operations on views walk the values: charged first
    error("items-equal-dag", DAG + "return a.items() == b.items()", LIMIT + "the step limit", line=6),
    error("items-xor-dag", DAG + "return a.items() ^ b.items()", LIMIT + "the step limit", line=6),
    error("items-and-dag", DAG + "return a.items() & b.items()", LIMIT + "the step limit", line=6),
    error("items-contains-dag", DAG + "return ('x', b['x']) in a.items()", LIMIT + "the step limit", line=6),
    error("values-contains-dag", DAG + "return b in a.values()", LIMIT + "the step limit", line=6),
    error("items-isdisjoint-dag", DAG + "return a.items().isdisjoint(b.items())", LIMIT + "the step limit", line=6),
    error("values-sorted-dag", DAG + "return sorted([a, b], key=lambda d: list(d.values()))", LIMIT + "the step limit", line=6),
    safe_value("views-small-dag", "a = {'x': 1}\nb = {'x': 1}\nfor i in range(8):\n    a = {'x': a, 'y': a}\n    b = {'x': b, 'y': b}\n"
               "return [a.items() == b.items(), len(a.items() ^ b.items()), b in a.values(), ('x', b['x']) in a.items()]", [True, 0, False, True]),
    error("keys-difference-loop", "d = {i: i for i in range(10 ** 5)}\nwhile True:\n    e = d.keys() - d.keys()", LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("values-contains-loop", "d = {i: i for i in range(10 ** 5)}\nwhile -1 not in d.values():\n    pass", LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("items-equal-loop", "d = {i: [i] for i in range(5 * 10 ** 4)}\ne = {i: [i] for i in range(5 * 10 ** 4)}\nwhile d.items() == e.items():\n    pass",
          LIMIT + "the step limit (200,000)", SMALL, line=3),
    error("keys-union-growth", "d = {i: i for i in range(900)}\nreturn len(d.keys() | range(900, 1800))", LIMIT + "the container size limit (1,000)",
          Limits(items=1_000), line=2),
    error("items-union-growth", "d = {i: i for i in range(900)}\ne = {i: -i for i in range(900)}\nreturn len(d.items() | e.items())",
          LIMIT + "the container size limit (1,000)", Limits(items=1_000), line=3),
    error("list-of-view-growth", "d = {}\nk = d.keys()\nfor i in range(2000):\n    d[i] = i\nreturn len(list(k) * 1000)",
          LIMIT + "the container size limit", line=5),
    # ---- pairs an items view hands out are new tuples: bounded like every other tuple
    error("items-nested-tuples", "t = ()\nfor i in range(100000):\n    t = list({0: t}.items())[0]", LIMIT + "the recursion limit (200) was exceeded by tuples", line=3),
    error("items-loop-nested-tuples", "t = ()\nfor i in range(100000):\n    for pair in {0: t}.items():\n        t = pair",
          LIMIT + "the recursion limit (200) was exceeded by tuples", line=3),
    error("items-tuple-dag", "t = ()\nfor i in range(64):\n    t = list({t: t}.items())[0]", LIMIT + "the container size limit (1,000,000) was exceeded by "
          "the items of nested tuples", line=3),
    error("items-reversed-tuple-dag", "t = ()\nfor i in range(64):\n    t = list(reversed({t: t}.items()))[0]", LIMIT + "the container size limit", line=3),
    error("items-set-tuple-dag", "t = ()\nfor i in range(64):\n    t = list({t: t}.items() | set())[0]", LIMIT + "the container size limit", line=3),
    error("items-xor-tuple-dag", "t = ()\nfor i in range(64):\n    t = list({t: t}.items() ^ {0: 0}.items())[0]", LIMIT + "the container size limit", line=3),
    # ---- views feed joins like any iterable, within the fan-out limit
    safe_value("parallel-of-values", "async def f(i):\n    return i * 2\npending = {i: f(i) for i in range(3)}\nreturn await parallel(pending.values())", [0, 2, 4]),
    error("parallel-of-values-bomb", "async def f(i):\n    return i\npending = {i: f(i) for i in range(5000)}\nreturn await parallel(pending.values())",
          LIMIT + "the fan-out limit (4,096)", line=4),
    safe_value("pipeline-of-keys", "d = {'a': 1, 'b': 2}\nreturn await pipeline(d.keys(), lambda previous, item, index: item * 2)", ["aa", "bb"]),
    # ---- changing what is iterated: a catchable RuntimeError, never an internal error or a hang
    error("dict-changed-uncaught", "d = {'a': 1}\nfor k in d:\n    d[k + k] = 1", "RuntimeError: dictionary changed size during iteration"),
    error("set-changed-uncaught", "s = {1}\nfor x in s:\n    s.add(x + 1)", "RuntimeError: Set changed size during iteration"),
    safe_value("set-same-size-change", "s = {1, 2}\ntry:\n    for x in s:\n        s.discard(x)\n        s.add(x + 10)\nexcept RuntimeError as e:\n    return str(e)\nreturn sorted(s)",
               "Set changed during iteration"),
    safe_value("set-growth-refused", "s = {0}\ntry:\n    for x in s:\n        s.add(x + 1)\nexcept RuntimeError as e:\n    return [str(e), len(s)]",
               ["Set changed size during iteration", 2]),
    error("recursion-still-a-limit-inside-try", "x = []\nfor i in range(100000):\n    x = [x]\ntry:\n    s = str(x)\nexcept RuntimeError:\n    s = 'caught'\nreturn s",
          LIMIT + "the recursion limit", line=5),
    # ---- self-documenting f-string fields with hostile expressions
    compile_error("fstring-equal-dunder", "x = 1\nreturn f'{x.__class__=}'", "DWF202"),
    compile_error("fstring-equal-import", "return f\"{__import__('os')=}\"", "DWF201"),
    compile_error("fstring-equal-getattr", "x = 1\nreturn f\"{getattr(x, 'real')=}\"", "DWF201"),
    compile_error("fstring-equal-code", "return f'{(lambda: 0).__code__=}'", "DWF202"),
    compile_error("fstring-equal-format-method", "return f\"{'{0.__class__}'.format(1)=}\"", "DWF203"),
    compile_error("fstring-equal-bad-conversion", "x = 1\nreturn f'{x=!z}'", "DWF001"),
    compile_error("fstring-equal-comment", "x = 1\nreturn f'''{x # c\n=}'''", "DWF001"),
    safe_value("fstring-equal-values", "def f():\n    pass\na = agent('helper')\nreturn [f'{f=}', f'{len=}', f'{[].append=}', f'{a=}', f'{ValueError=}']",
               ["f=<function f>", "len=<built-in function len>", "[].append=<method append of list>", "a=<agent helper>",
                "ValueError=<class 'ValueError'>"]),
    safe_value("fstring-equal-await", "return f\"{await files.read('b.py')=}\"", "await files.read('b.py')='y = 2\\n'"),
    error("fstring-equal-huge-value", "s = 'a' * 10 ** 7\nreturn len(f'{[s] * 10=}')", LIMIT + "the string size limit", line=2),
    error("fstring-equal-huge-expression-result", "return f\"{'a' * 10 ** 8=}\"", LIMIT + "the string size limit", line=1),
    error("fstring-equal-huge-width", "x = 1\nreturn f'{x=:>999999999}'", LIMIT + "the string size limit", line=2),
    error("fstring-equal-huge-nested-width", "x = 1\nreturn f\"{x=!r:{'>' * 10 ** 9}}\"", LIMIT + "the string size limit", line=2),
    error("fstring-equal-dag", "a = [1]\nfor i in range(60):\n    a = [a, a]\nreturn f'{a=}'", LIMIT + "the string size limit", line=4),
    error("fstring-equal-doubling", "s = 'ab'\nwhile True:\n    s = f'{s=}{s=}'", LIMIT + "the string size limit", line=3),
    safe_value("fstring-equal-long-expression", "x = 1\nreturn len(f'{" + " + ".join(["x"] * 300) + "=}')", len(" + ".join(["x"] * 300)) + 1 + 3),
]
