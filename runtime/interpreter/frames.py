"""This module defines the machinery the interpreter's parts share: frames (the variables of one
call and its occurrence path), `Code` (a compiled closure and whether it is async), the
control-flow signals for `break`, `continue` and `return` (they never leave the interpreter),
argument collection for calls, `Caller` (what calls and builtins need of the interpreter), and
the value operations that statements and expressions both use (item access, unpacking, error
conversion)."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol

from dwf.compiler import ir

from dwf.runtime.interpreter import sandbox
from dwf.runtime.interpreter.collection_values import DequeValue
from dwf.runtime.values.errors import DwfError, FatalError, ScriptError, TraceFrame
from dwf.runtime.interpreter.exceptions import unbound_free, unbound_local, undefined_global
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.values.objects import DwfIterator, ReadOnlyMapping, ScriptObject, type_name


# The Python errors allowed operations raise, which become script exceptions (RuntimeError: a
# dict or set changed size during iteration; see `sandbox.to_script_error`).
PYTHON_ERRORS = (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError,
                 AttributeError, UnicodeError, RuntimeError)


class BreakSignal(BaseException):
    """`break`: caught by the innermost loop."""


class ContinueSignal(BaseException):
    """`continue`: caught by the innermost loop."""


class ReturnSignal(BaseException):
    """`return value`: caught by the function call (or the script run)."""

    def __init__(self, value: Any):
        self.value = value


class Frame:
    """The variables of one function call (or comprehension) and where it stands."""

    __slots__ = ("vars", "parent", "path", "depth", "where", "handling", "is_function")

    def __init__(self, vars: dict, parent: Frame | None, path: tuple, depth: int, where: str, is_function: bool = True):
        self.vars = vars
        self.parent = parent
        self.path = path
        self.depth = depth
        self.where = where
        self.handling: list[ScriptError] = []  # exceptions being handled, for a bare `raise`
        self.is_function = is_function


class Code(NamedTuple):
    """A compiled IR node: the closure that runs it on a frame, and whether that closure is a
    coroutine function (only code containing `await` is)."""

    run: Callable
    is_async: bool


class Caller(Protocol):
    """What calls and builtins need of the interpreter (`interpreter.Interpreter`): the run's
    limits, its step counter, the frame a builtin runs on behalf of, and calling a value."""

    limits: sandbox.RunLimits
    steps: int
    caller: Frame | None

    def call_sync(self, fn: Any, args: list, kwargs: dict, frame: Frame | None = None, call_id: str = "call") -> Any:
        """Call a script value from synchronous code."""

    def step_limit(self) -> FatalError:
        """The error a run past its step limit ends with."""


def unbound(name: str, scope: str) -> ScriptError:
    """The error CPython raises for a name read (or deleted) before it is bound in `scope`."""
    if scope == ir.LOCAL:
        return unbound_local(name)
    if scope == ir.FREE:
        return unbound_free(name)
    return undefined_global(name)


def any_async(parts: list[Code]) -> bool:
    """Whether any of `parts` must be awaited (then the code combining them is async too)."""
    return any(is_async for _, is_async in parts)


async def evaluate(code: Code, frame: Frame) -> Any:
    """Run `code` on `frame` from async code, awaiting it when it is async."""
    fn, is_async = code
    return await fn(frame) if is_async else fn(frame)


def unpack(value: Any, count: int, star: int | None) -> list:
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


def new_container(value: Any, limits: Limits) -> Any:
    """A container a display or `*` built, checked against the size limits and charged."""
    sandbox.check_items(value, limits)
    sandbox.charge(limits, sandbox.work(value))
    return sandbox.check_tuple(value, limits) if type(value) is tuple else value


def collect_args(frame: Frame, args: list[tuple[Code, bool]], keywords: list[tuple[str | None, Code]],
                 callee: Any) -> tuple[list, dict]:
    """The positional and keyword arguments of a call from synchronous code: `args` are
    `(code, starred)`, `keywords` `(name, code)` (`None` for `**mapping`); `callee` is named in
    CPython's errors for a bad `*` or `**`."""
    positional, named = [], {}
    alone = len(args) == 1
    for code, starred in args:
        value = code.run(frame)
        if starred:
            positional.extend(star_arguments(value, callee, alone))
        else:
            positional.append(value)
    for name, code in keywords:
        add_keywords(named, name, code.run(frame), callee)
    return positional, named


async def collect_args_async(frame: Frame, args: list[tuple[Code, bool]], keywords: list[tuple[str | None, Code]],
                             callee: Any) -> tuple[list, dict]:
    """`collect_args` for a call with an argument that awaits."""
    positional, named = [], {}
    alone = len(args) == 1
    for code, starred in args:
        value = await evaluate(code, frame)
        if starred:
            positional.extend(star_arguments(value, callee, alone))
        else:
            positional.append(value)
    for name, code in keywords:
        add_keywords(named, name, await evaluate(code, frame), callee)
    return positional, named


