"""This module defines the implementations of the builtins and modules that
`grammar/builtins.py` allows: each is a `BuiltinFunction` taking the interpreter (for limits
and for calling script functions given as `key=`/`map`/`filter` arguments), the positional
arguments and the keyword arguments. Results that can grow are checked against the run's limits;
`re` is defined in `runtime.interpreter.regex`."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from dwf.grammar import builtins as B

from dwf.runtime.interpreter import regex
from dwf.runtime.interpreter.collection_values import DequeValue, NativeType
from dwf.runtime.values.errors import ScriptError, is_subclass
from dwf.runtime.interpreter.exceptions import json_decode_error
from dwf.runtime.interpreter.formatting import FORMATTING_BUILTINS
from dwf.runtime.interpreter.json_text import json_dumps
from dwf.runtime.interpreter.module_support import callback
from dwf.runtime.values.records import Record
from dwf.runtime.interpreter.sandbox import (charge, charge_key, charge_keys, charge_walk, check_frozenset, check_int, check_items, check_string, check_tuple, display, dwf_repr, int_product_work, iterable, limit_error, modular_pow_work, walked_key, work)
from dwf.runtime.interpreter.operators import BINARY, COMPARE
from dwf.runtime.interpreter.stdlib_modules import standard_modules
from dwf.runtime.values.objects import (BoundMethod, BuiltinFunction, DwfIterator, ExceptionType, Module, ScriptFunction, UnboundMethod, type_name)
from dwf.runtime.values.sets import FrozenSet, OrderedSet
from dwf.runtime.values.views import DictView

_CALLABLE = (ScriptFunction, BuiltinFunction)


def _fn(interp, value):
    """Wrap a script or builtin function for use inside a builtin (key=, map, filter): see
    `module_support.callback`; None stays None."""
    return None if value is None else callback(interp, value)


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
    if isinstance(value, (str, list, tuple, dict, OrderedSet, FrozenSet, range, DequeValue, DictView)):
        return len(value)
    raise ScriptError("TypeError", f"object of type '{type_name(value)}' has no len()")


def b_range(interp, args, kwargs):
    _no_kwargs("range", kwargs)
    for a in args:
        if not isinstance(a, int):
            raise ScriptError("TypeError", f"'{type_name(a)}' object cannot be interpreted as an integer")
    r = range(*args)
    try:
        size = len(r)
    except OverflowError:  # more items than a C ssize_t counts: far past the limit
        size = interp.limits.range_items + 1
    if size > interp.limits.range_items:
        raise limit_error("range_items", interp.limits)
    return r


def b_sorted(interp, args, kwargs):
    _no_kwargs("sorted", kwargs, ("key", "reverse"))
    (iterable,) = args
    items = _materialize(interp, iterable)
    times = max(1, len(items).bit_length())  # about log n comparisons per item
    charge_walk(interp.limits, items, times=times)
    key = walked_key(interp.limits, _fn(interp, kwargs.get("key")), times)
    return sorted(items, key=key, reverse=bool(kwargs.get("reverse", False)))


def b_list(interp, args, kwargs):
    _no_kwargs("list", kwargs)
    return _materialize(interp, args[0]) if args else []


def b_tuple(interp, args, kwargs):
    _no_kwargs("tuple", kwargs)
    return check_tuple(tuple(_materialize(interp, args[0])), interp.limits) if args else ()


def b_set(interp, args, kwargs):
    _no_kwargs("set", kwargs)
    if not args:
        return OrderedSet()
    items = _materialize(interp, args[0])
    charge_walk(interp.limits, items)  # every item is hashed (a tuple or a long string: all of it)
    return OrderedSet(items)


def b_dict(interp, args, kwargs):
    """`dict(...)`, also what calling a TypedDict is; CPython's errors for a bad argument."""
    if len(args) > 1:
        raise ScriptError("TypeError", f"dict expected at most 1 argument, got {len(args)}")
    result = {}
    if args:
        source = args[0]
        if isinstance(source, dict):
            charge(interp.limits, work(source))
            result.update(source)
        else:
            for index, pair in enumerate(_materialize(interp, source)):
                key, value = _dict_pair(pair, index)
                charge_key(interp.limits, key)
                result[key] = value
    result.update(kwargs)
    return check_items(result, interp.limits)


