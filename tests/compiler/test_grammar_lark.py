"""Tests for `grammar/dwf.lark` and its loader `dwf.grammar.syntax`.

Every accepted snippet must also be accepted by CPython's `ast.parse`, so the grammar never
accepts text that is not Python; every rejected snippet is named after what it shows.
"""

from __future__ import annotations

import ast
import random
import warnings
from pathlib import Path

import pytest

from dwf.grammar import syntax
from dwf.grammar.syntax import DwfSyntaxError, accepts, parse_tree

ROOT = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------- examples

# LANGUAGE.md §1, verbatim.
LANGUAGE_EXAMPLE = '''\
"""Review every changed file in parallel, then make the tests pass."""
from typing import Literal, NotRequired, TypedDict

meta = {
    "name": "review-and-fix",
    "description": "Review each changed file, then fix failing tests.",
    "when_to_use": "After a batch of edits, before opening a pull request.",
    "args": {"base": {"type": "string", "description": "git ref to diff against", "default": "HEAD"}},
}

class Finding(TypedDict):
    """One problem found in a file."""
    path: str
    severity: Literal["low", "medium", "high"]
    summary: str
    line: NotRequired[int]

phase("Review each changed file")
changed = await git.changed_files(args["base"])
reviews = await parallel(
    agent(f"reviewer-{path}", system="You are a careful code reviewer.")
        .ask(f"Review {path}. Report real problems only.", returns=list[Finding])
    for path in changed
)
findings = [f for review in reviews if review is not None for f in review]
for f in findings:
    report(f)

phase("Make the tests pass")
fixer = agent("fixer")
for attempt in range(3):
    result = await world.run("pytest", ["-q"], timeout_s=600)
    if result.exit_code == 0:
        break
    await fixer.ask(f"The tests fail:\\n{result.stdout[-4000:]}\\nFix the code, not the tests.")

return {"findings": len(findings), "tests_pass": result.exit_code == 0}
'''

# Two more scripts in the style of LANGUAGE.md §3-§6 (pipeline stages, TypedDict options,
# failures, artifacts, world reads).
PIPELINE_EXAMPLE = '''\
"""Translate every doc page, then check links."""
import json
import re
from typing import Annotated, Optional, TypedDict

meta = {
    "name": "translate-docs",
    "description": "Translate each page and verify its links.",
    "args": {"lang": {"type": "string", "required": True}},
    "max_concurrency": 4,
}

class Page(TypedDict, total=False):
    """A translated page."""
    path: str
    "Workspace-relative path."
    body: Annotated[str, "Markdown text"]
    links: Optional[list[str]]

LINK = re.compile(r"\\[(?P<text>[^\\]]+)\\]\\((?P<url>[^)]+)\\)")

async def translate(previous, path, index):
    text = await files.read(path)
    return await agent(f"translator-{index}").ask(
        f"Translate to {args['lang']!r}:\\n{text}", returns=Page, label=f"page {index + 1}"
    )

async def check(page, path, index):
    if page is None:
        return None
    bad = [m["url"] for m in LINK.finditer(page.get("body", "")) if not m["url"].startswith(("http", "#"))]
    return {**page, "bad_links": bad}

phase("Translate")
paths = sorted(await files.glob("docs/**/*.md"))[:50]
results = await pipeline(paths, translate, check)
done, failed = [], 0
for path, page in zip(paths, results):
    if page is None:
        failed += 1
        continue
    done.append(page)
    report({"path": path, "bad_links": len(page["bad_links"])}, artifact="links")
artifact.table("links", {"columns": ["path", "bad_links"]})
log(f"{len(done)} pages, {failed} failed; ratio {len(done) / max(1, len(paths)):.0%}")
return json.loads(json.dumps({"pages": done, "failed": failed}))
'''

