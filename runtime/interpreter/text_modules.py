"""This module defines the text modules of DWF scripts: `textwrap` (`dedent`, `indent`,
`shorten`, `wrap`, `fill`) and `difflib` (`unified_diff`, `get_close_matches`), with CPython's
results and messages.

Bounds. CPython's code does the work, but its cost is not always linear: `TextWrapper` copies
the rest of a long word for every line it breaks off (quadratic in the word's length over the
width), and `SequenceMatcher.find_longest_match` can visit every pair of equal lines. So the
wrapper first counts what it is about to build (chunks, lines, characters) against the item and
size limits and charges the copying, and the matcher used here is CPython's with
`find_longest_match` counting its inner loop as steps; a diff is a lazy iterator of lines."""

from __future__ import annotations

import difflib
import heapq
import textwrap
from typing import Any

from dwf.runtime.values.errors import ScriptError
from dwf.runtime.interpreter.module_support import bind, callback
from dwf.runtime.interpreter.sandbox import (CHARS_PER_STEP, ITEMS_PER_STEP, charge, check_items, check_string, dwf_repr, iterable, limit_error,
                      work)
from dwf.runtime.values.objects import BuiltinFunction, DwfIterator, type_name

_WHITESPACE = "\t\n\x0b\x0c\r "

# ---------------------------------------------------------------- textwrap

_STR_OPTIONS = ("initial_indent", "subsequent_indent", "placeholder")
_INT_OPTIONS = ("width", "tabsize", "max_lines")
_BOOL_OPTIONS = ("expand_tabs", "replace_whitespace", "fix_sentence_endings", "break_long_words",
                 "drop_whitespace", "break_on_hyphens")