def _dict_pair(pair: Any, index: int) -> tuple:
    if not isinstance(pair, (list, tuple, str, dict, OrderedSet, range, DwfIterator)):
        raise ScriptError("TypeError", f"cannot convert dictionary update sequence element #{index} to a sequence")
    # Sized elements are measured before anything is copied: `dict([big] * n)` copies nothing.
    items = _first(pair, 3) if isinstance(pair, DwfIterator) else None
    length = len(items) if items is not None else len(pair)
    if length != 2:
        raise ScriptError("ValueError", f"dictionary update sequence element #{index} has length {length}; 2 is required")
    first, second = items if items is not None else pair
    return first, second


def _first(items: Any, count: int) -> list:
    out = []
    for item in items:
        out.append(item)
        if len(out) == count:
            break
    return out


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
    if args and isinstance(args[0], str) and len(args[0]) > 300:  # parsing decimal text is quadratic
        charge(interp.limits, int_product_work(len(args[0]) * 4, len(args[0]) * 4))
    return int(*args, **kwargs)


def b_float(interp, args, kwargs):
    _no_kwargs("float", kwargs)
    charge(interp.limits, work(args[0]) if args else 0)
    return float(*args)


def b_bool(interp, args, kwargs):
    _no_kwargs("bool", kwargs)
    return bool(args[0]) if args else False


def _ends_on_stop_iteration(call):
    """CPython's `map` and `filter` end, silently, when their function raises StopIteration
    (`map(next, iterators)` stops at the first exhausted one)."""
    def wrapped(*args):
        try:
            return call(*args)
        except ScriptError as error:
            if is_subclass(error.type_name, "StopIteration"):
                raise StopIteration from None  # ends the C iterator calling this
            raise
    return wrapped


def b_map(interp, args, kwargs):
    _no_kwargs("map", kwargs)
    fn, *iterables = args
    call = _ends_on_stop_iteration(_fn(interp, fn))
    return DwfIterator(_metered(interp.limits, map(call, *(_iterable(interp, it) for it in iterables))), "map")


def b_filter(interp, args, kwargs):
    _no_kwargs("filter", kwargs)
    fn, iterable = args
    call = _ends_on_stop_iteration(_fn(interp, fn)) if fn is not None else bool
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
    if isinstance(value, (list, tuple, str, range, dict, DictView, DequeValue)):
        # Live, as in CPython: a dict (or view) that changes size meanwhile raises RuntimeError.
        return DwfIterator(_metered(interp.limits, reversed(value)), "reversed")
    raise ScriptError("TypeError", f"'{type_name(value)}' object is not reversible")


def b_minmax(name, python):
    def impl(interp, args, kwargs):
        _no_kwargs(name, kwargs, ("key", "default"))
        key = walked_key(interp.limits, _fn(interp, kwargs.get("key")), 2)  # compared with the best so far
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
    if len(args) == 2 and type(args[0]) is int and type(args[1]) is int:
        charge(interp.limits, int_product_work(args[0].bit_length(), args[1].bit_length()))
    return divmod(*args)


def b_pow(interp, args, kwargs):
    _no_kwargs("pow", kwargs)
    if len(args) == 3:
        if all(type(a) is int for a in args) and args[1] > 0 and args[2] and args[1].bit_length() > 64:
            return _modular_pow(interp.limits, *args)
        return pow(*args)  # modular: the result is smaller than the modulus
    if len(args) != 2:
        raise ScriptError("TypeError", f"pow() takes 2 or 3 arguments ({len(args)} given)")
    return BINARY["**"](args[0], args[1], interp.limits)


def _modular_pow(limits, base: int, exponent: int, modulus: int) -> int:
    """`pow(base, exponent, modulus)` one exponent bit at a time, each bit charged before it is
    computed: on 10,000-bit ints CPython's single call takes seconds, which no cancel could
    stop; here the step limit and a stop end it between two multiplications."""
    charge(limits, modular_pow_work(exponent, modulus) // 4)  # refused up front when far too large
    per_bit = modular_pow_work(1, modulus)
    result, base = 1 % modulus, base % modulus
    for bit in bin(exponent)[2:]:
        charge(limits, per_bit)
        result = result * result % modulus
        if bit == "1":
            result = result * base % modulus
    return result


def b_round(interp, args, kwargs):
    _no_kwargs("round", kwargs, ("ndigits",))
    digits = kwargs.get("ndigits", args[1] if len(args) > 1 else None)
    if args and type(args[0]) is int and type(digits) is int and digits < 0:
        # CPython computes 10 ** -ndigits first: `round(5, -10 ** 8)` would build a 300-million-bit
        # int. Past the number's own digits the answer is 0 (as CPython's).
        if -digits > args[0].bit_length() * 0.30103 + 2:  # more than its decimal digits
            return 0
        charge(interp.limits, int_product_work(args[0].bit_length(), -digits * 4))
    return round(*args, **kwargs)


def b_chr(interp, args, kwargs):
    _no_kwargs("chr", kwargs)
    return chr(*args)


def b_ord(interp, args, kwargs):
    _no_kwargs("ord", kwargs)
    return ord(*args)


ISINSTANCE_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict,
                    "tuple": tuple, "set": OrderedSet, "frozenset": FrozenSet, "range": range, "slice": slice}


