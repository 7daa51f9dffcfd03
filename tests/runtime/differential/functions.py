"""Differential snippets for function parameters (language issue #11): positional-only and
keyword-only parameters of `def` and `lambda`, `*args` and `**kwargs`, defaults that are any
expression evaluated once when the `def` runs (shared mutable defaults, `lambda i=i: ...` in
loops and comprehensions), closures, recursion, and CPython's exact `TypeError` messages for
calls that do not fit, which name the function by its qualname (`snippet_.<locals>.f`)."""

SNIPPETS: list[tuple[str, str]] = [
    # ---------------------------------------------------------------- parameter kinds
    ("kwonly-after-bare-star", """
def review(path, *, strict=False, limit=3):
    return [path, strict, limit]
return [review("a.py"), review("b.py", strict=True), review("c.py", limit=1, strict=True)]
"""),
    ("kwonly-required", """
def tag(name, *, kind):
    return f"{kind}:{name}"
return [tag("x", kind="bug"), tag(kind="feat", name="y")]
"""),
    ("kwonly-after-args", """
def join(*parts, sep=", ", end=""):
    return sep.join(parts) + end
return [join("a", "b"), join("a", "b", "c", sep="-"), join(end="!"), join("x", end=".", sep="/")]
"""),
    ("kwonly-required-after-args", """
def fmt(*values, width):
    return [str(v).rjust(width) for v in values]
return fmt(1, 22, 333, width=4)
"""),
    ("kwonly-mixed-defaults", """
def f(*, a=1, b, c=3):
    return [a, b, c]
return [f(b=2), f(b=0, a=9), f(c=5, b=4, a=3)]
"""),
    ("posonly-basic", """
def clamp(value, low, high, /):
    return max(low, min(high, value))
return [clamp(5, 0, 3), clamp(-2, 0, 3), clamp(2, 0, 3)]
"""),
    ("posonly-then-plain", """
def scale(value, /, factor=2):
    return value * factor
return [scale(3), scale(3, 4), scale(3, factor=5)]
"""),
    ("posonly-default", """
def page(items, size=2, /):
    return [items[i:i + size] for i in range(0, len(items), size)]
return [page([1, 2, 3, 4, 5]), page([1, 2, 3], 3)]
"""),
    ("posonly-name-free-for-kwargs", """
def record(name, /, **fields):
    return [name, fields]
return record("issue", name="shadowed", line=3)
"""),
    ("all-kinds", """
def f(a, b=2, /, c=3, *args, d, e=5, **kw):
    return [a, b, c, list(args), d, e, kw]
return [f(1, d=4), f(1, 20, 30, 40, 50, d=4, z=0), f(1, c=7, d=8, e=9)]
"""),
    ("all-kinds-spread-call", """
def f(a, /, b, *rest, c, **kw):
    return [a, b, rest, c, kw]
args = [1, 2, 3, 4]
options = {"c": 5, "extra": 6}
return f(*args, **options)
"""),
    ("args-kwargs-forwarding", """
def inner(a, b=0, *, scale=1):
    return (a + b) * scale
def wrapper(*args, **kwargs):
    return inner(*args, **kwargs)
return [wrapper(1), wrapper(1, 2), wrapper(1, b=3, scale=10), wrapper(a=4, scale=2)]
"""),
    ("kwargs-collects-in-order", """
def options(**kw):
    return list(kw.items())
return options(z=1, a=2, m=3)
"""),
    ("star-args-is-tuple", """
def count(*items):
    return [len(items), isinstance(items, tuple), items]
return [count(), count(1, 2), count(*"ab")]
"""),
    ("lambda-kwonly", "[(lambda *, x: x * 2)(x=3), (lambda a, *, b=1: a + b)(1), (lambda a, *, b=1: a + b)(1, b=5)]"),
    ("lambda-posonly", "[(lambda a, /, b: a - b)(5, b=2), (lambda a, b=1, /: a * b)(4), (lambda a, /: a)(7)]"),
    ("lambda-args-kwonly", "[(lambda *a, sep='-': sep.join(a))('x', 'y'), (lambda *a, sep='-': sep.join(a))('x', 'y', sep='+')]"),
    ("lambda-kwargs", "(lambda **kw: sorted(kw))(b=1, a=2)"),
    ("keyword-call-order-independent", """
def box(width, height, *, depth=1):
    return width * height * depth
return [box(2, 3), box(height=3, width=2), box(2, height=3, depth=4), box(depth=2, height=1, width=5)]
"""),
    ("spread-dict-into-kwonly", """
def connect(host, *, port=80, secure=False):
    return f"{'https' if secure else 'http'}://{host}:{port}"
settings = {"port": 8443, "secure": True}
return [connect("a", **settings), connect(**{"host": "b"}), connect("c", **{})]
"""),
    # ---------------------------------------------------------------- defaults: evaluation time
    ("default-evaluated-once-at-def", """
calls = []
def make_default():
    calls.append("made")
    return len(calls)
def f(x=make_default()):
    return x
return [f(), f(), f(10), calls]
"""),
    ("default-left-to-right", """
order = []
def note(label):
    order.append(label)
    return label
def f(a=note("a"), *, b=note("b"), c=note("c")):
    return [a, b, c]
return [order, f(), order]
"""),
    ("default-sees-value-at-def-time", """
limit = 5
def cap(xs, n=limit):
    return xs[:n]
limit = 2
return [cap(list(range(10))), limit]
"""),
    ("default-from-earlier-parameter-name-outside", """
base = 10
def f(base=base, offset=base * 2):
    return [base, offset]
return [f(), f(1), f(1, 2)]
"""),
    ("default-is-expression", """
words = ["b", "a", "c"]
def f(order=sorted(words), size=len(words) * 2, first={w: i for i, w in enumerate(words)}):
    return [order, size, first]
return f()
"""),
    ("default-conditional-expression", """
strict = True
def check(value, threshold=0.9 if strict else 0.5):
    return value >= threshold
return [check(0.8), check(0.95), check(0.6, 0.5)]
"""),
    ("default-fstring", """
name = "lint"
def label(step, prefix=f"[{name.upper()}]"):
    return f"{prefix} {step}"
return [label("start"), label("end", "[x]")]
"""),
    ("default-raises-at-def", """
try:
    def f(x=1 // 0):
        return x
except ZeroDivisionError as e:
    return ["def failed", str(e)]
return "defined"
"""),
    ("default-key-error-at-def", """
config = {"a": 1}
try:
    def f(x=config["missing"]):
        return x
    return "defined"
except KeyError as e:
    return ["def failed", str(e)]
"""),
    ("default-walrus-binds-outside", """
def f(x=(seen := [1, 2])):
    return x
seen.append(3)
return [f(), seen, f() == seen]
"""),
    ("default-redefined-in-loop", """
fs = []
for n in range(3):
    def f(x=n * 10):
        return x
    fs.append(f)
return [g() for g in fs]
"""),
    ("default-def-inside-function", """
def factory(k):
    def add(x, amount=k * 2):
        return x + amount
    return add
a = factory(1)
b = factory(5)
return [a(1), b(1), a(1, 0)]
"""),
    # ---------------------------------------------------------------- shared mutable defaults
    ("mutable-default-list-shared", """
def add(item, bucket=[]):
    bucket.append(item)
    return bucket
a = add(1)
b = add(2)
c = add(3, [])
return [a, b, c, a == b]
"""),
    ("mutable-default-dict-cache", """
def square(n, cache={}):
    if n not in cache:
        cache[n] = n * n
    return [cache[n], len(cache)]
return [square(3), square(4), square(3), square(5)]
"""),
    ("mutable-default-set-seen", """
def first_time(word, seen=set()):
    fresh = word not in seen
    seen.add(word)
    return fresh
return [first_time(w) for w in ["a", "b", "a", "c", "b"]]
"""),
    ("mutable-default-mutated-by-caller", """
def defaults(options={"retries": 1}):
    return options
d = defaults()
d["retries"] = 5
return [defaults(), defaults({"retries": 0})]
"""),
    ("mutable-default-kwonly", """
def log_line(text, *, lines=[]):
    lines.append(text)
    return len(lines)
return [log_line("a"), log_line("b"), log_line("c", lines=[]), log_line("d")]
"""),
    ("mutable-default-none-idiom", """
def add(item, bucket=None):
    if bucket is None:
        bucket = []
    bucket.append(item)
    return bucket
return [add(1), add(2), add(3, [0])]
"""),
    ("mutable-default-lambda", """
collect = lambda x, acc=[]: (acc.append(x), acc)[1]
collect(1)
collect(2)
return collect(3)
"""),
    ("mutable-default-identity", """
def f(x=[]):
    return x
return [f() == f(), f([]) == f()]
"""),
    ("mutable-default-memo-recursion", """
def fib(n, memo={}):
    if n < 2:
        return n
    if n not in memo:
        memo[n] = fib(n - 1) + fib(n - 2)
    return memo[n]
return [fib(30), fib(50)]
"""),
    # ---------------------------------------------------------------- lambdas in loops, closures
    ("lambda-default-captures-loop-value", """
fs = []
for i in range(4):
    fs.append(lambda i=i: i * i)
return [f() for f in fs]
"""),
    ("lambda-late-binding-without-default", """
fs = []
for i in range(3):
    fs.append(lambda: i)
return [f() for f in fs]
"""),
    ("lambda-default-in-comprehension", "[f() for f in [lambda i=i: i + 100 for i in range(3)]]"),
    ("lambda-late-binding-in-comprehension", "[f() for f in [lambda: i for i in range(3)]]"),
    ("lambda-default-override", """
fs = [lambda x, i=i: x * i for i in range(1, 4)]
return [f(10) for f in fs] + [fs[0](10, i=7)]
"""),
    ("lambda-default-in-dict-comprehension", """
handlers = {name: (lambda text, name=name: f"{name}: {text}") for name in ["lint", "test"]}
return [handlers["lint"]("ok"), handlers["test"]("fail")]
"""),
    ("closure-with-default-and-free-variable", """
def make_counter(start):
    counts = [start]
    def bump(step=1):
        counts[0] += step
        return counts[0]
    return bump
c = make_counter(10)
return [c(), c(), c(5), make_counter(0)()]
"""),
    ("closure-default-vs-free", """
def make():
    x = 1
    def by_default(v=x):
        return v
    def by_closure():
        return x
    x = 2
    return [by_default(), by_closure()]
return make()
"""),
    ("closures-in-loop-with-factory", """
def make_adder(k):
    return lambda x: x + k
adders = [make_adder(k) for k in range(3)]
return [a(10) for a in adders]
"""),
    ("sorted-key-lambda-with-default", """
files = [{"path": "b.py", "size": 30}, {"path": "a.py", "size": 10}, {"path": "c.py", "size": 20}]
by_size = sorted(files, key=lambda f, field="size": f[field])
by_path = sorted(files, key=lambda f, field="path": f[field], reverse=True)
return [[f["path"] for f in by_size], [f["path"] for f in by_path]]
"""),
    ("sorted-key-lambdas-built-in-loop", """
rows = [(3, "c"), (1, "b"), (2, "a")]
keys = [lambda row, i=i: row[i] for i in range(2)]
return [sorted(rows, key=k) for k in keys]
"""),
    ("map-lambda-with-default", "[list(map(lambda x, k=3: x * k, [1, 2, 3])), list(map(lambda a, b, c=0: a + b + c, [1, 2], [10, 20]))]"),
    ("filter-lambda-with-default", "list(filter(lambda w, n=3: len(w) > n, ['tree', 'go', 'house', 'cat']))"),
    ("max-min-key-kwonly-lambda", "[max(['aa', 'b', 'cccc'], key=lambda s, *, w=1: len(s) * w), min([3, -7, 5], key=lambda v, /: abs(v))]"),
    ("map-over-defs-with-kwonly", """
def weight(score, *, bonus=0):
    return score * 2 + bonus
return [list(map(weight, [1, 2, 3])), [weight(s, bonus=1) for s in [1, 2]]]
"""),
    ("default-is-function", """
def apply(items, transform=lambda x: x.strip()):
    return [transform(i) for i in items]
return [apply([" a ", "b "]), apply(["a"], transform=lambda x: x * 2)]
"""),
    ("default-is-earlier-def", """
def shout(text):
    return text.upper() + "!"
def announce(text, style=shout):
    return style(text)
return [announce("hi"), announce("hi", style=lambda t: t.lower())]
"""),
    # ---------------------------------------------------------------- recursion
    ("recursion-kwonly-depth", """
def depth(tree, *, level=0):
    if not isinstance(tree, list) or not tree:
        return level
    return max(depth(child, level=level + 1) for child in tree)
return [depth([]), depth([1, [2, [3, [4]]]]), depth([[[]], [1]])]
"""),
    ("recursion-flatten-accumulator", """
def flatten(items, *, into=None):
    if into is None:
        into = []
    for item in items:
        if isinstance(item, list):
            flatten(item, into=into)
        else:
            into.append(item)
    return into
return [flatten([1, [2, [3, 4]], [[5]]]), flatten([])]
"""),
    ("recursion-posonly", """
def power(base, exp, /):
    return 1 if exp == 0 else base * power(base, exp - 1)
return [power(2, 10), power(3, 0)]
"""),
    ("recursion-args-kwargs", """
def walk(node, *path, **seen):
    out = ["/".join(path + (node["name"],))]
    for child in node.get("children", []):
        out += walk(child, *path, node["name"], **seen)
    return out
tree = {"name": "root", "children": [{"name": "a", "children": [{"name": "b"}]}, {"name": "c"}]}
return walk(tree)
"""),
    ("mutual-recursion-defaults", """
def is_even(n, *, steps=0):
    return [True, steps] if n == 0 else is_odd(n - 1, steps=steps + 1)
def is_odd(n, *, steps=0):
    return [False, steps] if n == 0 else is_even(n - 1, steps=steps + 1)
return [is_even(10), is_odd(7)]
"""),
    # ---------------------------------------------------------------- call errors: missing
    # These call through a list (`[f][0](...)`), so that the run-time message is compared: a
    # direct call of a script function with arguments that do not fit is `DWF212` at check time.
    ("error-missing-one-positional", """
def f(a, b):
    return a
return [f][0](1)
"""),
    ("error-missing-two-positional", """
def review(path, strict, limit=3):
    return path
return [review][0]()
"""),
    ("error-missing-three-positional", """
def f(a, b, c, d=4):
    return a
return [f][0]()
"""),
    ("error-missing-four-positional", """
def f(a, b, c, d):
    return a
return [f][0]()
"""),
    ("error-missing-after-keyword", """
def f(a, b, c):
    return a
return [f][0](b=2)
"""),
    ("error-missing-kwonly", """
def tag(name, *, kind):
    return name
return [tag][0]("x")
"""),
    ("error-missing-two-kwonly", """
def f(*, a, b, c=1):
    return a
return [f][0](c=2)
"""),
    ("error-missing-kwonly-after-args", """
def f(*args, sep):
    return sep
return [f][0](1, 2)
"""),
    ("error-missing-positional-before-kwonly", """
def f(a, *, b):
    return a
return [f][0](b=1)
"""),
    ("error-missing-posonly", """
def f(a, b, /):
    return a
return [f][0](1)
"""),
    # ---------------------------------------------------------------- call errors: too many
    ("error-too-many-positional", """
def f(a, b):
    return a
return [f][0](1, 2, 3)
"""),
    ("error-too-many-one-parameter", """
def f(a):
    return a
return [f][0](1, 2)
"""),
    ("error-too-many-zero-parameters", """
def f():
    return 0
return [f][0](1)
"""),
    ("error-too-many-with-defaults", """
def f(a, b=2):
    return a
return [f][0](1, 2, 3)
"""),
    ("error-too-many-all-defaults", """
def f(a=1, b=2):
    return a
return [f][0](1, 2, 3, 4)
"""),
    ("error-too-many-with-kwonly-given", """
def f(a, *, b):
    return a
return [f][0](1, 2, b=3)
"""),
    ("error-too-many-with-two-kwonly-given", """
def f(a, *, b, c):
    return a
return [f][0](1, 2, 3, b=3, c=4)
"""),
    ("error-too-many-one-given-with-kwonly", """
def f(*, b):
    return b
return [f][0](1, b=2)
"""),
    # ---------------------------------------------------------------- call errors: keywords
    ("error-unexpected-keyword", """
def review(path, strict=False):
    return path
return [review][0]("a.py", stict=True)
"""),
    ("error-unexpected-keyword-kwonly-function", """
def f(*, a=1):
    return a
return [f][0](b=2)
"""),
    ("error-multiple-values", """
def f(a, b):
    return a
return [f][0](1, a=2)
"""),
    ("error-multiple-values-before-too-many", """
def f(a, b):
    return a
return [f][0](1, 2, 3, a=4)
"""),
    ("error-posonly-as-keyword", """
def f(a, b, /, c):
    return a
return [f][0](a=1, b=2, c=3)
"""),
    ("error-posonly-as-keyword-one", """
def clamp(value, /, low=0):
    return value
return [clamp][0](value=5)
"""),
    ("error-unexpected-before-posonly-check", """
def f(a, /, b):
    return a
return [f][0](1, b=2, z=3)
"""),
    ("error-spread-duplicate-keyword", """
def f(**kw):
    return kw
return f(a=1, **{"a": 2})
"""),
    ("error-two-spreads-duplicate-keyword", """
def f(a, b):
    return a
return f(**{"a": 1}, **{"a": 2})
"""),
    ("error-spread-non-string-key", """
def f(**kw):
    return kw
return f(**{1: "x"})
"""),
    ("error-spread-not-a-mapping", """
def f(**kw):
    return kw
return f(**[("a", 1)])
"""),
    ("error-spread-none", """
def f(**kw):
    return kw
return f(**None)
"""),
    ("error-star-not-iterable-alone", """
def f(*args):
    return args
return f(*5)
"""),
    ("error-star-not-iterable-among-others", """
def f(*args):
    return args
return f(1, *None)
"""),
    # ---------------------------------------------------------------- qualnames in errors
    ("error-lambda-qualname", "(lambda x, y: x)(1)"),
    ("error-nested-def-qualname", """
def outer():
    def inner(a, *, b):
        return a
    return [inner][0](1)
return outer()
"""),
    ("error-lambda-in-def-qualname", """
def outer():
    pick = lambda items, key: items[key]
    return [pick][0]([1])
return outer()
"""),
    ("error-lambda-in-listcomp-qualname", "[f() for f in [lambda x: x for _ in range(1)]]"),
    ("error-lambda-in-genexp-qualname", "[f() for f in list(lambda x: x for _ in range(1))]"),
    ("error-lambda-in-dictcomp-qualname", "[f() for f in {k: lambda x: x for k in 'a'}.values()]"),
    ("error-lambda-in-lambda-qualname", "(lambda: (lambda y: y))()()"),
    ("error-lambda-in-nested-comprehension-qualname", "[f() for row in [[lambda x: x for _ in 'a'] for _ in 'b'] for f in row]"),
    ("error-map-lambda-arity", "list(map(lambda a, b: a + b, [1, 2]))"),
    ("error-sorted-key-arity", "sorted([3, 1, 2], key=lambda: 0)"),
    ("error-filter-kwonly-required", "list(filter(lambda x, *, keep: keep, [1]))"),
    ("errors-collected-as-messages", """
def f(a, b=2, /, c=3, *, d, e=5):
    return [a, b, c, d, e]
g = [f][0]
calls = [lambda: g(), lambda: g(1), lambda: g(1, 2, 3, 4, d=0), lambda: g(1, d=0, x=1), lambda: g(1, b=2, d=0),
         lambda: g(1, c=3, d=4, **{"c": 5}), lambda: g(1, 2, 3, d=4)]
out = []
for call in calls:
    try:
        out.append(call())
    except TypeError as e:
        out.append(str(e))
return out
"""),
]
