"""This module defines the sandbox policy: the only place where a script reaches attributes,
methods and operators of values. It is an allow-list over DWF's own value types
(`runtime.values.objects`, records, plain data); anything not on the list is a fatal misuse, so a
script can neither reach interpreter objects nor probe for them with `try/except`.

Operations that could allocate without bound (padding and replacement methods, f-string
widths; the operators are in `runtime.interpreter.operators`) are checked *before* they run
against the run's `Limits`, and a Python exception raised by an allowed operation becomes the matching DWF
exception value (`to_script_error`).

Work. One interpreter step is one statement, loop iteration or call; an operation whose cost
grows with its data also charges steps for it (`charge`): one per `CHARS_PER_STEP` characters
or `ITEMS_PER_STEP` container items that C code copies, compares, hashes or scans (`work`),
and one per item that Python code in the runtime visits (`repr`, JSON conversion, lazy
iterators). So the step limit bounds a run's time even when every step works on a value at the
size limit (`while True: text.upper()` on a 16 MiB string). Charging needs the run's counter:
the interpreter hands these functions a `RunLimits` (the run's `Limits` plus that counter);
given plain `Limits`, nothing is charged.
"""

from __future__ import annotations

import os
import re
import resource
import sys
from typing import Any

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from dwf.runtime.interpreter.collection_values import CONTAINER_TYPES, DICT_TYPES, INTERNAL_NAMES, DequeValue, NamedTupleValue
from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.interpreter.exceptions import missing_attribute
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.values.records import Record
from dwf.runtime.values.objects import (ActorHandle, BoundMethod, BuiltinFunction, DwfIterator, ExceptionType, Facade, LazyAwaitable, Module, NativeValue, ReadOnlyMapping, ScriptFunction, ScriptObject, UnboundMethod, type_name)
from dwf.runtime.values.sets import FrozenSet, OrderedSet
from dwf.runtime.values.views import VIEW_NAMES, VIEW_TYPES, DictKeysView, DictValuesView, DictView

PYTHON_TO_DWF = {
    ZeroDivisionError: "ZeroDivisionError", KeyError: "KeyError", IndexError: "IndexError",
    TypeError: "TypeError", ValueError: "ValueError", OverflowError: "OverflowError",
    UnicodeError: "ValueError", AttributeError: "AttributeError",
}
# The values a script can iterate (`for`, unpacking, `*args`, `list(...)`, `l += ...`).
ITERABLES = (list, tuple, str, dict, OrderedSet, FrozenSet, range, DwfIterator, DequeValue, *VIEW_TYPES)
_METHOD_TYPES = {str: "str", list: "list", dict: "dict", ReadOnlyMapping: "dict", tuple: "tuple", int: "int",
                 float: "float", OrderedSet: "set", FrozenSet: "frozenset", range: "range", slice: "slice"}
# The builtin type names whose methods a script may reference through the type (`str.lower`).
TYPES_WITH_METHODS = frozenset(_METHOD_TYPES.values())
_METHOD_TYPES.update({view: view.type_name for view in VIEW_TYPES})
_ALLOWED = {kind: frozenset(names) for kind, names in B.METHODS.items()}


# Python's messages name the interpreter's classes ("unsupported operand type(s) for +: 'int'
# and 'ScriptFunction'"); scripts see DWF's type names instead, and never an address.
_INTERNAL_NAMES = {
    "ScriptFunction": "function", "LazyAwaitable": "awaitable", "AskAwaitable": "awaitable", "ActorHandle": "Agent", "BuiltinFunction": "builtin_function",
    "BoundMethod": "builtin_function", "OrderedSet": "set", "ExceptionType": "type", "Facade": "facade", "Module": "module",
    "DwfIterator": "iterator", "MatchValue": "re.Match", "PatternValue": "re.Pattern", "Record": "record", "ReadOnlyMapping": "dict", "ScriptError": "Exception",
    "FrozenSet": "frozenset", "UnboundMethod": "method_descriptor",
    **INTERNAL_NAMES,
    **VIEW_NAMES,
}
_INTERNAL_NAME = re.compile(r"'(" + "|".join(_INTERNAL_NAMES) + r")'")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def python_message(error: BaseException) -> str:
    text = _INTERNAL_NAME.sub(lambda m: f"'{_INTERNAL_NAMES[m.group(1)]}'", str(error))
    return _ADDRESS.sub("", text)


