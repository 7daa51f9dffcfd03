"""This module defines the implementations of the builtins and modules that
`grammar/builtins.py` allows: each is a `BuiltinFunction` taking the interpreter (for limits
and for calling script functions given as `key=`/`map`/`filter` arguments), the positional
arguments and the keyword arguments. Results that can grow are checked against the run's limits;
regular expressions run under a time bound (see `_run_regex`)."""

from __future__ import annotations

import inspect
import json
import math
import re
import signal
import subprocess
import sys
import threading
from typing import Any

from dwf.grammar import builtins as B

from .errors import SCRIPT_EXCEPTION_PARENTS, ScriptError, is_subclass
from .records import Record
from .sandbox import (BINARY, charge, charge_walk, check_int, check_items, check_string, check_tuple,
                      display, dwf_repr, iterable, limit_error, to_json, work)
from .values import (BuiltinFunction, DwfIterator, ExceptionType, MatchValue, Module, OrderedSet, ScriptFunction,
                     type_name)
from .views import DictView

_CALLABLE = (ScriptFunction, BuiltinFunction)


def _fn(interp, value):
    """Wrap a script or builtin function for use inside a builtin (key=, map, filter). The call
    is made on behalf of the frame that called the builtin, so recursion through `map`/`key=`
    counts against the recursion limit like any other call, and every call is a step."""
    if value is None:
        return None
    frame = interp.caller

    def call(*args):
        if not isinstance(value, ScriptFunction):  # script functions count their own call
            interp.steps += 1
            if interp.steps > interp.limits.steps:
                raise interp.step_limit()
        return interp.call_sync(value, list(args), {}, frame)
    return call


def _metered(limits, items):
    """Yield `items`, one step each (a lazy iterator's items are produced by code that no
    statement counts)."""
    for item in items:
        charge(limits, 1)
        yield item


def _no_kwargs(name, kwargs, allowed=()):
    extra = set(kwargs) - set(allowed)
    if extra:
        raise ScriptError("TypeError", f"{name}() got an unexpected keyword argument '{sorted(extra)[0]}'")


def _iterable(interp, value):
    return iterable(value)


def _materialize(interp, value) -> list:
    limits = interp.limits
    if type(value) is not DwfIterator:  # sized: check, then copy in C
        if len(_iterable(interp, value)) > limits.items:
            raise limit_error("items", limits)
        charge(limits, work(value))
        return list(value)
    items = []
    for item in value:  # a lazy iterator charges its own items
        items.append(item)
        if len(items) > limits.items:
            raise limit_error("items", limits)
    return items


def b_len(interp, args, kwargs):
    _no_kwargs("len", kwargs)
    (value,) = args
    if isinstance(value, (str, list, tuple, dict, OrderedSet, range, DictView)):
        return len(value)
    raise ScriptError("TypeError", f"object of type '{type_name(value)}' has no len()")


def b_range(interp, args, kwargs):
    _no_kwargs("range", kwargs)
    for a in args:
        if not isinstance(a, int):
            raise ScriptError("TypeError", f"'{type_name(a)}' object cannot be interpreted as an integer")
    r = range(*args)
    if len(r) > interp.limits.range_items:
        raise limit_error("range_items", interp.limits)
    return r


def b_sorted(interp, args, kwargs):
    _no_kwargs("sorted", kwargs, ("key", "reverse"))
    (iterable,) = args
    items = _materialize(interp, iterable)
    charge_walk(interp.limits, items, times=max(1, len(items).bit_length()))  # about log n comparisons per item
    return sorted(items, key=_fn(interp, kwargs.get("key")), reverse=bool(kwargs.get("reverse", False)))


def b_list(interp, args, kwargs):
    _no_kwargs("list", kwargs)
    return _materialize(interp, args[0]) if args else []


def b_tuple(interp, args, kwargs):
    _no_kwargs("tuple", kwargs)
    return check_tuple(tuple(_materialize(interp, args[0])), interp.limits) if args else ()


def b_set(interp, args, kwargs):
    _no_kwargs("set", kwargs)
    return OrderedSet(_materialize(interp, args[0])) if args else OrderedSet()


def b_dict(interp, args, kwargs):
    result = {}
    if args:
        source = args[0]
        if isinstance(source, dict):
            charge(interp.limits, work(source))
            result.update(source)
        else:
            result.update(_materialize(interp, source))  # CPython's own pair checks and messages
    result.update(kwargs)
    return check_items(result, interp.limits)


def b_str(interp, args, kwargs):
    _no_kwargs("str", kwargs)
    return check_string(display(args[0], interp.limits), interp.limits) if args else ""


