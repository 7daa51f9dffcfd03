"""This module defines the implementations of the builtins and modules that
`grammar/builtins.py` allows: each is a `BuiltinFunction` taking the interpreter (for limits
and for calling script functions given as `key=`/`map`/`filter` arguments), the positional
arguments and the keyword arguments. Results that can grow are checked against the run's limits;
regular expressions run under a time bound."""

from __future__ import annotations

import json
import math
import re
import threading
from typing import Any

from dwf.grammar import builtins as B

from .errors import SCRIPT_EXCEPTION_PARENTS, FatalError, ScriptError, is_subclass
from .records import Record
from .sandbox import MatchValue, check_items, check_string, display, dwf_repr, limit_error, to_json
from .values import (BuiltinFunction, ExceptionType, LazyAwaitable, Module, OrderedSet, ReadOnlyMapping,
                     ScriptFunction, type_name)

_CALLABLE = (ScriptFunction, BuiltinFunction)


def _fn(interp, value):
    """Wrap a script or builtin function for use inside a builtin (key=, map, filter)."""
    if value is None:
        return None
    return lambda *args: interp.call_sync(value, list(args), {})


def _no_kwargs(name, kwargs, allowed=()):
    extra = set(kwargs) - set(allowed)
    if extra:
        raise ScriptError("TypeError", f"{name}() got an unexpected keyword argument '{sorted(extra)[0]}'")


def _iterable(interp, value):
    if isinstance(value, (list, tuple, str, dict, OrderedSet, range, ReadOnlyMapping)) or _is_iterator(value):
        return value
    raise ScriptError("TypeError", f"'{type_name(value)}' object is not iterable")


def _is_iterator(value):
    return isinstance(value, (DwfIterator,))


class DwfIterator:
    """A lazy iterator value (map, filter, zip, enumerate, reversed results)."""

    __slots__ = ("_it", "name")

    def __init__(self, it, name: str):
        self._it, self.name = iter(it), name

    def __iter__(self):
        return self._it

    def __next__(self):
        return next(self._it)

    def __repr__(self) -> str:
        return f"<{self.name} object>"


def _materialize(interp, value) -> list:
    items = []
    for item in _iterable(interp, value):
        items.append(item)
        if len(items) > interp.limits.items:
            raise limit_error("items", interp.limits)
    return items


def b_len(interp, args, kwargs):
    _no_kwargs("len", kwargs)
    (value,) = args
    if isinstance(value, (str, list, tuple, dict, OrderedSet, range)):
        return len(value)
    raise ScriptError("TypeError", f"object of type '{type_name(value)}' has no len()")


def b_range(interp, args, kwargs):
    _no_kwargs("range", kwargs)
    for a in args:
        if not isinstance(a, int) or isinstance(a, bool):
            raise ScriptError("TypeError", f"'{type_name(a)}' object cannot be interpreted as an integer")
    r = range(*args)
    if len(r) > interp.limits.range_items:
        raise limit_error("range_items", interp.limits)
    return r


def b_sorted(interp, args, kwargs):
    _no_kwargs("sorted", kwargs, ("key", "reverse"))
    (iterable,) = args
    items = _materialize(interp, iterable)
    return sorted(items, key=_fn(interp, kwargs.get("key")), reverse=bool(kwargs.get("reverse", False)))


def b_list(interp, args, kwargs):
    _no_kwargs("list", kwargs)
    return _materialize(interp, args[0]) if args else []


def b_tuple(interp, args, kwargs):
    _no_kwargs("tuple", kwargs)
    return tuple(_materialize(interp, args[0])) if args else ()


def b_set(interp, args, kwargs):
    _no_kwargs("set", kwargs)
    return OrderedSet(_materialize(interp, args[0])) if args else OrderedSet()


def b_dict(interp, args, kwargs):
    result = {}
    if args:
        source = args[0]
        if isinstance(source, dict):
            result.update(source)
        else:
            for pair in _materialize(interp, source):
                key, value = pair
                result[key] = value
    result.update(kwargs)
    return check_items(result, interp.limits)


