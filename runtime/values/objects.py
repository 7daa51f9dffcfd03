"""This module defines the values a script can hold besides plain data (None, bool, int, float,
str, list, tuple, dict, range, slice) and sets (`runtime.values.sets`): script functions,
lazy awaitables, actor handles, modules, builtin functions, methods referenced through their type
(`str.lower`) and exception types, and `ScriptObject`, the base of the types other modules
define (patterns and matches: `runtime.interpreter.regex`). Records live in `runtime.values.records`.

Nothing else ever reaches script code: the sandbox (`runtime.interpreter.sandbox`) only hands out values of
these types, and every attribute access, call and operator on them goes through it.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

import anyio

from dwf.grammar.builtins import DICT_MUTATING_METHODS


from dwf.runtime.values.errors import ScriptError, builtin_lineage
from dwf.runtime.values.records import Record
from dwf.runtime.values.sets import FrozenSet, OrderedSet
from dwf.runtime.values.views import DictView


class DwfIterator:
    """A lazy iterator value (the results of map, filter, zip, enumerate, reversed). Scripts can
    only iterate it; its name is the Python type name it stands for (`map`, `zip`, ...)."""

    __slots__ = ("_it", "name")

    def __init__(self, it, name: str):
        self._it, self.name = iter(it), name

    def __iter__(self):
        return self._it

    def __next__(self):
        return next(self._it)

    def __repr__(self) -> str:
        return f"<{self.name} object>"


class NativeValue:
    """Base of the values the standard modules make (`runtime/interpreter/collection_values.py`): each type
    names itself for messages (`type_label`) and answers attribute access itself
    (`script_attribute`), within the allow-list of `grammar/builtins.py` METHODS."""

    __slots__ = ()
    type_label = "object"

    def script_attribute(self, attr: str) -> Any:
        raise NotImplementedError


class ScriptObject:
    """Base of the value types defined above the sandbox (regular-expression patterns and
    matches, `runtime.interpreter.regex`): the sandbox asks the value itself for its allow-listed
    attributes and items, and `type_name` is the name scripts see in messages."""

    __slots__ = ()
    type_name = "object"
    # A CPython object of the type this value stands for: an attribute CPython has and DWF
    # does not offer is a fatal misuse, any other a catchable AttributeError
    # (`runtime.interpreter.exceptions.missing_attribute`).
    python_counterpart: Any = None

    def get_attribute(self, name: str) -> Any:
        """The attribute `name`, or the error `missing_attribute` gives for one not allowed."""
        raise NotImplementedError

    def get_item(self, key: Any) -> Any:
        raise ScriptError("TypeError", f"'{self.type_name}' object is not subscriptable")


class ScriptFunction:
    """A `def`, `async def` or `lambda` of the script, with its defining environment, the
    values of its defaults (by parameter name, evaluated when the `def` ran) and its dotted
    `qualname` as CPython spells it in call errors (`outer.<locals>.inner`)."""

    __slots__ = ("name", "code", "env", "defaults", "is_async", "qualname")

    def __init__(self, name: str, code: Any, env: Any, defaults: dict, is_async: bool, qualname: str | None = None):
        self.name, self.code, self.env, self.defaults, self.is_async = name, code, env, defaults, is_async
        self.qualname = qualname or name

    def __repr__(self) -> str:
        return f"<function {self.name}>"


class LazyAwaitable:
    """An effect or coroutine that starts only when awaited or handed to a join (LANGUAGE §4).

    `start` builds the coroutine; the first await runs it and later awaits (concurrent ones
    included) share its outcome, so handing one awaitable to two joins never repeats its
    effect. If the first await is cancelled (a strict join failed, the run is stopping), the
    cancellation stays with that awaiter: the awaitable's outcome becomes a catchable
    `WorkflowError`, never a cancellation re-raised in an unrelated await.
    """

    __slots__ = ("start", "description", "replay", "_outcome", "_running")

    def __init__(self, start: Callable[[], Awaitable[Any]], description: str,
                 replay: Callable[[], tuple[bool, Any]] | None = None):
        self.start = start
        self.description = description
        self.replay = replay  # see settle_now
        self._outcome: tuple[bool, Any] | None = None
        self._running = None

    def begin(self) -> Awaitable[Any]:
        """The coroutine that performs it: `start()`. A subclass may keep its arguments in slots
        and build the coroutine here instead of holding a closure."""
        return self.start()

    def replayed(self) -> tuple[bool, Any]:
        """`replay()`: `(True, outcome)` when the outcome is known at once, else `(False, None)`."""
        return self.replay() if self.replay is not None else (False, None)

    def settle_now(self) -> bool:
        """True when the outcome is known without awaiting: settled before, or supplied at once
        by `replayed()` (a journaled effect of a resumed run), so a join needs no task for it."""
        if self._outcome is None and self._running is None:
            try:
                ready, value = self.replayed()
            except BaseException as error:  # a replayed failure: raised when awaited
                self._outcome = (False, error)
            else:
                if ready:
                    self._outcome = (True, value)
        return self._outcome is not None

    async def wait(self) -> Any:
        while self._outcome is None:
            if self._running is not None:  # another awaiter runs it: share its outcome
                if self._running is True:  # the first to wait for the runner makes the event
                    self._running = anyio.Event()
                await self._running.wait()
                continue
            self._running = True  # running; almost every awaitable has one awaiter, which needs no event
            try:
                self._outcome = (True, await self.begin())
            except anyio.get_cancelled_exc_class():
                self._outcome = (False, ScriptError("WorkflowError", f"{self.description} was cancelled before it finished"))
                raise
            except BaseException as error:
                self._outcome = (False, error)
            finally:
                if self._running is not True:
                    self._running.set()
        ok, value = self._outcome
        if ok:
            return value
        raise value

    def __repr__(self) -> str:
        return f"<awaitable {self.description}>"


class ActorHandle:
    """The script's handle on an actor created by `agent()`."""

    __slots__ = ("actor_id", "name", "site", "key")

    def __init__(self, actor_id: str, name: str | None, site: str, key: str):
        self.actor_id, self.name, self.site, self.key = actor_id, name, site, key

    def __repr__(self) -> str:
        return f"<agent {self.name or self.actor_id}>"


