"""This module defines the values a script can hold besides plain data (None, bool, int, float,
str, list, tuple, dict, range, slice): insertion-ordered sets and frozensets, script functions,
lazy awaitables, actor handles, modules, builtin functions, methods referenced through their type
(`str.lower`) and exception types, and `ScriptObject`, the base of the types other modules
define (patterns and matches: `runtime.interpreter.regex`). Records live in `runtime.values.records`.

Nothing else ever reaches script code: the sandbox (`runtime.interpreter.sandbox`) only hands out values of
these types, and every attribute access, call and operator on them goes through it.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Iterable, Iterator

from dwf.grammar.builtins import DICT_MUTATING_METHODS


def _sets_only(operator: Callable) -> Callable:
    def apply(self, other):
        if isinstance(other, FrozenSet):
            other = other.items
        elif not isinstance(other, OrderedSet):
            return NotImplemented
        return operator(self, other)
    return apply


def _set_items(items: Iterator) -> Iterator:
    """A set's items in order. The backing dict's iterator detects a change during iteration
    but names a dictionary; the message becomes CPython's for sets."""
    try:
        yield from items
    except RuntimeError as error:
        raise RuntimeError("Set changed size during iteration" if "size" in str(error)
                           else "Set changed during iteration") from None


class OrderedSet:
    """A set that iterates in insertion order (LANGUAGE §4), backed by a dict."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable = ()):
        self._items: dict = dict.fromkeys(items)

    def __iter__(self) -> Iterator:
        return _set_items(iter(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, item) -> bool:
        return item in self._items

    def __eq__(self, other) -> bool:
        if isinstance(other, OrderedSet):
            return self._items.keys() == other._items.keys()
        return NotImplemented

    __hash__ = None  # mutable, like set

    def __repr__(self) -> str:
        return "{" + ", ".join(repr(i) for i in self._items) + "}" if self._items else "set()"

    # Operators (|, &, -, ^, <=, <, >=, >) keep the left operand's order, then the right's.
    # They take sets only; for anything else NotImplemented lets Python try the other operand
    # (a dict view: `{1} | d.keys()`) or raise CPython's "unsupported operand" TypeError.
    @_sets_only
    def __or__(self, other): return OrderedSet([*self, *_as_set(other)])
    @_sets_only
    def __and__(self, other):
        other = _as_set(other)
        return OrderedSet(i for i in self if i in other)
    @_sets_only
    def __sub__(self, other):
        other = _as_set(other)
        return OrderedSet(i for i in self if i not in other)
    @_sets_only
    def __xor__(self, other):
        other = _as_set(other)
        return OrderedSet([*(i for i in self if i not in other), *(i for i in other if i not in self)])
    @_sets_only
    def __le__(self, other): return all(i in _as_set(other) for i in self)
    @_sets_only
    def __lt__(self, other): return self <= other and len(self) < len(_as_set(other))
    @_sets_only
    def __ge__(self, other): return _as_set(other) <= self
    @_sets_only
    def __gt__(self, other): return _as_set(other) < self

    # In-place operators mutate the set, so every alias sees the change (as in CPython).
    @_sets_only
    def __ior__(self, other):
        self._items.update(dict.fromkeys(_as_set(other)))
        return self
    @_sets_only
    def __iand__(self, other):
        self._items = (self & other)._items
        return self
    @_sets_only
    def __isub__(self, other):
        self._items = (self - other)._items
        return self
    @_sets_only
    def __ixor__(self, other):
        self._items = (self ^ other)._items
        return self

    # Methods exposed to scripts (grammar/builtins.py SET_METHODS).
    def add(self, item) -> None: self._items[item] = None
    def clear(self) -> None: self._items.clear()
    def copy(self) -> OrderedSet: return OrderedSet(self)
    def discard(self, item) -> None: self._items.pop(item, None)
    def remove(self, item) -> None: del self._items[item]
    def pop(self):
        if not self._items:
            raise KeyError("pop from an empty set")
        key = next(iter(self._items))
        del self._items[key]
        return key
    def union(self, *others): return OrderedSet([*self, *(i for o in others for i in o)])
    def intersection(self, *others):
        result = self
        for other in others:
            result = result & OrderedSet(other)
        return result.copy()
    def difference(self, *others):
        result = self
        for other in others:
            result = result - OrderedSet(other)
        return result.copy()
    def symmetric_difference(self, other): return self ^ OrderedSet(other)
    def update(self, *others) -> None:
        for other in others:
            self._items.update(dict.fromkeys(other))
    def intersection_update(self, *others) -> None: self._items = self.intersection(*others)._items
    def difference_update(self, *others) -> None: self._items = self.difference(*others)._items
    def symmetric_difference_update(self, other) -> None: self._items = (self ^ OrderedSet(other))._items
    def isdisjoint(self, other) -> bool: return not any(i in self for i in other)
    def issubset(self, other) -> bool: return self <= OrderedSet(other)
    def issuperset(self, other) -> bool: return OrderedSet(other) <= self


def _as_set(value) -> OrderedSet:
    if isinstance(value, OrderedSet):
        return value
    if isinstance(value, FrozenSet):
        return value.items
    raise TypeError(f"unsupported operand: set and {type_name(value)}")


class FrozenSet:
    """An immutable, hashable set that iterates in insertion order like DWF's sets. Operators
    with sets give the left operand's kind (`frozenset | set` is a frozenset), as in CPython."""

    __slots__ = ("items", "_hash", "measured")

    def __init__(self, items: Iterable = ()):
        self.items = items if type(items) is OrderedSet else OrderedSet(items)
        self._hash: int | None = None
        self.measured: tuple[int, int] | None = None  # see sandbox.check_frozenset

    def __iter__(self) -> Iterator:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, item) -> bool:
        return item in self.items

    def __eq__(self, other) -> bool:
        if isinstance(other, (FrozenSet, OrderedSet)):
            return self.items == _as_set(other)
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:  # order-independent, like CPython's, and computed once
            self._hash = hash(frozenset(self.items))
        return self._hash

    def __repr__(self) -> str:
        return f"frozenset({self.items!r})" if self.items else "frozenset()"

    # Operators take sets and frozensets only; anything else gets Python's TypeError, which
    # names the operand types.
    def __or__(self, other): return FrozenSet(self.items | other) if _is_set(other) else NotImplemented
    def __and__(self, other): return FrozenSet(self.items & other) if _is_set(other) else NotImplemented
    def __sub__(self, other): return FrozenSet(self.items - other) if _is_set(other) else NotImplemented
    def __xor__(self, other): return FrozenSet(self.items ^ other) if _is_set(other) else NotImplemented
    def __le__(self, other): return self.items <= other if _is_set(other) else NotImplemented
    def __lt__(self, other): return self.items < other if _is_set(other) else NotImplemented
    def __ge__(self, other): return self.items >= other if _is_set(other) else NotImplemented
    def __gt__(self, other): return self.items > other if _is_set(other) else NotImplemented

    # Methods exposed to scripts (grammar/builtins.py FROZENSET_METHODS).
    def copy(self) -> FrozenSet: return self
    def union(self, *others): return FrozenSet(self.items.union(*others))
    def intersection(self, *others): return FrozenSet(self.items.intersection(*others))
    def difference(self, *others): return FrozenSet(self.items.difference(*others))
    def symmetric_difference(self, other): return FrozenSet(self.items.symmetric_difference(other))
    def isdisjoint(self, other) -> bool: return self.items.isdisjoint(other)
    def issubset(self, other) -> bool: return self.items.issubset(other)
    def issuperset(self, other) -> bool: return self.items.issuperset(other)