def b_repr(interp, args, kwargs):
    _no_kwargs("repr", kwargs)
    return check_string(dwf_repr(args[0], interp.limits), interp.limits)


def b_int(interp, args, kwargs):
    _no_kwargs("int", kwargs, ("base",))
    if args and isinstance(args[0], str) and len(args[0]) > 4300:
        raise ScriptError("ValueError", "int() of a string longer than 4300 digits")
    return int(*args, **kwargs)


def b_float(interp, args, kwargs):
    _no_kwargs("float", kwargs)
    charge(interp.limits, work(args[0]) if args else 0)
    return float(*args)


def b_bool(interp, args, kwargs):
    _no_kwargs("bool", kwargs)
    return bool(args[0]) if args else False


def b_map(interp, args, kwargs):
    _no_kwargs("map", kwargs)
    fn, *iterables = args
    call = _fn(interp, fn)
    return DwfIterator(_metered(interp.limits, map(call, *(_iterable(interp, it) for it in iterables))), "map")


def b_filter(interp, args, kwargs):
    _no_kwargs("filter", kwargs)
    fn, iterable = args
    call = _fn(interp, fn) if fn is not None else bool
    return DwfIterator(_metered(interp.limits, filter(call, _iterable(interp, iterable))), "filter")


def b_enumerate(interp, args, kwargs):
    _no_kwargs("enumerate", kwargs, ("start",))
    limits = interp.limits
    pairs = enumerate(_iterable(interp, args[0]), *args[1:], **kwargs)
    return DwfIterator((check_tuple(pair, limits) for pair in _metered(limits, pairs)), "enumerate")


def b_zip(interp, args, kwargs):
    _no_kwargs("zip", kwargs, ("strict",))
    limits = interp.limits
    tuples = zip(*(_iterable(interp, a) for a in args), **kwargs)
    return DwfIterator((check_tuple(t, limits) for t in _metered(limits, tuples)), "zip")


def b_reversed(interp, args, kwargs):
    _no_kwargs("reversed", kwargs)
    (value,) = args
    if isinstance(value, (list, tuple, str, range, dict, DictView)):
        # Live, as in CPython: a dict (or view) that changes size meanwhile raises RuntimeError.
        return DwfIterator(_metered(interp.limits, reversed(value)), "reversed")
    raise ScriptError("TypeError", f"'{type_name(value)}' object is not reversible")


def b_minmax(name, python):
    def impl(interp, args, kwargs):
        _no_kwargs(name, kwargs, ("key", "default"))
        key = _fn(interp, kwargs.get("key"))
        extra = {"key": key} if key else {}
        if "default" in kwargs:
            extra["default"] = kwargs["default"]
        items = args
        if len(args) == 1:
            # A container is iterated live (a `key=` that changes the dict raises RuntimeError,
            # as in CPython); a lazy iterator is collected within the size limit first.
            items = _iterable(interp, args[0])
            if type(items) is DwfIterator:
                items = _materialize(interp, items)
            elif len(items) > interp.limits.items:
                raise limit_error("items", interp.limits)
            else:
                charge(interp.limits, work(items))
        charge_walk(interp.limits, items)  # each item is compared about once
        return python(items, **extra) if len(args) == 1 else python(*args, **extra)
    return impl


def b_sum(interp, args, kwargs):
    _no_kwargs("sum", kwargs, ("start",))
    start = kwargs.get("start", args[1] if len(args) > 1 else 0)
    if isinstance(start, str):
        raise ScriptError("TypeError", "sum() can't sum strings [use ''.join(seq) instead]")
    items = _iterable(interp, args[0])
    if type(start) in (list, tuple):
        # Concatenate in one growing list: repeated `+` would copy the total for every item.
        kind, total = type(start), list(start)
        for item in items:
            if type(item) is not kind:
                raise ScriptError("TypeError", f'can only concatenate {kind.__name__} (not "{type_name(item)}") to {kind.__name__}')
            if len(total) + len(item) > interp.limits.items:
                raise limit_error("items", interp.limits)
            total.extend(item)
        return total if kind is list else tuple(total)
    limits = interp.limits
    if type(items) is not DwfIterator and type(start) in (int, float):
        charge(limits, work(items) * 4)
        if all(type(i) in (int, float) for i in items):  # numbers: one C loop (ints stay within the bit limit)
            return check_int(sum(items, start), limits)
    total = start
    for item in items:
        charge(limits, 1)
        total = BINARY["+"](total, item, limits)
    return total


def b_any(interp, args, kwargs):
    _no_kwargs("any", kwargs)
    charge(interp.limits, work(args[0]) if args else 0)
    return any(_iterable(interp, args[0]))