class Module:
    """An importable module (`json`, `re`, `math`): a read-only namespace of allowed members."""

    __slots__ = ("name", "members")

    def __init__(self, name: str, members: dict[str, Any]):
        self.name, self.members = name, members

    def __repr__(self) -> str:
        return f"<module {self.name}>"


class BuiltinFunction:
    """A builtin or module function. `fn(interp, args, kwargs)` gets the interpreter so it can
    apply limits and call script functions (for `key=`, `map`, `filter`)."""

    __slots__ = ("name", "fn")

    def __init__(self, name: str, fn: Callable):
        self.name, self.fn = name, fn

    def __repr__(self) -> str:
        return f"<built-in function {self.name}>"


class BoundMethod:
    """A method of a plain value fetched through the sandbox's allow-list."""

    __slots__ = ("receiver", "name", "fn")

    def __init__(self, receiver: Any, name: str, fn: Callable):
        self.receiver, self.name, self.fn = receiver, name, fn

    def __repr__(self) -> str:
        return f"<method {self.name} of {type_name(self.receiver)}>"


class UnboundMethod:
    """A method of a plain value type referenced through the type (`str.lower`, `list.sort`):
    calling it with the receiver first calls the receiver's method, and the type-level methods
    (`dict.fromkeys`, `str.maketrans`) take no receiver. One value per (type, method), so
    `str.lower is str.lower` as in CPython."""

    __slots__ = ("owner", "name")

    def __init__(self, owner: str, name: str):
        self.owner, self.name = owner, name

    def __repr__(self) -> str:
        if self.name in ("fromkeys", "maketrans"):
            return f"<built-in method {self.name} of type object>"
        return f"<method '{self.name}' of '{self.owner}' objects>"