def to_script_error(error: BaseException) -> ScriptError | None:
    """The DWF exception value for a Python exception an allowed operation raised."""
    if isinstance(error, ScriptError):
        return error
    if type(error) is RuntimeError:
        # A dict or set changed while it was iterated: CPython's own check and message. Any
        # other RuntimeError is not the script's (None: an internal error).
        message = str(error)
        return ScriptError("RuntimeError", message) if message.endswith("during iteration") else None
    for python_type, name in PYTHON_TO_DWF.items():
        if isinstance(error, python_type):
            if isinstance(error, KeyError) and len(error.args) == 1:
                # CPython's KeyError shows the key's repr; the key itself stays the exception's arg.
                return ScriptError(name, dwf_repr(error.args[0]), args=(error.args[0],))
            return ScriptError(name, python_message(error))
    return None


def exception_message(lineage: tuple[str, ...], args: tuple, limits: Limits | None = None) -> str:
    """`str(e)` of an exception of the class with `lineage` built with `args`, as CPython shows
    it: nothing, the one argument's `str` (a KeyError's: its `repr`), or the tuple's `repr`."""
    if not args:
        return ""
    if len(args) == 1:
        return dwf_repr(args[0], limits) if "KeyError" in lineage else display(args[0], limits)
    if "OSError" in lineage and len(args) <= 5:  # (errno, strerror[, filename[, winerror[, filename2]]])
        text = f"[Errno {display(args[0], limits)}] {display(args[1], limits)}"
        if len(args) >= 3:
            text += f": {dwf_repr(args[2], limits)}"
        return text + (f" -> {dwf_repr(args[4], limits)}" if len(args) == 5 else "")
    return dwf_repr(tuple(args), limits)


def iterable(value: Any) -> Any:
    """`value` if a script may iterate it, else the TypeError CPython raises."""
    if isinstance(value, ITERABLES):
        return value
    raise ScriptError("TypeError", f"'{type_name(value)}' object is not iterable")


def misuse(message: str) -> FatalError:
    return FatalError("Misuse", message)


# ---------------------------------------------------------------- attributes


def get_attribute(value: Any, attr: str) -> Any:
    """`value.attr` for the allowed attributes; any other is the `AttributeError` CPython raises
    (or a fatal misuse for what CPython has and DWF does not offer: `runtime.interpreter.exceptions`), except
    on hooks (agents, facades, awaitables), where a wrong attribute is always a fatal misuse."""
    if attr.startswith("__"):
        raise misuse(f"attribute `{attr}` is not allowed")
    if isinstance(value, NativeValue):  # collections values and types answer for themselves
        return value.script_attribute(attr)
    kind = _METHOD_TYPES.get(type(value))
    if kind is not None:
        if attr in _ALLOWED[kind]:
            if isinstance(value, ReadOnlyMapping) and attr in B.DICT_MUTATING_METHODS:
                raise ScriptError("TypeError", "`args` is read-only")
            if attr in B.TYPE_LEVEL_METHODS:  # `{}.fromkeys` is `dict.fromkeys`, as in CPython
                return unbound_method(kind, attr)
            member = getattr(value, attr)
            if attr in B.VALUE_ATTRIBUTES:
                return member
            return BoundMethod(value, attr, member)
    elif type(value) is BuiltinFunction and value.name in TYPES_WITH_METHODS:
        if attr in _ALLOWED[value.name] and attr not in B.VALUE_ATTRIBUTES:
            return unbound_method(value.name, attr)
    elif isinstance(value, Record):
        if attr in value.fields:
            return value.fields[attr]
    elif isinstance(value, ActorHandle):
        if attr == "name":
            return value.name
        raise misuse(f"an agent has no attribute `{attr}` here (call `.ask(...)` directly)")
    elif isinstance(value, Module):
        if attr in value.members:
            return value.members[attr]
    elif isinstance(value, ScriptObject):
        return value.get_attribute(attr)
    elif isinstance(value, ScriptError):
        if attr == "args":
            return value.args_value
        if attr in value.attributes:
            return value.attributes[attr]
    elif isinstance(value, Facade):
        raise misuse(f"`{value.name}.{attr}` may only be called directly")
    elif isinstance(value, LazyAwaitable):
        raise misuse(f"`awaitable` has no allowed attribute `{attr}`: an awaitable has no attributes; "
                     f"add `await` to use its result (`(await ...).{attr}`)")
    raise missing_attribute(value, attr)