RECOVERY_EXAMPLE = '''\
"""Fix lint errors with retries; the whole file uses tabs and CRLF line endings."""
import math
from typing import Literal, TypedDict

meta = {"name": "fix-lint", "description": "Run the linter and fix what it reports."}

class Verdict(TypedDict):
\tstatus: Literal["fixed", "gave-up"]
\tnotes: str

def chunk(items, size=10, *rest, **options):
\treturn [items[i : i + size] for i in range(0, len(items), size)]

phase("Lint")
fixer = agent("fixer", system="Fix lint errors without changing behaviour.")
attempts = 0
while (attempts := attempts + 1) <= 3:
\trun = await world.run("ruff", ["check", "."], timeout_s=120)
\tif run.exit_code == 0:
\t\tbreak
\tlines = run.stdout.splitlines()
\ttry:
\t\tverdicts = await gather(*[fixer.ask("Fix:\\n" + "\\n".join(c), returns=Verdict) for c in chunk(lines)])
\texcept AskFailed as error:
\t\tlog(f"ask failed: {error}")
\t\tcontinue
\texcept (WorldError, BudgetExceeded):
\t\traise
\telse:
\t\tgave_up = sum(1 for v in verdicts if v["status"] == "gave-up")
\t\tassert gave_up >= 0, "negative count"
\tfinally:
\t\tlog(f"attempt {attempts} of {math.ceil(3.0)}")
else:
\traise WorkflowError("lint still failing") from None

del lines[0], verdicts
return {"attempts": attempts, "clean": run.exit_code == 0}
'''.replace("\n", "\r\n")

EXAMPLES = {
    "language-1": LANGUAGE_EXAMPLE,
    "pipeline": PIPELINE_EXAMPLE,
    "recovery-tabs-crlf": RECOVERY_EXAMPLE,
}

# ----------------------------------------------------------------------- accepted

