"""Differential snippets for attribute access on values whose kind is known only at run time
(function parameters, items of mixed lists, JSON data, results of calls): the allowed
attributes work, and a missing one is a catchable `AttributeError` with CPython's exact message,
`e.name` and `e.args`. Receivers come through parameters or containers so that the snippets
stay about run-time behaviour (the compiler refuses a wrong attribute on a value of known kind)."""

# One missing attribute on each kind of value, through a helper's parameter.
_MISSING = [
    ("none-get", "None", "get"), ("none-strip", "None", "strip"), ("str-foo", "'text'", "foo"),
    ("str-startwith", "'text'", "startwith"), ("str-contains", "'text'", "contains"), ("str-length", "'text'", "length"),
    ("list-push", "[1, 2]", "push"), ("list-add", "[1, 2]", "add"), ("list-length", "[]", "length"),
    ("dict-has-key", "{'a': 1}", "has_key"), ("dict-iteritems", "{}", "iteritems"), ("dict-field", "{'verdict': 'ok'}", "verdict"),
    ("int-x", "5", "x"), ("int-length", "5", "length"), ("float-round", "2.5", "round"), ("bool-foo", "True", "foo"),
    ("tuple-append", "(1, 2)", "append"), ("set-append", "{1}", "append"), ("range-foo", "range(3)", "foo"),
    ("exception-message", "ValueError('bad')", "message"), ("exception-code", "KeyError('k')", "code"),
    ("exception-class-foo", "ValueError", "foo"), ("builtin-foo", "len", "foo"), ("builtin-type-foo", "str", "foo"),
    ("method-foo", "[].append", "foo"), ("module-foo", "json", "foo"), ("math-module-foo", "math", "random"),
    ("map-foo", "map(str, [])", "foo"), ("zip-foo", "zip()", "foo"), ("enumerate-foo", "enumerate([])", "foo"),
    ("filter-foo", "filter(None, [])", "foo"), ("generator-foo", "(x for x in [])", "foo"),
    ("match-foo", "re.match('a', 'a')", "foo"), ("function-foo", "lambda: 0", "foo"),
]
_EACH = [
    (f"missing-{name}", f"def read(value):\n    return value.{attr}\ntry:\n    read({value})\nexcept AttributeError as e:\n"
     f"    return [str(e), list(e.args), e.name, type(e).__name__]")
    for name, value, attr in _MISSING
]