def b_all(interp, args, kwargs):
    _no_kwargs("all", kwargs)
    charge(interp.limits, work(args[0]) if args else 0)
    return all(_iterable(interp, args[0]))


def b_abs(interp, args, kwargs):
    _no_kwargs("abs", kwargs)
    return abs(*args)


def b_divmod(interp, args, kwargs):
    _no_kwargs("divmod", kwargs)
    return divmod(*args)


def b_pow(interp, args, kwargs):
    _no_kwargs("pow", kwargs)
    if len(args) == 3:
        return pow(*args)  # modular: the result is smaller than the modulus
    if len(args) != 2:
        raise ScriptError("TypeError", f"pow() takes 2 or 3 arguments ({len(args)} given)")
    return BINARY["**"](args[0], args[1], interp.limits)


def b_round(interp, args, kwargs):
    _no_kwargs("round", kwargs, ("ndigits",))
    return round(*args, **kwargs)


def b_chr(interp, args, kwargs):
    _no_kwargs("chr", kwargs)
    return chr(*args)


def b_ord(interp, args, kwargs):
    _no_kwargs("ord", kwargs)
    return ord(*args)


ISINSTANCE_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict,
                    "tuple": tuple, "set": OrderedSet}


def b_isinstance(interp, args, kwargs):
    _no_kwargs("isinstance", kwargs)
    value, kinds = args
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    for kind in kinds:
        if isinstance(kind, BuiltinFunction) and kind.name in ISINSTANCE_TYPES:
            if kind.name == "dict" and isinstance(value, Record):
                continue
            if isinstance(value, ISINSTANCE_TYPES[kind.name]):
                return True
        elif isinstance(kind, ExceptionType):
            if isinstance(value, ScriptError) and is_subclass(value.type_name, kind.name):
                return True
        else:
            raise ScriptError("TypeError", "isinstance() arg 2 must be a type or a tuple of types")
    return False


BUILTIN_IMPLS = {
    "abs": b_abs, "all": b_all, "any": b_any, "bool": b_bool, "dict": b_dict, "divmod": b_divmod,
    "enumerate": b_enumerate, "filter": b_filter, "float": b_float, "int": b_int, "isinstance": b_isinstance,
    "len": b_len, "list": b_list, "map": b_map, "max": b_minmax("max", max), "min": b_minmax("min", min),
    "pow": b_pow, "range": b_range, "repr": b_repr, "reversed": b_reversed, "round": b_round, "set": b_set,
    "sorted": b_sorted, "str": b_str, "sum": b_sum, "tuple": b_tuple, "zip": b_zip, "chr": b_chr, "ord": b_ord,
}
assert set(BUILTIN_IMPLS) == set(B.BUILTIN_FUNCTIONS), "grammar/builtins.py and runtime/builtins.py disagree"


# ---------------------------------------------------------------- modules


MAX_JSON_INDENT = 64


def m_json_dumps(interp, args, kwargs):
    _no_kwargs("json.dumps", kwargs, ("indent", "sort_keys", "ensure_ascii"))
    indent = kwargs.get("indent")
    if indent is not None and (not isinstance(indent, (int, str)) or isinstance(indent, bool)
                               or (indent if isinstance(indent, int) else len(indent)) > MAX_JSON_INDENT):
        # The indent repeats once per nesting level on every line: bound it like a string size.
        raise ScriptError("ValueError", f"json.dumps() indent must be an int or str of at most {MAX_JSON_INDENT}")
    data = to_json(args[0], "value given to json.dumps", interp.limits)
    text = check_string(json.dumps(data, **kwargs), interp.limits)
    charge(interp.limits, work(text))
    return text


def m_json_loads(interp, args, kwargs):
    _no_kwargs("json.loads", kwargs)
    (text,) = args
    if not isinstance(text, str):
        raise ScriptError("TypeError", "json.loads() needs a str")
    check_string(text, interp.limits)
    charge(interp.limits, work(text) * 4)  # parsing builds objects: dearer than scanning
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ScriptError("ValueError", f"invalid JSON: {error}") from None
    except RecursionError:
        raise ScriptError("ValueError", "invalid JSON: nested too deeply") from None
    if text.count(",") >= interp.limits.items:  # only then can one array or object be too long
        stack = [data]
        while stack:
            node = stack.pop()
            if isinstance(node, (list, dict)):
                check_items(node, interp.limits)
                stack.extend(node.values() if isinstance(node, dict) else node)
    return data


def _reject_constant(name):
    raise ScriptError("ValueError", f"invalid JSON: {name} is not JSON")