def b_isinstance(interp, args, kwargs):
    _no_kwargs("isinstance", kwargs)
    value, kinds = args
    pending = [kinds]  # tuples nest (`(int, (float, str))`); they are bounded when made
    while pending:
        kind = pending.pop()
        if isinstance(kind, tuple):
            charge(interp.limits, work(kind))
            pending.extend(reversed(kind))  # left to right, as CPython tries them
        elif isinstance(kind, NativeType):  # Counter, deque, a namedtuple type, ...
            if kind.holds(value):
                return True
        elif isinstance(kind, BuiltinFunction) and kind.name in ISINSTANCE_TYPES:
            if kind.name == "dict" and isinstance(value, Record):
                continue
            if isinstance(value, ISINSTANCE_TYPES[kind.name]):
                return True
        elif isinstance(kind, ExceptionType):
            if isinstance(value, ScriptError) and value.is_a(kind.name):
                return True
        else:
            raise ScriptError("TypeError", "isinstance() arg 2 must be a type, a tuple of types, or a union")
    return False


def b_callable(interp, args, kwargs):
    _no_kwargs("callable", kwargs)
    if len(args) != 1:
        raise ScriptError("TypeError", f"callable() takes exactly one argument ({len(args)} given)")
    return isinstance(args[0], (ScriptFunction, BuiltinFunction, BoundMethod, UnboundMethod, ExceptionType))


# The CPython type of the iterator `iter(value)` gives, by the type of `value`.
_ITERATOR_NAMES = {list: "list_iterator", tuple: "tuple_iterator", dict: "dict_keyiterator", OrderedSet: "set_iterator",
                   FrozenSet: "set_iterator", range: "range_iterator"}


def _checked_items(limits, items):
    """Yield `items`, one step each; a container changed while it is iterated raises CPython's
    RuntimeError as a script exception."""
    try:
        for item in items:
            charge(limits, 1)
            yield item
    except RecursionError:
        raise
    except RuntimeError as error:
        raise ScriptError("RuntimeError", str(error)) from None


def b_iter(interp, args, kwargs):
    _no_kwargs("iter", kwargs)
    if not 1 <= len(args) <= 2:
        raise ScriptError("TypeError", f"iter expected at {'least 1' if not args else 'most 2'} argument{'s' if args else ''}, "
                          f"got {len(args)}")
    if len(args) == 2:
        return _sentinel_iterator(interp, *args)
    value = args[0]
    if type(value) is DwfIterator:
        return value  # an iterator is its own iterator
    source = iterable(value)
    name = "dict_keyiterator" if isinstance(source, dict) else _ITERATOR_NAMES.get(type(source), "iterator")
    if type(source) is str:
        name = "str_ascii_iterator" if source.isascii() else "str_iterator"
    return DwfIterator(_checked_items(interp.limits, iter(source)), name)


def _sentinel_iterator(interp, fn, sentinel):
    """`iter(fn, sentinel)`: call `fn()` until it returns `sentinel`; every call is a step."""
    if not isinstance(fn, (ScriptFunction, BuiltinFunction, BoundMethod, UnboundMethod, ExceptionType)):
        raise ScriptError("TypeError", "iter(v, w): v must be callable")
    call, limits, equal = _fn(interp, fn), interp.limits, COMPARE["=="]

    def values():
        while True:
            try:
                value = call()
            except ScriptError as error:
                if is_subclass(error.type_name, "StopIteration"):
                    return  # as CPython's callable_iterator
                raise
            if equal(value, sentinel, limits):
                return
            yield value
    return DwfIterator(values(), "callable_iterator")