ACCEPTED = {
    # statements
    "expression-statement": "f(x)\n",
    "assign": "x = 1\n",
    "chained-assign": "a = b = c = []\n",
    "tuple-unpack": "a, b = b, a\n",
    "tuple-unpack-trailing-comma": "a, = x\n",
    "list-unpack-starred": "[a, *rest] = items\n",
    "starred-unpack": "first, *middle, last = items\n",
    "nested-unpack": "(a, b), [c, *d] = x\n",
    "parenthesized-target": "(a) = 1\n",
    "empty-tuple-target": "() = []\n",
    "subscript-targets": "[c[0], d[1:2]] = e\n",
    "augmented-assign": "x += 1\nx //= 2\nx **= 3\nx >>= 1\nx |= y\nx %= 5\n",
    "augmented-subscript": "counts[k] += 1\n",
    "augmented-tuple-value": "x += 1, 2\n",
    "annotated": "x: int = 1\ny: list[str]\n",
    "annotated-parenthesized": "(a): int = 1\n",
    "annotated-starred-value": "x: tuple = *a, b\n",
    "if-elif-else": "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\n",
    "if-walrus": "if (n := len(x)) > 3:\n    pass\nif m := f():\n    pass\n",
    "for-else": "for i, x in enumerate(xs):\n    continue\nelse:\n    pass\n",
    "for-starred-target": "for first, *rest in rows:\n    pass\n",
    "for-starred-iterable": "for x in *a, b:\n    pass\n",
    "while-else": "while x:\n    break\nelse:\n    x = 1\n",
    "return-top-level": "return {'ok': True}\n",
    "return-bare": "return\n",
    "return-starred-tuple": "return *a, b\n",
    "pass-break-continue": "for x in y:\n    if x:\n        break\n    continue\npass\n",
    "try-full": "try:\n    f()\nexcept ValueError as e:\n    g(e)\nexcept (KeyError, IndexError):\n    pass\nexcept:\n    raise\nelse:\n    h()\nfinally:\n    i()\n",
    "try-finally": "try:\n    f()\nfinally:\n    g()\n",
    "raise-forms": "raise\nraise ValueError('x')\nraise WorkflowError('x') from e\n",
    "assert": "assert x, 'message'\nassert y\n",
    "del-names-subscripts": "del x, y[0], z['k'][1:2]\n",
    "del-grouped": "del (a, b[0]), [c]\n",
    "def-full": "def f(a, b: int, c=1, d: str = 'x', *args: int, **kwargs: str) -> dict[str, int]:\n    return {}\n",
    "def-trailing-comma": "def f(a, *args,):\n    pass\ndef g(**kw,):\n    pass\n",
    "def-only-star": "def f(*args):\n    pass\ndef g(**kw):\n    pass\n",
    "def-keyword-only": "def f(a, *, b, c=1, d):\n    pass\n",
    "def-keyword-only-after-args": "def f(*args, b, **kw):\n    pass\n",
    "def-positional-only": "def f(a, /, b):\n    pass\ndef g(a, b=2, /, c=3, *, d, **kw,):\n    pass\n",
    "def-annotated-kinds": "def f(a: int, /, b: str = '', *, c: bool = False) -> None:\n    pass\n",
    "lambda-keyword-only": "f = lambda *, a: a\ng = lambda *a, b=1: b\n",
    "lambda-positional-only": "f = lambda a, /: a\ng = lambda a, /, b=1, *, c: a\n",
    "default-any-expression": "def f(a=[], b={'k': 1}, c=g(1), d=x if y else z, *, e=lambda i=i: i):\n    pass\n",
    "async-def": "async def stage(prev, item, index):\n    return await item.ask('x')\n",
    "nested-def": "def outer():\n    def inner(x):\n        return x\n    return inner\n",
    "typeddict": "class Finding(TypedDict):\n    '''Doc.'''\n    path: str\n    'A path.'\n    line: NotRequired[int]\n",
    "typeddict-total": "class Opts(TypedDict, total=False):\n    pass\n",
    "class-without-bases": "class X:\n    pass\n",
    "imports": "import json\nimport re, math\nfrom typing import Literal, TypedDict\n",
    "import-parenthesized": "from typing import (\n    Literal,\n    Optional,\n)\n",
    "import-dotted-alias": "import os.path as p\nfrom a.b import c as d\n",
    "top-level-await": "x = await agent('a').ask('q')\nawait log('x')\n",
    "semicolons": "a = 1; b = 2; f(a, b);\n",
    "soft-keywords-as-names": "match = 1\ncase = match\ntype = case\n_ = type\n",
    # expressions
    "int-literals": "x = [0, 7, 1_000, 0x_ff, 0o17, 0b1010, 00, 0_0]\n",
    "float-literals": "x = [1.0, 1., .5, 1e10, 1.5e-3, 1_0.0_1e1_0, 09.5]\n",
    "string-prefixes": "x = [r'a\\d', u'x', R\"x\", b'x', B\"y\", rb'\\d', Br'x', bR'x']\n",
    "triple-quoted": "x = '''a\n'b'' c'''\ny = \"\"\"\"quoted\" \"\"\"\n",
    "implicit-concatenation": "x = ('a' \"b\"\n     f'{c}' r'd')\ny = b'a' rb'b'\n",
    "string-escapes": "x = '\\x41\\u00e9\\U0001F600\\N{EM DASH}\\n\\t\\\\\\'\\q\\777'\n",
    "string-line-continuation": "x = 'abc\\\ndef'\n",
    "bytes-escapes": "x = b'\\x00\\xff\\n\\N{X}\\u12'\n",
    "unicode-names": "café = 'ok'\nπ = 3.14\n",
    "fstring-basic": "x = f'{a} and {b!r} {c!s:>10} {d!a}'\n",
    "fstring-format-spec": "x = f'{value:.2f} {n:,} {when:%Y-%m-%d %H:%M} {x:#x} {y:=^10}'\n",
    "fstring-nested-field-in-spec": "x = f'{value:{width}.{precision}}' + f'{v:{w!r:>3}}'\n",
    "fstring-debug": "x = f'{x=} {y = } {z=!r:>5}'\n",
    "fstring-escaped-braces": "x = f'{{literal}} {{{x}}} }}'\n",
    "fstring-nested-quotes": "x = f\"{d['key']} {', '.join(xs)}\"\n",
    "fstring-nested-fstring": "x = f\"{f'{x}'}\" + f'''{f\"{f'{y}'}\"}'''\n",
    "fstring-triple-multiline": "x = f'''line {a}\n{\n b +\n c\n} done'''\n",
    "fstring-raw": "x = rf'\\d{n}\\w' + fR'{x}' + Rf'{{}}'\n",
    "fstring-named-escape": "x = f'\\N{BULLET} {item}'\n",
    "fstring-tuple-and-ternary": "x = f'{a, b} {*xs,} {a if b else c} {x == y} {x != y} {x >= y}'\n",
    "fstring-complex-expressions": "x = f'{(lambda: 1)()} {(y := 2)} {[i for i in xs]} { {1: 2}[1] } {await a}'\n",
    "fstring-slice": "x = f'{result.stdout[-4000:]} {a[1:2]:>3}'\n",
    "attribute-subscript-call": "x = a.b[c](d).e[f:g, ::2][...]\n",
    "slices": "x = [a[:], a[1:], a[:2], a[::3], a[1:2:3], a[:, 1], a[1,], a[x := 1]]\n",
    "call-arguments": "f(a, b, *c, d=1, *e, f=2, **g, h=3, **i,)\n",
    "call-keyword-first": "f(a=1, *b)\nf(**k)\nf(*a, *b)\n",
    "call-generator-argument": "total = sum(x * 2 for x in xs if x)\n",
    "call-walrus-argument": "f(x := 1, y)\n",
    "arithmetic": "x = -a + b * c / d // e % f ** -g - ~h + +i\n",
    "bitwise": "x = a << 1 | b >> 2 & c ^ d\n",
    "comparisons": "x = a < b <= c == d != e >= f > g in h not in i is j is not k\n",
    "boolean": "x = not a and b or not (c or d)\n",
    "conditional": "x = a if b else c if d else e\n",
    "lambda": "f = lambda: 0\ng = lambda x, y=1, *a, **k: x + y\nh = lambda *a,: a\n",
    "lambda-in-default": "def f(key=lambda x: x):\n    pass\n",
    "comprehensions": "a = [x for x in y if x for z in x if z if not z]\nb = {k: v for k, v in d.items()}\nc = {x for x in y}\nd = (x for x in y)\n",
    "comprehension-starred-target": "x = [a for *a, b in rows]\n",
    "comprehension-walrus-element": "x = [y := f(v) for v in vs]\n",
    "await-expressions": "x = await a ** 2\ny = -await b\nz = [await c for c in cs]\n",
    "walrus-in-displays": "x = [y := 1, 2]\nz = {w := 3}\nt = (v := 4, 5)\n",
    "starred-displays": "x = [*a, *b]\ny = {*a, 1}\nz = (*a,)\nw = *a, *b\n",
    "dict-unpacking": "x = {**a, 'b': 1, **c}\n",
    "tuples": "x = ()\ny = (1,)\nz = 1, 2\nw = (1, 2,)\n",
    "ellipsis-and-constants": "x = [..., None, True, False]\n",
    "generics-in-annotations": "x: dict[str, list[tuple[int, ...]]] = {}\n",
    "number-then-keyword-spaced": "x = 1 if y else 2\nz = [1 for _ in y]\n",
    # layout
    "blank-and-comment-lines": "\n# comment\n\nx = 1  # trailing\n\n    # indented comment\ny = 2\n",
    "indented-comment-first-line": "  # comment\nx = 1\n",
    "brackets-span-lines": "x = f(\n    1,\n  2,\n        3)\ny = [\n]\n",
    "line-continuation": "x = 1 + \\\n    2\nif a and \\\n   b:\n    pass\n",
    "missing-trailing-newline": "x = 1",
    "missing-trailing-newline-in-block": "if x:\n    y = 1",
    "comment-without-newline": "x = 1\n# end",
    "crlf": "if x:\r\n    y = 1\r\nz = 2\r\n",
    "tabs": "if x:\n\tif y:\n\t\tpass\n\tz = 1\n",
    "simple-suite-on-one-line": "if x: y = 1; z = 2\nfor a in b: pass\n",
    "empty-module": "",
    "only-comments": "# nothing here\n",
    "dedent-several-levels": "if a:\n    if b:\n        if c:\n            pass\nx = 1\n",
    "form-feed": "\fx = 1\n",
}

