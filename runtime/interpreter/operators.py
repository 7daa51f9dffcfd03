"""This module defines the operators of scripts, as tables from the IR's operator text to a
function `(a, b, limits)`: `BINARY`, `INPLACE` (augmented assignment: lists, dicts, sets,
counters and deques change in place), `UNARY` and `COMPARE`. Operators that could allocate
without bound (repetition, concatenation, `**`, `<<`, `%` formatting) are checked *before* they
run against the run's `Limits`, and work proportional to the operands is charged
(`sandbox.charge`)."""

from __future__ import annotations

import math
import operator
from typing import Any

from dwf.runtime.interpreter.collection_values import CounterValue, DequeValue, NamedTupleValue
from dwf.runtime.interpreter.formatting import percent_format
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.interpreter.sandbox import (CHARS_PER_STEP, HASHED_BY_WALK, ITEMS_PER_STEP, ITERABLES, NESTABLE, VIEW_CLASSES, charge, charge_key,
                                             charge_walk, check_int, check_items, check_string, check_value, int_product_work, iterable,
                                             limit_error, work)
from dwf.runtime.values.errors import ScriptError
from dwf.runtime.values.objects import ReadOnlyMapping, type_name
from dwf.runtime.values.sets import FrozenSet, OrderedSet
from dwf.runtime.values.views import VIEW_TYPES, DictItemsView, DictValuesView


def _pow(a: Any, b: Any, limits: Limits) -> Any:
    if type(a) in (int, bool) and type(b) in (int, bool) and b > 0 and abs(a) > 1:
        # |a| ** b has about b * log2|a| bits: refuse before computing anything much bigger.
        bits = b * math.log2(abs(a))
        if bits > limits.pow_bits + 1:
            raise limit_error("pow_bits", limits)
        charge(limits, int_product_work(int(bits), int(bits)))  # squarings up to the result's size
        return check_int(a ** b, limits)
    result = a ** b
    if type(result) is complex:  # DWF has no complex numbers: (-8) ** 0.5 is a domain error
        raise ScriptError("ValueError", "math domain error")
    return result


def _mul(a: Any, b: Any, limits: Limits) -> Any:
    if isinstance(a, (str, list, tuple)) and isinstance(b, int) and not isinstance(b, bool):
        _check_repeat(a, b, limits)
        charge(limits, _repeat_work(a, b))
    elif isinstance(b, (str, list, tuple)) and isinstance(a, int) and not isinstance(a, bool):
        _check_repeat(b, a, limits)
        charge(limits, _repeat_work(b, a))
    elif type(a) is int and type(b) is int:
        a_bits, b_bits = a.bit_length(), b.bit_length()
        if a_bits + b_bits > limits.pow_bits + 1:
            raise limit_error("pow_bits", limits)
        charge(limits, int_product_work(a_bits, b_bits))
        return check_int(a * b, limits)
    return a * b


def _repeat_work(sequence, count: int) -> int:
    size = len(sequence) * max(count, 0)
    return size // (CHARS_PER_STEP if isinstance(sequence, str) else ITEMS_PER_STEP)


def _check_repeat(sequence, count: int, limits: Limits) -> None:
    total = len(sequence) * max(count, 0)
    if isinstance(sequence, str):
        if total * 4 > limits.string_bytes and total > limits.string_bytes // 4:
            if len(sequence.encode("utf-8")) * count > limits.string_bytes:
                raise limit_error("string_bytes", limits)
    elif total > limits.items:
        raise limit_error("items", limits)


def _add(a: Any, b: Any, limits: Limits) -> Any:
    if type(a) is int and type(b) is int:
        return check_int(a + b, limits)
    if isinstance(a, (list, tuple)) and type(b) is type(a) and len(a) + len(b) > limits.items:
        raise limit_error("items", limits)
    result = a + b
    charge(limits, work(result))
    if isinstance(result, str):
        return check_string(result, limits)
    return result


def _sub(a: Any, b: Any, limits: Limits) -> Any:
    if type(a) is int and type(b) is int:
        return check_int(a - b, limits)
    if type(a) in _SET_OPERANDS or type(b) in VIEW_CLASSES:
        _charge_set_operands(a, b, limits)
    return a - b


def _lshift(a: Any, b: Any, limits: Limits) -> Any:
    if type(a) in (int, bool) and type(b) in (int, bool) and a and b > 0 and abs(a).bit_length() + b > limits.pow_bits:
        raise limit_error("pow_bits", limits)
    return a << b


_SET_OPERANDS = frozenset({OrderedSet, FrozenSet, *VIEW_TYPES})


def _charge_set_operands(a: Any, b: Any, limits: Limits) -> None:
    """Set operators read both operands; with an items view they also compare its values."""
    if type(a) is DictItemsView or type(b) is DictItemsView:
        charge_walk(limits, a, b)
    else:
        charge(limits, work(a) + work(b))


def _union(fn):
    """`|` and `^` of sets, dict views and dicts can make a container larger than either operand."""
    def apply(a, b, limits):
        _charge_set_operands(a, b, limits)
        return check_value(fn(a, b), limits)
    return apply


