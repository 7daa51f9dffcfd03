"""This module defines how calls bind their arguments and how methods of plain values run under
the run's limits: argument binding for script functions, and `call_method`, which prechecks
methods that could allocate without bound before running them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import sandbox
from .errors import ScriptError
from .frames import _bounded_list
from .limits import Limits
from .values import BoundMethod, DwfIterator, OrderedSet, ScriptFunction, type_name

if TYPE_CHECKING:
    from .interpreter import Interpreter


class Signature:
    """A script function's parameters arranged once, when its `def` or `lambda` is compiled,
    for binding calls by CPython's rules (`ceval.c`, `initialize_locals`)."""

    __slots__ = ("params", "positional", "posonly", "kwonly", "keyword_names", "star", "double_star")

    def __init__(self, params: tuple) -> None:
        self.params = params
        self.positional = tuple(p.name for p in params if p.kind in ("posonly", "plain"))
        self.posonly = frozenset(p.name for p in params if p.kind == "posonly")
        self.kwonly = tuple(p.name for p in params if p.kind == "kwonly")
        # The names a keyword argument may bind (positional-only parameters cannot be).
        self.keyword_names = frozenset(p.name for p in params if p.kind in ("plain", "kwonly"))
        self.star = next((p.name for p in params if p.kind == "star"), None)
        self.double_star = next((p.name for p in params if p.kind == "double_star"), None)


def bind_arguments(fn: ScriptFunction, signature: Signature, args: list, kwargs: dict, limits: Limits) -> dict:
    """The frame variables of one call of `fn`, or CPython's `TypeError` for a call that does
    not fit: keywords first (unexpected, positional-only, multiple values), then too many
    positional arguments, then missing positional and keyword-only ones."""
    positional = signature.positional
    values: dict[str, Any] = dict(zip(positional, args))
    extra: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in signature.keyword_names:
            if key in values:
                raise ScriptError("TypeError", f"{fn.qualname}() got multiple values for argument '{key}'")
            values[key] = value
        elif signature.double_star is not None:
            extra[key] = value
        else:
            misplaced = [name for name in kwargs if name in signature.posonly]
            if misplaced:
                raise ScriptError("TypeError", f"{fn.qualname}() got some positional-only arguments passed as keyword "
                                               f"arguments: '{', '.join(misplaced)}'")
            raise ScriptError("TypeError", f"{fn.qualname}() got an unexpected keyword argument '{key}'")
    if len(args) > len(positional) and signature.star is None:
        raise ScriptError("TypeError", _too_many_positional(fn, signature, len(args), values))
    if len(values) < len(positional) + len(signature.kwonly):
        _fill_defaults(fn, positional[len(args):], values, fn.defaults, "positional")
        _fill_defaults(fn, signature.kwonly, values, fn.defaults, "keyword-only")
    if signature.star is not None:
        rest = tuple(args[len(positional):]) if len(args) > len(positional) else ()
        values[signature.star] = sandbox.check_tuple(sandbox.check_items(rest, limits), limits)
    if signature.double_star is not None:
        values[signature.double_star] = extra
    return values


def _fill_defaults(fn: ScriptFunction, names: tuple, values: dict, defaults: dict, kind: str) -> None:
    missing = [name for name in names if name not in values and name not in defaults]
    if missing:
        quoted = [repr(name) for name in missing]
        if len(quoted) == 1:
            listed = quoted[0]
        elif len(quoted) == 2:
            listed = f"{quoted[0]} and {quoted[1]}"
        else:
            listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
        plural = "s" if len(missing) > 1 else ""
        raise ScriptError("TypeError", f"{fn.qualname}() missing {len(missing)} required {kind} argument{plural}: {listed}")
    for name in names:
        if name not in values:
            values[name] = defaults[name]


def _too_many_positional(fn: ScriptFunction, signature: Signature, given: int, values: dict) -> str:
    count = len(signature.positional)
    with_default = sum(1 for name in signature.positional if name in fn.defaults)
    keyword_only = sum(1 for name in signature.kwonly if name in values)
    if with_default:
        takes, plural = f"from {count - with_default} to {count}", "s"
    else:
        takes, plural = str(count), "" if count == 1 else "s"
    also = ""
    if keyword_only:
        also = (f" positional argument{'' if given == 1 else 's'} (and {keyword_only} keyword-only "
                f"argument{'' if keyword_only == 1 else 's'})")
    verb = "was" if given == 1 and not keyword_only else "were"
    return f"{fn.qualname}() takes {takes} positional argument{plural} but {given}{also} {verb} given"


GROWING_METHODS = frozenset({"ljust", "rjust", "center", "zfill", "expandtabs", "replace", "join"})
# Methods whose cost does not grow with the receiver, by receiver type; every other method is
# charged the receiver's size, and `extend`/`update` the size of what they add.
CONSTANT_TIME_METHODS = {
    list: frozenset({"append", "pop", "extend"}), str: frozenset({"startswith", "endswith"}),
    dict: frozenset({"get", "pop", "setdefault", "popitem", "update"}),
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
    if result_kind is _KEYS_VIEW or result_kind is _VALUES_VIEW:
        sandbox.charge(limits, len(result) // sandbox.ITEMS_PER_STEP)
        return list(result)  # views would expose live Python objects; a list is plain data
    if result_kind is _ITEMS_VIEW:
        sandbox.charge(limits, len(result) // sandbox.ITEMS_PER_STEP)
        return [sandbox.check_tuple(pair, limits) for pair in result]
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