# ----------------------------------------------------------------------- rejected

REJECTED = {
    # Attributes are never assignable: records and facade objects are read-only.
    "attribute-target": "a.b = 1\n",
    "attribute-in-unpacking": "[a.b, c[0]] = e\n",
    "annotated-attribute": "self.x: int = 0\n",
    "for-attribute-target": "for a.b in x:\n    pass\n",
    "augmented-attribute": "a.b += 1\n",
    # Class bodies are TypedDict declarations: fields, docstrings and `pass` only.
    "method-in-class": "class A(TypedDict):\n    def f(self):\n        pass\n",
    "assignment-in-class": "class A(TypedDict):\n    x = 1\n",
    "statement-in-class": "class A(TypedDict):\n    if x:\n        pass\n",
    "with-statement": "with open('f') as f:\n    pass\n",
    "async-with": "async def f():\n    async with a:\n        pass\n",
    "async-for-statement": "async def f():\n    async for x in y:\n        pass\n",
    "async-comprehension": "async def f():\n    return [x async for x in y]\n",
    "yield": "def f():\n    yield 1\n",
    "yield-from": "def f():\n    yield from g()\n",
    "yield-expression": "x = (yield)\n",
    "global": "def f():\n    global x\n",
    "nonlocal": "def f():\n    nonlocal x\n",
    "match-statement": "match x:\n    case 1:\n        pass\n",
    "decorator": "@cache\ndef f():\n    pass\n",
    "class-decorator": "@dataclass\nclass X:\n    pass\n",
    "star-import": "from typing import *\n",
    "relative-import": "from . import x\n",
    "relative-import-dotted": "from .mod import x\n",
    "import-from-unparenthesized-trailing-comma": "from typing import Literal,\n",
    "def-non-default-after-default": "def f(a=1, b):\n    pass\n",
    "def-non-default-after-default-across-slash": "def f(a=1, /, b):\n    pass\n",
    "def-slash-first": "def f(/, a):\n    pass\n",
    "def-slash-twice": "def f(a, /, b, /):\n    pass\n",
    "def-slash-after-star": "def f(*, a, /):\n    pass\n",
    "def-bare-star-alone": "def f(*):\n    pass\n",
    "def-bare-star-then-kwargs": "def f(a, *, **kw):\n    pass\n",
    "def-two-stars": "def f(*a, *, b):\n    pass\n",
    "def-after-kwargs": "def f(**kw, a):\n    pass\n",
    "lambda-bare-star-alone": "f = lambda *: 0\n",
    "duplicate-keyword-only-parameter": "def f(a, *, a):\n    pass\n",
    "def-type-parameters": "def f[T](x: T) -> T:\n    return x\n",
    "type-statement": "type X = int\n",
    "except-star": "try:\n    pass\nexcept* ValueError:\n    pass\n",
    "except-comma": "try:\n    pass\nexcept A, B:\n    pass\n",
    "bare-except-not-last": "try:\n    pass\nexcept:\n    pass\nexcept ValueError:\n    pass\n",
    "try-without-handler": "try:\n    pass\nx = 1\n",
    "print-chevron": "print >>sys.stderr, 'x'\n",
    "print-statement": "print 'hello'\n",
    "exec-statement": "exec 'code'\n",
    "backticks": "x = `y`\n",
    "not-equal-diamond": "x = a <> b\n",
    "imaginary-number": "x = 1j\n",
    "imaginary-float": "x = 1.5J\n",
    "matmul": "x = a @ b\n",
    "matmul-assign": "x @= b\n",
    "leading-zero-decimal": "x = 0777\n",
    "number-glued-to-keyword": "x = 1if y else 2\n",
    "number-glued-to-name": "x = 1abc\n",
    "keyword-glued-to-name": "x = a if b elsec\n",
    "invalid-binary-digit": "x = 0b102\n",
    "trailing-underscore-number": "x = 1_\n",
    "python2-octal-long": "x = 10L\n",
    "assign-to-call": "f() = 1\n",
    "assign-to-literal": "1 = x\n",
    "assign-to-operator": "a + b = c\n",
    "assign-to-fstring": "f'{x}' = 1\n",
    "assign-to-keyword": "None = 1\n",
    "assign-walrus-unparenthesized": "x = y := 1\n",
    "walrus-statement": "x := 1\n",
    "walrus-keyword-argument": "f(a=x := 1)\n",
    "walrus-comprehension-condition": "x = [y for y in z if w := y]\n",
    "starred-assign-alone": "*a = b\n",
    "two-starred-targets": "a, *b, *c = d\n",
    "starred-value-alone": "x = *a\n",
    "starred-statement": "*a\n",
    "starred-return-alone": "return *a\n",
    "starred-parenthesized": "x = (*a)\n",
    "starred-subscript": "x = a[*b]\n",
    "augassign-tuple": "a, b += 1\n",
    "augassign-call": "f() += 1\n",
    "annotate-tuple": "a, b: int\n",
    "for-target-call": "for f() in x:\n    pass\n",
    "comprehension-target-literal": "x = [1 for 1 in y]\n",
    "del-call": "del f()\n",
    "del-attribute": "del a.b\n",
    "del-starred": "del *a, b\n",
    "keyword-argument-not-name": "f(a.b=1)\n",
    "keyword-argument-repeated": "f(x=1, x=2)\n",
    "positional-after-keyword": "f(a=1, b)\n",
    "star-after-double-star": "f(**a, *b)\n",
    "unparenthesized-generator-with-other-args": "f(x for x in y, 1)\n",
    "generator-trailing-comma": "f(x for x in y,)\n",
    "class-generator-base": "class A(x for x in y):\n    pass\n",
    "duplicate-parameter": "def f(a, a):\n    pass\n",
    "await-await": "x = await await y\n",
    "mixed-bytes-and-str": "x = 'a' b'b'\n",
    "mixed-bytes-and-fstring": "x = f'{a}' b'b'\n",
    "bytes-non-ascii": "x = b'é'\n",
    "invalid-prefix-ur": "x = ur'x'\n",
    "invalid-prefix-fb": "x = fb'x'\n",
    "unterminated-string": "x = 'abc\n",
    "unterminated-triple-string": "x = '''abc'\n",
    "truncated-hex-escape": "x = '\\x4'\n",
    "unknown-unicode-name": "x = '\\N{NOT A NAME}'\n",
    "illegal-unicode-escape": "x = '\\U00110000'\n",
    "bytes-truncated-hex-escape": "x = b'\\x4'\n",
    "fstring-empty-field": "x = f'{}'\n",
    "fstring-blank-field": "x = f'{ }'\n",
    "fstring-single-close-brace": "x = f'a } b'\n",
    "fstring-unclosed-field": "x = f'{a'\n",
    "fstring-bad-conversion": "x = f'{a!x}'\n",
    "fstring-empty-conversion": "x = f'{a!}'\n",
    "fstring-space-after-conversion": "x = f'{a!r }'\n",
    "fstring-conversion-before-debug": "x = f'{a!r=}'\n",
    "fstring-lambda-unparenthesized": "x = f'{lambda: 1}'\n",
    "fstring-starred-alone": "x = f'{*a}'\n",
    "fstring-same-quote-nested": "x = f\"{d[\"key\"]}\"\n",
    "fstring-same-quote-nested-fstring": "x = f\"{f\"{x}\"}\"\n",
    "fstring-triple-quote-reused": "x = f'''{'a'''}'''\n",
    "fstring-backslash-in-expression": "x = f'{\"\\n\".join(xs)}'\n",
    "fstring-line-continuation-in-expression": "x = f'''{a +\\\n b}'''\n",
    "fstring-comment-in-expression": "x = f'''{a # comment\n}'''\n",
    "fstring-newline-in-single-quoted": "x = g(f'{a\n}')\n",
    "fstring-spec-nested-too-deeply": "x = f'{a:{b:{c}}}'\n",
    "fstring-bad-escape": "x = f'\\x4{a}'\n",
    "unexpected-indent": "x = 1\n    y = 2\n",
    "indented-first-line": "  x = 1\n",
    "missing-indent": "if x:\ny = 1\n",
    "unindent-mismatch": "if x:\n        y = 1\n    z = 2\n",
    "inconsistent-tabs": "if x:\n\tpass\n        pass\n",
    "whitespace-after-line-continuation": "x = 1 + \\ \n    2\n",
    "unclosed-bracket": "x = (1,\n",
    "unmatched-bracket": "x = 1)\n",
    "null-byte": "x = 'a\0b'\n",
    "byte-order-mark": "\ufeffx = 1\n",
    "keyword-as-attribute": "x = a.if\n",
    "empty-subscript": "x = a[]\n",
    "dict-set-mix": "x = {'a': 1, 2}\n",
    "comparison-chain-dangling": "x = a <\n",
}


