"""This module defines the machinery the interpreter's parts share: frames (the variables of one
call and its occurrence path), the private control-flow signals for `break`, `continue` and
`return` (they never leave the interpreter), closure helpers, and the value operations that
statements and expressions both use (item access, unpacking, error conversion)."""

from __future__ import annotations

from typing import Any, Callable

from dwf.compiler import ir

from dwf.runtime.interpreter import sandbox
from dwf.runtime.interpreter.collection_values import DequeValue
from dwf.runtime.values.errors import DwfError, FatalError, Frame, ScriptError
from dwf.runtime.interpreter.exceptions import unbound_free, unbound_local, undefined_global
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.values.objects import DwfIterator, ReadOnlyMapping, ScriptObject, type_name


# RuntimeError: a dict or set changed size during iteration (see `sandbox.to_script_error`).
_PYTHON_ERRORS = (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError,
                  AttributeError, UnicodeError, RuntimeError)


class _Break(BaseException):
    pass


class _Continue(BaseException):
    pass


class _Return(BaseException):
    def __init__(self, value: Any):
        self.value = value


class Frame_:
    """The variables of one function call (or comprehension) and where it stands."""

    __slots__ = ("vars", "parent", "path", "depth", "where", "handling", "is_function")

    def __init__(self, vars: dict, parent: Frame_ | None, path: tuple, depth: int, where: str, is_function: bool = True):
        self.vars = vars
        self.parent = parent
        self.path = path
        self.depth = depth
        self.where = where
        self.handling: list[ScriptError] = []  # exceptions being handled, for a bare `raise`
        self.is_function = is_function


Code = tuple[Callable, bool]  # (closure, is_async)


def unbound(name: str, scope: str) -> ScriptError:
    """The error CPython raises for a name read (or deleted) before it is bound in `scope`."""
    if scope == ir.LOCAL:
        return unbound_local(name)
    if scope == ir.FREE:
        return unbound_free(name)
    return undefined_global(name)


def _sync_or_async(parts: list[Code]) -> bool:
    return any(is_async for _, is_async in parts)


async def _ev(code: Code, frame: Frame_) -> Any:
    fn, is_async = code
    return await fn(frame) if is_async else fn(frame)


def _unpack(value: Any, count: int, star: int | None) -> list:
    """The values for `count` unpacking targets (the starred one, at `star`, gets a list)."""
    if not isinstance(value, sandbox.ITERABLES):
        raise ScriptError("TypeError", f"cannot unpack non-iterable {type_name(value)} object")
    items = list(value)
    if star is None:
        if len(items) > count:
            raise ScriptError("ValueError", f"too many values to unpack (expected {count})")
        if len(items) < count:
            raise ScriptError("ValueError", f"not enough values to unpack (expected {count}, got {len(items)})")
        return items
    if len(items) < count - 1:
        raise ScriptError("ValueError", f"not enough values to unpack (expected at least {count - 1}, got {len(items)})")
    after = len(items) - (count - star - 1)
    return items[:star] + [items[star:after]] + items[after:]


def _made(value: Any, limits: Limits) -> Any:
    sandbox.check_items(value, limits)
    sandbox.charge(limits, sandbox.work(value))
    return sandbox.check_tuple(value, limits) if type(value) is tuple else value


def _collect_args(frame, args, keywords, fn=None):
    positional, named = [], {}
    alone = len(args) == 1
    for code, starred in args:
        value = code[0](frame)
        if starred:
            positional.extend(star_arguments(value, fn, alone))
        else:
            positional.append(value)
    for name, code in keywords:
        add_keywords(named, name, code[0](frame), fn)
    return positional, named


def callee_name(fn: Any) -> str:
    """How CPython names a callee in call errors: `f()`, `outer.<locals>.f()`, `len()`."""
    qualname = getattr(fn, "qualname", None) or getattr(fn, "name", None)
    return f"{qualname}()" if isinstance(qualname, str) else type_name(fn)