SNIPPETS: list[tuple[str, str]] = _EACH + [
    # ---- uncaught: the run fails with CPython's type and message
    ("uncaught-none-get", "def verdict(reply):\n    return reply.get('verdict')\nreturn verdict(None)"),
    ("uncaught-method-on-int", "def shout(text):\n    return text.upper()\nreturn shout(42)"),
    ("uncaught-in-comprehension", "values = ['a', 1, 'b']\nreturn [v.upper() for v in values]"),
    # ---- the mistakes models make
    ("re-match-none-group", "def version(text):\n    return re.match(r'v(\\d+)', text).group(1)\nout = []\nfor text in ['v12', 'no version']:\n"
     "    try:\n        out.append(version(text))\n    except AttributeError as e:\n        out.append(str(e))\nreturn out"),
    ("dict-get-none-strip", "data = {'title': ' Fix '}\nout = []\nfor key in ['title', 'body']:\n    try:\n        out.append(data.get(key).strip())\n"
     "    except AttributeError as e:\n        out.append(str(e))\nreturn out"),
    ("sort-returns-none", "def ordered(items):\n    result = items.sort()\n    return result.copy()\ntry:\n    ordered([3, 1])\nexcept AttributeError as e:\n    return str(e)"),
    ("json-list-get", "def field(text):\n    return json.loads(text).get('name')\nout = []\nfor text in ['{\"name\": \"a\"}', '[1, 2]', 'null']:\n    try:\n"
     "        out.append(field(text))\n    except AttributeError as e:\n        out.append(str(e))\nreturn out"),
    ("ask-result-attribute-style", "def summarize(review):\n    return review.severity\ntry:\n    summarize({'severity': 'high'})\nexcept AttributeError as e:\n"
     "    return f'{type(e).__name__}: {e}'"),
    ("sorted-key-attribute", "findings = [{'line': 3}, {'line': 1}]\ntry:\n    return sorted(findings, key=lambda f: f.line)\nexcept AttributeError as e:\n"
     "    return str(e)"),
    ("map-strip-none", "lines = [' a ', None]\ntry:\n    return list(map(lambda s: s.strip(), lines))\nexcept AttributeError as e:\n    return str(e)"),
    ("function-returns-none", "def load():\n    pass\ntry:\n    return load().items()\nexcept AttributeError as e:\n    return str(e)"),
    ("list-strip", "def clean(lines):\n    return lines.strip()\ntry:\n    clean(['a', 'b'])\nexcept AttributeError as e:\n    return str(e)"),
    ("int-split", "def parts(value):\n    return value.split(',')\ntry:\n    parts(12)\nexcept AttributeError as e:\n    return str(e)"),
    ("exception-msg-on-value-error", "try:\n    int('x')\nexcept ValueError as e:\n    try:\n        return e.msg\n    except AttributeError as inner:\n"
     "        return [str(e), str(inner)]"),
    ("user-exception-detail", "class ReviewError(Exception):\n    pass\ntry:\n    raise ReviewError('a.py', 3)\nexcept ReviewError as e:\n"
     "    try:\n        return e.path\n    except AttributeError as inner:\n        return [list(e.args), str(inner)]"),
    ("type-name-then-attribute", "def describe(value):\n    return type(value).__name__.titel()\ntry:\n    return describe(1)\nexcept AttributeError as e:\n"
     "    return [str(e), type(1).__name__.title()]"),
    ("args-tuple-attribute", "e = ValueError('a', 'b')\ntry:\n    return e.args.first\nexcept AttributeError as inner:\n    return str(inner)"),
    # ---- handling it
    ("fallback-when-missing", "def as_text(value):\n    try:\n        return value.strip()\n    except AttributeError:\n        return str(value)\n"
     "return [as_text(' a '), as_text(3), as_text(None), as_text([1])]"),
    ("caught-by-exception", "def read(v):\n    return v.value\ntry:\n    read({})\nexcept Exception as e:\n    return [isinstance(e, AttributeError), isinstance(e, LookupError), repr(e)]"),
    ("handler-order-attribute-vs-type", "def use(v):\n    return v.upper() + 1\nout = []\nfor v in ['a', 5]:\n    try:\n        use(v)\n"
     "    except TypeError as e:\n        out.append(['type', str(e)])\n    except AttributeError as e:\n        out.append(['attribute', str(e)])\nreturn out"),
    ("explicit-attribute-error", "try:\n    raise AttributeError('no such option: verbose')\nexcept AttributeError as e:\n    return [str(e), repr(e)]"),
    ("attribute-error-in-fstring", "def name(x):\n    return x.name\ntry:\n    name(None)\nexcept AttributeError as e:\n    return f'skipped ({e})'"),
    ("first-missing-attribute-wins", "def chain(v):\n    return v.first.second\ntry:\n    chain(None)\nexcept AttributeError as e:\n    return e.name"),
    # ---- the allowed attributes, on values of unknown kind
    ("allowed-methods", "def use(s, l, d):\n    l.append(s.upper())\n    d.update(k=len(l))\n    return [s.strip('x'), l, d.get('k'), sorted(d.items())]\n"
     "return use('xax', [1], {})"),
    ("allowed-number-attributes", "def parts(n, f):\n    return [n.real, n.imag, n.numerator, n.denominator, f.real, f.is_integer(), n.bit_length()]\nreturn parts(12, 2.0)"),
    ("allowed-exception-args", "def args_of(e):\n    return list(e.args)\nreturn [args_of(ValueError('a', 1)), args_of(KeyError()), args_of(RuntimeError(None))]"),
    ("allowed-match-methods", "def groups(m):\n    return [m.group(0), m.groups(), m.span(), m.start(1)]\nreturn groups(re.search(r'(\\d+)-(\\d+)', 'pr 12-34'))"),
    ("allowed-module-members", "def use(module):\n    return module.dumps([1])\nreturn use(json)"),
    ("bound-method-value", "def method(s):\n    return s.upper\nup = method('abc')\nreturn [up(), type(up).__name__]"),
]
