"""This module defines the values a script can hold besides plain data (None, bool, int, float,
str, list, tuple, dict): insertion-ordered sets, script functions, lazy awaitables, actor
handles, modules, builtin functions and exception types. Records live in `runtime.records`.

Nothing else ever reaches script code: the sandbox (`runtime.sandbox`) only hands out values of
these types, and every attribute access, call and operator on them goes through it.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Iterable, Iterator


def _sets_only(operator: Callable) -> Callable:
    def apply(self, other):
        if not isinstance(other, OrderedSet):
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
    raise TypeError(f"unsupported operand: set and {type_name(value)}")


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


class MatchValue:
    """A regular-expression match as plain data (the subject string, the span of every group and
    the group names), exposing only group/groups/groupdict/start/end/span like `re.Match`."""

    __slots__ = ("_string", "_spans", "_names")

    def __init__(self, string: str, spans: list, names: dict):
        self._string, self._spans, self._names = string, [tuple(s) for s in spans], dict(names)

    def _index(self, group) -> int:
        if isinstance(group, str) and group in self._names:
            return self._names[group]
        if isinstance(group, int) and not isinstance(group, bool) and 0 <= group < len(self._spans):
            return group
        raise IndexError("no such group")

    def _text(self, index: int, default=None):
        start, end = self._spans[index]
        return default if start < 0 else self._string[start:end]

    def group(self, *groups):
        if len(groups) <= 1:
            return self._text(self._index(groups[0] if groups else 0))
        return tuple(self._text(self._index(g)) for g in groups)

    def groups(self, default=None):
        return tuple(self._text(i, default) for i in range(1, len(self._spans)))

    def groupdict(self, default=None):
        return {name: self._text(index, default) for name, index in self._names.items()}

    def start(self, group=0): return self._spans[self._index(group)][0]
    def end(self, group=0): return self._spans[self._index(group)][1]
    def span(self, group=0): return self._spans[self._index(group)]

    def __repr__(self) -> str:
        start, end = self._spans[0]
        return f"<re.Match object; span=({start}, {end}), match={self._string[start:end]!r}>"


class ScriptFunction:
    """A `def`, `async def` or `lambda` of the script, with its defining environment."""

    __slots__ = ("name", "code", "env", "defaults", "is_async")

    def __init__(self, name: str, code: Any, env: Any, defaults: tuple, is_async: bool):
        self.name, self.code, self.env, self.defaults, self.is_async = name, code, env, defaults, is_async

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
                from .errors import ScriptError

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


class ExceptionType:
    """A script-visible exception type (`ValueError`, `AskFailed`, ...)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<class '{self.name}'>"

    def __eq__(self, other) -> bool:
        return isinstance(other, ExceptionType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("ExceptionType", self.name))


class Facade:
    """A facade container (`files`, `git`, `world`, `artifact`, `budget`) as a value."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<facade {self.name}>"


class ReadOnlyMapping(dict):
    """`args`: a dict the script can read but not change."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("`args` is read-only")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse


def type_name(value: Any) -> str:
    """The DWF name of a value's type, for messages."""
    from .errors import ScriptError
    from .records import Record

    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Record):
        return value.type_name
    if isinstance(value, OrderedSet):
        return "set"
    if isinstance(value, ScriptFunction):
        return "function"
    if isinstance(value, LazyAwaitable):
        return "awaitable"
    if isinstance(value, ActorHandle):
        return "Agent"
    if isinstance(value, ScriptError):
        return value.type_name
    if isinstance(value, (BuiltinFunction, BoundMethod)):
        return "builtin_function"
    if isinstance(value, DwfIterator):
        return value.name
    if isinstance(value, MatchValue):
        return "re.Match"
    if isinstance(value, ExceptionType):
        return "type"
    name = {int: "int", float: "float", str: "str", list: "list", tuple: "tuple", dict: "dict",
            ReadOnlyMapping: "dict", range: "range", Facade: "facade", Module: "module"}.get(type(value))
    if name is None:
        from .views import DictView

        name = value.type_name if isinstance(value, DictView) else "object"
    return name
