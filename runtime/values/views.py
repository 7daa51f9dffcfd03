"""This module defines the live views that `dict.keys()`, `dict.values()` and `dict.items()`
return, with CPython's semantics:

- a view reads its dict on every use, so it sees later insertions and deletions; `len`, `in`
  and iteration are live, and iterating hands out the dict's own iterators, which raise
  CPython's `RuntimeError` ("dictionary changed size during iteration") when the dict changes
  size while they run;
- keys and items views are set-like: `-`, `&`, `|`, `^` (with the view on either side, and any
  iterable on the other) give DWF sets, `==`, `<=`, `<`, `>=`, `>` compare them with sets and
  other set-like views, and `isdisjoint` is offered; values views are not set-like and compare
  by identity (`d.values() == d.values()` is False in CPython);
- they are not sequences: no indexing, no `copy()`, no `mapping` attribute.

A view holds only the dict it shows (`backing`), never a Python view object, and it is reached
by scripts only through the sandbox (`runtime.interpreter.sandbox`), which charges and bounds what the
operators and comparisons here do. Every pair an items view hands out passes `check_pair` (the
sandbox's nested-tuple bound), since a pair is a new tuple that holds the dict's values.

The set operations follow CPython's algorithms (`dictviews_sub`, `_PyDictView_Intersect`,
`dictviews_or`, `dictviews_xor`, `dictitems_xor`, `dictview_richcompare`,
`dictviews_isdisjoint` in `Objects/dictobject.c`), so the same operands raise the same errors
(an unhashable item, a non-iterable operand); results iterate in a deterministic order, the
left operand's items first.
"""

from __future__ import annotations

from reprlib import recursive_repr
from typing import Any, Callable, Iterator

from dwf.runtime.values.sets import OrderedSet


class DictView:
    """What the three views share: the dict they show, `len`, and the repr CPython prints."""

    __slots__ = ("backing",)
    type_name = "dict_view"

    def __init__(self, backing: dict):
        self.backing = backing

    def __len__(self) -> int:
        return len(self.backing)

    @recursive_repr("...")
    def __repr__(self) -> str:
        # Python's own messages (`[].index(v)`) may show a view; scripts see `sandbox.dwf_repr`.
        return f"{self.type_name}({list(self)!r})"


class SetLikeView(DictView):
    """A keys or items view: set operators and set comparisons (CPython's `dictviews_*`)."""

    __slots__ = ()

    # ---- operators: the left operand as a set, updated with the right one
    def __sub__(self, other): return _difference(self, other)
    def __rsub__(self, other): return _difference(other, self)
    def __or__(self, other): return _union(self, other)
    def __ror__(self, other): return _union(other, self)
    def __and__(self, other): return _intersection(self, other)
    def __rand__(self, other): return _intersection(self, other)
    def __xor__(self, other): return _symmetric_difference(self, other)
    def __rxor__(self, other): return _symmetric_difference(other, self)

    # ---- comparisons: only with sets and set-like views, else Python's NotImplemented rules
    def __eq__(self, other):
        if not _is_set_like(other):
            return NotImplemented
        return len(self) == len(other) and _all_contained_in(self, other)

    def __le__(self, other):
        if not _is_set_like(other):
            return NotImplemented
        return len(self) <= len(other) and _all_contained_in(self, other)

    def __lt__(self, other):
        if not _is_set_like(other):
            return NotImplemented
        return len(self) < len(other) and _all_contained_in(self, other)

    def __ge__(self, other):
        if not _is_set_like(other):
            return NotImplemented
        return len(self) >= len(other) and _all_contained_in(other, self)

    def __gt__(self, other):
        if not _is_set_like(other):
            return NotImplemented
        return len(self) > len(other) and _all_contained_in(other, self)

    __hash__ = None  # unhashable, as CPython's set-like views

    def isdisjoint(self, other) -> bool:
        """True when no item of `other` (any iterable) is in the view."""
        if other is self:
            return len(self) == 0
        container, items = self, other
        if _is_set_like(other) and len(other) > len(self):
            container, items = other, self  # iterate the shorter one
        return not any(item in container for item in items)


