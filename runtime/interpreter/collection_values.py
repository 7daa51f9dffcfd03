"""This module defines the values of the `collections` module as scripts hold them: `Counter`,
`defaultdict` and `OrderedDict` (dicts, as in CPython, so `isinstance(c, dict)` is true and every
dict operation works on them), `deque`, the types `namedtuple` makes and their instances, and
`NativeType`, the script value of such a type (callable like a builtin, usable in `isinstance`).

Only their data behaviour lives here: item access, operators, equality, iteration and how they
render (`repr_parts`, walked by the sandbox's `repr` within the size limit). The methods scripts
call are in `collections_module.py`; the sandbox hands out nothing but what `script_attribute`
allows (`grammar/builtins.py` METHODS). Operators that build or grow a value charge the run
through the value's `meter` (made by `collections_module.py` for the run: `charge(steps)` and
`check(container)`), because the interpreter's operators and unary minus do not pass limits to
Python's operator protocol.

The semantics are CPython 3.11's (`Lib/collections/__init__.py`), written out here so that
every value stays one of DWF's own types; `OrderedDict` keeps its order in the dict itself
(`move_to_end` re-inserts), so dict views and iteration need nothing of their own."""

from __future__ import annotations

import collections
from typing import Any, Callable, Iterator

from dwf.grammar import builtins as B

from dwf.runtime.values.errors import ScriptError
from dwf.runtime.values.objects import BoundMethod, BuiltinFunction, NativeValue, type_name

# Python code visits about this many items in the time of one step.
PYTHON_ITEMS_PER_STEP = 4


def attribute_error(type_label: str, attr: str) -> ScriptError:
    return ScriptError("AttributeError", f"'{type_label}' object has no attribute '{attr}'")


class _Methods(NativeValue):
    """Attribute access through the allow-list: a method of the type's table, bound (its
    implementation is chosen by `collections_module.call_native_method` when called)."""

    __slots__ = ()
    # Methods inherited from dict and run by the plain dict path of `calls.call_method`.
    DICT_METHODS: frozenset[str] = frozenset()

    def script_attribute(self, attr: str) -> Any:
        if attr in B.METHODS[self.type_label]:
            if attr in self.DICT_METHODS:
                return BoundMethod(self, attr, getattr(self, attr))
            return BoundMethod(self, attr, None)
        raise attribute_error(self.type_label, attr)


def _dict_parts(pairs, opening: str = "{", closing: str = "}") -> Iterator[tuple[str, Any]]:
    yield "text", opening
    for index, (key, value) in enumerate(pairs):
        if index:
            yield "text", ", "
        yield "value", key
        yield "text", ": "
        yield "value", value
    yield "text", closing


# ---------------------------------------------------------------- Counter