class RegexOver(Exception):
    """A regular-expression result would exceed a size limit (`items` or `chars`)."""


def _regex_core(op, pattern, flags, string, repl, number, max_items, max_chars):
    """One `re` operation on plain data, returning plain data (so the same function can run in a
    worker process): a match as `[spans, group names]`, `findall` as `[items, has_tuples]`,
    `split` and `sub` as CPython returns them. `findall` and `sub` stop at the size limits
    instead of building a result that would only be refused afterwards."""
    import re

    compiled = re.compile(pattern, flags)
    if op in ("match", "search", "fullmatch"):
        m = getattr(compiled, op)(string)
        return None if m is None else [[list(m.span(i)) for i in range(compiled.groups + 1)], dict(compiled.groupindex)]
    if op == "findall":
        if len(string) + 1 <= max_items:  # there are at most len(string) + 1 matches
            found = compiled.findall(string)
            return [[list(f) for f in found] if compiled.groups > 1 else found, compiled.groups > 1]
        out = []
        for m in compiled.finditer(string):
            if compiled.groups == 0:
                out.append(m.group(0))
            elif compiled.groups == 1:
                out.append(m.group(1) or "")
            else:
                out.append(list(m.groups("")))
            if len(out) > max_items:
                raise RegexOver("items")
        return [out, compiled.groups > 1]
    if op == "split":
        parts = compiled.split(string, max_items if number <= 0 else min(number, max_items))
        if len(parts) > max_items:
            raise RegexOver("items")
        return parts
    # sub: a literal replacement has a known size; a template is expanded match by match.
    if "\\" not in repl:
        matches = string.count("") if number <= 0 else number
        if len(string) + matches * len(repl) <= max_chars:
            return compiled.sub(repl, string, number)
    size = [len(string)]

    def expand(m):
        text = m.expand(repl)
        size[0] += len(text) - (m.end() - m.start())
        if size[0] > max_chars:
            raise RegexOver("chars")
        return text
    return compiled.sub(expand, string, number)


class _RegexTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _RegexTimeout()


def _run_regex(interp, job: tuple):
    """Run `_regex_core(*job)` within `Limits.regex_timeout_s`.

    CPython's `re` backtracks inside one C call that holds the GIL, so no thread deadline can
    stop a pattern like `(a+)+$`; but the matcher polls for signals. On the main thread the
    run therefore arms a one-shot SIGALRM timer around the call (restoring any previous handler
    and timer). Elsewhere the operation runs in a short-lived `python -I -S` worker process that
    is killed at the deadline."""
    limits = interp.limits
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return _run_regex_worker(job, limits)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, limits.regex_timeout_s)
        try:
            return _regex_core(*job)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _RegexTimeout:
        raise limit_error("regex_timeout_s", limits) from None
    finally:
        signal.signal(signal.SIGALRM, previous)
        if old_delay:
            signal.setitimer(signal.ITIMER_REAL, old_delay, old_interval)


_REGEX_WORKER = "class RegexOver(Exception):\n    pass\n\n" + inspect.getsource(_regex_core) + r"""
import json, re, sys
job = json.loads(sys.stdin.read())
try:
    answer = {"ok": _regex_core(*job)}
except re.error as error:
    answer = {"error": "pattern", "message": str(error)}
except RegexOver as error:
    answer = {"error": "over", "message": str(error)}
except Exception as error:
    answer = {"error": "ValueError", "message": f"{type(error).__name__}: {error}"}
sys.stdout.write(json.dumps(answer))
"""


def _run_regex_worker(job: tuple, limits):
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", _REGEX_WORKER], input=json.dumps(job), text=True,
                              capture_output=True, timeout=limits.regex_timeout_s + 0.5)
    except subprocess.TimeoutExpired:
        raise limit_error("regex_timeout_s", limits) from None
    answer = json.loads(done.stdout)
    if "ok" in answer:
        return answer["ok"]
    if answer["error"] == "pattern":
        raise re.error(answer["message"])
    if answer["error"] == "over":
        raise RegexOver(answer["message"])
    raise ScriptError("ValueError", answer["message"])


_REGEX_SIGNATURES = {
    "match": ("pattern", "string", "flags"), "search": ("pattern", "string", "flags"),
    "fullmatch": ("pattern", "string", "flags"), "findall": ("pattern", "string", "flags"),
    "sub": ("pattern", "repl", "string", "count", "flags"), "split": ("pattern", "string", "maxsplit", "flags"),
}
_ALLOWED_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL


