"""Differential snippets for text formatting outside f-strings: printf-style `%` formatting of
strings (conversions, flags, widths and precisions, `*`, tuples, `%(name)s` with a dict, every
error CPython raises) and the `format(value, spec)` builtin, in the shapes workflows use them
(report lines, tables, file sizes, percentages)."""

SNIPPETS: list[tuple[str, str]] = [
    # ---- % formatting: the everyday forms
    ("pct-count-files", "'%d files changed' % 12"),
    ("pct-tuple-args", "'%s: %d issues (%s)' % ('src/app.py', 3, 'high')"),
    ("pct-float-precision", "'%.2f seconds' % 3.14159"),
    ("pct-percent-literal", "'%d%% done' % 75"),
    ("pct-percentage-ratio", "'%.1f%% of tests passed' % (100 * 47 / 52)"),
    ("pct-zero-padded-float", "'%05.2f' % 3.14159"),
    ("pct-left-justified", "'[%-10s]' % 'name'"),
    ("pct-right-justified", "'[%10s]' % 'name'"),
    ("pct-plus-sign", "['%+d' % 5, '%+d' % -5, '%+d' % 0]"),
    ("pct-space-sign", "['% d' % 5, '% d' % -5]"),
    ("pct-star-width", "'%*d|' % (6, 42)"),
    ("pct-star-width-negative", "'%*d|' % (-6, 42)"),
    ("pct-star-precision", "'%.*f' % (3, 2.0 / 3)"),
    ("pct-star-both", "'%*.*f|' % (10, 2, 3.14159)"),
    ("pct-star-precision-negative", "'%.*f' % (-3, 1.5)"),
    ("pct-hex-octal", "['%x' % 255, '%X' % 255, '%o' % 8, '%#x' % 255, '%#X' % 255, '%#o' % 8, '%08x' % 48879]"),
    ("pct-exponent", "['%e' % 12345.678, '%E' % 0.000123, '%.2e' % 6.02e23, '%+.1e' % -12345.678]"),
    ("pct-general", "['%g' % 0.00001, '%g' % 1e20, '%G' % 1e-10, '%g' % 100.0, '%.3g' % 3.14159, '%#g' % 1.0]"),
    ("pct-integer-aliases", "['%i' % 7, '%u' % 7, '%ld' % 7, '%hd' % 7, '%Lf' % 1.5]"),
    ("pct-char", "['%c' % 65, '%c' % 'z', '%c' % 0x263a, '%3c|' % 'x', '%-3c|' % 'x']"),
    ("pct-repr-and-ascii", "['%r' % 'it\\'s', '%r' % [1, 'a'], '%a' % 'café', '%a' % ['ü'], '%s' % 'ü']"),
    ("pct-str-of-values", "'%s %s %s %s %s' % (None, True, 1.5, [1, 2], {'k': (1,)})"),
    ("pct-str-of-set", "'%s' % {3}"),
    ("pct-str-of-frozenset", "['%s' % frozenset(), '%r' % frozenset([1])]"),
    ("pct-str-of-range-and-slice", "'%s | %r' % (range(2, 8, 2), slice(1, None))"),
    ("pct-str-precision-truncates", "['%.3s' % 'abcdef', '%.0s|' % 'abc', '%-6.2s|' % 'abcdef', '%.3r' % 'abcdef']"),
    ("pct-zero-flag-on-str-ignored", "'%05s|' % 'ab'"),
    ("pct-int-precision", "['%.3d' % 5, '%5.3d|' % 5, '%-5.3d|' % -5, '%.0d|' % 0]"),
    ("pct-float-to-int-conversion", "['%d' % 3.99, '%d' % -3.99, '%i' % 2.5e3]"),
    ("pct-bool-as-number", "['%d' % True, '%x' % True, '%.1f' % False, '%s' % True]"),
    ("pct-big-int", "'%d' % (2 ** 200)"),
    ("pct-big-int-hex", "'%x' % (3 ** 100)"),
    ("pct-negative-hex", "['%x' % -255, '%#o' % -8, '%+x' % 10]"),
    ("pct-float-rounding", "['%.0f' % 0.5, '%.0f' % 1.5, '%.0f' % 2.5, '%.2f' % 2.675, '%.1f' % 0.05]"),
    ("pct-alt-float", "['%#.0f' % 2, '%#.0e' % 3, '%#x' % 0]"),
    ("pct-nan-inf", "['%f' % float('inf'), '%.2f' % float('-inf'), '%e' % float('nan'), '%5.1f|' % float('nan')]"),
    ("pct-single-arg-tuple", "'value: %s' % ((1, 2),)"),
    ("pct-list-as-single-arg", "'items: %s' % [1, 2, 3]"),
    ("pct-empty-tuple-no-specs", "'plain text' % ()"),
    ("pct-dict-without-specs", "'plain text' % {'a': 1}"),
    ("pct-list-without-specs", "'plain text' % [1]"),
    ("pct-chained", "('%s-%s' % ('a', 'b')) + ('%03d' % 7)"),
    ("pct-mod-assign", """
        line = '%s=%d'
        line %= ('retries', 3)
        return line
    """),
    ("pct-named-keys", "'%(name)s has %(count)d open issues' % {'name': 'api', 'count': 4}"),
    ("pct-named-with-flags", "['%(n)05d' % {'n': 42}, '%(x)-6s|' % {'x': 'ab'}, '%(v).2f' % {'v': 1 / 3}]"),
    ("pct-named-repeated", "'%(a)s+%(a)s=%(b)s' % {'a': 1, 'b': 2}"),
    ("pct-named-unused-keys-fine", "'%(a)s' % {'a': 1, 'b': 2, 'c': 3}"),
    ("pct-named-nested-parens", "'%((x))s' % {'(x)': 'inner'}"),
    ("pct-named-from-args-like-dict", """
        row = {'file': 'main.py', 'line': 14, 'msg': 'unused import'}
        return '%(file)s:%(line)d: %(msg)s' % row
    """),
    ("pct-named-with-percent-literal", "'%(p)d%% of %(total)d' % {'p': 40, 'total': 200}"),
    ("pct-dict-as-single-value", "'%s' % {'a': 1}"),
    # ---- % formatting: realistic reports
    ("pct-report-table", """
        rows = [('tests/test_api.py', 12, 0.5), ('tests/test_db.py', 3, 12.25), ('tests/test_cli.py', 140, 1.0)]
        lines = ['%-20s %5s %8s' % ('file', 'tests', 'seconds')]
        for name, count, seconds in rows:
            lines.append('%-20s %5d %8.2f' % (name, count, seconds))
        return '\\n'.join(lines)
    """),
    ("pct-file-sizes", """
        def human(n):
            for unit in ['B', 'KiB', 'MiB', 'GiB']:
                if n < 1024:
                    return '%.1f %s' % (n, unit)
                n /= 1024
            return '%.1f TiB' % n
        return [human(n) for n in [0, 512, 2048, 5 * 1024 ** 2 + 123, 3 * 1024 ** 4]]
    """),
    ("pct-progress-lines", """
        total = 7
        return ['[%d/%d] %3d%%' % (i, total, 100 * i // total) for i in range(1, total + 1)]
    """),
    ("pct-durations", """
        out = []
        for seconds in [5, 75, 3725]:
            minutes, secs = divmod(seconds, 60)
            hours, minutes = divmod(minutes, 60)
            out.append('%02d:%02d:%02d' % (hours, minutes, secs))
        return out
    """),
    ("pct-commit-summary", """
        changes = {'added': 3, 'modified': 10, 'deleted': 1}
        return ', '.join('%d %s' % (n, kind) for kind, n in changes.items())
    """),
    ("pct-aligned-keys", """
        data = {'status': 'ok', 'duration': 12.5, 'retries': 0}
        width = max(len(k) for k in data)
        return ['%-*s : %s' % (width, k, v) for k, v in data.items()]
    """),
    ("pct-log-line-with-repr", "'retrying %r after %.1fs (attempt %d of %d)' % ('build', 2.5, 2, 5)"),
    # ---- % formatting: errors
    ("pct-err-not-enough", "'%s and %s' % ('one',)"),
    ("pct-err-not-enough-empty-tuple", "'%s' % ()"),
    ("pct-err-not-all-converted", "'%s' % ('a', 'b')"),
    ("pct-err-not-all-converted-no-spec", "'done' % 5"),
    ("pct-err-not-all-converted-percent-literal", "'100%%' % 5"),
    ("pct-err-d-needs-number", "'%d files' % 'three'"),
    ("pct-err-d-needs-number-none", "'%d' % None"),
    ("pct-err-d-needs-number-list", "'%d' % ([1],)"),
    ("pct-err-i-needs-number", "'%i' % 'x'"),
    ("pct-err-x-needs-integer", "'%x' % 2.5"),
    ("pct-err-x-needs-integer-str", "'%X' % '255'"),
    ("pct-err-f-needs-real", "'%.2f' % '1.5'"),
    ("pct-err-e-needs-real-none", "'%e' % None"),
    ("pct-err-c-needs-char", "'%c' % 'ab'"),
    ("pct-err-c-needs-char-float", "'%c' % 1.5"),
    ("pct-err-d-nan", "'%d' % float('nan')"),
    ("pct-err-unsupported-char", "'%y' % 1"),
    ("pct-err-unsupported-char-index", "'ok %5.2q' % 1"),
    ("pct-err-unsupported-nonascii", "'%é' % 1"),
    ("pct-err-percent-with-width", "'%5%' % (1,)"),
    ("pct-err-incomplete", "'50%' % ()"),
    ("pct-err-incomplete-width", "'%5' % 1"),
    ("pct-err-incomplete-key", "'%(name' % {'name': 1}"),
    ("pct-err-key-then-end", "'%(name)' % {'name': 1}"),
    ("pct-err-requires-mapping", "'%(name)s' % ('x',)"),
    ("pct-err-requires-mapping-str", "'%(name)s' % 'x'"),
    ("pct-err-missing-key", "'%(name)s %(other)s' % {'name': 1}"),
    ("pct-err-list-as-mapping", "'%(a)s' % [1]"),
    ("pct-err-star-wants-int", "'%*d' % ('5', 1)"),
    ("pct-err-star-with-dict", "'%*s' % {'a': 1}"),
    ("pct-err-key-then-positional", "'%(a)s %s' % {'a': 1}"),
    ("pct-err-list-two-specs", "'%s %s' % [1, 2]"),
    ("pct-err-caught", """
        try:
            return '%d items' % 'many'
        except TypeError as error:
            return 'bad: ' + str(error)
    """),
    ("pct-err-non-str-left", "[1, 2] % 3"),
    ("pct-numbers-still-modulo", "[17 % 5, -17 % 5, 5.5 % 2, True % 2]"),
    ("fstring-ascii-conversion-quotes", "[f'{chr(39) + chr(34) + \"é\"!a}', f'{[chr(39), chr(34)]!a}', f'{\"ü\"!a:>8}']"),
    ("pct-ascii-matches-fstring", "['%a' % (chr(39) + 'é',) == f'{chr(39) + \"é\"!a}', ascii('x') == '%a' % 'x']"),
    # ---- format(value, spec)
    ("format-no-spec", "[format(42), format(1.5), format('x'), format(None), format(True), format([1, 'a'])]"),
    ("format-empty-spec-containers", "[format({'a': 1}, ''), format((1,), ''), format({2}, ''), format(frozenset(), '')]"),
    ("format-width-align", "[format('ab', '>6'), format('ab', '<6') + '|', format('ab', '^6'), format('ab', '*^7')]"),
    ("format-numbers", "[format(1234567.891, ',.2f'), format(0.256, '.1%'), format(255, '#x'), format(42, '08b'), format(-3, '+d')]"),
    ("format-thousands-underscore", "[format(10 ** 9, '_'), format(10 ** 9, ','), format(0xDEADBEEF, '_x')]"),
    ("format-exponent-and-general", "[format(12345.678, '.3e'), format(0.0001234, 'g'), format(1e100, '.2g'), format(2.0, 'g')]"),
    ("format-sign-options", "[format(5, ' d'), format(-5, ' d'), format(5.0, '+.1f'), format(-0.0, '.1f'), format(-0.0, 'z.1f')]"),
    ("format-zero-pad", "[format(7, '03'), format(-7, '04'), format(3.5, '07.2f'), format('7', '>03')]"),
    ("format-char-and-bool", "[format(97, 'c'), format(True, 'd'), format(True, '>6'), format(False, '')]"),
    ("format-str-precision", "[format('abcdef', '.3'), format('abcdef', '>8.2'), format('naïve', '^9')]"),
    ("format-percent-table", """
        stats = {'passed': 47, 'failed': 4, 'skipped': 1}
        total = sum(stats.values())
        return [format(k, '<8') + format(v / total, '>7.1%') for k, v in stats.items()]
    """),
    ("format-file-size-columns", """
        sizes = [('a.py', 120), ('big.bin', 10 ** 7), ('notes.md', 4096)]
        return '\\n'.join(format(name, '<10') + format(size, '>12,') for name, size in sizes)
    """),
    ("format-as-key-function", "sorted([3.14159, 2.71828, 1.41421], key=lambda x: format(x, '.2f'))"),
    ("format-inside-map", "list(map(format, [1, 22, 333], ['>4', '>4', '>4']))"),
    ("format-int-as-float", "[format(3, '.2f'), format(10, 'e'), format(7, '%')]"),
    ("format-err-unknown-code", "format(1.5, 'd')"),
    ("format-err-unknown-code-str", "format('abc', 'd')"),
    ("format-err-spec-on-list", "format([1, 2], '>10')"),
    ("format-err-spec-on-none", "format(None, '>5')"),
    ("format-err-spec-on-dict", "format({'a': 1}, '^9')"),
    ("format-err-spec-not-str", "format(1, 2)"),
    ("format-err-no-args", "format()"),
    ("format-err-too-many-args", "format(1, '', '')"),
    ("format-err-sign-on-str", "format('x', '+')"),
    ("format-err-comma-on-str", "format('1000', ',')"),
    ("format-err-caught", """
        try:
            format('total', ',d')
        except ValueError as error:
            return str(error)
    """),
]
