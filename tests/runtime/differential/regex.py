"""Differential snippets for `re`: compiled patterns and their methods (with `pos`/`endpos`),
`finditer`, `subn`, `escape`, the flags (VERBOSE and ASCII included), function replacements,
match objects (indexing, named groups, `lastindex`/`lastgroup`, `expand`, `span`, ...), the
reprs of patterns and matches, and the errors: `re.error` for bad patterns and templates with
CPython's messages, and the TypeErrors and IndexErrors of misused arguments. Most snippets are
the small parsing jobs a workflow does: test output, versions, log lines, diffs, secrets."""

PYTEST_OUTPUT = ("'tests/test_a.py ..F.\\n'\n"
                 "    'FAILED tests/test_a.py::test_parse - AssertionError\\n'\n"
                 "    'FAILED tests/test_b.py::test_dump[case-1] - KeyError\\n'\n"
                 "    '=== 2 failed, 14 passed, 1 skipped in 3.21s ==='")

SNIPPETS: list[tuple[str, str]] = [
    # ---- parsing test output
    ("pytest-summary-counts", rf"""out = ({PYTEST_OUTPUT})
counts = {{kind: int(n) for n, kind in re.findall(r'(\d+) (passed|failed|skipped|errors?)', out)}}
return counts"""),
    ("pytest-failed-ids", rf"""out = ({PYTEST_OUTPUT})
return re.findall(r'^FAILED (\S+)', out, re.M)"""),
    ("pytest-failed-named-groups", rf"""out = ({PYTEST_OUTPUT})
failure = re.compile(r'^FAILED (?P<file>[^:]+)::(?P<test>\S+) - (?P<error>\w+)$', re.MULTILINE)
return [m.groupdict() for m in failure.finditer(out)]"""),
    ("pytest-duration", rf"""out = ({PYTEST_OUTPUT})
m = re.search(r'in (?P<secs>\d+(?:\.\d+)?)s', out)
return float(m['secs']) if m else None"""),
    ("pytest-summary-optional-groups", r"""line = '=== 12 passed in 0.50s ==='
m = re.search(r'(?:(\d+) failed, )?(\d+) passed', line)
return [m.groups(), m.groups('0'), m.lastindex, m.span(1), m.span(2)]"""),
    ("pytest-param-ids", r"""ids = ['test_dump[case-1]', 'test_dump[case-22]', 'test_load']
p = re.compile(r'(\w+)(?:\[([^\]]+)\])?')
return [p.fullmatch(i).groups() for i in ids]"""),
    ("lint-lines-to-dicts", r"""out = 'src/a.py:12:5: E501 line too long\nsrc/b.py:3:1: F401 unused import\nnot a lint line'
lint = re.compile(r'(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d+) (?P<msg>.*)')
rows = []
for text in out.splitlines():
    m = lint.match(text)
    if m:
        row = m.groupdict()
        row['line'] = int(row['line'])
        rows.append(row)
return rows"""),
    ("mypy-errors-walrus", r"""out = 'a.py:1: error: Incompatible types\na.py:9: note: see here\nb.py:4: error: Missing return'
p = re.compile(r'^(\S+):(\d+): error: (.*)$')
return [(m[1], int(m[2]), m[3]) for line in out.splitlines() if (m := p.match(line))]"""),
    ("junit-attributes", r"""xml = '<testsuite name="unit" tests="12" failures="2" errors="0" time="1.5">'
return {k: v for k, v in re.findall(r'(\w+)="([^"]*)"', xml)}"""),
    ("coverage-total", r"""report = 'Name    Stmts   Miss  Cover\nsrc/a.py   10   2    80%\nTOTAL      40   4    90%'
m = re.search(r'^TOTAL\s+(\d+)\s+(\d+)\s+(\d+)%$', report, re.M)
return [int(g) for g in m.groups()]"""),
    ("exit-code-in-text", r"""text = 'Process finished with exit code 137'
m = re.search(r'exit code (\d+)', text)
return m and int(m.group(1))"""),
    # ---- versions
    ("semver-fullmatch", r"""p = re.compile(r'v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.]+))?')
return [p.fullmatch(v).groups() if p.fullmatch(v) else None for v in ['v1.2.3', '10.0.1-rc.1', '1.2', 'v1.2.3 ']]"""),
    ("version-sort-key", r"""versions = ['1.10.0', '1.2.10', '1.2.9', '0.9']
return sorted(versions, key=lambda v: [int(x) for x in re.findall(r'\d+', v)])"""),
    ("version-bump-function", r"""def bump(m):
    return f"{m.group(1)}.{int(m.group(2)) + 1}.0"
return re.sub(r'(\d+)\.(\d+)\.(\d+)', bump, 'version = "2.7.3"')"""),
    ("version-bump-subn", r"""text = 'dwf==0.1.0\nlibcst==1.9.0\nlark==1.3.1'
return re.subn(r'^(dwf)==[\d.]+$', r'\1==0.2.0', text, flags=re.M)"""),
    ("requirements-pins", r"""reqs = 'libcst==1.9.0\n# comment\nlark==1.3.1\nanyio>=4'
return re.compile(r'^([\w-]+)==([\d.]+)$', re.M).findall(reqs)"""),
    ("changelog-header", r"""log = '# Changelog\n\n## [1.4.0] - 2024-05-01\n- x\n## [1.3.2] - 2024-03-09'
return [(m['version'], m['date']) for m in re.finditer(r'^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d{2}-\d{2})', log, re.M)]"""),
    ("python-version-check", r"""return [bool(re.fullmatch(r'3\.(1[1-9]|[2-9]\d)(\.\d+)?', v)) for v in ['3.11', '3.9.1', '3.12.0', '3.1']]"""),
    ("tag-prefix-strip", r"""return [re.sub(r'^(?:release-|v)', '', t) for t in ['v1.0', 'release-2.1', 'x3']]"""),
    # ---- splitting log lines
    ("split-pipes", r"""re.split(r'\s*\|\s*', 'a | b|c  |d')"""),
    ("split-maxsplit", r"""re.split(r'\s+', 'ERROR 2024-01-01 disk is full', maxsplit=2)"""),
    ("split-with-capture", r"""re.split(r'([,;])', 'a,b;c')"""),
    ("split-two-groups-none", r"""re.split(r'(,)|(;)', 'a,b;c')"""),
    ("split-multiple-delimiters", r"""[s for s in re.split(r'[,;\s]+', 'alpha, beta;gamma  delta,') if s]"""),
    ("split-keeps-empty", r"""re.split(',', ',a,,b,')"""),
    ("split-zero-width-camel", r"""re.split(r'(?=[A-Z])', 'HelloWorldFooBar')"""),
    ("split-empty-matches", r"""[re.split(r'x*', 'axbc'), re.split(r'|a', 'a'), re.split(r'\b', 'hi you')]"""),
    ("split-negative-maxsplit", r"""[re.split('a', 'bab', -1), re.compile('a').split('aXa', maxsplit=-1), re.split('a', 'bab', 0)]"""),
    ("log-line-verbose", r"""line = '2024-05-01T10:00:00Z WARN  [worker-3] retrying request id=42'
log = re.compile(r'''
    (?P<ts>\S+) \s+          # timestamp
    (?P<level>[A-Z]+) \s+    # level
    \[(?P<thread>[^\]]+)\] \s+
    (?P<msg>.*)              # the rest
''', re.VERBOSE)
return log.match(line).groupdict()"""),
    ("log-levels-count", r"""logs = 'INFO a\nERROR b\nWARN c\nERROR d\ninfo e'
counts = {}
for level in re.findall(r'^(INFO|WARN|ERROR)\b', logs, re.M):
    counts[level] = counts.get(level, 0) + 1
return counts"""),
    ("log-levels-ignorecase", r"""re.findall(r'^(info|warn|error)\b', 'INFO a\nERROR b\ninfo e', re.M | re.I)"""),
    ("key-value-pairs", r"""dict(re.findall(r'(\w+)=("[^"]*"|\S+)', 'user=ada role="admin user" id=7'))"""),
    ("http-headers", r"""raw = 'Content-Type: text/html\r\nX-Request-Id:  abc123\r\nbad header'
return {m[1].lower(): m[2] for m in re.finditer(r'^([\w-]+):\s*(.*?)\r?$', raw, re.M)}"""),
    # ---- named groups and match objects
    ("named-group-indexing", r"""m = re.match(r'(?P<key>\w+)=(?P<value>\w+)', 'mode=fast')
return [m['key'], m['value'], m[0], m[1], m.group('key', 'value'), m.group(0, 'key', 2)]"""),
    ("groupdict-default", r"""m = re.match(r'(?P<name>\w+)(?::(?P<tag>\w+))?', 'image')
return [m.groupdict(), m.groupdict(''), m.groupdict(default='latest')]"""),
    ("groups-default", r"""m = re.match(r'(a)(b)?(c)?', 'ac')
return [m.groups(), m.groups(''), m.groups(default=0)]"""),
    ("lastgroup-tokenizer", r"""spec = [('NUMBER', r'\d+(?:\.\d*)?'), ('NAME', r'[A-Za-z_]\w*'), ('OP', r'[+\-*/=]'), ('SKIP', r'\s+')]
token = re.compile('|'.join(f'(?P<{name}>{pattern})' for name, pattern in spec))
out = []
for m in token.finditer('x = 3.5 * y1'):
    if m.lastgroup != 'SKIP':
        out.append((m.lastgroup, m.group()))
return out"""),
    ("lastindex-nested", r"""[re.match(r'(a(b))', 'ab').lastindex, re.match(r'(a)(b)', 'ab').lastindex, re.match(r'a', 'a').lastindex,
 re.match(r'(a)|(b)', 'b').lastindex, re.match(r'(?P<x>a)', 'a').lastgroup, re.match(r'(a)', 'a').lastgroup]"""),
    ("groupindex-and-groups", r"""p = re.compile(r'(?P<year>\d{4})-(?P<month>\d\d)-(\d\d)')
return [dict(p.groupindex), p.groups, p.groupindex['month'], sorted(p.groupindex)]"""),
    ("span-start-end", r"""m = re.search(r'(?P<word>b+)(x)?', 'aabbbcc')
return [m.span(), m.start(), m.end(), m.span('word'), m.start(1), m.end('word'), m.span(2), m.start(2)]"""),
    ("match-pos-endpos-string", r"""p = re.compile(r'\d+')
m = p.search('ab12cd345', 3)
return [m.group(), m.pos, m.endpos, m.string, m.re.pattern, m.re.groups]"""),
    ("match-pos-normalized", r"""p = re.compile('a')
m = p.search('bab', -5, 100)
return [m.pos, m.endpos, m.span()]"""),
    ("match-truthiness", r"""out = []
for text in ['id: 7', 'none here']:
    m = re.search(r'\d+', text)
    out.append([bool(m), 'hit' if m else 'miss', m is None])
return out"""),
    ("match-and-idiom", r"""[(m := re.match(r'(\w+)@', s)) and m.group(1) for s in ['ada@host', 'no-at']]"""),
    ("expand-templates", r"""m = re.match(r'(?P<user>\w+)@(?P<host>[\w.]+)', 'ada@example.org')
return [m.expand(r'\g<host>/\g<user>'), m.expand(r'\2 \1'), m.expand(r'<\g<0>>'), m.expand('tab\\there'), m.expand(r'\n')]"""),
    ("expand-unmatched-group", r"""m = re.match(r'(a)(b)?', 'a')
return m.expand(r'[\1][\2]')"""),
    ("group-bool-index", r"""m = re.match(r'(a)(b)', 'ab')
return [m.group(True), m[False], m.start(True)]"""),
    ("unmatched-group-values", r"""m = re.match(r'(x)?y', 'y')
return [m.group(1), m[1], m.span(1), m.start(1), m.end(1), m.groups()]"""),
    ("finditer-list", r"""[m.span() for m in re.finditer(r'\d+', 'a1 b22 c333')]"""),
    ("finditer-break-early", r"""first = None
for m in re.compile(r'TODO: (.*)').finditer('x\nTODO: one\nTODO: two'):
    first = m.group(1)
    break
return first"""),
    ("finditer-pos-endpos", r"""p = re.compile(r'\w')
return [m.group() for m in p.finditer('abcdef', 2, 5)]"""),
    ("finditer-empty-matches", r"""[[m.span() for m in re.finditer(r'|a', 'a')], [m.span() for m in re.finditer(r'x*', 'axb')]]"""),
    ("finditer-repr", r"""repr(re.finditer('a', 'a')).split(' ')[0]"""),
    ("todo-line-numbers", r"""src = 'def f():\n    pass  # TODO: test\n\nx = 1  # TODO fix\n'
return [(src.count('\n', 0, m.start()) + 1, m.group(1)) for m in re.finditer(r'#\s*TODO:?\s*(.*)', src)]"""),
    ("sort-matches-by-position", r"""text = 'b=2 a=1 c=3'
found = list(re.finditer(r'(\w)=(\d)', text))
return [m[1] for m in sorted(found, key=lambda m: -m.start())]"""),
    # ---- VERBOSE and flags
    ("verbose-comments-whitespace", r"""number = re.compile(r'''
    [-+]?        # sign
    \d+          # integer part
    (?:\.\d+)?   # fraction
''', re.X)
return number.findall('x=-1.5, y=+2, z=3.25')"""),
    ("verbose-escaped-space", r"""p = re.compile(r'''hello\ world | [ ]tab''', re.VERBOSE)
return [p.findall('hello world'), p.findall(' tab'), p.findall('helloworld')]"""),
    ("verbose-with-ignorecase", r"""p = re.compile(r'''
    ^(?P<verb> get | post )   # method
    \s+ (?P<path> /\S* )
''', re.VERBOSE | re.IGNORECASE)
return p.match('GET /api/v1').groupdict()"""),
    ("inline-verbose-flag", r"""re.findall(r'(?x) \d+ # digits', 'a1 b22')"""),
    ("ascii-flag-word", r"""[re.findall(r'\w+', 'naïve café'), re.findall(r'\w+', 'naïve café', re.A), re.findall(r'\w+', 'naïve café', re.ASCII)]"""),
    ("ascii-flag-digits", r"""[re.findall(r'\d', '1٢3'), re.findall(r'\d', '1٢3', flags=re.A)]"""),
    ("ignorecase-unicode", r"""[re.findall('straße', 'STRASSE Straße', re.I), re.match('ÉTÉ', 'été', re.IGNORECASE) is not None]"""),
    ("multiline-anchors", r"""text = 'one\ntwo\nthree'
return [re.findall(r'^\w', text), re.findall(r'^\w', text, re.M), re.findall(r'\w$', text, re.M), re.search(r'\Athree', text, re.M)]"""),
    ("dotall", r"""text = '<b>\nbold\n</b>'
return [re.search(r'<b>(.*)</b>', text), re.search(r'<b>(.*)</b>', text, re.S).group(1), re.search(r'(?s)<b>(.*?)</b>', text)[1]]"""),
    ("flags-values", r"""[re.I, re.IGNORECASE, re.M, re.S, re.X, re.A, re.U, re.NOFLAG, re.I | re.M, re.VERBOSE | re.ASCII, re.DOTALL & re.S]"""),
    ("pattern-flags-attribute", r"""[re.compile('a').flags, re.compile('a', re.I).flags, re.compile('a', re.A).flags, re.compile('(?i)a').flags,
 re.compile('a', re.X | re.M).flags, re.compile('a', re.NOFLAG).flags, re.compile('a', re.U).flags]"""),
    ("flags-test-bits", r"""p = re.compile(r'x', re.I | re.M)
return [bool(p.flags & re.I), bool(p.flags & re.S), p.flags & re.M == re.M]"""),
    ("recompile-from-pattern", r"""p = re.compile(r'(\w+)@', re.I)
q = re.compile(p.pattern, p.flags)
return [q == p, q.flags, q.findall('Ada@ BOB@')]"""),
    ("flags-keyword-module", r"""[re.sub('a', 'x', 'AaA', flags=re.I), re.sub('a', 'x', 'AaA', 1, re.I), re.split('x', 'aXbxc', flags=re.I),
 re.search(pattern='b', string='ABC', flags=re.I).span()]"""),
    # ---- function replacements
    ("sub-lambda-upper", r"""re.sub(r'\b(\w)', lambda m: m.group(1).upper(), 'hello big world')"""),
    ("sub-template-vars-function", r"""values = {'name': 'Ada', 'count': 3}
def fill(m):
    key = m.group(1)
    return str(values[key]) if key in values else m.group(0)
return re.sub(r'\{\{\s*(\w+)\s*\}\}', fill, 'Hi {{ name }}, {{count}} new, {{missing}}')"""),
    ("sub-dollar-vars-get", r"""env = {'HOME': '/home/ada'}
return re.sub(r'\$\{(\w+)\}', lambda m: env.get(m[1], ''), 'cd ${HOME}/src; echo ${NOPE}.')"""),
    ("subn-function-count", r"""return re.subn(r'\d+', lambda m: str(len(m.group())), 'a1 b22 c333')"""),
    ("sub-function-with-count", r"""re.sub(r'a', lambda m: str(m.start()), 'banana', count=2)"""),
    ("sub-function-positions", r"""re.sub(r'x', lambda m: f'[{m.start()}-{m.end()}]', 'axbxc')"""),
    ("sub-function-returns-none", r"""re.sub(r'\d', lambda m: None, 'a1b2')"""),
    ("sub-function-returns-int", r"""re.sub(r'a', lambda m: 1, 'xaa')"""),
    ("subn-function-returns-int-first", r"""re.subn(r'a', lambda m: 1, 'a', 0)"""),
    ("sub-function-returns-match", r"""re.sub(r'a', lambda m: m, 'a')"""),
    ("sub-function-raises", r"""def strict(m):
    return {'a': 'A'}[m.group()]
try:
    return re.sub(r'\w', strict, 'ab')
except KeyError as e:
    return ['KeyError', str(e)]"""),
    ("sub-function-side-effects-order", r"""seen = []
def note(m):
    seen.append(m.group())
    return m.group().upper()
result = re.sub(r'[a-c]', note, 'xaybzc')
return [result, seen]"""),
    ("sub-function-nested-re", r"""def words(m):
    return re.sub(r'(\w)(\w*)', lambda w: w[1].upper() + w[2], m.group(1))
return re.sub(r'"([^"]*)"', words, 'say "hello big world" now')"""),
    ("sub-function-default-arg", r"""def mask(m, keep=2):
    s = m.group()
    return s[:keep] + '*' * (len(s) - keep)
return re.sub(r'\b\d{6,}\b', mask, 'card 12345678 pin 12')"""),
    ("sub-builtin-repr", r"""re.sub('a', repr, 'xa')"""),
    ("sub-builtin-str", r"""re.sub(r'(\d)', str, 'a1')"""),
    ("pattern-sub-function", r"""p = re.compile(r'(?P<n>\d+)(?P<unit>ms|s)')
def to_ms(m):
    n = int(m['n'])
    return f"{n * 1000 if m['unit'] == 's' else n}ms"
return [p.sub(to_ms, 'took 3s then 250ms'), p.subn(to_ms, '1s 2s 3ms', 2)]"""),
    ("sub-function-empty-matches", r"""re.sub(r'x*', lambda m: f'<{m.group()}>', 'abxd')"""),
    ("sub-function-count-negative", r"""re.compile('a').sub(lambda m: 'x', 'aa', count=-1)"""),
    ("camel-to-snake", r"""[re.sub(r'(?<!^)(?=[A-Z])', '_', name).lower() for name in ['CamelCase', 'getHTTPResponse', 'x']]"""),
    ("snake-to-camel", r"""re.sub(r'_([a-z])', lambda m: m.group(1).upper(), 'parse_test_output_now')"""),
    ("redact-secrets-function", r"""text = 'key=AKIAABCDEFGHIJKLMNOP token=ghp_abcdefghijklmnopqrstuvwxyz0123456789'
secrets = re.compile(r'AKIA[0-9A-Z]{16}|ghp_[A-Za-z0-9]{36}')
return secrets.sub(lambda m: m.group()[:4] + '*' * (len(m.group()) - 4), text)"""),
    # ---- templates and literal replacements
    ("sub-template-groups", r"""[re.sub(r'(\w+)@(\w+)', r'\2 at \1', 'ada@host bob@box'), re.sub(r'(?P<x>a)', r'\g<x>\g<1>', 'a'),
 re.sub(r'(\w+)', r'<\g<1>>', 'hi there', count=1), re.sub('(a)|b', r'[\1]', 'ab')]"""),
    ("sub-template-escapes", r"""[re.sub('a', r'\n', 'xa'), re.sub('a', r'\\', 'xa'), re.sub('a', r'\-', 'xa'), re.sub('(a)', r'\101\0', 'a'), re.sub('a', '\\t', 'a')]"""),
    ("sub-literal-and-empty", r"""[re.sub(r'\s+', ' ', '  a \t b\n'), re.sub('x', 'y', 'abc'), re.sub('', '-', 'ab'), re.sub(r'x*', '-', 'abxd')]"""),
    ("subn-counts", r"""[re.subn('a', 'b', 'aaa'), re.subn('a', 'b', 'aaa', 2), re.subn('z', 'b', 'aaa'), re.compile('a').subn('b', 'aaa', count=0)]"""),
    ("sub-count-bool", r"""re.compile('x').sub('y', 'axbx', True)"""),
    ("strip-ansi", r"""ansi = re.compile(r'\x1b\[[0-9;]*m')
return ansi.sub('', '\x1b[31mFAILED\x1b[0m test_a \x1b[1;32mok\x1b[0m')"""),
    ("collapse-blank-lines", r"""re.sub(r'\n{3,}', '\n\n', 'a\n\n\n\nb\n\nc')"""),
    ("escape-literal-search", r"""name = 'file(1).txt'
return [re.escape(name), bool(re.fullmatch(re.escape(name), name)), re.findall(re.escape('a.b'), 'a.b axb')]"""),
    ("escape-alternation", r"""words = ['c++', 'c#', 'f.net']
p = re.compile('|'.join(map(re.escape, words)))
return p.findall('I like c++ and f.net but not c')"""),
    ("escape-specials", r"""[re.escape('1.0 (beta)*'), re.escape('a-b_c d'), re.escape(''), re.escape('\t\n'), re.escape(pattern='[x]')]"""),
    # ---- pattern objects
    ("pattern-methods-pos-endpos", r"""p = re.compile('a')
return [repr(p.match('bab', 1)), p.search('bab', 2), p.fullmatch('a', 0, 1).span(), p.findall('aaaa', 1, 3), p.split('bab', 1),
        p.sub('x', 'aa', 1), p.match('bab', pos=1, endpos=2).span()]"""),
    ("pattern-anchor-at-pos", r"""p = re.compile(r'^\w+')
return [p.search('ab cd', 3), re.compile(r'\w+').match('ab cd', 3).group(), re.compile(r'$').search('abc', 0, 2).span()]"""),
    ("pattern-endpos-dollar", r"""p = re.compile(r'\d+$')
return [p.search('ab12cd', 0, 4).group(), p.search('ab12cd'), p.fullmatch('12x', endpos=2).group()]"""),
    ("pattern-lookbehind-before-pos", r"""p = re.compile(r'(?<=a)b')
return [p.search('ab', 1).span(), p.match('ab', 1).group()]"""),
    ("pattern-findall-group-shapes", r"""s = 'a1 b2 c'
return [re.findall(r'\w\d', s), re.findall(r'(\w)\d', s), re.findall(r'(\w)(\d)', s), re.findall(r'(\w)(\d)?', s)]"""),
    ("pattern-findall-lookahead-overlap", r"""[re.findall(r'(?=(aa))', 'aaaa'), re.findall(r'(?=(\w\w))', 'abc')]"""),
    ("pattern-equality-and-keys", r"""a = re.compile(r'\d+')
b = re.compile(r'\d+')
counts = {a: 1}
counts[b] = counts.get(b, 0) + 1
return [a == b, a != re.compile(r'\d+', re.I), counts[a], len(counts), a == r'\d+']"""),
    ("pattern-compile-idempotent", r"""p = re.compile('a')
return [re.compile(p) == p, re.match(p, 'ab').span(), re.findall(p, 'aXa')]"""),
    ("match-re-is-pattern", r"""p = re.compile(r'(\w)')
m = p.match('x')
return [m.re == p, m.re != p, repr(m.re)]"""),
    ("pattern-repr", r"""[repr(re.compile('a+')), repr(re.compile("it's")), repr(re.compile('x', re.I | re.M)), repr(re.compile('x', re.A | re.I)),
 repr(re.compile('x', re.S | re.I | re.M | re.X)), repr(re.compile('x', re.U)), repr(re.compile('(?x) a b')), str(re.compile(r'\d'))]"""),
    ("pattern-repr-long", r"""repr(re.compile('a' * 300))"""),
    ("match-repr", r"""[repr(re.match('a', 'a')), repr(re.search(r'\d+', 'ab 123')), str(re.match("'", "'")), f"{re.match('x', 'x')}"]"""),
    ("match-repr-long", r"""repr(re.match('.*', 'x' * 100))"""),
    ("pattern-keywords", r"""p = re.compile(pattern=r'(\d)')
return [p.search(string='ab1').span(), p.sub(repl='#', string='a1b2'), p.split(string='a1b', maxsplit=1), p.findall('1 2 3', pos=2)]"""),
    ("pattern-split-groups", r"""[re.compile(r'(-)').split('a-b-c'), re.compile(r'-').split('a-b-c', 1), re.compile(r'(?:x)').split('axb')]"""),
    ("pattern-groups-attribute", r"""[re.compile('a').groups, re.compile('(a)(?:b)(c)').groups, dict(re.compile('(?P<n>a)').groupindex), re.compile('a').pattern]"""),
    # ---- pattern features
    ("backreference", r"""[re.findall(r'\b(\w+) \1\b', 'the the cat sat sat'), re.sub(r'(\w)\1', r'\1', 'aabbcd')]"""),
    ("conditional-group", r"""p = re.compile(r'(<)?(\w+)(?(1)>)')
return [bool(p.fullmatch(s)) for s in ['<a>', 'a', '<a', 'a>']]"""),
    ("atomic-and-possessive", r"""[re.match(r'(?>a+)b', 'aaab').group(), re.match(r'a++b', 'aab').group(), re.match(r'(?>a+)a', 'aaa'), re.match(r'a*+a', 'aa')]"""),
    ("non-capturing-and-lookarounds", r"""[re.findall(r'(?:ab)+', 'ababx ab'), re.findall(r'\w+(?=!)', 'hi! yo no!'), re.findall(r'(?<!-)\b\d+', '-1 2 -3 4')]"""),
    ("unicode-categories", r"""[re.findall(r'\d+', 'x٣٤ 12'), re.findall(r'[^\W\d_]+', 'abc_12 déf'), re.findall(r'\s', 'a\u00a0b\tc')]"""),
    ("word-count", r"""text = "It's a test -- a small one, isn't it?"
return [len(re.findall(r'\b\w+\b', text)), re.findall(r"\b[\w']+\b", text)[:4]]"""),
    ("markdown-headers", r"""md = '# Title\nintro\n## Setup\n### Details ##\n####### too deep'
return [(len(m[1]), m[2]) for m in re.finditer(r'^(#{1,6})\s+(.+?)\s*#*$', md, re.M)]"""),
    ("markdown-links", r"""re.findall(r'\[([^\]]+)\]\(([^)\s]+)\)', 'See [docs](https://x.io/d) and [API](api.md).')"""),
    ("diff-hunk-headers", r"""diff = '@@ -1,4 +1,5 @@ def f\n-x\n+y\n@@ -10 +11,2 @@\n'
return [tuple(int(g) if g else 1 for g in m.groups()) for m in re.finditer(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@', diff, re.M)]"""),
    ("diff-changed-files", r"""diff = 'diff --git a/src/x.py b/src/x.py\n+++ b/src/x.py\ndiff --git a/README.md b/README.md'
return re.findall(r'^diff --git a/(\S+) b/', diff, flags=re.MULTILINE)"""),
    ("git-log-commits", r"""log = 'commit ' + 'a' * 40 + '\nAuthor: Ada\n\n    fix: the parser\n\ncommit ' + '0123abcd' * 5 + '\n'
return [h[:8] for h in re.findall(r'^commit ([0-9a-f]{40})$', log, re.M)]"""),
    ("conventional-commits", r"""msgs = ['feat(parser): add re.compile', 'fix: crash', 'chore!: drop py3.10', 'update docs']
p = re.compile(r'^(?P<type>\w+)(?:\((?P<scope>[^)]+)\))?(?P<breaking>!)?: (?P<subject>.+)$')
return [p.match(s).groupdict() if p.match(s) else None for s in msgs]"""),
    ("python-def-names", r"""src = 'def load():\n    pass\n\nasync def fetch(url):\n    pass\nclass X:\n    def method(self): ...'
return re.findall(r'^(?:async )?def (\w+)\(', src, re.M)"""),
    ("python-imports", r"""src = 'import os\nfrom pathlib import Path\nimport json, re\n  import indented'
return [m.group(1) or m.group(2) for m in re.finditer(r'^(?:from (\S+) import|import (\S+))', src, re.M)]"""),
    ("emails-and-urls", r"""text = 'Mail ada@example.org or bob.s@dev.co.uk; see https://example.org/a?b=1 and http://x.io.'
return [re.findall(r'[\w.+-]+@[\w-]+(?:\.[\w-]+)+', text), re.findall(r'https?://[^\s,;]+?(?=[.,;]?(?:\s|$))', text)]"""),
    ("secret-scan", r"""files = {'a.env': 'AWS_KEY=AKIAIOSFODNN7EXAMPLE\n', 'b.py': 'x = 1\n', 'c.txt': 'ghp_' + 'A' * 36}
patterns = {'aws': re.compile(r'AKIA[0-9A-Z]{16}'), 'github': re.compile(r'ghp_[A-Za-z0-9]{36}')}
hits = []
for path, text in files.items():
    for kind, p in patterns.items():
        for m in p.finditer(text):
            hits.append((path, kind, m.start()))
return hits"""),
    ("slug-validation", r"""[bool(re.fullmatch(r'[a-z0-9]+(?:-[a-z0-9]+)*', s)) for s in ['fix-until-green', 'Fix', 'a--b', 'ok1', 'x\n']]"""),
    ("duration-parse", r"""def seconds(text):
    m = re.fullmatch(r'(?:(?P<h>\d+)h)?(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?', text)
    if not m or not text:
        return None
    parts = m.groupdict('0')
    return int(parts['h']) * 3600 + int(parts['m']) * 60 + int(parts['s'])
return [seconds('1h30m'), seconds('45s'), seconds('2h5s'), seconds('x'), seconds('')]"""),
    ("csv-quoted-fields", r"""line = 'a,"b, c",,"d ""e"" f"'
return [m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2) for m in re.finditer(r'(?:^|,)(?:"((?:[^"]|"")*)"|([^,]*))', line)]"""),
    ("ticket-ids", r"""sorted(set(re.findall(r'\b[A-Z]{2,}-\d+\b', 'Fixes DWF-12, DWF-7 and OPS-3; see DWF-12 again, not x-1')))"""),
    ("json-of-groupdicts", r"""rows = [m.groupdict() for m in re.finditer(r'(?P<k>\w+):(?P<v>\d+)', 'a:1 b:22')]
return json.loads(json.dumps(rows))"""),
    ("fullmatch-vs-match", r"""[re.match(r'\d+', '12ab') is not None, re.fullmatch(r'\d+', '12ab'), re.fullmatch(r'\d+', '12').group(), re.fullmatch('a|ab', 'ab').group()]"""),
    # ---- errors: bad patterns (re.error with CPython's message)
    ("error-bad-patterns", r"""out = []
for pattern in ['(', '[a-', '*a', 'a{2,1}', '(?P<n>a)(?P<n>b)', '\\', '(?<=a+)b', 'a(?i)b', '(?P<1>a)', '[z-a]', 'a)', r'\8']:
    try:
        re.compile(pattern)
        out.append('ok')
    except re.error as e:
        out.append(str(e))
return out"""),
    ("error-verbose-position", r"""number = r'''(?x)
        (\d+   # missing paren
    '''
try:
    re.compile(number)
except re.error as e:
    return str(e)"""),
    ("error-newline-position", r"""pattern = '(\n'
return re.compile(pattern)"""),
    ("error-uncaught", r"""config = {'pattern': '[unclosed'}
return re.search(config['pattern'], 'text')"""),
    ("error-caught-by-exception", r"""try:
    user_pattern = '(?P<x'
    re.findall(user_pattern, 'abc')
except Exception as e:
    return ['Exception', str(e), isinstance(e, re.error)]"""),
    ("error-not-a-valueerror", r"""try:
    try:
        re.compile('(' + 'a')
    except ValueError:
        return 'ValueError'
except re.error:
    return 're.error'"""),
    ("error-repr-and-args", r"""try:
    re.compile('a' + '**')
except re.error as e:
    return [repr(e), e.args, str(e)]"""),
    ("error-raise-own", r"""def check(pattern):
    if not pattern:
        raise re.error('empty pattern')
    return re.compile(pattern)
try:
    check('')
except re.error as e:
    return [str(e), repr(e)]"""),
    ("error-in-tuple-except", r"""try:
    pattern = '('
    re.sub(pattern, 'x', 'y')
except (ValueError, re.error) as e:
    return str(e)"""),
    ("error-bad-templates", r"""out = []
for template in [r'\2', r'\q', r'\g<x>', r'\g<', r'\g<1', r'\g<-1>', '\\']:
    try:
        out.append(re.sub('(a)', template, 'a'))
    except re.error as e:
        out.append(['re.error', str(e)])
    except IndexError as e:
        out.append(['IndexError', str(e)])
return out"""),
    ("error-template-without-match", r"""template = r'\9'
return re.sub('x', template, 'abc')"""),
    ("error-expand-bad-escape", r"""re.match('(a)', 'a').expand(r'[\1\n\x]')"""),
    ("error-compile-overflow", r"""try:
    re.compile('a{' + '9' * 11 + '}')
except Exception as e:
    return str(e)"""),
    # ---- errors: misused arguments
    ("error-subject-not-str", r"""re.match('a', 1)"""),
    ("error-finditer-subject-not-str", r"""re.finditer('a', ['a'])"""),
    ("error-pattern-not-str", r"""re.compile(1)"""),
    ("error-search-pattern-none", r"""re.search(None, 'a')"""),
    ("error-flags-with-compiled", r"""re.match(re.compile('a'), 'a', re.I)"""),
    ("error-compile-compiled-with-flags", r"""re.compile(re.compile('a'), re.I)"""),
    ("error-flags-not-int", r"""re.match('a', 'a', 'x')"""),
    ("error-ascii-unicode", r"""re.compile('a', re.A | re.U)"""),
    ("error-module-missing-args", r"""out = []
for thunk in [lambda: re.match('a'), lambda: re.sub('a', 'b'), lambda: re.compile(), lambda: re.escape(), lambda: re.split()]:
    try:
        thunk()
    except TypeError as e:
        out.append(str(e))
return out"""),
    ("error-module-extra-args", r"""out = []
for thunk in [lambda: re.match('a', 'b', 0, 1), lambda: re.escape('a', 'b'), lambda: re.compile('a', 0, 1),
              lambda: re.findall('a', 'a', flags=0, x=1), lambda: re.search('a', 'a', pattern='b')]:
    try:
        thunk()
    except TypeError as e:
        out.append(str(e))
return out"""),
    ("error-method-args", r"""p = re.compile('a')
out = []
for thunk in [lambda: p.match(), lambda: p.sub('b'), lambda: p.split('a', 1, 2), lambda: p.match('a', foo=1),
              lambda: p.findall('a', string='a'), lambda: p.search(s='x'), lambda: p.match('a', 0, 1, 2)]:
    try:
        thunk()
    except TypeError as e:
        out.append(str(e))
return out"""),
    ("error-pos-not-int", r"""out = []
for thunk in [lambda: re.compile('a').match('a', 'b'), lambda: re.compile('a').search('a', None),
              lambda: re.compile('a').sub('b', 'aaa', count=1.0), lambda: re.sub('a', 'b', 'aaa', 'x'), lambda: re.split('a', 'a', 1.5)]:
    try:
        thunk()
    except TypeError as e:
        out.append(str(e))
return out"""),
    ("error-repl-not-str", r"""re.sub('a', 1, 'a')"""),
    ("error-escape-not-str", r"""re.escape(1)"""),
    ("error-no-such-group", r"""m = re.match(r'(a)(b)?', 'a')
out = []
for thunk in [lambda: m[3], lambda: m['x'], lambda: m.group(1.0), lambda: m.start(5), lambda: m.group(-1), lambda: m.span('zz')]:
    try:
        thunk()
    except IndexError as e:
        out.append(str(e))
return out"""),
    ("error-group-unhashable", r"""m = re.match('(?P<x>a)', 'a')
out = []
for thunk in [lambda: m.group([]), lambda: m[1:2], lambda: m.group({})]:
    try:
        thunk()
    except TypeError as e:
        out.append(str(e))
return out"""),
    ("error-group-unhashable-no-names", r"""m = re.match('(a)', 'a')
out = []
for thunk in [lambda: m.group([]), lambda: m[1:2]]:
    try:
        thunk()
    except IndexError as e:
        out.append(str(e))
return out"""),
    ("error-match-method-args", r"""m = re.match(r'(a)', 'a')
out = []
for thunk in [lambda: m.start(group=1), lambda: m.start(1, 2), lambda: m.group(x=1), lambda: m.groups(1, 2), lambda: m.expand(),
              lambda: m.expand('a', 'b'), lambda: m.expand(t='x'), lambda: m.expand(1)]:
    try:
        thunk()
    except TypeError as e:
        out.append(str(e))
return out"""),
    ("error-match-len", r"""len(re.match('a', 'a'))"""),
    ("error-match-not-iterable", r"""list(re.match('a', 'a'))"""),
    ("error-match-in", r"""'a' in re.match('a', 'a')"""),
    ("error-pattern-not-subscriptable", r"""re.compile('a')[0]"""),
    ("error-pattern-not-callable", r"""re.compile('a')('a')"""),
    ("flags-are-ints", r"""[repr(re.I), str(re.I | re.M), f'{re.X}']"""),
    ("groupindex-is-a-dict-copy", r"""p = re.compile('(?P<a>x)')
g = p.groupindex
return [isinstance(g, dict), g == {'a': 1}, p.groupindex['a']]"""),
    ("error-flag-locale", r"""re.compile('a', 4)"""),
    ("error-flag-not-offered", r"""re.compile('a', 1).pattern"""),
]

# Flags are plain ints (CPython's are `re.RegexFlag` members, shown by name); `groupindex` is a
# plain dict copy (CPython's is a read-only mapping proxy); re.TEMPLATE (1), re.LOCALE and re.DEBUG
# (which prints to the terminal) are not offered (LOCALE is refused by CPython itself).
DELIBERATE = {
    "flags-are-ints": ["2", "10", "64"],
    "groupindex-is-a-dict-copy": [True, True, 1],
    "error-flag-not-offered": {"error": "ValueError", "message": "re flags may only combine re.IGNORECASE, re.MULTILINE, "
                               "re.DOTALL, re.VERBOSE, re.ASCII and re.UNICODE"},
}
