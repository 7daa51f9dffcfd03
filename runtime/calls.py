"""This module defines how calls bind their arguments and how methods of plain values run under
the run's limits: argument binding for script functions, and `call_method`, which prechecks
methods that could allocate without bound before running them."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from . import sandbox
from .errors import ScriptError
from .frames import _bounded_list
from .limits import Limits
from .values import BoundMethod, DwfIterator, OrderedSet, ScriptFunction, type_name
from .views import DictItemsView, DictKeysView, DictValuesView

if TYPE_CHECKING:
    from .interpreter import Interpreter


def bind_arguments(fn: ScriptFunction, params: tuple, args: list, kwargs: dict, limits: Limits) -> dict:
    values: dict[str, Any] = {}
    positional = list(args)
    plain = [p for p in params if p.kind == "plain"]
    star = next((p for p in params if p.kind == "star"), None)
    double_star = next((p for p in params if p.kind == "double_star"), None)
    defaults = fn.defaults
    for index, param in enumerate(plain):
        if positional:
            values[param.name] = positional.pop(0)
        elif param.name in kwargs:
            values[param.name] = kwargs.pop(param.name)
        elif index in defaults:
            values[param.name] = defaults[index]
        else:
            raise ScriptError("TypeError", f"{fn.name}() missing required argument '{param.name}'")
        if param.name in kwargs:
            raise ScriptError("TypeError", f"{fn.name}() got multiple values for argument '{param.name}'")
    if positional:
        if star is None:
            raise ScriptError("TypeError", f"{fn.name}() takes {len(plain)} positional arguments but {len(args)} were given")
        values[star.name] = sandbox.check_tuple(tuple(positional), limits)
    elif star is not None:
        values[star.name] = ()
    if kwargs:
        if double_star is None:
            raise ScriptError("TypeError", f"{fn.name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        values[double_star.name] = dict(kwargs)
    elif double_star is not None:
        values[double_star.name] = {}
    return values


GROWING_METHODS = frozenset({"ljust", "rjust", "center", "zfill", "expandtabs", "replace", "join"})
# Methods whose cost does not grow with the receiver, by receiver type; every other method is
# charged the receiver's size, and `extend`/`update` the size of what they add.
CONSTANT_TIME_METHODS = {
    list: frozenset({"append", "pop", "extend"}), str: frozenset({"startswith", "endswith"}),
    dict: frozenset({"get", "pop", "setdefault", "popitem", "update", "keys", "values", "items"}),
    OrderedSet: frozenset({"add", "discard", "remove", "pop", "update"}),
}
GROWING_CONTAINER_METHODS = frozenset({"append", "extend", "insert", "update", "add", "setdefault"})
_COMPARING_METHODS = frozenset({"sort", "index", "count", "remove"})
SPLITTING_METHODS = frozenset({"split", "rsplit"})


_KEYS_VIEW, _VALUES_VIEW, _ITEMS_VIEW = type({}.keys()), type({}.values()), type({}.items())


def call_method(interp: Interpreter, method: BoundMethod, args: list, kwargs: dict) -> Any:
    receiver, name = method.receiver, method.name
    limits = interp.limits
    kind = type(receiver)
    if kind is str:
        if name == "join" and args:
            # Materialize (bounded) so the size check sees every piece before joining.
            args = [_bounded_list(args[0], limits)] + list(args[1:])
        if name in GROWING_METHODS:
            _precheck_string_method(receiver, name, args, limits)
        elif name in SPLITTING_METHODS:
            args, kwargs = _bounded_split(args, kwargs, limits)
    elif kind is list:
        if name in _COMPARING_METHODS:  # C compares items (and the argument with each item)
            sandbox.charge_walk(limits, receiver, times=max(1, len(receiver).bit_length()) if name == "sort" else 1)
            if args and name != "sort":
                sandbox.charge_walk(limits, args[0], times=len(receiver))
        if name == "sort" and kwargs.get("key") is not None:
            key, frame = kwargs["key"], interp.caller
            kwargs = dict(kwargs, key=lambda item: interp.call_sync(key, [item], {}, frame))
        elif name == "extend" and args:
            source = sandbox.iterable(args[0])
            if type(source) is not DwfIterator and len(receiver) + len(source) > limits.items:
                raise sandbox.limit_error("items", limits)
            args = [source if type(source) is list else list(source)]
    elif kind is DictItemsView and name == "isdisjoint":  # compares the dict's values with the argument's
        sandbox.charge_walk(limits, receiver, *args)
    if name not in CONSTANT_TIME_METHODS.get(kind, ()):
        sandbox.charge(limits, sandbox.work(receiver))
    if name in ("extend", "update"):
        sandbox.charge(limits, sum(sandbox.work(a) for a in args))
    result = method.fn(*args, **kwargs)
    if name in GROWING_CONTAINER_METHODS:
        sandbox.check_value(receiver, limits)
    if result is None:
        return None
    result_kind = type(result)
    if result_kind is str:
        sandbox.charge(limits, sandbox.work(result))
        return sandbox.check_string(result, limits)
    if result_kind is list:
        sandbox.charge(limits, sandbox.work(result))
        return sandbox.check_items(result, limits)
    # Python's views never reach the script: it gets DWF's live views of the same dict.
    if result_kind is _KEYS_VIEW:
        return DictKeysView(receiver)
    if result_kind is _VALUES_VIEW:
        return DictValuesView(receiver)
    if result_kind is _ITEMS_VIEW:
        return DictItemsView(receiver, partial(sandbox.check_tuple, limits=limits))
    if result_kind is tuple:
        return sandbox.check_tuple(result, limits)  # str.partition, dict.popitem()
    if result_kind is set:
        return OrderedSet(result)
    if result_kind is dict or result_kind is OrderedSet:
        sandbox.charge(limits, sandbox.work(result))  # copy(), union(), ...
    return result


def _bounded_split(args: list, kwargs: dict, limits: Limits) -> tuple[list, dict]:
    """`str.split` with `maxsplit` capped at the item limit: the result is the same whenever it
    is within the limit, and a larger one is refused without being built."""
    args, kwargs = list(args), dict(kwargs)
    if len(args) > 1:
        maxsplit = args.pop(1)
    else:
        maxsplit = kwargs.pop("maxsplit", -1)
    if type(maxsplit) is not int:
        raise ScriptError("TypeError", f"'{type_name(maxsplit)}' object cannot be interpreted as an integer")
    kwargs["maxsplit"] = limits.items if maxsplit < 0 else min(maxsplit, limits.items)
    return args, kwargs


def _precheck_string_method(receiver: str, name: str, args: list, limits: Limits) -> None:
    if name in ("ljust", "rjust", "center", "zfill") and args and isinstance(args[0], int):
        if args[0] > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)
    elif name == "expandtabs":
        size = (args[0] if args and isinstance(args[0], int) else 8) * max(1, receiver.count("\t")) + len(receiver)
        if size > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)
    elif name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        count = receiver.count(args[0]) if args[0] else len(receiver) + 1
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            count = min(count, args[2])
        if len(receiver) + count * len(args[1]) > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)
    elif name == "join" and args:
        items = args[0]
        total = sum(len(i) for i in items if isinstance(i, str)) + len(receiver) * max(0, len(items) - 1)
        if total > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)


# ---------------------------------------------------------------- the compiler to closures