class CounterValue(dict, _Methods):
    """`collections.Counter`: a dict of counts where a missing key reads as 0."""

    __slots__ = ("meter",)
    type_label = "Counter"
    DICT_METHODS = frozenset({"clear", "get", "items", "keys", "pop", "popitem", "setdefault", "values"})
    recursive_text = "{...}"

    def __init__(self, meter: Any):
        super().__init__()
        self.meter = meter

    def __missing__(self, key):
        return 0

    def _new(self) -> CounterValue:
        return CounterValue(self.meter)

    def _charge(self, *others) -> None:
        self.meter.charge((len(self) + sum(len(o) for o in others)) // PYTHON_ITEMS_PER_STEP)

    def sorted_items(self) -> list:
        """`most_common()`: by count, largest first, ties in insertion order."""
        self.meter.charge(len(self) * max(1, len(self).bit_length()) // PYTHON_ITEMS_PER_STEP)
        return sorted(self.items(), key=lambda item: item[1], reverse=True)

    def repr_parts(self):
        if not self:
            yield "text", "Counter()"
            return
        try:
            pairs = self.sorted_items()
        except TypeError:  # counts that do not order: insertion order, as CPython
            pairs = list(self.items())
        yield "text", "Counter("
        yield from _dict_parts(pairs)
        yield "text", ")"

    # Comparisons treat missing counts as zero (CPython 3.10+).
    def __eq__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        self._charge(other)
        return all(self[e] == other[e] for c in (self, other) for e in c)

    def __ne__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        return not self == other

    def __le__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        self._charge(other)
        return all(self[e] <= other[e] for c in (self, other) for e in c)

    def __lt__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        return self <= other and self != other

    def __ge__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        self._charge(other)
        return all(self[e] >= other[e] for c in (self, other) for e in c)

    def __gt__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        return self >= other and self != other

    __hash__ = None

    def __add__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        self._charge(other)
        result = self._new()
        for elem, count in self.items():
            newcount = count + other[elem]
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count > 0:
                result[elem] = count
        return self.meter.check(result)

    def __sub__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        self._charge(other)
        result = self._new()
        for elem, count in self.items():
            newcount = count - other[elem]
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count < 0:
                result[elem] = 0 - count
        return self.meter.check(result)

    def __or__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        self._charge(other)
        result = self._new()
        for elem, count in self.items():
            other_count = other[elem]
            newcount = other_count if count < other_count else count
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count > 0:
                result[elem] = count
        return self.meter.check(result)

    def __and__(self, other):
        if not isinstance(other, CounterValue):
            return NotImplemented
        self._charge(other)
        result = self._new()
        for elem, count in self.items():
            other_count = other[elem]
            newcount = count if count < other_count else other_count
            if newcount > 0:
                result[elem] = newcount
        return result

    def __pos__(self):
        self._charge()
        result = self._new()
        for elem, count in self.items():
            if count > 0:
                result[elem] = count
        return result

    def __neg__(self):
        self._charge()
        result = self._new()
        for elem, count in self.items():
            if count < 0:
                result[elem] = 0 - count
        return result

    def _keep_positive(self):
        nonpositive = [elem for elem, count in self.items() if not count > 0]
        for elem in nonpositive:
            del self[elem]
        return self.meter.check(self)

    # In place, as CPython: aliases see the change; the right operand may be any mapping.
    def __iadd__(self, other):
        self._charge(_sized(other))
        for elem, count in _pairs(other):
            self[elem] += count
        return self._keep_positive()

    def __isub__(self, other):
        self._charge(_sized(other))
        for elem, count in _pairs(other):
            self[elem] -= count
        return self._keep_positive()

    def __ior__(self, other):
        self._charge(_sized(other))
        for elem, other_count in _pairs(other):
            count = self[elem]
            if other_count > count:
                self[elem] = other_count
        return self._keep_positive()

    def __iand__(self, other):
        self._charge(_sized(other))
        for elem, count in self.items():
            other_count = other[elem]
            if other_count < count:
                self[elem] = other_count
        return self._keep_positive()


def _sized(value) -> Any:
    return value if hasattr(value, "__len__") else ()


def _pairs(mapping):
    if not isinstance(mapping, dict):
        raise ScriptError("AttributeError", f"'{type_name(mapping)}' object has no attribute 'items'")
    return list(mapping.items())


# ---------------------------------------------------------------- defaultdict


class DefaultDictValue(dict, _Methods):
    """`collections.defaultdict`: a missing key is filled by calling `factory` (a script value;
    `make_default` runs it through the interpreter with the run's limits)."""

    __slots__ = ("factory", "make_default", "meter")
    type_label = "defaultdict"
    DICT_METHODS = frozenset({"clear", "get", "items", "keys", "pop", "popitem", "setdefault", "update", "values"})
    recursive_text = "{...}"

    def __init__(self, factory: Any, make_default: Callable[[], Any] | None, meter: Any):
        super().__init__()
        self.factory, self.make_default, self.meter = factory, make_default, meter

    def __missing__(self, key):
        if self.make_default is None:
            raise KeyError(key)
        value = self.make_default()
        self[key] = value
        self.meter.check(self)
        return value

    def copy_value(self) -> DefaultDictValue:
        result = DefaultDictValue(self.factory, self.make_default, self.meter)
        result.update(self)
        return result

    def __or__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        result = self.copy_value()
        result.update(other)
        return self.meter.check(result)

    def __ror__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        result = DefaultDictValue(self.factory, self.make_default, self.meter)
        result.update(other)
        result.update(self)
        return self.meter.check(result)

    def script_attribute(self, attr: str) -> Any:
        if attr == "default_factory":
            return self.factory
        return super().script_attribute(attr)

    def repr_parts(self):
        yield "text", f"defaultdict({type_text(self.factory)}"
        yield "text", ", "
        yield from _dict_parts(self.items())
        yield "text", ")"


# ---------------------------------------------------------------- OrderedDict


class OrderedDictValue(dict, _Methods):
    """`collections.OrderedDict`: a dict whose equality with another OrderedDict is
    order-sensitive, with `move_to_end` and `popitem(last=)`."""

    __slots__ = ("meter",)
    type_label = "OrderedDict"
    DICT_METHODS = frozenset({"clear", "get", "items", "keys", "pop", "setdefault", "update", "values"})
    recursive_text = "{...}"

    def __init__(self, meter: Any):
        super().__init__()
        self.meter = meter

    def copy_value(self) -> OrderedDictValue:
        result = OrderedDictValue(self.meter)
        result.update(self)
        return result

    def __eq__(self, other):
        if isinstance(other, OrderedDictValue):
            return dict.__eq__(self, other) and list(self) == list(other)
        return dict.__eq__(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None

    def __or__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        result = self.copy_value()
        result.update(other)
        return self.meter.check(result)

    def __ror__(self, other):
        if not isinstance(other, dict):
            return NotImplemented
        result = OrderedDictValue(self.meter)
        result.update(other)
        result.update(self)
        return self.meter.check(result)

    def __ior__(self, other):
        self.update(other)
        return self.meter.check(self)

    def repr_parts(self):
        if not self:
            yield "text", "OrderedDict()"
            return
        yield "text", "OrderedDict(["
        for index, pair in enumerate(self.items()):
            if index:
                yield "text", ", "
            yield "value", pair
        yield "text", "])"


# ---------------------------------------------------------------- deque


class DequeValue(collections.deque, _Methods):
    """`collections.deque`, with `maxlen`; repetition and concatenation are size-checked."""

    __slots__ = ("meter",)
    type_label = "deque"
    recursive_text = "[...]"

    def __init__(self, items=(), maxlen: int | None = None, meter: Any = None):
        super().__init__(items, maxlen)
        self.meter = meter

    def __iter__(self):
        try:
            yield from collections.deque.__iter__(self)
        except RuntimeError:
            raise ScriptError("RuntimeError", "deque mutated during iteration") from None

    def __reversed__(self):
        try:
            yield from collections.deque.__reversed__(self)
        except RuntimeError:
            raise ScriptError("RuntimeError", "deque mutated during iteration") from None

    def copy_value(self) -> DequeValue:
        self.meter.charge(len(self) // 16)
        return DequeValue(collections.deque.__iter__(self), self.maxlen, self.meter)

    def __add__(self, other):
        if not isinstance(other, collections.deque):
            raise ScriptError("TypeError", f'can only concatenate deque (not "{type_name(other)}") to deque')
        result = self.copy_value()
        result += other
        return result

    def __iadd__(self, other):
        self.meter.precheck(len(self) + len(_sized(other)) if self.maxlen is None else 0)
        if isinstance(other, DequeValue):
            other = list(collections.deque.__iter__(other))
        collections.deque.extend(self, self.meter.bounded(other) if self.maxlen is None else other)
        self.meter.charge(len(_sized(other)) // 16)
        return self

    def __mul__(self, count):
        if type(count) is not int:
            return NotImplemented
        result = self.copy_value()
        result *= count
        return result

    __rmul__ = __mul__

    def __imul__(self, count):
        if type(count) is not int:
            return NotImplemented
        size = len(self) * max(count, 0)
        self.meter.precheck(size if self.maxlen is None else min(size, self.maxlen))
        collections.deque.__imul__(self, count)
        self.meter.charge(len(self) // 16)
        return self

    def __copy__(self):
        return self.copy_value()

    def repr_parts(self):
        yield "text", "deque(["
        for index, item in enumerate(collections.deque.__iter__(self)):
            if index:
                yield "text", ", "
            yield "value", item
        yield "text", "]" if self.maxlen is None else f"], maxlen={self.maxlen}"
        yield "text", ")"

    def script_attribute(self, attr: str) -> Any:
        if attr == "maxlen":
            return self.maxlen
        return super().script_attribute(attr)


# ---------------------------------------------------------------- namedtuple


class NativeType(BuiltinFunction, NativeValue):
    """The script value of a type a standard module offers (`Counter`, `deque`, a namedtuple
    type): called like a builtin (`fn(interp, args, kwargs)`), usable in `isinstance`, shown as
    CPython shows a class."""

    __slots__ = ("instances", "qualified")
    type_label = "type"

    def __init__(self, name: str, fn: Callable, instances: type, qualified: str):
        super().__init__(name, fn)
        self.instances, self.qualified = instances, qualified

    def holds(self, value: Any) -> bool:
        return isinstance(value, self.instances)

    def script_attribute(self, attr: str) -> Any:
        raise ScriptError("AttributeError", f"type object '{self.name}' has no attribute '{attr}'")

    def __repr__(self) -> str:
        return f"<class '{self.qualified}'>"


class NamedTupleType(NativeType):
    """A type made by `namedtuple(name, fields, defaults=...)`."""

    __slots__ = ("fields", "defaults")

    def __init__(self, name: str, fn: Callable, fields: tuple, defaults: dict):
        super().__init__(name, fn, NamedTupleValue, f"__main__.{name}")
        self.fields, self.defaults = fields, defaults

    def holds(self, value: Any) -> bool:
        return isinstance(value, NamedTupleValue) and value.kind is self

    def script_attribute(self, attr: str) -> Any:
        if attr == "_fields":
            return self.fields
        if attr == "_field_defaults":
            return dict(self.defaults)
        if attr == "_make":
            return BoundMethod(self, "_make", None)
        return super().script_attribute(attr)


class NamedTupleValue(tuple, _Methods):
    """An instance of a namedtuple type: a tuple whose items also have names."""

    recursive_text = "(...)"

    @property
    def type_label(self) -> str:  # messages name the type, as CPython's do
        return self.kind.name

    def __new__(cls, items, kind: NamedTupleType):
        value = super().__new__(cls, items)
        value.kind = kind
        return value

    def script_attribute(self, attr: str) -> Any:
        fields = self.kind.fields
        if attr in fields:
            return self[fields.index(attr)]
        if attr == "_fields":
            return fields
        if attr in B.NAMEDTUPLE_METHODS:
            return BoundMethod(self, attr, getattr(self, attr) if attr in ("count", "index") else None)
        raise attribute_error(self.kind.name, attr)

    def repr_parts(self):
        yield "text", f"{self.kind.name}("
        for index, (name, item) in enumerate(zip(self.kind.fields, self)):
            yield "text", f"{', ' if index else ''}{name}="
            yield "value", item
        yield "text", ")"


# Builtins that CPython shows as classes (`defaultdict(<class 'list'>, {})`).
TYPE_BUILTINS = frozenset({"list", "dict", "set", "frozenset", "int", "float", "str", "tuple", "bool"})


def type_text(factory: Any) -> str:
    """How a defaultdict's repr names its factory: CPython's text for types and builtins;
    DWF's own repr for a script function (CPython's would show its address)."""
    if factory is None:
        return "None"
    if type(factory) is BuiltinFunction and factory.name in TYPE_BUILTINS:
        return f"<class '{factory.name}'>"
    return repr(factory)  # a DWF value type's repr: never an address


# Python's messages name these classes; scripts see CPython's names (sandbox.python_message).
INTERNAL_NAMES = {"CounterValue": "Counter", "DefaultDictValue": "collections.defaultdict",
                  "OrderedDictValue": "collections.OrderedDict", "DequeValue": "collections.deque",
                  "NamedTupleValue": "tuple", "NativeType": "type", "NamedTupleType": "type"}
DICT_TYPES = (CounterValue, DefaultDictValue, OrderedDictValue)
CONTAINER_TYPES = (CounterValue, DefaultDictValue, OrderedDictValue, DequeValue, NamedTupleValue)
