"""Differential snippets for exceptions: raising and catching every builtin exception type a
script can name, CPython's hierarchy, the messages of errors the interpreter raises (unbound
locals, bad unpacking, wrong call arity, calling a non-callable, overflow, JSON decoding),
user exception classes (declared at the top of the snippet, as DWF requires), `type(e).__name__`,
try/except/else/finally interplay, re-raising and `raise ... from`."""

BUILTIN_TYPES = [
    "Exception", "ValueError", "TypeError", "KeyError", "IndexError", "LookupError", "RuntimeError",
    "NotImplementedError", "AssertionError", "AttributeError", "NameError", "UnboundLocalError",
    "ZeroDivisionError", "ArithmeticError", "OverflowError", "RecursionError", "StopIteration", "TimeoutError",
]

# Each builtin type raised with a message, caught by its own name: str, repr, args and its name.
_EACH_TYPE = [
    (f"raise-catch-{name}",
     f"try:\n    raise {name}('step 3 failed', 3)\nexcept {name} as e:\n"
     f"    return [str(e), repr(e), list(e.args), type(e).__name__]")
    for name in BUILTIN_TYPES
]
# Each builtin type raised bare (the class, not an instance), caught by `Exception`.
_EACH_BARE = [
    (f"raise-bare-{name}", f"try:\n    raise {name}\nexcept Exception as e:\n    return [repr(e), str(e), list(e.args)]")
    for name in BUILTIN_TYPES
]