def star_arguments(value: Any, fn: Any, alone: bool) -> Any:
    """The items of `*value` in a call, or CPython's error: a lone `*x` is checked by the call
    (naming the callee), one among other arguments while the argument list is built."""
    if isinstance(value, sandbox.ITERABLES):
        return sandbox.iterable(value)
    if alone:
        raise ScriptError("TypeError", f"{callee_name(fn)} argument after * must be an iterable, not {_class_name(value)}")
    raise ScriptError("TypeError", f"Value after * must be an iterable, not {_class_name(value)}")


def _class_name(value: Any) -> str:
    """The class name CPython prints in "must be an iterable, not X" (`NoneType` for None)."""
    return "NoneType" if value is None else type_name(value)


def add_keywords(named: dict, name: str | None, value: Any, fn: Any) -> None:
    """Add `name=value` (or every item of `**value` when `name` is None) to a call's keywords
    with CPython's checks: a mapping, string keys, no keyword given twice."""
    if name is not None:
        named[name] = value  # a literal keyword given twice is a syntax error (DWF110)
        return
    if not isinstance(value, dict):
        raise ScriptError("TypeError", f"{callee_name(fn)} argument after ** must be a mapping, not {_class_name(value)}")
    for key, item in value.items():
        if type(key) is not str:
            raise ScriptError("TypeError", "keywords must be strings")
        if key in named:
            raise ScriptError("TypeError", f"{callee_name(fn)} got multiple values for keyword argument '{key}'")
        named[key] = item


def _with_frame(error: DwfError, line: int, column: int, frame: Frame_) -> DwfError:
    if isinstance(error, FatalError) and not error.frames:
        error.message += f" at line {line}"  # the innermost script line: fatal errors name it
    error.add_frame(Frame(line, column, frame.where))
    return error


def _out_of_memory() -> FatalError:
    return FatalError("LimitExceeded", "the run ran out of memory")


def _convert(error: BaseException) -> ScriptError:
    if isinstance(error, RecursionError):
        raise error  # not a script exception: the statement it ends reports the recursion limit
    converted = sandbox.to_script_error(error)
    if converted is None:
        raise FatalError("InternalError", f"{type(error).__name__}: {error}")
    return converted


def _iterate(value: Any):
    return sandbox.iterable(value)


def _mapping(value: Any) -> dict:
    if isinstance(value, dict):
        return value
    raise ScriptError("TypeError", f"argument after ** must be a mapping, not {type_name(value)}")


def _get_item(container: Any, index: Any) -> Any:
    if isinstance(container, (list, tuple, str, dict, range, DequeValue)):
        return container[index]
    if isinstance(container, ScriptObject):
        return container.get_item(index)  # a match: `m[1]`, `m["name"]`
    raise ScriptError("TypeError", f"'{type_name(container)}' object is not subscriptable")


def _set_item(container: Any, index: Any, value: Any, limits: Limits) -> None:
    if isinstance(container, ReadOnlyMapping):
        raise ScriptError("TypeError", "`args` is read-only")
    if isinstance(container, (list, dict)):
        if type(index) is slice:
            if not isinstance(container, list):
                raise ScriptError("TypeError", "unhashable type: 'slice'")
            value = _bounded_list(value, limits)  # slice assignment can grow a list
        container[index] = value
        if len(container) > limits.items:
            raise sandbox.limit_error("items", limits)
        return
    if isinstance(container, DequeValue):
        container[index] = value
        return
    raise ScriptError("TypeError", f"'{type_name(container)}' object does not support item assignment")


def _del_item(container: Any, index: Any) -> None:
    if isinstance(container, ReadOnlyMapping):
        raise ScriptError("TypeError", "`args` is read-only")
    if isinstance(container, (list, dict, DequeValue)):
        del container[index]
        return
    raise ScriptError("TypeError", f"'{type_name(container)}' object doesn't support item deletion")


def _bounded_list(value: Any, limits: Limits) -> list:
    if type(sandbox.iterable(value)) is not DwfIterator:  # sized: check, then copy in C
        if len(value) > limits.items:
            raise sandbox.limit_error("items", limits)
        sandbox.charge(limits, sandbox.work(value))
        return list(value)
    items = []
    for item in value:  # a lazy iterator charges its own items
        items.append(item)
        if len(items) > limits.items:
            raise sandbox.limit_error("items", limits)
    return items
