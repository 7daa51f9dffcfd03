"""Escapes against exceptions, exception classes and `type(x).__name__`: reaching a traceback,
context or cause, mutating `e.args`, exception classes as values, every other use of `type()`
and of a dunder, catching fatal errors with `except BaseException`, hostile class
declarations and arguments, raise recursion and re-raise loops."""

from escape_kinds import LIMIT, MISUSE, SMALL, compile_error, error, safe_value

CAUGHT = "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    "

CORPUS = [
    # ---- the traceback, context and cause stay out of reach
    compile_error("exception-context", CAUGHT + "return e.__context__", "DWF202"),
    compile_error("exception-cause", CAUGHT + "return e.__cause__", "DWF202"),
    compile_error("exception-suppress-context", CAUGHT + "return e.__suppress_context__", "DWF202"),
    compile_error("exception-notes", CAUGHT + "return e.__notes__", "DWF202"),
    compile_error("exception-class-dunder", CAUGHT + "return e.__class__", "DWF202"),
    error("exception-traceback-dynamic", "errors = []\n" + CAUGHT + "errors.append(e)\nreturn errors[0].with_traceback(None)",
          MISUSE + "`ZeroDivisionError` has no allowed attribute `with_traceback`"),
    error("exception-add-note", CAUGHT + "e.add_note('x')", MISUSE + "`ZeroDivisionError` has no allowed attribute `add_note`"),
    error("attribute-error-obj", "def f(v):\n    return v.nope\ntry:\n    f(None)\nexcept AttributeError as e:\n    return e.obj",
          MISUSE + "`AttributeError` has no allowed attribute `obj`"),
    error("exception-private-fields", CAUGHT + "return e.lineage", "AttributeError: 'ZeroDivisionError' object has no attribute 'lineage'"),
    error("exception-message-field", CAUGHT + "return e.message", "AttributeError: 'ZeroDivisionError' object has no attribute 'message'"),
    # ---- e.args is an immutable tuple of the script's own values
    error("exception-args-append", "e = ValueError('a')\ne.args.append('b')", "AttributeError: 'tuple' object has no attribute 'append'"),
    error("exception-args-item", "e = ValueError('a')\ne.args[0] = 'b'", "TypeError: 'tuple' object does not support item assignment"),
    compile_error("exception-args-assign", "e = ValueError('a')\ne.args = ('b',)", "DWF109"),
    safe_value("exception-args-shared-list", "items = [1]\ne = ValueError(items)\ne.args[0].append(2)\nreturn [items, str(e)]",
               [[1, 2], "[1]"]),
    # ---- exception classes as values
    safe_value("exception-class-reprs", "class RetryError(Exception):\n    pass\nimport json\n"
               "return [repr(ValueError), str(RetryError), f'{json.JSONDecodeError}', repr([KeyError])]",
               ["<class 'ValueError'>", "<class 'RetryError'>", "<class 'json.decoder.JSONDecodeError'>", "[<class 'KeyError'>]"]),
    error("exception-class-returned", "class RetryError(Exception):\n    pass\nreturn [RetryError]",
          "TypeError: the workflow's return value contains type (<class 'RetryError'>)"),
    error("exception-instance-returned", "return {'error': ValueError('x')}", "TypeError: the workflow's return value contains ValueError"),
    error("exception-class-mro", "class RetryError(Exception):\n    pass\nkinds = [RetryError]\nreturn kinds[0].mro()",
          MISUSE + "`type` has no allowed attribute `mro`"),
    error("exception-class-unknown-attribute", "kinds = [ValueError]\nreturn kinds[0].origin",
          "AttributeError: type object 'ValueError' has no attribute 'origin'"),
    compile_error("exception-class-subclasses", "class RetryError(Exception):\n    pass\nreturn RetryError.__subclasses__()", "DWF202"),
    compile_error("exception-class-bases", "return ValueError.__bases__", "DWF202"),
    safe_value("exception-classes-compare-and-hash", "class A(Exception):\n    pass\nseen = {A: 1, ValueError: 2}\n"
               "return [A == A, A == ValueError, seen[A], ValueError in seen, isinstance(A, A)]", [True, False, 1, True, False]),
    error("exception-class-as-except-tuple-item", "try:\n    raise ValueError('x')\nexcept (ValueError, len):\n    pass",
          "TypeError: catching classes that do not inherit from BaseException is not allowed"),
    error("exception-class-called-with-keywords", "class RetryError(Exception):\n    pass\nraise RetryError(attempt=1)",
          "TypeError: RetryError() takes no keyword arguments"),
    # ---- type(): only type(x).__name__, which is a str
    compile_error("type-alone", "return type(1)", "DWF201"),
    compile_error("type-of-type", "return type(type(1)).__name__", "DWF201"),
    compile_error("type-name-class", "return type(1).__name__.__class__", "DWF202"),
    compile_error("type-qualname", "return type(1).__qualname__", "DWF202"),
    compile_error("type-of-value-dict", "return type(1).__dict__", "DWF202"),
    compile_error("type-mro-attribute", "return type(1).mro()", "DWF201"),
    compile_error("type-three-arguments", "return type('X', (), {}).__name__", "DWF201"),
    compile_error("type-starred", "xs = [1]\nreturn type(*xs).__name__", "DWF201"),
    compile_error("type-keyword", "return type(object=1).__name__", "DWF201"),
    compile_error("type-aliased", "t = type\nreturn t(1).__name__", "DWF201"),
    compile_error("type-shadowed", "def type(v):\n    return v\nreturn type('x').__name__", "DWF202"),
    compile_error("class-attribute-name", "return (1).__class__.__name__", "DWF202"),
    safe_value("type-name-of-dwf-values", "async def f():\n    return 1\nreturn [type(files).__name__, type(args).__name__, type(agent()).__name__, "
               "type(f).__name__, type(len).__name__, type(f()).__name__]",
               ["facade", "dict", "Agent", "function", "builtin_function_or_method", "awaitable"]),
    safe_value("type-name-is-plain-str", "n = type(ValueError('x')).__name__\nreturn [n, n + '!', n.lower(), {n: 1}]",
               ["ValueError", "ValueError!", "valueerror", {"ValueError": 1}]),
    # ---- fatal errors are never caught, not even by `except BaseException` or a bare `except`
    error("base-exception-catches-no-step-limit", "try:\n    while True:\n        pass\nexcept BaseException:\n    return 'caught'",
          LIMIT + "the step limit (200,000)", SMALL, line=2),
    error("bare-except-catches-no-recursion-limit", "def f(n):\n    return f(n + 1)\ntry:\n    f(0)\nexcept:\n    return 'caught'",
          LIMIT + "the recursion limit (200)", line=2),
    error("base-exception-catches-no-misuse", "def hide(v):\n    return v\nxs = [agent('a')]\ntry:\n    hide(xs[0]).key\nexcept BaseException:\n    return 'caught'",
          MISUSE + "an agent has no attribute `key`"),
    error("recursion-error-catches-no-recursion-limit", "def f(n):\n    try:\n        return f(n + 1)\n    except RecursionError:\n        return 'caught'\nreturn f(0)",
          LIMIT + "the recursion limit (200)", line=3),
    error("attribute-error-catches-no-awaitable-misuse", "async def f():\n    return 1\nxs = [f()]\ndef hide(v):\n    return v\ntry:\n    hide(xs[0]).result\nexcept AttributeError:\n    return 'caught'",
          MISUSE + "`awaitable` has no allowed attribute `result`"),
    error("attribute-error-catches-no-facade-misuse", "m = [files][0]\ntry:\n    r = m.read\nexcept AttributeError:\n    return 'caught'",
          MISUSE + "`files.read` may only be called directly"),
    error("attribute-error-catches-no-unoffered-method", "def f(s):\n    return s.encode()\ntry:\n    f('x')\nexcept AttributeError:\n    return 'caught'",
          MISUSE + "`str` has no allowed attribute `encode`"),
    # ---- hostile exception class declarations
    compile_error("exception-class-dunder-name", "class __Evil(Exception):\n    pass", "DWF202"),
    compile_error("exception-class-shadows-exception", "class Exception(ValueError):\n    pass", "DWF111"),
    compile_error("exception-class-shadows-dwf-type", "class AskFailed(Exception):\n    pass", "DWF111"),
    compile_error("exception-class-shadows-builtin-function", "class len(Exception):\n    pass", "DWF111"),
    compile_error("exception-class-from-base-exception", "class Stop(BaseException):\n    pass", "DWF112"),
    compile_error("exception-class-metaclass", "class Meta(Exception, metaclass=ValueError):\n    pass", "DWF111"),
    compile_error("exception-class-two-bases", "class Both(KeyError, ValueError):\n    pass", "DWF111"),
    compile_error("exception-class-object-base", "class Both(Exception, object):\n    pass", "DWF111"),
    compile_error("exception-class-init", "class E(Exception):\n    def __init__(self, x):\n        self.x = x", "DWF104"),
    compile_error("exception-class-str", "class E(Exception):\n    def text(self):\n        return 'x'", "DWF104"),
    compile_error("exception-class-attribute", "class E(Exception):\n    code = 3", "DWF104"),
    compile_error("exception-class-field", "class E(Exception):\n    code: int", "DWF111"),
    compile_error("exception-class-misspelt-base", "class ReviewFailed(Exceptoin):\n    def reason(self):\n        return 'x'", "DWF104"),
    compile_error("exception-class-in-function", "def f():\n    class E(Exception):\n        pass\n    raise E()", "DWF106"),
    compile_error("exception-class-in-branch", "if True:\n    class E(Exception):\n        pass", "DWF106"),
    compile_error("exception-class-redeclared", "class E(Exception):\n    pass\nclass E(ValueError):\n    pass", "DWF111"),
    compile_error("exception-class-reassigned", "class E(Exception):\n    pass\nE = ValueError", "DWF111"),
    compile_error("exception-class-from-decode-error", "import json\nclass E(json.JSONDecodeError):\n    pass", "DWF111"),
    compile_error("exception-class-from-function", "def base():\n    pass\nclass E(base):\n    pass", "DWF406"),
    compile_error("exception-class-decorated", "@len\nclass E(Exception):\n    pass", "DWF103"),
    compile_error("os-error-not-offered", "try:\n    pass\nexcept OSError:\n    pass", "DWF201"),
    safe_value("exception-class-named-like-fatal", "class LimitExceeded(Exception):\n    pass\nasync def boom():\n    raise LimitExceeded('not really')\n"
               "return await parallel([boom()])", [None]),
    safe_value("exception-class-named-like-internal", "class ScriptError(Exception):\n    pass\nclass Misuse(ScriptError):\n    pass\ntry:\n"
               "    raise Misuse('x')\nexcept ScriptError as e:\n    return [repr(e), type(e).__name__]", ["Misuse('x')", "Misuse"]),
    # ---- hostile arguments
    error("exception-args-aliased-bomb", "a = [1]\nfor i in range(60):\n    a = [a, a]\ne = ValueError(a, 1)", LIMIT + "the string size limit", line=4),
    error("exception-str-aliased-bomb", "a = [1]\nfor i in range(60):\n    a = [a, a]\ne = ValueError(a)", LIMIT + "the string size limit", line=4),
    error("exception-message-render-loop", "big = list(range(100000))\nwhile True:\n    e = ValueError(big, 1)", LIMIT + "the step limit (200,000)",
          SMALL, line=3),
    error("range-past-ssize-t", "try:\n    r = range(10 ** 30)\nexcept OverflowError:\n    return 'caught'",
          LIMIT + "the range size limit (10,000,000)", line=2),
    error("key-error-huge-key", "d = {}\nreturn d['k' * 10 ** 6]", "KeyError: 'kkkk"),
    safe_value("exception-arg-is-exception", "inner = KeyError('k')\nouter = ValueError(inner, inner)\nreturn [str(outer), repr(ValueError(inner))]",
               ["(KeyError('k'), KeyError('k'))", "ValueError(KeyError('k'))"]),
    safe_value("exception-arg-is-function", "def f():\n    pass\nreturn [str(ValueError(f)), str(ValueError(len)), repr(RuntimeError(files))]",
               ["<function f>", "<built-in function len>", "RuntimeError(<facade files>)"]),
    # ---- raise recursion and re-raise loops stay bounded
    safe_value("raise-from-chain-deep", "def f(n):\n    if n == 0:\n        raise ValueError('bottom')\n    try:\n        f(n - 1)\n"
               "    except ValueError as e:\n        raise ValueError(f'level {n}') from e\ntry:\n    f(150)\nexcept ValueError as e:\n    return str(e)",
               "level 150"),
    error("raise-in-every-frame", "def f(n):\n    try:\n        raise ValueError(n)\n    except ValueError:\n        return f(n + 1)\nreturn f(0)",
          LIMIT + "the recursion limit (200)", line=5),
    error("reraise-loop-alternating-lines", "e = ValueError('x')\ni = 0\nwhile True:\n    i += 1\n    try:\n        if i % 2:\n            raise e\n"
          "        else:\n            raise e\n    except ValueError:\n        pass", LIMIT + "the step limit (200,000)", SMALL, line=11),
    error("reraise-loop-uncaught-traceback-bounded", "e = ValueError('x')\nfor i in range(5000):\n    try:\n        if i % 2:\n            raise e\n"
          "        else:\n            raise e\n    except ValueError:\n        pass\nraise e", "ValueError: x"),
    safe_value("exceptions-kept-in-list", "errors = []\nfor i in range(1000):\n    try:\n        raise KeyError(i)\n    except KeyError as e:\n"
               "        errors.append(e)\nreturn [len(errors), str(errors[-1])]", [1000, "999"]),
]