def _python_accepts(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except (SyntaxError, ValueError):
            return False
    return True


# ------------------------------------------------------------------------------ tests


def test_tables_are_large_enough():
    assert len(ACCEPTED) >= 60
    assert len(REJECTED) >= 30


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted(name):
    parse_tree(ACCEPTED[name])
    assert accepts(ACCEPTED[name])


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_snippets_are_python(name):
    assert _python_accepts(ACCEPTED[name]), "the grammar accepts text that CPython rejects"


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected(name):
    text = REJECTED[name]
    assert not accepts(text)
    with pytest.raises(DwfSyntaxError) as caught:
        parse_tree(text)
    error = caught.value
    lines = text.replace("\r\n", "\n").split("\n")
    assert 1 <= error.line <= len(lines) + 1
    assert error.column >= 1
    assert error.message


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples(name):
    assert accepts(EXAMPLES[name])
    assert _python_accepts(EXAMPLES[name])


def test_example_tree_shape():
    tree = parse_tree(LANGUAGE_EXAMPLE)
    assert tree.data == "file_input"
    kinds = [child.data for child in tree.children]
    assert kinds[:4] == ["expr_stmt", "import_from", "assign_stmt", "classdef"]
    assert kinds[-1] == "return_stmt"
    fields = list(tree.find_data("fstring_field"))
    assert len(fields) == 3


def test_fstring_is_parsed_not_opaque():
    tree = parse_tree("x = f'a{b.c!r:>{w}}d'\n")
    (fstring,) = tree.find_data("fstring")
    field = next(child for child in fstring.children if getattr(child, "data", None) == "fstring_field")
    open_brace, expression, debug, conversion, spec, close_brace = field.children
    assert (open_brace, close_brace) == ("{", "}")
    assert expression.data == "getattr"
    assert debug is None
    assert conversion == "!r"
    assert spec.data == "fstring_spec" and spec.children[:2] == [":", ">"]
    assert [c.data for c in spec.children if hasattr(c, "data")] == ["fstring_field"]


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("x = 1\n    y = 2\n", 2, 5),
        ("x = (1,\n", 1, 7),
        ("x = 1\ny = 'abc\n", 2, 5),
        ("a = 1\nf() = 2\n", 2, 1),
        ("if x:\n        y = 1\n    z = 2\n", 3, 5),
        ("x = f'{a!r }'\n", 1, 11),
        ("x = '\\x4'\n", 1, 6),
        ("with a:\n    pass\n", 1, 1),
        ("x = 1\r\ny = a @ b\r\n", 2, 7),
        ("\tx = 1", 1, 1),
        ("x = 1; y = 2j\n", 1, 12),
    ],
)
def test_error_positions(text, line, column):
    with pytest.raises(DwfSyntaxError) as caught:
        parse_tree(text)
    assert (caught.value.line, caught.value.column) == (line, column), caught.value


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("with a:\n    pass\n", "`with`"),
        ("async def f():\n    async for x in y:\n        pass\n", "`async for`"),
        ("@d\ndef f():\n    pass\n", "decorators"),
        ("x = 1j\n", "imaginary"),
        ("from x import *\n", "star imports"),
        ("from . import x\n", "relative imports"),
        ("def f():\n    yield 1\n", "generators"),
        ("print >>f, 'x'\n", "print"),
        ("if x:\ny = 1\n", "indented block"),
        ("async def f():\n    async with a:\n        pass\n", "`async with`"),
        ("def f(a, *):\n    pass\n", "named arguments must follow bare *"),
        ("def f(a=1, /, b):\n    pass\n", "non-default argument follows default argument"),
        ("def f[T](x):\n    pass\n", "type parameters"),
        ("match x:\n    case 1:\n        pass\n", "`match`"),
        ("try:\n    pass\nexcept* E:\n    pass\n", "`except*`"),
        ('x = f"{d["k"]}"\n', "reuses the quote"),
        ("x = f'''{a # c\n}'''\n", "'#'"),
        ("x = f'{a!r }'\n", "after the conversion"),
        ("x\u00b2 = 1\n", "invalid character"),
        ("a, *b, *c = d\n", "multiple starred"),
        ("f(x=1, x=2)\n", "keyword argument repeated"),
    ],
)
def test_error_messages_name_the_construct(text, fragment):
    with pytest.raises(DwfSyntaxError) as caught:
        parse_tree(text)
    assert fragment in caught.value.message


