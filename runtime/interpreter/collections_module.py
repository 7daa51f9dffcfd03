"""This module defines the `collections` module of DWF scripts: the constructors `Counter`,
`defaultdict`, `OrderedDict`, `deque` and `namedtuple`, and the methods of the values they make
(`call_native_method`, which `calls.call_method` uses for them). The values themselves are in
`collection_values.py`.

Every constructor and method is bounded by the run's limits: what a value copies or scans is
charged as steps, what it grows is checked against the item limit (a lazy source is cut off as
soon as it passes), and a defaultdict's factory runs as a script call, nested at most
`Limits.recursion` deep through other factories."""

from __future__ import annotations

import collections
import heapq
import itertools
import keyword
from typing import Any

from dwf.runtime.interpreter.collection_values import (PYTHON_ITEMS_PER_STEP, CounterValue, DefaultDictValue, DequeValue, NamedTupleType,
                                NamedTupleValue, NativeType, OrderedDictValue)
from dwf.runtime.values.errors import ScriptError
from dwf.runtime.interpreter.module_support import Meter, bounded_items, callback, is_callable, materialize
from dwf.runtime.interpreter.sandbox import charge, charge_keys, charge_walk, check_tuple, display, iterable, limit_error, work
from dwf.runtime.values.objects import BuiltinFunction, DwfIterator


class _FactoryDepth:
    """How deeply defaultdict factories are nested right now, in one run."""

    __slots__ = ("depth",)

    def __init__(self):
        self.depth = 0


def _fill(interp, target: dict, args: list, kwargs: dict, name: str) -> None:
    """`dict(*args, **kwargs)` into `target`, as dict.update does (with its messages)."""
    if len(args) > 1:
        raise ScriptError("TypeError", f"{name} expected at most 1 argument, got {len(args)}")
    if args:
        source = args[0]
        if isinstance(source, dict):
            charge(interp.limits, work(source))
            dict.update(target, source)
        else:
            dict.update(target, materialize(interp, source))
    if kwargs:
        dict.update(target, kwargs)
    Meter(interp.limits).check(target)


# ---------------------------------------------------------------- Counter