def _regex(name):
    names = _REGEX_SIGNATURES[name]

    def impl(interp, args, kwargs):
        if len(args) > len(names):
            raise ScriptError("TypeError", f"re.{name}() takes at most {len(names)} arguments ({len(args)} given)")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise ScriptError("TypeError", f"re.{name}() got an unexpected keyword argument '{key}'")
            values[key] = value
        for key in ("pattern", "string", "repl"):
            if key in names and key not in values:
                raise ScriptError("TypeError", f"re.{name}() missing required argument '{key}'")
            if key in names and not isinstance(values[key], str):
                raise ScriptError("TypeError", f"re.{name}() argument '{key}' must be a str, not {type_name(values[key])}")
        for key in ("flags", "count", "maxsplit"):
            if key in values and (type(values[key]) is not int):
                raise ScriptError("TypeError", f"re.{name}() argument '{key}' must be an int")
        flags = values.get("flags", 0)
        if flags & ~_ALLOWED_FLAGS:
            raise ScriptError("ValueError", "re flags may only combine re.IGNORECASE, re.MULTILINE and re.DOTALL")
        limits = interp.limits
        charge(limits, work(values["pattern"]) + work(values["string"]))
        job = (name, values["pattern"], flags, values["string"], values.get("repl", ""),
               values.get("count", values.get("maxsplit", 0)), limits.items, limits.string_bytes)
        try:
            result = _run_regex(interp, job)
        except re.error as error:
            raise ScriptError("ValueError", f"invalid regular expression: {error}") from None
        except (RecursionError, OverflowError) as error:
            raise ScriptError("ValueError", f"invalid regular expression: {error}") from None
        except RegexOver as error:
            raise limit_error("items" if str(error) == "items" else "string_bytes", limits) from None
        if name in ("match", "search", "fullmatch"):
            return None if result is None else MatchValue(values["string"], result[0], result[1])
        if name == "findall":
            items, tuples = result
            return [tuple(i) for i in items] if tuples else items
        if name == "sub":
            return check_string(result, limits)
        return result
    return impl


def _checked_fold(fn, limits):
    def fold(items, start):
        total = start
        for item in items:
            total = check_int(fn(total, item), limits)
        return total
    return fold


def _result_bits(name, args) -> float:
    """About how many bits the integer result of factorial/comb/perm has (0 when unknown)."""
    if not args or not all(type(a) is int and a >= 0 for a in args):
        return 0
    n = args[0]
    k = args[1] if len(args) > 1 else n
    if k > n:
        return 0
    log2_factorial = lambda x: math.lgamma(x + 1) / math.log(2)  # noqa: E731
    if name == "factorial":
        return log2_factorial(n)
    if name == "perm":
        return log2_factorial(n) - log2_factorial(n - k)
    return log2_factorial(n) - log2_factorial(k) - log2_factorial(n - k)


def _math(name):
    fn = getattr(math, name)

    def impl(interp, args, kwargs):
        _no_kwargs(f"math.{name}", kwargs)
        limits = interp.limits
        if name in ("factorial", "comb", "perm") and _result_bits(name, args) > limits.pow_bits + 1:
            raise limit_error("pow_bits", limits)
        if name == "prod":
            total = 1
            for item in _materialize(interp, args[0]):
                total = BINARY["*"](total, item, limits)
            return total
        if name == "lcm":
            return _checked_fold(math.lcm, limits)(args, 1)
        if name == "fsum":
            return fn(_materialize(interp, args[0]))
        return check_int(fn(*args), limits)
    return impl


def make_modules() -> dict[str, Module]:
    json_members = {"dumps": BuiltinFunction("json.dumps", m_json_dumps), "loads": BuiltinFunction("json.loads", m_json_loads)}
    re_members = {}
    for name in ("match", "search", "fullmatch", "findall", "sub", "split"):
        re_members[name] = BuiltinFunction(f"re.{name}", _regex(name))
    for name in ("IGNORECASE", "MULTILINE", "DOTALL", "I", "M", "S"):
        re_members[name] = int(getattr(re, name))
    math_members = {}
    for name in B.MODULES["math"]:
        value = getattr(math, name)
        math_members[name] = value if isinstance(value, float) else BuiltinFunction(f"math.{name}", _math(name))
    modules = {"json": json_members, "re": re_members, "math": math_members}
    assert all(set(m) == set(B.MODULES[n]) for n, m in modules.items()), "module members disagree with grammar"
    return {name: Module(name, members) for name, members in modules.items()}


def make_builtins() -> dict[str, Any]:
    values: dict[str, Any] = {name: BuiltinFunction(name, impl) for name, impl in BUILTIN_IMPLS.items()}
    for name in SCRIPT_EXCEPTION_PARENTS:
        values[name] = ExceptionType(name)
    return values