SNIPPETS: list[tuple[str, str]] = _EACH_TYPE + _EACH_BARE + [
    # ---- the hierarchy
    ("lookup-catches-key-and-index", "out = []\nfor thunk in [lambda: {}['missing'], lambda: [][0], lambda: 'ab'[5]]:\n"
     "    try:\n        thunk()\n    except LookupError as e:\n        out.append([type(e).__name__, str(e)])\nreturn out"),
    ("arithmetic-catches-zero-and-overflow", "out = []\nfor thunk in [lambda: 1 / 0, lambda: 2.0 ** 10000, lambda: math.exp(1000), lambda: 7 % 0]:\n"
     "    try:\n        thunk()\n    except ArithmeticError as e:\n        out.append([type(e).__name__, str(e)])\nreturn out"),
    ("runtime-catches-subclasses", "out = []\nfor kind in [NotImplementedError, RecursionError, RuntimeError]:\n    try:\n"
     "        raise kind('x')\n    except RuntimeError as e:\n        out.append(type(e).__name__)\nreturn out"),
    ("name-error-catches-unbound-local", "def f():\n    total += 1\n    total = 0\ntry:\n    f()\nexcept NameError as e:\n"
     "    return [type(e).__name__, str(e)]"),
    ("exception-catches-everything", "out = []\nfor kind in [ValueError, KeyError, TimeoutError, StopIteration, AssertionError, AttributeError]:\n"
     "    try:\n        raise kind('boom')\n    except Exception as e:\n        out.append([type(e).__name__, isinstance(e, Exception)])\nreturn out"),
    ("base-exception-in-except", "try:\n    raise TimeoutError('slow')\nexcept BaseException as e:\n    return ['caught', str(e)]"),
    ("isinstance-hierarchy", "e = KeyError('k')\nz = ZeroDivisionError('z')\nu = UnboundLocalError('u')\n"
     "return [isinstance(e, LookupError), isinstance(e, IndexError), isinstance(e, (ValueError, LookupError)), isinstance(z, ArithmeticError),\n"
     "        isinstance(z, ValueError), isinstance(u, NameError), isinstance(NotImplementedError(), RuntimeError), isinstance(TimeoutError(), Exception)]"),
    ("isinstance-non-exception-values", "return [isinstance('ValueError', Exception), isinstance(None, ValueError), isinstance([], LookupError)]"),
    ("first-matching-handler-wins", "out = []\nfor thunk in [lambda: {}['k'], lambda: [][1], lambda: int('x')]:\n    try:\n        thunk()\n"
     "    except KeyError:\n        out.append('key')\n    except LookupError:\n        out.append('lookup')\n    except Exception:\n        out.append('other')\nreturn out"),
    ("broad-handler-first-shadows", "try:\n    [][0]\nexcept Exception:\n    where = 'exception'\nexcept IndexError:\n    where = 'index'\nreturn where"),
    ("tuple-of-types", "out = []\nfor value in ['12', 'x', None]:\n    try:\n        out.append(int(value))\n    except (ValueError, TypeError) as e:\n"
     "        out.append(type(e).__name__)\nreturn out"),
    ("types-as-values", "kinds = {'missing': KeyError, 'bad': ValueError}\nout = []\nfor reason in ['bad', 'missing']:\n    try:\n"
     "        raise kinds[reason](reason)\n    except LookupError:\n        out.append(['lookup', reason])\n    except ValueError as e:\n        out.append(['value', str(e)])\nreturn out"),
    ("types-in-tuple-variable", "retryable = (TimeoutError, RuntimeError)\ntry:\n"
     "    raise RuntimeError('flaky')\nexcept retryable as e:\n    return 'retry: ' + str(e)"),
    ("uncaught-propagates-type", "try:\n    try:\n        {}['x']\n    except ValueError:\n        return 'wrong handler'\nexcept KeyError as e:\n    return 'outer: ' + repr(e)"),
    # ---- messages and args
    ("key-error-message-is-repr", "out = []\nfor key in ['k', 3, ('a', 1), '', None]:\n    try:\n        {}[key]\n    except KeyError as e:\n"
     "        out.append([str(e), list(e.args)])\nreturn out"),
    ("key-error-two-args", "e = KeyError('a', 'b')\nreturn [str(e), repr(e)]"),
    ("exception-arg-kinds", "out = []\nfor e in [ValueError(404), ValueError(None), ValueError([1, 2]), ValueError({'a': 1}), ValueError(''), ValueError(1.5), RuntimeError('a', None)]:\n"
     "    out.append([str(e), repr(e)])\nreturn out"),
    ("exception-no-args", "return [str(Exception()), repr(Exception()), list(Exception().args), repr(ValueError())]"),
    ("exception-in-fstring", "try:\n    raise ValueError('disk full')\nexcept ValueError as e:\n    return [f'{e}', f'{e!r}', f'failed: {e}', f'{type(e).__name__}: {e}']"),
    ("exception-keyword-args", "return ValueError(message='x')"),
    ("assert-message", "try:\n    assert 2 + 2 == 5, 'math is broken'\nexcept AssertionError as e:\n    return [str(e), repr(e)]"),
    ("assert-no-message", "try:\n    assert []\nexcept AssertionError as e:\n    return [str(e), repr(e), list(e.args)]"),
    ("assert-non-string-message", "items = [1, 2]\ntry:\n    assert len(items) > 2, items\nexcept AssertionError as e:\n    return [str(e), e.args[0]]"),
    ("assert-fstring-message", "path = 'a.py'\ntry:\n    assert path.endswith('.md'), f'{path} is not markdown'\nexcept AssertionError as e:\n    return str(e)"),
    ("assert-uncaught", "count = 0\nassert count, 'nothing to do'"),
    # ---- errors the interpreter raises
    ("unbound-local-message", "def f():\n    if False:\n        x = 1\n    return x\nreturn f()"),
    ("unbound-local-after-del", "x = 1\ndel x\nreturn x"),
    ("unbound-local-in-loop", "def last(items):\n    for item in items:\n        pass\n    return item\nreturn [last([1, 2]), last([])]"),
    ("unbound-free-variable", "def outer():\n    def inner():\n        return value\n    early = inner()\n    value = 1\n    return early\nreturn outer()"),
    ("unbound-del-twice", "x = 1\ndel x\ndel x"),
    ("except-name-unbound-after", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    pass\nreturn e"),
    ("except-name-restored-by-assign", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    saved = e\nreturn str(saved)"),
    ("unpack-too-many", "a, b = 'xyz'"),
    ("unpack-too-few", "a, b, c = [1, 2]"),
    ("unpack-star-too-few", "first, second, *rest = [1]"),
    ("unpack-non-iterable", "a, b = 5"),
    ("unpack-none", "def find():\n    return None\nkey, value = find()\nreturn key"),
    ("unpack-in-for", "out = []\nfor k, v in [('a', 1), ('b', 2, 3)]:\n    out.append(k)\nreturn out"),
    ("unpack-dict-items-wrong", "d = {'a': 1}\nfor k, v in d:\n    pass"),
    ("arity-missing-one", "def review(path, strict):\n    return path\nreturn [review][0]('a.py')"),
    ("arity-missing-two", "def review(path, strict, depth):\n    return path\nreturn [review][0]('a.py')"),
    ("arity-missing-three", "def review(path, strict, depth):\n    return path\nreturn [review][0]()"),
    ("arity-too-many", "def review(path):\n    return path\nreturn [review][0]('a.py', True)"),
    ("arity-too-many-with-defaults", "def review(path, strict=False):\n    return path\nreturn [review][0]('a.py', True, 3)"),
    ("arity-zero-params", "def ping():\n    return 1\nreturn [ping][0](1)"),
    ("arity-unexpected-keyword", "def review(path, strict=False):\n    return path\nreturn [review][0]('a.py', stirct=True)"),
    ("arity-multiple-values", "def review(path, strict=False):\n    return path\nreturn [review][0]('a.py', path='b.py')"),
    ("arity-keyword-before-positional-check", "def f(a):\n    return a\nreturn [f][0](1, 2, b=3)"),
    ("arity-lambda", "key = lambda item: item['name']\nreturn [key][0]()"),
    ("arity-nested-qualname", "def outer():\n    def helper(x, y):\n        return x\n    return [helper][0](1)\nreturn outer()"),
    ("arity-caught", "def f(a, b):\n    return a + b\ntry:\n    f(1)\nexcept TypeError as e:\n    return str(e)"),
    ("call-int", "count = 3\nreturn count()"),
    ("call-none", "handler = None\nreturn handler('x')"),
    ("call-str", "name = 'review'\nreturn name()"),
    ("call-list", "steps = [1]\nreturn steps(0)"),
    ("call-dict", "config = {}\nreturn config('k')"),
    ("subscript-none", "result = None\nreturn result['verdict']"),
    ("subscript-int", "n = 5\nreturn n[0]"),
    ("list-index-str", "items = [1, 2]\nreturn items['0']"),
    ("tuple-index-range", "t = (1, 2)\nreturn t[2]"),
    ("str-item-assignment", "s = 'abc'\ns[0] = 'x'"),
    ("tuple-item-assignment", "t = (1, 2)\nt[0] = 3"),
    ("iterate-none", "items = None\nfor item in items:\n    pass"),
    ("len-none", "return len(None)"),
    ("len-int", "n = 5\nreturn len(n)"),
    ("add-none", "total = None\nreturn total + 1"),
    ("compare-none", "return sorted([3, None, 1])"),
    ("int-of-inf", "return int(float('inf'))"),
    ("int-of-nan", "return int(float('nan'))"),
    ("math-exp-overflow", "return math.exp(1000)"),
    ("float-power-overflow", "return 2.0 ** 10000"),
    ("math-domain", "out = []\nfor thunk in [lambda: math.log(0), lambda: math.sqrt(-4), lambda: math.factorial(-1)]:\n    try:\n        thunk()\n"
     "    except ValueError as e:\n        out.append(str(e))\nreturn out"),
    ("overflow-caught-as-arithmetic", "try:\n    return int(float('-inf'))\nexcept ArithmeticError as e:\n    return [type(e).__name__, str(e)]"),
    ("pop-empty", "out = []\nfor thunk in [lambda: [].pop(), lambda: {}.popitem(), lambda: {}.pop('k'), lambda: set().pop()]:\n    try:\n        thunk()\n"
     "    except LookupError as e:\n        out.append([type(e).__name__, str(e)])\nreturn out"),
    ("str-index-not-found", "return 'abc'.index('z')"),
    ("int-parse-errors", "out = []\nfor text in ['12a', '', ' ', '1.5', '0x10']:\n    try:\n        int(text)\n    except ValueError as e:\n        out.append(str(e))\nreturn out"),
    ("raise-non-exception", "raise 'failed'"),
    ("raise-instance-of-non-exception", "raise ValueError is None"),
    ("bare-raise-without-active", "raise"),
    ("catch-non-exception-class", "try:\n    raise ValueError('x')\nexcept 'ValueError':\n    return 'caught'"),
    # ---- json.JSONDecodeError
    ("json-loads-bad", "return json.loads('{bad')"),
    ("json-loads-empty", "return json.loads('')"),
    ("json-loads-trailing-comma", "return json.loads('[1, 2,]')"),
    ("json-loads-extra-data", "return json.loads('{} {}')"),
    ("json-decode-error-fields", "text = '{\\n  \"a\": 1,\\n  \"b\": tru\\n}'\ntry:\n    json.loads(text)\nexcept json.JSONDecodeError as e:\n"
     "    return [str(e), e.msg, e.pos, e.lineno, e.colno, type(e).__name__]"),
    ("json-decode-error-is-value-error", "try:\n    json.loads('not json')\nexcept ValueError as e:\n"
     "    return [isinstance(e, json.JSONDecodeError), isinstance(e, ValueError), repr(e)]"),
    ("json-decode-error-handler-order", "out = []\nfor text in ['[1]', '[', '{\"a\": }']:\n    try:\n        out.append(json.loads(text))\n"
     "    except json.JSONDecodeError as e:\n        out.append(['bad', e.pos])\n    except ValueError:\n        out.append('value')\nreturn out"),
    ("json-model-output-retry", "answers = ['Sure! {\"ok\": true}', '{\"ok\": true}']\nfor attempt, text in enumerate(answers):\n    try:\n"
     "        data = json.loads(text)\n        break\n    except json.JSONDecodeError as e:\n        last = f'attempt {attempt}: {e}'\nreturn [data, last]"),
    ("json-decode-error-constructed", "e = json.JSONDecodeError('Expecting value', 'ab\\ncd', 4)\nreturn [str(e), e.lineno, e.colno, list(e.args)]"),
    ("json-type-error-not-decode-error", "try:\n    json.loads(5)\nexcept json.JSONDecodeError:\n    return 'decode'\nexcept TypeError:\n    return 'type'"),
    # ---- user exception classes
    ("user-class-pass", "class RetryError(Exception):\n    pass\ntry:\n    raise RetryError('tests still fail')\nexcept RetryError as e:\n"
     "    return [str(e), repr(e), list(e.args), type(e).__name__]"),
    ("user-class-docstring", "class RetryError(Exception):\n    \"\"\"Raised when a step should be retried.\"\"\"\ntry:\n    raise RetryError('flaky', 2)\n"
     "except Exception as e:\n    return [str(e), repr(e), list(e.args)]"),
    ("user-class-docstring-and-pass", "class RetryError(Exception):\n    \"\"\"Retry me.\"\"\"\n    pass\ne = RetryError()\nreturn [str(e), repr(e), list(e.args)]"),
    ("user-class-bare-raise", "class Abort(Exception):\n    pass\ntry:\n    raise Abort\nexcept Abort as e:\n    return [repr(e), str(e)]"),
    ("user-class-from-value-error", "class BadConfig(ValueError):\n    pass\ntry:\n    raise BadConfig('missing key: name')\nexcept ValueError as e:\n"
     "    return [type(e).__name__, str(e), isinstance(e, BadConfig), isinstance(e, Exception)]"),
    ("user-class-from-key-error", "class MissingField(KeyError):\n    pass\ntry:\n    raise MissingField('verdict')\nexcept LookupError as e:\n"
     "    return [str(e), repr(e)]"),
    ("user-class-chain", "class ReviewError(Exception):\n    pass\nclass ReviewTimeout(ReviewError):\n    pass\nclass ReviewRefused(ReviewError):\n    pass\n"
     "out = []\nfor kind in [ReviewTimeout, ReviewRefused, ReviewError]:\n    try:\n        raise kind('x')\n    except ReviewTimeout:\n"
     "        out.append('timeout')\n    except ReviewError as e:\n        out.append(type(e).__name__)\nreturn out"),
    ("user-class-not-caught-by-sibling", "class A(Exception):\n    pass\nclass B(Exception):\n    pass\ntry:\n    try:\n        raise A('a')\n"
     "    except B:\n        return 'wrong'\nexcept A as e:\n    return 'right: ' + str(e)"),
    ("user-class-isinstance", "class StepError(RuntimeError):\n    pass\ne = StepError('x')\nreturn [isinstance(e, StepError), isinstance(e, RuntimeError), isinstance(e, Exception),\n"
     "        isinstance(e, ValueError), isinstance(ValueError('v'), StepError), isinstance(e, (KeyError, StepError))]"),
    ("user-class-str-tuple-args", "class RetryError(Exception):\n    pass\nreturn [str(RetryError('a', 2)), repr(RetryError('a', 2)), str(RetryError()), repr(RetryError(None))]"),
    ("user-class-in-tuple-handler", "class Flaky(Exception):\n    pass\nout = []\nfor kind in [Flaky, TimeoutError, ValueError]:\n    try:\n        raise kind('x')\n"
     "    except (Flaky, TimeoutError):\n        out.append('retry')\n    except Exception:\n        out.append('give up')\nreturn out"),
    ("user-class-raised-in-helper", "class ParseError(ValueError):\n    pass\ndef parse(line):\n    if '=' not in line:\n        raise ParseError(f'no = in {line!r}')\n"
     "    key, value = line.split('=', 1)\n    return key\nout = []\nfor line in ['a=1', 'oops']:\n    try:\n        out.append(parse(line))\n"
     "    except ParseError as e:\n        out.append(str(e))\nreturn out"),
    ("user-class-uncaught", "class BudgetGone(Exception):\n    pass\nraise BudgetGone('spent 100 of 100')"),
    ("user-class-from-timeout", "class AgentTimeout(TimeoutError):\n    pass\ntry:\n    raise AgentTimeout('reviewer took too long')\nexcept TimeoutError as e:\n"
     "    return [type(e).__name__, str(e)]"),
    ("user-class-from-lookup", "class NotFound(LookupError):\n    pass\ntry:\n    raise NotFound('no such file')\nexcept LookupError as e:\n    return [str(e), isinstance(e, KeyError)]"),
    ("user-class-as-value", "class Skip(Exception):\n    pass\nhandlers = [Skip, ValueError]\nout = []\nfor kind in handlers:\n    try:\n        raise kind('why')\n"
     "    except Skip:\n        out.append('skip')\n    except ValueError:\n        out.append('value')\nreturn out"),
    ("user-class-keyword-args", "class RetryError(Exception):\n    pass\nreturn RetryError(attempts=3)"),
    # ---- type(e).__name__
    ("type-name-of-values", "def f():\n    pass\nreturn [type(v).__name__ for v in [None, True, 1, 2.5, 'x', [], {}, (), {1}, range(2), f, lambda: 0, len, str, ValueError]]"),
    ("type-name-of-iterators", "return [type(v).__name__ for v in [map(str, []), zip(), enumerate([]), filter(None, []), (x for x in [])]]"),
    ("type-name-of-methods-and-modules", "return [type([].append).__name__, type('a'.upper).__name__, type(json).__name__, type(json.loads).__name__, type(math.pi).__name__]"),
    ("type-name-of-match", "m = re.match('a', 'abc')\nreturn [type(m).__name__, type(re.match('z', 'abc')).__name__]"),
    ("type-name-in-log-line", "failures = []\nfor thunk in [lambda: 1 / 0, lambda: {}['k'], lambda: int('x'), lambda: None + 1]:\n    try:\n        thunk()\n"
     "    except Exception as e:\n        failures.append(f'{type(e).__name__}: {e}')\nreturn failures"),
    ("type-name-of-user-class", "class RetryError(Exception):\n    pass\nreturn [type(RetryError('x')).__name__, type(RetryError).__name__]"),
    ("type-name-string-methods", "return [type(3).__name__.upper(), len(type({}).__name__), type([]).__name__ == 'list']"),
    # ---- try / except / else / finally
    ("else-runs-without-error", "out = []\ntry:\n    out.append('body')\nexcept ValueError:\n    out.append('except')\nelse:\n    out.append('else')\nfinally:\n"
     "    out.append('finally')\nreturn out"),
    ("else-skipped-on-error", "out = []\ntry:\n    int('x')\nexcept ValueError:\n    out.append('except')\nelse:\n    out.append('else')\nfinally:\n"
     "    out.append('finally')\nreturn out"),
    ("error-in-else-not-caught-here", "out = []\ntry:\n    try:\n        out.append('body')\n    except KeyError:\n        out.append('inner except')\n"
     "    else:\n        {}['k']\n    finally:\n        out.append('inner finally')\nexcept KeyError:\n    out.append('outer')\nreturn out"),
    ("finally-runs-on-uncaught", "out = []\ndef f():\n    try:\n        raise ValueError('x')\n    finally:\n        out.append('cleanup')\ntry:\n    f()\nexcept ValueError:\n"
     "    out.append('caught')\nreturn out"),
    ("finally-return-overrides", "def f():\n    try:\n        raise ValueError('lost')\n    finally:\n        return 'finally wins'\nreturn f()"),
    ("finally-return-overrides-return", "def f():\n    try:\n        return 'body'\n    finally:\n        return 'finally'\nreturn f()"),
    ("error-in-handler-propagates", "out = []\ntry:\n    try:\n        {}['k']\n    except KeyError:\n        out.append('handler')\n        int('x')\n"
     "    finally:\n        out.append('finally')\nexcept ValueError as e:\n    out.append(str(e))\nreturn out"),
    ("break-in-try-finally", "out = []\nfor i in range(5):\n    try:\n        if i == 2:\n            break\n        out.append(i)\n    finally:\n"
     "        out.append('f')\nreturn out"),
    ("continue-in-try-except", "out = []\nfor text in ['1', 'x', '3']:\n    try:\n        n = int(text)\n    except ValueError:\n        continue\n"
     "    out.append(n)\nreturn out"),
    ("retry-loop", "attempts = []\nresults = iter_results = [ValueError('flaky'), ValueError('flaky'), 'ok']\nfor attempt in range(5):\n"
     "    outcome = results[attempt]\n    try:\n        if isinstance(outcome, Exception):\n            raise outcome\n        break\n"
     "    except ValueError as e:\n        attempts.append(f'{attempt}: {e}')\nreturn [attempts, outcome]"),
    ("nested-try-inner-handles", "out = []\ntry:\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        out.append('inner')\n"
     "    out.append('after inner')\nexcept Exception:\n    out.append('outer')\nreturn out"),
    ("except-without-name", "try:\n    [].pop()\nexcept IndexError:\n    return 'empty'"),
    ("bare-except", "try:\n    {}['k']\nexcept:\n    return 'caught by bare except'"),
    ("exception-in-comprehension", "def check(x):\n    if x < 0:\n        raise ValueError(f'negative: {x}')\n    return x\ntry:\n"
     "    return [check(x) for x in [1, -2, 3]]\nexcept ValueError as e:\n    return str(e)"),
    ("exception-from-sort-key", "try:\n    return sorted([{'n': 1}, {}], key=lambda d: d['n'])\nexcept KeyError as e:\n    return 'missing ' + str(e)"),
    ("exception-from-map", "try:\n    return list(map(int, ['1', 'two']))\nexcept ValueError as e:\n    return str(e)"),
    # ---- re-raise and raise ... from
    ("reraise-bare", "out = []\ntry:\n    try:\n        raise KeyError('inner')\n    except KeyError:\n        out.append('logged')\n        raise\n"
     "except KeyError as e:\n    out.append(repr(e))\nreturn out"),
    ("reraise-named", "try:\n    try:\n        int('x')\n    except ValueError as e:\n        raise e\nexcept ValueError as e:\n    return str(e)"),
    ("reraise-different-type", "try:\n    try:\n        {}['k']\n    except KeyError as e:\n        raise ValueError(f'bad input: {e}')\nexcept ValueError as e:\n"
     "    return str(e)"),
    ("raise-from", "try:\n    try:\n        json.loads('{')\n    except ValueError as e:\n        raise RuntimeError('could not parse the reply') from e\n"
     "except RuntimeError as e:\n    return [str(e), type(e).__name__]"),
    ("raise-from-none", "try:\n    try:\n        {}['k']\n    except KeyError:\n        raise LookupError('no such key') from None\nexcept LookupError as e:\n"
     "    return repr(e)"),
    ("raise-from-class", "try:\n    raise ValueError('x') from KeyError\nexcept ValueError as e:\n    return str(e)"),
    ("raise-from-non-exception", "raise ValueError('x') from 5"),
    ("raise-from-user-class", "class StepFailed(Exception):\n    pass\ntry:\n    try:\n        1 / 0\n    except ZeroDivisionError as e:\n"
     "        raise StepFailed('division step') from e\nexcept StepFailed as e:\n    return [repr(e), str(e)]"),
    ("reraise-in-nested-function-handler", "def risky():\n    raise TimeoutError('slow agent')\ndef run():\n    try:\n        risky()\n    except TimeoutError:\n"
     "        raise\ntry:\n    run()\nexcept Exception as e:\n    return [type(e).__name__, str(e)]"),
    ("stop-iteration-raised", "def first(items):\n    for item in items:\n        return item\n    raise StopIteration('empty')\ntry:\n    first([])\n"
     "except StopIteration as e:\n    return [str(e), repr(e)]"),
    ("timeout-error-errno-forms", "return [str(TimeoutError(110, 'timed out')), str(TimeoutError(110, 'timed out', 'job.log')), str(TimeoutError('a', 'b', 'c', 'd', 'e', 'f'))]"),
    ("exception-args-kept", "e = TimeoutError(110, 'timed out')\nreturn [list(e.args), repr(e)]"),
    ("not-implemented", "def handler(kind):\n    if kind == 'pdf':\n        raise NotImplementedError(f'no {kind} support yet')\n    return kind\n"
     "out = []\nfor kind in ['md', 'pdf']:\n    try:\n        out.append(handler(kind))\n    except NotImplementedError as e:\n        out.append(str(e))\nreturn out"),
]