_UNBOUND: dict[tuple[str, str], UnboundMethod] = {}


def plain_method(kind: type, attr: str) -> bool:
    """Whether `value.attr`, for a `value` of exactly type `kind`, is the bound method that
    `get_attribute` returns for every such value (an allowed method of str, list or dict that
    is neither type-level nor a plain value), so a call can skip making the attribute."""
    name = _METHOD_TYPES.get(kind) if kind in (str, list, dict) else None
    return (name is not None and not attr.startswith("__") and attr in _ALLOWED[name]
            and attr not in B.TYPE_LEVEL_METHODS and attr not in B.VALUE_ATTRIBUTES)


def unbound_method(owner: str, name: str) -> UnboundMethod:
    """The one value for `owner.name` (immutable, so every run can share it)."""
    method = _UNBOUND.get((owner, name))
    if method is None:
        method = _UNBOUND[(owner, name)] = UnboundMethod(owner, name)
    return method


# ---------------------------------------------------------------- work

CHARS_PER_STEP = 256  # characters of a string that C code handles in about one step's time
ITEMS_PER_STEP = 16  # container items (copied, hashed or compared) per step


class RunLimits:
    """One run's limits (the fields of `Limits`, read as attributes) and the step counter that
    `charge` adds to: `counter` is the interpreter, whose `steps` the statements count."""

    __slots__ = (*Limits.NAMES, "counter", "memory_check_at")

    def __init__(self, limits: Limits, counter: Any):
        for name in Limits.NAMES:
            setattr(self, name, getattr(limits, name))
        self.counter = counter
        self.memory_check_at = MEMORY_CHECK_STEPS


# Work charges (where values are built in bulk) also check the process's resident memory every
# this many steps: the run's watchdog thread checks it too, but on a loaded machine it may not
# be scheduled for a second, while one charge can build 100 MB.
MEMORY_CHECK_STEPS = 50_000
_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int:
    """This process's resident memory (Linux: /proc/self/statm; elsewhere the peak so far)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_BYTES
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def memory_limit_error(limits: Limits | RunLimits) -> FatalError:
    return FatalError("LimitExceeded", f"the {Limits.NAMES['memory_bytes']} ({limits.memory_bytes:,} bytes resident) "
                      "was exceeded")


def charge(limits: Limits | RunLimits, steps: int) -> None:
    """Count `steps` more steps of work against the step limit (and, every
    `MEMORY_CHECK_STEPS`, check the memory limit)."""
    if steps > 0 and type(limits) is RunLimits:
        counter = limits.counter
        counter.steps += steps
        if counter.steps > limits.steps:
            raise counter.step_limit()  # the step limit's error (or the stop a person asked for)
        if counter.steps >= limits.memory_check_at:
            limits.memory_check_at = counter.steps + MEMORY_CHECK_STEPS
            if resident_bytes() > limits.memory_bytes:
                raise memory_limit_error(limits)


# Work measured in time, for operations whose cost no size predicts (a regular expression that
# backtracks, a `files.grep`): seconds count as steps at about the rate the interpreter runs them.
STEPS_PER_SECOND = 2_000_000
GREP_STEPS_PER_SECOND = 200_000  # a grep runs in a worker process, and in parallel with the script


def charge_seconds(limits: Limits | RunLimits, seconds: float, rate: int = STEPS_PER_SECOND) -> None:
    """Charge `seconds` of work done on the run's behalf as steps (see `STEPS_PER_SECOND`)."""
    charge(limits, int(seconds * rate))