def _is_set(value) -> bool:
    return isinstance(value, (OrderedSet, FrozenSet))


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
        from dwf.runtime.values.errors import ScriptError

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

    def settle_now(self) -> bool:
        """True when the outcome is known without awaiting: settled before, or supplied at once
        by `replay()` (a journaled effect of a resumed run), so a join needs no task for it."""
        if self._outcome is None and self._running is None and self.replay is not None:
            try:
                ready, value = self.replay()
            except BaseException as error:  # a replayed failure: raised when awaited
                self._outcome = (False, error)
            else:
                if ready:
                    self._outcome = (True, value)
        return self._outcome is not None

    async def wait(self) -> Any:
        import anyio

        while self._outcome is None:
            if self._running is not None:
                await self._running.wait()  # another awaiter runs it: share its outcome
                continue
            running = self._running = anyio.Event()
            try:
                self._outcome = (True, await self.start())
            except anyio.get_cancelled_exc_class():
                from dwf.runtime.values.errors import ScriptError

                self._outcome = (False, ScriptError("WorkflowError", f"{self.description} was cancelled before it finished"))
                raise
            except BaseException as error:
                self._outcome = (False, error)
            finally:
                running.set()
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
        from dwf.runtime.values.errors import builtin_lineage

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
    from dwf.runtime.values.errors import ScriptError
    from dwf.runtime.values.records import Record

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
        from dwf.runtime.values.views import DictView  # deferred: views build on this module

        name = value.type_name if isinstance(value, DictView) else "object"
    return name


def class_name(value: Any) -> str:
    """`type(value).__name__`: the unqualified name of the value's type."""
    return type_name(value).rpartition(".")[2]
