"""This module defines how a method referenced through its type runs (`str.lower(s)`,
`map(str.strip, lines)`, `list.sort(xs, key=...)`, `sorted(xs, key=str.casefold)`): the first
argument is the receiver, checked against the type with CPython's message, and the call then
goes through the same allow-list and limits as `receiver.method(...)` (`calls.call_method`).
The type-level methods take no receiver: `dict.fromkeys`, bounded by the container size limit
before the dict is built, and `str.maketrans`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import sandbox
from .calls import call_method
from .errors import ScriptError
from .values import DwfIterator, FrozenSet, OrderedSet, UnboundMethod, cpython_type_name

if TYPE_CHECKING:
    from .interpreter import Interpreter

# The values each type's methods apply to. `int` methods take bools, as in CPython.
RECEIVER_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,), "list": (list,), "dict": (dict,), "set": (OrderedSet,), "frozenset": (FrozenSet,),
    "tuple": (tuple,), "int": (int,), "float": (float,), "range": (range,), "slice": (slice,),
}


def call_unbound(interp: Interpreter, method: UnboundMethod, args: list, kwargs: dict) -> Any:
    owner, name = method.owner, method.name
    if name == "fromkeys":
        return dict_fromkeys(interp, args, kwargs)
    if name == "maketrans":
        return str_maketrans(interp, args, kwargs)
    if not args:
        raise ScriptError("TypeError", f"unbound method {owner}.{name}() needs an argument")
    receiver = args[0]
    if not isinstance(receiver, RECEIVER_TYPES[owner]):
        raise ScriptError("TypeError", f"descriptor '{name}' for '{owner}' objects doesn't apply to a "
                          f"'{cpython_type_name(receiver)}' object")
    if type(receiver) is bool:  # bools have no methods of their own in DWF; an int's give the same results
        receiver = int(receiver)
    bound = sandbox.get_attribute(receiver, name)
    return call_method(interp, bound, list(args[1:]), kwargs)


def dict_fromkeys(interp: Interpreter, args: list, kwargs: dict) -> dict:
    if kwargs:
        raise ScriptError("TypeError", "dict.fromkeys() takes no keyword arguments")
    if not args:
        raise ScriptError("TypeError", "fromkeys expected at least 1 argument, got 0")
    if len(args) > 2:
        raise ScriptError("TypeError", f"fromkeys expected at most 2 arguments, got {len(args)}")
    limits = interp.limits
    keys, value = sandbox.iterable(args[0]), args[1] if len(args) == 2 else None
    if type(keys) is not DwfIterator:  # sized: check, then build in C
        if len(keys) > limits.items:
            raise sandbox.limit_error("items", limits)
        sandbox.charge(limits, sandbox.work(keys))
        return dict.fromkeys(keys, value)
    result: dict = {}
    for key in keys:  # a lazy iterator charges its own items
        result[key] = value
        if len(result) > limits.items:
            raise sandbox.limit_error("items", limits)
    return result


def str_maketrans(interp: Interpreter, args: list, kwargs: dict) -> dict:
    if kwargs:
        raise ScriptError("TypeError", "maketrans() takes no keyword arguments")
    # The table has at most one entry per key of the dict or character of the strings given.
    sandbox.charge(interp.limits, sum(sandbox.work(a) for a in args))
    return str.maketrans(*args)