def b_str(interp, args, kwargs):
    _no_kwargs("str", kwargs)
    return check_string(display(args[0]), interp.limits) if args else ""


def b_repr(interp, args, kwargs):
    _no_kwargs("repr", kwargs)
    return check_string(dwf_repr(args[0]), interp.limits)


def b_int(interp, args, kwargs):
    _no_kwargs("int", kwargs, ("base",))
    if args and isinstance(args[0], str) and len(args[0]) > 4300:
        raise ScriptError("ValueError", "int() of a string longer than 4300 digits")
    return int(*args, **kwargs)


def b_float(interp, args, kwargs):
    _no_kwargs("float", kwargs)
    return float(*args)


def b_bool(interp, args, kwargs):
    _no_kwargs("bool", kwargs)
    return bool(args[0]) if args else False


def b_map(interp, args, kwargs):
    _no_kwargs("map", kwargs)
    fn, *iterables = args
    call = _fn(interp, fn)
    return DwfIterator(map(call, *(_iterable(interp, it) for it in iterables)), "map")


def b_filter(interp, args, kwargs):
    _no_kwargs("filter", kwargs)
    fn, iterable = args
    call = _fn(interp, fn) if fn is not None else bool
    return DwfIterator(filter(call, _iterable(interp, iterable)), "filter")


def b_enumerate(interp, args, kwargs):
    _no_kwargs("enumerate", kwargs, ("start",))
    return DwfIterator(enumerate(_iterable(interp, args[0]), *args[1:], **kwargs), "enumerate")


def b_zip(interp, args, kwargs):
    _no_kwargs("zip", kwargs, ("strict",))
    return DwfIterator(zip(*(_iterable(interp, a) for a in args), **kwargs), "zip")


def b_reversed(interp, args, kwargs):
    _no_kwargs("reversed", kwargs)
    (value,) = args
    if isinstance(value, (list, tuple, str, range)):
        return DwfIterator(reversed(value), "reversed")
    if isinstance(value, dict):
        return DwfIterator(reversed(list(value)), "reversed")
    raise ScriptError("TypeError", f"'{type_name(value)}' object is not reversible")


def b_minmax(name, python):
    def impl(interp, args, kwargs):
        _no_kwargs(name, kwargs, ("key", "default"))
        key = _fn(interp, kwargs.get("key"))
        extra = {"key": key} if key else {}
        if "default" in kwargs:
            extra["default"] = kwargs["default"]
        if len(args) == 1:
            return python(_materialize(interp, args[0]), **extra)
        return python(*args, **extra)
    return impl


def b_sum(interp, args, kwargs):
    _no_kwargs("sum", kwargs, ("start",))
    start = kwargs.get("start", args[1] if len(args) > 1 else 0)
    if isinstance(start, str):
        raise ScriptError("TypeError", "sum() can't sum strings [use ''.join(seq) instead]")
    total = start
    from .sandbox import BINARY

    for item in _iterable(interp, args[0]):
        total = BINARY["+"](total, item, interp.limits)
    return total


def b_any(interp, args, kwargs):
    _no_kwargs("any", kwargs)
    return any(_iterable(interp, args[0]))


def b_all(interp, args, kwargs):
    _no_kwargs("all", kwargs)
    return all(_iterable(interp, args[0]))


def b_abs(interp, args, kwargs):
    return abs(*args)


def b_divmod(interp, args, kwargs):
    return divmod(*args)


def b_pow(interp, args, kwargs):
    from .sandbox import BINARY

    if len(args) == 3:
        return pow(*args)
    return BINARY["**"](args[0], args[1], interp.limits)


def b_round(interp, args, kwargs):
    return round(*args, **kwargs)


def b_chr(interp, args, kwargs):
    return chr(*args)