def callee_name(fn: Any) -> str:
    """How CPython names a callee in call errors: `f()`, `outer.<locals>.f()`, `len()`; a facade
    call's callee is its qualified name (`files.read`)."""
    if isinstance(fn, str):
        return f"{fn}()"
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


def with_frame(error: DwfError, line: int, column: int, frame: Frame) -> DwfError:
    """`error` with the statement at `line`:`column` of `frame` added to its traceback."""
    if isinstance(error, FatalError) and not error.frames:
        error.message += f" at line {line}"  # the innermost script line: fatal errors name it
    error.add_frame(TraceFrame(line, column, frame.where))
    return error


# What a failing statement is located at (`located`): signals are not failures.
STATEMENT_FAILURES = (DwfError, RecursionError, MemoryError, *PYTHON_ERRORS)


def located(limits: Limits, error: BaseException, line: int, column: int, frame: Frame) -> DwfError:
    """The DWF error a failing statement ends with, carrying this statement as a traceback frame:
    DWF errors as they are, Python errors of allowed operations as script exceptions, runaway
    recursion and memory as limit errors."""
    if isinstance(error, DwfError):
        failure = error
    elif isinstance(error, RecursionError):
        failure = sandbox.limit_error("recursion", limits)
    elif isinstance(error, MemoryError):
        failure = out_of_memory()
    else:
        failure = convert_error(error)
    return with_frame(failure, line, column, frame)


def out_of_memory() -> FatalError:
    """The error a run that exhausted memory ends with."""
    return FatalError("LimitExceeded", "the run ran out of memory")


def convert_error(error: BaseException) -> ScriptError:
    """The script exception a Python error of an allowed operation stands for (a Python error
    nothing allowed raises is an internal error)."""
    if isinstance(error, RecursionError):
        raise error  # not a script exception: the statement it ends reports the recursion limit
    converted = sandbox.to_script_error(error)
    if converted is None:
        raise FatalError("InternalError", f"{type(error).__name__}: {error}")
    return converted


def iterate(value: Any):
    """The items of a value a script iterates (`for`, comprehensions, `*`), or CPython's error."""
    return sandbox.iterable(value)


def as_mapping(value: Any) -> dict:
    """The mapping of `**value` in a dict display, or CPython's error."""
    if isinstance(value, dict):
        return value
    raise ScriptError("TypeError", f"argument after ** must be a mapping, not {type_name(value)}")


def get_item(container: Any, index: Any) -> Any:
    """`container[index]` for the values scripts can subscript."""
    if isinstance(container, (list, tuple, str, dict, range, DequeValue)):
        return container[index]
    if isinstance(container, ScriptObject):
        return container.get_item(index)  # a match: `m[1]`, `m["name"]`
    raise ScriptError("TypeError", f"'{type_name(container)}' object is not subscriptable")


def subscript(container: Any, key: Any, limits: Limits) -> Any:
    """`container[key]` of an expression: a slice copies, so its length is charged; a dict
    hashes the key (`sandbox.charge_key`)."""
    if type(key) in sandbox.HASHED_BY_WALK and isinstance(container, dict):
        sandbox.charge_key(limits, key)
    result = get_item(container, key)
    if type(key) is slice:
        sandbox.charge(limits, sandbox.work(result))
    return result


def set_item(container: Any, index: Any, value: Any, limits: Limits) -> None:
    """`container[index] = value`, under the container size limit."""
    if isinstance(container, ReadOnlyMapping):
        raise ScriptError("TypeError", "`args` is read-only")
    if isinstance(container, (list, dict)):
        if type(index) in sandbox.HASHED_BY_WALK and isinstance(container, dict):
            sandbox.charge_key(limits, index)
        if type(index) is slice:
            if not isinstance(container, list):
                raise ScriptError("TypeError", "unhashable type: 'slice'")
            value = bounded_list(value, limits)  # slice assignment can grow a list
        container[index] = value
        if len(container) > limits.items:
            raise sandbox.limit_error("items", limits)
        return
    if isinstance(container, DequeValue):
        container[index] = value
        return
    raise ScriptError("TypeError", f"'{type_name(container)}' object does not support item assignment")


def del_item(container: Any, index: Any, limits: Limits) -> None:
    """`del container[index]`."""
    if isinstance(container, ReadOnlyMapping):
        raise ScriptError("TypeError", "`args` is read-only")
    if isinstance(container, (list, dict, DequeValue)):
        if type(index) in sandbox.HASHED_BY_WALK and isinstance(container, dict):
            sandbox.charge_key(limits, index)
        del container[index]
        return
    raise ScriptError("TypeError", f"'{type_name(container)}' object doesn't support item deletion")


def bounded_list(value: Any, limits: Limits) -> list:
    """`list(value)` under the container size limit (a lazy iterator is stopped at the limit)."""
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
