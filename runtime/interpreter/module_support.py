"""This module defines what the standard-module implementations (`collections_module.py`,
`itertools_module.py`, `stdlib_modules.py`) share: calling a script callback through the
interpreter, the per-value `Meter` that charges a run for work done inside Python's operator
protocol, bounded materialization of iterables, lazy metered iterators, and CPython-style
argument binding for module functions."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from dwf.runtime.values.errors import ScriptError
from dwf.runtime.interpreter.sandbox import ITEMS_PER_STEP, charge, iterable, limit_error, work
from dwf.runtime.values.objects import BoundMethod, BuiltinFunction, DwfIterator, ExceptionType, ScriptFunction, type_name

CALLABLES = (ScriptFunction, BuiltinFunction, BoundMethod, ExceptionType)


def is_callable(value: Any) -> bool:
    return isinstance(value, CALLABLES)


def callback(interp, fn: Any) -> Callable[..., Any]:
    """`fn` (a script function, lambda, builtin or method) as a Python callable. Each call runs
    through the interpreter's call machinery on behalf of the frame that called the module
    function (as `sorted(key=)` and `map` do), so it counts as a step and against recursion."""
    frame = interp.caller

    def call(*args):
        if not isinstance(fn, ScriptFunction):  # script functions count their own call
            interp.steps += 1
            if interp.steps > interp.limits.steps:
                raise interp.step_limit()
        return interp.call_sync(fn, list(args), {}, frame)
    return call


class Meter:
    """Charges one run's step counter and checks sizes, for values whose Python operators run
    without the interpreter's limits (`Counter.__add__`, `deque * n`, a defaultdict's fill)."""

    __slots__ = ("limits",)

    def __init__(self, limits):
        self.limits = limits

    def charge(self, steps: int) -> None:
        charge(self.limits, steps)

    def precheck(self, size: int) -> None:
        if size > self.limits.items:
            raise limit_error("items", self.limits)

    def check(self, container):
        if len(container) > self.limits.items:
            raise limit_error("items", self.limits)
        return container

    def bounded(self, items: Any) -> Iterable:
        """`items` (any iterable a script may hold), refused once it passes the item limit."""
        return bounded_items(items, self.limits)


def bounded_items(items: Any, limits) -> Iterable:
    """A sized iterable is checked and charged at once; a lazy one charges its own items and is
    cut off past the item limit."""
    items = iterable(items)
    if type(items) is not DwfIterator:
        if len(items) > limits.items:
            raise limit_error("items", limits)
        charge(limits, work(items))
        return items
    return _counted(items, limits)


def _counted(items: Iterator, limits) -> Iterator:
    for count, item in enumerate(items):
        if count >= limits.items:
            raise limit_error("items", limits)
        yield item


def materialize(interp, value: Any) -> list:
    """`list(value)` within the item limit."""
    return list(bounded_items(value, interp.limits))


def metered(limits, items: Iterable, name: str) -> DwfIterator:
    """A lazy iterator value over `items`, one step per item produced."""
    def produce():
        for item in items:
            charge(limits, 1)
            yield item
    return DwfIterator(produce(), name)


def bind(name: str, params: tuple[str, ...], args: list, kwargs: dict, *, required: int = 0,
         keyword_only: tuple[str, ...] = (), defaults: dict | None = None) -> dict:
    """Bind a module function's arguments as CPython would, with its messages: `params` are
    positional-or-keyword (the first `required` of them required), `keyword_only` follow `*`."""
    defaults = defaults or {}
    if len(args) > len(params):
        most = len(params)
        raise ScriptError("TypeError", f"{name}() takes {'at most ' if required < most else ''}{most} positional "
                          f"argument{'s' if most != 1 else ''} ({len(args)} given)" if most else
                          f"{name}() takes no positional arguments")
    values = dict(zip(params, args))
    for key, value in kwargs.items():
        if key not in params and key not in keyword_only:
            raise ScriptError("TypeError", f"{name}() got an unexpected keyword argument '{key}'")
        if key in values:
            raise ScriptError("TypeError", f"{name}() got multiple values for argument '{key}'")
        values[key] = value
    for index, param in enumerate(params[:required]):
        if param not in values:
            raise ScriptError("TypeError", f"{name}() missing required argument '{param}' (pos {index + 1})")
    for key in (*params, *keyword_only):
        if key not in values:
            values[key] = defaults.get(key)
    return values


def check_int_argument(value: Any, what: str = "") -> int:
    if type(value) is not int:
        raise ScriptError("TypeError", f"'{type_name(value)}' object cannot be interpreted as an integer")
    return value


__all__ = ["CALLABLES", "ITEMS_PER_STEP", "Meter", "bind", "bounded_items", "callback", "check_int_argument",
           "is_callable", "materialize", "metered"]
