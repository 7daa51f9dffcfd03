"""This module defines how calls bind their arguments and how methods of plain values run under
the run's limits: argument binding for script functions; `call_method`, which prechecks methods
that could allocate without bound before running them; and `call_unbound`, for a method
referenced through its type (`str.lower(s)`, `map(str.strip, lines)`, `list.sort(xs, key=...)`):
the first argument is the receiver, checked against the type with CPython's message, and the
call then goes through the same allow-list and limits as `receiver.method(...)`. The type-level
methods take no receiver: `dict.fromkeys`, bounded by the container size limit before the dict
is built, and `str.maketrans`. Calling an exception class makes a script exception
(`instantiate`)."""

from __future__ import annotations

from functools import partial
from typing import Any

from dwf.runtime.interpreter import sandbox
from dwf.runtime.interpreter.sandbox import exception_message
from dwf.runtime.interpreter.collection_values import DICT_TYPES
from dwf.runtime.interpreter.collections_module import call_native_method
from dwf.runtime.values.errors import ScriptError
from dwf.runtime.interpreter.exceptions import json_decode_error
from dwf.runtime.interpreter.frames import Caller, bounded_list
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.values.objects import BoundMethod, ExceptionType, DwfIterator, ScriptFunction, UnboundMethod, type_name
from dwf.runtime.values.sets import FrozenSet, OrderedSet
from dwf.runtime.values.views import DictItemsView, DictKeysView, DictValuesView


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


GROWING_METHODS = frozenset({"ljust", "rjust", "center", "zfill", "expandtabs", "replace", "join", "translate"})
# Methods whose cost does not grow with the receiver, by receiver type; every other method is
# charged the receiver's size, and `extend`/`update` the size of what they add.
CONSTANT_TIME_METHODS = {
    list: frozenset({"append", "pop", "extend"}), str: frozenset({"startswith", "endswith"}),
    dict: frozenset({"get", "pop", "setdefault", "popitem", "update", "keys", "values", "items"}),
    OrderedSet: frozenset({"add", "discard", "remove", "pop", "update"}),
    range: frozenset({"index", "count"}), slice: frozenset({"indices"}),  # of an int: arithmetic (else below)
}
CONSTANT_TIME_METHODS.update({kind: CONSTANT_TIME_METHODS[dict] for kind in DICT_TYPES})
GROWING_CONTAINER_METHODS = frozenset({"append", "extend", "insert", "update", "add", "setdefault"})
_COMPARING_METHODS = frozenset({"sort", "index", "count", "remove"})
SPLITTING_METHODS = frozenset({"split", "rsplit"})


_SCALARS = frozenset({int, float, bool})
_KEYS_VIEW, _VALUES_VIEW, _ITEMS_VIEW = type({}.keys()), type({}.values()), type({}.items())


def call_method(interp: Caller, method: BoundMethod, args: list, kwargs: dict) -> Any:
    receiver, name = method.receiver, method.name
    if method.fn is None:  # a method of a collections value (collections_module.py)
        return call_native_method(interp, receiver, name, args, kwargs)
    return call_value_method(interp, receiver, name, method.fn, args, kwargs)


def call_value_method(interp: Caller, receiver: Any, name: str, fn: Any, args: list, kwargs: dict) -> Any:
    """`receiver.name(*args, **kwargs)` for a method of a plain value, `fn` being Python's
    bound method: the prechecks, the call, the checks and charges of its result."""
    limits = interp.limits
    kind = type(receiver)
    if kind is str:
        if name == "join" and args:
            # Materialize (bounded) so the size check sees every piece before joining.
            args = [bounded_list(args[0], limits)] + list(args[1:])
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
            kwargs = dict(kwargs, key=sandbox.walked_key(limits, lambda item: interp.call_sync(key, [item], {}, frame),
                                                         max(1, len(receiver).bit_length())))
        elif name == "extend" and args:
            source = sandbox.iterable(args[0])
            if type(source) is not DwfIterator and len(receiver) + len(source) > limits.items:
                raise sandbox.limit_error("items", limits)
            args = [source if type(source) is list else list(source)]
    elif kind is DictItemsView and name == "isdisjoint":  # compares the dict's values with the argument's
        sandbox.charge_walk(limits, receiver, *args)
    if name not in CONSTANT_TIME_METHODS.get(kind, ()) or (kind is range and args and type(args[0]) is not int):
        sandbox.charge(limits, sandbox.method_work(receiver, args))
    elif args and type(args[0]) in sandbox.HASHED_BY_WALK and kind is not list:  # `d.get(k)`, `s.add(k)`: hashed
        sandbox.charge_key(limits, args[0])
    if name in ("extend", "update"):
        sandbox.charge(limits, sum(sandbox.work(a) for a in args))
    if kind is OrderedSet or name == "update" and kind is not list:  # the items of a list argument are hashed
        for argument in args:
            sandbox.charge_keys(limits, argument)
    result = fn(*args, **kwargs)
    if name in GROWING_CONTAINER_METHODS:
        sandbox.check_value(receiver, limits)
    if result is None:
        return None
    result_kind = type(result)
    if result_kind in _SCALARS:  # nothing to check or charge (`dict.get` of a count, `str.find`)
        return result
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
    if result_kind is dict or result_kind is OrderedSet or result_kind is FrozenSet:
        sandbox.charge(limits, sandbox.work(result))  # copy(), union(), ...
        return sandbox.check_value(result, limits)  # a union can outgrow both operands
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
    elif name == "translate" and args:
        _precheck_translate(receiver, args[0], limits)
    elif name == "join" and args:
        items = args[0]
        total = sum(len(i) for i in items if isinstance(i, str)) + len(receiver) * max(0, len(items) - 1)
        if total > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)


