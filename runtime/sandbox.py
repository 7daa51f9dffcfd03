"""This module defines the sandbox policy: the only place where a script reaches attributes,
methods and operators of values. It is an allow-list over DWF's own value types
(`runtime.values`, records, plain data); anything not on the list is a fatal misuse, so a
script can neither reach interpreter objects nor probe for them with `try/except`.

Operators that could allocate without bound (repetition, concatenation, `**`, `<<`, padding
and replacement methods, f-string widths) are checked *before* they run against the run's
`Limits`, and a Python exception raised by an allowed operation becomes the matching DWF
exception value (`to_script_error`).
"""

from __future__ import annotations

import operator
import re
from typing import Any

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from .errors import FatalError, ScriptError
from .limits import Limits
from .records import Record
from .values import (ActorHandle, BoundMethod, BuiltinFunction, ExceptionType, Facade, LazyAwaitable, Module,
                     OrderedSet, ReadOnlyMapping, ScriptFunction, type_name)

PYTHON_TO_DWF = {
    ZeroDivisionError: "ZeroDivisionError", KeyError: "KeyError", IndexError: "IndexError",
    TypeError: "TypeError", ValueError: "ValueError", OverflowError: "ValueError",
    UnicodeError: "ValueError", AttributeError: "TypeError",
}
_METHOD_TYPES = {str: "str", list: "list", dict: "dict", ReadOnlyMapping: "dict", tuple: "tuple", int: "int",
                 float: "float", OrderedSet: "set"}
_ALLOWED = {kind: frozenset(names) for kind, names in B.METHODS.items()}
_READONLY_REFUSED = frozenset({"clear", "pop", "popitem", "setdefault", "update"})


def to_script_error(error: BaseException) -> ScriptError | None:
    """The DWF exception value for a Python exception an allowed operation raised."""
    if isinstance(error, ScriptError):
        return error
    for python_type, name in PYTHON_TO_DWF.items():
        if isinstance(error, python_type):
            message = str(error) if not isinstance(error, KeyError) else repr(error.args[0]) if error.args else ""
            return ScriptError(name, message)
    return None


def misuse(message: str) -> FatalError:
    return FatalError("Misuse", message)


# ---------------------------------------------------------------- attributes


def get_attribute(value: Any, attr: str) -> Any:
    if attr.startswith("__"):
        raise misuse(f"attribute `{attr}` is not allowed")
    kind = _METHOD_TYPES.get(type(value))
    if kind is not None and not isinstance(value, bool):
        if attr in _ALLOWED[kind]:
            if isinstance(value, ReadOnlyMapping) and attr in _READONLY_REFUSED:
                raise ScriptError("TypeError", "`args` is read-only")
            member = getattr(value, attr)
            if attr in ("real", "imag", "numerator", "denominator"):
                return member
            return BoundMethod(value, attr, member)
        raise misuse(f"`{type_name(value)}` has no allowed attribute `{attr}`")
    if isinstance(value, Record):
        if attr in value.fields:
            return value.fields[attr]
        raise misuse(f"`{value.type_name}` has no field `{attr}` (fields: {', '.join(value.fields)})")
    if isinstance(value, ActorHandle):
        if attr == "name":
            return value.name
        raise misuse(f"an agent has no attribute `{attr}` here (call `.ask(...)` directly)")
    if isinstance(value, Module):
        if attr in value.members:
            return value.members[attr]
        raise misuse(f"module `{value.name}` has no allowed member `{attr}`")
    if isinstance(value, MatchValue):
        if attr in B.MATCH_METHODS:
            return BoundMethod(value, attr, getattr(value, attr))
        raise misuse(f"a match has no allowed attribute `{attr}`")
    if isinstance(value, ScriptError) and attr == "args":
        return value.args_value
    if isinstance(value, Facade):
        raise misuse(f"`{value.name}.{attr}` may only be called directly")
    raise misuse(f"`{type_name(value)}` has no allowed attribute `{attr}`")


class MatchValue:
    """A regular-expression match, exposing only group/groups/groupdict/start/end/span."""

    __slots__ = ("_match",)

    def __init__(self, match: re.Match):
        self._match = match

    def group(self, *groups): return self._match.group(*groups)
    def groups(self, default=None): return self._match.groups(default)
    def groupdict(self, default=None): return self._match.groupdict(default)
    def start(self, group=0): return self._match.start(group)
    def end(self, group=0): return self._match.end(group)
    def span(self, group=0): return self._match.span(group)

    def __repr__(self) -> str:
        return f"<match {self._match.group(0)!r}>"


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


def limit_error(name: str, limits: Limits) -> FatalError:
    amount = getattr(limits, name)
    shown = f"{amount:,}" if isinstance(amount, int) else f"{amount}"
    return FatalError("LimitExceeded", f"the {Limits.NAMES[name]} ({shown}) was exceeded")


def check_value(value: Any, limits: Limits) -> Any:
    kind = type(value)
    if kind is str:
        return check_string(value, limits)
    if kind in (list, dict, tuple, OrderedSet):
        return check_items(value, limits)
    return value


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, tuple)) else 0