# Integers. CPython multiplies and divides big integers digit by digit (30-bit digits): one step
# pays for about `INT_DIGIT_PRODUCTS_PER_STEP` digit products (measured: 10,000-bit // 5,000-bit
# takes about 110 us, three-argument `pow` on 10,000-bit ints about 3 s).
INT_DIGIT_BITS = 30
INT_DIGIT_PRODUCTS_PER_STEP = 250


def int_product_work(a_bits: int, b_bits: int) -> int:
    """The steps of multiplying (or dividing) integers of `a_bits` and `b_bits` bits."""
    return (a_bits // INT_DIGIT_BITS + 1) * (b_bits // INT_DIGIT_BITS + 1) // INT_DIGIT_PRODUCTS_PER_STEP


_TEXT_CHEAP = 1 << 1000  # ints below this convert to text in about a step


def int_text_work(value: Any) -> int:
    """The steps of converting an int to decimal text (quadratic in its size in CPython): 0 for
    ints below a few hundred digits."""
    if type(value) is not int:
        return 0
    bits = value.bit_length()
    return 2 * int_product_work(bits, bits) if bits > 1000 else 0


def modular_pow_work(exponent: int, modulus: int) -> int:
    """The steps of `pow(b, e, m)`: one multiplication and one reduction modulo `m` per bit of `e`."""
    bits = abs(modulus).bit_length()
    return abs(exponent).bit_length() * 2 * int_product_work(bits, bits)


_CONTAINERS = frozenset({list, tuple, dict, OrderedSet, FrozenSet, ReadOnlyMapping, range, *CONTAINER_TYPES, *VIEW_TYPES})


LONG_TEXT = CHARS_PER_STEP  # characters of a string that its item charge already pays for


def long_text_size(strings: Any) -> int:
    """The walk size (in items, like `expanded_size`) of the characters of `strings` past the
    first `LONG_TEXT` of each: C compares, copies or hashes every character, so a list holding
    one 16 MiB string a million times is 16 TiB of work, not a million items."""
    extra = sum(map(len, strings)) - LONG_TEXT * len(strings)
    return extra // (CHARS_PER_STEP // ITEMS_PER_STEP) if extra > 0 else 0


def work(value: Any) -> int:
    """The steps an operation that reads all of `value` costs (0 for scalars)."""
    kind = type(value)
    if kind is str:
        return len(value) // CHARS_PER_STEP
    if kind in _CONTAINERS:
        return len(value) // ITEMS_PER_STEP
    return 0


def method_work(receiver: Any, args: Any) -> int:
    """The steps of a method that reads its receiver and its arguments (`''.join(pieces)`,
    `set().isdisjoint(big)`, `s.count(sub)`). A set's methods visit items in Python code, a few
    times dearer than C."""
    steps = work(receiver) + sum(map(work, args)) if args else work(receiver)
    return steps * 4 if type(receiver) is OrderedSet else steps


# ---------------------------------------------------------------- sizes


def check_string(value: str, limits: Limits) -> str:
    # len() counts code points; a code point takes at most 4 bytes, so only long strings pay
    # for an exact UTF-8 size.
    if len(value) * 4 > limits.string_bytes and len(value.encode("utf-8", "surrogatepass")) > limits.string_bytes:
        raise limit_error("string_bytes", limits)
    return value


def check_items(value: Any, limits: Limits) -> Any:
    if len(value) > limits.items:
        raise limit_error("items", limits)
    return value


_TUPLES = frozenset({tuple, NamedTupleValue, FrozenSet})


def check_tuple(value: tuple, limits: Limits) -> tuple:
    """Nested tuples stay hashable in bounded time and C stack. CPython hashes and compares a
    tuple by recursing through its tuple items in C, with no depth guard for hashing, and a
    tuple that holds one tuple twice at every level (`t = (t, t)` 64 times) is tiny in memory
    but has 2**64 paths. So a tuple may nest at most `Limits.recursion` deep and count at most
    `Limits.items` items through all its paths. Only tuples with tuple (or frozenset) items are
    walked, each distinct tuple once."""
    if not any(type(item) in _TUPLES for item in value):
        return value
    _check_hashable_nesting(value, limits)
    return value


def check_frozenset(value: FrozenSet, limits: Limits) -> FrozenSet:
    """A frozenset is a hashable container too: equal frozensets are compared item by item in C
    when one is looked up in a dict or set, so they are bounded like tuples (`check_tuple`)."""
    check_items(value, limits)
    if value.measured is None and any(type(item) in _TUPLES for item in value):
        _check_hashable_nesting(value, limits)
    return value


def _check_hashable_nesting(value: Any, limits: Limits) -> None:
    measured: dict[int, tuple[int, int]] = {}  # id -> (items through all paths, height)

    def measure(node: Any) -> tuple[int, int]:
        known = node.measured if type(node) is FrozenSet else measured.get(id(node))
        if known is not None:
            return known
        size, height = len(node), 1
        for item in node:
            if type(item) in _TUPLES:
                inner_size, inner_height = measure(item)
                size += inner_size
                height = max(height, inner_height + 1)
                if size > limits.items:
                    raise FatalError("LimitExceeded", f"the {Limits.NAMES['items']} ({limits.items:,}) was exceeded by "
                                     "the items of nested tuples and frozensets")
        if type(node) is FrozenSet:
            node.measured = (size, height)  # immutable: measured once for every later check
        else:
            measured[id(node)] = (size, height)
        return size, height

    # Every tuple and frozenset was checked when it was made, so the recursion is at most one
    # level deeper than the limit allows before the height check below refuses it.
    _, height = measure(value)
    if height > limits.recursion:
        raise FatalError("LimitExceeded", f"the {Limits.NAMES['recursion']} ({limits.recursion:,}) was exceeded by tuples "
                         f"or frozensets nested more than {limits.recursion:,} deep")


# Containers that C code walks item by item when it compares, renders or encodes a value.
# The types whose values can hold other values (walked by `expanded_size` and the comparisons).
NESTABLE = frozenset({list, tuple, dict, OrderedSet, FrozenSet, ReadOnlyMapping, Record, slice, *CONTAINER_TYPES,
                       *VIEW_TYPES})
_DICTS = frozenset({dict, ReadOnlyMapping, *DICT_TYPES})
VIEW_CLASSES = frozenset(VIEW_TYPES)


def expanded_size(value: Any, cap: int) -> int:
    """How many values a walk of `value` in C visits (comparing, sorting, rendering, encoding):
    every item of every container through all paths, so a container reachable twice counts
    twice. Aliasing makes that exponential in memory (`a = [a, a]` 60 times is 61 small lists
    and 2**61 paths) and C code has no step counter, so operations that walk values charge this
    size first. Each distinct container is measured once and counting stops past `cap`; a
    container inside itself counts once there (C stops at it: `[...]`, or a RecursionError)."""
    if type(value) not in NESTABLE:
        return 1
    sizes: dict[int, int] = {}

    def measure(node: Any) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        sizes[id(node)] = 1
        if type(node) is Record:
            items = list(node.fields.values())
        elif type(node) in _DICTS:
            items = [*node.keys(), *node.values()]
        elif type(node) is slice:
            items = [node.start, node.stop, node.step]
        elif type(node) in VIEW_CLASSES:  # what the view shows of its dict (an items view: keys and values)
            backing = node.backing
            items = [*backing] if type(node) is DictKeysView else [*backing.values()] if type(node) is DictValuesView \
                else [*backing, *backing.values()]
        else:
            items = node
        total = 1 + len(items)
        kinds = set(map(type, items))  # in C: flat containers cost one pass
        if str in kinds:  # C compares or copies every character of a long string it meets
            total += long_text_size(items if len(kinds) == 1 else [i for i in items if type(i) is str])
        if not NESTABLE.isdisjoint(kinds):
            for item in items:
                if type(item) in NESTABLE:
                    total += measure(item) - 1
                    if total > cap:
                        break
        sizes[id(node)] = total = min(total, cap + 1)
        return total

    return measure(value)  # data nested past the recursion limit: RecursionError, as a walk in C would


def charge_walk(limits: Limits | RunLimits, *values: Any, times: int = 1) -> None:
    """Charge the steps of C code walking `values` `times` over (see `expanded_size`); a value
    too large to walk within the remaining steps is refused before C starts."""
    if type(limits) is not RunLimits:
        return
    cap = max(0, (limits.steps - limits.counter.steps) * ITEMS_PER_STEP)
    total = 0
    for value in values:
        total += expanded_size(value, cap) * times
        if total > cap:
            break
    charge(limits, total // ITEMS_PER_STEP if total <= cap else limits.steps + 1)


# Keys that C hashes item by item at every lookup or store: CPython caches the hash of a str
# and of a frozenset, never a tuple's, and a hit on an equal frozenset (not the same object)
# compares it item by item. A 100,000-item tuple as a dict key is 100,000 items of work per
# `d[k]`, so such lookups are charged the key's walk (`expanded_size`: nested tuples through
# every path). A flat key of at most a step's items costs about a step: not walked.
HASHED_BY_WALK = _TUPLES


def charge_key(limits: Limits | RunLimits, key: Any) -> None:
    """Charge hashing `key` once (a subscript, a store, `in`, a set or dict method)."""
    if type(key) in _TUPLES and (len(key) > ITEMS_PER_STEP or not _TUPLES.isdisjoint(map(type, key))):
        charge_walk(limits, key)


def charge_keys(limits: Limits | RunLimits, keys: Any) -> None:
    """Charge hashing every key of `keys` (the items that fill a set or a dict's keys): a
    sequence's; a set or dict hands its stored hashes on."""
    if type(keys) in _SIZED_KEYS and not _TUPLES.isdisjoint(map(type, keys)):
        for key in keys:
            charge_key(limits, key)


_SIZED_KEYS = frozenset({list, tuple, NamedTupleValue, DequeValue})  # a set or dict hands its hashes on


def walked_key(limits: Limits | RunLimits, key: Any, times: int) -> Any:
    """`key` for C code that compares the key results (`sorted`, `list.sort`, `min`, `max`):
    each result is charged the walk of `times` comparisons before C compares it (a deeply
    aliased list as a key would walk 2**60 paths in one step). None stays None."""
    if key is None:
        return None

    def walked(item):
        result = key(item)
        kind = type(result)
        if kind in NESTABLE:
            charge_walk(limits, result, times=times)
        elif kind is str:
            charge(limits, work(result) * times)
        return result
    return walked


def limit_error(name: str, limits: Limits) -> FatalError:
    amount = getattr(limits, name)
    shown = f"{amount:,}" if isinstance(amount, int) else f"{amount}"
    return FatalError("LimitExceeded", f"the {Limits.NAMES[name]} ({shown}) was exceeded")


def check_value(value: Any, limits: Limits) -> Any:
    kind = type(value)
    if kind is str:
        return check_string(value, limits)
    if kind is FrozenSet:
        return check_frozenset(value, limits)
    if kind in (list, dict, tuple, OrderedSet) or kind in CONTAINER_TYPES:
        return check_items(value, limits)
    return value


# ---------------------------------------------------------------- integers


def check_int(value: Any, limits: Limits) -> Any:
    """Integers that arithmetic produces stay within `Limits.pow_bits` bits (LANGUAGE §4): `**`,
    `*`, `<<` are checked before they compute, `+`/`-` after (they add at most one bit)."""
    if type(value) is int and value.bit_length() > limits.pow_bits:
        raise limit_error("pow_bits", limits)
    return value


FORMAT_NUMBER = re.compile(r"\d+")


def format_value(value: Any, spec: str, limits: Limits) -> str:
    """`format(value, spec)` for f-strings, with widths and precisions bounded."""
    for number in FORMAT_NUMBER.findall(spec):
        if len(number) > 9 or int(number) > limits.string_bytes:
            raise limit_error("string_bytes", limits)
    if not isinstance(value, (str, int, float, bool)) and value is not None:
        if spec and type(value) in _DATA_TYPES:
            raise ScriptError("TypeError", f"unsupported format string passed to {type_name(value)}.__format__")
        if spec:
            raise ScriptError("TypeError", f"format spec {spec!r} cannot be applied to {type_name(value)}")
        return display(value, limits)
    charge(limits, int_text_work(value))
    text = check_string(format(value, spec), limits)
    charge(limits, work(text))
    return text


# Plain data whose `format` with a spec fails with CPython's message.
_DATA_TYPES = frozenset({list, tuple, dict, ReadOnlyMapping, OrderedSet, FrozenSet, range, slice, *VIEW_TYPES})
_DEFAULT_LIMITS = Limits()


def display(value: Any, limits: Limits | None = None) -> str:
    """`str(value)` as a script sees it."""
    kind = type(value)
    if kind is str:
        return value
    if kind is int or kind is float or kind is bool or value is None:
        if kind is int and limits is not None and (value >= _TEXT_CHEAP or value <= -_TEXT_CHEAP):
            charge(limits, int_text_work(value))
        return repr(value)
    if isinstance(value, ScriptError):
        return value.message
    return dwf_repr(value, limits)


def dwf_repr(value: Any, limits: Limits | None = None) -> str:
    """`repr(value)`: Python's form for plain data, DWF's for everything else; never an address.
    A container that contains itself shows `[...]` / `{...}` as in CPython. The text is built
    piece by piece within the string size limit (a list holding one big string a million times
    is refused, not rendered)."""
    kind = type(value)
    if kind is int or kind is float or kind is bool or value is None:
        if kind is int and limits is not None and (value >= _TEXT_CHEAP or value <= -_TEXT_CHEAP):
            charge(limits, int_text_work(value))  # decimal text of a big int is quadratic work
        return repr(value)  # the common case (ints stay within the bit limit)
    limits = limits or _DEFAULT_LIMITS
    if expanded_size(value, limits.string_bytes) > limits.string_bytes:  # every value shows as a character or more
        raise limit_error("string_bytes", limits)
    out: list[str] = []
    budget = [limits.string_bytes]
    _repr_into(value, out, set(), budget, limits)
    text = "".join(out)
    charge(limits, len(out) // 2 + work(text))  # about two pieces per value visited, in Python
    return text


def _repr_into(value: Any, out: list, seen: set, budget: list, limits: Limits) -> None:
    def put(text: str) -> None:
        budget[0] -= len(text)
        if budget[0] < 0:
            raise limit_error("string_bytes", limits)
        out.append(text)

    if isinstance(value, (str, int, float, bool)) or value is None:
        if type(value) is int and (value >= _TEXT_CHEAP or value <= -_TEXT_CHEAP):
            charge(limits, int_text_work(value))
        put(repr(value))
    elif isinstance(value, CONTAINER_TYPES):
        if id(value) in seen:
            put(value.recursive_text)
            return
        seen.add(id(value))
        for kind, part in value.repr_parts():
            if kind == "text":
                put(part)
            else:
                _repr_into(part, out, seen, budget, limits)
        seen.discard(id(value))
    elif isinstance(value, (list, tuple, dict, OrderedSet)):
        if id(value) in seen:
            put("[...]" if isinstance(value, list) else "(...)" if isinstance(value, tuple) else "{...}")
            return
        if isinstance(value, OrderedSet) and not value:
            put("set()")
            return
        seen.add(id(value))
        opening, closing = {list: "[]", tuple: "()", dict: "{}"}.get(type(value), "{}")
        put(opening)
        for index, item in enumerate(value.items() if isinstance(value, dict) else value):
            if index:
                put(", ")
            if isinstance(value, dict):
                _repr_into(item[0], out, seen, budget, limits)
                put(": ")
                item = item[1]
            _repr_into(item, out, seen, budget, limits)
        if isinstance(value, tuple) and len(value) == 1:
            put(",")
        put(closing)
        seen.discard(id(value))
    elif type(value) is FrozenSet:
        if not value:
            put("frozenset()")
            return
        put("frozenset(")
        _repr_into(value.items, out, seen, budget, limits)
        put(")")
    elif type(value) is slice:
        put("slice(")
        for index, part in enumerate((value.start, value.stop, value.step)):
            put(", " if index else "")
            _repr_into(part, out, seen, budget, limits)
        put(")")
    elif type(value) in VIEW_CLASSES:
        if id(value) in seen:  # a view inside its own dict: CPython shows `...`
            put("...")
            return
        seen.add(id(value))
        put(value.type_name + "([")
        for index, item in enumerate(value):
            if index:
                put(", ")
            _repr_into(item, out, seen, budget, limits)
        put("])")
        seen.discard(id(value))
    elif isinstance(value, range):
        put(f"range({value.start}, {value.stop})" if value.step == 1 else f"range({value.start}, {value.stop}, {value.step})")
    elif isinstance(value, ScriptError):
        put(f"{value.type_name.rpartition('.')[2]}(")  # `re.error` shows as `error(...)`, as in CPython
        for index, arg in enumerate(value.args_value):
            put(", " if index else "")
            _repr_into(arg, out, seen, budget, limits)
        put(")")
    elif isinstance(value, Record):
        put(f"{value.type_name}(")
        for index, (name, field) in enumerate(value.fields.items()):
            put(f"{', ' if index else ''}{name}=")
            _repr_into(field, out, seen, budget, limits)
        put(")")
    elif isinstance(value, (ScriptFunction, LazyAwaitable, ActorHandle, Module, BuiltinFunction, BoundMethod,
                            UnboundMethod, ExceptionType, Facade, ScriptObject, DwfIterator)):
        put(repr(value))
    else:
        put(f"<{type_name(value)}>")


# ---------------------------------------------------------------- JSON


def to_json(value: Any, what: str = "value", limits: Limits | None = None) -> Any:
    """Convert a script value to JSON data (records to objects, tuples to lists), or raise. The
    JSON text it stands for must fit the string size limit (a list that repeats one big string
    a million times is tiny in memory and enormous as JSON)."""
    limits = limits or _DEFAULT_LIMITS
    if expanded_size(value, limits.string_bytes) > limits.string_bytes:  # every value is a character or more of JSON
        raise FatalError("LimitExceeded", f"the {what} is larger than the {Limits.NAMES['string_bytes']} "
                         f"({limits.string_bytes:,}) as JSON")
    budget = [limits.string_bytes]
    nodes = [0]
    data = _to_json(value, what, 0, budget, nodes)
    charge(limits, nodes[0] + (limits.string_bytes - budget[0]) // CHARS_PER_STEP)
    if budget[0] < 0:
        raise FatalError("LimitExceeded", f"the {what} is larger than the {Limits.NAMES['string_bytes']} "
                         f"({limits.string_bytes:,}) as JSON")
    return data


def _to_json(value: Any, what: str, depth: int, budget: list, nodes: list) -> Any:
    nodes[0] += 1
    if depth > 200:
        raise ScriptError("ValueError", f"the {what} is nested too deeply to be JSON")
    if budget[0] < 0:
        return None  # already too big: stop converting, the caller raises
    if isinstance(value, str):
        budget[0] -= len(value) + 2
        return value
    if value is None or isinstance(value, (bool, int)):
        if type(value) is int and (value >= _TEXT_CHEAP or value <= -_TEXT_CHEAP):
            nodes[0] += int_text_work(value)  # charged with the nodes: decimal text of a big int
        budget[0] -= 5 if not isinstance(value, int) or isinstance(value, bool) else value.bit_length() // 3 + 2
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ScriptError("ValueError", f"the {what} contains a non-finite float ({value}), which is not JSON")
        budget[0] -= 24
        return value
    if isinstance(value, (list, tuple)):
        budget[0] -= 2 + 2 * len(value)
        return [_to_json(v, what, depth + 1, budget, nodes) for v in value]
    if isinstance(value, dict):
        budget[0] -= 2 + 4 * len(value)
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ScriptError("TypeError", f"the {what} has a non-string dict key {dwf_repr(key)}; JSON keys are strings")
            budget[0] -= len(key)
            out[key] = _to_json(item, what, depth + 1, budget, nodes)
        return out
    if isinstance(value, Record):
        return _to_json(value.to_json(), what, depth + 1, budget, nodes)
    if isinstance(value, DictView):
        raise ScriptError("TypeError", f"the {what} contains a {value.type_name} view, which is not JSON data; "
                          f"make it a list first: `list(d.{value.type_name.removeprefix('dict_')}())`")
    raise ScriptError("TypeError", f"the {what} contains {type_name(value)} ({dwf_repr(value)}), which is not JSON data")


FACADE_CONTAINERS = tuple(F.CONTAINERS)
