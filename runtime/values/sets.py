"""This module defines the script's sets: `OrderedSet` (a `set` that iterates in insertion order,
so runs are deterministic) and `FrozenSet`, with CPython's operators and methods (the methods a
script may call are listed in grammar/builtins.py)."""

from __future__ import annotations

from typing import Callable, Iterable, Iterator


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
    raise TypeError(f"unsupported operand: set and {type(value).__name__}")  # `_sets_only` keeps others out


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