# ---------------------------------------------------------------- operators


def _pow(a: Any, b: Any, limits: Limits) -> Any:
    if type(a) is int and type(b) is int and b > 0:
        bits = max(1, abs(a).bit_length()) * b if abs(a) > 1 else 1
        if bits > limits.pow_bits:
            raise limit_error("pow_bits", limits)
    return a ** b


def _mul(a: Any, b: Any, limits: Limits) -> Any:
    if isinstance(a, (str, list, tuple)) and isinstance(b, int) and not isinstance(b, bool):
        _check_repeat(a, b, limits)
    elif isinstance(b, (str, list, tuple)) and isinstance(a, int) and not isinstance(a, bool):
        _check_repeat(b, a, limits)
    elif type(a) is int and type(b) is int and a.bit_length() + b.bit_length() > limits.pow_bits:
        raise limit_error("pow_bits", limits)
    return a * b


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
        return a + b
    result = a + b
    if isinstance(result, str):
        return check_string(result, limits)
    if isinstance(result, (list, tuple)):
        return check_items(result, limits)
    return result


def _lshift(a: Any, b: Any, limits: Limits) -> Any:
    if type(a) is int and type(b) is int and b > 0 and a.bit_length() + b > limits.pow_bits:
        raise limit_error("pow_bits", limits)
    return a << b


def _mod(a: Any, b: Any, limits: Limits) -> Any:
    if isinstance(a, str):
        raise ScriptError("TypeError", "`%` formatting of strings is not supported; use an f-string")
    return a % b


def _truediv(a, b, limits):
    return a / b


def _plain(fn):
    return lambda a, b, limits: fn(a, b)


BINARY = {
    "+": _add, "-": _plain(operator.sub), "*": _mul, "/": _truediv, "//": _plain(operator.floordiv),
    "%": _mod, "**": _pow, "<<": _lshift, ">>": _plain(operator.rshift), "&": _plain(operator.and_),
    "|": _plain(operator.or_), "^": _plain(operator.xor),
}
UNARY = {"-": operator.neg, "+": operator.pos, "not": operator.not_, "~": operator.invert}


def _in(a, b):
    if isinstance(b, (ScriptFunction, LazyAwaitable, ActorHandle, BuiltinFunction, Module, Facade)):
        raise TypeError(f"argument of type '{type_name(b)}' is not iterable")
    return a in b


COMPARE = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge, "in": _in, "not in": lambda a, b: not _in(a, b), "is": operator.is_,
    "is not": operator.is_not,
}

FORMAT_NUMBER = re.compile(r"\d+")


def format_value(value: Any, spec: str, limits: Limits) -> str:
    """`format(value, spec)` for f-strings, with widths and precisions bounded."""
    for number in FORMAT_NUMBER.findall(spec):
        if len(number) > 9 or int(number) > limits.string_bytes:
            raise limit_error("string_bytes", limits)
    if not isinstance(value, (str, int, float, bool)) and value is not None:
        if spec:
            raise ScriptError("TypeError", f"format spec {spec!r} cannot be applied to {type_name(value)}")
        return display(value)
    return check_string(format(value, spec), limits)


def display(value: Any) -> str:
    """`str(value)` as a script sees it."""
    if isinstance(value, str):
        return value
    if isinstance(value, ScriptError):
        return value.message
    return dwf_repr(value)


def dwf_repr(value: Any) -> str:
    """`repr(value)`: Python's form for plain data, DWF's for everything else; never an address."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(dwf_repr(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(dwf_repr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{dwf_repr(k)}: {dwf_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, OrderedSet):
        return "{" + ", ".join(dwf_repr(v) for v in value) + "}" if len(value) else "set()"
    if isinstance(value, ScriptError):
        return f"{value.type_name}({dwf_repr(value.message)})"
    if isinstance(value, (Record, ScriptFunction, LazyAwaitable, ActorHandle, Module, BuiltinFunction,
                          BoundMethod, ExceptionType, Facade, MatchValue)):
        return repr(value)
    return f"<{type_name(value)}>"


# ---------------------------------------------------------------- JSON


def to_json(value: Any, what: str = "value", depth: int = 0) -> Any:
    """Convert a script value to JSON data (records to objects, tuples to lists), or raise."""
    if depth > 200:
        raise ScriptError("ValueError", f"the {what} is nested too deeply to be JSON")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ScriptError("ValueError", f"the {what} contains a non-finite float ({value}), which is not JSON")
        return value
    if isinstance(value, (list, tuple)):
        return [to_json(v, what, depth + 1) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ScriptError("TypeError", f"the {what} has a non-string dict key {dwf_repr(key)}; JSON keys are strings")
            out[key] = to_json(item, what, depth + 1)
        return out
    if isinstance(value, Record):
        return to_json(value.to_json(), what, depth + 1)
    raise ScriptError("TypeError", f"the {what} contains {type_name(value)} ({dwf_repr(value)}), which is not JSON data")


FACADE_CONTAINERS = tuple(F.CONTAINERS)