class DictKeysView(SetLikeView):
    """`d.keys()`."""

    __slots__ = ()
    type_name = "dict_keys"

    def __iter__(self) -> Iterator:
        return iter(self.backing)

    def __reversed__(self) -> Iterator:
        return reversed(self.backing)

    def __contains__(self, key) -> bool:
        return key in self.backing


class DictItemsView(SetLikeView):
    """`d.items()`: its pairs are new tuples, each checked by `check_pair` before it is seen."""

    __slots__ = ("check_pair",)
    type_name = "dict_items"

    def __init__(self, backing: dict, check_pair: Callable[[tuple], tuple]):
        super().__init__(backing)
        self.check_pair = check_pair

    def __iter__(self) -> Iterator:
        return _checked(iter(self.backing.items()), self.check_pair)

    def __reversed__(self) -> Iterator:
        return _checked(reversed(self.backing.items()), self.check_pair)

    def __contains__(self, item) -> bool:
        return item in self.backing.items()  # CPython's test: a 2-tuple whose key maps to an equal value


class DictValuesView(DictView):
    """`d.values()`: not set-like; `==` is identity, as for CPython's `dict_values`."""

    __slots__ = ()
    type_name = "dict_values"

    def __iter__(self) -> Iterator:
        return iter(self.backing.values())

    def __reversed__(self) -> Iterator:
        return reversed(self.backing.values())

    def __contains__(self, value) -> bool:
        return value in self.backing.values()


VIEW_TYPES: tuple[type, ...] = (DictKeysView, DictValuesView, DictItemsView)
VIEW_NAMES: dict[str, str] = {view.__name__: view.type_name for view in VIEW_TYPES}  # Python class -> DWF name


def _checked(pairs: Iterator, check: Callable[[tuple], tuple]) -> Iterator:
    # The dict's iterator is made before this generator starts, so a change between `iter()`
    # and the first item is seen, as with CPython's view iterators.
    for pair in pairs:
        key, value = pair
        if type(key) is tuple or type(value) is tuple:  # only nested tuples need the check
            check(pair)
        yield pair


def _is_set_like(value: Any) -> bool:
    return isinstance(value, (OrderedSet, SetLikeView))


def _all_contained_in(items, container) -> bool:
    return all(item in container for item in items)


def _difference(left, right) -> OrderedSet:
    result = OrderedSet(left)  # a non-iterable left operand: "'int' object is not iterable"
    result.difference_update(right)
    return result


def _union(left, right) -> OrderedSet:
    result = OrderedSet(left)
    result.update(right)
    return result


def _intersection(view: SetLikeView, other) -> OrderedSet:
    """`_PyDictView_Intersect`: iterate the other operand (the smaller, when both are views),
    keeping what the view contains."""
    if type(other) is OrderedSet and len(view) <= len(other):
        return other.intersection(view)
    if isinstance(other, SetLikeView) and len(other) > len(view):
        view, other = other, view
    result = OrderedSet()
    for item in other:
        if item in view:
            result.add(item)
    return result


def _symmetric_difference(left, right) -> OrderedSet:
    if isinstance(left, DictItemsView) and isinstance(right, DictItemsView):
        return _items_symmetric_difference(left, right)
    result = OrderedSet(left)
    result.symmetric_difference_update(right)
    return result


def _items_symmetric_difference(left: DictItemsView, right: DictItemsView) -> OrderedSet:
    """`dictitems_xor`: pairs whose key is in both dicts with equal values drop out without
    being hashed, so values need not be hashable then (`{1: [1]}.items() ^ {1: [1]}.items()`)."""
    mine, dropped = left.backing, {}
    only_right = OrderedSet()
    for pair in right:
        key, value = pair
        if key in mine:
            found = mine[key]
            if found is value or found == value:
                dropped[key] = None
                continue
        only_right.add(pair)
    only_left = OrderedSet(pair for pair in left if pair[0] not in dropped)
    only_left.update(only_right)
    return only_left
