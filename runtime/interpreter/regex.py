"""This module defines `re` for scripts: the module's members (`compile`, `match`, `search`,
`fullmatch`, `findall`, `finditer`, `sub`, `subn`, `split`, `escape`, `error` and the flags),
the pattern and match values (`PatternValue`, `MatchValue`), their allow-listed attributes
(`grammar/builtins.py` PATTERN_METHODS and MATCH_METHODS), and the time bound every matching
operation runs under.

Values. A pattern holds its text, flags, group count and names, and (in-process) the compiled
`re.Pattern`, so a pattern compiled once is never compiled again; a match holds the subject
string, the span of every group, `lastindex`, `pos`, `endpos` and its pattern value. Neither
hands out a real `re` object: attributes are read through `get_attribute`, methods are
builtin functions closed over the value.

Time. CPython's `re` backtracks inside one C call that holds the GIL, so no thread deadline
can stop a pattern like `(a+)+$`; but the matcher polls for signals. On the main thread each
operation (a compile, a search, one `findall`/`split`/`sub`, each step of a `finditer`) runs
under a one-shot SIGALRM timer of `Limits.regex_timeout_s` (restoring any previous handler
and timer). Elsewhere (a snippet evaluated in a worker thread, `host/snippets.py`) the
operation runs in a worker process (`runtime.interpreter.regex_worker`) that the thread keeps
between operations and that is killed at the deadline; there a `finditer` finds all its
matches in one operation. A function replacement (`sub(fn, ...)`) runs script code, so it never runs
inside `re`: the matches are found step by step under the time bound, and the script function
is called between steps like any other call (each call a step, within the recursion limit).
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import warnings
from typing import Any

from dwf.runtime.interpreter import regex_worker as core
from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.interpreter.exceptions import missing_attribute
from dwf.runtime.interpreter.sandbox import (CHARS_PER_STEP, ITEMS_PER_STEP, charge, charge_seconds, check_items, check_string, check_tuple, limit_error,
                      to_script_error, work)
from dwf.runtime.values.objects import BoundMethod, BuiltinFunction, DwfIterator, ExceptionType, ScriptFunction, ScriptObject, type_name

# The flags a script may use, in the order CPython's pattern repr names them; with
# re.TEMPLATE, re.LOCALE and re.DEBUG (which prints to the terminal) left out.
FLAGS = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL, "UNICODE": re.UNICODE,
         "VERBOSE": re.VERBOSE, "ASCII": re.ASCII}
FLAG_ALIASES = {"I": "IGNORECASE", "M": "MULTILINE", "S": "DOTALL", "U": "UNICODE", "X": "VERBOSE", "A": "ASCII"}
ALLOWED_FLAGS = sum(int(flag) for flag in FLAGS.values())
ERROR_TYPE = "re.error"  # the DWF type name of `re.error`; its repr is `error(...)`, as in CPython
PATTERN_CACHE_SIZE = 256
REQUIRED = object()


class PatternValue(ScriptObject):
    """A compiled regular expression (`re.Pattern` to scripts)."""

    __slots__ = ("pattern", "flags", "groups", "groupindex", "compiled")
    type_name = "re.Pattern"
    python_counterpart = re.compile("")

    def __init__(self, pattern: str, flags: int, groups: int, groupindex: dict, compiled: re.Pattern | None):
        self.pattern, self.flags, self.groups, self.groupindex = pattern, flags, groups, groupindex
        self.compiled = compiled  # None when compiled in a worker: compiled again on the main thread

    def get_attribute(self, name: str) -> Any:
        if name in ("pattern", "flags", "groups"):  # PATTERN_DATA
            return getattr(self, name)
        if name == "groupindex":
            return dict(self.groupindex)  # a copy: CPython's is a read-only mapping
        if name in PATTERN_METHODS:
            method = PATTERN_METHODS[name]
            return BuiltinFunction(f"re.Pattern.{name}", lambda interp, args, kwargs: method(interp, self, args, kwargs))
        raise missing_attribute(self, name)

    def __eq__(self, other) -> bool:
        return isinstance(other, PatternValue) and (other.pattern, other.flags) == (self.pattern, self.flags)

    def __hash__(self) -> int:
        return hash((self.pattern, self.flags))

    def __repr__(self) -> str:
        names = [f"re.{name}" for name, flag in FLAGS.items() if self.flags & flag]
        if self.flags & (re.UNICODE | re.ASCII) == re.UNICODE:
            names.remove("re.UNICODE")  # the default for str patterns
        text = repr(self.pattern)[:200]
        return f"re.compile({text}, {'|'.join(names)})" if names else f"re.compile({text})"


class MatchValue(ScriptObject):
    """A successful match (`re.Match` to scripts) as plain data."""

    __slots__ = ("string", "spans", "lastindex", "pos", "endpos", "re")
    type_name = "re.Match"
    python_counterpart = re.match("", "")

    def __init__(self, pattern: PatternValue, string: str, data: list):
        spans, self.lastindex, self.pos, self.endpos = data
        self.re, self.string, self.spans = pattern, string, [tuple(span) for span in spans]

    def index(self, group: Any) -> int:
        if isinstance(group, int):
            if 0 <= group < len(self.spans):
                return group
        elif self.re.groupindex and group.__hash__ is None:  # CPython looks names up only if there are any
            raise ScriptError("TypeError", f"unhashable type: '{python_type(group)}'")
        elif isinstance(group, str) and group in self.re.groupindex:
            return self.re.groupindex[group]
        raise ScriptError("IndexError", "no such group")

    def text(self, index: int, default: Any = None) -> Any:
        start, end = self.spans[index]
        return default if start < 0 else self.string[start:end]

    def get_item(self, key: Any) -> Any:
        index = self.index(key)
        return self.text(index)

    def get_attribute(self, name: str) -> Any:
        if name in ("string", "lastindex", "pos", "endpos", "re"):  # MATCH_DATA
            return getattr(self, name)
        if name == "lastgroup":
            names = {index: group for group, index in self.re.groupindex.items()}
            return names.get(self.lastindex)
        if name in MATCH_METHODS:
            method = MATCH_METHODS[name]
            return BuiltinFunction(f"re.Match.{name}", lambda interp, args, kwargs: method(interp, self, args, kwargs))
        raise missing_attribute(self, name)

    def __repr__(self) -> str:
        start, end = self.spans[0]
        return f"<re.Match object; span=({start}, {end}), match={repr(self.string[start:end])[:50]}>"


# ---------------------------------------------------------------- the time bound


class RegexTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise RegexTimeout()


def in_process() -> bool:
    """Whether an operation can run here under SIGALRM (only the main thread receives it)."""
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


def bounded(limits, fn, *args):
    """`fn(*args)` on the main thread, stopped by SIGALRM after `limits.regex_timeout_s`."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, limits.regex_timeout_s)
        try:
            return fn(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except RegexTimeout:
        raise limit_error("regex_timeout_s", limits) from None
    finally:
        signal.signal(signal.SIGALRM, previous)
        if old_delay:
            signal.setitimer(signal.ITIMER_REAL, old_delay, old_interval)


# A thread's worker process, kept between jobs (starting one costs about 50 ms, a job over a
# pipe well under 1 ms): a snippet evaluated off the event loop may match in a loop.
_workers = threading.local()
WORKER_START_S = 1.0  # the deadline's allowance for a fresh worker's start-up
WORKER_REPLY_S = 0.25  # and for a kept one's reply to travel back on a loaded machine


class _Worker:
    """One `regex_worker` process serving one thread, a job per line."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-I", "-m", "dwf.runtime.interpreter.regex_worker"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.fresh = True

    def ask(self, job: dict, timeout_s: float) -> dict | None:
        """The answer to `job`, or None when it did not come within `timeout_s` (plus the
        allowance); the worker is then killed."""
        deadline = time.monotonic() + timeout_s + (WORKER_START_S if self.fresh else WORKER_REPLY_S)
        self.fresh = False
        try:
            self.process.stdin.write(json.dumps(job).encode() + b"\n")
            self.process.stdin.flush()
        except OSError:
            raise RuntimeError("the regular expression worker stopped") from None
        fd, chunks = self.process.stdout.fileno(), []
        while not chunks or not chunks[-1].endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                self.close()
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                self.close()
                raise RuntimeError(f"the regular expression worker failed (exit {self.process.wait()})")
            chunks.append(chunk)
        return json.loads(b"".join(chunks))

    def close(self) -> None:
        if getattr(_workers, "worker", None) is self:
            _workers.worker = None
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            pipe.close()


def worker_pid() -> int | None:
    """The process id of this thread's worker, None when it has none."""
    worker = getattr(_workers, "worker", None)
    return worker.process.pid if worker is not None else None


def in_worker(job: dict, limits, elapsed: list | None = None) -> Any:
    """Run `job` in this thread's worker process, killed at the deadline (plus its start-up
    time when it is new); the time the worker spent on the job goes to `elapsed[0]`."""
    worker = getattr(_workers, "worker", None)
    if worker is None or worker.process.poll() is not None:
        worker = _workers.worker = _Worker()
    answer = worker.ask(job, limits.regex_timeout_s)
    if answer is None:
        raise limit_error("regex_timeout_s", limits)
    if elapsed is not None:
        elapsed[0] = float(answer.get("elapsed", 0.0))
    if "ok" in answer:
        return answer["ok"]
    kind, message = answer["error"], answer["message"]
    if kind == "re.error":
        raise re.error(message)
    if kind == "over":
        raise core.RegexOver(message)
    python_type = {error.__name__: error for error in core.ANSWERED_ERRORS}[kind]
    raise python_type(message)


def guarded(limits, run):
    """`run()`, with what `re` raises turned into DWF errors: `re.error` for a bad pattern or
    template (CPython's message), a limit error for a result too large, and the script
    exception for a Python error."""
    try:
        return run()
    except re.error as error:
        raise ScriptError(ERROR_TYPE, str(error)) from None
    except core.RegexOver as error:
        raise limit_error({"items": "items", "chars": "string_bytes"}.get(str(error), "steps"), limits) from None
    except RecursionError:  # a pattern nested deeper than Python's recursion limit
        raise limit_error("recursion", limits) from None
    except core.ANSWERED_ERRORS as error:
        raise (to_script_error(error) or ScriptError("ValueError", str(error))) from None


def _budget(limits) -> int:
    """The characters of results the remaining steps can pay for."""
    counter = getattr(limits, "counter", None)
    return (limits.steps - (counter.steps if counter else 0)) * CHARS_PER_STEP


def perform(interp, pattern: PatternValue, job: dict) -> Any:
    """One operation of `regex_worker.perform` on `pattern`, time-bounded and with its limits."""
    limits = interp.limits
    job.update(max_items=limits.items, max_chars=limits.string_bytes, budget=_budget(limits))

    def run():
        if in_process():
            started = time.perf_counter()
            try:
                return bounded(limits, core.perform, job, compiled(interp, pattern))
            finally:
                elapsed[0] = time.perf_counter() - started
        return in_worker(dict(job, pattern=pattern.pattern, flags=pattern.flags), limits, elapsed)

    # A pattern's backtracking has no size to estimate: the time it took is charged (a regex
    # just under the time limit, in a loop, ends at the step limit instead of running for days).
    elapsed = [0.0]
    try:
        result = guarded(limits, run)
    except FatalError:  # the time limit itself: the run ends with it
        raise
    except BaseException:
        charge_seconds(limits, elapsed[0])
        raise
    charge_seconds(limits, elapsed[0])
    return result


def compile_quietly(pattern: str, flags: int) -> re.Pattern:
    """`re.compile`, without the FutureWarnings CPython prints to stderr (`[[` may become a
    nested set): a script cannot see them, and a host's stderr is not the script's log."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return re.compile(pattern, flags)


def compiled(interp, pattern: PatternValue) -> re.Pattern:
    if pattern.compiled is None:
        pattern.compiled = bounded(interp.limits, compile_quietly, pattern.pattern, pattern.flags)
    return pattern.compiled


def group_depth(pattern: str) -> int:
    """How deeply the groups of `pattern` nest (escapes and character classes skipped). CPython
    parses nested groups recursively, so a pattern nested thousands deep takes long before it
    ends in a RecursionError; DWF bounds the nesting by the recursion limit instead."""
    depth = deepest = 0
    index, size = 0, len(pattern)
    while index < size:
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":  # a class: `]` first (or after `^`) is a literal
            index += 2 if pattern.startswith("^", index + 1) else 1
            if pattern.startswith("]", index):
                index += 1
            while index < size and pattern[index] != "]":
                index += 2 if pattern[index] == "\\" else 1
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth = max(0, depth - 1)
        index += 1
    return deepest


def compile_pattern(interp, pattern: Any, flags: Any, cache: dict) -> PatternValue:
    """The pattern value for `pattern` (a str or a pattern value) and `flags`; compiled once
    per run for each (text, flags)."""
    if isinstance(pattern, PatternValue):
        if flags:
            raise ScriptError("ValueError", "cannot process flags argument with a compiled pattern")
        return pattern
    if not isinstance(pattern, str):
        raise ScriptError("TypeError", "first argument must be string or compiled pattern")
    if not isinstance(flags, int):
        raise ScriptError("TypeError", f"unsupported operand type(s) for &: '{python_type(flags)}' and 'RegexFlag'")
    if flags & re.LOCALE:
        raise ScriptError("ValueError", "cannot use LOCALE flag with a str pattern")
    if flags & ~ALLOWED_FLAGS:
        raise ScriptError("ValueError", "re flags may only combine re.IGNORECASE, re.MULTILINE, re.DOTALL, re.VERBOSE, "
                          "re.ASCII and re.UNICODE")
    key = (pattern, flags)
    known = cache.get(key)
    if known is not None:
        return known
    limits = interp.limits
    charge(limits, work(pattern))
    if group_depth(pattern) > limits.recursion:  # refused at once, not after a slow deep parse
        raise limit_error("recursion", limits)
    if in_process():
        real = guarded(limits, lambda: bounded(limits, compile_quietly, pattern, flags))
        value = PatternValue(pattern, real.flags, real.groups, dict(real.groupindex), real)
    else:
        job = {"op": "compile", "pattern": pattern, "flags": flags}
        real_flags, groups, groupindex = guarded(limits, lambda: in_worker(job, limits))
        value = PatternValue(pattern, real_flags, groups, groupindex, None)
    if len(cache) >= PATTERN_CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


# ---------------------------------------------------------------- arguments


def bind(name: str, params: tuple, args: list, kwargs: dict, clinic: bool) -> list:
    """The values of `params` ((name, default or REQUIRED), ...) for a call, with CPython's
    messages and checks in CPython's order: a Python function's for the module functions,
    Argument Clinic's for the methods of patterns and matches."""
    names = [param for param, _ in params]
    if clinic:
        return _bind_clinic(name, params, names, args, kwargs)
    if len(args) > len(params):
        required = sum(default is REQUIRED for _, default in params)
        takes = f"{required}" if required == len(params) else f"from {required} to {len(params)}"
        raise ScriptError("TypeError", f"{name}() takes {takes} positional argument{'s' * (len(params) != 1)} but "
                          f"{len(args)} {'was' if len(args) == 1 else 'were'} given")
    values = list(args) + [REQUIRED] * (len(params) - len(args))
    for key, value in kwargs.items():
        if key not in names:
            raise ScriptError("TypeError", f"{name}() got an unexpected keyword argument '{key}'")
        if names.index(key) < len(args):
            raise ScriptError("TypeError", f"{name}() got multiple values for argument '{key}'")
        values[names.index(key)] = value
    missing = [f"'{names[i]}'" for i, value in enumerate(values) if value is REQUIRED and params[i][1] is REQUIRED]
    if missing:
        listed = missing[0] if len(missing) == 1 else (" and ".join(missing) if len(missing) == 2
                                                       else ", ".join(missing[:-1]) + ", and " + missing[-1])
        raise ScriptError("TypeError", f"{name}() missing {len(missing)} required positional argument"
                          f"{'s' * (len(missing) != 1)}: {listed}")
    return [params[i][1] if value is REQUIRED else value for i, value in enumerate(values)]


def _bind_clinic(name: str, params: tuple, names: list, args: list, kwargs: dict) -> list:
    if len(args) + len(kwargs) > len(params):
        raise ScriptError("TypeError", f"{name}() takes at most {len(params)} argument{'s' * (len(params) != 1)} "
                          f"({len(args) + len(kwargs)} given)")
    values = list(args) + [kwargs.get(param, REQUIRED) for param in names[len(args):]]
    for index, value in enumerate(values):
        if value is REQUIRED and params[index][1] is REQUIRED:
            raise ScriptError("TypeError", f"{name}() missing required argument '{names[index]}' (pos {index + 1})")
    for index in range(len(args)):
        if names[index] in kwargs:
            raise ScriptError("TypeError", f"argument for {name}() given by name ('{names[index]}') and position ({index + 1})")
    for key in kwargs:
        if key not in names:
            raise ScriptError("TypeError", f"'{key}' is an invalid keyword argument for {name}()")
    return [params[i][1] if value is REQUIRED else value for i, value in enumerate(values)]


def python_type(value: Any) -> str:
    """The type name CPython's messages give (`NoneType` where DWF says `None`)."""
    return "NoneType" if value is None else "slice" if type(value) is slice else type_name(value)


def _subject(value: Any) -> str:
    if not isinstance(value, str):
        raise ScriptError("TypeError", f"expected string or bytes-like object, got '{python_type(value)}'")
    return value


def _index(value: Any) -> int:
    if not isinstance(value, int):
        raise ScriptError("TypeError", f"'{python_type(value)}' object cannot be interpreted as an integer")
    return int(value)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise ScriptError("TypeError", f"decoding to str: need a bytes-like object, {python_type(value)} found")
    return value


# ---------------------------------------------------------------- operations


def search(op: str):
    def run(interp, pattern: PatternValue, string, pos=0, endpos=sys.maxsize):
        string, pos, endpos = _subject(string), _index(pos), _index(endpos)
        charge(interp.limits, work(string))
        data = perform(interp, pattern, {"op": op, "string": string, "pos": pos, "endpos": endpos})
        return None if data is None else MatchValue(pattern, string, data)
    return run


def findall(interp, pattern: PatternValue, string, pos=0, endpos=sys.maxsize):
    string, pos, endpos = _subject(string), _index(pos), _index(endpos)
    limits = interp.limits
    charge(limits, work(string))
    items = perform(interp, pattern, {"op": "findall", "string": string, "pos": pos, "endpos": endpos})
    charge(limits, len(items) // ITEMS_PER_STEP + sum(len(i) if type(i) is str else sum(map(len, i)) for i in items) // CHARS_PER_STEP)
    return check_items([check_tuple(tuple(item), limits) for item in items] if pattern.groups > 1 else items, limits)


def matches(interp, pattern: PatternValue, string: str, pos: int, endpos: int, count: int = 0):
    """The matches of `pattern` in `string[pos:endpos]` (at most `count`, unless 0), one by one:
    on the main thread each step is one time-bounded search; elsewhere one worker finds them
    all. Each match is a step."""
    limits = interp.limits
    if count < 0:
        return
    if in_process():
        found = guarded(limits, lambda: compiled(interp, pattern).finditer(string, pos, endpos))
        while True:
            m = guarded(limits, lambda: bounded(limits, next, found, None))
            if m is None:
                return
            charge(limits, 1 + pattern.groups // ITEMS_PER_STEP)
            yield MatchValue(pattern, string, core.match_data(m))
    else:
        job = {"op": "finditer", "string": string, "pos": pos, "endpos": endpos, "count": count}
        for data in perform(interp, pattern, job):
            charge(limits, 1 + pattern.groups // ITEMS_PER_STEP)
            yield MatchValue(pattern, string, data)


def finditer(interp, pattern: PatternValue, string, pos=0, endpos=sys.maxsize):
    string, pos, endpos = _subject(string), _index(pos), _index(endpos)
    charge(interp.limits, work(string))
    return DwfIterator(matches(interp, pattern, string, pos, endpos), "callable_iterator")


def split(interp, pattern: PatternValue, string, maxsplit=0):
    string, maxsplit = _subject(string), _index(maxsplit)
    limits = interp.limits
    charge(limits, work(string))
    if maxsplit < 0:
        return [string]  # CPython splits nowhere
    parts = perform(interp, pattern, {"op": "split", "string": string, "count": maxsplit})
    charge(limits, len(parts) // ITEMS_PER_STEP + sum(len(p) for p in parts if p) // CHARS_PER_STEP)
    return check_items(parts, limits)


CALLABLE = (ScriptFunction, BuiltinFunction, BoundMethod, ExceptionType)


def subn(interp, pattern: PatternValue, repl, string, count=0) -> tuple:
    string, count = _subject(string), _index(count)
    limits = interp.limits
    charge(limits, work(string))
    if isinstance(repl, CALLABLE):
        return _substitute_calls(interp, pattern, repl, string, count)
    repl = _text(repl)
    charge(limits, work(repl))
    text, number = perform(interp, pattern, {"op": "sub", "string": string, "repl": repl, "count": count})
    charge(limits, work(text))
    return check_string(text, limits), number


def _substitute_calls(interp, pattern: PatternValue, function, string: str, count: int) -> tuple:
    """`sub` with a function: the matches are found step by step under the time bound and the
    function is called between steps, as CPython calls it between searches. The pieces are
    joined as CPython joins them, so a result that is not a str fails the same way."""
    limits, caller = interp.limits, interp.caller
    pieces: list = []
    last = number = size = 0
    for match in matches(interp, pattern, string, 0, len(string), count):
        start, end = match.spans[0]
        if last < start:
            pieces.append(string[last:start])
            size += start - last
        value = interp.call_sync(function, [match], {}, caller)
        if value is not None:
            pieces.append(value)
            size += len(value) if type(value) is str else 0
        if size > limits.string_bytes:  # characters: a lower bound of the UTF-8 size
            raise limit_error("string_bytes", limits)
        last, number = end, number + 1
        if number == count:
            break
    if last < len(string):
        pieces.append(string[last:])
    for position, piece in enumerate(pieces):
        if type(piece) is not str:
            raise ScriptError("TypeError", f"sequence item {position}: expected str instance, {python_type(piece)} found")
    text = "".join(pieces)
    charge(limits, work(text) + len(pieces) // ITEMS_PER_STEP)
    return check_string(text, limits), number


def sub(interp, pattern: PatternValue, repl, string, count=0) -> str:
    return subn(interp, pattern, repl, string, count)[0]


def expand(interp, match: MatchValue, template) -> str:
    template = _text(template)
    limits = interp.limits
    charge(limits, work(template))
    plan = guarded(limits, lambda: core.template_plan(match.re.groups, match.re.groupindex, template))
    size = core.plan_size(plan, lambda index: match.spans[index] if match.spans[index][0] >= 0 else (0, 0))
    if size > limits.string_bytes:
        raise limit_error("string_bytes", limits)
    charge(limits, size // CHARS_PER_STEP)
    return check_string(core.expand_plan(plan, match.text), limits)


def _charged(interp, match: MatchValue, indexes) -> None:
    """Charge for copying the text of these groups (lookahead groups may each span the string)."""
    size = sum(max(0, match.spans[i][1] - match.spans[i][0]) for i in indexes)
    charge(interp.limits, size // CHARS_PER_STEP + len(indexes) // ITEMS_PER_STEP)


def group(interp, match: MatchValue, args: list, kwargs: dict):
    if kwargs:
        raise ScriptError("TypeError", "Match.group() takes no keyword arguments")
    indexes = [match.index(g) for g in args] or [0]
    _charged(interp, match, indexes)
    if len(args) <= 1:
        return match.text(indexes[0])
    return tuple(match.text(i) for i in indexes)


def groups(interp, match: MatchValue, default=None) -> tuple:
    indexes = range(1, len(match.spans))
    _charged(interp, match, indexes)
    return tuple(match.text(i, default) for i in indexes)


def groupdict(interp, match: MatchValue, default=None) -> dict:
    _charged(interp, match, list(match.re.groupindex.values()))
    return {name: match.text(index, default) for name, index in match.re.groupindex.items()}


def position(which: str):
    def run(interp, match: MatchValue, args: list, kwargs: dict):
        if kwargs:
            raise ScriptError("TypeError", f"Match.{which}() takes no keyword arguments")
        if len(args) > 1:
            raise ScriptError("TypeError", f"{which} expected at most 1 argument, got {len(args)}")
        span = match.spans[match.index(args[0] if args else 0)]
        return span if which == "span" else span[0] if which == "start" else span[1]
    return run


def escape(interp, args: list, kwargs: dict) -> str:
    (text,) = bind("escape", (("pattern", REQUIRED),), args, kwargs, clinic=False)
    text = _text(text)
    charge(interp.limits, work(text) * 2)
    return check_string(re.escape(text), interp.limits)


def method(name: str, params: tuple, run):
    """A pattern or match method taking `(interp, value, args, kwargs)`: binds the arguments
    Argument Clinic style, then calls `run(interp, value, *values)`."""
    def call(interp, value, args, kwargs):
        return run(interp, value, *bind(name, params, args, kwargs, clinic=True))
    return call


STRING = ("string", REQUIRED)
SPAN = (STRING, ("pos", 0), ("endpos", sys.maxsize))
PATTERN_METHODS = {
    "match": method("match", SPAN, search("match")), "search": method("search", SPAN, search("search")),
    "fullmatch": method("fullmatch", SPAN, search("fullmatch")), "findall": method("findall", SPAN, findall),
    "finditer": method("finditer", SPAN, finditer),
    "split": method("split", (STRING, ("maxsplit", 0)), split),
    "sub": method("sub", (("repl", REQUIRED), STRING, ("count", 0)), sub),
    "subn": method("subn", (("repl", REQUIRED), STRING, ("count", 0)), subn),
}
MATCH_METHODS = {
    "group": group, "groups": method("groups", (("default", None),), groups),
    "groupdict": method("groupdict", (("default", None),), groupdict),
    "start": position("start"), "end": position("end"), "span": position("span"),
    "expand": method("expand", (("template", REQUIRED),), expand),
}

PATTERN_DATA = ("pattern", "flags", "groups", "groupindex")
MATCH_DATA = ("string", "lastindex", "lastgroup", "pos", "endpos", "re")

# The module functions: (parameters after `pattern`, the pattern method they call).
MODULE_FUNCTIONS = {
    "match": ((STRING,), PATTERN_METHODS["match"]), "search": ((STRING,), PATTERN_METHODS["search"]),
    "fullmatch": ((STRING,), PATTERN_METHODS["fullmatch"]), "findall": ((STRING,), PATTERN_METHODS["findall"]),
    "finditer": ((STRING,), PATTERN_METHODS["finditer"]),
    "split": ((STRING, ("maxsplit", 0)), PATTERN_METHODS["split"]),
    "sub": ((("repl", REQUIRED), STRING, ("count", 0)), PATTERN_METHODS["sub"]),
    "subn": ((("repl", REQUIRED), STRING, ("count", 0)), PATTERN_METHODS["subn"]),
}


def module_function(name: str, params: tuple, pattern_method, cache: dict):
    full = (("pattern", REQUIRED), *params, ("flags", 0))

    def call(interp, args, kwargs):
        pattern, *rest, flags = bind(name, full, args, kwargs, clinic=False)
        return pattern_method(interp, compile_pattern(interp, pattern, flags, cache), rest, {})
    return call


def module_members() -> dict[str, Any]:
    """The members of `re` for one run (its patterns are cached per run)."""
    cache: dict = {}

    def compile_(interp, args, kwargs):
        pattern, flags = bind("compile", (("pattern", REQUIRED), ("flags", 0)), args, kwargs, clinic=False)
        return compile_pattern(interp, pattern, flags, cache)

    members: dict[str, Any] = {"compile": BuiltinFunction("re.compile", compile_),
                               "escape": BuiltinFunction("re.escape", escape), "error": ExceptionType(ERROR_TYPE),
                               "NOFLAG": 0}
    for name, (params, pattern_method) in MODULE_FUNCTIONS.items():
        members[name] = BuiltinFunction(f"re.{name}", module_function(name, params, pattern_method, cache))
    for name, flag in FLAGS.items():
        members[name] = int(flag)
    for alias, name in FLAG_ALIASES.items():
        members[alias] = int(FLAGS[name])
    return members