def _count_into(interp, counter: CounterValue, source: Any) -> None:
    """Count the items of `source` into `counter` (Counter.update with an iterable)."""
    limits = interp.limits
    source = iterable(source)
    if type(source) is not DwfIterator:
        charge(limits, len(source) // PYTHON_ITEMS_PER_STEP)
        charge_keys(limits, source)
        get = counter.get
        for elem in source:
            counter[elem] = get(elem, 0) + 1
    else:
        get = counter.get
        for elem in source:  # a lazy source charges its own items
            counter[elem] = get(elem, 0) + 1
            if len(counter) > limits.items:
                raise limit_error("items", limits)
    counter.meter.check(counter)


def counter_update(interp, counter: CounterValue, args: list, kwargs: dict, name: str = "update") -> None:
    if len(args) > 1:
        raise ScriptError("TypeError", f"{name}() takes from 1 to 2 positional arguments but {len(args) + 1} were given")
    source = args[0] if args else None
    if source is not None:
        if isinstance(source, dict):
            charge(interp.limits, len(source) // PYTHON_ITEMS_PER_STEP)
            if counter:
                get = counter.get
                for elem, count in source.items():
                    counter[elem] = count + get(elem, 0)
            else:
                dict.update(counter, source)
            counter.meter.check(counter)
        else:
            _count_into(interp, counter, source)
    if kwargs:
        counter_update(interp, counter, [kwargs], {}, name)


def counter_subtract(interp, counter: CounterValue, args: list, kwargs: dict) -> None:
    if len(args) > 1:
        raise ScriptError("TypeError", f"subtract() takes from 1 to 2 positional arguments but {len(args) + 1} were given")
    source = args[0] if args else None
    if source is not None:
        get = counter.get
        if isinstance(source, dict):
            charge(interp.limits, len(source) // PYTHON_ITEMS_PER_STEP)
            for elem, count in source.items():
                counter[elem] = get(elem, 0) - count
        else:
            for elem in bounded_items(source, interp.limits):
                counter[elem] = get(elem, 0) - 1
                if len(counter) > interp.limits.items:
                    raise limit_error("items", interp.limits)
    if kwargs:
        counter_subtract(interp, counter, [kwargs], {})


def make_counter(interp, args, kwargs) -> CounterValue:
    if len(args) > 1:
        raise ScriptError("TypeError", f"Counter.__init__() takes from 1 to 2 positional arguments but {len(args) + 1} were given")
    counter = CounterValue(Meter(interp.limits))
    counter_update(interp, counter, args, kwargs)
    return counter


def _most_common(interp, counter, args, kwargs):
    if len(args) + len(kwargs) > 1 or set(kwargs) - {"n"}:
        raise ScriptError("TypeError", "most_common() takes from 1 to 2 positional arguments")
    n = args[0] if args else kwargs.get("n")
    if n is None:
        pairs = counter.sorted_items()
    else:
        charge(interp.limits, len(counter) // PYTHON_ITEMS_PER_STEP)
        pairs = heapq.nlargest(n, counter.items(), key=lambda item: item[1])
    return pairs


def _elements(interp, counter, args, kwargs):
    _no_arguments("elements", args, kwargs)
    limits = interp.limits

    def produce():
        for elem, count in list(counter.items()):
            for item in itertools.repeat(elem, count):
                charge(limits, 1)
                yield item
    return DwfIterator(produce(), "itertools.chain")


def _total(interp, counter, args, kwargs):
    _no_arguments("total", args, kwargs)
    charge(interp.limits, work(counter))
    return sum(counter.values())


def _counter_copy(interp, counter, args, kwargs):
    _no_arguments("copy", args, kwargs)
    result = CounterValue(counter.meter)
    counter_update(interp, result, [counter], {})
    return result


def _no_arguments(name: str, args, kwargs) -> None:
    if args or kwargs:
        given = len(args) + len(kwargs)
        raise ScriptError("TypeError", f"{name}() takes 1 positional argument but {given + 1} were given")


# ---------------------------------------------------------------- defaultdict and OrderedDict


def _defaultdict_maker(depth: _FactoryDepth):
    def make_defaultdict(interp, args, kwargs) -> DefaultDictValue:
        factory = args[0] if args else None
        if factory is not None and not is_callable(factory):
            raise ScriptError("TypeError", "first argument must be callable or None")
        limits = interp.limits
        call = callback(interp, factory) if factory is not None else None

        def make_default():
            if depth.depth >= limits.recursion:
                raise limit_error("recursion", limits)
            depth.depth += 1
            try:
                return call()
            finally:
                depth.depth -= 1
        result = DefaultDictValue(factory, make_default if factory is not None else None, Meter(limits))
        _fill(interp, result, list(args[1:]), kwargs, "defaultdict")
        return result
    return make_defaultdict


def make_ordered_dict(interp, args, kwargs) -> OrderedDictValue:
    result = OrderedDictValue(Meter(interp.limits))
    _fill(interp, result, list(args), kwargs, "OrderedDict")
    return result


def _dict_copy(interp, value, args, kwargs):
    _no_arguments("copy", args, kwargs)
    charge(interp.limits, work(value))
    return value.copy_value()


def _move_to_end(interp, od: OrderedDictValue, args, kwargs):
    if not args and "key" not in kwargs:
        raise ScriptError("TypeError", "move_to_end() missing required argument 'key' (pos 1)")
    key = args[0] if args else kwargs["key"]
    last = args[1] if len(args) > 1 else kwargs.get("last", True)
    value = od[key]  # KeyError(key), as CPython
    if last:
        del od[key]
        od[key] = value
        return None
    charge(interp.limits, work(od))  # the dict keeps the order: moving to the front rebuilds it
    rest = [(k, v) for k, v in od.items() if k != key]
    od.clear()
    od[key] = value
    dict.update(od, rest)
    return None


def _popitem(interp, od: OrderedDictValue, args, kwargs):
    last = args[0] if args else kwargs.get("last", True)
    if not od:
        raise ScriptError("KeyError", "'dictionary is empty'", args=("dictionary is empty",))
    if last:
        return dict.popitem(od)
    charge(interp.limits, work(od))  # the first live entry may sit behind deleted ones
    key = next(iter(od))
    return key, od.pop(key)


# ---------------------------------------------------------------- deque


def make_deque(interp, args, kwargs) -> DequeValue:
    if len(args) > 2:
        raise ScriptError("TypeError", f"deque() takes at most 2 arguments ({len(args)} given)")
    values = dict(zip(("iterable", "maxlen"), args))
    for key, value in kwargs.items():
        if key not in ("iterable", "maxlen") or key in values:
            raise ScriptError("TypeError", f"deque() got an unexpected keyword argument '{key}'")
        values[key] = value
    maxlen = values.get("maxlen")
    meter = Meter(interp.limits)
    result = DequeValue((), maxlen, meter)  # CPython validates maxlen first
    source = values.get("iterable", ())
    collections.deque.extend(result, meter.bounded(source) if maxlen is None else iterable(source))
    if maxlen is not None and type(source) is not DwfIterator:
        charge(interp.limits, work(source))
    return result


def _deque_grow(name):
    python = getattr(collections.deque, name)

    def grow(interp, dq: DequeValue, args, kwargs):
        result = python(dq, *args, **kwargs)
        if dq.maxlen is None:
            dq.meter.check(dq)
        return result
    return grow


def _deque_extend(name):
    python = getattr(collections.deque, name)

    def extend(interp, dq: DequeValue, args, kwargs):
        if kwargs or len(args) != 1:
            return python(dq, *args, **kwargs)  # CPython's message
        source = args[0]
        if isinstance(source, DequeValue):
            source = list(collections.deque.__iter__(source))
        if dq.maxlen is None:
            dq.meter.precheck(len(dq) + (len(source) if type(iterable(source)) is not DwfIterator else 0))
            items = _counted_from(len(dq), iterable(source), interp.limits)
        else:
            items = iterable(source)
            charge(interp.limits, work(source))
        python(dq, items)
        return None
    return extend


def _counted_from(start: int, items, limits):
    if type(items) is not DwfIterator:
        charge(limits, work(items))
        return items

    def produce():
        count = start
        for item in items:
            count += 1
            if count > limits.items:
                raise limit_error("items", limits)
            yield item
    return produce()


def _deque_scan(name):
    python = getattr(collections.deque, name)

    def scan(interp, dq: DequeValue, args, kwargs):
        if name in ("count", "index", "remove"):  # C compares the argument with each item
            charge_walk(interp.limits, dq)
        else:
            charge(interp.limits, work(dq))
        result = python(dq, *args, **kwargs)
        if name == "insert" and dq.maxlen is None:
            dq.meter.check(dq)
        return result
    return scan


def _deque_plain(name):
    python = getattr(collections.deque, name)
    return lambda interp, dq, args, kwargs: python(dq, *args, **kwargs)


# ---------------------------------------------------------------- namedtuple


def _field_names(names: Any) -> list:
    if isinstance(names, str):
        return names.replace(",", " ").split()
    return [display(name) for name in materialize_plain(names)]


def materialize_plain(value: Any) -> list:
    return list(iterable(value))


def make_namedtuple(interp, args, kwargs) -> NamedTupleType:
    if len(args) > 2:
        raise ScriptError("TypeError", f"namedtuple() takes 2 positional arguments but {len(args)} were given")
    values = dict(zip(("typename", "field_names"), args))
    for key, value in kwargs.items():
        if key not in ("typename", "field_names", "rename", "defaults", "module") or key in values:
            raise ScriptError("TypeError", f"namedtuple() got an unexpected keyword argument '{key}'")
        values[key] = value
    for key in ("typename", "field_names"):
        if key not in values:
            raise ScriptError("TypeError", f"namedtuple() missing 1 required positional argument: '{key}'")
    charge(interp.limits, work(values["field_names"]))
    fields = _field_names(values["field_names"])
    typename = display(values["typename"])
    if values.get("rename"):
        seen = set()
        for index, name in enumerate(fields):
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_") or name in seen:
                fields[index] = f"_{index}"
            seen.add(name)
    for name in [typename] + fields:
        if not name.isidentifier():
            raise ScriptError("ValueError", f"Type names and field names must be valid identifiers: {name!r}")
        if keyword.iskeyword(name):
            raise ScriptError("ValueError", f"Type names and field names cannot be a keyword: {name!r}")
    seen = set()
    for name in fields:
        if name.startswith("_") and not values.get("rename"):
            raise ScriptError("ValueError", f"Field names cannot start with an underscore: {name!r}")
        if name in seen:
            raise ScriptError("ValueError", f"Encountered duplicate field name: {name!r}")
        seen.add(name)
    field_defaults = {}
    if values.get("defaults") is not None:
        defaults = tuple(materialize(interp, values["defaults"]))
        if len(defaults) > len(fields):
            raise ScriptError("TypeError", "Got more default values than field names")
        field_defaults = dict(reversed(list(zip(reversed(fields), reversed(defaults)))))
    kind: NamedTupleType

    def construct(interp, args, kwargs):
        return NamedTupleValue(check_tuple(_bind_fields(kind, args, kwargs), interp.limits), kind)
    kind = NamedTupleType(typename, construct, tuple(fields), field_defaults)
    return kind


def _quoted(names: list) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + f", and {quoted[-1]}"


def _bind_fields(kind: NamedTupleType, args: list, kwargs: dict) -> tuple:
    """The fields of a new instance, bound as CPython's generated `__new__` binds them."""
    fields, defaults, name = kind.fields, kind.defaults, kind.name
    if len(args) > len(fields):
        low = len(fields) - len(defaults)
        takes = f"{len(fields) + 1}" if not defaults else f"from {low + 1} to {len(fields) + 1}"
        raise ScriptError("TypeError", f"{name}.__new__() takes {takes} positional arguments but {len(args) + 1} were given")
    values = dict(zip(fields, args))
    for key, value in kwargs.items():
        if key not in fields:
            raise ScriptError("TypeError", f"{name}.__new__() got an unexpected keyword argument '{key}'")
        if key in values:
            raise ScriptError("TypeError", f"{name}.__new__() got multiple values for argument '{key}'")
        values[key] = value
    missing = [f for f in fields if f not in values and f not in defaults]
    if missing:
        raise ScriptError("TypeError", f"{name}.__new__() missing {len(missing)} required positional "
                          f"argument{'s' if len(missing) > 1 else ''}: {_quoted(missing)}")
    return tuple(values[f] if f in values else defaults[f] for f in fields)


def _make(interp, kind: NamedTupleType, args, kwargs):
    if len(args) != 1 or kwargs:
        raise ScriptError("TypeError", f"_make() takes 2 positional arguments but {len(args) + 1} were given")
    items = tuple(materialize(interp, args[0]))
    if len(items) != len(kind.fields):
        raise ScriptError("TypeError", f"Expected {len(kind.fields)} arguments, got {len(items)}")
    return NamedTupleValue(check_tuple(items, interp.limits), kind)


def _asdict(interp, value: NamedTupleValue, args, kwargs):
    _no_arguments("_asdict", args, kwargs)
    return dict(zip(value.kind.fields, value))


def _replace(interp, value: NamedTupleValue, args, kwargs):
    if args:
        raise ScriptError("TypeError", f"{value.kind.name}._replace() takes 1 positional argument but {len(args) + 1} were given")
    changes = dict(kwargs)
    items = tuple(changes.pop(f, item) for f, item in zip(value.kind.fields, value))
    if changes:
        raise ScriptError("ValueError", f"Got unexpected field names: {list(changes)!r}")
    return NamedTupleValue(check_tuple(items, interp.limits), value.kind)


# ---------------------------------------------------------------- the module


NATIVE_METHODS: dict[type, dict[str, Any]] = {
    CounterValue: {"most_common": _most_common, "elements": _elements, "total": _total, "copy": _counter_copy,
                   "update": lambda interp, c, args, kwargs: counter_update(interp, c, args, kwargs),
                   "subtract": counter_subtract},
    DefaultDictValue: {"copy": _dict_copy},
    OrderedDictValue: {"copy": _dict_copy, "move_to_end": _move_to_end, "popitem": _popitem},
    DequeValue: {"append": _deque_grow("append"), "appendleft": _deque_grow("appendleft"),
                 "insert": _deque_scan("insert"), "extend": _deque_extend("extend"),
                 "extendleft": _deque_extend("extendleft"), "pop": _deque_plain("pop"),
                 "popleft": _deque_plain("popleft"), "clear": _deque_plain("clear"),
                 "count": _deque_scan("count"), "index": _deque_scan("index"), "remove": _deque_scan("remove"),
                 "reverse": _deque_scan("reverse"), "rotate": _deque_scan("rotate"),
                 "copy": lambda interp, dq, args, kwargs: dq.copy_value()},
    NamedTupleValue: {"_asdict": _asdict, "_replace": _replace},
    NamedTupleType: {"_make": _make},
}


def call_native_method(interp, receiver: Any, name: str, args: list, kwargs: dict) -> Any:
    """Run the method `name` of a collections value (fetched through `script_attribute`)."""
    return NATIVE_METHODS[type(receiver)][name](interp, receiver, args, kwargs)


def collections_members() -> dict[str, Any]:
    depth = _FactoryDepth()  # one per run: the modules are made for each interpreter
    return {
        "Counter": NativeType("Counter", make_counter, CounterValue, "collections.Counter"),
        "defaultdict": NativeType("defaultdict", _defaultdict_maker(depth), DefaultDictValue, "collections.defaultdict"),
        "OrderedDict": NativeType("OrderedDict", make_ordered_dict, OrderedDictValue, "collections.OrderedDict"),
        "deque": NativeType("deque", make_deque, DequeValue, "collections.deque"),
        "namedtuple": BuiltinFunction("namedtuple", make_namedtuple),
    }