def b_next(interp, args, kwargs):
    _no_kwargs("next", kwargs)
    if not 1 <= len(args) <= 2:
        raise ScriptError("TypeError", f"next expected at {'least 1' if not args else 'most 2'} argument{'s' if args else ''}, "
                          f"got {len(args)}")
    iterator = args[0]
    if type(iterator) is not DwfIterator:
        raise ScriptError("TypeError", f"'{type_name(iterator)}' object is not an iterator")
    try:
        return next(iterator)
    except StopIteration:
        if len(args) == 2:
            return args[1]
        raise ScriptError("StopIteration", "") from None


def b_frozenset(interp, args, kwargs):
    _no_kwargs("frozenset", kwargs)
    if len(args) > 1:
        raise ScriptError("TypeError", f"frozenset expected at most 1 argument, got {len(args)}")
    if args and type(args[0]) is FrozenSet:
        return args[0]
    if not args:
        return FrozenSet()
    items = _materialize(interp, args[0])
    charge_keys(interp.limits, items)  # every item is hashed
    return check_frozenset(FrozenSet(items), interp.limits)


def b_slice(interp, args, kwargs):
    _no_kwargs("slice", kwargs)
    return slice(*args)  # CPython's own argument errors; the bounds may be any value, as there


BUILTIN_IMPLS = {
    "abs": b_abs, "all": b_all, "any": b_any, "bool": b_bool, "dict": b_dict, "divmod": b_divmod,
    "enumerate": b_enumerate, "filter": b_filter, "float": b_float, "int": b_int, "isinstance": b_isinstance,
    "len": b_len, "list": b_list, "map": b_map, "max": b_minmax("max", max), "min": b_minmax("min", min),
    "pow": b_pow, "range": b_range, "repr": b_repr, "reversed": b_reversed, "round": b_round, "set": b_set,
    "sorted": b_sorted, "str": b_str, "sum": b_sum, "tuple": b_tuple, "zip": b_zip, "chr": b_chr, "ord": b_ord,
    "callable": b_callable, "iter": b_iter, "next": b_next, "frozenset": b_frozenset, "slice": b_slice,
    **FORMATTING_BUILTINS,
}


# ---------------------------------------------------------------- modules


def m_json_dumps(interp, args, kwargs):
    return json_dumps(interp, args, kwargs)


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
        raise json_decode_error(error.msg, error.doc, error.pos) from None
    except _NotJson as error:
        raise _constant_error(text, str(error)) from None
    except RecursionError:
        raise ScriptError("RecursionError", "maximum recursion depth exceeded while decoding a JSON document") from None
    if text.count(",") >= interp.limits.items:  # only then can one array or object be too long
        stack = [data]
        while stack:
            node = stack.pop()
            if isinstance(node, (list, dict)):
                check_items(node, interp.limits)
                stack.extend(node.values() if isinstance(node, dict) else node)
    return data


class _NotJson(Exception):
    """`json.loads` met `NaN`, `Infinity` or `-Infinity`, which CPython accepts and JSON does not."""


def _reject_constant(name):
    raise _NotJson(name)


# A JSON string, or a constant outside strings (everything before the first constant parsed).
_JSON_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def _constant_error(text: str, name: str) -> ScriptError:
    position = next((m.start(1) for m in _JSON_CONSTANT.finditer(text) if m.group(1)), 0)
    return json_decode_error(f"{name} is not valid JSON", text, position)


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
    json_members = {"dumps": BuiltinFunction("json.dumps", m_json_dumps), "loads": BuiltinFunction("json.loads", m_json_loads),
                    "JSONDecodeError": ExceptionType("JSONDecodeError")}
    re_members = regex.module_members()
    math_members = {}
    for name in B.MODULES["math"]:
        value = getattr(math, name)
        math_members[name] = value if isinstance(value, float) else BuiltinFunction(f"math.{name}", _math(name))
    modules = {"json": json_members, "re": re_members, "math": math_members, **standard_modules()}
    return {name: Module(name, members) for name, members in modules.items()}


def make_builtins() -> dict[str, Any]:
    values: dict[str, Any] = {name: BuiltinFunction(name, impl) for name, impl in BUILTIN_IMPLS.items()}
    for name in B.EXCEPTION_TYPES:
        values[name] = ExceptionType(name)
    return values