class BoundedWrapper(textwrap.TextWrapper):
    """CPython's TextWrapper, refusing text whose wrapping would pass the run's limits."""

    def __init__(self, limits, **options):
        super().__init__(**options)
        self.limits = limits

    def _munge_whitespace(self, text: str) -> str:
        if self.expand_tabs and len(text) + text.count("\t") * max(self.tabsize, 0) > self.limits.string_bytes:
            raise limit_error("string_bytes", self.limits)
        return super()._munge_whitespace(text)

    def _split_chunks(self, text: str) -> list:
        limits = self.limits
        room = max(1, self.width - max(len(self.initial_indent), len(self.subsequent_indent)))
        # At most one chunk per whitespace run, word and hyphen, and at most one line per chunk
        # plus one per `room` characters of the long words broken into lines.
        estimate = 2 * sum(text.count(c) for c in _WHITESPACE) + text.count("-") + 1
        if estimate > limits.items or (self.break_long_words and estimate + len(text) // room > limits.items):
            raise limit_error("items", limits)
        charge(limits, len(text) // 4)  # the chunking regex tries its alternatives at every character
        chunks = super()._split_chunks(text)
        lines, copied = len(chunks), 0
        for chunk in chunks:
            if len(chunk) > room:  # broken into lines, the rest copied each time
                lines += len(chunk) // room
                copied += len(chunk) * (len(chunk) // room) // 2
        indent = max(len(self.initial_indent), len(self.subsequent_indent), len(self.placeholder))
        if lines > limits.items:
            raise limit_error("items", limits)
        if len(text) + lines * (indent + 1) > limits.string_bytes:
            raise limit_error("string_bytes", limits)
        charge(limits, len(chunks) // 2 + copied // CHARS_PER_STEP)
        return chunks


def _wrapper(interp, name: str, text: Any, options: dict) -> BoundedWrapper:
    if not isinstance(text, str):
        raise ScriptError("AttributeError", f"'{type_name(text)}' object has no attribute 'expandtabs'")
    for key, value in options.items():
        if key in _STR_OPTIONS and not isinstance(value, str):
            raise ScriptError("TypeError", f"{name}() argument '{key}' must be str, not {type_name(value)}")
        if key in _INT_OPTIONS and (type(value) is not int) and not (key == "max_lines" and value is None):
            raise ScriptError("TypeError", f"{name}() argument '{key}' must be int, not {type_name(value)}")
        if key not in _STR_OPTIONS + _INT_OPTIONS + _BOOL_OPTIONS:
            raise ScriptError("TypeError", f"TextWrapper.__init__() got an unexpected keyword argument '{key}'")
    options = {k: bool(v) if k in _BOOL_OPTIONS else v for k, v in options.items()}
    if len(options.get("initial_indent", "")) + len(options.get("subsequent_indent", "")) > interp.limits.string_bytes:
        raise limit_error("string_bytes", interp.limits)
    return BoundedWrapper(interp.limits, **options)


def t_wrap(interp, args, kwargs):
    if len(args) > 2:
        raise ScriptError("TypeError", f"wrap() takes from 1 to 2 positional arguments but {len(args)} were given")
    if not args and "text" not in kwargs:
        raise ScriptError("TypeError", "wrap() missing 1 required positional argument: 'text'")
    options = dict(kwargs)
    text = args[0] if args else options.pop("text")
    if len(args) > 1:
        options["width"] = args[1]
    lines = _wrapper(interp, "wrap", text, options).wrap(text)
    return check_items(lines, interp.limits)


def t_fill(interp, args, kwargs):
    lines = t_wrap(interp, args, kwargs)
    return check_string("\n".join(lines), interp.limits)


def t_shorten(interp, args, kwargs):
    if len(args) > 2:
        raise ScriptError("TypeError", f"shorten() takes 2 positional arguments but {len(args)} were given")
    options = dict(kwargs)
    text = args[0] if args else options.pop("text", None)
    if len(args) > 1:
        options["width"] = args[1]
    if text is None or "width" not in options:
        missing = "'text' and 'width'" if text is None and "width" not in options else "'width'" if text is not None else "'text'"
        raise ScriptError("TypeError", f"shorten() missing {2 if ' and ' in missing else 1} required positional argument{'s' if ' and ' in missing else ''}: {missing}")
    if not isinstance(text, str):
        raise ScriptError("AttributeError", f"'{type_name(text)}' object has no attribute 'strip'")
    words = text.strip().split(None, interp.limits.items)
    if len(words) > interp.limits.items:
        raise limit_error("items", interp.limits)
    charge(interp.limits, work(text))
    collapsed = " ".join(words)
    return check_string(_wrapper(interp, "shorten", collapsed, {**options, "max_lines": 1}).fill(collapsed), interp.limits)


def _lines_of(interp, text: Any, name: str, attr: str) -> int:
    if not isinstance(text, str):
        raise ScriptError("AttributeError" if name == "indent" else "TypeError",
                          f"'{type_name(text)}' object has no attribute '{attr}'" if name == "indent"
                          else f"expected string or bytes-like object, got '{type_name(text)}'")
    lines = text.count("\n") + 1
    if lines > interp.limits.items:
        raise limit_error("items", interp.limits)
    charge(interp.limits, work(text) + lines // ITEMS_PER_STEP)
    return lines


def t_dedent(interp, args, kwargs):
    values = bind("dedent", ("text",), args, kwargs, required=1)
    _lines_of(interp, values["text"], "dedent", "")
    return textwrap.dedent(values["text"])


def t_indent(interp, args, kwargs):
    values = bind("indent", ("text", "prefix", "predicate"), args, kwargs, required=2)
    text, prefix, predicate = values["text"], values["prefix"], values["predicate"]
    lines = _lines_of(interp, text, "indent", "splitlines")
    if not isinstance(prefix, str):
        raise ScriptError("TypeError", f'can only concatenate str (not "{type_name(prefix)}") to str')
    if len(text) + lines * len(prefix) > interp.limits.string_bytes:
        raise limit_error("string_bytes", interp.limits)
    test = callback(interp, predicate) if predicate is not None else None
    return textwrap.indent(text, prefix, (lambda line: bool(test(line))) if test else None)


def textwrap_members() -> dict[str, Any]:
    return {"dedent": BuiltinFunction("dedent", t_dedent), "indent": BuiltinFunction("indent", t_indent),
            "shorten": BuiltinFunction("shorten", t_shorten), "wrap": BuiltinFunction("wrap", t_wrap),
            "fill": BuiltinFunction("fill", t_fill)}


# ---------------------------------------------------------------- difflib


class MeteredMatcher(difflib.SequenceMatcher):
    """CPython's SequenceMatcher whose longest-match search charges its inner loop as steps."""

    def __init__(self, limits, a=(), b=()):
        self.limits = limits
        super().__init__(None, a, b)

    def set_seq2(self, b):
        charge(self.limits, len(b) // ITEMS_PER_STEP)
        super().set_seq2(b)

    def find_longest_match(self, alo=0, ahi=None, blo=0, bhi=None):
        # CPython 3.11's algorithm, line for line, plus the count of pairs it visits.
        a, b, b2j, isbjunk = self.a, self.b, self.b2j, self.bjunk.__contains__
        limits = self.limits
        if ahi is None:
            ahi = len(a)
        if bhi is None:
            bhi = len(b)
        besti, bestj, bestsize = alo, blo, 0
        j2len = {}
        nothing = []
        visited = 0
        for i in range(alo, ahi):
            j2lenget = j2len.get
            newj2len = {}
            for j in b2j.get(a[i], nothing):
                if j < blo:
                    continue
                if j >= bhi:
                    break
                k = newj2len[j] = j2lenget(j - 1, 0) + 1
                if k > bestsize:
                    besti, bestj, bestsize = i - k + 1, j - k + 1, k
            j2len = newj2len
            visited += 1 + len(newj2len)
            if visited > 4096:
                charge(limits, visited // 4)
                visited = 0
        charge(limits, visited // 4)
        while besti > alo and bestj > blo and not isbjunk(b[bestj - 1]) and a[besti - 1] == b[bestj - 1]:
            besti, bestj, bestsize = besti - 1, bestj - 1, bestsize + 1
        while besti + bestsize < ahi and bestj + bestsize < bhi and not isbjunk(b[bestj + bestsize]) and \
                a[besti + bestsize] == b[bestj + bestsize]:
            bestsize += 1
        while besti > alo and bestj > blo and isbjunk(b[bestj - 1]) and a[besti - 1] == b[bestj - 1]:
            besti, bestj, bestsize = besti - 1, bestj - 1, bestsize + 1
        while besti + bestsize < ahi and bestj + bestsize < bhi and isbjunk(b[bestj + bestsize]) and \
                a[besti + bestsize] == b[bestj + bestsize]:
            bestsize = bestsize + 1
        charge(limits, bestsize // ITEMS_PER_STEP)
        return difflib.Match(besti, bestj, bestsize)


def _lines(value: Any) -> Any:
    if isinstance(value, (list, tuple, str)):
        return value
    raise ScriptError("TypeError", f"'{type_name(value)}' object is not subscriptable")


def _format_range(start: int, stop: int) -> str:
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def d_unified_diff(interp, args, kwargs):
    names = ("a", "b", "fromfile", "tofile", "fromfiledate", "tofiledate", "n", "lineterm")
    values = bind("unified_diff", names, args, kwargs, required=2,
                  defaults={"fromfile": "", "tofile": "", "fromfiledate": "", "tofiledate": "", "n": 3, "lineterm": "\n"})
    a, b = _lines(values["a"]), _lines(values["b"])
    for lines in (a, b):
        if lines and not isinstance(lines[0], str):
            raise ScriptError("TypeError", f"lines to compare must be str, not {type_name(lines[0])} ({dwf_repr(lines[0])})")
    for key in ("fromfile", "tofile", "fromfiledate", "tofiledate", "lineterm"):
        if not isinstance(values[key], str):
            raise ScriptError("TypeError", f"all arguments must be str, not: {dwf_repr(values[key])}")
    context = values["n"]
    if type(context) is not int:
        raise ScriptError("TypeError", f"'{type_name(context)}' object cannot be interpreted as an integer")
    limits = interp.limits
    for lines in (a, b):
        if not isinstance(lines, str) and any(not isinstance(line, str) for line in lines):
            bad = next(line for line in lines if not isinstance(line, str))
            raise ScriptError("TypeError", f'can only concatenate str (not "{type_name(bad)}") to str')
    fromfile, tofile, lineterm = values["fromfile"], values["tofile"], values["lineterm"]
    fromdate = f"\t{values['fromfiledate']}" if values["fromfiledate"] else ""
    todate = f"\t{values['tofiledate']}" if values["tofiledate"] else ""

    def produce():
        started = False
        for group in MeteredMatcher(limits, a, b).get_grouped_opcodes(context):
            if not started:
                started = True
                yield check_string(f"--- {fromfile}{fromdate}{lineterm}", limits)
                yield check_string(f"+++ {tofile}{todate}{lineterm}", limits)
            first, last = group[0], group[-1]
            yield f"@@ -{_format_range(first[1], last[2])} +{_format_range(first[3], last[4])} @@{lineterm}"
            for tag, i1, i2, j1, j2 in group:
                if tag == "equal":
                    for line in a[i1:i2]:
                        yield _line(" ", line, limits)
                    continue
                if tag in ("replace", "delete"):
                    for line in a[i1:i2]:
                        yield _line("-", line, limits)
                if tag in ("replace", "insert"):
                    for line in b[j1:j2]:
                        yield _line("+", line, limits)
    return DwfIterator(produce(), "generator")


def _line(mark: str, line: str, limits) -> str:
    charge(limits, 1 + work(line))
    return check_string(mark + line, limits)


def d_get_close_matches(interp, args, kwargs):
    values = bind("get_close_matches", ("word", "possibilities", "n", "cutoff"), args, kwargs, required=2,
                  defaults={"n": 3, "cutoff": 0.6})
    word, n, cutoff = values["word"], values["n"], values["cutoff"]
    if not n > 0:
        raise ScriptError("ValueError", f"n must be > 0: {dwf_repr(n)}")
    if not 0.0 <= cutoff <= 1.0:
        raise ScriptError("ValueError", f"cutoff must be in [0.0, 1.0]: {dwf_repr(cutoff)}")
    word = _lines(word)
    limits = interp.limits
    result = []
    matcher = MeteredMatcher(limits)
    matcher.set_seq2(word)
    for candidate in iterable(values["possibilities"]):
        candidate = _lines(candidate)
        charge(limits, 1 + (len(candidate) + len(word)) // ITEMS_PER_STEP)
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff and matcher.ratio() >= cutoff:
            result.append((matcher.ratio(), candidate))
    return [x for score, x in heapq.nlargest(n, result)]


def difflib_members() -> dict[str, Any]:
    return {"unified_diff": BuiltinFunction("unified_diff", d_unified_diff),
            "get_close_matches": BuiltinFunction("get_close_matches", d_get_close_matches)}