class ExceptionType:
    """A script-visible exception class: a builtin (`ValueError`, `AskFailed`, ...),
    `json.JSONDecodeError`, or a class the script declares (`class RetryError(Exception): pass`).
    `lineage` is the class's name and its bases' names, nearest first. A class is only a name and
    its bases: calling it makes a `ScriptError` (`runtime.interpreter.interpreter`), and it has no attributes
    a script can reach."""

    __slots__ = ("name", "lineage")

    def __init__(self, name: str, lineage: tuple[str, ...] | None = None):
        self.name = name
        self.lineage = lineage or builtin_lineage(name)

    def __repr__(self) -> str:
        return f"<class '{CLASS_PATHS.get(self.name, self.name)}'>"

    def __eq__(self, other) -> bool:
        return isinstance(other, ExceptionType) and other.lineage == self.lineage

    def __hash__(self) -> int:
        return hash(("ExceptionType", self.lineage))


# Exception classes whose CPython name is qualified by their module.
CLASS_PATHS = {"JSONDecodeError": "json.decoder.JSONDecodeError"}


class Facade:
    """A facade container (`files`, `git`, `world`, `artifact`, `budget`) as a value."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<facade {self.name}>"


class ReadOnlyMapping(dict):
    """`args`: a dict the script can read but not change (item assignment, `del`, `|=` and the
    methods of `grammar.builtins.DICT_MUTATING_METHODS` are refused)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("`args` is read-only")

    __setitem__ = __delitem__ = __ior__ = _refuse


for _method in DICT_MUTATING_METHODS:
    setattr(ReadOnlyMapping, _method, ReadOnlyMapping._refuse)
del _method


# Builtins that are types in CPython (`str`, `list`, ...): `type(str).__name__` is "type".
PYTHON_TYPES = frozenset({"bool", "dict", "float", "int", "list", "range", "set", "str", "tuple", "frozenset",
                          "enumerate", "filter", "map", "reversed", "zip", "slice", "object"})


def type_name(value: Any) -> str:
    """The name of a value's type as CPython's messages give it (`'NoneType' object is not
    callable`), and DWF's own name for DWF values (records, `Agent`, `awaitable`, `facade`)."""
    if value is None:
        return "NoneType"
    if isinstance(value, NativeValue):
        return value.type_label
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Record):
        return value.type_name
    if isinstance(value, OrderedSet):
        return "set"
    if isinstance(value, FrozenSet):
        return "frozenset"
    if isinstance(value, UnboundMethod):
        return "builtin_function_or_method" if value.name in ("fromkeys", "maketrans") else "method_descriptor"
    if isinstance(value, ScriptFunction):
        return "function"
    if isinstance(value, LazyAwaitable):
        return "awaitable"
    if isinstance(value, ActorHandle):
        return "Agent"
    if isinstance(value, ScriptError):
        return value.type_name
    if isinstance(value, BuiltinFunction):
        if value.name.startswith(("json.", "re.")):  # written in Python in CPython
            return "function"
        return "type" if value.name in PYTHON_TYPES else "builtin_function_or_method"
    if isinstance(value, BoundMethod):
        return "builtin_function_or_method"
    if isinstance(value, DwfIterator):
        return value.name
    if isinstance(value, ScriptObject):
        return value.type_name
    if isinstance(value, ExceptionType):
        return "type"
    name = {int: "int", float: "float", str: "str", list: "list", tuple: "tuple", dict: "dict",
            ReadOnlyMapping: "dict", range: "range", slice: "slice", Facade: "facade", Module: "module"}.get(type(value))
    if name is None:
        name = value.type_name if isinstance(value, DictView) else "object"
    return name


def class_name(value: Any) -> str:
    """`type(value).__name__`: the unqualified name of the value's type."""
    return type_name(value).rpartition(".")[2]
