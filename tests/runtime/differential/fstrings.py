"""Differential snippets for f-strings, above all self-documenting fields (`f"{x=}"`): the
expression's source text as written (whitespace around `=` included), then `repr` unless a
conversion or a format spec is given (a spec without a conversion formats the value itself);
nested specs, conversions, and the errors a field can raise."""

SNIPPETS: list[tuple[str, str]] = [
    # the expression text, then repr
    ("equal-name", "x = 3\nreturn f'{x=}'"),
    ("equal-str-repr", "name = 'report.md'\nreturn f'{name=}'"),
    ("equal-spaces-around", "x = 3\nreturn [f'{x = }', f'{x= }', f'{x =}', f'{ x=}', f'{  x  =  }']"),
    ("equal-binop", "x = 21\nreturn [f'{x*2=}', f'{x * 2 = }', f'{x // 4=}', f'{-x=}']"),
    ("equal-several", "path = 'src/app.py'\nline = 42\nok = False\nreturn f'{path=} {line=} {ok=}'"),
    ("equal-text-around", "n = 5\nreturn f'before {n=} after'"),
    ("equal-none-bool", "a = None\nb = True\nreturn f'{a=}, {b=}'"),
    ("equal-float", "ratio = 2 / 3\nreturn [f'{ratio=}', f'{0.1 + 0.2=}']"),
    ("equal-list-dict", "files = ['a.py', 'b.py']\ncounts = {'a.py': 2}\nreturn f'{files=} {counts=}'"),
    ("equal-tuple-set", "pair = (1, 'x')\nempty = set()\nreturn [f'{pair=}', f'{empty=}', f'{(1,)=}']"),
    ("equal-subscript", "d = {'k': [1, 2]}\nreturn [f\"{d['k']=}\", f\"{d['k'][0]=}\", f'{d[\"k\"]=}']"),
    ("equal-call", "xs = [3, 1, 2]\nreturn [f'{len(xs)=}', f'{sorted(xs)=}', f'{max(xs, default=0)=}']"),
    ("equal-method", "s = '  Title '\nreturn [f'{s.strip()=}', f'{s.lower().split()=}']"),
    ("equal-parenthesized", "x = 4\nreturn [f'{(x)=}', f'{(x + 1) * 2=}', f'{( x )=}']"),
    ("equal-comparison", "a = 3\nb = 5\nreturn [f'{a < b=}', f'{a == b = }', f'{a if a > b else b=}']"),
    ("equal-string-literal", "return [f\"{'a' + 'b'=}\", f'{\"q\" * 3=}']"),
    ("equal-quotes-in-value", "s = \"it's\"\nt = 'say \"hi\"'\nreturn [f'{s=}', f'{t=}']"),
    ("equal-unicode", "word = 'café'\nreturn [f'{word=}', f'{word=!a}', f'{\"é\"=!a}']"),
    ("equal-lambda-call", "f = lambda v: v + 1\nreturn f'{f(1)=}'"),
    ("equal-comprehension", "return [f'{[i * i for i in range(4)]=}', f'{sum(i for i in range(5))=}', f'{ {k: 1 for k in \"ab\"} = }']"),
    ("equal-walrus", "return [f'{(y := 10)=}', y]"),
    ("equal-multiline-expression", "x = 2\nreturn f'''{x\n=}'''"),
    ("equal-multiline-spaces", "x = 2\nreturn f'''{\n  x\n  *\n  3\n  =\n}'''"),
    # conversions
    ("equal-conversion-s", "s = 'hi'\nreturn [f'{s=!s}', f'{s = !s}', f'{[s]=!s}']"),
    ("equal-conversion-r", "s = 'hi'\nn = 3\nreturn [f'{s=!r}', f'{n=!r}']"),
    ("equal-conversion-a", "s = 'naïve ☃'\nreturn [f'{s=!a}', f'{[s]=!a}']"),
    # format specs: format() of the value, not repr
    ("equal-spec-width", "x = 3\ns = 'ab'\nreturn [f'{x=:>5}', f'{s=:>5}', f'{s=:*^7}', f'{x=:<4}|']"),
    ("equal-spec-number", "pi = 3.14159\nn = 1234567\nreturn [f'{pi=:.2f}', f'{n=:,}', f'{n=:_x}', f'{pi=:e}', f'{0.25=:%}']"),
    ("equal-spec-empty", "s = 'hi'\nreturn [f'{s=:}', f'{s=!r:}', f'{3=:}']"),
    ("equal-conversion-and-spec", "x = 3\ns = 'ab'\nreturn [f'{x=!r:^10}', f'{s=!r:>8}', f'{s=!s:>8}', f'{s=!a:-<6}']"),
    ("equal-nested-spec", "w = 8\np = 3\nv = 2 / 3\nreturn [f'{v=:{w}.{p}f}', f'{v=:>{w}}', f'{\"x\"=:{\"^\"}{w}}']"),
    ("equal-nested-spec-with-equal", "x = 7\nw = 4\nreturn f'{x:>{w}} {w=}'"),
    ("equal-spec-zero-pad", "n = 7\nreturn [f'{n=:03d}', f'{-n=:+05}', f'{n=:#b}']"),
    ("nested-fstring-with-equal", "x = 5\nreturn [f\"{f'{x=}'=}\", f\"{f'{x}'=!s}\"]"),
    ("fstring-format-spec-nested", "value = 12.3456\nwidth = 10\nprecision = 2\nalign = '>'\nreturn f'[{value:{align}{width}.{precision}f}]'"),
    ("fstring-conversions-plain", "s = 'a\\'b'\nreturn [f'{s}', f'{s!r}', f'{s!s}', f'{s!a}', f'{[s]}']"),
    ("fstring-ascii-quotes", "s = \"it's \\\"x\\\"\"\nt = 'ü\\'s'\nreturn [f'{s!a}', f'{t!a}', f'{[t]!a}']"),
    ("fstring-braces", "x = 1\nreturn [f'{{x}}', f'{{{x}}}', f'{{{x=}}}']"),
    ("fstring-debug-log-line", "done = 3\ntotal = 7\nfailed = ['b.py']\nreturn f'progress: {done=}/{total=} ({done / total:.0%}) {failed=}'"),
    ("fstring-in-loop", "out = []\nfor i, name in enumerate(['a', 'b']):\n    out.append(f'{i=} {name=}')\nreturn out"),
    ("fstring-concatenated", "x = 1\ny = 2\nreturn (f'{x=} ' 'and ' f'{y=}')"),
    # errors raised by a field
    ("equal-expression-raises", "d = {}\nreturn f\"{d['missing']=}\""),
    ("equal-division-by-zero", "n = 0\nreturn f'{1 / n=}'"),
    ("equal-bad-spec-for-str", "s = 'abc'\nreturn f'{s=:d}'"),
    ("equal-bad-spec-for-int", "n = 5\nreturn f'{n=:z}'"),
    ("equal-spec-on-list", "xs = [1, 2]\nreturn f'{xs=:>10}'"),
    ("equal-spec-on-none", "v = None\nreturn f'{v=:>6}'"),
    ("equal-caught", "values = []\ntry:\n    values.append(f'{int(\"x\")=}')\nexcept ValueError as e:\n    values.append(str(e))\nreturn values"),
]