def test_line_endings_do_not_change_positions():
    lf = parse_tree("x = 1\nif x:\n    y = f'{x}'\n")
    crlf = parse_tree("x = 1\r\nif x:\r\n    y = f'{x}'\r\n")
    cr = parse_tree("x = 1\rif x:\r    y = f'{x}'\r")
    positions = [
        [(t.line, t.column) for t in tree.scan_values(lambda v: hasattr(v, "line"))]
        for tree in (lf, crlf, cr)
    ]
    assert positions[0] == positions[1] == positions[2]


def test_deep_brackets_are_limited_like_cpython():
    assert accepts("x = " + "(" * 150 + "1" + ")" * 150 + "\n")
    assert not accepts("x = " + "(" * 201 + "1" + ")" * 201 + "\n")


def test_deep_indentation_is_limited_like_cpython():
    def nested(depth):
        return "".join(" " * i + "if x:\n" for i in range(depth)) + " " * depth + "pass\n"

    assert accepts(nested(99))
    assert not accepts(nested(100))


def _prefixes_and_mutations(text, count, seed):
    """Truncations and single-character deletions/duplications of `text`, deterministic."""
    rng = random.Random(seed)
    cuts = sorted({rng.randrange(len(text)) for _ in range(count)})
    for cut in cuts:
        yield text[:cut]
        yield text[:cut] + text[cut + 1 :]
        yield text[:cut] + text[cut] + text[cut:]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_mutated_examples_never_accept_non_python(name):
    """Broken variants of real scripts: the verdict is a DwfSyntaxError or valid Python."""
    for variant in _prefixes_and_mutations(EXAMPLES[name], 60, seed=len(name)):
        try:
            parse_tree(variant)
        except DwfSyntaxError:
            continue
        assert _python_accepts(variant), variant


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_mutated_snippets_never_accept_non_python(name):
    text = ACCEPTED[name]
    if not text:
        return
    for variant in _prefixes_and_mutations(text, 12, seed=len(name)):
        if accepts(variant):
            assert _python_accepts(variant), variant


def test_example_scripts_in_repository():
    """Whatever the grammar accepts among the repository's scripts is valid Python."""
    for path in sorted((ROOT / "examples").rglob("*.dwf.py")):
        text = path.read_text(encoding="utf-8")
        if accepts(text):
            assert _python_accepts(text), path


def test_parser_is_built_once():
    assert syntax.parser() is syntax.parser()


def test_grammar_ships_in_the_package_and_imports_nothing_from_dwf():
    assert syntax.GRAMMAR_PATH.name == "dwf.lark"
    assert syntax.GRAMMAR_PATH.parent == Path(syntax.__file__).parent
    source = Path(syntax.__file__).read_text(encoding="utf-8")
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert not [line for line in imports if "dwf" in line or line.startswith("from .")]