def _sized(fn):
    """`&` of sets (and of dict views, on either side) reads both operands."""
    def apply(a, b, limits):
        if type(a) in _SET_OPERANDS or type(b) in VIEW_CLASSES:
            _charge_set_operands(a, b, limits)
        return fn(a, b, limits) if fn is _sub else fn(a, b)
    return apply


def _mod(a: Any, b: Any, limits: Limits) -> Any:
    if isinstance(a, str):
        return percent_format(a, b, limits)
    if type(a) is int and type(b) is int:
        charge(limits, int_product_work(a.bit_length(), b.bit_length()))
    return a % b


def _floordiv(a: Any, b: Any, limits: Limits) -> Any:
    if type(a) is int and type(b) is int:  # long division: digit by digit
        charge(limits, int_product_work(a.bit_length(), b.bit_length()))
    return a // b


def _truediv(a, b, limits):
    return a / b


def _plain(fn):
    return lambda a, b, limits: fn(a, b)


BINARY = {
    "+": _add, "*": _mul, "/": _truediv, "//": _floordiv,
    "%": _mod, "**": _pow, "<<": _lshift, ">>": _plain(operator.rshift), "&": _sized(operator.and_),
    "|": _union(operator.or_), "^": _union(operator.xor), "-": _sub,
}


# Augmented assignment mutates lists, dicts and sets in place, so aliases see the change as in
# CPython (`b = a; a += [1]` changes `b`); every other operand gets the plain operator.
# A Counter or deque changes in place as in CPython (aliases see it); their operators meter
# themselves (collection_values.py).
_IN_PLACE_NATIVE = frozenset({CounterValue, DequeValue})


def _iadd(a, b, limits):
    if type(a) is not list:
        if type(a) in _IN_PLACE_NATIVE:
            return operator.iadd(a, b)
        return _add(a, b, limits)
    iterable(b)
    if hasattr(b, "__len__") and len(a) + len(b) > limits.items:
        raise limit_error("items", limits)
    a.extend(b)
    charge(limits, work(b))
    return check_items(a, limits)


def _imul(a, b, limits):
    if type(a) is not list or type(b) is not int:
        if type(a) in _IN_PLACE_NATIVE:
            return operator.imul(a, b)
        return _mul(a, b, limits)
    _check_repeat(a, b, limits)
    a *= b
    charge(limits, work(a))
    return a


def _inplace(python, name):
    def apply(a, b, limits):
        if isinstance(a, ReadOnlyMapping):
            raise ScriptError("TypeError", "`args` is read-only")
        if type(a) is OrderedSet or (type(a) is dict and name == "|"):
            charge(limits, work(b))
            return check_value(python(a, b), limits)
        if type(a) in _IN_PLACE_NATIVE or (isinstance(a, dict) and name == "|"):
            charge(limits, work(b))
            return check_items(python(a, b), limits)
        return BINARY[name](a, b, limits)
    return apply


INPLACE = {**BINARY, "+": _iadd, "*": _imul, "|": _inplace(operator.ior, "|"), "&": _inplace(operator.iand, "&"),
           "-": _inplace(operator.isub, "-"), "^": _inplace(operator.ixor, "^")}

UNARY = {"-": operator.neg, "+": operator.pos, "not": operator.not_, "~": operator.invert}


def _in(a, b):
    if not isinstance(b, ITERABLES):
        raise ScriptError("TypeError", f"argument of type '{type_name(b)}' is not iterable")
    return a in b


def _compared(fn):
    """Comparing strings reads them; comparing containers walks them through every path
    (charged as both, in full, before C starts)."""
    def compare(a, b, limits):
        if a is b and type(a) in NESTABLE:
            charge(limits, work(a))  # C meets the same object in every item: one pass
        elif type(a) in NESTABLE and type(b) in NESTABLE:
            charge_walk(limits, a, b)
        elif type(a) is str or type(b) is str:
            charge(limits, work(a) + work(b))
        return fn(a, b)
    return compare


def _contains(a, b, limits):
    if type(b) in (list, tuple, DequeValue, NamedTupleValue):  # a linear scan comparing `a` with each item
        charge_walk(limits, b)
        if type(a) in NESTABLE:
            charge_walk(limits, a, times=len(b))
    elif type(b) is str:
        charge(limits, work(b))
    elif type(b) is DictValuesView:  # a linear scan, as in a list
        charge_walk(limits, b)
        if type(a) in NESTABLE:
            charge_walk(limits, a, times=len(b))
    elif type(b) is DictItemsView:  # one lookup, then the value compared with `a`'s
        charge_walk(limits, a)
    elif type(a) in HASHED_BY_WALK:  # a lookup hashes all of a tuple (see `sandbox.charge_key`)
        charge_key(limits, a)
    return _in(a, b)


# Each takes (left, right, limits) like BINARY.
COMPARE = {
    "==": _compared(operator.eq), "!=": _compared(operator.ne), "<": _compared(operator.lt),
    "<=": _compared(operator.le), ">": _compared(operator.gt), ">=": _compared(operator.ge),
    "in": _contains, "not in": lambda a, b, limits: not _contains(a, b, limits),
    "is": lambda a, b, limits: a is b, "is not": lambda a, b, limits: a is not b,
}