def _precheck_translate(receiver: str, table: Any, limits: Limits) -> None:
    """`str.translate` with a table that maps characters to longer strings can grow the text
    by the replacement's length for every occurrence: count before translating."""
    if isinstance(table, dict):
        longer = [(key, len(text)) for key, text in table.items() if isinstance(text, str) and len(text) > 1]
    elif isinstance(table, (list, tuple)):
        longer = [(key, len(text)) for key, text in enumerate(table) if isinstance(text, str) and len(text) > 1]
    else:
        return  # a str table maps to single characters; anything else is refused by translate
    if not longer or len(receiver) * max(length for _, length in longer) <= limits.string_bytes:
        return
    sandbox.charge(limits, sandbox.work(receiver) * len(longer))  # one count per key below
    size = len(receiver)
    for key, length in longer:
        if isinstance(key, int) and 0 <= key < 0x110000:
            size += receiver.count(chr(key)) * (length - 1)
            if size > limits.string_bytes:
                raise sandbox.limit_error("string_bytes", limits)


# ---------------------------------------------------------------- methods referenced through their type

# The values each type's methods apply to. `int` methods take bools, as in CPython.
RECEIVER_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,), "list": (list,), "dict": (dict,), "set": (OrderedSet,), "frozenset": (FrozenSet,),
    "tuple": (tuple,), "int": (int,), "float": (float,), "range": (range,), "slice": (slice,),
}


def call_unbound(interp: Caller, method: UnboundMethod, args: list, kwargs: dict) -> Any:
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
                          f"'{type_name(receiver)}' object")
    if type(receiver) is bool:  # bools have no methods of their own in DWF; an int's give the same results
        receiver = int(receiver)
    bound = sandbox.get_attribute(receiver, name)
    return call_method(interp, bound, list(args[1:]), kwargs)


def dict_fromkeys(interp: Caller, args: list, kwargs: dict) -> dict:
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
        sandbox.charge_keys(limits, keys)
        return dict.fromkeys(keys, value)
    result: dict = {}
    for key in keys:  # a lazy iterator charges its own items
        result[key] = value
        if len(result) > limits.items:
            raise sandbox.limit_error("items", limits)
    return result


def str_maketrans(interp: Caller, args: list, kwargs: dict) -> dict:
    if kwargs:
        raise ScriptError("TypeError", "maketrans() takes no keyword arguments")
    # The table has at most one entry per key of the dict or character of the strings given.
    sandbox.charge(interp.limits, sum(sandbox.work(a) for a in args))
    return str.maketrans(*args)


# ---------------------------------------------------------------- the compiler to closures


# ---------------------------------------------------------------- exceptions made by scripts


def instantiate(kind: ExceptionType, args: list, kwargs: dict, limits: Any = None) -> ScriptError:
    """Calling an exception class: `ValueError("bad", 2)`, `RetryError()`. `str(e)` and
    `e.args` are CPython's (`str(KeyError("k"))` is `"'k'"`, also for a subclass of KeyError).
    The message is rendered once, here, within the run's `limits` (rendering is charged)."""
    if kwargs:
        raise ScriptError("TypeError", f"{kind.name}() takes no keyword arguments")
    if kind.name == "JSONDecodeError":
        return _json_decode_error_call(args)
    values = tuple(args)
    return ScriptError(kind.name, exception_message(kind.lineage, values, limits), args=values, lineage=kind.lineage)


def _json_decode_error_call(args: list) -> ScriptError:
    names = ("msg", "doc", "pos")
    if len(args) != 3:
        if len(args) > 3:
            raise ScriptError("TypeError", f"JSONDecodeError.__init__() takes 4 positional arguments but {len(args) + 1} were given")
        missing = names[len(args):]
        listed = " and ".join(f"'{n}'" for n in missing) if len(missing) < 3 else "'msg', 'doc', and 'pos'"
        raise ScriptError("TypeError", f"JSONDecodeError.__init__() missing {len(missing)} required positional "
                                       f"argument{'s' if len(missing) > 1 else ''}: {listed}")
    message, document, position = args
    if not isinstance(message, str) or not isinstance(document, str) or type(position) is not int:
        raise ScriptError("TypeError", "json.JSONDecodeError(msg, doc, pos) needs a str, a str and an int")
    if not 0 <= position <= len(document):
        raise ScriptError("ValueError", "json.JSONDecodeError position is outside the document")
    return json_decode_error(message, document, position)