def b_ord(interp, args, kwargs):
    return ord(*args)


ISINSTANCE_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict,
                    "tuple": tuple, "set": OrderedSet}


def b_isinstance(interp, args, kwargs):
    _no_kwargs("isinstance", kwargs)
    value, kinds = args
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    for kind in kinds:
        if isinstance(kind, BuiltinFunction) and kind.name in ISINSTANCE_TYPES:
            if kind.name == "int" and isinstance(value, bool):
                continue
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


def m_json_dumps(interp, args, kwargs):
    _no_kwargs("json.dumps", kwargs, ("indent", "sort_keys", "ensure_ascii"))
    data = to_json(args[0], "value given to json.dumps")
    return check_string(json.dumps(data, **kwargs), interp.limits)


def m_json_loads(interp, args, kwargs):
    _no_kwargs("json.loads", kwargs)
    (text,) = args
    if not isinstance(text, str):
        raise ScriptError("TypeError", "json.loads() needs a str")
    check_string(text, interp.limits)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ScriptError("ValueError", f"invalid JSON: {error}") from None
    except RecursionError:
        raise ScriptError("ValueError", "invalid JSON: nested too deeply") from None


def _reject_constant(name):
    raise ScriptError("ValueError", f"invalid JSON: {name} is not JSON")


def _run_regex(interp, fn, *args):
    """Run a regex operation on a worker thread and fail the run if it exceeds the time bound.

    CPython's `re` cannot be interrupted, so a runaway match keeps its thread busy until it
    ends; the run fails at once with a clear message instead of hanging."""
    result: list = []

    def target():
        try:
            result.append((True, fn(*args)))
        except BaseException as error:  # re.error, TypeError: handed back to the caller
            result.append((False, error))

    worker = threading.Thread(target=target, daemon=True, name="dwf-regex")
    worker.start()
    worker.join(interp.limits.regex_timeout_s)
    if worker.is_alive():
        raise limit_error("regex_timeout_s", interp.limits)
    ok, value = result[0]
    if ok:
        return value
    if isinstance(value, re.error):
        raise ScriptError("ValueError", f"invalid regular expression: {value}")
    raise value


def _regex(name, python):
    def impl(interp, args, kwargs):
        _no_kwargs(f"re.{name}", kwargs, ("flags", "count", "maxsplit"))
        for a in args[:2]:
            if not isinstance(a, (str, int)):
                raise ScriptError("TypeError", f"re.{name}() expects strings")
        if name == "sub" and len(args) > 1 and not isinstance(args[1], str):
            raise ScriptError("TypeError", "re.sub() replacement must be a string")
        value = _run_regex(interp, lambda: python(*args, **kwargs))
        if isinstance(value, re.Match):
            return MatchValue(value)
        if isinstance(value, str):
            return check_string(value, interp.limits)
        if isinstance(value, list):
            return check_items(value, interp.limits)
        return value
    return impl


def _math(name):
    fn = getattr(math, name)

    def impl(interp, args, kwargs):
        _no_kwargs(f"math.{name}", kwargs)
        if name in ("factorial",) and args and isinstance(args[0], int) and args[0] > 5000:
            raise limit_error("pow_bits", interp.limits)
        if name in ("comb", "perm") and args and isinstance(args[0], int) and args[0] > 5000:
            raise limit_error("pow_bits", interp.limits)
        if name == "prod":
            return fn(_materialize(interp, args[0]))
        if name == "fsum":
            return fn(_materialize(interp, args[0]))
        return fn(*args)
    return impl


def make_modules() -> dict[str, Module]:
    json_members = {"dumps": BuiltinFunction("json.dumps", m_json_dumps), "loads": BuiltinFunction("json.loads", m_json_loads)}
    re_members = {}
    for name in ("match", "search", "fullmatch", "findall", "sub", "split"):
        re_members[name] = BuiltinFunction(f"re.{name}", _regex(name, getattr(re, name)))
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
